#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <list>
#include <map>
#include <mutex>
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
      if (nss_not_found(rc)) return true;
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
  explicit PasswdUserDatabase(std::shared_ptr<const passwd::Database> db) : db_(std::move(db)) {}
  explicit PasswdUserDatabase(ObservationError error) : error_(std::move(error)) {}

  std::optional<UserFacts> find_user(std::string_view name) override {
    if (error_) return std::nullopt;
    const passwd::Entry* e = db_->find_name(name);
    if (e == nullptr) return std::nullopt;
    return UserFacts{std::string(e->name), e->uid, e->gid, std::nullopt};
  }
  std::optional<std::string> find_name(std::uint32_t uid) override {
    if (error_) return std::nullopt;
    const passwd::Entry* e = db_->find_uid(uid);
    if (e == nullptr) return std::nullopt;
    return std::string(e->name);
  }
  bool failed() const override { return error_.has_value(); }
  std::optional<ObservationError> error() const override { return error_; }

 private:
  std::shared_ptr<const passwd::Database> db_;
  std::optional<ObservationError> error_;
};

ObservationError too_many_entries(const std::string& display) {
  return ObservationError{display, "read", EFBIG,
                          "more than " + std::to_string(passwd::kMaxEntries) +
                              " accounts: not indexed (no system has that many)"};
}

std::unique_ptr<UserDatabase> failed_database(ObservationError error) {
  return std::make_unique<PasswdUserDatabase>(std::move(error));
}

// A passwd file as it was read is its FileVersion (safe_path_posix.hpp's version_of).
using PasswdFileKey = FileVersion;

// One passwd file's parse: its text while it is parsed (a parse stopped by one root's share of
// the run's time is gone on with by the next root that opens the file), then its database.
struct PasswdParse {
  std::size_t bytes = 0;  // of the file: what it counts against the bound below
  std::string text;
  passwd::PartialParse state;
  std::shared_ptr<const passwd::Database> db;  // once done
};

// Parsed passwd files of foreign roots, shared between the roots that open the same one. Any
// user can make user and mount namespaces that a root run scans as containers, with a passwd
// of up to 64 MiB bind-mounted over their etc/passwd; ten of them sharing one file were ten
// parses of it (about a second each). Bounded: the parses kept here (done or not) and the one
// being read come from at most kMaxPasswdBytes of text together (the least recently used go
// first), and at most kMaxKept are kept.
class ParsedPasswdFiles {
 public:
  // The parse of the file with this key: a database that stays shared, or a parse that is not
  // done, taken out to be gone on with (and kept again); nullptr: none.
  std::shared_ptr<PasswdParse> take(const PasswdFileKey& key) {
    const std::lock_guard lock(mutex_);
    for (auto it = kept_.begin(); it != kept_.end(); ++it) {
      if (it->key != key) continue;
      std::shared_ptr<PasswdParse> parse = it->parse;
      if (parse->db) {
        kept_.splice(kept_.begin(), kept_, it);  // most recently used first
      } else {
        bytes_ -= parse->bytes;
        kept_.erase(it);
      }
      return parse;
    }
    return nullptr;
  }
  // Before `bytes` of text are read: what is kept, and those bytes, fit the bound.
  void make_room(std::size_t bytes) {
    const std::lock_guard lock(mutex_);
    while (!kept_.empty() && (bytes_ + bytes > kMaxPasswdBytes || kept_.size() >= kMaxKept)) {
      bytes_ -= kept_.back().parse->bytes;
      kept_.pop_back();
    }
  }
  void keep(const PasswdFileKey& key, std::shared_ptr<PasswdParse> parse) {
    const std::lock_guard lock(mutex_);
    for (const Kept& k : kept_) {
      if (k.key == key) return;  // kept meanwhile (another thread)
    }
    if (bytes_ + parse->bytes > kMaxPasswdBytes || kept_.size() >= kMaxKept) return;
    bytes_ += parse->bytes;
    kept_.push_front(Kept{key, std::move(parse)});
  }

 private:
  static constexpr std::size_t kMaxKept = 16;
  struct Kept {
    PasswdFileKey key;
    std::shared_ptr<PasswdParse> parse;
  };
  std::mutex mutex_;
  std::list<Kept> kept_;
  std::size_t bytes_ = 0;
};

