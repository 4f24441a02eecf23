#include "platform/posix/beneath_posix.hpp"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <string>
#include <vector>

namespace hsperfguard::platform {
namespace {

int sys_openat2(int dirfd, const char* path, int flags, std::uint64_t resolve) {
  struct open_how how {};
  how.flags = static_cast<std::uint64_t>(flags | O_CLOEXEC);
  how.resolve = resolve;
  // EAGAIN: a concurrent rename or mount made the kernel give up on a safe ".." walk.
  for (int attempt = 0;; ++attempt) {
    const long fd = ::syscall(SYS_openat2, dirfd, path, &how, sizeof how);
    if (fd >= 0) return static_cast<int>(fd);
    if ((errno == EAGAIN || errno == EINTR) && attempt < 16) continue;
    return -1;
  }
}

constexpr std::uint64_t kInRoot = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;

bool probe_openat2() {
  const int fd = sys_openat2(AT_FDCWD, "/", O_PATH | O_DIRECTORY, kInRoot);
  if (fd < 0) return false;  // ENOSYS, E2BIG (older open_how), EPERM (seccomp), EINVAL
  ::close(fd);
  return true;
}

void fail(ObservationError* err, std::string_view path, const char* op, int code) {
  if (err != nullptr) *err = make_error(std::string(path), op, code);
}

UniqueFd open_with_openat2(int root_fd, std::string_view relative_path, int flags,
                           ObservationError* err) {
  std::string path(relative_path);
  if (path.empty()) path = ".";
  UniqueFd fd(sys_openat2(root_fd, path.c_str(), flags, kInRoot));
  if (!fd.valid()) fail(err, relative_path, "openat2", errno);
  return fd;
}

std::vector<std::string_view> components(std::string_view path) {
  std::vector<std::string_view> out;
  while (!path.empty()) {
    const auto slash = path.find('/');
    const auto part = path.substr(0, slash);
    if (!part.empty() && part != ".") out.push_back(part);
    path.remove_prefix(slash == std::string_view::npos ? path.size() : slash + 1);
  }
  return out;
}

// Whether `name` in `dirfd` is a symlink (to turn ENOTDIR from O_NOFOLLOW into ELOOP).
bool is_symlink_at(int dirfd, const std::string& name) {
  struct stat st {};
  return ::fstatat(dirfd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode);
}

// Whether the path, as the kernel reads it, names a directory only: it ends in "/" or "/."
// ("a/file/" and "a/file/." are ENOTDIR, not the file, which components() alone would give).
bool names_a_directory(std::string_view path) {
  const auto slash = path.rfind('/');
  const std::string_view last = slash == std::string_view::npos ? path : path.substr(slash + 1);
  return slash != std::string_view::npos && (last.empty() || last == ".");
}

UniqueFd open_with_walk(int root_fd, std::string_view relative_path, int flags,
                        ObservationError* err) {
  const auto parts = components(relative_path);
  if (names_a_directory(relative_path)) flags |= O_DIRECTORY;
  // Directories entered so far; empty means "at the root". ".." pops, never past the root.
  std::vector<UniqueFd> stack;
  auto current = [&] { return stack.empty() ? root_fd : stack.back().get(); };
  std::string name;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const bool last = i + 1 == parts.size();
    if (parts[i] == "..") {
      if (!stack.empty()) stack.pop_back();
      continue;
    }
    name.assign(parts[i]);
    if (!last) {
      UniqueFd next(
          ::openat(current(), name.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
      if (!next.valid()) {
        const int code = errno;
        fail(err, relative_path, "openat",
             (code == ENOTDIR || code == ELOOP) && is_symlink_at(current(), name) ? ELOOP : code);
        return {};
      }
      stack.push_back(std::move(next));
      continue;
    }
    UniqueFd fd(::openat(current(), name.c_str(), flags | O_NOFOLLOW | O_CLOEXEC));
    if (!fd.valid()) {
      const int code = errno;
      fail(err, relative_path, "openat",
           code == ENOTDIR && is_symlink_at(current(), name) ? ELOOP : code);
      return {};
    }
    // O_PATH|O_NOFOLLOW hands back the link itself; the walk never returns a symlink.
    struct stat st {};
    if ((flags & O_PATH) != 0 && ::fstat(fd.get(), &st) == 0 && S_ISLNK(st.st_mode)) {
      fail(err, relative_path, "openat", ELOOP);
      return {};
    }
    return fd;
  }
  // The path names a directory already on the stack (or the root itself): reopen it.
  UniqueFd fd(::openat(current(), ".", flags | O_CLOEXEC));
  if (!fd.valid()) fail(err, relative_path, "openat", errno);
  return fd;
}

}  // namespace

bool openat2_available() {
  // 0 unknown, 1 available, 2 not available. Racing first callers probe twice; harmless.
  static std::atomic<int> state{0};
  int s = state.load(std::memory_order_relaxed);
  if (s == 0) {
    s = probe_openat2() ? 1 : 2;
    state.store(s, std::memory_order_relaxed);
  }
  return s == 1;
}

int open_entry_on_this_mount(int dirfd, const char* name, int flags) {
  if (!openat2_available()) {
    errno = ENOSYS;
    return -1;
  }
  return sys_openat2(dirfd, name, flags, kEntryOnThisMount);
}

UniqueFd open_beneath(int root_fd, std::string_view relative_path, int flags, ObservationError* err,
                      BeneathMethod method) {
  switch (method) {
    case BeneathMethod::openat2:
      return open_with_openat2(root_fd, relative_path, flags, err);
    case BeneathMethod::walk:
      return open_with_walk(root_fd, relative_path, flags, err);
    case BeneathMethod::automatic:
      break;
  }
  return openat2_available() ? open_with_openat2(root_fd, relative_path, flags, err)
                             : open_with_walk(root_fd, relative_path, flags, err);
}

}  // namespace hsperfguard::platform
