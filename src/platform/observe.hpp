// Observation: read-only, fd-relative, never follows a link; returns facts, judges nothing.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "facts.hpp"

namespace hsperfguard::platform {

// One temp dir to observe, as chosen by discover.
struct RootSpec {
  RootKind kind = RootKind::host;
  std::string root = "/";       // system root whose users and temp dir these are
  std::string temp_dir = "/tmp";  // absolute path of the temp dir (inside root for foreign roots)
  std::optional<ContainerFacts> container;
};

struct ObserveOptions {
  // Regions are read up to their `used` bytes (never more than this) to parse prologue
  // and entries; 0 reads no file contents at all.
  std::size_t max_region_bytes = 2 * 1024 * 1024;
};

TempRootFacts observe_temp_root(const RootSpec& spec, const ObserveOptions& options);

}  // namespace hsperfguard::platform
