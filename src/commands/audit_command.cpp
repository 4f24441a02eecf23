#include "commands/audit_command.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <iostream>
#include <ostream>
#include <string_view>
#include <thread>

#include "commands/audit_run.hpp"
#include "commands/cli_checks.hpp"
#include "commands/discovery.hpp"
#include "commands/environment.hpp"
#include "commands/exit_codes.hpp"
#include "commands/output_target.hpp"
#include "commands/run_record.hpp"
#include "decide/audit.hpp"
#include "model/rule_catalog.hpp"
#include "model/run_limits.hpp"
#include "model/shell_word.hpp"
#include "model/text_escape.hpp"
#include "platform/files.hpp"
#include "platform/host.hpp"
#include "platform/signals.hpp"
#include "report/audit_report_json.hpp"
#include "report/audit_report_text.hpp"
#include "report/logging.hpp"

namespace hsperfguard {
namespace {

// The profile, then the policy file on top of it; `read` is the file that was applied. Returns
// an error message on failure.
std::optional<std::string> load_policy(const AuditCommandOptions& options, Policy& policy,
                                       std::optional<std::string>& read) {
  return hsperfguard::load_policy(options.profile, options.policy_file, options.policy_file_is_default, policy,
                                  read);
}

// The text report's options: --verbose, colour on a terminal (never in --output), and the
// scope the remedies name (the temp dir or container of the run, as a shell word).
TextOptions audit_text_options(const AuditCommandOptions& options, Environment& env) {
  TextOptions text_options;
  text_options.verbose = options.verbose;
  text_options.color = !options.output && color_wanted(options.color, env.stdout_is_terminal());
  if (options.container_pid) {
    text_options.scope = " --container " + std::to_string(*options.container_pid);
  } else if (options.tmpdir) {
    text_options.scope = " " + shell_option("--tmpdir", *options.tmpdir);
  } else if (options.root) {
    text_options.scope = " " + shell_option("--root", *options.root);
  }
  return text_options;
}

// After the report: why nothing was audited, or, for an incomplete run, every error of its
// temp dirs.
void print_run_errors(std::ostream& err, const AuditResult& result, const AuditRunEnd& end) {
  if (end.no_temp_dir) {
    err << "hsperfguard: audit: no temp dir of another mount namespace was found (in a pod: the node's "
           "pid namespace, hostPID, and CAP_SYS_PTRACE are needed)\n";
    for (const auto& e : end.discovery_problems) {
      err << "hsperfguard: audit: " << e.path << ": " << e.op << ": " << e.message << "\n";
    }
  }
  if (result.incomplete) {
    for (const auto& root : result.roots) {
      for (const auto& e : root.errors) {
        err << "hsperfguard: audit: " << e.path << ": " << e.op << ": " << e.message << "\n";
      }
    }
  }
}

}  // namespace

int run_audit_command(const AuditCommandOptions& options, std::ostream& out, std::ostream& err,
                      Environment& env) {
  AuditResult result;
  std::optional<std::string> policy_read;
  if (auto problem = load_policy(options, result.policy, policy_read)) {
    err << "hsperfguard: audit: " << terminal_safe(*problem)
        << (options.policy_file_is_default ? " (the default policy file; --no-policy ignores it)" : "") << "\n";
    return kExitUsage;
  }
  if (auto problem = container_pid_problem(env, options.container_pid)) {
    err << "hsperfguard: audit: " << *problem << "\n";
    return kExitUsage;
  }
  result.started_at_ms = env.now_epoch_ms();
  // --quiet: the report goes only to --output; `out` gets what needs a person.
  std::ostream no_report(nullptr);
  std::ostream& report_out = options.quiet ? no_report : out;
  ReportContext context;
  context.host = env.host();
  context.fail_on = options.fail_on;
  context.policy_file = policy_read;
  // Text unless --format json: the same wherever stdout goes (a pipe, a file, cron's mail).
  const ReportFormat format = options.format.value_or(ReportFormat::text);
  const TextOptions text_options = audit_text_options(options, env);
  DiscoverOptions discover = discover_options(env, options.tmpdir, options.root,
                                              options.containers, options.container_pid, options.user);
  discover.containers_only = options.containers_only;
  if (options.containers_only && !discover.containers) {
    err << "hsperfguard: audit: --containers-only looks into other mount namespaces: it needs root (run it "
           "as root, or leave --containers-only out to audit this mount namespace's temp dir)\n";
    return kExitUsage;
  }

  // SIGINT, SIGTERM (and SIGHUP on POSIX) and --max-runtime stop the run between two
  // namespaces (or parts): the report says so, a report file is not put in place, exit 3.
  // Under --every the loop's signals stand (one StopSignals at a time).
  std::optional<platform::StopSignals> own_signals;
  if (options.stop == nullptr) own_signals.emplace();
  const std::atomic<bool>& stop_requested =
      options.stop != nullptr ? *options.stop : own_signals->requested();
  RunLimits limits;
  limits.stop = &stop_requested;
  if (options.max_runtime_ms) {
    limits.deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(*options.max_runtime_ms);
  }

  AuditRunSettings settings{options, env, limits, discover, context, text_options, format};
  AuditTally tally;
  AuditRunEnd end;
  const auto run = [&](const platform::ContentSink& write) {
    end = run_audit_pipeline(settings, result, tally, out, write);
  };
  if (options.output) {
    // A stopped run does not replace the previous report with a partial one.
    platform::OutputOptions output;
    output.stop = &stop_requested;
    if (auto error = write_output_to(*options.output, run, output, &report_out)) {
      err << "hsperfguard: audit: cannot write " << terminal_safe(*options.output) << ": "
          << terminal_safe(error->op) << ": " << terminal_safe(error->message) << "\n";
      return kExitIncomplete;
    }
  } else {
    run([&](std::string_view piece) {
      report_out.write(piece.data(), static_cast<std::streamsize>(piece.size()));
    });
    report_out.flush();
  }
  out.flush();
  // Metrics and log lines (the summary's level follows the exit status).
  const int exit_code = record_audit_run(options, result, tally, audit_exit_code(options, result, tally), err);
  print_run_errors(err, result, end);
  return exit_code;
}

int run_audit_command(const AuditCommandOptions& options, std::ostream& out, std::ostream& err) {
  return run_audit_command(options, out, err, system_environment());
}

int run_audit_every(const AuditCommandOptions& options, std::ostream& out, std::ostream& err,
                    Environment& env, const WaitForStop& wait) {
  const platform::StopSignals signals;
  AuditCommandOptions each = options;
  each.stop = &signals.requested();
  const auto every = std::chrono::milliseconds(options.every_ms.value_or(0));
  for (;;) {
    const auto began = std::chrono::steady_clock::now();
    const int exit_code = run_audit_command(each, out, err, env);
    // A usage error stays one (the policy file will not mend itself); a stop asked during the
    // run ends the loop with that run's status.
    if (exit_code == kExitUsage || signals.requested()) return exit_code;
    const auto next = began + every;
    const auto now = std::chrono::steady_clock::now();
    if (!wait(next > now ? std::chrono::duration_cast<std::chrono::milliseconds>(next - now)
                         : std::chrono::milliseconds(0),
              signals.requested())) {
      return kExitOk;  // stopped between two runs: nothing was cut short
    }
  }
}

bool wait_unless_stopped(std::chrono::milliseconds duration, const std::atomic<bool>& stop) {
  // In steps, so that a stop signal ends the wait within a quarter of a second.
  constexpr auto kStep = std::chrono::milliseconds(250);
  const auto until = std::chrono::steady_clock::now() + duration;
  for (;;) {
    if (stop.load()) return false;
    const auto now = std::chrono::steady_clock::now();
    if (now >= until) return true;
    std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(until - now, kStep));
  }
}

