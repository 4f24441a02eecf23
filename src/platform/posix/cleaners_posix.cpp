// The cleaners' configuration files of a system, read beneath its root (cleaners_posix.hpp).
// Every file is held first (O_PATH: a FIFO or a device is never opened, nothing blocks) and
// read only when it is a regular file, at most kMaxCleanerConfigBytes of it.
#include "platform/posix/cleaners_posix.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <map>
#include <optional>
#include <string_view>
#include <vector>

#include "platform/posix/beneath_posix.hpp"
#include "platform/posix/dirents_posix.hpp"
#include "platform/posix/posix_util.hpp"
#include "platform/posix/safe_path_posix.hpp"

namespace hsperfguard::platform {
namespace {

std::string shown(const std::string& root_display, const std::string& path) {
  if (root_display.empty() || root_display == "/") return path;
  std::string r = root_display;
  while (r.size() > 1 && r.ends_with('/')) r.pop_back();
  return r + path;
}

struct Reader {
  int root_fd;
  const std::string& root_display;
  CleanerFacts& facts;

  void error(const std::string& path, std::string op, int code, std::string message = {}) {
    ObservationError e = make_error(shown(root_display, path), std::move(op), code);
    if (!message.empty()) e.message = std::move(message);
    facts.errors.push_back(std::move(e));
  }

  // The text of the file at `path` (absolute, as the system names it); nullopt when it is
  // absent (ENOENT, quietly when `quiet_absent`) or not a regular file or unreadable (an
  // error of the facts).
  std::optional<std::string> read(const std::string& path, bool quiet_absent, bool skip_directories = false) {
    ObservationError err;
    std::optional<WalkedPath> held = hold_beneath(root_fd, path, err);
    if (!held) {
      if (err.code == ENOENT && quiet_absent) return std::nullopt;
      err.path = shown(root_display, path);
      facts.errors.push_back(std::move(err));
      return std::nullopt;
    }
    if (S_ISDIR(held->st.st_mode) && skip_directories) return std::nullopt;
    if (!S_ISREG(held->st.st_mode)) {
      error(path, "fstat", EINVAL,
            std::string("is ") + kind_name(held->st.st_mode) + ", not a regular file: not read");
      return std::nullopt;
    }
    UniqueFd fd = reopen_held(held->fd.get(), held->st, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_NOATIME,
                              shown(root_display, path), err);
    if (!fd.valid()) {
      facts.errors.push_back(std::move(err));
      return std::nullopt;
    }
    std::string text;
    text.resize(std::min<std::size_t>(kMaxCleanerConfigBytes,
                                      static_cast<std::size_t>(std::max<off_t>(held->st.st_size, 0)) + 1));
    std::size_t got = 0;
    while (got < text.size()) {
      const ssize_t n = ::read(fd.get(), text.data() + got, text.size() - got);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        error(path, "read", errno);
        return std::nullopt;
      }
      if (n == 0) break;
      got += static_cast<std::size_t>(n);
    }
    text.resize(got);
    if (got == kMaxCleanerConfigBytes) {
      char probe = 0;
      if (::read(fd.get(), &probe, 1) > 0) {
        error(path, "read", EFBIG,
              "larger than " + std::to_string(kMaxCleanerConfigBytes) +
                  " bytes: only its beginning was read, a cleaner configured further on is not seen");
        // The last line may be cut in the middle: it is not parsed.
        text.resize(text.rfind('\n') == std::string::npos ? 0 : text.rfind('\n') + 1);
      }
    }
    facts.configuration.files.push_back(path);
    return text;
  }

