// Discovery as the commands run it: the options of this host (its temp dir, whether we are
// root) and the container scan, handed to the pure choice in decide/discover.hpp.
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
DiscoverOptions discover_options(Environment& env, std::optional<std::string> tmpdir,
                                 std::optional<std::string> root, bool containers,
                                 std::optional<std::int32_t> container_pid);

// Discovery and its container scan in one call (what the commands use). The scan stops once
// `limits` are reached (its errors then say so).
std::vector<RootSpec> discover_roots_scanning(const DiscoverOptions& options,
                                              std::vector<ObservationError>* errors,
                                              const RunLimits& limits = {});

// The run limits of temp root `index` of the `count` that discovery returned (in its order):
// the first (the host's, or the one --tmpdir, --root or --container names) has the run's own,
// so that it is observed, planned and acted on whatever the others would cost; each further
// one (a container's) an equal share of what is left of the run's deadline among the roots
// not yet begun, so that no root, however costly, leaves nothing to those after it. A root
// that uses less leaves the rest to the others.
RunLimits root_limits(const RunLimits& run, std::size_t index, std::size_t count);

}  // namespace hsperfguard
