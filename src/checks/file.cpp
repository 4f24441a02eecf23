// file.*: one entry of a namespace, judged from its name, its inode, its ACL, its contents
// and (file.stale, file.pid-reused) its liveness verdict. file.compressed, a Windows
// attribute, is in windows.cpp.
#include <string>

#include "checks/acl.hpp"
#include "checks/evidence.hpp"
#include "checks/rules.hpp"
#include "model/perfdata.hpp"
#include "model/prologue_json.hpp"
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

nlohmann::json name_evidence(const TempRootFacts& root, const FileFacts& file) {
  nlohmann::json evidence = {{"name", printable(file.name)},
                             {"name_hex", to_hex(file.name)},
                             {"pid_name", to_string(file.pid_name.kind)},
                             {"hotspot_pid", file.pid_name.hotspot_pid},
                             {"max_pid", root.max_pid}};
  if (const InodeFacts* inode = shown_inode(file)) {
    evidence["kind"] = to_string(inode->kind);
    evidence["uid"] = inode->uid;
  }
  return evidence;
}

// A file.stale or file.pid-reused finding: only the values that settled the verdict
// (explain_liveness_brief's evidence, whose lock is its state alone); a full evidence,
// should one be given, is cut down to them. The full evidence is reported once, under the
// file's verdict.
Finding verdict_finding(std::string_view rule, const FileFacts& file, LivenessVerdict& verdict) {
  nlohmann::json evidence = std::move(verdict.evidence);
  if (!evidence.is_object()) evidence = nlohmann::json::object();
  for (auto it = evidence.begin(); it != evidence.end();) {
    const std::string& key = it.key();
    if (key == "decided_by" || key == "decided_by_pid" || key == "would_be" || key == "lock" ||
        key == "vm_begin_time_ms") {
      ++it;
    } else {
      it = evidence.erase(it);
    }
  }
  if (const auto lock = evidence.find("lock"); lock != evidence.end() && lock->is_object()) {
    *lock = lock->value("state", "unknown");
  }
  evidence["verdict"] = to_string(verdict.verdict);
  evidence["reason"] = std::move(verdict.reason);
  return make_finding(rule, file.path, std::move(verdict.message), std::move(evidence));
}

}  // namespace

bool has_pid_like_name(const FileFacts& file) {
  return file.pid_name.kind != PidNameKind::not_a_pid;
}

const InodeFacts* shown_inode(const FileFacts& file) {
  if (is_symlink(file.opened, file.lstat) && file.lstat) return &*file.lstat;
  return judged_inode(file.opened, file.lstat);
}

const InodeFacts* backing_inode(const FileFacts& file) {
  if (is_symlink(file.opened, file.lstat) || !has_pid_like_name(file)) return nullptr;
  const InodeFacts* inode = judged_inode(file.opened, file.lstat);
  return inode != nullptr && inode->kind == FileKind::regular ? inode : nullptr;
}

void file_observation_error(const TempRootFacts& /*root*/, const NamespaceFacts& /*ns*/,
                            const FileFacts& file, Findings& out) {
  if (file.errors.empty()) return;
  out.push_back(observation_error_finding("file.observation-error", "namespace entry", file.path,
                                          file.errors));
}

// The name rules. A canonical name, the usual case, is decided before any string or
// evidence is built (100,000 files a run).
void file_foreign_name(const TempRootFacts& root, const NamespaceFacts& /*ns*/,
                       const FileFacts& file, Findings& out) {
  if (file.pid_name.kind != PidNameKind::not_a_pid) return;
  const InodeFacts* inode = shown_inode(file);
  nlohmann::json evidence = name_evidence(root, file);
  evidence["hotspot_action"] = inode != nullptr && inode->kind == FileKind::directory
                                   ? "unlink fails, the directory stays"
                                   : "unlinked at the next start of a JVM of this user";
  out.push_back(make_finding(
      "file.foreign-name", file.path,
      "namespace entry " + printable(file.path) + " is not named after a pid" +
          (inode != nullptr ? " (" + std::string(describe(inode->kind)) + ")" : std::string()),
      std::move(evidence)));
}

