// The spool file on Windows (platform/spool_file.hpp): the C runtime's temp file, which is
// deleted when it is closed; `dirs` are not used.
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "platform/spool_file.hpp"

namespace hsperfguard::platform {

struct SpoolFile::Impl {
  std::FILE* file = nullptr;
  std::size_t size = 0;
  std::optional<ObservationError> error;

  ~Impl() {
    if (file != nullptr) std::fclose(file);
  }
  void fail(const char* op) {
    if (!error) error = ObservationError{"temp file", op, errno, std::strerror(errno)};
  }
};

std::optional<SpoolFile> SpoolFile::create(const std::vector<std::string>& /*dirs*/, ObservationError& error) {
  std::FILE* file = std::tmpfile();
  if (file == nullptr) {
    error = ObservationError{"temp file", "tmpfile", errno, std::strerror(errno)};
    return std::nullopt;
  }
  auto impl = std::make_unique<Impl>();
  impl->file = file;
  return SpoolFile(std::move(impl));
}

SpoolFile::SpoolFile(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
SpoolFile::SpoolFile(SpoolFile&&) noexcept = default;
SpoolFile& SpoolFile::operator=(SpoolFile&&) noexcept = default;
SpoolFile::~SpoolFile() = default;

void SpoolFile::append(std::string_view text) {
  if (impl_->error) return;
  if (std::fseek(impl_->file, 0, SEEK_END) != 0 || std::fwrite(text.data(), 1, text.size(), impl_->file) != text.size()) {
    impl_->fail("write");
    return;
  }
  impl_->size += text.size();
}

std::size_t SpoolFile::size() const { return impl_->size; }

void SpoolFile::copy(std::size_t begin, std::size_t end, const std::function<void(std::string_view)>& write) {
  if (impl_->error) return;
  if (std::fflush(impl_->file) != 0 || std::fseek(impl_->file, static_cast<long>(begin), SEEK_SET) != 0) {
    impl_->fail("read");
    return;
  }
  std::string block(64 * 1024, '\0');
  while (begin < end) {
    const std::size_t want = std::min(block.size(), end - begin);
    const std::size_t n = std::fread(block.data(), 1, want, impl_->file);
    if (n == 0) {
      impl_->fail("read");
      return;
    }
    write(std::string_view(block.data(), n));
    begin += n;
  }
}

const std::optional<ObservationError>& SpoolFile::error() const { return impl_->error; }

}  // namespace hsperfguard::platform
