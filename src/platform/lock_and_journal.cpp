#include "platform/lock_and_journal.hpp"

#include <thread>
#include <utility>

#include "model/pid_name.hpp"
#include "platform/private_file.hpp"

namespace hsperfguard::platform {

using Clock = std::chrono::steady_clock;

// ---- Single-instance lock ---------------------------------------------------------------------

struct InstanceLock::Impl {
  std::optional<PrivateFile> file;
};

InstanceLock::InstanceLock() : impl_(std::make_unique<Impl>()) {}
InstanceLock::~InstanceLock() = default;
InstanceLock::InstanceLock(InstanceLock&&) noexcept = default;
InstanceLock& InstanceLock::operator=(InstanceLock&&) noexcept = default;

namespace {

// A lock file of ours is a pid and the marker line; anything longer is some other file.
constexpr std::size_t kMaxLockContent = 64;
// How often a waiting run tries again.
constexpr std::chrono::milliseconds kLockRetry{50};

// The pid the file names, if it is a lock file of ours and can be read.
std::optional<std::int32_t> holder_of(const PrivateFile& file) {
  ObservationError ignored;
  const auto content = file.read(0, kMaxLockContent, ignored);
  return content ? parse_lock_holder(*content) : std::nullopt;
}

}  // namespace

InstanceLock InstanceLock::acquire(const std::string& path, bool wait,
                                   std::optional<Clock::time_point> deadline,
                                   const std::atomic<bool>* stop) {
  InstanceLock lock;
  auto fail = [&](ObservationError e) {
    lock.status_ = Status::error;
    lock.error_ = std::move(e);
    return std::move(lock);
  };
  const std::int32_t self = current_pid();
  const std::string content = lock_file_content(self);
  ObservationError error;
  std::optional<PrivateFile> file = PrivateFile::open(path, PrivateFile::Use::lock, content, error);
  if (!file) return fail(std::move(error));
  // The lock first: a file another process holds locked is busy whatever it holds (the run of
  // an older version, during an upgrade, holds a lock file without the marker), and nothing is
  // written to it. Only a file we hold is judged, before anything is written to it.
  for (;;) {
    const PrivateFile::LockResult taken = file->try_lock(error);
    if (taken == PrivateFile::LockResult::taken) break;
    if (taken == PrivateFile::LockResult::failed) return fail(std::move(error));
    lock.holder_pid_ = holder_of(*file);
    const bool give_up = !wait || (deadline && Clock::now() >= *deadline) ||
                         (stop != nullptr && stop->load(std::memory_order_relaxed));
    if (give_up) {
      lock.status_ = Status::busy;
      return lock;
    }
    std::this_thread::sleep_for(kLockRetry);
  }
  const auto held = file->read(0, kMaxLockContent + 1, error);
  if (!held) return fail(std::move(error));
  if (!is_lock_file_content(*held)) {
    return fail(file->not_ours(
        "not a lock file of ours (it does not hold a pid and the line \"" + std::string(kLockFileMarker) +
        "\"; a lock file of a version before that line holds just a pid): left untouched; if it is "
        "an old lock of hsperfguard and no reap is running, remove it, or choose another --lock-file"));
  }
  // Who holds it, for the next run's message.
  if (*held != content) file->rewrite(content);
  lock.holder_pid_ = self;
  lock.impl_->file = std::move(file);
  lock.status_ = Status::acquired;
  return lock;
}

// ---- Append-only journal ----------------------------------------------------------------------

struct AppendLog::Impl {
  std::optional<PrivateFile> file;
  std::uint64_t size = 0;
};

AppendLog::AppendLog() : impl_(std::make_unique<Impl>()) {}
AppendLog::~AppendLog() = default;
AppendLog::AppendLog(AppendLog&&) noexcept = default;
AppendLog& AppendLog::operator=(AppendLog&&) noexcept = default;

std::optional<AppendLog> AppendLog::open(const std::string& path, ObservationError* error) {
  ObservationError e;
  std::optional<PrivateFile> file = PrivateFile::open(path, PrivateFile::Use::journal, {}, e);
  if (!file) {
    if (error != nullptr) *error = std::move(e);
    return std::nullopt;
  }
  AppendLog log;
  log.impl_->size = file->size();
  log.impl_->file = std::move(file);
  return log;
}

bool AppendLog::created() const { return impl_->file->created(); }
std::uint64_t AppendLog::size() const { return impl_->size; }

std::optional<std::string> AppendLog::read(std::uint64_t offset, std::size_t max,
                                           ObservationError* error) {
  ObservationError e;
  auto text = impl_->file->read(offset, max, e);
  if (!text && error != nullptr) *error = std::move(e);
  return text;
}

std::optional<ObservationError> AppendLog::append_raw(std::string_view text) {
  auto error = impl_->file->append(text, impl_->size);
  if (!error) impl_->size += text.size();
  return error;
}

std::optional<ObservationError> AppendLog::append(std::string_view line) {
  std::string buffer;
  buffer.reserve(line.size() + 1);
  buffer.append(line);
  buffer.push_back('\n');
  return append_raw(buffer);
}

}  // namespace hsperfguard::platform
