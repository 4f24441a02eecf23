// What a person is told to do about a finding, fitted to where its subject is. The catalogue's
// remedies speak of this host's temp dir; a finding in a container's temp dir, under --root or
// --tmpdir, or on an entry that repair would not touch (a mount point, a file with other names
// or of another owner, anything in a namespace or temp dir that is itself unsafe) gets a
// remedy that never tells a person to change what the tool would refuse to change itself.
// Pure: the finding, its temp dir's facts and repair's decision (decide/repair.hpp) in.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "decide/repair.hpp"
#include "model/facts.hpp"
#include "model/finding.hpp"

namespace hsperfguard {

// Sets f.repairable (repair fixes it: `refusal` is repair_refusal's answer for it) and fits
// f.remediation to `root`:
// - a container's temp dir: a remedy that changes the entry (chmod, chown, setfacl, chattr,
//   unlink, rm, hsperfguard create or repair) names the path inside the container and says
//   to act there, never through /proc/<pid>/root, where a name can be a link or a mount of
//   this host's files; hsperfguard reap and audit commands get --container PID;
// - an entry repair refuses for where it is: such a remedy is replaced by the reason and a
//   pointer to the findings that say what to do instead;
// - --tmpdir and --root: hsperfguard commands get the same option, so that they act on the
//   temp dir the finding is about;
// - a namespace owned by a user other than root (`ns`, null for a finding of the temp dir or
//   an attach file): its owner can put anything at its path, or at a path inside it, between
//   the report and the command, so chmod, setfacl, unlink and rm on such a path are run with
//   her rights alone (as_user_prefix): a swap then gains her nothing.
void fit_remedy(Finding& f, const TempRootFacts& root, const NamespaceFacts* ns,
                const std::optional<RepairRefusal>& refusal);

// `remedy` with every chmod, setfacl, unlink and rm command given the prefix that runs it as
// `uid`:`gid` (as_user_prefix). The reaper's remedies for what it leaves to a person get it
// too, for the owner of the directory the entry is in.
std::string run_as_owner(std::string remedy, std::uint32_t uid, std::uint32_t gid);

}  // namespace hsperfguard
