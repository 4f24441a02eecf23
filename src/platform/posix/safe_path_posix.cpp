#include "platform/posix/safe_path_posix.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <deque>
#include <string_view>

namespace hsperfguard::platform {
namespace {

// As the kernel's own limit on links in one lookup.
constexpr int kMaxLinks = 40;

void push_components(std::deque<std::string>& todo, std::string_view path) {
  std::deque<std::string> parts;
  while (!path.empty()) {
    const auto slash = path.find('/');
    const std::string_view part = path.substr(0, slash);
    if (!part.empty() && part != ".") parts.emplace_back(part);
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash + 1);
  }
  todo.insert(todo.begin(), parts.begin(), parts.end());
}

std::string join(const std::string& dir, const std::string& name) {
  if (dir == ".") return name;
  return dir.ends_with('/') ? dir + name : dir + "/" + name;
}

}  // namespace

bool trusted_owner(std::uint32_t uid) { return uid == 0 || uid == ::geteuid(); }

std::optional<ParentDir> open_parent_dir(const std::string& path, const ParentPolicy& policy,
                                         ObservationError& error) {
  const auto fail = [&](std::string where, const char* op, int code, std::string message) {
    error = ObservationError{std::move(where), op, code, std::move(message)};
    return std::optional<ParentDir>();
  };
  if (path.empty()) return fail(path, "open", EINVAL, "an empty path names no file");
  const auto slash = path.rfind('/');
  std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  if (name.empty() || name == "." || name == "..") {
    return fail(path, "open", EISDIR, "names a directory, not a file");
  }
  std::deque<std::string> todo;
  if (slash != std::string::npos) push_components(todo, std::string_view(path).substr(0, slash));

  const bool absolute = path.starts_with('/');
  std::string walked = absolute ? "/" : ".";
  UniqueFd cur(::open(walked.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!cur.valid()) return fail(walked, "open", errno, std::strerror(errno));
  int links = 0;
  while (!todo.empty()) {
    const std::string part = std::move(todo.front());
    todo.pop_front();
    const std::string here = join(walked, part);
    UniqueFd next(::openat(cur.get(), part.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
    if (!next.valid() && errno == ENOENT && policy.create_directory && todo.empty() && part != "..") {
      if (::mkdirat(cur.get(), part.c_str(), 0755) != 0 && errno != EEXIST) {
        return fail(here, "mkdirat", errno, std::strerror(errno));
      }
      next.reset(::openat(cur.get(), part.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
    }
    if (!next.valid()) return fail(here, "openat", errno, std::strerror(errno));
    struct stat st {};
    if (::fstat(next.get(), &st) != 0) return fail(here, "fstat", errno, std::strerror(errno));
    if (S_ISLNK(st.st_mode)) {
      if (!policy.follow_owned_symlinks) {
        return fail(here, "openat", ELOOP, "is a symbolic link, and no link is followed in this path");
      }
      if (!trusted_owner(st.st_uid)) {
        return fail(here, "openat", ELOOP,
                    "is a symbolic link owned by uid " + std::to_string(st.st_uid) +
                        " (only root's or our own links are followed)");
      }
      if (++links > kMaxLinks) return fail(here, "openat", ELOOP, std::strerror(ELOOP));
      char target[4096];
      const ssize_t n = ::readlinkat(next.get(), "", target, sizeof target);
      if (n < 0) return fail(here, "readlinkat", errno, std::strerror(errno));
      if (n == 0 || static_cast<std::size_t>(n) == sizeof target) {
        return fail(here, "readlinkat", ENAMETOOLONG, "unusable link target");
      }
      const std::string_view to(target, static_cast<std::size_t>(n));
      push_components(todo, to);
      if (to.starts_with('/')) {
        cur.reset(::open("/", O_PATH | O_DIRECTORY | O_CLOEXEC));
        if (!cur.valid()) return fail("/", "open", errno, std::strerror(errno));
        walked = "/";
      }
      continue;
    }
    if (!S_ISDIR(st.st_mode)) return fail(here, "openat", ENOTDIR, "not a directory");
    cur = std::move(next);
    walked = here;
  }

  ParentDir out;
  out.fd.reset(::openat(cur.get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!out.fd.valid()) return fail(walked, "openat", errno, std::strerror(errno));
  if (::fstat(out.fd.get(), &out.st) != 0) return fail(walked, "fstat", errno, std::strerror(errno));
  if (!trusted_owner(out.st.st_uid)) {
    return fail(walked, "fstat", EPERM,
                "directory owned by uid " + std::to_string(out.st.st_uid) +
                    ": another user could replace or read what is written there");
  }
  if (policy.private_directory && (out.st.st_mode & 022) != 0) {
    return fail(walked, "fstat", EPERM,
                "directory writable by group or others: another user could plant or swap this file");
  }
  out.name = std::move(name);
  return out;
}

}  // namespace hsperfguard::platform
