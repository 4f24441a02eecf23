// Hand-built facts for the rule tests. Every builder returns what a compliant system looks
// like (the audit of it is clean); a test then changes the one value it is about.
#pragma once

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "checks/checks.hpp"
#include "model/facts.hpp"
#include "model/finding.hpp"
#include "model/perfdata.hpp"
#include "model/pid_name.hpp"
#include "model/rule_catalog.hpp"

namespace hsperfguard::test {

inline constexpr std::uint32_t kAliceUid = 1000;
inline constexpr std::uint32_t kMalloryUid = 1001;
inline constexpr std::uint32_t kStaffGid = 50;

inline InodeFacts inode(FileKind kind, std::uint32_t mode, std::uint32_t uid, std::uint64_t ino,
                        std::uint64_t size = 0) {
  InodeFacts i;
  i.kind = kind;
  i.mode = mode;
  i.uid = uid;
  i.gid = uid;
  i.nlink = kind == FileKind::directory ? 2 : 1;
  i.size = size;
  i.dev = 0x2a;
  i.ino = ino;
  return i;
}

// lstat and fstat agree, as they do when nothing races the observation.
template <typename Subject>
void set_inode(Subject& subject, const InodeFacts& i) {
  subject.lstat = i;
  subject.opened = i;
}

inline VolumeFacts tmpfs() {
  VolumeFacts v;
  v.fs_type = "tmpfs";
  v.fs_magic = 0x01021994;
  v.network = false;
  v.acl_support = true;
  return v;
}

// /tmp: root-owned, 1777, on tmpfs.
inline TempRootFacts temp_root() {
  TempRootFacts root;
  root.root = "/";
  root.temp_dir = "/tmp";
  set_inode(root, inode(FileKind::directory, 01777, 0, 100));
  root.volume = tmpfs();
  return root;
}

// /tmp/hsperfdata_<user>, 0755, owned by the user, as HotSpot creates it.
inline NamespaceFacts namespace_of(const std::string& user = "alice",
                                   std::uint32_t uid = kAliceUid) {
  NamespaceFacts ns;
  ns.name = "hsperfdata_" + user;
  ns.user_suffix = user;
  ns.path = "/tmp/" + ns.name;
  set_inode(ns, inode(FileKind::directory, 0755, uid, 200 + uid));
  ns.user = UserFacts{user, uid, uid, std::nullopt};
  return ns;
}

// Two counters, the way a JVM lays them out in a 32 KiB region.
inline perfdata::RegionSpec region_spec() {
  perfdata::NewEntry begin;
  begin.name = "sun.rt.createVmBeginTime";
  begin.units = perfdata::Units::ticks;
  begin.long_value = 1;
  perfdata::NewEntry command;
  command.name = "sun.rt.javaCommand";
  command.units = perfdata::Units::string;
  command.is_string = true;
  command.string_value = "Main -Dsecret=1";
  perfdata::RegionSpec spec;
  spec.entries = {begin, command};
  return spec;
}

// A valid 32 KiB region, the way a JVM lays it out.
inline RegionSummary valid_region() {
  const auto built = perfdata::build_region(region_spec());
  RegionSummary summary;
  summary.region = perfdata::parse_region(built.bytes);
  summary.bytes_read = built.bytes.size();
  return summary;
}

// A region parsed from `bytes` as observation would do.
inline RegionSummary region_of(const std::vector<std::byte>& bytes) {
  RegionSummary summary;
  summary.region = perfdata::parse_region(bytes);
  summary.bytes_read = bytes.size();
  return summary;
}

// <namespace>/<name>: a 0600 regular file of the namespace owner, 32 KiB, valid region.
inline FileFacts backing_file(const NamespaceFacts& ns, const std::string& name = "4242") {
  FileFacts file;
  file.name = name;
  file.path = ns.path + "/" + name;
  set_inode(file, inode(FileKind::regular, 0600, ns.lstat ? ns.lstat->uid : kAliceUid, 300,
                        perfdata::kDefaultRegionSize));
  file.pid_name = classify_pid_name(name);
  file.region = valid_region();
  return file;
}

// A backing file whose lock a live process holds: the lock test found it held, by `holder`.
inline FileFacts locked_file(const NamespaceFacts& ns, const std::string& name, std::int32_t holder) {
  FileFacts file = backing_file(ns, name);
  file.liveness = LivenessFacts{};
  file.liveness->lock_held = true;
  file.liveness->lock_holder_pid = holder;
  return file;
}

inline ProcessFacts process(std::int32_t pid, ProcessFacts::Existence existence,
                            std::optional<std::uint32_t> uid = kAliceUid) {
  ProcessFacts p;
  p.pid = pid;
  p.existence = existence;
  p.real_uid = uid;
  return p;
}

// /tmp/.java_pid<pid>: a 0600 socket of the JVM's user, the JVM alive.
// What a complete search found: one candidate, that process.
inline AttachLiveness attach_liveness(ProcessFacts p) {
  AttachLiveness l;
  l.candidates.push_back(std::move(p));
  l.candidates_complete = true;
  return l;
}

// Whether live process `pid` listens on the attach socket (nullopt: could not be read).
inline AttachListenerFacts listening(std::int32_t pid, std::optional<bool> listens) {
  AttachListenerFacts l;
  l.pid = pid;
  l.listens = listens;
  return l;
}

inline AttachFacts listener(std::int32_t pid = 4242, std::uint32_t uid = kAliceUid) {
  AttachFacts a;
  a.name = ".java_pid" + std::to_string(pid);
  a.path = "/tmp/" + a.name;
  a.kind = AttachFacts::Kind::listener_socket;
  a.pid = pid;
  a.lstat = inode(FileKind::socket, 0600, uid, 400);
  a.liveness = attach_liveness(process(pid, ProcessFacts::Existence::alive, uid));
  return a;
}

inline AttachFacts trigger_file(std::int32_t pid = 4242, std::uint32_t uid = kAliceUid) {
  AttachFacts a;
  a.name = ".attach_pid" + std::to_string(pid);
  a.path = "/tmp/" + a.name;
  a.kind = AttachFacts::Kind::trigger_file;
  a.pid = pid;
  a.lstat = inode(FileKind::regular, 0600, uid, 401);
  a.liveness = attach_liveness(process(pid, ProcessFacts::Existence::alive, uid));
  return a;
}

inline AclEntry entry(AclTag tag, std::uint8_t perms,
                      std::optional<std::uint32_t> qualifier = std::nullopt) {
  return AclEntry{tag, qualifier, perms};
}

inline ObservationError error(const std::string& path, const std::string& op) {
  return ObservationError{path, op, 13, "Permission denied"};
}

// A compliant world: /tmp, alice's namespace with one backing file, its attach socket.
inline TempRootFacts compliant_world() {
  TempRootFacts root = temp_root();
  NamespaceFacts ns = namespace_of();
  ns.files.push_back(backing_file(ns));
  root.namespaces.push_back(std::move(ns));
  root.attach_files.push_back(listener());
  return root;
}

// ---- Looking at findings -----------------------------------------------------------------

inline std::vector<std::string> ids(const Findings& findings) {
  std::vector<std::string> out;
  for (const auto& f : findings) out.push_back(f.rule);
  std::sort(out.begin(), out.end());
  return out;
}

inline const Finding* find(const Findings& findings, std::string_view rule) {
  for (const auto& f : findings) {
    if (f.rule == rule) return &f;
  }
  return nullptr;
}
// A pointer into a temporary would dangle: keep the findings in a variable.
const Finding* find(Findings&& findings, std::string_view rule) = delete;

inline std::size_t count(const Findings& findings, std::string_view rule) {
  return static_cast<std::size_t>(std::count_if(findings.begin(), findings.end(),
                                                [&](const Finding& f) { return f.rule == rule; }));
}

// What `hsperfguard audit` reports with the default profile (which disables only
// namespace.not-private: HotSpot's own 0755 would otherwise be a finding everywhere).
inline const Policy& default_policy() {
  static const Policy policy = *builtin_profile("default");
  return policy;
}

// Findings of the whole subject for each entry point, after the default profile.
inline Findings namespace_findings(const NamespaceFacts& ns,
                                   const TempRootFacts& root = temp_root()) {
  return apply_policy_to_findings(checks::check_namespace(root, ns), default_policy());
}
inline Findings file_findings(const FileFacts& file, const NamespaceFacts& ns = namespace_of(),
                              const TempRootFacts& root = temp_root()) {
  return apply_policy_to_findings(checks::check_file(root, ns, file), default_policy());
}

}  // namespace hsperfguard::test
