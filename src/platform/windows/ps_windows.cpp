// JVM processes on Windows: not implemented yet (it needs a module walk of every process
// for jvm.dll). Says so instead of pretending there are none.
#include "platform/ps.hpp"

namespace hsperfguard::platform {

std::vector<JvmProcessFacts> observe_jvm_processes(std::vector<ObservationError>& errors) {
  errors.push_back(ObservationError{"processes", "observe_jvm_processes", 0,
                                    "listing JVM processes is not supported on Windows yet"});
  return {};
}

}  // namespace hsperfguard::platform