SubcommandHook add_audit_command(CLI::App& app) {
  struct Parsed {
    AuditCommandOptions options;
    std::string format, max_runtime, every;
    PolicyFileOptions policy;
    std::string fail_on = "medium";
    std::string color = "auto";
    bool no_containers = false;
    UnattendedFlags unattended;
  };
  auto p = std::make_shared<Parsed>();
  auto* cmd = app.add_subcommand("audit", "Audit every hsperfdata namespace and report");
  const TempDirOptions temp_dir =
      add_temp_dir_options(cmd, p->options.tmpdir, p->options.root, "Audit", "this temp dir of this host");
  add_profile_option(cmd, p->options.profile);
  add_policy_options(cmd, p->policy);
  add_format_option(cmd, p->format);
  add_output_option(cmd, p->options.output);
  cmd->add_flag("-v,--verbose", p->options.verbose, "Text: list every finding with its evidence (none grouped)");
  add_color_option(cmd, p->color);
  cmd->add_option("--max-runtime", p->max_runtime,
                  "Stop after this long (exit 3; the report says where it stopped)")
      ->check(duration());
  cmd->add_option("--every", p->every,
                  "Run again this long after each run began, until SIGTERM or SIGINT (at least 1s; "
                  "a run that takes longer is followed at once)")
      ->check(duration())
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            const auto ms = parse_duration_ms(text);
            return ms && *ms >= 1000 ? "" : "is less than 1s (the least --every takes)";
          },
          "", ""));
  cmd->add_option("--fail-on", p->fail_on, "Exit 1 when a finding is at least this severe")
      ->check(CLI::IsMember({"info", "low", "medium", "high", "critical"}))
      ->capture_default_str();
  const ContainerOptions containers = add_container_options(
      cmd, p->no_containers, p->options.container_pid,
      "Audit only the temp dir of the container that process PID is in");
  containers.container->excludes(temp_dir.tmpdir);
  add_user_scope_option(cmd, p->options.user, "Audit");
  cmd->add_flag("--containers-only", p->options.containers_only,
                "Audit every other mount namespace's temp dir, not our own (as root; in a pod "
                "with the node's pid namespace: the node's /tmp and every container's)")
      ->excludes(temp_dir.tmpdir)
      ->excludes(temp_dir.root)
      ->excludes(containers.no_containers)
      ->excludes(containers.container);
  p->unattended.add_to(cmd);
  return SubcommandHook{
      cmd, [p]() {
        AuditCommandOptions audit = p->options;
        audit.policy_file = p->policy.chosen();
        audit.policy_file_is_default = p->policy.chosen_is_default();
        audit.format = parse_report_format(p->format);
        audit.fail_on = *parse_severity(p->fail_on);
        audit.color = parse_color_choice(p->color);
        if (!p->max_runtime.empty()) audit.max_runtime_ms = *parse_duration_ms(p->max_runtime);
        audit.containers = !p->no_containers;
        const auto logger = p->unattended.make_logger("audit", std::cerr);
        if (!logger) return static_cast<int>(kExitIncomplete);
        audit.logger = logger.get();
        audit.metrics = p->unattended.metrics_file();
        audit.quiet = p->unattended.quiet;
        if (!p->every.empty()) {
          audit.every_ms = *parse_duration_ms(p->every);
          return run_audit_every(audit, std::cout, logger->errors(), system_environment(),
                                 wait_unless_stopped);
        }
        return run_audit_command(audit, std::cout, logger->errors());
      }};
}

}  // namespace hsperfguard
