// Windows-only rules on a namespace and its files that are not about the DACL: the
// conditions HotSpot's own Windows checks refuse (reparse points, UNC paths, volumes
// without persistent ACLs) and compressed backing files.
#pragma once

#include "model/facts.hpp"
#include "model/finding.hpp"

namespace hsperfguard::checks {

// namespace.reparse-point, volume.no-persistent-acls, volume.unc-path.
Findings check_namespace_windows(const TempRootFacts& root, const NamespaceFacts& ns);
// file.compressed.
Findings check_file_windows(const TempRootFacts& root, const NamespaceFacts& ns, const FileFacts& file);

}  // namespace hsperfguard::checks
