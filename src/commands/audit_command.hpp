// The `audit` command end to end: options in, report out, exit code back.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <iosfwd>

#include "commands/audit_options.hpp"
#include "commands/subcommand.hpp"

namespace hsperfguard {

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
