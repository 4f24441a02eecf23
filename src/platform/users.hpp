// The user database of the system being audited, the neutral interface.
//
// A namespace is named after a user ("hsperfdata_alice"); whether "alice" exists, and with
// which uid, must be answered by the system that owns the temp dir: the host's own name
// service for the host, and the foreign root's own etc/passwd for `--root DIR` or a
// container (never the host's NSS, which would answer about the wrong system).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "model/facts.hpp"
#include "model/run_limits.hpp"

namespace hsperfguard::platform {

class UserDatabase {
 public:
  virtual ~UserDatabase() = default;

  // nullopt: no such user, or the lookup failed (then `failed()` is true).
  virtual std::optional<UserFacts> find_user(std::string_view name) = 0;
  virtual std::optional<std::string> find_name(std::uint32_t uid) = 0;

  // The database itself could not be read (missing or unreadable etc/passwd, an NSS
  // backend error during the last lookup): "not found" from it proves nothing.
  virtual bool failed() const = 0;
  // What went wrong, when failed().
  virtual std::optional<ObservationError> error() const = 0;
};

// The host's accounts. POSIX: NSS (getpwnam_r / getpwuid_r), so LDAP and SSSD users are
// found; Windows: the local and domain account lookups.
std::unique_ptr<UserDatabase> host_user_database();

// The accounts of the system whose root directory is `root` (--root DIR: reached, on POSIX,
// by the one path walk of the paths the user gives), read from that root's own etc/passwd,
// resolved beneath the root.
std::unique_ptr<UserDatabase> root_user_database(const std::string& root);

#ifndef _WIN32
// The same, for a root directory already opened (by observation, which must use the root it
// verified). `root_display` names it in errors. Does not take ownership of `root_fd`.
// With `limits`, indexing a large passwd stops when they are reached: the database is then a
// failed one (every look-up fails, none says "no such user"). A file another root of this
// process opened (the same dev, ino, size, mtime and ctime: containers bind-mounting one
// file) is not read again: its parsed database is shared, a few at a time, from at most
// 64 MiB of text together with the one being parsed.
std::unique_ptr<UserDatabase> root_user_database_at(int root_fd, const std::string& root_display,
                                                    const RunLimits* limits = nullptr);
#endif

}  // namespace hsperfguard::platform
