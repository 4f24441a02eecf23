// The JVM processes of this host, the neutral interface (for `ps` and for blind-JVM
// evidence in the audit). Observes, never judges.
#pragma once

#include <vector>

#include "model/facts.hpp"
#include "model/roots.hpp"
#include "model/run_limits.hpp"

namespace hsperfguard::platform {

// Every live process that maps libjvm, in pid order, across users and containers. Problems
// (an unreadable /proc, a process whose maps could not be read) go into `errors`; processes
// whose maps were read only in part (Linux: longer than the cap, or `limits` reached while
// reading), of which it is not known whether they are JVMs, go into `partial` (or `errors`
// without it). `limits` are checked between processes and while reading.
// Windows: every process with jvm.dll loaded (module walk), with its mapped views as the maps
// proof (platform/windows/ps_windows.cpp); processes that cannot be opened are counted in one
// error.
std::vector<JvmProcessFacts> observe_jvm_processes(std::vector<ObservationError>& errors,
                                                   const RunLimits& limits = {},
                                                   std::vector<ObservationError>* partial = nullptr);

// scan_container_temp_dirs (platform/containers.hpp) and observe_jvm_processes in one pass
// over the processes: on Linux each /proc/<pid> is opened once, its maps read through it.
// The container scan's own errors stay in `containers.errors`.
struct HostProcesses {
  ContainerScan containers;
  std::vector<JvmProcessFacts> jvms;
};
HostProcesses scan_host_processes(const ContainerScanOptions& options,
                                  std::vector<ObservationError>& errors);

}  // namespace hsperfguard::platform
