// The `reap` command end to end: lock, discover, observe, gather liveness, plan, then either
// print the plan (--dry-run) or execute it, and report what was done.
#pragma once

#include <iosfwd>

#include "commands/reap_options.hpp"
#include "commands/subcommand.hpp"
#include "model/run_limits.hpp"

namespace hsperfguard {

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
