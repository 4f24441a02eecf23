// volume.*: the file system that holds a namespace's backing files. Windows volumes without
// persistent ACLs and UNC paths have their own rules (windows.cpp), named after HotSpot's
// checks.
#include <string>

#include "checks/evidence.hpp"
#include "checks/rules.hpp"

namespace hsperfguard::checks {
const VolumeFacts* namespace_volume(const TempRootFacts& root, const NamespaceFacts& ns) {
  // The namespace's own volume when it was observed (it may be a mount of its own), else the
  // temp dir's, which it shares unless namespace.mount-boundary says otherwise.
  return ns.volume ? &*ns.volume : (root.volume ? &*root.volume : nullptr);
}

nlohmann::json namespace_volume_evidence(const NamespaceFacts& ns, const VolumeFacts& volume) {
  nlohmann::json evidence = volume_json(volume);
  evidence["volume_of"] = ns.volume ? "namespace" : "temp-dir";
  return evidence;
}

void volume_network_filesystem(const TempRootFacts& root, const NamespaceFacts& ns, Findings& out) {
  const VolumeFacts* volume = namespace_volume(root, ns);
  if (volume == nullptr || root.platform != Platform::posix || !volume->network) return;
  out.push_back(make_finding("volume.network-filesystem", ns.path,
                             "namespace " + printable(ns.path) +
                                 " is on a network or user-space file system (" + fs_name(*volume) +
                                 "): permissions, pids and locks there are not this host's alone",
                             namespace_volume_evidence(ns, *volume)));
}

void volume_no_acl_support(const TempRootFacts& root, const NamespaceFacts& ns, Findings& out) {
  const VolumeFacts* volume = namespace_volume(root, ns);
  if (volume == nullptr || root.platform != Platform::posix || volume->acl_support != false) return;
  out.push_back(make_finding("volume.no-acl-support", ns.path,
                             "the file system holding namespace " + printable(ns.path) + " (" +
                                 fs_name(*volume) + ") does not support ACLs",
                             namespace_volume_evidence(ns, *volume)));
}

void volume_compressed(const TempRootFacts& root, const NamespaceFacts& ns, Findings& out) {
  const VolumeFacts* volume = namespace_volume(root, ns);
  if (volume == nullptr || volume->compressed != true) return;
  out.push_back(make_finding("volume.compressed", ns.path,
                             "namespace " + printable(ns.path) + " is on a compressed volume (" +
                                 fs_name(*volume) + "); HotSpot refuses to create its files there",
                             namespace_volume_evidence(ns, *volume)));
}

}  // namespace hsperfguard::checks
