#include "decide/discover.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <map>
#include <optional>
#include <string_view>
#include <utility>

namespace hsperfguard {
namespace {

void add_unique(std::vector<std::string>& list, const std::string& value, const std::string& except) {
  if (value.empty() || value == except) return;
  if (std::find(list.begin(), list.end(), value) == list.end()) list.push_back(value);
}

RootSpec container_spec(const ProcessTempDir& entry, const ContainerScan* scan) {
  RootSpec spec;
  spec.kind = RootKind::container;
  spec.root = "/proc/" + std::to_string(entry.host_pid) + "/root";
  spec.temp_dir = "/tmp";
  ContainerFacts container;
  container.host_pid = entry.host_pid;
  container.mount_namespace = entry.mount_namespace;
  container.cgroup = entry.cgroup;
  if (scan != nullptr) {
    for (const auto& p : scan->systemd_private_tmps) {
      if (p.temp_dir == entry.temp_dir) container.systemd_private_dir = p.name;
    }
  }
  spec.container = std::move(container);
  return spec;
}

// The containers (after the first root) reordered so that those whose passwd is one file (one
// version of it) come one after another, each group where its first member was and in the
// scan's order within: a run keeps a bounded number of parsed passwd files, and roots that
// alternate between two large ones would otherwise have each parsed again for every root
// (any user can make such roots). Roots whose passwd was not seen stay where they were.
std::vector<RootSpec> next_to_those_sharing_their_passwd(
    std::vector<RootSpec> specs, const std::vector<std::optional<FileVersion>>& passwd) {
  std::vector<std::vector<std::size_t>> groups;
  std::map<FileVersion, std::size_t> group_of;  // passwd version -> index in groups
  for (std::size_t i = 1; i < specs.size(); ++i) {
    if (!passwd[i]) {
      groups.push_back({i});
      continue;
    }
    const auto [it, added] = group_of.emplace(*passwd[i], groups.size());
    if (added) groups.emplace_back();
    groups[it->second].push_back(i);
  }
  std::vector<RootSpec> out;
  out.reserve(specs.size());
  if (!specs.empty()) out.push_back(std::move(specs.front()));
  for (const auto& group : groups) {
    // Every i in groups is an index of specs (the loop above), and groups is empty when
    // specs is: the out-of-bounds access cppcheck supposes cannot happen.
    // cppcheck-suppress containerOutOfBounds
    for (const std::size_t i : group) out.push_back(std::move(specs[i]));
  }
  return out;
}

// The temp dir of our own mount namespace, or the one --tmpdir or --root names.
RootSpec own_root_spec(const DiscoverOptions& options) {
  RootSpec spec;
  if (options.root) {
    // The temp dir of a foreign system is its /tmp, resolved beneath its root.
    spec.kind = RootKind::root;
    spec.root = *options.root;
    spec.temp_dir = "/tmp";
  } else if (options.tmpdir) {
    spec.kind = RootKind::tmpdir;
    spec.root = "/";
    spec.temp_dir = *options.tmpdir;
  } else {
    spec.kind = RootKind::host;
    spec.root = "/";
    spec.temp_dir = options.host_temp_dir;
  }
  return spec;
}

}  // namespace

bool wants_container_scan(const DiscoverOptions& options) {
  if (options.container_pid) return true;
  return options.containers && !options.tmpdir && !options.root;
}

ContainerScanOptions container_scan_options(const DiscoverOptions& options) {
  ContainerScanOptions out;
  out.host_temp_dir = options.host_temp_dir;
  out.focus_pid = options.container_pid;
  return out;
}

std::vector<RootSpec> discover_roots(const DiscoverOptions& options, const ContainerScan* scan) {
  std::vector<RootSpec> out;
  if (options.container_pid) {
    // Exactly that process's root. When the scan could not reach it, the spec still names
    // it, so that observation reports why.
    const ProcessTempDir* entry = nullptr;
    if (scan != nullptr) {
      for (const auto& e : scan->temp_dirs) {
        if (e.host_pid == *options.container_pid) entry = &e;
      }
    }
    ProcessTempDir fallback;
    fallback.host_pid = *options.container_pid;
    // The processes the scan could not look into are not this run's to look at (a container
    // of theirs is not the one asked for; as liveness candidates the index keeps them
    // uncertain). This one's own failure leaves its root unopened, which says so.
    out.push_back(container_spec(entry != nullptr ? *entry : fallback, scan));
    if (entry != nullptr) {
      for (const auto& e : scan->temp_dirs) {
        if (e.temp_dir == entry->temp_dir) {
          add_unique(out.front().sharing_mount_namespaces, e.mount_namespace, entry->mount_namespace);
        }
      }
    }
    return out;
  }

  if (!options.containers_only) {
    RootSpec spec = own_root_spec(options);
    if (wants_container_scan(options) && scan != nullptr) {
      spec.unobserved = scan->unobserved;
      if (spec.kind == RootKind::host) spec.own_mount_namespace = scan->own_mount_namespace;
    }
    out.push_back(std::move(spec));
  }
  if (!wants_container_scan(options) || scan == nullptr) return out;

  // Group by the temp dir's identity, in the scan's (pid) order.
  std::vector<std::pair<DirIdentity, std::size_t>> roots;  // identity -> index in out
  std::vector<std::optional<FileVersion>> passwd(out.size());  // of each root in out
  for (const auto& entry : scan->temp_dirs) {
    if (scan->host_temp_dir && entry.temp_dir == *scan->host_temp_dir) {
      if (!options.containers_only) {
        // Whatever pid namespace its first process is in: a mount namespace holds processes of
        // several (`unshare --pid --fork --mount` leaves the unshare process in ours and its
        // child in the new one), and the scan names only its first. Its processes of our pid
        // namespace have their host pid as their last NSpid field, so they add no candidate.
        add_unique(out.front().sharing_mount_namespaces, entry.mount_namespace,
                   scan->own_mount_namespace.value_or(""));
      }
      continue;
    }
    auto it = std::find_if(roots.begin(), roots.end(),
                           [&](const auto& r) { return r.first == entry.temp_dir; });
    if (it == roots.end()) {
      roots.emplace_back(entry.temp_dir, out.size());
      out.push_back(container_spec(entry, scan));
      passwd.push_back(entry.passwd);
      continue;
    }
    RootSpec& shared = out[it->second];
    add_unique(shared.sharing_mount_namespaces, entry.mount_namespace,
               shared.container->mount_namespace);
  }
  out = next_to_those_sharing_their_passwd(std::move(out), passwd);
  // Without a root of our own, the first (the node's /tmp, pid 1's) carries what the scan
  // could not look into.
  if (options.containers_only && !out.empty()) out.front().unobserved = scan->unobserved;
  return out;
}

namespace {

// `path` with repeated and trailing slashes and "." components dropped; nullopt when it is not
// absolute or has a ".." component (which only the file system can resolve: not looked at).
std::optional<std::string> lexically_normal(std::string_view path) {
  if (!path.starts_with('/')) return std::nullopt;
  std::string out;
  std::size_t at = 0;
  while (at < path.size()) {
    while (at < path.size() && path[at] == '/') ++at;
    const std::size_t end = std::min(path.find('/', at), path.size());
    const std::string_view part = path.substr(at, end - at);
    if (part == "..") return std::nullopt;
    if (!part.empty() && part != ".") out.append("/").append(part);
    at = end;
  }
  return out.empty() ? std::string("/") : out;
}

}  // namespace

bool host_view(const DiscoverOptions& options) {
  return !options.tmpdir && !options.root && !options.container_pid && !options.containers_only;
}

std::vector<RootSpec> alt_temp_dir_roots(const DiscoverOptions& options, const std::vector<RootSpec>& specs,
                                         const std::vector<JvmProcessFacts>& jvms) {
  if (!host_view(options)) return {};
  std::map<std::string, std::int32_t> named;  // path -> lowest pid naming it
  for (const auto& jvm : jvms) {
    if (!jvm.in_own_mount_namespace || !jvm.alt_temp_dir || !jvm.alt_temp_dir->absolute()) continue;
    const auto path = lexically_normal(jvm.alt_temp_dir->path);
    if (!path) continue;
    const bool known = std::any_of(specs.begin(), specs.end(), [&](const RootSpec& spec) {
      return (spec.kind == RootKind::host || spec.kind == RootKind::tmpdir) && lexically_normal(spec.temp_dir) == path;
    });
    if (known) continue;
    auto [it, inserted] = named.try_emplace(*path, jvm.process.pid);
    if (!inserted) it->second = std::min(it->second, jvm.process.pid);
  }
  std::vector<RootSpec> out;
  for (auto& [path, pid] : named) {
    RootSpec& spec = out.emplace_back();
    spec.kind = RootKind::alt_temp_dir;
    spec.root = "/";
    spec.temp_dir = path;
    spec.alt_temp_dir_pid = pid;
  }
  return out;
}

std::vector<RootSpec> account_temp_dir_roots(const DiscoverOptions& options, const std::vector<RootSpec>& specs,
                                             const AccountTempDirs& dirs, const std::optional<std::string>& user) {
  if (!host_view(options)) return {};
  auto folded = [](std::string_view path) {
    std::string out;
    for (const char c : path) out.push_back(c == '/' ? '\\' : static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    while (out.size() > 3 && out.back() == '\\') out.pop_back();
    return out;
  };
  std::vector<std::string> paths;
  paths.reserve(specs.size() + dirs.dirs.size());
  for (const auto& spec : specs) paths.push_back(folded(spec.temp_dir));
  std::vector<DirIdentity> identities;
  if (dirs.host_temp_dir) identities.push_back(*dirs.host_temp_dir);
  std::vector<RootSpec> out;
  for (const auto& dir : dirs.dirs) {
    if (user && folded(dir.account.name) != folded(*user)) continue;
    const std::string path = folded(dir.path);
    if (std::find(paths.begin(), paths.end(), path) != paths.end()) continue;
    if (dir.identity && std::find(identities.begin(), identities.end(), *dir.identity) != identities.end()) continue;
    paths.push_back(path);
    if (dir.identity) identities.push_back(*dir.identity);
    RootSpec& spec = out.emplace_back();
    spec.kind = RootKind::account_temp_dir;
    spec.root = "/";
    spec.temp_dir = dir.path;
    spec.account = dir.account;
  }
  return out;
}

bool container_vanished(const TempRootFacts& root) {
  if (root.opened || root.errors.empty()) return false;
  return container_gone(root, root.errors.front());
}

bool container_gone(const TempRootFacts& root, const ObservationError& error) {
  return root.kind == RootKind::container && error.path == root.root &&
         (error.code == ENOENT || error.code == ESRCH);
}

}  // namespace hsperfguard
