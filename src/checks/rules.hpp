// The rule functions, one per rule and subject, declared by family: each family's functions
// live in the source file named after its catalogue file in rules/ (tmpdir.cpp for
// rules/tmpdir.json, ...), with the helpers the families share, declared last. Only
// registry.cpp (which lists them by rule id) and the tests name them; everyone else runs
// them through the entry points of checks.hpp. Each appends findings of its own id only.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "checks/subjects.hpp"
#include "model/facts.hpp"
#include "model/finding.hpp"
#include "model/verdict.hpp"

namespace hsperfguard::checks {

// tmpdir.cpp
void tmpdir_observation_error(const TempRootFacts& root, Findings& out);
void tmpdir_identity_changed(const TempRootFacts& root, Findings& out);
void tmpdir_unsafe(const TempRootFacts& root, Findings& out);
void tmpdir_shared_pid_names(const TempRootFacts& root, Findings& out);
void tmpdir_new_namespaces_fail(const TempRootFacts& root, Findings& out);
void tmpdir_containers_unobserved(const TempRootFacts& root, Findings& out);
void tmpdir_cleaner_ages_jvm_files(const TempRootFacts& root, Findings& out);
void tmpdir_cleaners_unread(const TempRootFacts& root, Findings& out);

// namespace.cpp
void namespace_observation_error(const TempRootFacts& root, const NamespaceFacts& ns,
                                 Findings& out);
void namespace_identity_changed(const TempRootFacts& root, const NamespaceFacts& ns, Findings& out);
void namespace_symlink(const TempRootFacts& root, const NamespaceFacts& ns, Findings& out);
void namespace_not_directory(const TempRootFacts& root, const NamespaceFacts& ns, Findings& out);
void namespace_user_lookup_failed(const TempRootFacts& root, const NamespaceFacts& ns,
                                  Findings& out);
void namespace_unknown_user(const TempRootFacts& root, const NamespaceFacts& ns, Findings& out);
void namespace_group_other_writable(const TempRootFacts& root, const NamespaceFacts& ns,
                                    Findings& out);
void namespace_not_private(const TempRootFacts& root, const NamespaceFacts& ns, Findings& out);
void namespace_owner_mismatch(const TempRootFacts& root, const NamespaceFacts& ns, Findings& out);
void namespace_root_owner_mismatch(const TempRootFacts& root, const NamespaceFacts& ns,
                                   Findings& out);
void namespace_mount_boundary(const TempRootFacts& root, const NamespaceFacts& ns, Findings& out);
void namespace_jvm_blinded(const PredictionSubject& s, Findings& out);
void namespace_owner_no_access(const PredictionSubject& s, Findings& out);
void namespace_read_only(const PredictionSubject& s, Findings& out);
void namespace_immutable(const PredictionSubject& s, Findings& out);
void namespace_no_space(const PredictionSubject& s, Findings& out);
void namespace_acl_grants_write(const TempRootFacts& root, const NamespaceFacts& ns, Findings& out);
void namespace_default_acl(const TempRootFacts& root, const NamespaceFacts& ns, Findings& out);

// jvm.cpp
void jvm_backing_file_deleted(const JvmSubject& s, Findings& out);
void jvm_perf_data_disabled(const JvmSubject& s, Findings& out);
void jvm_create_failed(const JvmSubject& s, Findings& out);
void jvm_locked_by_another_jvm(const JvmSubject& s, Findings& out);
void jvm_namespace_changed(const JvmSubject& s, Findings& out);
void jvm_cause_undetermined(const JvmSubject& s, Findings& out);
void jvm_no_passwd_entry(const JvmSubject& s, Findings& out);
void jvm_own_mount_namespace(const TempRootFacts& root, const NamespaceFacts& ns,
                             const FileFacts& file, Findings& out);
void jvm_other_account_temp_dir(const TempRootFacts& root, const NamespaceFacts& ns,
                                 const FileFacts& file, Findings& out);

// file.cpp
void file_observation_error(const TempRootFacts& root, const NamespaceFacts& ns,
                            const FileFacts& file, Findings& out);
void file_foreign_name(const TempRootFacts& root, const NamespaceFacts& ns, const FileFacts& file,
                       Findings& out);
void file_pid_out_of_range(const TempRootFacts& root, const NamespaceFacts& ns,
                           const FileFacts& file, Findings& out);
void file_noncanonical_pid(const TempRootFacts& root, const NamespaceFacts& ns,
                           const FileFacts& file, Findings& out);
void file_identity_changed(const TempRootFacts& root, const NamespaceFacts& ns,
                           const FileFacts& file, Findings& out);
void file_mount_boundary(const TempRootFacts& root, const NamespaceFacts& ns, const FileFacts& file,
                         Findings& out);
void file_owner_mismatch(const TempRootFacts& root, const NamespaceFacts& ns, const FileFacts& file,
                         Findings& out);
void file_symlink(const TempRootFacts& root, const NamespaceFacts& ns, const FileFacts& file,
                  Findings& out);
void file_not_regular(const TempRootFacts& root, const NamespaceFacts& ns, const FileFacts& file,
                      Findings& out);
void file_hard_link(const TempRootFacts& root, const NamespaceFacts& ns, const FileFacts& file,
                    Findings& out);
void file_mode(const TempRootFacts& root, const NamespaceFacts& ns, const FileFacts& file,
               Findings& out);
void file_setid(const TempRootFacts& root, const NamespaceFacts& ns, const FileFacts& file,
                Findings& out);
void file_bad_size(const TempRootFacts& root, const NamespaceFacts& ns, const FileFacts& file,
                   Findings& out);
void file_acl(const TempRootFacts& root, const NamespaceFacts& ns, const FileFacts& file,
              Findings& out);
void file_bad_prologue(const TempRootFacts& root, const NamespaceFacts& ns, const FileFacts& file,
                       Findings& out);
void file_stale(const NamespaceFacts& ns, const FileFacts& file, LivenessVerdict& verdict,
                Findings& out);
void file_pid_reused(const NamespaceFacts& ns, const FileFacts& file, LivenessVerdict& verdict,
                     Findings& out);

// volume.cpp
void volume_network_filesystem(const TempRootFacts& root, const NamespaceFacts& ns, Findings& out);
void volume_no_acl_support(const TempRootFacts& root, const NamespaceFacts& ns, Findings& out);
void volume_compressed(const TempRootFacts& root, const NamespaceFacts& ns, Findings& out);

// windows.cpp: HotSpot's own Windows refusals and compressed backing files.
void namespace_reparse_point(const TempRootFacts& root, const NamespaceFacts& ns, Findings& out);
void volume_no_persistent_acls(const TempRootFacts& root, const NamespaceFacts& ns, Findings& out);
void volume_unc_path(const TempRootFacts& root, const NamespaceFacts& ns, Findings& out);
void file_compressed(const TempRootFacts& root, const NamespaceFacts& ns, const FileFacts& file,
                     Findings& out);

// dacl.cpp
void dacl_owner(const DescriptorSubject& s, Findings& out);
void dacl_null(const DescriptorSubject& s, Findings& out);
void dacl_not_protected(const DescriptorSubject& s, Findings& out);
void dacl_everyone_too_broad(const DescriptorSubject& s, Findings& out);
void dacl_extra_writer(const DescriptorSubject& s, Findings& out);
void dacl_admins_missing(const DescriptorSubject& s, Findings& out);
void dacl_file_data_readable(const DescriptorSubject& s, Findings& out);

// attach.cpp
void attach_observation_error(const TempRootFacts& root, const AttachFacts& attach, Findings& out);
void attach_socket_unsafe(const TempRootFacts& root, const AttachFacts& attach, Findings& out);
void attach_stale(const TempRootFacts& root, const AttachFacts& attach, Findings& out);
void attach_no_listener(const TempRootFacts& root, const AttachFacts& attach, Findings& out);

// Shared by the families.

// The uid owning the namespace directory, when it was observed and is a directory.
std::optional<std::uint32_t> namespace_owner(const NamespaceFacts& ns);
// The namespace's inode when it is judged as a directory: observed, not a link, a directory.
// Null otherwise (a link or a non-directory has its own finding and nothing else is judged).
const InodeFacts* namespace_directory(const NamespaceFacts& ns);
// True when the entry is a backing-file candidate: an all-digit name (canonical,
// noncanonical or out of range). Other names are foreign and never judged as backing files.
bool has_pid_like_name(const FileFacts& file);
// The entry's inode as a reader or a JVM would meet its name: the link itself for a link,
// else the judged inode. Null when nothing was observed.
const InodeFacts* shown_inode(const FileFacts& file);
// The entry's inode when it is judged as a backing file: a pid-like name, not a link, a
// regular file. Null otherwise.
const InodeFacts* backing_inode(const FileFacts& file);
// The volume a namespace lives on: its own when observed, else its temp dir's.
const VolumeFacts* namespace_volume(const TempRootFacts& root, const NamespaceFacts& ns);
// A volume finding's evidence: the volume, and whether it is the namespace's or the temp dir's.
nlohmann::json namespace_volume_evidence(const NamespaceFacts& ns, const VolumeFacts& volume);
// The "could not be observed completely" finding of `rule` on `path`.
Finding observation_error_finding(std::string_view rule, std::string_view noun,
                                  const std::string& path,
                                  const std::vector<ObservationError>& errors);

}  // namespace hsperfguard::checks
