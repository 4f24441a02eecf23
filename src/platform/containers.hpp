// Containers, the neutral interface: which temp dirs the processes of this host see as their
// /tmp, one entry per distinct (mount namespace, root). Observes, never judges: discover.hpp
// decides which of these become temp roots to audit, reap or list.
//
// Linux: every /proc/<pid>/root/tmp, resolved beneath that root (a symlink planted in a
// container never leads to the host's files), identified by the (dev, ino) of the directory
// reached. Windows has no such namespaces: the scan finds nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/facts.hpp"
#include "model/roots.hpp"
#include "model/run_limits.hpp"

namespace hsperfguard::platform {

// A directory's identity.
ContainerScan scan_container_temp_dirs(const ContainerScanOptions& options);

}  // namespace hsperfguard::platform
