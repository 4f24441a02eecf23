// The `reap` command end to end: lock, discover, observe, gather liveness, plan, then either
// print the plan (--dry-run) or execute it, and report what was done.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>

#include "commands/audit_command.hpp"  // ReportFormat
#include "model/run_limits.hpp"

namespace hsperfguard {

// Where overlapping cron and timer runs meet. A directory only root can write, so that
// nobody can plant or hold the lock file (the systemd unit's RuntimeDirectory is the same).
inline constexpr const char* kDefaultReapLockFile = "/run/hsperfguard/reap.lock";

struct ReapCommandOptions {
  std::optional<std::string> tmpdir;
  std::optional<std::string> root;
  bool dry_run = false;
  std::int64_t min_age_ms = 60'000;
  std::optional<std::int64_t> max_runtime_ms;
  std::optional<ReportFormat> format;  // default: text, wherever stdout goes
  std::optional<std::string> output;   // written to a temp name, then renamed
  bool verbose = false;  // text: every plan item, none grouped
  bool include_special = false;
  bool remove_empty_namespaces = false;
  std::optional<std::string> lock_file = std::string(kDefaultReapLockFile);  // nullopt: --no-lock
  bool wait_for_lock = false;
  std::optional<std::string> journal;  // JSON lines, appended as the run goes
  // Container temp dirs too (as root, without --tmpdir / --root); --no-containers: false.
  bool containers = true;
  std::optional<std::int32_t> container_pid;  // --container PID: only that process's /tmp
  std::optional<std::string> metrics;  // Prometheus textfile, written atomically (operations.hpp)
  class Logger* logger = nullptr;       // actions, errors, summary for unattended runs (logging.hpp)
  // --quiet: no report on `out`; instead one line per failed removal and per entry left to a
  // person (what cron mails), and nothing at all when all is well.
  bool quiet = false;
};

struct ReapRun;     // reap_report.hpp
class Environment;  // environment.hpp

// What `reap` does before it acts: discover the temp dirs, observe them (regions only where
// they can decide), gather liveness evidence, and plan. Takes no lock and changes nothing;
// run.options, started_at_ms and timings are filled from `options`. Tests change the world
// between this and platform::execute_plan. Once `limits` are reached (a stop signal, the
// deadline) no further temp dir or namespace is observed: the run is then incomplete and its
// errors say where it stopped.
// `env` is the world observed (the real one by default).
void observe_and_plan(const ReapCommandOptions& options, ReapRun& run, const RunLimits& limits = {});
void observe_and_plan(const ReapCommandOptions& options, ReapRun& run, const RunLimits& limits,
                      Environment& env);

int run_reap_command(const ReapCommandOptions& options, std::ostream& out, std::ostream& err);
int run_reap_command(const ReapCommandOptions& options, std::ostream& out, std::ostream& err,
                     Environment& env);

// Adds `reap` and its options to the command line.
[[nodiscard]] SubcommandHook add_reap_command(CLI::App& app);

}  // namespace hsperfguard