void file_pid_out_of_range(const TempRootFacts& root, const NamespaceFacts& /*ns*/,
                           const FileFacts& file, Findings& out) {
  if (file.pid_name.kind != PidNameKind::out_of_range) return;
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
  nlohmann::json evidence = name_evidence(root, file);
  evidence["hotspot_action"] = std::move(action);
  out.push_back(make_finding("file.pid-out-of-range", file.path,
                             "namespace entry " + printable(file.path) + " is named " +
                                 printable(file.name) + ", a number outside the pid range 1.." +
                                 std::to_string(root.max_pid),
                             std::move(evidence)));
}

void file_noncanonical_pid(const TempRootFacts& root, const NamespaceFacts& /*ns*/,
                           const FileFacts& file, Findings& out) {
  if (file.pid_name.kind != PidNameKind::noncanonical) return;
  const std::int32_t pid = file.pid_name.pid.value_or(file.pid_name.hotspot_pid);
  nlohmann::json evidence = name_evidence(root, file);
  evidence["pid"] = pid;
  evidence["canonical_name"] = pid_to_filename(pid);
  out.push_back(
      make_finding("file.noncanonical-pid", file.path,
                   "namespace entry " + printable(file.path) + " is named " + printable(file.name) +
                       ", which HotSpot and jps read as pid " + std::to_string(pid) +
                       " although no JVM writes that name (it writes " + pid_to_filename(pid) + ")",
                   std::move(evidence)));
}

void file_identity_changed(const TempRootFacts& /*root*/, const NamespaceFacts& /*ns*/,
                           const FileFacts& file, Findings& out) {
  if (!identities_differ(file.opened, file.lstat)) return;
  out.push_back(
      make_finding("file.identity-changed", file.path,
                   "namespace entry " + printable(file.path) +
                       " was replaced while it was observed: lstat and the opened "
                       "file name different inodes",
                   {{"lstat", inode_json(*file.lstat)}, {"fstat", inode_json(*file.opened)}}));
}

void file_mount_boundary(const TempRootFacts& /*root*/, const NamespaceFacts& ns,
                         const FileFacts& file, Findings& out) {
  if (!file.crosses_mount) return;
  nlohmann::json evidence = {{"namespace_dev", nullptr}};
  if (const InodeFacts* dir = judged_inode(ns.opened, ns.lstat))
    evidence["namespace_dev"] = dir->dev;
  if (const InodeFacts* shown = shown_inode(file)) evidence["dev"] = shown->dev;
  out.push_back(make_finding("file.mount-boundary", file.path,
                             "namespace entry " + printable(file.path) +
                                 " is on another file system than its namespace (a mount point)",
                             std::move(evidence)));
}

void file_owner_mismatch(const TempRootFacts& root, const NamespaceFacts& ns, const FileFacts& file,
                         Findings& out) {
  const InodeFacts* shown = shown_inode(file);
  const auto owner = namespace_owner(ns);
  if (!posix(root) || shown == nullptr || !owner || shown->uid == *owner) return;
  nlohmann::json evidence = {
      {"uid", shown->uid}, {"namespace_uid", *owner}, {"kind", to_string(shown->kind)}};
  if (ns.user && ns.user->uid) evidence["expected_uid"] = *ns.user->uid;
  out.push_back(make_finding("file.owner-mismatch", file.path,
                             "namespace entry " + printable(file.path) + " is owned by uid " +
                                 std::to_string(shown->uid) + ", not by the namespace owner (uid " +
                                 std::to_string(*owner) + ")",
                             std::move(evidence)));
}

void file_symlink(const TempRootFacts& /*root*/, const NamespaceFacts& /*ns*/,
                  const FileFacts& file, Findings& out) {
  const InodeFacts* shown = shown_inode(file);
  if (shown == nullptr || !is_symlink(file.opened, file.lstat)) return;
  nlohmann::json evidence = {{"name", printable(file.name)}, {"lstat", inode_json(*shown)}};
  // Where it points (as read, never followed): what a JVM or a clean-up job would have acted on.
  if (file.link_target) evidence["target"] = printable(*file.link_target);
  out.push_back(make_finding("file.symlink", file.path,
                             "namespace entry " + printable(file.path) +
                                 " is a symbolic link; no JVM creates one, and following it "
                                 "acts on another file",
                             std::move(evidence)));
}

