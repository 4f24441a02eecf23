// volume.*: the file system that holds a namespace's backing files.
#include <string>

#include "checks/checks.hpp"
#include "checks/evidence.hpp"
#include "checks/modules.hpp"

namespace hsperfguard::checks {

void check_volume(const TempRootFacts& root, const NamespaceFacts& ns, Findings& out) {
  // The namespace's own volume when it was observed (it may be a mount of its own), else
  // the temp dir's, which it shares unless namespace.mount-boundary says otherwise.
  const VolumeFacts* volume = ns.volume ? &*ns.volume : (root.volume ? &*root.volume : nullptr);
  if (volume == nullptr) return;
  const std::string where = printable(ns.path);
  const std::string fs = volume->fs_type.empty() ? "unknown" : printable(volume->fs_type);
  const auto evidence = [&] {
    nlohmann::json e = volume_json(*volume);
    e["volume_of"] = ns.volume ? "namespace" : "temp-dir";
    return e;
  };

  // Windows volumes without persistent ACLs and UNC paths have their own rules in the
  // Windows module (volume.no-persistent-acls, volume.unc-path), named after HotSpot's checks.
  const bool posix = root.platform == Platform::posix;
  if (posix && volume->network) {
    out.push_back(make_finding("volume.network-filesystem", ns.path,
                               "namespace " + where +
                                   " is on a network or user-space file system (" + fs +
                                   "): permissions, pids and locks there are not this host's alone",
                               evidence()));
  }
  if (posix && volume->acl_support == false) {
    out.push_back(make_finding(
        "volume.no-acl-support", ns.path,
        "the file system holding namespace " + where + " (" + fs + ") does not support ACLs",
        evidence()));
  }
  if (volume->compressed == true) {
    out.push_back(make_finding("volume.compressed", ns.path,
                               "namespace " + where + " is on a compressed volume (" + fs +
                                   "); HotSpot refuses to create its files there",
                               evidence()));
  }
}

}  // namespace hsperfguard::checks
