// The `audit` command end to end: options in, report out, exit code back.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>

#include "commands/subcommand.hpp"
#include "model/finding.hpp"

namespace hsperfguard {

enum class ReportFormat { json, text };

struct AuditCommandOptions {
  std::optional<std::string> tmpdir;
  std::optional<std::string> root;
  std::string profile = "default";
  std::optional<std::string> policy_file;
  std::optional<ReportFormat> format;  // default: text on a terminal, JSON otherwise
  std::optional<std::string> output;   // written to a temp name, then renamed
  Severity fail_on = Severity::medium;
  // Container temp dirs too (as root, without --tmpdir / --root); --no-containers: false.
  bool containers = true;
  std::optional<std::int32_t> container_pid;  // --container PID: only that process's /tmp
  // --max-runtime: stop observing after this long (exit 3, the report says where it stopped).
  std::optional<std::int64_t> max_runtime_ms;
  std::optional<std::string> metrics;  // Prometheus textfile, written atomically (operations.hpp)
  class Logger* logger = nullptr;       // actions, errors, summary for unattended runs (logging.hpp)
  // --quiet: no report on `out`; instead one line per finding at or above fail_on (what cron
  // mails), and nothing at all on a clean run.
  bool quiet = false;
};

class Environment;

// Runs an audit of the world `env` shows (commands/environment.hpp; the real one by default).
int run_audit_command(const AuditCommandOptions& options, std::ostream& out, std::ostream& err);
int run_audit_command(const AuditCommandOptions& options, std::ostream& out, std::ostream& err,
                      Environment& env);

// Adds `audit` and its options to the command line.
[[nodiscard]] SubcommandHook add_audit_command(CLI::App& app);

}  // namespace hsperfguard
