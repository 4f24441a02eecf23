// The command line: a thin layer over the core library.
#include <CLI/CLI.hpp>
#include <iostream>

#include "commands/audit_command.hpp"
#include "commands/cli_checks.hpp"
#include "commands/create_command.hpp"
#include "commands/exit_codes.hpp"
#include "commands/inspect.hpp"
#include "commands/ps_command.hpp"
#include "commands/reap_command.hpp"
#include "commands/repair_command.hpp"
#include "commands/rules_command.hpp"
#include "model/rule_catalog.hpp"
#include "platform/host.hpp"
#include "report/logging.hpp"
#include "version.hpp"

namespace hg = hsperfguard;

namespace {

// What unattended runs need, the same on audit and reap: --metrics, --log-format, --quiet.
struct OperationsFlags {
  std::string metrics;
  std::string log_format;
  bool quiet = false;

  void add_to(CLI::App* cmd) {
    cmd->add_option("--metrics", metrics,
                    "Write Prometheus metrics to FILE (node_exporter textfile collector), atomically")
        ->check(hg::non_empty());
    cmd->add_option("--log-format", log_format,
                    "Also log one line per action or error on stderr: text or json")
        ->check(CLI::IsMember({"text", "json"}));
    cmd->add_flag("--quiet", quiet,
                  "No report on stdout (use --output) and no summary: output only for actions and errors");
  }
  hg::LogOptions log_options() const {
    hg::LogOptions options;
    if (!log_format.empty()) options.format = log_format == "json" ? hg::LogFormat::json : hg::LogFormat::text;
    options.quiet = quiet;
    return options;
  }
  std::optional<std::string> metrics_file() const {
    return metrics.empty() ? std::nullopt : std::optional<std::string>(metrics);
  }
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"hsperfguard: audit and clean up the JVM's hsperfdata namespaces"};
  app.set_version_flag("--version", std::string("hsperfguard ") + hg::kVersion + " (" +
                                        hg::kBuildInfo + ")");
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "Print this help with every subcommand's options (the man page's source)");
  app.footer(
      "Exit codes: 0 clean/done, 1 findings at or above --fail-on (reap/repair: some actions\n"
      "failed), 2 usage error, 3 could not complete, 4 refused (unsafe existing state),\n"
      "5 invalid data (inspect: not a PerfData region).");

  // audit
  hg::AuditCommandOptions audit;
  std::string audit_format, tmpdir, root, policy_file, output;
  std::string fail_on = "medium";
  auto* audit_cmd = app.add_subcommand("audit", "Audit every hsperfdata namespace and report");
  auto* tmpdir_opt = audit_cmd->add_option("--tmpdir", tmpdir, "Audit this temp dir of this host instead of /tmp")
                         ->check(hg::non_empty());
  audit_cmd->add_option("--root", root, "Audit the system whose root is DIR (its /tmp, its etc/passwd)")
      ->check(hg::non_empty())
      ->excludes(tmpdir_opt);
  audit_cmd->add_option("--profile", audit.profile, "Rule profile: default, strict or hotspot")
      ->check(CLI::IsMember(hg::profile_names()));
  audit_cmd->add_option("--policy", policy_file, "JSON policy: disable rules, change severities")
      ->check(hg::non_empty());
  audit_cmd->add_option("--format", audit_format, "json or text (default: text on a terminal)")
      ->check(CLI::IsMember({"json", "text"}));
  audit_cmd->add_option("--output", output,
                        "Write the report to FILE (atomically; a device, FIFO or - is written through)")
      ->check(hg::non_empty());
  std::string audit_max_runtime;
  audit_cmd->add_option("--max-runtime", audit_max_runtime,
                        "Stop after this long (exit 3; the report says where it stopped)")
      ->check(hg::duration());
  audit_cmd->add_option("--fail-on", fail_on, "Exit 1 when a finding is at least this severe")
      ->check(CLI::IsMember({"info", "low", "medium", "high", "critical"}))
      ->capture_default_str();
  bool audit_no_containers = false;
  auto* audit_no_containers_flag = audit_cmd->add_flag(
      "--no-containers", audit_no_containers, "Skip the temp dirs of containers (looked at as root)");
  audit_cmd->add_option("--container", audit.container_pid,
                        "Audit only the temp dir of the container that process PID is in")
      ->check(CLI::PositiveNumber)
      ->excludes(audit_no_containers_flag)
      ->excludes(tmpdir_opt);
  OperationsFlags audit_ops;
  audit_ops.add_to(audit_cmd);

  // rules
  std::string rules_format = "text";
  auto* rules_cmd = app.add_subcommand("rules", "List the rule catalogue");
  rules_cmd->add_option("--format", rules_format, "json or text")->check(CLI::IsMember({"json", "text"}));

  // inspect
  hg::InspectOptions inspect;
  std::string inspect_format = "text";
  auto* inspect_cmd = app.add_subcommand("inspect", "Decode one backing file (a path or a pid)");
  inspect_cmd->add_option("target", inspect.target, "Backing file path, or pid resolved like jstat")
      ->check(hg::non_empty())
      ->required();
  inspect_cmd->add_option("--format", inspect_format, "snap (jstat -snap lines), json or text")
      ->check(CLI::IsMember({"snap", "json", "text"}));
  inspect_cmd->add_flag("--supported-only", inspect.supported_only,
                        "snap: only counters flagged supported (like jstat without showUnsupported)");
  inspect_cmd->add_option("--tmpdir", inspect.temp_dir, "Where to resolve a pid (default: /tmp)")
      ->check(hg::non_empty());

  // reap
  hg::ReapCommandOptions reap;
  std::string reap_tmpdir, reap_root, reap_format, reap_output, reap_journal;
  std::string reap_lock_file = hg::kDefaultReapLockFile;
  std::string min_age = "60s", max_runtime;
  bool reap_no_lock = false, reap_no_wait = false;
  auto* reap_cmd = app.add_subcommand(
      "reap", "Remove stale and foreign hsperfdata files safely (plan first, then act)");
  reap_cmd->footer(
      "The plan (every entry, its verdict, the evidence and the action) is made first and\n"
      "printed as is by --dry-run; execution then re-checks each entry before unlinking it.\n"
      "DURATION: 90 (seconds), 500ms, 90s, 15m, 2h, 1d; at most 3650d.\n"
      "Lock: one reap at a time per host. Without --wait, a run that finds the lock held\n"
      "exits 0 at once (the other run does the work); with --wait it waits, for at most\n"
      "--max-runtime when given, then exits 0 as well.\n"
      "Exit codes: 0 done or nothing to do (also: --max-runtime reached, lock busy), 1 some\n"
      "removals failed, 2 usage error, 3 could not run (temp dir unreadable, lock or journal\n"
      "unusable, report not written, interrupted by a signal).");
  auto* reap_tmpdir_opt =
      reap_cmd->add_option("--tmpdir", reap_tmpdir, "Reap this temp dir of this host instead of /tmp")
          ->check(hg::non_empty());
  reap_cmd->add_option("--root", reap_root, "Reap the system whose root is DIR (its /tmp, its etc/passwd)")
      ->check(hg::non_empty())
      ->excludes(reap_tmpdir_opt);
  reap_cmd->add_flag("--dry-run", reap.dry_run, "Print the plan; change nothing");
  reap_cmd->add_option("--min-age", min_age,
                       "Leave entries changed (ctime or mtime) less than this long ago")
      ->check(hg::duration())
      ->capture_default_str();
  reap_cmd->add_option("--max-runtime", max_runtime,
                       "Stop after this long: no new removal is started (checked between entries; "
                       "in discovery or observation: exit 3)")
      ->check(hg::duration());
  reap_cmd->add_option("--format", reap_format, "json or text (default: text on a terminal)")
      ->check(CLI::IsMember({"json", "text"}));
  reap_cmd->add_option("--output", reap_output,
                       "Write the report to FILE (atomically; a device, FIFO or - is written through)")
      ->check(hg::non_empty());
  reap_cmd->add_flag("--include-special", reap.include_special,
                     "Also remove stale FIFOs, sockets and devices in namespaces");
  reap_cmd->add_flag("--remove-empty-namespaces", reap.remove_empty_namespaces,
                     "Also remove empty namespace directories of users that no longer exist");
  auto* lock_file_opt =
      reap_cmd->add_option("--lock-file", reap_lock_file,
                           "Single-instance lock file (in a directory only its owner may write; no link "
                           "in its path is followed)")
          ->check(hg::non_empty())
          ->capture_default_str();
  reap_cmd->add_flag("--no-lock", reap_no_lock, "Take no single-instance lock")->excludes(lock_file_opt);
  auto* wait_flag = reap_cmd->add_flag("--wait", reap.wait_for_lock,
                                       "Wait for a running reap to finish (bounded by --max-runtime)");
  reap_cmd->add_flag("--no-wait", reap_no_wait, "Exit 0 at once if another reap runs (default)")
      ->excludes(wait_flag);
  reap_cmd->add_option("--journal", reap_journal,
                       "Append one JSON line per removal to FILE as the run goes (survives a kill; a "
                       "file of ours alone, in a directory only its owner may write)")
      ->check(hg::non_empty());
  bool reap_no_containers = false;
  auto* reap_no_containers_flag = reap_cmd->add_flag(
      "--no-containers", reap_no_containers, "Skip the temp dirs of containers (looked at as root)");
  reap_cmd->add_option("--container", reap.container_pid,
                       "Reap only the temp dir of the container that process PID is in")
      ->check(CLI::PositiveNumber)
      ->excludes(reap_no_containers_flag)
      ->excludes(reap_tmpdir_opt);
  OperationsFlags reap_ops;
  reap_ops.add_to(reap_cmd);

  // ps
  hg::PsCommandOptions ps;
  auto* ps_cmd = hg::add_ps_command(app, ps);

  // create, repair
  const hg::SubcommandHook create_hook = hg::add_create_command(app);
  const hg::SubcommandHook repair_hook = hg::add_repair_command(app);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? hg::kExitOk : hg::kExitUsage;
  }

  if (*audit_cmd) {
    if (!tmpdir.empty()) audit.tmpdir = tmpdir;
    if (!root.empty()) audit.root = root;
    if (!policy_file.empty()) audit.policy_file = policy_file;
    if (!output.empty()) audit.output = output;
    if (!audit_format.empty()) {
      audit.format = audit_format == "json" ? hg::ReportFormat::json : hg::ReportFormat::text;
    }
    audit.fail_on = *hg::parse_severity(fail_on);
    if (!audit_max_runtime.empty()) audit.max_runtime_ms = *hg::parse_duration_ms(audit_max_runtime);
    audit.containers = !audit_no_containers;
    hg::Logger logger(std::cerr, audit_ops.log_options(), "audit", &hg::platform::now_epoch_ms);
    audit.logger = &logger;
    audit.metrics = audit_ops.metrics_file();
    std::ostream no_report(nullptr);
    return hg::run_audit_command(audit, audit_ops.quiet ? no_report : std::cout, logger.errors());
  }
  if (*reap_cmd) {
    if (!reap_tmpdir.empty()) reap.tmpdir = reap_tmpdir;
    if (!reap_root.empty()) reap.root = reap_root;
    if (!reap_output.empty()) reap.output = reap_output;
    if (!reap_journal.empty()) reap.journal = reap_journal;
    if (!reap_format.empty()) {
      reap.format = reap_format == "json" ? hg::ReportFormat::json : hg::ReportFormat::text;
    }
    reap.min_age_ms = *hg::parse_duration_ms(min_age);
    if (!max_runtime.empty()) reap.max_runtime_ms = *hg::parse_duration_ms(max_runtime);
    reap.lock_file = reap_no_lock ? std::nullopt : std::optional<std::string>(reap_lock_file);
    reap.containers = !reap_no_containers;
    hg::Logger logger(std::cerr, reap_ops.log_options(), "reap", &hg::platform::now_epoch_ms);
    reap.logger = &logger;
    reap.metrics = reap_ops.metrics_file();
    std::ostream no_report(nullptr);
    return hg::run_reap_command(reap, reap_ops.quiet ? no_report : std::cout, logger.errors());
  }
  if (*create_hook.cmd) return create_hook.run();
  if (*repair_hook.cmd) return repair_hook.run();
  if (*ps_cmd) return hg::run_ps_command(ps, std::cout, std::cerr);
  if (*rules_cmd) return hg::run_rules_command(rules_format == "json", std::cout);
  if (*inspect_cmd) {
    inspect.format = inspect_format == "snap"   ? hg::InspectFormat::snap
                     : inspect_format == "json" ? hg::InspectFormat::json
                                                : hg::InspectFormat::text;
    return hg::run_inspect(inspect, std::cout, std::cerr);
  }
  return hg::kExitUsage;
}
