#include "commands/repair_command.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>
#include <iterator>
#include <memory>
#include <ostream>
#include <string_view>

#include "commands/cli_checks.hpp"
#include "commands/environment.hpp"
#include "commands/exit_codes.hpp"
#include "decide/audit.hpp"
#include "decide/discover.hpp"
#include "decide/repair.hpp"
#include "model/json_text.hpp"
#include "model/text_escape.hpp"
#include "report/repair_report.hpp"

namespace hsperfguard {
namespace {

// Findings left at or above this make the run end with kExitRefused.
constexpr Severity kLeftSeverity = Severity::medium;

std::string plural(std::size_t n, std::string_view one, std::string_view many) {
  return std::to_string(n) + " " + std::string(n == 1 ? one : many);
}

// The exit status of a run and, when not 0, its reason in words (the report's last line).
void settle_exit(RepairRun& run) {
  const RepairCounts c = count_repair(run, kLeftSeverity);
  if (run.incomplete) {
    run.exit_code = kExitIncomplete;
    run.exit_reason = plural(run.errors.size(), "temp dir or entry", "temp dirs or entries") +
                      " could not be read (the errors say which): not everything was judged";
  } else if (c.failed > 0) {
    run.exit_code = kExitFindings;
    run.exit_reason = plural(c.failed, "fix was", "fixes were") + " not done (the lines above say why)";
  } else if (c.left_blocking > 0) {
    run.exit_code = kExitRefused;
    run.exit_reason = plural(c.left_blocking, "finding", "findings") + " at or above " +
                      std::string(to_string(kLeftSeverity)) +
                      (run.dry_run ? " would be" : c.left_blocking == 1 ? " is" : " are") +
                      " left to a person (repair does not fix " + (c.left_blocking == 1 ? "it" : "them") + ")";
  } else {
    run.exit_code = kExitOk;
    run.exit_reason.clear();
  }
}

}  // namespace

int run_repair_command(const RepairCommandOptions& options, std::ostream& out, std::ostream& err) {
  return run_repair_command(options, out, err, system_environment());
}

int run_repair_command(const RepairCommandOptions& options, std::ostream& out, std::ostream& err,
                       Environment& env) {
  RepairRun run;
  run.dry_run = options.dry_run;
  run.profile = options.profile;
  Policy policy;
  if (auto problem = load_policy(options.profile, options.policy_file, options.policy_file_is_default, policy,
                                 run.policy_file)) {
    err << "hsperfguard: repair: " << terminal_safe(*problem)
        << (options.policy_file_is_default ? " (the default policy file; --no-policy ignores it)" : "") << "\n";
    return kExitUsage;
  }
  DiscoverOptions discover;
  discover.tmpdir = options.tmpdir;
  discover.root = options.root;
  discover.host_temp_dir = env.default_temp_dir();
  const std::vector<TempRootFacts> roots = observe_whole(env, discover_roots(discover));
  // Judged like the audit: by the same profile and policy file.
  const auto judgements = judge(roots, policy);
  run.plan = plan_repair(roots, judgements);
  if (!options.dry_run) run.records = env.execute_repair(run.plan);
  // A temp dir opened but not read through (its listing cut by an I/O error, the user database
  // unreadable) leaves namespaces unjudged, as one never opened does, and so does a namespace
  // or an entry that could not be observed: the audit's rule (NotLookedAt), so that repair
  // never calls clean what the audit of the same tree calls incomplete.
  for (const auto& root : roots) {
    NotLookedAt missing;
    missing.add_root(root);
    for (const auto& ns : root.namespaces) missing.add_namespace(ns);
    if (missing.temp_dirs + missing.namespaces + missing.entries == 0) continue;
    run.incomplete = true;
    const auto add_unseen = [&run](const std::vector<ObservationError>& errors) {
      std::copy_if(errors.begin(), errors.end(), std::back_inserter(run.errors), leaves_unseen);
    };
    if (root.opened) {
      add_unseen(root.errors);
    } else {  // why it was not opened, whatever the error (a missing temp dir too)
      run.errors.insert(run.errors.end(), root.errors.begin(), root.errors.end());
    }
    for (const auto& ns : root.namespaces) {
      std::copy_if(ns.errors.begin(), ns.errors.end(), std::back_inserter(run.errors),
                   [&ns](const ObservationError& e) { return leaves_namespace_unseen(ns, e); });
      for (const auto& file : ns.files) add_unseen(file.errors);
    }
  }
  run.generated_at_ms = env.now_epoch_ms();
  settle_exit(run);

  // --quiet: the report goes only to --output; `out` gets what needs a person.
  std::ostream no_report(nullptr);
  std::ostream& report_out = options.quiet ? no_report : out;
  const ReportFormat format = options.format.value_or(ReportFormat::text);
  const bool color = !options.output && color_wanted(options.color, env.stdout_is_terminal());
  const HostInfo host = env.host();
  const auto render = [&](const platform::ContentSink& write) {
    write(format == ReportFormat::json ? dump_json(repair_report_json(run, host, kLeftSeverity), 2) + "\n"
                                       : repair_report_text(run, color));
  };
  if (options.output) {
    if (auto error = write_output_to(*options.output, render, platform::OutputOptions{}, &report_out)) {
      err << "hsperfguard: repair: cannot write " << terminal_safe(*options.output) << ": "
          << terminal_safe(error->op) << ": " << terminal_safe(error->message) << "\n";
      return kExitIncomplete;
    }
  } else {
    render([&](std::string_view piece) { report_out.write(piece.data(), static_cast<std::streamsize>(piece.size())); });
  }
  if (options.quiet) out << repair_attention_text(run, kLeftSeverity);
  out.flush();
  for (const auto& e : run.errors) {
    err << "hsperfguard: repair: " << terminal_safe(e.path) << ": " << terminal_safe(e.op) << ": "
        << terminal_safe(e.message) << "\n";
  }
  return run.exit_code;
}

SubcommandHook add_repair_command(CLI::App& app) {
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
  struct Parsed {
    RepairCommandOptions options;
    std::string format;
    std::string color = "auto";
    PolicyFileOptions policy;
  };
  auto p = std::make_shared<Parsed>();
  add_temp_dir_options(cmd, p->options.tmpdir, p->options.root, "Repair", "this temp dir");
  cmd->add_flag("-n,--dry-run", p->options.dry_run, "Print what would be fixed and what is left; change nothing");
  add_profile_option(cmd, p->options.profile)->capture_default_str();
  add_policy_options(cmd, p->policy);
  add_format_option(cmd, p->format);
  add_output_option(cmd, p->options.output);
  add_color_option(cmd, p->color);
  cmd->add_flag("-q,--quiet", p->options.quiet,
                "No report on stdout (use --output): only what needs a person, one line each (fixes not "
                "done, findings left at or above medium, the exit line), nothing when all is well");
  return SubcommandHook{cmd, [p]() {
                          RepairCommandOptions repair = p->options;
                          repair.policy_file = p->policy.chosen();
                          repair.policy_file_is_default = p->policy.chosen_is_default();
                          repair.format = parse_report_format(p->format);
                          repair.color = parse_color_choice(p->color);
                          return run_repair_command(repair, std::cout, std::cerr);
                        }};
}

}  // namespace hsperfguard
