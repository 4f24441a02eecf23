// The rule modules behind the entry points of checks.hpp, one function per module and
// subject. Each appends its findings to `out` and touches nothing else; checks.cpp decides
// which modules judge which subject, so a new module (Windows DACLs, liveness verdicts) is
// one more declaration here and one more call there.
#pragma once

#include "model/facts.hpp"
#include "model/finding.hpp"

namespace hsperfguard::checks {

// temp_dir.cpp: tmpdir.*
void check_temp_dir(const TempRootFacts& root, Findings& out);

// directory.cpp: namespace.* judged from the directory's inode, name, user and errors.
void check_namespace_directory(const TempRootFacts& root, const NamespaceFacts& ns, Findings& out);

// acl.cpp: namespace.acl-grants-write, namespace.default-acl; file.acl.
void check_namespace_acls(const TempRootFacts& root, const NamespaceFacts& ns, Findings& out);
void check_file_acl(const TempRootFacts& root, const NamespaceFacts& ns, const FileFacts& file,
                    Findings& out);

// volume.cpp: volume.* for the file system holding a namespace.
void check_volume(const TempRootFacts& root, const NamespaceFacts& ns, Findings& out);

// file.cpp: file.* judged from an entry's name and inode.
void check_file_entry(const TempRootFacts& root, const NamespaceFacts& ns, const FileFacts& file,
                      Findings& out);

// prologue.cpp: file.bad-prologue from the parsed region.
void check_prologue(const TempRootFacts& root, const NamespaceFacts& ns, const FileFacts& file,
                    Findings& out);

// prediction.cpp: whether a JVM starting now would publish (namespace.owner-no-access,
// namespace.read-only, namespace.immutable, namespace.no-space; tmpdir.new-namespaces-fail,
// tmpdir.shared-pid-names).
void check_namespace_prediction(const TempRootFacts& root, const NamespaceFacts& ns, Findings& out);
void check_temp_dir_prediction(const TempRootFacts& root, Findings& out);

// jvm.cpp: jvm.* for the invisible JVMs of a namespace (`ns`; nullptr for those whose
// namespace does not exist, judged on the temp dir), findings on `path`.
void check_invisible_jvms(const TempRootFacts& root, const NamespaceFacts* ns,
                          const std::vector<JvmProcessFacts>& jvms, const std::string& path, Findings& out);

// attach.cpp: attach.*
void check_attach_file(const TempRootFacts& root, const AttachFacts& attach, Findings& out);

// Shared by the modules.

// The uid owning the namespace directory, when it was observed and is a directory.
std::optional<std::uint32_t> namespace_owner(const NamespaceFacts& ns);
// True when the entry is a backing-file candidate: an all-digit name (canonical,
// noncanonical or out of range). Other names are foreign and never judged as backing files.
bool has_pid_like_name(const FileFacts& file);

}  // namespace hsperfguard::checks
