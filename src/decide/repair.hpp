// `hsperfguard repair`, the judging half: which findings of an audit can be fixed in place,
// how, and which must be left to a person. Pure: facts and judgements in, a plan out.
//
// What is fixed (rules flagged "repairable" in the catalogue), and only inside a namespace
// that is safe to act in:
// - namespace.group-other-writable, namespace.not-private: the bits are removed (fchmod);
// - namespace.acl-grants-write, file.acl: the access ACL is reduced to the mode bits;
// - namespace.default-acl: the default ACL is removed;
// - file.mode, file.acl: the group and other bits are removed; file.setid: the special bits
//   (every fix only removes bits: repair, like create, never loosens a mode);
// - namespace.owner-mismatch, file.owner-mismatch: ownership is restored only when the
//   rightful owner is certain: the entry is owned by root (a provisioning script or a root
//   copy made it), the user the namespace is named after is known, and repair runs as root.
//   An entry owned by another user is hostile and is never chowned.
// On Windows (facts of Platform::windows) the dacl.* rules the catalogue marks repairable are
// fixed: the namespace or file gets the protected DACL `create` gives
// (model/compliant_descriptor.hpp), its owner unchanged; only in a namespace that is a real
// directory (no reparse point) on its temp dir's volume, named after a known account, owned
// by that account or by Administrators, and only on a single-link regular file with such an
// owner. dacl.owner is left to a person.
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
#include "model/repair_plan.hpp"

namespace hsperfguard {

// Plans the repair of every finding in `judgements` (judge() of `roots`). A finding whose rule
// is not repairable, or that is in a place not safe to act in, is a `left` item. No plan
// changes an owner: an entry's owner says nothing of who put it where it is (a user can rename
// a root-owned file from any directory she can write on the same file system into her own
// namespace), so the owner rules are left to a person.
RepairPlan plan_repair(const std::vector<TempRootFacts>& roots, const std::vector<RootJudgement>& judgements);

// Why repair would not act in `ns` at all (nullopt: it may), e.g. "the namespace is a
// symbolic link: repair never follows it". On Windows facts the owner is judged by SID (the
// user or Administrators) and a link is a reparse point.
std::optional<std::string> namespace_unsafe_for_repair(const TempRootFacts& root,
                                                       const NamespaceFacts& ns);

// What a finding is about, for repair_refusal: the temp dir, an attach file, a namespace, or
// a file of a namespace.
struct RepairSubject {
  const NamespaceFacts* ns = nullptr;  // null: the temp dir or an attach file
  const FileFacts* file = nullptr;     // a file of `ns`
  bool attach = false;                 // an attach file of the temp dir
};

// Why `repair` would leave finding `f` to a person (nullopt: it fixes it). The one decision:
// the repair planner takes it for every finding, and the audit for a finding's `repairable`
// and for whether its remedy may propose changing the entry in place, so the two never
// disagree. `root_findings` are the temp dir's own findings (judge_root's): an unsafe temp
// dir stops every repair beneath it. Kinds of reason, for remedies: RepairRefusal::place is a
// reason of where the entry is (a container's temp dir, a link, a mount point, a file with
// other names or another owner, an unsafe namespace or temp dir), ::rule one of the rule (no
// fix by repair at all).
struct RepairRefusal {
  enum class Kind { rule, place } kind = Kind::rule;
  std::string reason;
};
std::optional<RepairRefusal> repair_refusal(const TempRootFacts& root, const Findings& root_findings,
                                            const RepairSubject& subject, const Finding& f);

}  // namespace hsperfguard
