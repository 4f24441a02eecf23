// The reap's own files: the single-instance lock and the append-only journal. Written once
// for both platforms (lock_and_journal.cpp) over the primitives of private_file.hpp.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "model/facts.hpp"

namespace hsperfguard::platform {

// One reap at a time per host: an exclusive flock on a lock file, created 0600 exclusively
// when missing (its parent directory too, one level, 0755) holding the pid and a marker line
// (lock_file_content), whole from the moment it has a name. An existing file is reused only
// when it is a regular file owned by us, with one link, that nobody else may write, and holds
// exactly that format (is_lock_file_content): an empty file, a bare number or anything else
// the path may name is left untouched. A file that another process holds locked is busy,
// whatever it holds, and is not written. POSIX: the directory is reached without following
// any link, every directory on the way is root's or ours and the last one may be written by
// nobody but its owner; the file is judged by its type before it is opened. The lock is
// released when the object is destroyed, or by the kernel when the process dies.
class InstanceLock {
 public:
  enum class Status { acquired, busy, error };

  InstanceLock();
  ~InstanceLock();
  InstanceLock(InstanceLock&&) noexcept;
  InstanceLock& operator=(InstanceLock&&) noexcept;

  // wait=false: one attempt. wait=true: retries until acquired, `deadline` (if any) passes
  // or `stop` is set. The holder's pid, when the lock is busy, is read from the file.
  static InstanceLock acquire(const std::string& path, bool wait,
                              std::optional<std::chrono::steady_clock::time_point> deadline,
                              const std::atomic<bool>* stop);

  Status status() const { return status_; }
  const std::optional<ObservationError>& error() const { return error_; }
  std::optional<std::int32_t> holder_pid() const { return holder_pid_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  Status status_ = Status::error;
  std::optional<ObservationError> error_;
  std::optional<std::int32_t> holder_pid_;
};

// An append-only log of JSON lines (the reap journal): each record written with one write()
// so that it is on disk (in the page cache) before the next action starts and survives the
// process being killed. Whether an existing file is a journal at all is the caller's to judge
// (its records are the caller's); this only opens, reads and appends.
class AppendLog {
 public:
  AppendLog();
  ~AppendLog();
  AppendLog(AppendLog&&) noexcept;
  AppendLog& operator=(AppendLog&&) noexcept;

  // Creates `path` (0600, exclusively) or opens it for appending when it exists. An existing
  // file is used only when it is a regular file owned by this user, with one link, that nobody
  // else may write. POSIX: the directory is reached without following any link and may be
  // written by nobody but its owner (root or us). Windows: no reparse point is followed.
  // Never blocks (a FIFO is refused, not waited on).
  static std::optional<AppendLog> open(const std::string& path, ObservationError* error);

  bool created() const;        // this open made the file
  std::uint64_t size() const;  // where the next record goes
  // Up to `max` bytes at `offset`, for judging an existing file.
  std::optional<std::string> read(std::uint64_t offset, std::size_t max, ObservationError* error);
  // `text` as is, with one write. A write that could not be completed (a full file system) is
  // cut off again, so that the file never ends in part of a record. Returns the error, if any,
  // naming the journal's path.
  std::optional<ObservationError> append_raw(std::string_view text);
  // `line` (without a newline) and a newline, as append_raw.
  std::optional<ObservationError> append(std::string_view line);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hsperfguard::platform
