#include <map>
#include <string>

#include "model/passwd.hpp"
#include "platform/files.hpp"
#include "platform/users.hpp"
#include "platform/windows/security_windows.hpp"

namespace hsperfguard::platform {
namespace {

// Larger files are refused rather than read: no real passwd is this big.
constexpr std::size_t kMaxPasswdBytes = std::size_t{64} * 1024 * 1024;

// This host's accounts (local and domain) by LookupAccountNameW. Windows has no numeric
// user ids, so find_name(uid) knows nobody.
class HostAccounts final : public UserDatabase {
 public:
  std::optional<UserFacts> find_user(std::string_view name) override {
    failed_ = false;
    const std::string key(name);
    if (auto it = cache_.find(key); it != cache_.end()) return it->second;
    const win::AccountLookup account = win::lookup_account(key);
    if (account.error) {
      failed_ = true;
      error_ = account.error;
      return std::nullopt;  // not cached: a later lookup may succeed
    }
    std::optional<UserFacts> found;
    if (account.found) found = UserFacts{key, std::nullopt, std::nullopt, account.sid};
    cache_.emplace(key, found);
    return found;
  }

  std::optional<std::string> find_name(std::uint32_t /*uid*/) override {
    failed_ = false;
    return std::nullopt;
  }

  bool failed() const override { return failed_; }
  std::optional<ObservationError> error() const override { return error_; }

 private:
  std::map<std::string, std::optional<UserFacts>, std::less<>> cache_;
  bool failed_ = false;
  std::optional<ObservationError> error_;
};

// A foreign POSIX root seen from Windows (a mounted Linux file system): its etc/passwd,
// parsed by us. Windows cannot resolve beneath a root the way openat2 does, so the file is
// read by path, refusing a reparse point as its last component.
class RootPasswd final : public UserDatabase {
 public:
  explicit RootPasswd(const std::string& root) {
    const std::string path = root + (root.ends_with('\\') || root.ends_with('/') ? "" : "\\") + "etc\\passwd";
    const FileRead read = read_regular_file(path, kMaxPasswdBytes + 1);
    if (read.error) {
      error_ = read.error;
    } else if (read.bytes.size() > kMaxPasswdBytes) {
      error_ = ObservationError{path, "ReadFile", 0, "larger than 64 MiB"};
    } else {
      database_ = passwd::parse(std::string_view(reinterpret_cast<const char*>(read.bytes.data()), read.bytes.size()));
      if (database_->too_many_entries) {
        database_.reset();
        error_ = ObservationError{path, "ReadFile", 0,
                                  "more than " + std::to_string(passwd::kMaxEntries) + " accounts: not indexed"};
      }
    }
  }

  std::optional<UserFacts> find_user(std::string_view name) override {
    if (!database_) return std::nullopt;
    const passwd::Entry* entry = database_->find_name(name);
    if (entry == nullptr) return std::nullopt;
    return UserFacts{std::string(entry->name), entry->uid, entry->gid, std::nullopt};
  }

  std::optional<std::string> find_name(std::uint32_t uid) override {
    if (!database_) return std::nullopt;
    const passwd::Entry* entry = database_->find_uid(uid);
    return entry == nullptr ? std::nullopt : std::optional<std::string>(std::string(entry->name));
  }

  bool failed() const override { return !database_.has_value(); }
  std::optional<ObservationError> error() const override { return error_; }

 private:
  std::optional<passwd::Database> database_;
  std::optional<ObservationError> error_;
};

}  // namespace

std::unique_ptr<UserDatabase> host_user_database() { return std::make_unique<HostAccounts>(); }

std::unique_ptr<UserDatabase> root_user_database(const std::string& root) {
  return std::make_unique<RootPasswd>(root);
}

}  // namespace hsperfguard::platform
