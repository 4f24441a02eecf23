#include "platform/posix/safe_path_posix.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <deque>
#include <string_view>

#include "platform/posix/beneath_posix.hpp"

namespace hsperfguard::platform {
namespace {

// As the kernel's own limit on links in one lookup.
constexpr int kMaxLinks = 40;

constexpr int kHold = O_PATH | O_NOFOLLOW | O_CLOEXEC;

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

// Where the walk is, as a path for messages: `dir` joined with `part` ("..": one up, where the
// text allows).
std::string step(const std::string& dir, const std::string& part) {
  if (part == "..") {
    if (dir == "/") return dir;
    if (dir == ".") return "..";
    if (dir == ".." || dir.ends_with("/..")) return dir + "/..";
    const auto slash = dir.rfind('/');
    if (slash == std::string::npos) return ".";
    return slash == 0 ? "/" : dir.substr(0, slash);
  }
  if (dir == ".") return part;
  return dir.ends_with('/') ? dir + part : dir + "/" + part;
}

std::string uid_text(std::uint32_t uid) { return "uid " + std::to_string(uid); }

class Walk {
 public:
  Walk(const std::string& path, const WalkRules& rules, ObservationError& error)
      : path_(path), rules_(rules), error_(error) {}

  std::optional<WalkedPath> run() {
    if (path_.empty()) return fail(EINVAL, "open", "an empty path names no file");
    std::string name;
    std::string_view walk_part = path_;
    if (rules_.parent_only) {
      const auto slash = path_.rfind('/');
      name = slash == std::string::npos ? path_ : path_.substr(slash + 1);
      if (name.empty() || name == "." || name == "..") {
        return fail(EISDIR, "open", path_ + " names a directory, not a file");
      }
      walk_part = slash == std::string::npos ? std::string_view{} : walk_part.substr(0, slash);
    }
    push_components(todo_, walk_part);
    if (!start(path_.starts_with('/') ? "/" : ".")) return std::nullopt;
    while (!todo_.empty()) {
      if (!advance()) return std::nullopt;
    }
    WalkedPath out;
    out.fd = std::move(cur_);
    out.st = cur_st_;
    out.name = std::move(name);
    out.reached = std::move(reached_);
    return out;
  }

 private:
  std::optional<WalkedPath> fail(int code, const char* op, std::string message) {
    error_ = ObservationError{path_, op, code, std::move(message)};
    return std::nullopt;
  }
  bool failed(int code, const char* op, std::string message) {
    fail(code, op, std::move(message));
    return false;
  }
  // The errno of the call that just failed, on `where` (named when it is not the whole path).
  bool failed_call(const char* op, const std::string& where) {
    const int code = errno;
    return failed(code, op, where == path_ ? std::strerror(code) : where + ": " + std::strerror(code));
  }

