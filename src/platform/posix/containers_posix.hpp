// The container scan's pass over /proc, for a caller that looks at every process too (ps:
// one pass finds the containers and the JVMs).
#pragma once

#include <cstdint>
#include <functional>

#include "model/roots.hpp"

namespace hsperfguard::platform {

// Called for each process whose /proc directory the scan opened, with that directory (an
// O_PATH descriptor: *at calls through it reach that process, or fail once it is gone).
// Returns false when the visitor found the process has no address space (a kernel thread, a
// zombie) or has exited: no container is reached through it, and the scan moves on without
// reading its mount namespace and root (unless it is the focus pid).
using ProcessVisitor = std::function<bool(std::int32_t pid, int proc_dirfd)>;

// scan_container_temp_dirs (platform/containers.hpp), calling `visit` (if set) for each
// process before its mount namespace and root are looked at.
ContainerScan scan_container_temp_dirs(const ContainerScanOptions& options,
                                       const ProcessVisitor& visit);

}  // namespace hsperfguard::platform
