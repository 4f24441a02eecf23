// Which cleaners reach a live JVM's files (cleaner_reach.hpp). A JVM's files are judged by
// sample paths: a backing file of a user "user" for pids of every length a pid can have (1 to
// 7 digits), and an attach socket for the same pids; a cleaner is kept off them only when its
// exclusions cover every sample, as the packaged tmpfiles.d snippet's one line per length does.
#include "checks/cleaner_reach.hpp"

#include <algorithm>
#include <array>
#include <string_view>

#include "model/shell_word.hpp"

namespace hsperfguard::checks {
namespace {

using cleaners::Cleaning;
using cleaners::Tool;

constexpr std::array<std::string_view, 7> kSamplePids = {"1",     "12",     "123",    "1234",
                                                         "12345", "123456", "1234567"};

// "/tmp/." and "/tmp/" name /tmp.
std::string normalized(std::string_view path) {
  std::string p(path);
  for (;;) {
    if (p.size() > 1 && p.ends_with('/')) {
      p.pop_back();
    } else if (p.size() > 2 && p.ends_with("/.")) {
      p.resize(p.size() - 2);
    } else {
      break;
    }
  }
  return p;
}

std::size_t depth(std::string_view path) {
  return static_cast<std::size_t>(std::count(path.begin(), path.end(), '/'));
}

// The directories above `path` ("/tmp/a/b": "/tmp/a", "/tmp", "/"), nearest first.
std::vector<std::string> ancestors(std::string_view path) {
  std::vector<std::string> out;
  for (std::size_t slash = path.rfind('/'); slash != std::string_view::npos && slash > 0;
       slash = path.rfind('/', slash - 1)) {
    out.emplace_back(path.substr(0, slash));
  }
  out.emplace_back("/");
  return out;
}

// Whether `dir` is `path` or a directory above it; the levels between them.
std::optional<std::size_t> levels_below(std::string_view dir, std::string_view path) {
  if (dir == "/") return depth(path);
  if (!path.starts_with(dir) || path.size() <= dir.size() || path[dir.size()] != '/') return std::nullopt;
  return depth(path) - depth(dir);
}

// Brace alternatives ({a,b}) of a tmpreaper protect pattern (glob(3) with GLOB_BRACE), at most
// 64 of them.
std::vector<std::string> brace_expanded(const std::string& pattern) {
  std::vector<std::string> done;
  std::vector<std::string> work = {pattern};
  while (!work.empty() && done.size() < 64) {
    std::string p = std::move(work.back());
    work.pop_back();
    const std::size_t open = p.find('{');
    std::size_t close = std::string::npos;
    int level = 0;
    for (std::size_t i = open; open != std::string::npos && i < p.size(); ++i) {
      if (p[i] == '{') ++level;
      if (p[i] == '}' && --level == 0) {
        close = i;
        break;
      }
    }
    if (close == std::string::npos) {
      done.push_back(std::move(p));
      continue;
    }
    const std::string inner = p.substr(open + 1, close - open - 1);
    std::size_t start = 0;
    level = 0;
    for (std::size_t i = 0; i <= inner.size() && work.size() < 64; ++i) {
      if (i < inner.size() && inner[i] == '{') ++level;
      if (i < inner.size() && inner[i] == '}') --level;
      if (i == inner.size() || (inner[i] == ',' && level == 0)) {
        work.push_back(p.substr(0, open) + inner.substr(start, i - start) + p.substr(close + 1));
        start = i + 1;
      }
    }
  }
  return done;
}

bool glob(std::string_view pattern, std::string_view name, bool pathname, bool period) {
  return cleaners::glob_match(pattern, name, pathname, period);
}

// The paths a tmpfiles.d exclusion keeps from cleaning: `x` the path and all below, `X` the
// path itself (systemd matches them with fnmatch, FNM_PATHNAME).
bool tmpfiles_excluded(const std::vector<cleaners::TmpfilesExclusion>& exclusions, const std::string& sample) {
  for (const auto& x : exclusions) {
    if (glob(x.path, sample, true, false)) return true;
    if (x.with_contents) {
      for (const std::string& a : ancestors(sample)) {
        if (glob(x.path, a, true, false)) return true;
      }
    }
  }
  return false;
}

// Whether `c`, with what it is told to spare, deletes `sample`, a regular file or a socket.
bool deletes(const Cleaning& c, const std::string& sample, bool socket,
             const std::vector<cleaners::TmpfilesExclusion>& tmpfiles_exclusions) {
  if (c.disabled) return false;
  if (socket ? !c.removes_sockets : !c.removes_regular) return false;
  const auto ancestors_of_sample = ancestors(sample);
  if (c.tool == Tool::tmpfiles) {
    // Each directory the line's path matches has its contents aged (its children, or with "~"
    // only what is below them).
    const std::string pattern = c.path_is_glob ? normalized(c.paths.front()) : glob_literal(normalized(c.paths.front()));
    bool reached = false;
    for (const std::string& a : ancestors_of_sample) {
      if (!glob(pattern, a, true, true)) continue;
      if (const auto levels = levels_below(a, sample); levels && *levels >= (c.below_children_only ? 2U : 1U)) {
        reached = true;
      }
    }
    return reached && !tmpfiles_excluded(tmpfiles_exclusions, sample);
  }
  // The others walk the directories they are given.
  std::vector<std::string> dirs;
  for (const std::string& d : c.paths) {
    const std::string n = normalized(d);
    const auto levels = levels_below(n, sample);
    if (!levels) continue;
    if (c.tool == Tool::find && c.max_depth >= 0 && *levels > static_cast<std::size_t>(c.max_depth)) continue;
    dirs.push_back(n);
  }
  if (dirs.empty()) return false;
  const std::string_view base = std::string_view(sample).substr(sample.rfind('/') + 1);
  switch (c.tool) {
    case Tool::tmpreaper:
      // Each pattern is globbed in each directory cleaned (relative ones below it), and the
      // files found are kept: a protected directory's files are not (tmpreaper(8): its own
      // patterns protect `unix` and `unix/*` both).
      for (const std::string& p : c.protect_patterns) {
        for (const std::string& e : brace_expanded(p)) {
          if (e.starts_with('/')) {
            if (glob(e, sample, true, true)) return false;
          } else {
            for (const std::string& d : dirs) {
              if (glob(d + "/" + e, sample, true, true)) return false;
            }
          }
        }
      }
      return true;
    case Tool::tmpwatch:
      // -x: a path and all below it; -X: a pattern, a matching directory with all below it.
      for (const std::string& x : c.exclude_paths) {
        const std::string n = normalized(x);
        if (n == sample || levels_below(n, sample)) return false;
      }
      for (const std::string& p : c.protect_patterns) {
        if (glob(p, sample, true, false)) return false;
        for (const std::string& a : ancestors_of_sample) {
          if (glob(p, a, true, false)) return false;
        }
      }
      return true;
    case Tool::find:
      // find's -path and -name match with fnmatch and no flags: '*' takes '/' and a leading '.'.
      for (const std::string& p : c.prune_patterns) {
        if (glob(p, sample, false, false)) return false;
        for (const std::string& a : ancestors_of_sample) {
          if (glob(p, a, false, false)) return false;
        }
      }
      for (const std::string& p : c.protect_patterns) {
        if (glob(p, sample, false, false)) return false;
      }
      for (const std::string& n : c.exclude_names) {
        if (glob(n, base, false, false)) return false;
      }
      return true;
    case Tool::tmpfiles:
      break;
  }
  return false;
}

bool deletes_any(const Cleaning& c, const std::string& prefix, const std::string& suffix, bool socket,
                 const std::vector<cleaners::TmpfilesExclusion>& exclusions) {
  return std::any_of(kSamplePids.begin(), kSamplePids.end(), [&](std::string_view pid) {
    return deletes(c, prefix + std::string(pid) + suffix, socket, exclusions);
  });
}

}  // namespace

std::string glob_literal(std::string_view literal) {
  std::string out;
  for (const char c : literal) {
    if (c == '*' || c == '?' || c == '[' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

std::vector<CleanerReach> cleaners_reaching_jvm_files(const TempRootFacts& root) {
  std::vector<CleanerReach> out;
  if (!root.cleaners) return out;
  const auto& config = root.cleaners->configuration;
  const std::string temp = normalized(root.temp_dir);
  const std::string namespaces = (temp == "/" ? "" : temp) + "/hsperfdata_user/";
  const std::string sockets = (temp == "/" ? "" : temp) + "/.java_pid";
  // The temp dir as the start of a pattern of each tool.
  const std::string temp_glob = glob_literal(temp == "/" ? "" : temp);
  for (const Cleaning& c : config.cleanings) {
    CleanerReach r;
    r.cleaning = &c;
    r.backing_files = deletes_any(c, namespaces, "", false, config.tmpfiles_exclusions);
    r.attach_sockets = deletes_any(c, sockets, "", true, config.tmpfiles_exclusions);
    if (!r.backing_files && !r.attach_sockets) continue;
    const std::string ns_dir = temp_glob + "/hsperfdata_*";
    const std::string sock = temp_glob + "/.java_pid*";
    switch (c.tool) {
      case Tool::tmpfiles:
        if (r.backing_files) r.exclusion_lines.push_back("x " + tmpfiles_path_field(ns_dir));
        if (r.attach_sockets) r.exclusion_lines.push_back("x " + tmpfiles_path_field(sock));
        r.exclusion_where = "a file of /etc/tmpfiles.d/ (or hsperfguard's package: its "
                            "/usr/lib/tmpfiles.d/hsperfguard.conf keeps only the pid-named files)";
        break;
      case Tool::tmpreaper: {
        // tmpreaper protects the files a pattern finds, not what is below a directory found.
        std::vector<std::string> patterns;
        // The job splits the setting at blanks: a blank of the temp dir is matched by '?'.
        std::string blankless_ns = ns_dir + "/*";
        std::string blankless_sock = sock;
        for (std::string* s : {&blankless_ns, &blankless_sock}) {
          std::replace_if(s->begin(), s->end(), [](char ch) { return ch == ' ' || ch == '\t' || ch == '\n'; }, '?');
        }
        if (r.backing_files) patterns.push_back(blankless_ns);
        if (r.attach_sockets) patterns.push_back(blankless_sock);
        if (!c.protect_variable.empty() && !c.protect_variable_file.empty()) {
          std::string value = c.protect_variable_value;
          for (const std::string& p : patterns) value += (value.empty() ? "" : " ") + p;
          r.exclusion_lines.push_back(c.protect_variable + "=" + posix_shell_word(value));
          r.exclusion_where = c.protect_variable_file + " (in place of its " + c.protect_variable + " line)";
        } else {
          std::string options;
          for (const std::string& p : patterns) options += (options.empty() ? "" : " ") + std::string("--protect ") + posix_shell_word(p);
          r.exclusion_lines.push_back(options);
          r.exclusion_where = "the tmpreaper command of " + c.file + " line " + std::to_string(c.line);
        }
        break;
      }
      case Tool::tmpwatch: {
        std::string options;
        if (r.backing_files) options += "-X " + posix_shell_word(ns_dir);
        if (r.attach_sockets) options += std::string(options.empty() ? "" : " ") + "-X " + posix_shell_word(sock);
        r.exclusion_lines.push_back(options);
        r.exclusion_where = "the tmpwatch command of " + c.file + " line " + std::to_string(c.line);
        break;
      }
      case Tool::find: {
        std::string tests;
        if (r.backing_files) tests += "! -path " + posix_shell_word(ns_dir);
        if (r.attach_sockets) tests += std::string(tests.empty() ? "" : " ") + "! -path " + posix_shell_word(sock);
        r.exclusion_lines.push_back(tests);
        r.exclusion_where = "the find command of " + c.file + " line " + std::to_string(c.line) +
                            ", before its -delete or -exec";
        break;
      }
    }
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace hsperfguard::checks
