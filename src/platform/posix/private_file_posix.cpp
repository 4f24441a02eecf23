// PrivateFile on POSIX: its directory reached by open_parent_dir (no link followed, every
// directory root's or ours, the last one private), the file itself held O_PATH and judged by
// its type, owner and links before it is opened at all (a device, FIFO or socket there is never
// opened), then reopened through that descriptor. A new file is made whole before it has a
// name (O_TMPFILE, written, then linked) so that no other run ever sees it without its
// content; flock for the lock; O_APPEND writes for the journal.
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

constexpr int kOpenFlags = O_NONBLOCK | O_NOCTTY | O_CLOEXEC;

// What a lock or journal file must be to be reused: ours alone (see lock_and_journal.hpp).
std::optional<ObservationError> refuse_unless_ours(const std::string& path, const struct stat& st) {
  std::string why;
  if (!S_ISREG(st.st_mode)) {
    why = std::string("is ") + kind_name(st.st_mode) + ", not a regular file";
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

// 0, or the errno of the write that failed.
int write_whole(int fd, std::string_view text) {
  while (!text.empty()) {
    const ssize_t n = ::write(fd, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    if (n == 0) return EIO;
    text.remove_prefix(static_cast<std::size_t>(n));
  }
  return 0;
}

// Makes the file `dir.name` with `content`, 0600, exclusively: an unnamed file written and
// then linked (EEXIST: something took the name meanwhile, nothing was made). Where the file
// system has no O_TMPFILE, made by name (O_EXCL) and then written, removed again if that fails.
std::optional<ObservationError> create_whole(const ParentDir& dir, const std::string& path,
                                             int flags, std::string_view content, UniqueFd& out) {
  const int d = dir.fd.get();
  const char* name = dir.name.c_str();
  UniqueFd fd(::openat(d, ".", O_TMPFILE | flags | kOpenFlags, 0600));
  const bool unnamed = fd.valid();
  if (!unnamed) {
    if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL && errno != ENOENT) {
      return make_error(path, "openat", errno);
    }
    fd.reset(::openat(d, name, flags | kOpenFlags | O_CREAT | O_EXCL | O_NOFOLLOW, 0600));
    if (!fd.valid()) return make_error(path, "openat", errno);
  }
  // fchmod: the umask must not decide.
  const char* op = "fchmod";
  int err = ::fchmod(fd.get(), 0600) == 0 ? 0 : errno;
  if (err == 0) {
    op = "write";
    err = write_whole(fd.get(), content);
  }
  if (err != 0) {
    if (!unnamed) ::unlinkat(d, name, 0);  // ours, made just now, in a directory only we may write
    return make_error(path, op, err);
  }
  if (unnamed) {
    err = link_unnamed(fd.get(), d, name);
    if (err != 0) return make_error(path, "linkat", err);
  }
  out = std::move(fd);
  return std::nullopt;
}

}  // namespace

std::optional<PrivateFile> PrivateFile::open(const std::string& path, Use use,
                                             std::string_view content_if_created,
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
  // Absent, then taken by another run before ours is linked: look again (a few times).
  for (int attempt = 0; attempt < 8 && !impl->fd.valid(); ++attempt) {
    std::optional<WalkedPath> held = hold_entry(*dir, path, error);
    if (!held) {
      if (error.code != ENOENT) return std::nullopt;
      auto failed = create_whole(*dir, path, flags, content_if_created, impl->fd);
      if (failed && failed->code != EEXIST) {
        error = std::move(*failed);
        return std::nullopt;
      }
      impl->created = impl->fd.valid();
      continue;
    }
    // Judged by what it is before it is opened: nothing but a regular file of ours is.
    if (auto refused = refuse_unless_ours(path, held->st)) {
      error = std::move(*refused);
      return std::nullopt;
    }
    impl->fd = reopen_walked(*held, flags | kOpenFlags, path, error);
    if (!impl->fd.valid()) return std::nullopt;
  }
  if (!impl->fd.valid()) {
    error = ObservationError{path, "openat", EAGAIN, "kept appearing and disappearing: left alone"};
    return std::nullopt;
  }
  struct stat st {};
  if (::fstat(impl->fd.get(), &st) != 0) {
    error = make_error(path, "fstat", errno);
    return std::nullopt;
  }
  if (!impl->created) {
    if (auto refused = refuse_unless_ours(path, st)) {  // a link added since it was judged
      error = std::move(*refused);
      return std::nullopt;
    }
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
  int err = 0;
  text.resize(pread_upto(impl_->fd.get(), text.data(), max, static_cast<off_t>(offset), err));
  if (err != 0) {
    error = make_error(impl_->path, "pread", err);
    return std::nullopt;
  }
  return text;
}

PrivateFile::LockResult PrivateFile::try_lock(ObservationError& error) {
  // A non-blocking flock waits for nothing: EINTR says only that a signal came in the call, not
  // that another run holds the lock (taken for one, the reap gave up naming its own pid).
  int rc = 0;
  do {
    rc = ::flock(impl_->fd.get(), LOCK_EX | LOCK_NB);
  } while (rc != 0 && errno == EINTR);
  if (rc == 0) return LockResult::taken;
  if (errno == EWOULDBLOCK) return LockResult::busy;
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
