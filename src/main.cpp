// The command line: a thin layer over the core library.
#include <CLI/CLI.hpp>
#include <iostream>

#include "exit_codes.hpp"
#include "inspect.hpp"
#include "version.hpp"

namespace hg = hsperfguard;

int main(int argc, char** argv) {
  CLI::App app{"hsperfguard: audit and clean up the JVM's hsperfdata namespaces"};
  app.set_version_flag("--version", std::string("hsperfguard ") + hg::kVersion);
  app.require_subcommand(1);
  app.footer(
      "Exit codes: 0 clean/done, 1 findings at or above --fail-on (reap: some removals failed),\n"
      "2 usage error, 3 could not complete, 4 refused (unsafe existing state), 5 invalid data.");

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

  if (*inspect_cmd) {
    inspect.format = inspect_format == "snap"   ? hg::InspectFormat::snap
                     : inspect_format == "json" ? hg::InspectFormat::json
                                                : hg::InspectFormat::text;
    return hg::run_inspect(inspect, std::cout, std::cerr);
  }
  return hg::kExitUsage;
}