// From here on: judged as a backing file, which only all-digit names that are no link can be.
void file_not_regular(const TempRootFacts& /*root*/, const NamespaceFacts& /*ns*/,
                      const FileFacts& file, Findings& out) {
  if (is_symlink(file.opened, file.lstat) || !has_pid_like_name(file)) return;
  const InodeFacts* inode = judged_inode(file.opened, file.lstat);
  if (inode == nullptr || inode->kind == FileKind::regular) return;
  out.push_back(make_finding("file.not-regular", file.path,
                             "backing file " + printable(file.path) + " is " +
                                 std::string(describe(inode->kind)) + ", not a regular file",
                             {{"kind", to_string(inode->kind)}, {"uid", inode->uid}}));
}

void file_hard_link(const TempRootFacts& /*root*/, const NamespaceFacts& /*ns*/,
                    const FileFacts& file, Findings& out) {
  const InodeFacts* inode = backing_inode(file);
  if (inode == nullptr || inode->nlink <= 1) return;
  out.push_back(make_finding("file.hard-link", file.path,
                             "backing file " + printable(file.path) + " has " +
                                 std::to_string(inode->nlink) +
                                 " hard links; HotSpot and its readers refuse it",
                             {{"nlink", inode->nlink}, {"dev", inode->dev}, {"ino", inode->ino}}));
}

void file_mode(const TempRootFacts& root, const NamespaceFacts& /*ns*/, const FileFacts& file,
               Findings& out) {
  const InodeFacts* inode = backing_inode(file);
  if (inode == nullptr || !posix(root) || (inode->mode & kGroupOtherAny) == 0) return;
  nlohmann::json evidence = {{"expected_mode", "0600"},
                             {"group_readable", (inode->mode & 0040) != 0},
                             {"group_writable", (inode->mode & 0020) != 0},
                             {"other_readable", (inode->mode & 0004) != 0},
                             {"other_writable", (inode->mode & 0002) != 0}};
  put_mode(evidence, inode->mode);
  out.push_back(make_finding("file.mode", file.path,
                             "backing file " + printable(file.path) + " has mode " +
                                 octal_mode(inode->mode) +
                                 ": group or others can access the JVM's counters (command "
                                 "line, system properties)",
                             std::move(evidence)));
}

void file_setid(const TempRootFacts& root, const NamespaceFacts& /*ns*/, const FileFacts& file,
                Findings& out) {
  const InodeFacts* inode = backing_inode(file);
  if (inode == nullptr || !posix(root) || (inode->mode & kSpecialBits) == 0) return;
  nlohmann::json evidence = {{"setuid", (inode->mode & 04000) != 0},
                             {"setgid", (inode->mode & 02000) != 0},
                             {"sticky", (inode->mode & 01000) != 0}};
  put_mode(evidence, inode->mode);
  out.push_back(make_finding("file.setid", file.path,
                             "backing file " + printable(file.path) +
                                 " has special mode bits (mode " + octal_mode(inode->mode) +
                                 ") that no JVM sets",
                             std::move(evidence)));
}

void file_bad_size(const TempRootFacts& /*root*/, const NamespaceFacts& /*ns*/,
                   const FileFacts& file, Findings& out) {
  const InodeFacts* inode = backing_inode(file);
  if (inode == nullptr) return;
  nlohmann::json reasons = nlohmann::json::array();
  std::string why;
  const auto add = [&](std::string_view reason, const std::string& text) {
    reasons.push_back(reason);
    why += (why.empty() ? "" : ", ") + text;
  };
  if (inode->size == 0) {
    add("empty", "it is empty");
  } else {
    if (inode->size % kPageSize != 0) {
      add("not-page-multiple", "not a multiple of the " + std::to_string(kPageSize) + "-byte page");
    }
    if (inode->size > perfdata::kMaxRegionSize)
      add("too-large", "larger than the 2 MiB a JVM can publish");
  }
  if (reasons.empty()) return;
  out.push_back(make_finding("file.bad-size", file.path,
                             "backing file " + printable(file.path) + " has size " +
                                 std::to_string(inode->size) + ": " + why,
                             {{"size", inode->size},
                              {"reasons", std::move(reasons)},
                              {"page_size", kPageSize},
                              {"max_size", perfdata::kMaxRegionSize}}));
}

