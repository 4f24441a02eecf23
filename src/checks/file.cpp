// file.*: one entry of a namespace, judged from its name and inode. ACLs are in acl.cpp,
// the region's contents in prologue.cpp.
#include <string>

#include "checks/checks.hpp"
#include "checks/evidence.hpp"
#include "checks/modules.hpp"
#include "model/perfdata.hpp"
#include "model/text_escape.hpp"

namespace hsperfguard::checks {
namespace {

// Readers require the size to be a multiple of the page size. 4096 is the page size of
// Linux on x86-64 and the smallest common one; JVMs on hosts with larger pages (64 KiB on
// some arm64 kernels) and on Windows (64 KiB allocation granularity) still produce
// multiples of it, so this check never flags a file a JVM wrote.
constexpr std::uint64_t kPageSize = 4096;
constexpr std::uint32_t kGroupOtherAny = 0077;
constexpr std::uint32_t kSpecialBits = 07000;

nlohmann::json name_evidence(const FileFacts& file, const TempRootFacts& root) {
  return {{"name", printable(file.name)},
          {"name_hex", to_hex(file.name)},
          {"pid_name", to_string(file.pid_name.kind)},
          {"hotspot_pid", file.pid_name.hotspot_pid},
          {"max_pid", root.max_pid}};
}

void check_name(const TempRootFacts& root, const FileFacts& file, const InodeFacts* inode,
                Findings& out) {
  // The usual case, decided before any string or evidence is built (100,000 files a run).
  if (file.pid_name.kind == PidNameKind::canonical) return;
  const std::string where = printable(file.path);
  const std::string name = printable(file.name);
  nlohmann::json evidence = name_evidence(file, root);
  if (inode != nullptr) {
    evidence["kind"] = to_string(inode->kind);
    evidence["uid"] = inode->uid;
  }
  switch (file.pid_name.kind) {
    case PidNameKind::canonical:
      return;
    case PidNameKind::not_a_pid: {
      evidence["hotspot_action"] = inode != nullptr && inode->kind == FileKind::directory
                                       ? "unlink fails, the directory stays"
                                       : "unlinked at the next start of a JVM of this user";
      out.push_back(make_finding(
          "file.foreign-name", file.path,
          "namespace entry " + where + " is not named after a pid" +
              (inode != nullptr ? " (" + std::string(describe(inode->kind)) + ")" : std::string()),
          std::move(evidence)));
      return;
    }
    case PidNameKind::out_of_range: {
      const std::int32_t hotspot_pid = file.pid_name.hotspot_pid;
      // What HotSpot's filename_to_pid makes of it: 0 (not a pid), a value above pid_max
      // (probed, gone, unlinked), or a different pid after narrowing to 32 bits.
      std::string action;
      if (hotspot_pid == 0) {
        action = "treated as not a pid and unlinked";
      } else if (hotspot_pid < 0) {
        action = "narrowed to " + std::to_string(hotspot_pid) + " by 32-bit truncation";
      } else if (static_cast<std::int64_t>(hotspot_pid) > root.max_pid) {
        action = "probed as pid " + std::to_string(hotspot_pid) + ", which cannot exist: unlinked";
      } else {
        action = "read as pid " + std::to_string(hotspot_pid) + " after 32-bit truncation";
      }
      evidence["hotspot_action"] = std::move(action);
      out.push_back(make_finding("file.pid-out-of-range", file.path,
                                 "namespace entry " + where + " is named " + name +
                                     ", a number outside the pid range 1.." +
                                     std::to_string(root.max_pid),
                                 std::move(evidence)));
      return;
    }
    case PidNameKind::noncanonical: {
      const std::int32_t pid = file.pid_name.pid.value_or(file.pid_name.hotspot_pid);
      evidence["pid"] = pid;
      evidence["canonical_name"] = pid_to_filename(pid);
      out.push_back(make_finding("file.noncanonical-pid", file.path,
                                 "namespace entry " + where + " is named " + name +
                                     ", which HotSpot and jps read as pid " + std::to_string(pid) +
                                     " although no JVM writes that name (it writes " +
                                     pid_to_filename(pid) + ")",
                                 std::move(evidence)));
      return;
    }
  }
}

void check_size(const FileFacts& file, const InodeFacts& inode, Findings& out) {
  nlohmann::json reasons = nlohmann::json::array();
  std::string why;
  const auto add = [&](std::string_view reason, const std::string& text) {
    reasons.push_back(reason);
    why += (why.empty() ? "" : ", ") + text;
  };
  if (inode.size == 0) {
    add("empty", "it is empty");
  } else {
    if (inode.size % kPageSize != 0) {
      add("not-page-multiple", "not a multiple of the " + std::to_string(kPageSize) + "-byte page");
    }
    if (inode.size > perfdata::kMaxRegionSize) {
      add("too-large", "larger than the 2 MiB a JVM can publish");
    }
  }
  if (reasons.empty()) return;
  out.push_back(make_finding("file.bad-size", file.path,
                             "backing file " + printable(file.path) + " has size " +
                                 std::to_string(inode.size) + ": " + why,
                             {{"size", inode.size},
                              {"reasons", std::move(reasons)},
                              {"page_size", kPageSize},
                              {"max_size", perfdata::kMaxRegionSize}}));
}

}  // namespace

bool has_pid_like_name(const FileFacts& file) {
  return file.pid_name.kind != PidNameKind::not_a_pid;
}

void check_file_entry(const TempRootFacts& root, const NamespaceFacts& ns, const FileFacts& file,
                      Findings& out) {
  const bool posix = root.platform == Platform::posix;
  const std::string where = printable(file.path);
  const InodeFacts* inode = judged_inode(file.opened, file.lstat);
  const bool link = is_symlink(file.opened, file.lstat);
  // For a link, the link itself: the name is what a reader or a JVM would open.
  const InodeFacts* shown = link && file.lstat ? &*file.lstat : inode;

  if (!file.errors.empty()) {
    out.push_back(make_finding("file.observation-error", file.path,
                               "namespace entry " + where + " could not be observed completely (" +
                                   std::to_string(file.errors.size()) + " error" +
                                   (file.errors.size() == 1 ? "" : "s") +
                                   ", first: " + printable(file.errors.front().op) + ": " +
                                   printable(file.errors.front().message) + ")",
                               {{"errors", errors_json(file.errors)}}));
  }

  check_name(root, file, shown, out);

  if (identities_differ(file.opened, file.lstat)) {
    out.push_back(
        make_finding("file.identity-changed", file.path,
                     "namespace entry " + where +
                         " was replaced while it was observed: lstat and the opened "
                         "file name different inodes",
                     {{"lstat", inode_json(*file.lstat)}, {"fstat", inode_json(*file.opened)}}));
  }

  if (file.crosses_mount) {
    nlohmann::json evidence = {{"namespace_dev", nullptr}};
    if (const InodeFacts* dir = judged_inode(ns.opened, ns.lstat))
      evidence["namespace_dev"] = dir->dev;
    if (shown != nullptr) evidence["dev"] = shown->dev;
    out.push_back(make_finding("file.mount-boundary", file.path,
                               "namespace entry " + where +
                                   " is on another file system than its namespace (a mount point)",
                               std::move(evidence)));
  }

  if (shown == nullptr) return;  // nothing observed about the inode: the error says why

  const auto owner = namespace_owner(ns);
  if (posix && owner && shown->uid != *owner) {
    nlohmann::json evidence = {
        {"uid", shown->uid}, {"namespace_uid", *owner}, {"kind", to_string(shown->kind)}};
    if (ns.user && ns.user->uid) evidence["expected_uid"] = *ns.user->uid;
    out.push_back(
        make_finding("file.owner-mismatch", file.path,
                     "namespace entry " + where + " is owned by uid " + std::to_string(shown->uid) +
                         ", not by the namespace owner (uid " + std::to_string(*owner) + ")",
                     std::move(evidence)));
  }

  if (link) {
    nlohmann::json evidence = {{"name", printable(file.name)}, {"lstat", inode_json(*shown)}};
    out.push_back(make_finding("file.symlink", file.path,
                               "namespace entry " + where +
                                   " is a symbolic link; no JVM creates one, and following it "
                                   "acts on another file",
                               std::move(evidence)));
    return;
  }

  // From here on: judged as a backing file, which only all-digit names can be.
  if (!has_pid_like_name(file)) return;
  if (inode->kind != FileKind::regular) {
    out.push_back(make_finding("file.not-regular", file.path,
                               "backing file " + where + " is " +
                                   std::string(describe(inode->kind)) + ", not a regular file",
                               {{"kind", to_string(inode->kind)}, {"uid", inode->uid}}));
    return;
  }

  if (inode->nlink > 1) {
    out.push_back(
        make_finding("file.hard-link", file.path,
                     "backing file " + where + " has " + std::to_string(inode->nlink) +
                         " hard links; HotSpot and its readers refuse it",
                     {{"nlink", inode->nlink}, {"dev", inode->dev}, {"ino", inode->ino}}));
  }

  if (posix) {
    if ((inode->mode & kGroupOtherAny) != 0) {
      nlohmann::json evidence = {{"expected_mode", "0600"},
                                 {"group_readable", (inode->mode & 0040) != 0},
                                 {"group_writable", (inode->mode & 0020) != 0},
                                 {"other_readable", (inode->mode & 0004) != 0},
                                 {"other_writable", (inode->mode & 0002) != 0}};
      put_mode(evidence, inode->mode);
      out.push_back(make_finding("file.mode", file.path,
                                 "backing file " + where + " has mode " + octal_mode(inode->mode) +
                                     ": group or others can access the JVM's counters (command "
                                     "line, system properties)",
                                 std::move(evidence)));
    }
    if ((inode->mode & kSpecialBits) != 0) {
      nlohmann::json evidence = {{"setuid", (inode->mode & 04000) != 0},
                                 {"setgid", (inode->mode & 02000) != 0},
                                 {"sticky", (inode->mode & 01000) != 0}};
      put_mode(evidence, inode->mode);
      out.push_back(make_finding("file.setid", file.path,
                                 "backing file " + where + " has special mode bits (mode " +
                                     octal_mode(inode->mode) + ") that no JVM sets",
                                 std::move(evidence)));
    }
  }

  check_size(file, *inode, out);
}

}  // namespace hsperfguard::checks
