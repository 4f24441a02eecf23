// A file of the tool's own beside what it judges: the reap lock and the reap journal. The
// primitives differ per platform (posix/private_file_posix.cpp, windows/private_file_windows.cpp);
// what a lock file and a journal must hold, and how they are taken and written, is written
// once over them (lock_and_journal.cpp).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "model/facts.hpp"

namespace hsperfguard::platform {

class PrivateFile {
 public:
  enum class Use {
    lock,     // read and written in place; its parent directory is made when missing (one level)
    journal,  // appended to
  };
  enum class LockResult { taken, busy, failed };

  // Creates `path` exclusively, private to this user (POSIX 0600, Windows a protected DACL of
  // the owner, SYSTEM and Administrators), holding `content_if_created` (POSIX: written before
  // the file has a name, so that no other run sees it empty), or opens the file that is there
  // and keeps it only when it is a regular file owned by us with one link that nobody else
  // may write. Never follows a link or reparse point in the last component (POSIX: nor in the
  // directory part, whose directories are root's or ours, the last one writable by its owner
  // only) and never opens what it refuses (POSIX: a device, FIFO, socket or directory is
  // judged by its type through an O_PATH descriptor first).
  static std::optional<PrivateFile> open(const std::string& path, Use use,
                                         std::string_view content_if_created,
                                         ObservationError& error);

  PrivateFile(PrivateFile&&) noexcept;
  PrivateFile& operator=(PrivateFile&&) noexcept;
  ~PrivateFile();

  bool created() const;        // this open made the file
  std::uint64_t size() const;  // at open

  // Up to `max` bytes at `offset` (fewer at the end of the file).
  std::optional<std::string> read(std::uint64_t offset, std::size_t max,
                                  ObservationError& error) const;
  // A non-blocking exclusive lock, held until this object is destroyed or the process dies.
  LockResult try_lock(ObservationError& error);
  // Makes `text` the whole content (best effort: the lock holder's pid).
  void rewrite(std::string_view text);
  // Writes `text` at the end, `end` being where this object's last write ended; a write that
  // could not be completed is cut back to `end`.
  std::optional<ObservationError> append(std::string_view text, std::uint64_t end);
  // The platform's error for an existing file whose content is not ours: nothing is changed.
  ObservationError not_ours(std::string message) const;

 private:
  struct Impl;
  explicit PrivateFile(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// This process's id (written into the lock file).
std::int32_t current_pid();

}  // namespace hsperfguard::platform
