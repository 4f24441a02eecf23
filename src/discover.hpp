// Which temp dirs to look at: the host's, one given on the command line, a foreign
// system root, and (later) every container's. Pure: it only decides, observation looks.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "platform/observe.hpp"

namespace hsperfguard {

struct DiscoverOptions {
  std::optional<std::string> tmpdir;  // --tmpdir DIR: a temp dir of this host
  std::optional<std::string> root;    // --root DIR: DIR is the root of a system
  std::string host_temp_dir;          // the platform's default ("/tmp")
};

std::vector<platform::RootSpec> discover_roots(const DiscoverOptions& options);

}  // namespace hsperfguard
