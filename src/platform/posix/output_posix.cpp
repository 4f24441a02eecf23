// write_output on POSIX: the directory reached by open_parent_dir (walk_path: no link of another
// user's, nor one in another user's directory, is followed, and every directory on the way is
// root's or ours), the name held O_PATH and judged by its type, then one of two ways by what
// it is.
//
// Replacing (absent or a regular file): the new content goes to an unnamed file (O_TMPFILE;
// a named one, created exclusively, where the file system has none), is synced, given a
// hidden name and exchanged with the target (renameat2 RENAME_EXCHANGE), and what came out
// is removed only if it is a regular file; anything else that appeared there meanwhile is put
// back and the write refused. An absent target is taken with RENAME_NOREPLACE, so that what
// appears there meanwhile is looked at again rather than replaced. A run killed while it
// writes leaves nothing behind (the unnamed file goes with it).
//
// Writing through (a character device, a FIFO, a socket): the held descriptor reopened
// O_NONBLOCK through /proc/self/fd (a socket connected through it), never the name again,
// written with poll() between pieces so that a stop request ends a wait for a
// slow reader, and with SIGPIPE held back (a reader that goes away is an error, not our end).
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "platform/output.hpp"
#include "platform/posix/safe_path_posix.hpp"

namespace hsperfguard::platform {
namespace {

bool stop_requested(const std::atomic<bool>* stop) {
  return stop != nullptr && stop->load(std::memory_order_relaxed);
}

ObservationError interrupted(const std::string& path) {
  return ObservationError{path, "write", EINTR,
                          "interrupted by a stop signal: the target was left as it was"};
}

// Writes all of `data`, waiting in poll() for a non-blocking fd. Returns errno or 0.
int write_all(int fd, std::string_view data, const std::atomic<bool>* stop) {
  while (!data.empty()) {
    if (stop_requested(stop)) return EINTR;
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN) {
        pollfd p{fd, POLLOUT, 0};
        (void)::poll(&p, 1, 200);
        continue;
      }
      return errno;
    }
    if (n == 0) return EIO;
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return 0;
}

// Runs the producer into `fd`; the first failure makes the rest no-ops and is returned.
int feed(int fd, const ContentProducer& produce, const std::atomic<bool>* stop, bool start_writeback) {
  // Writeback is started every few MiB of a file (a report can be 100 MB), so that the final
  // fsync waits for the last stretch only.
  constexpr off_t kWritebackStep = 8 << 20;
  int err = 0;
  off_t total = 0, flushed = 0;
  produce([&](std::string_view piece) {
    if (err != 0) return;
    err = write_all(fd, piece, stop);
    if (err != 0) return;
    total += static_cast<off_t>(piece.size());
    if (start_writeback && total - flushed >= kWritebackStep) {
      ::sync_file_range(fd, flushed, total - flushed, SYNC_FILE_RANGE_WRITE);  // a hint
      flushed = total;
    }
  });
  if (err == 0 && stop_requested(stop)) err = EINTR;
  return err;
}

// SIGPIPE held back while a FIFO or socket is written: a reader that closes its end makes
// write() fail with EPIPE instead of ending the process. A SIGPIPE raised meanwhile is taken
// off the pending set before the mask is restored.
class SigpipeHeld {
 public:
  SigpipeHeld() {
    sigemptyset(&pipe_);
    sigaddset(&pipe_, SIGPIPE);
    sigset_t pending;
    sigpending(&pending);
    was_pending_ = sigismember(&pending, SIGPIPE) == 1;
    blocked_ = pthread_sigmask(SIG_BLOCK, &pipe_, &previous_) == 0;
  }
  ~SigpipeHeld() {
    if (!blocked_) return;
    if (!was_pending_) {
      const timespec zero{0, 0};
      while (sigtimedwait(&pipe_, nullptr, &zero) > 0) {
      }
    }
    pthread_sigmask(SIG_SETMASK, &previous_, nullptr);
  }
  SigpipeHeld(const SigpipeHeld&) = delete;
  SigpipeHeld& operator=(const SigpipeHeld&) = delete;

