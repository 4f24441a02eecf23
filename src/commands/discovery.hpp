// Discovery as the commands run it: the options of this host (its temp dir, whether we are
// root), handed to the pure choice in decide/discover.hpp (the container scan is the
// Environment's: Environment::discover), and the order in which its temp roots are looked at.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "decide/discover.hpp"
#include "model/run_limits.hpp"

namespace hsperfguard {

class Environment;

// What --tmpdir, --root, --no-containers (`containers` false) and --container of audit and
// reap ask for: the temp dir of `env` by default; containers only when running as root.
// With `user` (--user): as root the containers are still looked into for that user's
// namespaces; not root, they are out of scope rather than not scanned.
DiscoverOptions discover_options(Environment& env, std::optional<std::string> tmpdir,
                                 std::optional<std::string> root, bool containers,
                                 std::optional<std::int32_t> container_pid,
                                 const std::optional<std::string>& user = std::nullopt);

// The temp dirs a run with the host's own view looks at after the host's, inserted after the
// first of `specs`: those JVMs of `jvms` name with -XX:AltTempDir (Linux), then the temp dirs
// of other accounts, services' and those the environments of `jvms` name (Windows). `user`:
// --user, whose account's only.
void add_further_temp_dirs(Environment& env, const DiscoverOptions& options, std::vector<RootSpec>& specs,
                           const std::vector<JvmProcessFacts>& jvms, const std::optional<std::string>& user);

// What is wrong with --container PID before anything runs: no process has that pid (then the
// option is a usage error, said once: "--container 99999: no such process"). nullopt: none
// given, or the process exists (whether it can be looked into is the run's to say).
std::optional<std::string> container_pid_problem(Environment& env, std::optional<std::int32_t> container_pid);

// The order in which the temp roots discovery returned are looked at, and the run limits of
// each. The first (the host's, or the one --tmpdir, --root or --container names) has the run's
// own, so that it is observed, planned and acted on whatever the others would cost; each
// further one (a container's) an equal share of what is left of the run's deadline among the
// roots still to look at, so that no root, however costly, leaves nothing to those after it
// (a root that needs less leaves the rest to the others). A container cut off at its share
// before anything of it was observed (its passwd took the share: a parse of it is gone on
// with by the next root that opens the same file) is looked at once more when every other
// has been, and counts among the roots still to look at until then.
class RootSchedule {
 public:
  RootSchedule(const RunLimits& run, std::size_t count) : run_(run), count_(count) {}

  struct Turn {
    std::size_t index = 0;  // into discovery's list
    RunLimits limits;
  };
  // The next root to look at; nullopt once every root was, or the run's limits are reached.
  std::optional<Turn> next();
  // The root of the last turn was stopped before anything of it was observed: true when it
  // gets another turn at the end (a container's first, while the run's limits are not
  // reached); false when its stop is final.
  bool again();

 private:
  RunLimits run_;
  std::size_t count_ = 0;
  std::size_t next_ = 0;               // first pass: the next index
  std::vector<std::size_t> deferred_;  // second pass: indices, in order
  std::size_t next_deferred_ = 0;
  std::optional<std::size_t> current_;
  bool second_pass_ = false;
};

}  // namespace hsperfguard
