// PrivateFile on POSIX: reached through open_parent_dir (no link followed, a private
// directory), created O_EXCL 0600 or kept only when ours alone; flock for the lock; O_APPEND
// writes for the journal.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "platform/posix/posix_util.hpp"
#include "platform/posix/safe_path_posix.hpp"
#include "platform/private_file.hpp"

namespace hsperfguard::platform {

struct PrivateFile::Impl {
  UniqueFd fd;
  std::string path;
  bool created = false;
  std::uint64_t size = 0;
};

namespace {

// What a lock or journal file must be to be reused: ours alone (see lock_and_journal.hpp).
std::optional<ObservationError> refuse_unless_ours(const std::string& path, const struct stat& st) {
  std::string why;
  if (!S_ISREG(st.st_mode)) {
    why = "not a regular file";
  } else if (st.st_uid != ::geteuid()) {
    why = "owned by uid " + std::to_string(st.st_uid) + ", not by us";
  } else if (st.st_nlink != 1) {
    why = "has " + std::to_string(st.st_nlink) + " links (a hard link to another file)";
  } else if ((st.st_mode & 022) != 0) {
    why = "writable by group or others";
  } else {
    return std::nullopt;
  }
  return ObservationError{path, "fstat", EPERM, why + ": left untouched"};
}

}  // namespace

std::optional<PrivateFile> PrivateFile::open(const std::string& path, Use use,
                                             ObservationError& error) {
  // The lock's directory is made when missing (/run/hsperfguard after a reboot): one level.
  const ParentPolicy policy{.follow_owned_symlinks = false,
                            .private_directory = true,
                            .create_directory = use == Use::lock};
  std::optional<ParentDir> dir = open_parent_dir(path, policy, error);
  if (!dir) return std::nullopt;
  auto impl = std::make_unique<Impl>();
  impl->path = path;
  const int flags = O_RDWR | (use == Use::journal ? O_APPEND : 0);
  constexpr int kCommon = O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY;
  impl->fd.reset(
      ::openat(dir->fd.get(), dir->name.c_str(), flags | O_CREAT | O_EXCL | kCommon, 0600));
  impl->created = impl->fd.valid();
  if (!impl->created) {
    if (errno != EEXIST) {
      error = make_error(path, "openat", errno);
      return std::nullopt;
    }
    // O_RDWR: a FIFO opens without waiting for a writer, and is then refused by its type.
    impl->fd.reset(::openat(dir->fd.get(), dir->name.c_str(), flags | kCommon));
    if (!impl->fd.valid()) {
      error = make_error(path, "openat", errno);
      if (errno == ELOOP) error.message = "is a symbolic link: left untouched";
      return std::nullopt;
    }
  }
  struct stat st {};
  if (::fstat(impl->fd.get(), &st) != 0) {
    error = make_error(path, "fstat", errno);
    return std::nullopt;
  }
  if (impl->created) {
    if (::fchmod(impl->fd.get(), 0600) != 0) {  // the umask must not decide
      error = make_error(path, "fchmod", errno);
      return std::nullopt;
    }
  } else if (auto refused = refuse_unless_ours(path, st)) {
    error = std::move(*refused);
    return std::nullopt;
  }
  impl->size = static_cast<std::uint64_t>(st.st_size);
  return PrivateFile(std::move(impl));
}

PrivateFile::PrivateFile(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
PrivateFile::PrivateFile(PrivateFile&&) noexcept = default;
PrivateFile& PrivateFile::operator=(PrivateFile&&) noexcept = default;
PrivateFile::~PrivateFile() = default;

bool PrivateFile::created() const { return impl_->created; }
std::uint64_t PrivateFile::size() const { return impl_->size; }

std::optional<std::string> PrivateFile::read(std::uint64_t offset, std::size_t max,
                                             ObservationError& error) const {
  std::string text(max, '\0');
  std::size_t got = 0;
  while (got < max) {
    const ssize_t n =
        ::pread(impl_->fd.get(), text.data() + got, max - got, static_cast<off_t>(offset + got));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      error = make_error(impl_->path, "pread", errno);
      return std::nullopt;
    }
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  text.resize(got);
  return text;
}

PrivateFile::LockResult PrivateFile::try_lock(ObservationError& error) {
  if (::flock(impl_->fd.get(), LOCK_EX | LOCK_NB) == 0) return LockResult::taken;
  if (errno == EWOULDBLOCK || errno == EINTR) return LockResult::busy;
  error = make_error(impl_->path, "flock", errno);
  return LockResult::failed;
}

void PrivateFile::rewrite(std::string_view text) {
  if (::ftruncate(impl_->fd.get(), 0) == 0) {
    (void)!::pwrite(impl_->fd.get(), text.data(), text.size(), 0);
  }
}

std::optional<ObservationError> PrivateFile::append(std::string_view text, std::uint64_t end) {
  const ssize_t n = ::write(impl_->fd.get(), text.data(), text.size());
  if (n == static_cast<ssize_t>(text.size())) return std::nullopt;
  // Nothing, or part of the record, was written (ENOSPC, EFBIG, EIO): the part is cut off
  // again so the next record does not continue it.
  const int err = n < 0 ? errno : ENOSPC;
  if (n > 0 && ::ftruncate(impl_->fd.get(), static_cast<off_t>(end)) != 0) {
    return ObservationError{impl_->path, "write", err,
                            std::string(std::strerror(err)) +
                                "; the part written could not be cut off (" + std::strerror(errno) +
                                ")"};
  }
  return make_error(impl_->path, "write", err);
}

ObservationError PrivateFile::not_ours(std::string message) const {
  return ObservationError{impl_->path, "pread", EPERM, std::move(message)};
}

std::int32_t current_pid() { return static_cast<std::int32_t>(::getpid()); }

}  // namespace hsperfguard::platform
