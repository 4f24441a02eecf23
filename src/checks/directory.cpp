// namespace.*: the hsperfdata_<user> directory itself (kind, mode, owner, user, identity,
// mount) and the JVMs its state blinds. ACL rules are in acl.cpp, volume rules in volume.cpp.
#include <string>

#include "checks/checks.hpp"
#include "checks/evidence.hpp"
#include "checks/invisible.hpp"
#include "checks/modules.hpp"
#include "checks/publication.hpp"

namespace hsperfguard::checks {
namespace {

constexpr std::uint32_t kGroupOtherWrite = 0022;
constexpr std::uint32_t kGroupOtherAny = 0077;

bool all_digits(std::string_view text) {
  if (text.empty()) return false;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

nlohmann::json namespace_evidence(const NamespaceFacts& ns) {
  nlohmann::json evidence = {{"name", printable(ns.name)}, {"user", printable(ns.user_suffix)}};
  if (ns.lstat) evidence["lstat"] = inode_json(*ns.lstat);
  if (ns.opened) evidence["fstat"] = inode_json(*ns.opened);
  return evidence;
}

// The uid the namespace's name says should own it, when the user database knows it.
std::optional<std::uint32_t> expected_uid(const NamespaceFacts& ns) {
  return ns.user ? ns.user->uid : std::nullopt;
}

}  // namespace

std::optional<std::uint32_t> namespace_owner(const NamespaceFacts& ns) {
  const InodeFacts* inode = judged_inode(ns.opened, ns.lstat);
  if (inode == nullptr || inode->kind != FileKind::directory) return std::nullopt;
  return inode->uid;
}

void check_namespace_directory(const TempRootFacts& root, const NamespaceFacts& ns, Findings& out) {
  const bool posix = root.platform == Platform::posix;
  const std::string where = printable(ns.path);

  if (!ns.errors.empty()) {
    out.push_back(make_finding("namespace.observation-error", ns.path,
                               "namespace " + where + " could not be observed completely (" +
                                   std::to_string(ns.errors.size()) + " error" +
                                   (ns.errors.size() == 1 ? "" : "s") +
                                   ", first: " + printable(ns.errors.front().op) + ": " +
                                   printable(ns.errors.front().message) + ")",
                               {{"errors", errors_json(ns.errors)}}));
  }

  if (!ns.identity_matches || identities_differ(ns.opened, ns.lstat)) {
    nlohmann::json evidence = namespace_evidence(ns);
    evidence["identity_matches"] = ns.identity_matches;
    out.push_back(make_finding("namespace.identity-changed", ns.path,
                               "namespace " + where +
                                   " was replaced while it was observed: lstat and the opened "
                                   "directory name different inodes",
                               std::move(evidence)));
  }

  const InodeFacts* inode = judged_inode(ns.opened, ns.lstat);
  if (is_symlink(ns.opened, ns.lstat)) {
    // On Windows every reparse point looks like a link; namespace.reparse-point of the
    // Windows module reports those with their attributes.
    if (posix) {
      nlohmann::json evidence = namespace_evidence(ns);
      evidence["link_owner_uid"] = ns.lstat ? nlohmann::json(ns.lstat->uid) : nlohmann::json();
      out.push_back(make_finding("namespace.symlink", ns.path,
                                 "namespace " + where +
                                     " is a symbolic link; HotSpot refuses it and the user's JVMs "
                                     "run without shared performance data",
                                 std::move(evidence)));
    }
    inode = nullptr;  // nothing below judges a link
  } else if (inode != nullptr && inode->kind != FileKind::directory) {
    nlohmann::json evidence = namespace_evidence(ns);
    evidence["kind"] = to_string(inode->kind);
    evidence["owner_uid"] = inode->uid;
    // hsperfdata_<pid> regular files are what JVMs wrote before per-user directories.
    const bool legacy = inode->kind == FileKind::regular && all_digits(ns.user_suffix);
    evidence["legacy_backing_file"] = legacy;
    std::string message = "namespace " + where + " is " + std::string(describe(inode->kind)) +
                          ", not a directory; HotSpot refuses it";
    if (legacy) message += " (it looks like a backing file left by a very old JVM)";
    out.push_back(
        make_finding("namespace.not-directory", ns.path, std::move(message), std::move(evidence)));
    inode = nullptr;
  }

  // Name and user: judged for directories only (a link or a file has its finding above).
  const bool directory = inode != nullptr;
  if (directory && ns.user_lookup_failed) {
    out.push_back(make_finding("namespace.user-lookup-failed", ns.path,
                               "the user database could not be read, so the owner of namespace " +
                                   where + " could not be checked against user " +
                                   printable(ns.user_suffix),
                               {{"user", printable(ns.user_suffix)}, {"owner_uid", inode->uid}}));
  } else if (directory && !ns.user) {
    out.push_back(make_finding(
        "namespace.unknown-user", ns.path,
        "namespace " + where + " names user " + printable(ns.user_suffix) +
            ", who does not exist on this system: squatted or orphaned (owned by uid " +
            std::to_string(inode->uid) + ")",
        {{"user", printable(ns.user_suffix)}, {"owner_uid", inode->uid}}));
  }

  if (directory && posix) {
    const std::uint32_t mode = inode->mode;
    if ((mode & kGroupOtherWrite) != 0) {
      nlohmann::json evidence = {{"source", inode_source(ns.opened)}, {"owner_uid", inode->uid}};
      put_mode(evidence, mode);
      evidence["group_writable"] = (mode & 0020) != 0;
      evidence["other_writable"] = (mode & 0002) != 0;
      evidence["sticky"] = (mode & 01000) != 0;
      out.push_back(make_finding("namespace.group-other-writable", ns.path,
                                 "namespace " + where + " is writable by " +
                                     ((mode & 0020) && (mode & 0002) ? "group and others"
                                      : (mode & 0020)                ? "its group"
                                                                     : "others") +
                                     " (mode " + octal_mode(mode) + "); HotSpot refuses it",
                                 std::move(evidence)));
    }
    if ((mode & kGroupOtherAny) != 0) {
      nlohmann::json evidence = {{"source", inode_source(ns.opened)}};
      put_mode(evidence, mode);
      out.push_back(make_finding("namespace.not-private", ns.path,
                                 "namespace " + where + " is accessible to group or others (mode " +
                                     octal_mode(mode) + "); other users can list its JVMs",
                                 std::move(evidence)));
    }

    const auto expected = expected_uid(ns);
    if (expected && inode->uid != *expected) {
      const bool owner_is_root = inode->uid == 0;
      nlohmann::json evidence = {{"user", printable(ns.user_suffix)},
                                 {"owner_uid", inode->uid},
                                 {"expected_uid", *expected},
                                 {"owner_is_root", owner_is_root},
                                 {"source", inode_source(ns.opened)}};
      std::string message = "namespace " + where + " is owned by uid " +
                            std::to_string(inode->uid) + ", not by " + printable(ns.user_suffix) +
                            " (uid " + std::to_string(*expected) + ")";
      // HotSpot skips its owner check only when the JVM itself runs as root (JDK-8075773):
      // root's own namespace is no refusal, and has a rule of its own.
      const bool hotspot_accepts = *expected == 0;
      evidence["hotspot_accepts"] = hotspot_accepts;
      if (hotspot_accepts) {
        evidence["note"] =
            "JVMs running as root accept a namespace of any owner (JDK-8075773): this owner "
            "controls root's backing files";
        message += "; root's JVMs accept it anyway, so that owner controls their backing files";
        out.push_back(make_finding("namespace.root-owner-mismatch", ns.path, std::move(message),
                                   std::move(evidence)));
      } else if (owner_is_root) {
        evidence["note"] =
            "HotSpot accepts a namespace of another owner only when the JVM itself runs as root "
            "(JDK-8075773); JVMs running as the named user refuse this directory";
        message += "; root ownership does not help: the user's JVMs refuse it";
      } else {
        message += "; the user's JVMs refuse it, and its owner controls what is in it";
      }
      if (!hotspot_accepts) {
        out.push_back(make_finding("namespace.owner-mismatch", ns.path, std::move(message),
                                   std::move(evidence)));
      }
    }
  }

  if (ns.crosses_mount) {
    nlohmann::json evidence = namespace_evidence(ns);
    if (root.opened || root.lstat) {
      evidence["temp_dir_dev"] = judged_inode(root.opened, root.lstat)->dev;
    }
    out.push_back(make_finding(
        "namespace.mount-boundary", ns.path,
        "namespace " + where + " is on another file system than its temp dir (a mount point)",
        std::move(evidence)));
  }

  // The invisible JVMs that HotSpot's refusal of this namespace explains.
  nlohmann::json pids = nlohmann::json::array();
  for (const auto& jvm : ns.invisible_jvms) {
    if (diagnose_invisible(jvm, root, &ns).cause == InvisibleCause::namespace_refused) pids.push_back(jvm.process.pid);
  }
  if (!pids.empty()) {
    out.push_back(make_finding(
        "namespace.jvm-blinded", ns.path,
        std::to_string(pids.size()) + " live JVM" + (pids.size() == 1 ? " runs" : "s run") +
            " without shared performance data because HotSpot refuses namespace " + where,
        {{"pids", std::move(pids)}, {"hotspot_rejects", predict_publication(root, ns).refusals}}));
  }
}

}  // namespace hsperfguard::checks
