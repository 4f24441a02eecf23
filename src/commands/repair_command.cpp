#include "commands/repair_command.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>
#include <memory>
#include <ostream>

#include "commands/cli_checks.hpp"
#include "commands/environment.hpp"
#include "commands/exit_codes.hpp"
#include "decide/audit.hpp"
#include "decide/discover.hpp"
#include "decide/repair.hpp"
#include "model/text_escape.hpp"

namespace hsperfguard {
namespace {

// Findings left at or above this make the run end with kExitRefused.
constexpr Severity kLeftSeverity = Severity::medium;

std::string_view outcome_word(RepairOutcome outcome) {
  switch (outcome) {
    case RepairOutcome::fixed:
      return "fixed";
    case RepairOutcome::changed:
      return "changed";
    case RepairOutcome::vanished:
      return "vanished";
    case RepairOutcome::failed:
      return "failed";
  }
  return "failed";
}

}  // namespace

int run_repair_command(const RepairCommandOptions& options, std::ostream& out, std::ostream& err) {
  return run_repair_command(options, out, err, system_environment());
}

int run_repair_command(const RepairCommandOptions& options, std::ostream& out, std::ostream& err,
                       Environment& env) {
  auto policy = builtin_profile(options.profile);
  if (!policy) {
    err << "hsperfguard: repair: unknown profile '" << terminal_safe(options.profile) << "'\n";
    return kExitUsage;
  }
  DiscoverOptions discover;
  discover.tmpdir = options.tmpdir;
  discover.root = options.root;
  discover.host_temp_dir = env.default_temp_dir();
  const std::vector<TempRootFacts> roots = observe_whole(env, discover_roots(discover));
  const bool incomplete = std::any_of(roots.begin(), roots.end(),
                                      [](const TempRootFacts& root) { return !root.opened; });
  const auto judgements = judge(roots, *policy);
  const RepairPlan plan = plan_repair(roots, judgements);

  std::vector<RepairOutcomeRecord> records;
  if (!options.dry_run) records = env.execute_repair(plan);

  std::size_t fixed = 0, failed = 0, left = 0, left_blocking = 0;
  for (const auto& r : records) (r.outcome == RepairOutcome::fixed ? fixed : failed) += 1;
  for (const auto& item : plan.items) {
    const std::string where = terminal_safe(item.path);
    if (item.disposition == RepairDisposition::fix) {
      if (options.dry_run) {
        out << "would fix  " << item.rule << "  " << where << ": " << terminal_safe(item.change) << "\n";
        continue;
      }
      const auto& record = records.at(*item.target);
      out << outcome_word(record.outcome) << "  " << item.rule << "  " << where << ": " << terminal_safe(item.change);
      if (record.outcome != RepairOutcome::fixed) {
        out << " (not done: " << terminal_safe(record.detail);
        if (record.error) out << ": " << terminal_safe(record.error->op) << ": " << terminal_safe(record.error->message);
        out << ")";
      }
      out << "\n";
      continue;
    }
    ++left;
    if (item.severity >= kLeftSeverity) ++left_blocking;
    out << "left  " << item.rule << "  " << where << " [" << to_string(item.severity) << "]: " << terminal_safe(item.reason)
        << "\n      manual remedy: " << terminal_safe(item.remediation) << "\n";
  }
  out << "repair: " << (options.dry_run ? plan.count(RepairDisposition::fix) : fixed)
      << (options.dry_run ? " would be fixed" : " fixed") << ", " << failed << " failed, " << left
      << " left to a person" << (left > 0 ? " (`hsperfguard audit` shows them)" : "") << "\n";

  if (incomplete) {
    for (const auto& root : roots) {
      for (const auto& e : root.errors) {
        err << "hsperfguard: repair: " << terminal_safe(e.path) << ": " << terminal_safe(e.op) << ": "
            << terminal_safe(e.message) << "\n";
      }
    }
    return kExitIncomplete;
  }
  if (failed > 0) return kExitFindings;
  return left_blocking > 0 ? kExitRefused : kExitOk;
}

SubcommandHook add_repair_command(CLI::App& app) {
  auto options = std::make_shared<RepairCommandOptions>();
  auto* cmd = app.add_subcommand("repair",
                                 "Fix the findings that are safe to fix in place (modes, ACLs, "
                                 "Windows DACLs; never an owner)");
  cmd->footer(
      "Judges like `audit`, then fixes, through the verified descriptors, only what the rule\n"
      "catalogue marks repairable and only inside namespaces that are safe to act in: group and\n"
      "other write removed, backing files 0600, ACLs stripped. It never changes an owner: an\n"
      "entry owned by another user (root's too: a root-owned file in a user's namespace proves\n"
      "nothing about who put it there) is listed with the manual remedy. A symlinked, squatted\n"
      "or unknown user's namespace is never entered: its findings are listed the same way.\n"
      "On Windows the dacl.* findings are fixed: the namespace or backing file gets the\n"
      "protected DACL `create` gives (the user and Administrators full control, Everyone as\n"
      "HotSpot allows), set through a handle to the object itself and read back; owners are\n"
      "never changed.");
  add_temp_dir_options(cmd, options->tmpdir, options->root, "Repair", "this temp dir");
  cmd->add_flag("-n,--dry-run", options->dry_run, "Print what would be fixed and what is left; change nothing");
  add_profile_option(cmd, options->profile)->capture_default_str();
  return SubcommandHook{cmd, [options]() { return run_repair_command(*options, std::cout, std::cerr); }};
}

}  // namespace hsperfguard
