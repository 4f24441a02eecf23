// The publication prediction (checks/publication.hpp): HotSpot's checks and create path
// walked over the facts of a namespace, or of a temp dir for a namespace not made yet.
#include "checks/publication.hpp"

#include <string>

#include "checks/evidence.hpp"

namespace hsperfguard::checks {
namespace {

constexpr std::uint32_t kGroupOtherWrite = 0022;
constexpr std::uint32_t kImmutableFlag = 0x00000010;  // FS_IMMUTABLE_FL

std::uint64_t region_bytes_for(const TempRootFacts& root) {
  const std::uint64_t page = root.page_size > 0 ? root.page_size : 4096;
  return (kDefaultRegionBytes + page - 1) / page * page;
}

// What makes creating the region's file fail on `volume`, for root or another user; `inodes`
// is how many inodes it takes (the file; a new namespace's directory too).
void volume_failures(const std::optional<VolumeFacts>& volume, bool user_is_root, std::uint64_t bytes,
                     std::uint64_t inodes, std::vector<std::string>& out) {
  if (!volume) return;
  if (volume->read_only.value_or(false)) {
    out.push_back("read-only-file-system");
    return;  // nothing else matters on a read-only file system
  }
  const auto free = user_is_root ? volume->free_bytes_root : volume->free_bytes;
  if (free && *free < bytes) out.push_back("no-space");
  if (volume->free_inodes && *volume->free_inodes < inodes) out.push_back("no-free-inodes");
}

}  // namespace

PublicationPrediction predict_publication(const TempRootFacts& root, const NamespaceFacts& ns) {
  PublicationPrediction p;
  p.region_bytes = region_bytes_for(root);
  if (ns.user) p.uid = ns.user->uid;

  if (!ns.identity_matches || identities_differ(ns.opened, ns.lstat)) p.refusals.push_back("identity-changed");
  const InodeFacts* inode = judged_inode(ns.opened, ns.lstat);
  if (inode == nullptr) return p;  // not observed: cannot tell
  if (is_symlink(ns.opened, ns.lstat)) {
    p.refusals.push_back(posix(root) ? "symlink" : "reparse-point");
    p.publishes = false;
    return p;
  }
  if (inode->kind != FileKind::directory) {
    p.refusals.push_back("not-directory");
    p.publishes = false;
    return p;
  }
  if (!posix(root)) {
    // HotSpot on Windows checks the volume when it creates its files; it re-applies its own
    // DACL to the namespace and checks no owner.
    const auto& volume = ns.volume ? ns.volume : root.volume;
    if (volume) {
      if (volume->acl_support == false) p.refusals.push_back("no-persistent-acls");
      if (volume->compressed == true) p.refusals.push_back("compressed-volume");
      if (volume->unc_path) p.refusals.push_back("unc-path");
    }
    p.publishes = p.refusals.empty();
    return p;
  }
  if ((inode->mode & kGroupOtherWrite) != 0) p.refusals.push_back("group-other-writable");
  // The owner check is skipped when the JVM runs as root (JDK-8075773).
  if (p.uid && *p.uid != 0 && inode->uid != *p.uid) p.refusals.push_back("owner-mismatch");
  if (!p.refusals.empty()) {
    p.publishes = false;
    return p;
  }
  if (!p.uid) return p;  // an unknown user: no JVM of it, and no way to tell its permissions
  const bool user_is_root = *p.uid == 0;

  // HotSpot opens the namespace O_RDONLY, fchdir()s into it and creates its file there: the
  // owner (it is the user, or the user is root and bypasses permissions) needs r, x and w.
  if (!user_is_root) {
    if ((inode->mode & 0400) == 0) p.create_failures.push_back("owner-cannot-read");
    if ((inode->mode & 0100) == 0) p.create_failures.push_back("owner-cannot-search");
    if ((inode->mode & 0200) == 0) p.create_failures.push_back("owner-cannot-write");
  }
  if (ns.inode_flags && (*ns.inode_flags & kImmutableFlag) != 0) p.create_failures.push_back("immutable");
  volume_failures(ns.volume ? ns.volume : root.volume, user_is_root, p.region_bytes, 1, p.create_failures);
  p.publishes = p.create_failures.empty();
  for (const auto& file : ns.files) {
    if (file.liveness && file.liveness->lock_held.value_or(false)) p.locked_names.push_back(file.name);
  }
  return p;
}

PublicationPrediction predict_new_namespace(const TempRootFacts& root, bool user_is_root) {
  PublicationPrediction p;
  p.region_bytes = region_bytes_for(root);
  const InodeFacts* temp = judged_inode(root.opened, root.lstat);
  if (temp == nullptr || temp->kind != FileKind::directory || root.platform != Platform::posix) return p;
  // mkdir in the temp dir: a user who does not own it needs it writable by others. Only a
  // system's own temp dir is asked (a directory given with --tmpdir is no JVM's on Linux).
  if (!user_is_root && root.kind != RootKind::tmpdir && (temp->mode & 0002) == 0) {
    p.create_failures.push_back("temp-dir-not-writable");
  }
  volume_failures(root.volume, user_is_root, p.region_bytes, 2, p.create_failures);
  p.publishes = p.create_failures.empty();
  return p;
}

std::vector<std::string> causes(const PublicationPrediction& prediction) {
  std::vector<std::string> out = prediction.refusals;
  out.insert(out.end(), prediction.create_failures.begin(), prediction.create_failures.end());
  return out;
}

nlohmann::json prediction_evidence(const PublicationPrediction& p,
                                   const std::optional<VolumeFacts>& volume) {
  nlohmann::json evidence = {{"causes", causes(p)}, {"region_bytes_assumed", p.region_bytes}};
  evidence["uid"] = p.uid ? nlohmann::json(*p.uid) : nlohmann::json(nullptr);
  if (volume) {
    const auto optional = [](const auto& value) {
      return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
    };
    evidence["read_only"] = optional(volume->read_only);
    if (!volume->read_only_seen_by.empty()) {
      evidence["read_only_seen_by"] = volume->read_only_seen_by;
      evidence["read_only_to_observer"] = optional(volume->read_only_to_observer);
      if (!volume->read_only_view_error.empty()) {
        evidence["read_only_view_error"] = printable(volume->read_only_view_error);
      }
    }
    evidence["free_bytes"] = optional(volume->free_bytes);
    evidence["free_bytes_root"] = optional(volume->free_bytes_root);
    evidence["free_inodes"] = optional(volume->free_inodes);
  }
  return evidence;
}

}  // namespace hsperfguard::checks
