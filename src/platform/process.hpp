// Processes, the neutral interface: what the reaper needs to know about a pid before it may
// call a backing file stale. Implemented per platform; observes, never judges.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "model/facts.hpp"

namespace hsperfguard::platform {

// Whether `pid` names a running process on this host, and what can be learnt about it
// without disturbing it (start time; the rest where the platform has it). A pid that
// exists but may not be inspected is `no_permission`, never `gone`.
ProcessFacts observe_process(std::int32_t pid);

// The process's command name (Linux: /proc/<pid>/comm), for a person ("bash"); nullopt when
// it cannot be read or the platform has none at hand (Windows).
std::optional<std::string> process_name(std::int32_t pid);

}  // namespace hsperfguard::platform
