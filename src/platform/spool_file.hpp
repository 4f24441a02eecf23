// A section of a command's output kept on disk until the sections before it are written: an
// unnamed temp file (POSIX: O_TMPFILE, or a name unlinked at once; Windows: the C runtime's
// temp file), so that a report that grows with what a run met costs no memory, and nothing of
// it stays behind when the process ends, however it ends.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/facts.hpp"

namespace hsperfguard::platform {

class SpoolFile {
 public:
  // An empty spool in the first of `dirs` where one can be made; nullopt when none could be
  // (`error` says why for the last one tried).
  static std::optional<SpoolFile> create(const std::vector<std::string>& dirs, ObservationError& error);

  SpoolFile(SpoolFile&&) noexcept;
  SpoolFile& operator=(SpoolFile&&) noexcept;
  ~SpoolFile();

  // Appends `text` (buffered). The first failure is kept, and every later call does nothing.
  void append(std::string_view text);
  std::size_t size() const;
  // Bytes [begin, end) of what was appended, handed to `write` a block at a time.
  void copy(std::size_t begin, std::size_t end, const std::function<void(std::string_view)>& write);
  // The first write or read that failed: what was handed out may lack part of the spool.
  const std::optional<ObservationError>& error() const;

 private:
  struct Impl;
  explicit SpoolFile(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace hsperfguard::platform
