// Whether a JVM started now would publish its counters: HotSpot's create path (docs/POLICY.md,
// "The prediction") walked over the observed facts. An analysis, not a rule family: it emits
// no finding. The audit judgement predicts each namespace and temp dir once and carries the
// prediction (decide/audit.hpp) to the namespace.* prediction rules and to the report, which
// renders it; the diagnosis of invisible JVMs asks it too. Pure.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "model/facts.hpp"

namespace hsperfguard::checks {

// PerfDataMemorySize's default: 32 KiB, which the JVM rounds up to its page size.
inline constexpr std::uint64_t kDefaultRegionBytes = std::uint64_t{32} * 1024;

struct PublicationPrediction {
  // nullopt: cannot tell (the namespace's user is unknown, or it was not observed).
  std::optional<bool> publishes;
  // Why HotSpot refuses the namespace (it then publishes nothing, silently): "symlink",
  // "not-directory", "group-other-writable", "owner-mismatch", "identity-changed"; Windows:
  // "reparse-point", "no-persistent-acls", "compressed-volume", "unc-path".
  std::vector<std::string> refusals;
  // Why the backing file cannot be made in a namespace HotSpot accepts: "owner-cannot-read",
  // "owner-cannot-search", "owner-cannot-write", "read-only-file-system", "immutable",
  // "no-space", "no-free-inodes", "temp-dir-not-writable".
  std::vector<std::string> create_failures;
  // Names in the namespace whose file another process holds locked (a live JVM): a JVM
  // whose pid (in its own pid namespace) is one of them finds its name taken and runs blind
  // (JDK-8286030: containers sharing one /tmp, each with a JVM as pid 1). In file order.
  std::vector<std::string> locked_names;
  std::uint64_t region_bytes = kDefaultRegionBytes;  // the size assumed
  std::optional<std::uint32_t> uid;  // the user the JVM would run as
};

// A JVM of the namespace's user, started now, in an existing namespace.
PublicationPrediction predict_publication(const TempRootFacts& root, const NamespaceFacts& ns);

// A JVM of a user who has no namespace in `root` yet: it makes one (mkdir, mode 0755) and its
// file there. `user_is_root` decides whether permissions and reserved blocks apply.
PublicationPrediction predict_new_namespace(const TempRootFacts& root, bool user_is_root);

// Every cause of a prediction, refusals first.
std::vector<std::string> causes(const PublicationPrediction& prediction);

// A finding's evidence for a prediction: its causes, the region size assumed, the uid, and
// what `volume` (the namespace's or the temp dir's) says about space and writability.
nlohmann::json prediction_evidence(const PublicationPrediction& prediction,
                                   const std::optional<VolumeFacts>& volume);

}  // namespace hsperfguard::checks
