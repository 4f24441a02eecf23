// The host's system log, for unattended runs that log there themselves (--syslog): a cron job
// then keeps its own exit status, which a pipe into logger(1) would replace with logger's.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "model/facts.hpp"

namespace hsperfguard::platform {

enum class SystemLogPriority { info, warning, error };

class SystemLog {
 public:
  // The system log under `tag` ("hsperfguard-reap"), or nullopt with `error` filled when
  // nothing receives messages there (POSIX: no socket at /dev/log that takes a connection,
  // where syslog(3) would drop every line silently; Windows: not supported).
  static std::optional<SystemLog> open(const std::string& tag, ObservationError* error);

  // One message (one log line, no newline) at `priority` (info, warning, err).
  void write(SystemLogPriority priority, std::string_view line) const;

 private:
  SystemLog() = default;
};

}  // namespace hsperfguard::platform
