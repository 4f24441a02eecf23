// The rules of the publication prediction (checks/publication.hpp): one function per rule,
// each raised when its cause is in the prediction. They say before a JVM starts whether it
// would publish its counters; the hotspot profile is exactly these and HotSpot's refusals.
#include <string>

#include "checks/checks.hpp"
#include "checks/evidence.hpp"
#include "checks/modules.hpp"
#include "checks/publication.hpp"

namespace hsperfguard::checks {
namespace {

bool has(const std::vector<std::string>& causes, std::string_view cause) {
  for (const auto& c : causes) {
    if (c == cause) return true;
  }
  return false;
}

nlohmann::json prediction_evidence(const PublicationPrediction& p, const std::optional<VolumeFacts>& volume) {
  nlohmann::json evidence = {{"causes", causes(p)}, {"region_bytes_assumed", p.region_bytes}};
  evidence["uid"] = p.uid ? nlohmann::json(*p.uid) : nlohmann::json(nullptr);
  if (volume) {
    evidence["read_only"] = volume->read_only ? nlohmann::json(*volume->read_only) : nlohmann::json(nullptr);
    evidence["free_bytes"] = volume->free_bytes ? nlohmann::json(*volume->free_bytes) : nlohmann::json(nullptr);
    evidence["free_bytes_root"] =
        volume->free_bytes_root ? nlohmann::json(*volume->free_bytes_root) : nlohmann::json(nullptr);
    evidence["free_inodes"] = volume->free_inodes ? nlohmann::json(*volume->free_inodes) : nlohmann::json(nullptr);
  }
  return evidence;
}

void owner_no_access(const NamespaceFacts& ns, const PublicationPrediction& p, const nlohmann::json& evidence,
                     Findings& out) {
  std::string missing;
  for (const auto& [cause, what] : {std::pair{"owner-cannot-read", "read"}, std::pair{"owner-cannot-search", "search"},
                                    std::pair{"owner-cannot-write", "write"}}) {
    if (has(p.create_failures, cause)) missing += (missing.empty() ? "" : ", ") + std::string(what);
  }
  if (missing.empty()) return;
  const InodeFacts* inode = judged_inode(ns.opened, ns.lstat);
  nlohmann::json e = evidence;
  if (inode != nullptr) put_mode(e, inode->mode);
  out.push_back(make_finding("namespace.owner-no-access", ns.path,
                             "the owner of namespace " + printable(ns.path) + " lacks " + missing +
                                 " permission on it: its JVMs cannot create their backing files and "
                                 "run invisible to jps and jstat",
                             std::move(e)));
}

void read_only(const NamespaceFacts& ns, const PublicationPrediction& p, const nlohmann::json& evidence,
               Findings& out) {
  if (!has(p.create_failures, "read-only-file-system")) return;
  out.push_back(make_finding("namespace.read-only", ns.path,
                             "namespace " + printable(ns.path) +
                                 " is on a read-only file system: JVMs cannot create their backing files "
                                 "there and run invisible to jps and jstat",
                             evidence));
}

void immutable(const NamespaceFacts& ns, const PublicationPrediction& p, const nlohmann::json& evidence,
               Findings& out) {
  if (!has(p.create_failures, "immutable")) return;
  out.push_back(make_finding("namespace.immutable", ns.path,
                             "namespace " + printable(ns.path) +
                                 " is immutable (chattr +i): no JVM can create its backing file there",
                             evidence));
}

void no_space(const NamespaceFacts& ns, const PublicationPrediction& p, const nlohmann::json& evidence,
              Findings& out) {
  const bool bytes = has(p.create_failures, "no-space"), inodes = has(p.create_failures, "no-free-inodes");
  if (!bytes && !inodes) return;
  out.push_back(make_finding("namespace.no-space", ns.path,
                             "the file system of namespace " + printable(ns.path) + " has " +
                                 (bytes ? "less free space than a " + std::to_string(p.region_bytes) + "-byte region"
                                        : std::string("no free inode")) +
                                 ": a JVM starting now cannot create its backing file and runs invisible",
                             evidence));
}

}  // namespace

void check_namespace_prediction(const TempRootFacts& root, const NamespaceFacts& ns, Findings& out) {
  if (root.platform != Platform::posix) return;
  const PublicationPrediction p = predict_publication(root, ns);
  if (p.create_failures.empty()) return;
  const nlohmann::json evidence = prediction_evidence(p, ns.volume ? ns.volume : root.volume);
  owner_no_access(ns, p, evidence, out);
  read_only(ns, p, evidence, out);
  immutable(ns, p, evidence, out);
  no_space(ns, p, evidence, out);
}

void check_temp_dir_prediction(const TempRootFacts& root, Findings& out) {
  if (root.platform != Platform::posix || !root.opened) return;
  if (!root.sharing_mount_namespaces.empty()) {
    // Several containers see this /tmp: each numbers its processes from 1, so a locked name
    // is a name another container's JVM may be given.
    nlohmann::json locked = nlohmann::json::object();
    for (const auto& ns : root.namespaces) {
      const auto names = predict_publication(root, ns).locked_names;
      if (!names.empty()) locked[printable(ns.name)] = names;
    }
    if (!locked.empty()) {
      nlohmann::json evidence = {{"locked_names", locked},
                                 {"mount_namespaces", root.sharing_mount_namespaces}};
      if (root.container) evidence["mount_namespaces"].push_back(root.container->mount_namespace);
      out.push_back(make_finding("tmpdir.shared-pid-names", root.temp_dir,
                                 printable(root.temp_dir) + " is the /tmp of " +
                                     std::to_string(root.sharing_mount_namespaces.size() + 1) +
                                     " mount namespaces and live JVMs hold backing files there: a JVM of the "
                                     "same user given the same pid in another container finds its file "
                                     "locked and runs invisible to jps and jstat (JDK-8286030)",
                                 std::move(evidence)));
    }
  }
  const PublicationPrediction p = predict_new_namespace(root, false);
  if (p.create_failures.empty()) return;
  std::string why;
  for (const auto& c : p.create_failures) why += (why.empty() ? "" : ", ") + c;
  out.push_back(make_finding("tmpdir.new-namespaces-fail", root.temp_dir,
                             "JVMs of users who have no namespace in " + printable(root.temp_dir) +
                                 " yet cannot make one with their backing file (" + why +
                                 "): they run invisible to jps and jstat",
                             prediction_evidence(p, root.volume)));
}

}  // namespace hsperfguard::checks