// An extended ACL on a backing-file candidate (one not observed counts: its ACL was read).
void file_acl(const TempRootFacts& root, const NamespaceFacts& /*ns*/, const FileFacts& file,
              Findings& out) {
  if (!posix(root) || !file.access_acl || !file.access_acl->extended() || !has_pid_like_name(file))
    return;
  if (is_symlink(file.opened, file.lstat)) return;
  const InodeFacts* inode = judged_inode(file.opened, file.lstat);
  if (inode != nullptr && inode->kind != FileKind::regular) return;
  const PosixAcl& access = *file.access_acl;
  const std::optional<std::uint32_t> owner =
      inode != nullptr ? std::optional<std::uint32_t>(inode->uid) : std::nullopt;
  const auto grants = acl::grants_to_others(access, acl::kAll, owner);
  nlohmann::json evidence = {{"acl", acl::acl_json(access)},
                             {"grants_beyond_owner", acl::grants_json(grants)}};
  acl::put_mask(evidence, access);
  std::string message = "backing file " + printable(file.path) + " has an extended ACL";
  message += grants.empty() ? " (no entry currently grants access beyond the owner)"
                            : " giving access beyond its owner: " + acl::describe_grants(grants);
  out.push_back(make_finding("file.acl", file.path, std::move(message), std::move(evidence)));
}

// The contents, as perfdata::parse_region read them.
void file_bad_prologue(const TempRootFacts& /*root*/, const NamespaceFacts& /*ns*/,
                       const FileFacts& file, Findings& out) {
  if (!file.region || !file.region->region.error || !has_pid_like_name(file)) return;
  if (is_symlink(file.opened, file.lstat)) return;
  const InodeFacts* inode = judged_inode(file.opened, file.lstat);
  if (inode != nullptr && inode->kind != FileKind::regular) return;
  // An empty file has nothing to parse; file.bad-size already says it is empty.
  if (inode != nullptr && inode->size == 0 && file.region->bytes_read == 0) return;

  const perfdata::Region& region = file.region->region;
  const perfdata::ParseError& error = *region.error;
  nlohmann::json evidence = {{"offset", error.offset},
                             {"reason", printable(error.reason)},
                             {"bytes_read", file.region->bytes_read},
                             {"region_size", region.size},
                             {"entries_decoded", region.entries.size()},
                             {"walk_end", region.walk_end}};
  evidence["prologue"] = region.prologue ? prologue_json(*region.prologue) : nlohmann::json();
  std::string message = "backing file " + printable(file.path) +
                        " is not a valid PerfData region: " + printable(error.reason) +
                        " at offset " + std::to_string(error.offset);
  if (region.prologue && region.prologue->accessible == 0) {
    message += " (the region is marked not yet accessible: a JVM may still be initialising it)";
  }
  out.push_back(
      make_finding("file.bad-prologue", file.path, std::move(message), std::move(evidence)));
}

void file_stale(const NamespaceFacts& /*ns*/, const FileFacts& file, LivenessVerdict& verdict,
                Findings& out) {
  if (verdict.verdict == Verdict::stale)
    out.push_back(verdict_finding("file.stale", file, verdict));
}

void file_pid_reused(const NamespaceFacts& /*ns*/, const FileFacts& file, LivenessVerdict& verdict,
                     Findings& out) {
  if (verdict.verdict == Verdict::pid_reused)
    out.push_back(verdict_finding("file.pid-reused", file, verdict));
}

}  // namespace hsperfguard::checks
