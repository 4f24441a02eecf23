// syslog(3) under the tag of the command, facility daemon. openlog keeps the pointer it is
// given, so the tag lives as long as the process; syslog is one per process anyway.
#include <sys/socket.h>
#include <sys/un.h>
#include <syslog.h>

#include <cerrno>
#include <cstring>

#include "platform/posix/posix_util.hpp"
#include "platform/system_log.hpp"

namespace hsperfguard::platform {
namespace {

constexpr const char* kLogSocket = "/dev/log";  // where syslog(3) sends (glibc's _PATH_LOG)

// 0 when a datagram (or, as glibc falls back, a stream) connection to the log socket is taken.
int probe_log_socket() {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::strncpy(address.sun_path, kLogSocket, sizeof address.sun_path - 1);
  int err = 0;
  for (const int type : {SOCK_DGRAM, SOCK_STREAM}) {
    const UniqueFd fd(::socket(AF_UNIX, type | SOCK_CLOEXEC, 0));
    if (!fd.valid()) return errno;
    if (::connect(fd.get(), reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0) return 0;
    err = errno;
    if (err != EPROTOTYPE) break;
  }
  return err;
}

}  // namespace

std::optional<SystemLog> SystemLog::open(const std::string& tag, ObservationError* error) {
  if (const int err = probe_log_socket(); err != 0) {
    if (error != nullptr) {
      *error = make_error(kLogSocket, "connect", err);
      error->message += ": no system log receives messages here";
    }
    return std::nullopt;
  }
  static std::string ident;  // openlog keeps this pointer
  ident = tag;
  ::openlog(ident.c_str(), LOG_PID | LOG_NDELAY, LOG_DAEMON);
  return SystemLog();
}

void SystemLog::write(SystemLogPriority priority, std::string_view line) const {
  const int level = priority == SystemLogPriority::error     ? LOG_ERR
                    : priority == SystemLogPriority::warning ? LOG_WARNING
                                                             : LOG_INFO;
  ::syslog(level, "%.*s", static_cast<int>(line.size()), line.data());
}

}  // namespace hsperfguard::platform
