// The subjects the rules take beyond the facts themselves: a fact together with what was
// derived from it once for every rule that judges it (an invisible JVM's diagnosis, a
// namespace's publication prediction, a security descriptor with whom it is for). Rules
// (rules.hpp) take these; the registry (registry.hpp) types its rows by them; the entry
// points (checks.hpp) build them. The derivations themselves are analyses, not rule
// families: invisible.hpp, publication.hpp, dacl_access.hpp.
#pragma once

#include <optional>
#include <string>

#include "checks/dacl_access.hpp"
#include "checks/invisible.hpp"
#include "checks/publication.hpp"
#include "model/facts.hpp"

namespace hsperfguard::checks {

// One invisible JVM, diagnosed once for every jvm.* rule. `ns` is the namespace HotSpot
// would use for it (nullptr when none exists, the finding then names where it would be).
struct JvmSubject {
  const TempRootFacts& root;
  const NamespaceFacts* ns;
  const JvmProcessFacts& jvm;
  const InvisibleDiagnosis& diagnosis;
  const std::string& path;
};

// One namespace with what HotSpot would make of it (checks/publication.hpp), predicted once
// for every rule that judges the prediction.
struct PredictionSubject {
  const TempRootFacts& root;
  const NamespaceFacts& ns;
  const PublicationPrediction& prediction;
};

// One security descriptor, of a namespace or of one of its entries (dacl.*).
struct DescriptorSubject {
  const SecurityDescriptor& descriptor;
  SecuredObject object;
  const std::string& path;
  const std::optional<std::string>& user_sid;
  // Whether the data of the object matters (a backing-file candidate); dacl.file-data-readable
  // judges only those.
  bool data_matters = true;
};

}  // namespace hsperfguard::checks
