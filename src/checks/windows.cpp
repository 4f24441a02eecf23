// Windows rules outside the DACL (rules/windows.json): the conditions HotSpot's own Windows
// checks refuse (reparse points, UNC paths, volumes without persistent ACLs) and compressed
// backing files.
#include <cstdio>
#include <string>

#include "checks/evidence.hpp"
#include "checks/rules.hpp"

namespace hsperfguard::checks {
namespace {

// FILE_ATTRIBUTE_* values from winnt.h.
constexpr std::uint32_t kAttributeReparsePoint = 0x00000400;
constexpr std::uint32_t kAttributeCompressed = 0x00000800;

template <typename Observed>  // a std::optional or a Boxed observation
std::uint32_t attributes_of(const Observed& inode) {
  return inode && inode->windows_attributes ? *inode->windows_attributes : 0;
}

// The volume of a Windows namespace, for the volume rules of HotSpot's Windows checks.
const VolumeFacts* windows_volume(const TempRootFacts& root, const NamespaceFacts& ns) {
  return root.platform == Platform::windows ? namespace_volume(root, ns) : nullptr;
}

}  // namespace

// Either observation counts: a listing entry and a handle opened on the reparse point
// itself both carry the attribute.
void namespace_reparse_point(const TempRootFacts& /*root*/, const NamespaceFacts& ns,
                             Findings& out) {
  const std::uint32_t listed = attributes_of(ns.lstat);
  const std::uint32_t opened = attributes_of(ns.opened);
  if (((listed | opened) & kAttributeReparsePoint) == 0) return;
  out.push_back(
      make_finding("namespace.reparse-point", ns.path,
                   "namespace " + printable(ns.path) +
                       " is a reparse point (symbolic link, junction or mount point): "
                       "HotSpot refuses it and its files would live elsewhere",
                   {{"listed_attributes", hex(listed)},
                    {"opened_attributes", ns.opened ? nlohmann::json(hex(opened)) : nullptr}}));
}

void volume_no_persistent_acls(const TempRootFacts& root, const NamespaceFacts& ns, Findings& out) {
  const VolumeFacts* volume = windows_volume(root, ns);
  if (volume == nullptr || volume->acl_support != false) return;
  out.push_back(make_finding("volume.no-persistent-acls", ns.path,
                             "the volume holding namespace " + printable(ns.path) + " (" +
                                 fs_name(*volume) +
                                 ") does not report FS_PERSISTENT_ACLS: its DACLs protect nothing",
                             namespace_volume_evidence(ns, *volume)));
}

void volume_unc_path(const TempRootFacts& root, const NamespaceFacts& ns, Findings& out) {
  const VolumeFacts* volume = windows_volume(root, ns);
  if (volume == nullptr || !volume->unc_path) return;
  out.push_back(make_finding(
      "volume.unc-path", ns.path,
      "namespace " + printable(ns.path) + " is reached through a path without a drive letter (UNC)",
      namespace_volume_evidence(ns, *volume)));
}

void file_compressed(const TempRootFacts& /*root*/, const NamespaceFacts& /*ns*/,
                     const FileFacts& file, Findings& out) {
  const std::uint32_t attributes = attributes_of(file.opened) | attributes_of(file.lstat);
  if ((attributes & kAttributeCompressed) == 0) return;
  out.push_back(
      make_finding("file.compressed", file.path,
                   "file " + printable(file.path) +
                       " is NTFS-compressed: a mapped, constantly rewritten region on a "
                       "compressed file costs CPU and can fail to extend when the volume is full",
                   {{"attributes", hex(attributes)}}));
}

}  // namespace hsperfguard::checks
