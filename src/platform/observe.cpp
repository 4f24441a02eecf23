// The whole-root form of observation, over each platform's streaming one.
#include <utility>
#include <vector>

#include "platform/observe.hpp"
#include "platform/reap.hpp"

namespace hsperfguard::platform {

TempRootFacts observe_temp_root(const RootSpec& spec, const ObserveOptions& options) {
  std::vector<NamespaceFacts> namespaces;
  TempRootFacts root = observe_temp_root(
      spec, options, [&](const TempRootFacts&, NamespaceFacts&& ns) { namespaces.push_back(std::move(ns)); });
  root.namespaces = std::move(namespaces);
  return root;
}

void walk_wanted_files(std::span<NamespaceFacts> namespaces,
                       const std::function<bool(const FileFacts&)>& wanted,
                       const std::function<bool()>& open_temp,
                       const std::function<bool(NamespaceFacts&)>& enter,
                       const std::function<void(NamespaceFacts&, FileFacts&)>& read) {
  bool temp_tried = false;
  for (NamespaceFacts& ns : namespaces) {
    bool entered = false;
    for (FileFacts& file : ns.files) {
      if (file.region || !file.lstat || file.lstat->kind != FileKind::regular || file.crosses_mount ||
          !wanted(file)) {
        continue;
      }
      if (!temp_tried) {
        temp_tried = true;
        if (!open_temp()) return;
      }
      if (!entered) {
        entered = true;
        if (!enter(ns)) break;
      }
      read(ns, file);
    }
  }
}

}  // namespace hsperfguard::platform