  bool start(const char* where) {
    cur_.reset(::open(where, O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (!cur_.valid() || ::fstat(cur_.get(), &cur_st_) != 0) return failed_call("open", where);
    reached_ = where;
    if (rules_.trusted_directories && !trusted_owner(cur_st_.st_uid)) {
      return failed(EPERM, "open",
                    (reached_ == "." ? std::string("the working directory") : reached_) +
                        " is a directory owned by " + uid_text(cur_st_.st_uid) +
                        ": another user could redirect or replace what is written there");
    }
    return true;
  }

  // Looks at the next component and moves onto it (or onto a link's target).
  bool advance() {
    const std::string part = std::move(todo_.front());
    todo_.pop_front();
    const bool last = todo_.empty();
    const std::string here = step(reached_, part);
    UniqueFd next(::openat(cur_.get(), part.c_str(), kHold));
    if (!next.valid() && errno == ENOENT && rules_.create_parent && rules_.parent_only && last &&
        part != "..") {
      if (::mkdirat(cur_.get(), part.c_str(), 0755) != 0 && errno != EEXIST) {
        return failed_call("mkdirat", here);
      }
      next.reset(::openat(cur_.get(), part.c_str(), kHold));
    }
    if (!next.valid()) return failed_call("openat", here);
    struct stat st {};
    if (::fstat(next.get(), &st) != 0) return failed_call("fstat", here);

    const bool is_final = last && !rules_.parent_only;
    if (S_ISLNK(st.st_mode) && !(is_final && !rules_.follow_last)) return follow(here, next, st);
    if (!trusted_owner(cur_st_.st_uid) && st.st_uid != cur_st_.st_uid) {
      // Out of another user's directory to something that is not theirs (a directory of root's
      // they moved in, or the parent of their directory, which they may have moved).
      return failed(EPERM, "openat",
                    here + " is owned by " + uid_text(st.st_uid) + " inside " + reached_ +
                        ", a directory owned by " + uid_text(cur_st_.st_uid) +
                        ": not entered (another user's directory leads only to that user's files)");
    }
    if (!is_final && !S_ISDIR(st.st_mode)) {
      return failed(ENOTDIR, "openat", here + " is " + kind_name(st.st_mode) + ", not a directory");
    }
    if (S_ISDIR(st.st_mode) && rules_.trusted_directories && !trusted_owner(st.st_uid)) {
      return failed(EPERM, "openat",
                    here + " is a directory owned by " + uid_text(st.st_uid) +
                        ": another user could redirect or replace what is written there");
    }
    cur_ = std::move(next);
    cur_st_ = st;
    reached_ = here;
    return true;
  }

  bool follow(const std::string& here, const UniqueFd& link, const struct stat& st) {
    if (!rules_.follow_links) {
      return failed(ELOOP, "openat", here + " is a symbolic link, and no link is followed in this path");
    }
    if (!trusted_owner(st.st_uid)) {
      return failed(ELOOP, "openat",
                    here + " is a symbolic link owned by " + uid_text(st.st_uid) +
                        ": not followed (only root's or our own links are)");
    }
    if (!trusted_owner(cur_st_.st_uid)) {
      return failed(ELOOP, "openat",
                    here + " is a symbolic link in " + reached_ + ", a directory owned by " +
                        uid_text(cur_st_.st_uid) + ": not followed (its owner can replace it)");
    }
    if (++links_ > kMaxLinks) return failed(ELOOP, "openat", here + ": " + std::strerror(ELOOP));
    char target[4096];
    const ssize_t n = ::readlinkat(link.get(), "", target, sizeof target);
    if (n < 0) return failed_call("readlinkat", here);
    if (n == 0 || static_cast<std::size_t>(n) == sizeof target) {
      return failed(ENAMETOOLONG, "readlinkat", here + ": unusable link target");
    }
    const std::string_view to(target, static_cast<std::size_t>(n));
    push_components(todo_, to);
    // From the directory that holds the link, or from "/" (which is root's: no transition).
    if (to.starts_with('/')) return start("/");
    return true;
  }

  const std::string& path_;
  const WalkRules& rules_;
  ObservationError& error_;
  std::deque<std::string> todo_;
  UniqueFd cur_;
  struct stat cur_st_ {};
  std::string reached_;
  int links_ = 0;
};

}  // namespace

bool trusted_owner(std::uint32_t uid) { return uid == 0 || uid == ::geteuid(); }

const char* kind_name(mode_t mode) {
  switch (mode & S_IFMT) {
    case S_IFLNK: return "a symbolic link";
    case S_IFDIR: return "a directory";
    case S_IFBLK: return "a block device";
    case S_IFCHR: return "a character device";
    case S_IFIFO: return "a FIFO";
    case S_IFSOCK: return "a socket";
    case S_IFREG: return "a regular file";
    default: return "a file of unknown type";
  }
}

std::optional<WalkedPath> walk_path(const std::string& path, const WalkRules& rules,
                                    ObservationError& error) {
  return Walk(path, rules, error).run();
}

UniqueFd reopen_held(int held, const struct stat& seen, int flags, const std::string& path,
                     ObservationError& error) {
  const int fd = held;
  UniqueFd opened;
  const auto open_as = [&](int how) {
    if (S_ISDIR(seen.st_mode)) return ::openat(fd, ".", how | O_CLOEXEC);
    // The descriptor's own magic link (followed, so without O_NOFOLLOW): the inode it holds,
    // whatever its name is now.
    const std::string self = "/proc/self/fd/" + std::to_string(fd);
    return ::open(self.c_str(), (how & ~O_NOFOLLOW) | O_CLOEXEC);
  };
  opened.reset(open_as(flags));
  if (!opened.valid() && errno == EPERM && (flags & O_NOATIME) != 0) opened.reset(open_as(flags & ~O_NOATIME));
  if (!opened.valid()) {
    const int code = errno;
    error = make_error(path, "open", code);
    if (code == ENOENT && !S_ISDIR(seen.st_mode)) error.message += " (/proc is needed to reopen it)";
    return {};
  }
  struct stat st {};
  if (::fstat(opened.get(), &st) != 0) {
    error = make_error(path, "fstat", errno);
    return {};
  }
  if (st.st_dev != seen.st_dev || st.st_ino != seen.st_ino) {
    error = ObservationError{path, "open", EAGAIN, "reopening it gave another file"};
    return {};
  }
  return opened;
}

int link_unnamed(int fd, int dirfd, const char* name) {
  if (::linkat(fd, "", dirfd, name, AT_EMPTY_PATH) == 0) return 0;
  if (errno != ENOENT && errno != EPERM) return errno;  // AT_EMPTY_PATH needs a capability
  const std::string self = "/proc/self/fd/" + std::to_string(fd);
  return ::linkat(AT_FDCWD, self.c_str(), dirfd, name, AT_SYMLINK_FOLLOW) == 0 ? 0 : errno;
}

std::optional<ParentDir> open_parent_dir(const std::string& path, const ParentPolicy& policy,
                                         ObservationError& error) {
  const WalkRules rules{.follow_links = policy.follow_owned_symlinks,
                        .follow_last = false,
                        .trusted_directories = true,
                        .parent_only = true,
                        .create_parent = policy.create_directory};
  std::optional<WalkedPath> walked = walk_path(path, rules, error);
  if (!walked) return std::nullopt;
  if (policy.private_directory && (walked->st.st_mode & 022) != 0) {
    error = ObservationError{path, "fstat", EPERM,
                             walked->reached +
                                 " is writable by group or others: another user could plant or swap this file"};
    return std::nullopt;
  }
  ParentDir out;
  out.fd = reopen_walked(*walked, O_RDONLY | O_DIRECTORY, path, error);
  if (!out.fd.valid()) return std::nullopt;
  out.st = walked->st;
  out.name = std::move(walked->name);
  return out;
}

std::optional<WalkedPath> hold_entry(const ParentDir& dir, const std::string& path,
                                     ObservationError& error) {
  WalkedPath held;
  held.fd.reset(::openat(dir.fd.get(), dir.name.c_str(), kHold));
  if (!held.fd.valid() || ::fstat(held.fd.get(), &held.st) != 0) {
    error = make_error(path, held.fd.valid() ? "fstat" : "openat", errno);
    return std::nullopt;
  }
  held.reached = path;
  return held;
}

UniqueFd open_system_root(const std::string& root, bool container, ObservationError& error) {
  if (container) {
    UniqueFd fd(::open(root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (!fd.valid()) error = make_error(root, "open", errno);
    return fd;
  }
  std::optional<WalkedPath> walked = walk_path(root, WalkRules{.follow_last = true}, error);
  if (!walked) return {};
  if (!S_ISDIR(walked->st.st_mode)) {
    error = ObservationError{root, "open", ENOTDIR,
                             walked->reached + " is " + kind_name(walked->st.st_mode) + ", not a directory"};
    return {};
  }
  return std::move(walked->fd);
}

ObservationError not_a_temp_dir(const std::string& path, mode_t mode) {
  if (S_ISLNK(mode)) {
    return ObservationError{path, "open", ELOOP,
                            "is a symbolic link: a temp dir is never followed (give the directory it names)"};
  }
  return ObservationError{path, "open", ENOTDIR, std::string("is ") + kind_name(mode) + ", not a directory"};
}

std::optional<WalkedPath> hold_temp_dir(int root_fd, const std::string& temp_dir,
                                        ObservationError& error) {
  if (root_fd < 0) return walk_path(temp_dir, WalkRules{}, error);
  // Its directory beneath the root, then the last component held as itself by openat (a
  // trailing slash would make the kernel follow a link there); "." and ".." only beneath.
  std::string_view inside = temp_dir;
  while (inside.starts_with('/')) inside.remove_prefix(1);
  while (inside.ends_with('/')) inside.remove_suffix(1);
  const auto slash = inside.rfind('/');
  const std::string base(slash == std::string_view::npos ? inside : inside.substr(slash + 1));
  const bool by_name = !base.empty() && base != "." && base != "..";
  const std::string_view parent =
      !by_name ? inside : slash == std::string_view::npos ? std::string_view{} : inside.substr(0, slash);
  WalkedPath held;
  held.fd = open_beneath(root_fd, parent, O_PATH | O_DIRECTORY, &error);
  if (held.fd.valid() && by_name) {
    held.fd.reset(::openat(held.fd.get(), base.c_str(), kHold));
    if (!held.fd.valid()) error = make_error(temp_dir, "openat", errno);
  }
  if (!held.fd.valid()) {
    error.path = temp_dir;
    return std::nullopt;
  }
  if (::fstat(held.fd.get(), &held.st) != 0) {
    error = make_error(temp_dir, "fstat", errno);
    return std::nullopt;
  }
  held.reached = temp_dir;
  return held;
}

std::optional<WalkedPath> hold_beneath(int root_fd, const std::string& path, ObservationError& error) {
  WalkedPath held;
  held.fd = open_beneath(root_fd, path, O_PATH, &error);
  if (!held.fd.valid()) {
    error.path = path;
    return std::nullopt;
  }
  if (::fstat(held.fd.get(), &held.st) != 0) {
    error = make_error(path, "fstat", errno);
    return std::nullopt;
  }
  held.reached = path;
  return held;
}

FileVersion version_of(const struct stat& st) {
  return FileVersion{static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino),
                     static_cast<std::uint64_t>(st.st_size), st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
                     st.st_ctim.tv_sec, st.st_ctim.tv_nsec};
}

UniqueFd open_temp_dir(RootKind kind, const std::string& root, const std::string& temp_dir,
                       int flags, ObservationError& error) {
  UniqueFd root_fd;
  if (kind == RootKind::root || kind == RootKind::container) {
    root_fd = open_system_root(root, kind == RootKind::container, error);
    if (!root_fd.valid()) return {};
  }
  std::optional<WalkedPath> held = hold_temp_dir(root_fd.get(), temp_dir, error);
  if (!held) return {};
  if (!S_ISDIR(held->st.st_mode)) {
    error = not_a_temp_dir(temp_dir, held->st.st_mode);
    return {};
  }
  return reopen_walked(*held, flags, temp_dir, error);
}

}  // namespace hsperfguard::platform
