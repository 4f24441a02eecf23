#include "discover.hpp"

namespace hsperfguard {

std::vector<platform::RootSpec> discover_roots(const DiscoverOptions& options) {
  platform::RootSpec spec;
  if (options.root) {
    // The temp dir of a foreign system is its /tmp, resolved beneath its root.
    spec.kind = RootKind::root;
    spec.root = *options.root;
    spec.temp_dir = "/tmp";
  } else if (options.tmpdir) {
    spec.kind = RootKind::tmpdir;
    spec.root = "/";
    spec.temp_dir = *options.tmpdir;
  } else {
    spec.kind = RootKind::host;
    spec.root = "/";
    spec.temp_dir = options.host_temp_dir;
  }
  return {spec};
}

}  // namespace hsperfguard
