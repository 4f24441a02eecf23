#include "commands/subcommand.hpp"

#include <CLI/CLI.hpp>

#include "commands/cli_checks.hpp"

namespace hsperfguard {

void UnattendedFlags::add_to(CLI::App* cmd) {
  cmd->add_option("--metrics", metrics,
                  "Write Prometheus metrics to FILE (node_exporter textfile collector), atomically")
      ->check(file_path());
  cmd->add_option("--log-format", log_format,
                  "Also log one line per action or error on stderr: text or json")
      ->check(CLI::IsMember({"text", "json"}));
  cmd->add_flag("--quiet", quiet,
                "No report on stdout (use --output): only what needs a person, one line each "
                "(audit: findings at or above --fail-on; reap: failed removals, entries left to a "
                "person), nothing on a clean run; with --log-format, no summary line when all is well");
}

LogOptions UnattendedFlags::log_options() const {
  LogOptions options;
  if (!log_format.empty())
    options.format = log_format == "json" ? LogFormat::json : LogFormat::text;
  options.quiet = quiet;
  return options;
}

std::optional<std::string> UnattendedFlags::metrics_file() const {
  return metrics.empty() ? std::nullopt : std::optional<std::string>(metrics);
}

}  // namespace hsperfguard
