// No system log on Windows here: --syslog is refused (use --log-format, whose lines a
// scheduled task's wrapper can keep).
#include "platform/system_log.hpp"

namespace hsperfguard::platform {

std::optional<SystemLog> SystemLog::open(const std::string&, ObservationError* error) {
  if (error != nullptr) {
    *error = ObservationError{"syslog", "open", 0, "there is no system log to write to on Windows"};
  }
  return std::nullopt;
}

void SystemLog::write(SystemLogPriority, std::string_view) const {}

}  // namespace hsperfguard::platform
