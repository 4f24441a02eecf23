// The command line: a thin layer over the core library.
#include <CLI/CLI.hpp>
#include <iostream>

#include "audit_command.hpp"
#include "exit_codes.hpp"
#include "inspect.hpp"
#include "rule_catalog.hpp"
#include "rules_command.hpp"
#include "version.hpp"

namespace hg = hsperfguard;

int main(int argc, char** argv) {
  CLI::App app{"hsperfguard: audit and clean up the JVM's hsperfdata namespaces"};
  app.set_version_flag("--version", std::string("hsperfguard ") + hg::kVersion + " (" +
                                        hg::kBuildInfo + ")");
  app.require_subcommand(1);
  app.footer(
      "Exit codes: 0 clean/done, 1 findings at or above --fail-on (reap/repair: some actions\n"
      "failed), 2 usage error, 3 could not complete, 4 refused (unsafe existing state),\n"
      "5 invalid data (inspect: not a PerfData region).");

  // audit
  hg::AuditCommandOptions audit;
  std::string audit_format, tmpdir, root, policy_file, output;
  std::string fail_on = "medium";
  auto* audit_cmd = app.add_subcommand("audit", "Audit every hsperfdata namespace and report");
  auto* tmpdir_opt = audit_cmd->add_option("--tmpdir", tmpdir, "Audit this temp dir of this host instead of /tmp");
  audit_cmd->add_option("--root", root, "Audit the system whose root is DIR (its /tmp, its etc/passwd)")
      ->excludes(tmpdir_opt);
  audit_cmd->add_option("--profile", audit.profile, "Rule profile: default, strict or hotspot")
      ->check(CLI::IsMember(hg::profile_names()));
  audit_cmd->add_option("--policy", policy_file, "JSON policy: disable rules, change severities");
  audit_cmd->add_option("--format", audit_format, "json or text (default: text on a terminal)")
      ->check(CLI::IsMember({"json", "text"}));
  audit_cmd->add_option("--output", output, "Write the report to FILE (atomically)");
  audit_cmd->add_option("--fail-on", fail_on, "Exit 1 when a finding is at least this severe")
      ->check(CLI::IsMember({"info", "low", "medium", "high", "critical"}))
      ->capture_default_str();

  // rules
  std::string rules_format = "text";
  auto* rules_cmd = app.add_subcommand("rules", "List the rule catalogue");
  rules_cmd->add_option("--format", rules_format, "json or text")->check(CLI::IsMember({"json", "text"}));

  // inspect
  hg::InspectOptions inspect;
  std::string inspect_format = "text";
  auto* inspect_cmd = app.add_subcommand("inspect", "Decode one backing file (a path or a pid)");
  inspect_cmd->add_option("target", inspect.target, "Backing file path, or pid resolved like jstat")
      ->required();
  inspect_cmd->add_option("--format", inspect_format, "snap (jstat -snap lines), json or text")
      ->check(CLI::IsMember({"snap", "json", "text"}));
  inspect_cmd->add_flag("--supported-only", inspect.supported_only,
                        "snap: only counters flagged supported (like jstat without showUnsupported)");
  inspect_cmd->add_option("--tmpdir", inspect.temp_dir, "Where to resolve a pid (default: /tmp)");

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
    return hg::run_audit_command(audit, std::cout, std::cerr);
  }
  if (*rules_cmd) return hg::run_rules_command(rules_format == "json", std::cout);
  if (*inspect_cmd) {
    inspect.format = inspect_format == "snap"   ? hg::InspectFormat::snap
                     : inspect_format == "json" ? hg::InspectFormat::json
                                                : hg::InspectFormat::text;
    return hg::run_inspect(inspect, std::cout, std::cerr);
  }
  return hg::kExitUsage;
}
