// The registry (checks/registry.hpp): every rule of rules/*.json by id, with its function per
// subject. The order is the report's: within each subject, findings come out in the order of
// these rows. The jvm.* rows and the dacl.* rows judge sub-subjects (each invisible JVM, a
// security descriptor); the entry points run each of those groups as one block where its
// first row stands, so a JVM's or a descriptor's findings stay together.
#include "checks/registry.hpp"

#include <array>

#include "checks/rules.hpp"

namespace hsperfguard::checks {
namespace {

constexpr std::array kRegistry = {
    // tmpdir.cpp
    RuleEntry{.id = "tmpdir.observation-error", .temp_dir = tmpdir_observation_error},
    RuleEntry{.id = "tmpdir.identity-changed", .temp_dir = tmpdir_identity_changed},
    RuleEntry{.id = "tmpdir.unsafe", .temp_dir = tmpdir_unsafe},
    RuleEntry{.id = "tmpdir.shared-pid-names", .temp_dir = tmpdir_shared_pid_names},
    RuleEntry{.id = "tmpdir.new-namespaces-fail", .temp_dir = tmpdir_new_namespaces_fail},
    RuleEntry{.id = "tmpdir.containers-unobserved", .temp_dir = tmpdir_containers_unobserved},
    RuleEntry{.id = "tmpdir.cleaner-ages-jvm-files", .temp_dir = tmpdir_cleaner_ages_jvm_files},
    RuleEntry{.id = "tmpdir.cleaners-unread", .temp_dir = tmpdir_cleaners_unread},

    // namespace.cpp: the directory, then what a JVM starting now would meet
    RuleEntry{.id = "namespace.observation-error", .namespace_dir = namespace_observation_error},
    RuleEntry{.id = "namespace.identity-changed", .namespace_dir = namespace_identity_changed},
    RuleEntry{.id = "namespace.symlink", .namespace_dir = namespace_symlink},
    RuleEntry{.id = "namespace.not-directory", .namespace_dir = namespace_not_directory},
    RuleEntry{.id = "namespace.user-lookup-failed", .namespace_dir = namespace_user_lookup_failed},
    RuleEntry{.id = "namespace.unknown-user", .namespace_dir = namespace_unknown_user},
    RuleEntry{.id = "namespace.group-other-writable",
              .namespace_dir = namespace_group_other_writable},
    RuleEntry{.id = "namespace.not-private", .namespace_dir = namespace_not_private},
    RuleEntry{.id = "namespace.owner-mismatch", .namespace_dir = namespace_owner_mismatch},
    RuleEntry{.id = "namespace.root-owner-mismatch",
              .namespace_dir = namespace_root_owner_mismatch},
    RuleEntry{.id = "namespace.mount-boundary", .namespace_dir = namespace_mount_boundary},
    RuleEntry{.id = "namespace.jvm-blinded", .prediction = namespace_jvm_blinded},
    RuleEntry{.id = "namespace.owner-no-access", .prediction = namespace_owner_no_access},
    RuleEntry{.id = "namespace.read-only", .prediction = namespace_read_only},
    RuleEntry{.id = "namespace.immutable", .prediction = namespace_immutable},
    RuleEntry{.id = "namespace.no-space", .prediction = namespace_no_space},

    // jvm.cpp: each invisible JVM of a namespace (or of a temp dir, when its namespace does
    // not exist); exactly one cause, so at most one of these per JVM
    RuleEntry{.id = "jvm.backing-file-deleted", .jvm = jvm_backing_file_deleted},
    RuleEntry{.id = "jvm.perf-data-disabled", .jvm = jvm_perf_data_disabled},
    RuleEntry{.id = "jvm.create-failed", .jvm = jvm_create_failed},
    RuleEntry{.id = "jvm.locked-by-another-jvm", .jvm = jvm_locked_by_another_jvm},
    RuleEntry{.id = "jvm.namespace-changed", .jvm = jvm_namespace_changed},
    RuleEntry{.id = "jvm.cause-undetermined", .jvm = jvm_cause_undetermined},
    RuleEntry{.id = "jvm.no-passwd-entry", .jvm = jvm_no_passwd_entry},

    // namespace.cpp: POSIX ACLs
    RuleEntry{.id = "namespace.acl-grants-write", .namespace_dir = namespace_acl_grants_write},
    RuleEntry{.id = "namespace.default-acl", .namespace_dir = namespace_default_acl},

    // file.cpp: the name (at most one of the three), the inode, the ACL, the contents
    RuleEntry{.id = "file.observation-error", .file = file_observation_error},
    RuleEntry{.id = "file.foreign-name", .file = file_foreign_name},
    RuleEntry{.id = "file.pid-out-of-range", .file = file_pid_out_of_range},
    RuleEntry{.id = "file.noncanonical-pid", .file = file_noncanonical_pid},
    RuleEntry{.id = "file.identity-changed", .file = file_identity_changed},
    RuleEntry{.id = "file.mount-boundary", .file = file_mount_boundary},
    RuleEntry{.id = "file.owner-mismatch", .file = file_owner_mismatch},
    RuleEntry{.id = "file.symlink", .file = file_symlink},
    RuleEntry{.id = "file.not-regular", .file = file_not_regular},
    RuleEntry{.id = "file.hard-link", .file = file_hard_link},
    RuleEntry{.id = "file.mode", .file = file_mode},
    RuleEntry{.id = "file.setid", .file = file_setid},
    RuleEntry{.id = "file.bad-size", .file = file_bad_size},
    RuleEntry{.id = "file.acl", .file = file_acl},
    RuleEntry{.id = "file.bad-prologue", .file = file_bad_prologue},
    // jvm.cpp: a live JVM's file in a /tmp the host's attach does not look in
    RuleEntry{.id = "jvm.own-mount-namespace", .file = jvm_own_mount_namespace},
    RuleEntry{.id = "jvm.other-account-temp-dir", .file = jvm_other_account_temp_dir},
    // file.cpp: the liveness verdict
    RuleEntry{.id = "file.stale", .verdict = file_stale},
    RuleEntry{.id = "file.pid-reused", .verdict = file_pid_reused},

    // volume.cpp
    RuleEntry{.id = "volume.network-filesystem", .namespace_dir = volume_network_filesystem},
    RuleEntry{.id = "volume.no-acl-support", .namespace_dir = volume_no_acl_support},
    RuleEntry{.id = "volume.compressed", .namespace_dir = volume_compressed},

    // windows.cpp
    RuleEntry{.id = "namespace.reparse-point", .namespace_dir = namespace_reparse_point},
    RuleEntry{.id = "volume.no-persistent-acls", .namespace_dir = volume_no_persistent_acls},
    RuleEntry{.id = "volume.unc-path", .namespace_dir = volume_unc_path},
    RuleEntry{.id = "file.compressed", .file = file_compressed},

    // dacl.cpp: the descriptor of a namespace or of one of its entries
    RuleEntry{.id = "dacl.owner", .descriptor = dacl_owner},
    RuleEntry{.id = "dacl.null", .descriptor = dacl_null},
    RuleEntry{.id = "dacl.not-protected", .descriptor = dacl_not_protected},
    RuleEntry{.id = "dacl.everyone-too-broad", .descriptor = dacl_everyone_too_broad},
    RuleEntry{.id = "dacl.extra-writer", .descriptor = dacl_extra_writer},
    RuleEntry{.id = "dacl.admins-missing", .descriptor = dacl_admins_missing},
    RuleEntry{.id = "dacl.file-data-readable", .descriptor = dacl_file_data_readable},

    // attach.cpp
    RuleEntry{.id = "attach.observation-error", .attach = attach_observation_error},
    RuleEntry{.id = "attach.socket-unsafe", .attach = attach_socket_unsafe},
    RuleEntry{.id = "attach.stale", .attach = attach_stale},
    RuleEntry{.id = "attach.no-listener", .attach = attach_no_listener},
};

}  // namespace

std::span<const RuleEntry> rule_registry() { return kRegistry; }

const RuleEntry* find_rule_entry(std::string_view id) {
  for (const RuleEntry& entry : kRegistry) {
    if (entry.id == id) return &entry;
  }
  return nullptr;
}

const RuleSelection& RuleSelection::all() {
  static const RuleSelection every = where([](std::string_view) { return true; });
  return every;
}

}  // namespace hsperfguard::checks
