// A repair as data: the plan decide/repair.hpp makes (one item per finding, fixed or left
// with the reason) with the targets the platform changes (platform/create.hpp), and what
// it reports for each target.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/expected_inode.hpp"
#include "model/facts.hpp"
#include "model/finding.hpp"

namespace hsperfguard {

struct RepairRoot {
  RootKind kind = RootKind::host;
  std::string root_dir;  // "/", or the --root DIR
  std::string temp_dir;
  std::optional<ExpectedInode> expected;  // of the opened temp dir
};

// One inode to change, and every change for it (applied together, in this order: access
// ACL, default ACL, mode, owner; on Windows the DACL).
struct RepairTarget {
  std::size_t root = 0;              // index into RepairPlan::roots
  std::string namespace_name;        // entry of the temp dir ("hsperfdata_alice")
  std::optional<std::string> file;   // entry of the namespace, for a file
  std::string path;                  // for messages
  ExpectedInode namespace_expected;  // the namespace as observed
  ExpectedInode expected;  // this inode as observed (== namespace_expected for a namespace)
  bool strip_access_acl = false;
  bool remove_default_acl = false;
  std::optional<std::uint32_t> new_mode;
  // Windows: the DACL to set through the handle (model/compliant_descriptor.hpp: protected,
  // the user and Administrators full control, Everyone as HotSpot or less). Only the DACL is
  // written; the owner is not changed.
  std::optional<SecurityDescriptor> new_security;
  // Windows: the owner as judged. The executor acts only while the object still has it.
  std::optional<std::string> expected_owner_sid;
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

// "mode 0777 -> 0755", for a plan item's change.
std::string mode_change(std::uint32_t from, std::uint32_t to);
// The target's changes in one line ("access ACL reduced to the mode bits, mode 0777 -> 0755"),
// for the plan and the outcome lines.
std::string describe_target_changes(const RepairTarget& target);
// "protected DACL set: S-1-5-21-... full control, Administrators full control, Everyone
// 0x001200a9", for a Windows fix.
std::string describe_dacl(const SecurityDescriptor& descriptor);

// ---- what the platform did -----------------------------------------------------------------

enum class RepairOutcome {
  fixed,     // every change of the target was applied
  changed,   // the namespace or file is not what was judged: nothing was done to it
  vanished,  // it is gone
  failed,    // a system call failed (the changes before it may have been applied)
};

struct RepairOutcomeRecord {
  std::size_t target = 0;  // index into RepairPlan::targets
  RepairOutcome outcome = RepairOutcome::failed;
  std::string detail;
  std::optional<ObservationError> error;
};

}  // namespace hsperfguard
