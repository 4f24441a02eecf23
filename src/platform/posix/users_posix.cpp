#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <map>
#include <string>
#include <vector>

#include "model/passwd.hpp"
#include "platform/posix/beneath_posix.hpp"
#include "platform/posix/posix_util.hpp"
#include "platform/posix/safe_path_posix.hpp"
#include "platform/users.hpp"

namespace hsperfguard::platform {
namespace {

// Larger files are refused rather than read: no real passwd is this big.
constexpr std::size_t kMaxPasswdBytes = std::size_t{64} * 1024 * 1024;

// ---- the host: NSS -----------------------------------------------------------------------

class HostUserDatabase final : public UserDatabase {
 public:
  std::optional<UserFacts> find_user(std::string_view name) override {
    failed_ = false;
    std::string key(name);
    if (auto it = by_name_.find(key); it != by_name_.end()) return it->second;
    std::optional<UserFacts> found;
    if (key.find('\0') == std::string::npos) {  // a NUL cannot name a user
      const auto call = [&](struct passwd* pw, char* buf, std::size_t size, struct passwd** out) {
        return ::getpwnam_r(key.c_str(), pw, buf, size, out);
      };
      if (!lookup(call, "getpwnam_r", key, found)) {
        return std::nullopt;  // not cached: a later lookup may succeed
      }
    }
    by_name_.emplace(std::move(key), found);
    return found;
  }

  std::optional<std::string> find_name(std::uint32_t uid) override {
    failed_ = false;
    if (auto it = by_uid_.find(uid); it != by_uid_.end()) return it->second;
    std::optional<UserFacts> found;
    const auto call = [&](struct passwd* pw, char* buf, std::size_t size, struct passwd** out) {
      return ::getpwuid_r(static_cast<uid_t>(uid), pw, buf, size, out);
    };
    if (!lookup(call, "getpwuid_r", std::to_string(uid), found)) return std::nullopt;
    std::optional<std::string> name;
    if (found) name = found->name;
    by_uid_.emplace(uid, name);
    return name;
  }

  bool failed() const override { return failed_; }
  std::optional<ObservationError> error() const override { return error_; }

 private:
  // Runs a getpw*_r call with a growing buffer; `found` is set when the user exists.
  // Returns false when NSS itself failed.
  template <typename Call>
  bool lookup(Call call, const char* op, const std::string& subject,
              std::optional<UserFacts>& found) {
    std::size_t size = 4096;
    for (;;) {
      buffer_.resize(size);
      struct passwd pw {};
      struct passwd* result = nullptr;
      const int rc = call(&pw, buffer_.data(), buffer_.size(), &result);
      if (rc == ERANGE && size < (1u << 20)) {
        size *= 2;
        continue;
      }
      if (rc == 0 && result != nullptr) {
        found = UserFacts{pw.pw_name, static_cast<std::uint32_t>(pw.pw_uid),
                          static_cast<std::uint32_t>(pw.pw_gid), std::nullopt};
        return true;
      }
      // getpwnam(3): 0, ENOENT, ESRCH, EBADF and EPERM all mean "not found".
      if (rc == 0 || rc == ENOENT || rc == ESRCH || rc == EBADF || rc == EPERM) return true;
      failed_ = true;
      error_ = make_error("user database (NSS): " + subject, op, rc);
      return false;
    }
  }

  std::vector<char> buffer_;
  std::map<std::string, std::optional<UserFacts>, std::less<>> by_name_;
  std::map<std::uint32_t, std::optional<std::string>> by_uid_;
  bool failed_ = false;
  std::optional<ObservationError> error_;
};

// ---- a foreign root: its own etc/passwd, parsed by us ----------------------------------------

class PasswdUserDatabase final : public UserDatabase {
 public:
  explicit PasswdUserDatabase(passwd::Database db) : db_(std::move(db)) {}
  explicit PasswdUserDatabase(ObservationError error) : error_(std::move(error)) {}

  std::optional<UserFacts> find_user(std::string_view name) override {
    if (error_) return std::nullopt;
    const passwd::Entry* e = db_.find_name(name);
    if (e == nullptr) return std::nullopt;
    return UserFacts{e->name, e->uid, e->gid, std::nullopt};
  }
  std::optional<std::string> find_name(std::uint32_t uid) override {
    if (error_) return std::nullopt;
    const passwd::Entry* e = db_.find_uid(uid);
    if (e == nullptr) return std::nullopt;
    return e->name;
  }
  bool failed() const override { return error_.has_value(); }
  std::optional<ObservationError> error() const override { return error_; }

 private:
  passwd::Database db_;
  std::optional<ObservationError> error_;
};

std::unique_ptr<UserDatabase> failed_database(ObservationError error) {
  return std::make_unique<PasswdUserDatabase>(std::move(error));
}

}  // namespace

std::unique_ptr<UserDatabase> host_user_database() { return std::make_unique<HostUserDatabase>(); }

std::unique_ptr<UserDatabase> root_user_database_at(int root_fd, const std::string& root_display,
                                                    const RunLimits* limits) {
  const std::string display =
      (root_display.ends_with('/') ? root_display : root_display + "/") + "etc/passwd";
  // Read-only, non-blocking (a FIFO planted as etc/passwd must not hang us), no atime
  // update where we may. Symlinks are resolved beneath the root or refused, never outside.
  constexpr int kFlags = O_RDONLY | O_NONBLOCK | O_NOCTTY;
  ObservationError err;
  UniqueFd fd = open_beneath(root_fd, "etc/passwd", kFlags | O_NOATIME, &err);
  if (!fd.valid() && err.code == EPERM) fd = open_beneath(root_fd, "etc/passwd", kFlags, &err);
  if (!fd.valid()) {
    err.path = display;
    return failed_database(std::move(err));
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return failed_database(make_error(display, "fstat", errno));
  if (!S_ISREG(st.st_mode)) {
    return failed_database(ObservationError{display, "fstat", EINVAL, "not a regular file"});
  }
  if (static_cast<std::uint64_t>(st.st_size) > kMaxPasswdBytes) {
    return failed_database(make_error(display, "fstat", EFBIG));
  }
  std::string text(static_cast<std::size_t>(st.st_size), '\0');
  std::size_t got = 0;
  while (got < text.size()) {
    const ssize_t n =
        ::pread(fd.get(), text.data() + got, text.size() - got, static_cast<off_t>(got));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return failed_database(make_error(display, "pread", errno));
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  text.resize(got);
  passwd::Database db = passwd::parse(text, limits);
  if (db.stopped != nullptr) {
    return failed_database(
        ObservationError{display, "read", EINTR,
                         std::string("not indexed: the run was stopped (") + db.stopped + ")"});
  }
  return std::make_unique<PasswdUserDatabase>(std::move(db));
}

std::unique_ptr<UserDatabase> root_user_database(const std::string& root) {
  ObservationError error;
  UniqueFd root_fd = open_system_root(root, false, error);
  if (!root_fd.valid()) return failed_database(std::move(error));
  return root_user_database_at(root_fd.get(), root);
}

}  // namespace hsperfguard::platform
