// `hsperfguard repair`, the judging half: which findings of an audit can be fixed in place,
// how, and which must be left to a person. Pure: facts and judgements in, a plan out.
//
// What is fixed (rules flagged "repairable" in the catalogue), and only inside a namespace
// that is safe to act in:
// - namespace.group-other-writable, namespace.not-private: the bits are removed (fchmod);
// - namespace.acl-grants-write, file.acl: the access ACL is reduced to the mode bits;
// - namespace.default-acl: the default ACL is removed;
// - file.mode, file.setid: the backing file's mode becomes 0600;
// - namespace.owner-mismatch, file.owner-mismatch: ownership is restored only when the
//   rightful owner is certain: the entry is owned by root (a provisioning script or a root
//   copy made it), the user the namespace is named after is known, and repair runs as root.
//   An entry owned by another user is hostile and is never chowned.
// A namespace is safe to act in when it is a real directory (not a link), seen as the same
// inode by lstat and fstat, on its temp dir's mount, named after a known user, and owned by
// that user or by root. Anything else (a symlinked namespace, one squatted by another user,
// an unknown user's) is left whole, every finding in it with its manual remedy: repair
// never works through a link or inside a directory someone else controls. A file is acted on
// only when it is a regular file with a single link, on its namespace's mount.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "decide/audit.hpp"
#include "model/facts.hpp"
#include "model/finding.hpp"
#include "decide/reaper.hpp"  // ExpectedInode

namespace hsperfguard {

// One temp dir, as the executor must find it again.
struct RepairRoot {
  RootKind kind = RootKind::host;
  std::string root_dir;  // "/", or the --root DIR
  std::string temp_dir;
  std::optional<ExpectedInode> expected;  // of the opened temp dir
};

// One inode to change, and every change for it (applied together, in this order: access
// ACL, default ACL, mode, owner).
struct RepairTarget {
  std::size_t root = 0;              // index into RepairPlan::roots
  std::string namespace_name;        // entry of the temp dir ("hsperfdata_alice")
  std::optional<std::string> file;   // entry of the namespace, for a file
  std::string path;                  // for messages
  ExpectedInode namespace_expected;  // the namespace as observed
  ExpectedInode expected;            // this inode as observed (== namespace_expected for a namespace)
  bool strip_access_acl = false;
  bool remove_default_acl = false;
  std::optional<std::uint32_t> new_mode;
  std::optional<std::uint32_t> new_uid;
  std::optional<std::uint32_t> new_gid;
};

enum class RepairDisposition {
  fix,   // a target carries the fix
  left,  // not fixed: `reason` says why, `remediation` what a person should do
};

struct RepairItem {
  std::string rule;
  Severity severity = Severity::medium;
  std::string path;
  std::string message;  // the finding's
  RepairDisposition disposition = RepairDisposition::left;
  std::optional<std::size_t> target;  // index into RepairPlan::targets, for a fix
  std::string change;                 // for a fix: "mode 0777 -> 0755", "access ACL stripped"
  std::string reason;                 // for left items: why repair does not fix it
  std::string remediation;            // the rule's, for left items
};

struct RepairPlan {
  std::vector<RepairRoot> roots;
  std::vector<RepairTarget> targets;
  std::vector<RepairItem> items;  // one per finding, in report order

  std::size_t count(RepairDisposition disposition) const;
};

// The context repair runs in.
struct RepairContext {
  std::uint32_t euid = 0;  // chown is planned only as root
};

// Plans the repair of every finding in `judgements` (judge() of `roots`). A finding whose rule
// is not repairable, or that is in a place not safe to act in, is a `left` item.
RepairPlan plan_repair(const std::vector<TempRootFacts>& roots,
                       const std::vector<RootJudgement>& judgements, const RepairContext& context);

// Why repair would not act in `ns` at all (nullopt: it may), e.g. "the namespace is a
// symbolic link: repair never follows it".
std::optional<std::string> namespace_unsafe_for_repair(const TempRootFacts& root,
                                                       const NamespaceFacts& ns);

// Human-readable plan and outcome lines ("fix", "fixed", "failed", "left").
std::string describe_target_changes(const RepairTarget& target);

}  // namespace hsperfguard
