// What `ps` observes and makes of it: every JVM of the host, by its backing file or by the
// libjvm it maps, as rows. `ps` prints them; `inspect PID` takes from them its diagnosis of a
// JVM that publishes no backing file.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "decide/ps.hpp"
#include "model/facts.hpp"

namespace hsperfguard {

class Environment;

struct PsCommandOptions {
  std::string format;  // "json" or "text"; empty: text, wherever stdout goes
  bool all = false;    // also backing files that no live JVM owns
  bool no_containers = false;
  std::optional<std::int32_t> container_pid;  // only the JVMs of this process's container
  std::optional<std::string> output;          // the list to this file instead of stdout
};

// What `ps` observed and made of it: its rows, the errors met, and whether it is incomplete
// (a temp dir not opened, processes not looked into).
struct PsObservation {
  std::vector<PsRow> rows;
  std::vector<ObservationError> errors;
  bool incomplete = false;
};

// The rows of the world `env` shows (commands/environment.hpp).
PsObservation observe_ps(const PsCommandOptions& options, Environment& env);

}  // namespace hsperfguard
