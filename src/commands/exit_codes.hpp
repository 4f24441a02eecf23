// Exit codes: stable, documented in the README and in --help.
#pragma once

namespace hsperfguard {

enum ExitCode : int {
  kExitOk = 0,          // clean / done / nothing to do
  kExitFindings = 1,    // audit: findings at or above --fail-on; reap/repair: some actions failed
  kExitUsage = 2,       // bad command line
  kExitIncomplete = 3,  // could not complete: missing file, unreadable directory, I/O error
  kExitRefused = 4,     // create: an existing namespace is unsafe and was left alone
  kExitBadData = 5,     // inspect: the file is not a valid PerfData region
};

}  // namespace hsperfguard
