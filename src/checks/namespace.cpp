// namespace.*: the hsperfdata_<user> directory itself (kind, mode, owner, user, identity,
// mount, ACLs), whether a JVM starting now could publish in it, and the JVMs its state
// blinds. namespace.reparse-point, a Windows refusal, is in windows.cpp.
#include <string>

#include "checks/acl.hpp"
#include "checks/evidence.hpp"
#include "checks/invisible.hpp"
#include "checks/publication.hpp"
#include "checks/rules.hpp"
#include "model/digits.hpp"

namespace hsperfguard::checks {
namespace {

constexpr std::uint32_t kGroupOtherWrite = 0022;
constexpr std::uint32_t kGroupOtherAny = 0077;

nlohmann::json namespace_evidence(const NamespaceFacts& ns) {
  nlohmann::json evidence = {{"name", printable(ns.name)}, {"user", printable(ns.user_suffix)}};
  if (ns.lstat) evidence["lstat"] = inode_json(*ns.lstat);
  if (ns.opened) evidence["fstat"] = inode_json(*ns.opened);
  return evidence;
}

// The owner the name asks for and the one it has, when they differ on a POSIX directory.
struct OwnerMismatch {
  std::uint32_t owner = 0;
  std::uint32_t expected = 0;
};
std::optional<OwnerMismatch> owner_mismatch(const TempRootFacts& root, const NamespaceFacts& ns) {
  const InodeFacts* dir = namespace_directory(ns);
  if (dir == nullptr || !posix(root) || !ns.user || !ns.user->uid || dir->uid == *ns.user->uid)
    return std::nullopt;
  return OwnerMismatch{dir->uid, *ns.user->uid};
}

nlohmann::json owner_evidence(const NamespaceFacts& ns, const OwnerMismatch& m) {
  return {{"user", printable(ns.user_suffix)},
          {"owner_uid", m.owner},
          {"expected_uid", m.expected},
          {"owner_is_root", m.owner == 0},
          {"source", inode_source(ns.opened)},
          // HotSpot skips its owner check only when the JVM itself runs as root (JDK-8075773).
          {"hotspot_accepts", m.expected == 0}};
}

std::string owner_message(const NamespaceFacts& ns, const OwnerMismatch& m) {
  return "namespace " + printable(ns.path) + " is owned by uid " + std::to_string(m.owner) +
         ", not by " + printable(ns.user_suffix) + " (uid " + std::to_string(m.expected) + ")";
}

// ---- the publication prediction: what a JVM starting now would meet -----------------------

bool has(const std::vector<std::string>& causes, std::string_view cause) {
  for (const auto& c : causes) {
    if (c == cause) return true;
  }
  return false;
}

// The prediction, when it has create failures (POSIX only).
const PublicationPrediction* failing_prediction(const PredictionSubject& s) {
  if (!posix(s.root) || s.prediction.create_failures.empty()) return nullptr;
  return &s.prediction;
}

nlohmann::json namespace_prediction_evidence(const TempRootFacts& root, const NamespaceFacts& ns,
                                             const PublicationPrediction& p) {
  return prediction_evidence(p, ns.volume ? ns.volume : root.volume);
}

// A minimal ACL (three entries) is the mode bits themselves: namespace.group-other-writable
// already judges those. A link or a non-directory has its own finding; its ACLs are not the
// namespace's.
bool acl_judged(const TempRootFacts& root, const NamespaceFacts& ns) {
  if (!posix(root) || is_symlink(ns.opened, ns.lstat)) return false;
  const InodeFacts* inode = judged_inode(ns.opened, ns.lstat);
  return inode == nullptr || inode->kind == FileKind::directory;
}

}  // namespace

std::optional<std::uint32_t> namespace_owner(const NamespaceFacts& ns) {
  const InodeFacts* inode = judged_inode(ns.opened, ns.lstat);
  if (inode == nullptr || inode->kind != FileKind::directory) return std::nullopt;
  return inode->uid;
}

const InodeFacts* namespace_directory(const NamespaceFacts& ns) {
  if (is_symlink(ns.opened, ns.lstat)) return nullptr;
  const InodeFacts* inode = judged_inode(ns.opened, ns.lstat);
  return inode != nullptr && inode->kind == FileKind::directory ? inode : nullptr;
}

void namespace_observation_error(const TempRootFacts& /*root*/, const NamespaceFacts& ns,
                                 Findings& out) {
  if (ns.errors.empty()) return;
  out.push_back(
      observation_error_finding("namespace.observation-error", "namespace", ns.path, ns.errors));
}

void namespace_identity_changed(const TempRootFacts& /*root*/, const NamespaceFacts& ns,
                                Findings& out) {
  if (ns.identity_matches && !identities_differ(ns.opened, ns.lstat)) return;
  nlohmann::json evidence = namespace_evidence(ns);
  evidence["identity_matches"] = ns.identity_matches;
  out.push_back(make_finding("namespace.identity-changed", ns.path,
                             "namespace " + printable(ns.path) +
                                 " was replaced while it was observed: lstat and the opened "
                                 "directory name different inodes",
                             std::move(evidence)));
}

void namespace_symlink(const TempRootFacts& root, const NamespaceFacts& ns, Findings& out) {
  // On Windows every reparse point looks like a link; namespace.reparse-point reports those
  // with their attributes.
  if (!posix(root) || !is_symlink(ns.opened, ns.lstat)) return;
  nlohmann::json evidence = namespace_evidence(ns);
  evidence["link_owner_uid"] = ns.lstat ? nlohmann::json(ns.lstat->uid) : nlohmann::json();
  // Where it points (as read, never followed): the directory the user's JVMs would have used.
  if (ns.link_target) evidence["target"] = printable(*ns.link_target);
  out.push_back(make_finding("namespace.symlink", ns.path,
                             "namespace " + printable(ns.path) +
                                 " is a symbolic link; HotSpot refuses it and the user's JVMs "
                                 "run without shared performance data",
                             std::move(evidence)));
}

void namespace_not_directory(const TempRootFacts& /*root*/, const NamespaceFacts& ns,
                             Findings& out) {
  if (is_symlink(ns.opened, ns.lstat)) return;
  const InodeFacts* inode = judged_inode(ns.opened, ns.lstat);
  if (inode == nullptr || inode->kind == FileKind::directory) return;
  nlohmann::json evidence = namespace_evidence(ns);
  evidence["kind"] = to_string(inode->kind);
  evidence["owner_uid"] = inode->uid;
  // hsperfdata_<pid> regular files are what JVMs wrote before per-user directories.
  const bool legacy = inode->kind == FileKind::regular && all_digits(ns.user_suffix);
  evidence["legacy_backing_file"] = legacy;
  std::string message = "namespace " + printable(ns.path) + " is " +
                        std::string(describe(inode->kind)) +
                        ", not a directory; HotSpot refuses it";
  if (legacy) message += " (it looks like a backing file left by a very old JVM)";
  out.push_back(
      make_finding("namespace.not-directory", ns.path, std::move(message), std::move(evidence)));
}

// Name and user are judged for directories only (a link or a file has its finding above).
void namespace_user_lookup_failed(const TempRootFacts& /*root*/, const NamespaceFacts& ns,
                                  Findings& out) {
  const InodeFacts* dir = namespace_directory(ns);
  if (dir == nullptr || !ns.user_lookup_failed) return;
  out.push_back(make_finding("namespace.user-lookup-failed", ns.path,
                             "the user database could not be read, so the owner of namespace " +
                                 printable(ns.path) + " could not be checked against user " +
                                 printable(ns.user_suffix),
                             {{"user", printable(ns.user_suffix)}, {"owner_uid", dir->uid}}));
}

void namespace_unknown_user(const TempRootFacts& /*root*/, const NamespaceFacts& ns,
                            Findings& out) {
  const InodeFacts* dir = namespace_directory(ns);
  if (dir == nullptr || ns.user_lookup_failed || ns.user) return;
  out.push_back(
      make_finding("namespace.unknown-user", ns.path,
                   "namespace " + printable(ns.path) + " names user " + printable(ns.user_suffix) +
                       ", who does not exist on this system: squatted or orphaned (owned by uid " +
                       std::to_string(dir->uid) + ")",
                   {{"user", printable(ns.user_suffix)}, {"owner_uid", dir->uid}}));
}

void namespace_group_other_writable(const TempRootFacts& root, const NamespaceFacts& ns,
                                    Findings& out) {
  const InodeFacts* dir = namespace_directory(ns);
  if (dir == nullptr || !posix(root) || (dir->mode & kGroupOtherWrite) == 0) return;
  const std::uint32_t mode = dir->mode;
  nlohmann::json evidence = {{"source", inode_source(ns.opened)}, {"owner_uid", dir->uid}};
  put_mode(evidence, mode);
  evidence["group_writable"] = (mode & 0020) != 0;
  evidence["other_writable"] = (mode & 0002) != 0;
  evidence["sticky"] = (mode & 01000) != 0;
  out.push_back(make_finding("namespace.group-other-writable", ns.path,
                             "namespace " + printable(ns.path) + " is writable by " +
                                 ((mode & 0020) && (mode & 0002) ? "group and others"
                                  : (mode & 0020)                ? "its group"
                                                                 : "others") +
                                 " (mode " + octal_mode(mode) + "); HotSpot refuses it",
                             std::move(evidence)));
}

void namespace_not_private(const TempRootFacts& root, const NamespaceFacts& ns, Findings& out) {
  const InodeFacts* dir = namespace_directory(ns);
  if (dir == nullptr || !posix(root) || (dir->mode & kGroupOtherAny) == 0) return;
  nlohmann::json evidence = {{"source", inode_source(ns.opened)}};
  put_mode(evidence, dir->mode);
  out.push_back(make_finding("namespace.not-private", ns.path,
                             "namespace " + printable(ns.path) +
                                 " is accessible to group or others (mode " +
                                 octal_mode(dir->mode) + "); other users can list its JVMs",
                             std::move(evidence)));
}

// The named user's JVMs refuse a directory of another owner; root's do not (the next rule).
void namespace_owner_mismatch(const TempRootFacts& root, const NamespaceFacts& ns, Findings& out) {
  const auto m = owner_mismatch(root, ns);
  if (!m || m->expected == 0) return;
  nlohmann::json evidence = owner_evidence(ns, *m);
  std::string message = owner_message(ns, *m);
  if (m->owner == 0) {
    evidence["note"] =
        "HotSpot accepts a namespace of another owner only when the JVM itself runs as root "
        "(JDK-8075773); JVMs running as the named user refuse this directory";
    message += "; root ownership does not help: the user's JVMs refuse it";
  } else {
    message += "; the user's JVMs refuse it, and its owner controls what is in it";
  }
  out.push_back(
      make_finding("namespace.owner-mismatch", ns.path, std::move(message), std::move(evidence)));
}

// Root's own namespace owned by someone else: no refusal (JDK-8075773), a hijack.
void namespace_root_owner_mismatch(const TempRootFacts& root, const NamespaceFacts& ns,
                                   Findings& out) {
  const auto m = owner_mismatch(root, ns);
  if (!m || m->expected != 0) return;
  nlohmann::json evidence = owner_evidence(ns, *m);
  evidence["note"] =
      "JVMs running as root accept a namespace of any owner (JDK-8075773): this owner "
      "controls root's backing files";
  out.push_back(
      make_finding("namespace.root-owner-mismatch", ns.path,
                   owner_message(ns, *m) +
                       "; root's JVMs accept it anyway, so that owner controls their backing files",
                   std::move(evidence)));
}

void namespace_mount_boundary(const TempRootFacts& root, const NamespaceFacts& ns, Findings& out) {
  if (!ns.crosses_mount) return;
  nlohmann::json evidence = namespace_evidence(ns);
  if (root.opened || root.lstat)
    evidence["temp_dir_dev"] = judged_inode(root.opened, root.lstat)->dev;
  out.push_back(make_finding("namespace.mount-boundary", ns.path,
                             "namespace " + printable(ns.path) +
                                 " is on another file system than its temp dir (a mount point)",
                             std::move(evidence)));
}

// The invisible JVMs that HotSpot's refusal of this namespace explains, once for the
// namespace (the jvm.* rules judge the other causes, one finding per JVM).
void namespace_jvm_blinded(const PredictionSubject& s, Findings& out) {
  const TempRootFacts& root = s.root;
  const NamespaceFacts& ns = s.ns;
  nlohmann::json pids = nlohmann::json::array();
  for (const auto& jvm : ns.invisible_jvms) {
    if (diagnose_invisible(jvm, root, &ns).cause == InvisibleCause::namespace_refused) {
      pids.push_back(jvm.process.pid);
    }
  }
  if (pids.empty()) return;
  // Counted before the list is moved into the evidence: the order in which a call's arguments
  // are evaluated is unspecified, and g++ moved first.
  const std::size_t count = pids.size();
  std::string message = std::to_string(count) + " live JVM" + (count == 1 ? " runs" : "s run") +
                        " without shared performance data because HotSpot refuses namespace " +
                        printable(ns.path);
  out.push_back(make_finding("namespace.jvm-blinded", ns.path, std::move(message),
                             {{"pids", std::move(pids)}, {"hotspot_rejects", s.prediction.refusals}}));
}

void namespace_owner_no_access(const PredictionSubject& s, Findings& out) {
  const TempRootFacts& root = s.root;
  const NamespaceFacts& ns = s.ns;
  const PublicationPrediction* p = failing_prediction(s);
  if (!p) return;
  std::string missing;
  for (const auto& [cause, what] :
       {std::pair{"owner-cannot-read", "read"}, std::pair{"owner-cannot-search", "search"},
        std::pair{"owner-cannot-write", "write"}}) {
    if (has(p->create_failures, cause))
      missing += (missing.empty() ? "" : ", ") + std::string(what);
  }
  if (missing.empty()) return;
  nlohmann::json evidence = namespace_prediction_evidence(root, ns, *p);
  if (const InodeFacts* inode = judged_inode(ns.opened, ns.lstat)) put_mode(evidence, inode->mode);
  out.push_back(
      make_finding("namespace.owner-no-access", ns.path,
                   "the owner of namespace " + printable(ns.path) + " lacks " + missing +
                       " permission on it: its JVMs cannot create their backing files and "
                       "run invisible to jps and jstat",
                   std::move(evidence)));
}

void namespace_read_only(const PredictionSubject& s, Findings& out) {
  const TempRootFacts& root = s.root;
  const NamespaceFacts& ns = s.ns;
  const PublicationPrediction* p = failing_prediction(s);
  if (!p || !has(p->create_failures, "read-only-file-system")) return;
  out.push_back(
      make_finding("namespace.read-only", ns.path,
                   "namespace " + printable(ns.path) +
                       " is on a read-only file system: JVMs cannot create their backing files "
                       "there and run invisible to jps and jstat",
                   namespace_prediction_evidence(root, ns, *p)));
}

void namespace_immutable(const PredictionSubject& s, Findings& out) {
  const TempRootFacts& root = s.root;
  const NamespaceFacts& ns = s.ns;
  const PublicationPrediction* p = failing_prediction(s);
  if (!p || !has(p->create_failures, "immutable")) return;
  out.push_back(
      make_finding("namespace.immutable", ns.path,
                   "namespace " + printable(ns.path) +
                       " is immutable (chattr +i): no JVM can create its backing file there",
                   namespace_prediction_evidence(root, ns, *p)));
}

void namespace_no_space(const PredictionSubject& s, Findings& out) {
  const TempRootFacts& root = s.root;
  const NamespaceFacts& ns = s.ns;
  const PublicationPrediction* p = failing_prediction(s);
  if (!p) return;
  const bool bytes = has(p->create_failures, "no-space"),
             inodes = has(p->create_failures, "no-free-inodes");
  if (!bytes && !inodes) return;
  out.push_back(make_finding(
      "namespace.no-space", ns.path,
      "the file system of namespace " + printable(ns.path) + " has " +
          (bytes ? "less free space than a " + std::to_string(p->region_bytes) + "-byte region"
                 : std::string("no free inode")) +
          ": a JVM starting now cannot create its backing file and runs invisible",
      namespace_prediction_evidence(root, ns, *p)));
}

void namespace_acl_grants_write(const TempRootFacts& root, const NamespaceFacts& ns,
                                Findings& out) {
  if (!acl_judged(root, ns) || !ns.access_acl || !ns.access_acl->extended()) return;
  const PosixAcl& access = *ns.access_acl;
  const auto owner = namespace_owner(ns);
  const auto grants = acl::grants_to_others(access, acl::kWrite, owner);
  if (grants.empty()) return;
  nlohmann::json evidence = {{"acl", acl::acl_json(access)},
                             {"write_grants", acl::grants_json(grants)}};
  acl::put_mask(evidence, access);
  if (owner) evidence["owner_uid"] = *owner;
  out.push_back(make_finding(
      "namespace.acl-grants-write", ns.path,
      "namespace " + printable(ns.path) +
          " has an access ACL that lets others write to it: " + acl::describe_grants(grants),
      std::move(evidence)));
}

void namespace_default_acl(const TempRootFacts& root, const NamespaceFacts& ns, Findings& out) {
  if (!acl_judged(root, ns) || !ns.default_acl || ns.default_acl->entries.empty()) return;
  const PosixAcl& inherited = *ns.default_acl;
  const auto grants = acl::grants_to_others(inherited, acl::kAll, namespace_owner(ns));
  if (grants.empty()) return;
  nlohmann::json evidence = {{"default_acl", acl::acl_json(inherited)},
                             {"grants_beyond_owner", acl::grants_json(grants)}};
  acl::put_mask(evidence, inherited);
  evidence["note"] =
      "files created in the namespace inherit these entries and ignore the umask; "
      "HotSpot's create mode 0600 masks them, other creators' modes may not";
  out.push_back(
      make_finding("namespace.default-acl", ns.path,
                   "namespace " + printable(ns.path) +
                       " has a default ACL that gives new files access beyond their owner: " +
                       acl::describe_grants(grants),
                   std::move(evidence)));
}

}  // namespace hsperfguard::checks
