// The `audit` command end to end: options in, report out, exit code back.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>

#include "commands/output_target.hpp"
#include "commands/subcommand.hpp"
#include "model/finding.hpp"

namespace hsperfguard {

enum class ReportFormat { json, text };

struct AuditCommandOptions {
  std::optional<std::string> tmpdir;
  std::optional<std::string> root;
  std::string profile = "default";
  std::optional<std::string> policy_file;
  // policy_file is the conventional one (platform::default_policy_file), not named by --policy:
  // when it does not exist the profile alone is used; unreadable or invalid, it is an error.
  bool policy_file_is_default = false;
  std::optional<ReportFormat> format;  // default: text, wherever stdout goes
  std::optional<std::string> output;   // written to a temp name, then renamed
  bool verbose = false;  // text: every finding with its evidence, none grouped
  ColorChoice color = ColorChoice::automatic;  // text on stdout only (output_target.hpp)
  Severity fail_on = Severity::medium;
  // Container temp dirs too (as root, without --tmpdir / --root); --no-containers: false.
  bool containers = true;
  std::optional<std::int32_t> container_pid;  // --container PID: only that process's /tmp
  // --containers-only: every other mount namespace's temp dir, none of our own (as root; in a
  // pod with the node's pid namespace, the node's /tmp and its containers'). Finding none is
  // an incomplete run.
  bool containers_only = false;
  // --max-runtime: stop observing after this long (exit 3, the report says where it stopped).
  std::optional<std::int64_t> max_runtime_ms;
  std::optional<std::string> metrics;  // Prometheus textfile, written atomically (operations.hpp)
  class Logger* logger = nullptr;       // actions, errors, summary for unattended runs (logging.hpp)
  // --quiet: no report on `out`; instead one line per finding at or above fail_on (what cron
  // mails), and nothing at all on a clean run.
  bool quiet = false;
  // --every: the interval of run_audit_every (a node image has no shell, cron or sleep).
  std::optional<std::int64_t> every_ms;
  // The stop flag of a StopSignals the caller holds (run_audit_every); none: the run installs
  // its own.
  const std::atomic<bool>* stop = nullptr;
};

class Environment;

// Runs an audit of the world `env` shows (commands/environment.hpp; the real one by default).
int run_audit_command(const AuditCommandOptions& options, std::ostream& out, std::ostream& err);
int run_audit_command(const AuditCommandOptions& options, std::ostream& out, std::ostream& err,
                      Environment& env);

// Waits `duration` unless `stop` is set first: true when the time passed, false on a stop.
using WaitForStop = std::function<bool(std::chrono::milliseconds duration, const std::atomic<bool>& stop)>;
bool wait_unless_stopped(std::chrono::milliseconds duration, const std::atomic<bool>& stop);

// --every: audits again every options.every_ms (measured from each run's start; a run that took
// longer is followed at once), each run writing its report, metrics and log lines as one
// audit does, until SIGTERM, SIGINT or SIGHUP: stopped between two runs it returns 0, during a
// run that run's status (3, incomplete); a usage error (an unreadable policy) ends it at once.
int run_audit_every(const AuditCommandOptions& options, std::ostream& out, std::ostream& err,
                    Environment& env, const WaitForStop& wait);

// Adds `audit` and its options to the command line.
[[nodiscard]] SubcommandHook add_audit_command(CLI::App& app);

}  // namespace hsperfguard