 private:
  sigset_t pipe_{}, previous_{};
  bool was_pending_ = false;
  bool blocked_ = false;
};

// A stream socket: connected through the held descriptor's /proc name (never re-resolving the
// path), and only to a process of root or of ours.
UniqueFd connect_socket(const WalkedPath& held, const std::string& path, const std::atomic<bool>* stop,
                        ObservationError& error) {
  const std::string name = "/proc/self/fd/" + std::to_string(held.fd.get());
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (name.size() >= sizeof address.sun_path) {
    error = make_error(path, "connect", ENAMETOOLONG);
    return {};
  }
  std::memcpy(address.sun_path, name.c_str(), name.size() + 1);
  UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (!fd.valid()) {
    error = make_error(path, "socket", errno);
    return {};
  }
  if (::connect(fd.get(), reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
    if (errno != EINPROGRESS && errno != EAGAIN) {
      error = make_error(path, "connect", errno);
      if (errno == EPROTOTYPE) error.message = "not a stream socket (datagram sockets are not written to)";
      return {};
    }
    for (;;) {
      if (stop_requested(stop)) {
        error = interrupted(path);
        return {};
      }
      pollfd p{fd.get(), POLLOUT, 0};
      if (::poll(&p, 1, 200) > 0) break;
    }
    int so_error = 0;
    socklen_t len = sizeof so_error;
    if (::getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &so_error, &len) != 0 || so_error != 0) {
      error = make_error(path, "connect", so_error != 0 ? so_error : errno);
      return {};
    }
  }
  ucred peer{};
  socklen_t len = sizeof peer;
  if (::getsockopt(fd.get(), SOL_SOCKET, SO_PEERCRED, &peer, &len) != 0) {
    error = make_error(path, "getsockopt", errno);
    return {};
  }
  if (!trusted_owner(peer.uid)) {
    error = ObservationError{path, "connect", EPERM,
                             "the process listening on this socket runs as uid " +
                                 std::to_string(peer.uid) + ", not root or us: nothing written"};
    return {};
  }
  return fd;
}

std::optional<ObservationError> write_through(const WalkedPath& held, const std::string& path,
                                              const ContentProducer& produce, const OutputOptions& options) {
  const struct stat& seen = held.st;
  // A FIFO or socket of another user would hand a report about everyone to that user.
  if ((S_ISFIFO(seen.st_mode) || S_ISSOCK(seen.st_mode)) && !trusted_owner(seen.st_uid)) {
    return ObservationError{path, "fstatat", EPERM,
                            std::string(kind_name(seen.st_mode)) + " owned by uid " +
                                std::to_string(seen.st_uid) + ", not root or us: nothing written"};
  }
  const SigpipeHeld held_back;
  UniqueFd fd;
  ObservationError error;
  if (S_ISSOCK(seen.st_mode)) {
    fd = connect_socket(held, path, options.stop, error);
  } else {
    fd = reopen_walked(held, O_WRONLY | O_NONBLOCK | O_NOCTTY, path, error);
    if (!fd.valid() && error.code == ENXIO && S_ISFIFO(seen.st_mode)) {
      error.message = "no process is reading this FIFO";
    }
  }
  if (!fd.valid()) return error;
  const int err = feed(fd.get(), produce, options.stop, false);
  if (err == EINTR && stop_requested(options.stop)) return interrupted(path);
  if (err != 0) return make_error(path, "write", err);
  return std::nullopt;
}

// A hidden name beside the target for the new file; `make` tries one, false on EEXIST.
std::optional<std::string> hidden_name(const ParentDir& dir, const std::function<int(const std::string&)>& make,
                                       const std::string& path, const char* op,
                                       ObservationError& error) {
  for (int attempt = 0; attempt < 100; ++attempt) {
    const std::string name = "." + dir.name + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(attempt);
    const int err = make(name);
    if (err == 0) return name;
    if (err != EEXIST) {
      error = make_error(path, op, err);
      return std::nullopt;
    }
  }
  error = make_error(path, op, EEXIST);
  return std::nullopt;
}

// Puts the file at `temp` in place of the name (see the top of the file). Returns the error,
// having removed `temp`, or nullopt.
std::optional<ObservationError> put_in_place(const ParentDir& dir, const std::string& temp,
                                             const std::string& path) {
  const int d = dir.fd.get();
  const char* name = dir.name.c_str();
  const auto give_up = [&](ObservationError e) {
    ::unlinkat(d, temp.c_str(), 0);
    return std::optional<ObservationError>(std::move(e));
  };
  for (int round = 0; round < 8; ++round) {
    struct stat st {};
    const bool exists = ::fstatat(d, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
    if (!exists && errno != ENOENT) return give_up(make_error(path, "fstatat", errno));
    if (exists && !S_ISREG(st.st_mode)) {
      return give_up(ObservationError{path, "renameat2", EEXIST,
                                      std::string("became ") + kind_name(st.st_mode) +
                                          " while being written: left alone, nothing written"});
    }
    const unsigned how = exists ? RENAME_EXCHANGE : RENAME_NOREPLACE;
    if (::renameat2(d, temp.c_str(), d, name, how) == 0) {
      if (!exists) return std::nullopt;
      struct stat old {};
      if (::fstatat(d, temp.c_str(), &old, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISREG(old.st_mode)) {
        // Swapped in between the look and the exchange: put it back.
        ::renameat2(d, temp.c_str(), d, name, RENAME_EXCHANGE);
        return give_up(ObservationError{path, "renameat2", EEXIST,
                                        std::string("became ") + kind_name(old.st_mode) +
                                            " while being written: left alone, nothing written"});
      }
      ::unlinkat(d, temp.c_str(), 0);
      return std::nullopt;
    }
    if (errno == EEXIST || errno == ENOENT) continue;  // changed since the look: look again
    if (errno != EINVAL && errno != ENOSYS) return give_up(make_error(path, "renameat2", errno));
    // No RENAME_EXCHANGE / NOREPLACE on this file system: a plain rename, just after the look.
    if (::renameat(d, temp.c_str(), d, name) != 0) return give_up(make_error(path, "renameat", errno));
    return std::nullopt;
  }
  return give_up(ObservationError{path, "renameat2", EAGAIN, "kept changing while being written"});
}

std::optional<ObservationError> replace(const ParentDir& dir, const std::string& path,
                                        const ContentProducer& produce, const OutputOptions& options) {
  const int d = dir.fd.get();
  const auto mode = static_cast<mode_t>(options.mode);
  ObservationError error;
  std::optional<std::string> temp;  // named from the start where O_TMPFILE is missing
  UniqueFd fd(::openat(d, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, mode));
  if (!fd.valid()) {
    if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL && errno != ENOENT) {
      return make_error(path, "openat", errno);
    }
    temp = hidden_name(dir, [&](const std::string& name) {
      fd.reset(::openat(d, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode));
      return fd.valid() ? 0 : errno;
    }, path, "openat", error);
    if (!temp) return error;
  }
  const auto discard = [&](ObservationError e) {
    if (temp) ::unlinkat(d, temp->c_str(), 0);
    return std::optional<ObservationError>(std::move(e));
  };
  // fchmod: the umask must not decide who may read the report.
  if (::fchmod(fd.get(), mode) != 0) return discard(make_error(path, "fchmod", errno));
  int err = feed(fd.get(), produce, options.stop, true);
  if (err == 0 && ::fsync(fd.get()) != 0) err = errno;
  if (err == EINTR && stop_requested(options.stop)) return discard(interrupted(path));
  if (err != 0) return discard(make_error(path, "write", err));
  if (!temp) {
    temp = hidden_name(dir, [&](const std::string& name) { return link_unnamed(fd.get(), d, name.c_str()); },
                       path, "linkat", error);
    if (!temp) return error;
  }
  fd.reset();
  if (auto failed = put_in_place(dir, *temp, path)) return failed;
  ::fsync(d);  // the new name, durably (best effort: the content already is)
  return std::nullopt;
}

}  // namespace

std::optional<ObservationError> write_output(const std::string& path, const ContentProducer& produce,
                                             const OutputOptions& options) {
  ObservationError error;
  const ParentPolicy policy{.follow_owned_symlinks = true, .private_directory = false, .create_directory = false};
  std::optional<ParentDir> dir = open_parent_dir(path, policy, error);
  if (!dir) return error;
  std::optional<WalkedPath> held = hold_entry(*dir, path, error);
  if (!held) {
    if (error.code != ENOENT) return error;
    return replace(*dir, path, produce, options);
  }
  const mode_t mode = held->st.st_mode;
  if (S_ISREG(mode)) return replace(*dir, path, produce, options);
  if (S_ISCHR(mode) || S_ISFIFO(mode) || S_ISSOCK(mode)) return write_through(*held, path, produce, options);
  std::string why = std::string("is ") + kind_name(mode) + ": refused, nothing written";
  if (S_ISLNK(mode)) why += " (give the path it points to, or \"-\" for standard output)";
  return ObservationError{path, "fstatat", S_ISDIR(mode) ? EISDIR : EPERM, why};
}

std::optional<ObservationError> write_output_text(const std::string& path, std::string_view text,
                                                  const OutputOptions& options) {
  return write_output(path, [&](const ContentSink& write) { write(text); }, options);
}

}  // namespace hsperfguard::platform