  // The names in directory `dir` (absolute, as the system names it), sorted; absent quietly.
  std::vector<std::string> list(const std::string& dir) {
    std::vector<std::string> names;
    ObservationError err;
    std::optional<WalkedPath> held = hold_beneath(root_fd, dir, err);
    if (!held) {
      if (err.code != ENOENT) {
        err.path = shown(root_display, dir);
        facts.errors.push_back(std::move(err));
      }
      return names;
    }
    if (!S_ISDIR(held->st.st_mode)) {
      error(dir, "fstat", ENOTDIR, std::string("is ") + kind_name(held->st.st_mode) + ", not a directory");
      return names;
    }
    UniqueFd fd = reopen_held(held->fd.get(), held->st, O_RDONLY | O_DIRECTORY, shown(root_display, dir), err);
    if (!fd.valid()) {
      facts.errors.push_back(std::move(err));
      return names;
    }
    std::vector<char> buffer;
    DirentReader reader(fd.get(), buffer);
    while (auto e = reader.next()) {
      if (names.size() == kMaxCleanerConfigEntries) {
        error(dir, "getdents64", E2BIG,
              "more than " + std::to_string(kMaxCleanerConfigEntries) + " entries: the others were not read");
        break;
      }
      names.emplace_back(e->name);
    }
    if (reader.error() != 0) error(dir, "getdents64", reader.error());
    std::sort(names.begin(), names.end());
    return names;
  }

  // Whether `dir`/`name` is a symbolic link to /dev/null: a tmpfiles.d file masked.
  bool masked(const std::string& dir, const std::string& name) {
    ObservationError err;
    const UniqueFd d = open_beneath(root_fd, dir, O_PATH | O_DIRECTORY, &err);
    if (!d.valid()) return false;
    const std::optional<std::string> target = link_target_at(d.get(), name.c_str());
    return target && *target == "/dev/null";
  }
};

// run-parts runs only names of letters, digits, '_' and '-' (a dpkg-old or rpmsave copy is not
// run).
bool run_parts_name(std::string_view name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
  });
}

}  // namespace

CleanerFacts observe_cleaners(int root_fd, const std::string& root_display) {
  CleanerFacts facts;
  Reader r{root_fd, root_display, facts};
  cleaners::Configuration& config = facts.configuration;

  // systemd-tmpfiles --cat-config: the *.conf files of these directories, a name in an earlier
  // one hiding the same name in the later ones, read in the order of their names.
  static constexpr std::string_view kTmpfilesDirs[] = {"/etc/tmpfiles.d", "/run/tmpfiles.d",
                                                       "/usr/local/lib/tmpfiles.d", "/usr/lib/tmpfiles.d"};
  std::map<std::string, std::string> chosen;  // name -> directory
  for (const std::string_view dir : kTmpfilesDirs) {
    for (const std::string& name : r.list(std::string(dir))) {
      if (name.ends_with(".conf") && !chosen.contains(name)) chosen.emplace(name, dir);
    }
  }
  for (const auto& [name, dir] : chosen) {
    if (r.masked(dir, name)) continue;
    const std::string path = dir + "/" + name;
    if (auto text = r.read(path, false)) cleaners::parse_tmpfiles(path, *text, config);
  }

  // tmpreaper's settings, for the job that sources them.
  std::map<std::string, cleaners::Assignments> sourced;
  if (auto text = r.read("/etc/tmpreaper.conf", true)) {
    sourced.emplace("/etc/tmpreaper.conf", cleaners::parse_assignments("/etc/tmpreaper.conf", *text, true, config));
  }

  if (auto text = r.read("/etc/crontab", true)) {
    cleaners::parse_cron("/etc/crontab", *text, cleaners::CronFile::system_crontab, sourced, config);
  }
  const auto each = [&](const std::string& dir, cleaners::CronFile kind, bool run_parts) {
    for (const std::string& name : r.list(dir)) {
      if (name.starts_with('.') || (run_parts && !run_parts_name(name))) continue;
      if (dir == "/var/spool/cron" && name == "crontabs") continue;  // Debian's, read on its own
      const std::string path = dir + "/" + name;
      if (auto text = r.read(path, false, true)) cleaners::parse_cron(path, *text, kind, sourced, config);
    }
  };
  each("/etc/cron.d", cleaners::CronFile::system_crontab, false);
  for (const char* period : {"hourly", "daily", "weekly", "monthly"}) {
    each(std::string("/etc/cron.") + period, cleaners::CronFile::script, true);
  }
  each("/var/spool/cron/crontabs", cleaners::CronFile::user_crontab, false);
  each("/var/spool/cron", cleaners::CronFile::user_crontab, false);
  return facts;
}

}  // namespace hsperfguard::platform
