// Windows has no mount or pid namespaces that hide another temp dir: no containers.
#include "platform/containers.hpp"

namespace hsperfguard::platform {

ContainerScan scan_container_temp_dirs(const ContainerScanOptions& options) {
  ContainerScan scan;
  if (options.focus_pid) {
    scan.errors.push_back(
        ObservationError{"pid " + std::to_string(*options.focus_pid), "container", 0,
                         "containers are not supported on Windows"});
  }
  return scan;
}

}  // namespace hsperfguard::platform