ParsedPasswdFiles& parsed_passwd_files() {
  static ParsedPasswdFiles files;
  return files;
}

}  // namespace

std::unique_ptr<UserDatabase> host_user_database() { return std::make_unique<HostUserDatabase>(); }

std::unique_ptr<UserDatabase> root_user_database_at(int root_fd, const std::string& root_display,
                                                    const RunLimits* limits) {
  const std::string display =
      (root_display.ends_with('/') ? root_display : root_display + "/") + "etc/passwd";
  // Held first (O_PATH opens nothing: a device bind-mounted over it is never opened, its
  // driver never asked) and judged by its type; only a regular file is then opened, that very
  // inode, read-only, non-blocking, with no atime update where we may. Symlinks are resolved
  // beneath the root or refused, never outside.
  ObservationError err;
  std::optional<WalkedPath> held = hold_beneath(root_fd, "etc/passwd", err);
  if (!held) {
    err.path = display;
    return failed_database(std::move(err));
  }
  const struct stat& st = held->st;
  if (!S_ISREG(st.st_mode)) {
    return failed_database(ObservationError{display, "fstat", EINVAL,
                                            std::string("is ") + kind_name(st.st_mode) + ", not a regular file: not opened"});
  }
  if (static_cast<std::uint64_t>(st.st_size) > kMaxPasswdBytes) {
    return failed_database(make_error(display, "fstat", EFBIG));
  }
  UniqueFd fd = reopen_held(held->fd.get(), st, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_NOATIME, display, err);
  if (!fd.valid()) return failed_database(std::move(err));
  // The same file, unchanged, as another root opened it (containers bind-mounting one file):
  // its database, or its parse to go on with.
  ParsedPasswdFiles& files = parsed_passwd_files();
  const PasswdFileKey key = version_of(st);
  std::shared_ptr<PasswdParse> parse = files.take(key);
  if (parse && parse->db) {
    if (parse->db->too_many_entries) return failed_database(too_many_entries(display));
    return std::make_unique<PasswdUserDatabase>(parse->db);
  }
  bool shared = parse != nullptr;  // kept for other roots (the file did not change while read)
  if (!parse) {
    if (limits != nullptr) {
      if (const char* why = limits->reached()) {
        return failed_database(ObservationError{
            display, "read", EINTR, std::string("not read: the run was stopped (") + why + ")"});
      }
    }
    files.make_room(static_cast<std::size_t>(st.st_size));
    parse = std::make_shared<PasswdParse>();
    std::string& text = parse->text;
    text.resize(static_cast<std::size_t>(st.st_size));
    int read_error = 0;
    text.resize(pread_upto(fd.get(), text.data(), text.size(), 0, read_error));
    if (read_error != 0) return failed_database(make_error(display, "pread", read_error));
    parse->bytes = static_cast<std::size_t>(st.st_size);
    struct stat after {};
    shared = ::fstat(fd.get(), &after) == 0 && version_of(after) == key;
  }
  const char* why = passwd::parse_some(parse->text, parse->state, limits);
  if (why == nullptr) {
    parse->db = std::make_shared<const passwd::Database>(std::move(parse->state.db));
    parse->state = passwd::PartialParse{};
    parse->text = std::string();
  }
  const std::size_t line = parse->state.line_number;
  if (shared) files.keep(key, parse);
  if (why != nullptr) {
    return failed_database(ObservationError{
        display, "read", EINTR,
        std::string("not indexed: the run was stopped (") + why + ") after " + std::to_string(line) +
            " lines" + (shared ? ", where the next temp dir that opens this file goes on" : "")});
  }
  if (parse->db->too_many_entries) return failed_database(too_many_entries(display));
  return std::make_unique<PasswdUserDatabase>(parse->db);
}

std::unique_ptr<UserDatabase> root_user_database(const std::string& root) {
  ObservationError error;
  UniqueFd root_fd = open_system_root(root, false, error);
  if (!root_fd.valid()) return failed_database(std::move(error));
  return root_user_database_at(root_fd.get(), root);
}

}  // namespace hsperfguard::platform
