// Exit codes: stable, and described in one place. The table below is the only source of their
// meaning: --help's footer and each subcommand's exit-code text are generated from it, the
// man page takes them from --help-all, and a test checks that the README's table says the same.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace hsperfguard {

enum ExitCode : int {
  kExitOk = 0,          // clean / done / nothing to do
  kExitFindings = 1,    // audit: findings at or above --fail-on; reap/repair: some actions failed
  kExitUsage = 2,       // bad command line (also a missing path, a bad policy file)
  kExitIncomplete = 3,  // could not complete: missing file, unreadable directory, I/O error
  kExitRefused = 4,     // create: unsafe existing state left alone; repair: unsafe findings left
  kExitBadData = 5,     // inspect: the file is not a valid PerfData region
};

// One row of the table: what the code means whatever the subcommand.
struct ExitCodeMeaning {
  ExitCode code;
  std::string_view meaning;
};

// What a code means for one subcommand (the codes it can end with, each in its words).
struct SubcommandExitCode {
  std::string_view subcommand;
  ExitCode code;
  std::string_view meaning;
};

// The table (README "Exit codes", `hsperfguard --help`, the man page's EXIT STATUS).
std::span<const ExitCodeMeaning> exit_code_table();
// Per subcommand, in the order of the table (commands/help_format.hpp prints them).
std::span<const SubcommandExitCode> subcommand_exit_codes();
// "exit 3: could not read the file or the process's mapping": the last line of a run of
// `subcommand` that ends with `code`, in the words of its row of the table above.
std::string exit_line(std::string_view subcommand, int code);

}  // namespace hsperfguard
