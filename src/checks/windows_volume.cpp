// Windows namespace and file rules outside the DACL (see windows_volume.hpp).
#include "checks/windows_volume.hpp"

#include <cstdio>
#include <string>

#include "checks/checks.hpp"
#include "checks/evidence.hpp"

namespace hsperfguard::checks {

namespace {

// FILE_ATTRIBUTE_* values from winnt.h.
constexpr std::uint32_t kAttributeReparsePoint = 0x00000400;
constexpr std::uint32_t kAttributeCompressed = 0x00000800;

template <typename Observed>  // a std::optional or a Boxed observation
std::uint32_t attributes_of(const Observed& inode) {
  return inode && inode->windows_attributes ? *inode->windows_attributes : 0;
}

std::string hex(std::uint32_t value) {
  char text[11];
  std::snprintf(text, sizeof text, "0x%08x", static_cast<unsigned>(value));
  return text;
}

}  // namespace

Findings check_namespace_windows(const TempRootFacts& root, const NamespaceFacts& ns) {
  Findings out;
  const std::string where = printable(ns.path);
  // Either observation counts: a listing entry and a handle opened on the reparse point
  // itself both carry the attribute.
  const std::uint32_t listed = attributes_of(ns.lstat);
  const std::uint32_t opened = attributes_of(ns.opened);
  if (((listed | opened) & kAttributeReparsePoint) != 0) {
    out.push_back(make_finding("namespace.reparse-point", ns.path,
                               "namespace " + where +
                                   " is a reparse point (symbolic link, junction or mount point): "
                                   "HotSpot refuses it and its files would live elsewhere",
                               {{"listed_attributes", hex(listed)},
                                {"opened_attributes", ns.opened ? nlohmann::json(hex(opened)) : nullptr}}));
  }

  if (root.platform != Platform::windows) return out;
  const VolumeFacts* volume = ns.volume ? &*ns.volume : (root.volume ? &*root.volume : nullptr);
  if (volume == nullptr) return out;
  nlohmann::json evidence = volume_json(*volume);
  evidence["volume_of"] = ns.volume ? "namespace" : "temp-dir";
  const std::string fs = volume->fs_type.empty() ? "unknown" : printable(volume->fs_type);
  if (volume->acl_support == false) {
    out.push_back(make_finding("volume.no-persistent-acls", ns.path,
                               "the volume holding namespace " + where + " (" + fs +
                                   ") does not report FS_PERSISTENT_ACLS: its DACLs protect nothing",
                               evidence));
  }
  if (volume->unc_path) {
    out.push_back(make_finding("volume.unc-path", ns.path,
                               "namespace " + where + " is reached through a path without a drive letter (UNC)",
                               evidence));
  }
  return out;
}

Findings check_file_windows(const TempRootFacts& /*root*/, const NamespaceFacts& /*ns*/, const FileFacts& file) {
  Findings out;
  const std::uint32_t attributes = attributes_of(file.opened) | attributes_of(file.lstat);
  if ((attributes & kAttributeCompressed) != 0) {
    out.push_back(make_finding("file.compressed", file.path,
                               "file " + printable(file.path) +
                                   " is NTFS-compressed: a mapped, constantly rewritten region on a "
                                   "compressed file costs CPU and can fail to extend when the volume is full",
                               {{"attributes", hex(attributes)}}));
  }
  return out;
}

}  // namespace hsperfguard::checks
