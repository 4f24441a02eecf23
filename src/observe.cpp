// The whole-root form of observation, over each platform's streaming one.
#include <utility>
#include <vector>

#include "platform/observe.hpp"

namespace hsperfguard::platform {

TempRootFacts observe_temp_root(const RootSpec& spec, const ObserveOptions& options) {
  std::vector<NamespaceFacts> namespaces;
  TempRootFacts root = observe_temp_root(
      spec, options, [&](const TempRootFacts&, NamespaceFacts&& ns) { namespaces.push_back(std::move(ns)); });
  root.namespaces = std::move(namespaces);
  return root;
}

}  // namespace hsperfguard::platform
