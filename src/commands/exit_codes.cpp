#include "commands/exit_codes.hpp"

#include <array>

namespace hsperfguard {
namespace {

// The meaning of each code whatever the subcommand. The README's "Exit codes" table says the
// same, word for word (with `code` marks): tests/binary/cli_errors_posix_test.cpp compares them.
constexpr std::array<ExitCodeMeaning, 6> kTable{{
    {kExitOk, "clean (audit); done, or nothing to do (the other subcommands)"},
    {kExitFindings,
     "audit: findings at or above --fail-on (default medium); reap and repair: some removals or fixes failed"},
    {kExitUsage,
     "usage error: an unknown subcommand or option, a malformed value, a path that does not exist or is not "
     "a directory, a bad policy file"},
    {kExitIncomplete,
     "could not complete: a temp dir or file could not be read, the report, metrics or standard output could "
     "not be written, a lock or journal unusable, a stop signal or --max-runtime before everything was "
     "observed, a container that could not be looked into"},
    {kExitRefused,
     "unsafe state left: create refused an existing namespace, backing file or temp dir; repair (--dry-run "
     "too) leaves findings at or above medium that it does not fix"},
    {kExitBadData, "invalid data: inspect was given something that is not a PerfData region"},
}};

constexpr std::string_view kUsage = "usage error (the message says which option or value)";

// Each subcommand's codes in its own words: what its --help ends with.
constexpr std::array<SubcommandExitCode, 28> kSubcommands{{
    {"audit", kExitOk, "clean: no finding at or above --fail-on"},
    {"audit", kExitFindings, "findings at or above --fail-on (default medium)"},
    {"audit", kExitUsage,
     "usage error (also: --tmpdir, --root or --policy naming a path that does not exist, a bad policy file, "
     "--container naming no process)"},
    {"audit", kExitIncomplete,
     "could not complete: a temp dir, namespace or entry that could not be read, a user not looked up, a "
     "container that could not be looked into or, not root, containers not scanned (its last line says what "
     "and why; --user NAME audits only NAME's namespaces), the report, metrics or standard output not "
     "written, a stop signal or --max-runtime (the report says where it stopped)"},
    {"rules", kExitOk, "listed"},
    {"rules", kExitUsage, kUsage},
    {"rules show", kExitOk, "shown"},
    {"rules show", kExitUsage, "usage error (also: an unknown rule id; the message names the nearest one)"},
    {"inspect", kExitOk, "decoded"},
    {"inspect", kExitUsage, "usage error (also: a path that does not exist)"},
    {"inspect", kExitIncomplete, "could not read the file or the process's mapping"},
    {"inspect", kExitBadData, "not a valid PerfData region"},
    {"reap", kExitOk,
     "done or nothing to do (also: --max-runtime reached while acting, another reap holds the lock)"},
    {"reap", kExitFindings, "some removals failed (entries left to a person are not failures)"},
    {"reap", kExitUsage,
     "usage error (also: --tmpdir or --root naming a path that does not exist, --container naming no "
     "process)"},
    {"reap", kExitIncomplete,
     "could not run: a temp dir unreadable or not observed to its end (the report's roots say which), a "
     "namespace or entry unreadable or, not root, containers not scanned (nothing of them is removed; its "
     "last line says what), the lock or journal unusable, the report not written, interrupted by a signal"},
    {"ps", kExitOk, "listed"},
    {"ps", kExitUsage, "usage error (also: --container naming no process)"},
    {"ps", kExitIncomplete, "processes or temp dirs that could not be looked into (the errors say which)"},
    {"create", kExitOk, "made or verified"},
    {"create", kExitUsage, "usage error (also: no such user, another user's namespace when not root)"},
    {"create", kExitIncomplete, "could not complete: an I/O error, no space left (nothing is left behind)"},
    {"create", kExitRefused,
     "refused: an existing namespace, backing file or the temp dir is unsafe or in the way (left alone)"},
    {"repair", kExitOk, "nothing left at or above medium"},
    {"repair", kExitFindings, "some fixes failed"},
    {"repair", kExitUsage, kUsage},
    {"repair", kExitIncomplete,
     "could not complete: a temp dir could not be opened or read whole, or a namespace or entry could not be "
     "looked at (the errors say which)"},
    {"repair", kExitRefused,
     "findings at or above medium are left that repair does not fix (--dry-run: would be left)"},
}};

}  // namespace

std::span<const ExitCodeMeaning> exit_code_table() { return kTable; }

std::span<const SubcommandExitCode> subcommand_exit_codes() { return kSubcommands; }

std::string exit_line(std::string_view subcommand, int code) {
  for (const auto& row : kSubcommands) {
    if (row.subcommand == subcommand && row.code == code) return "exit " + std::to_string(code) + ": " + std::string(row.meaning);
  }
  for (const auto& row : kTable) {
    if (row.code == code) return "exit " + std::to_string(code) + ": " + std::string(row.meaning);
  }
  return "exit " + std::to_string(code);
}

}  // namespace hsperfguard
