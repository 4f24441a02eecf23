// Rule modules: pure functions from facts to findings. Nothing in src/checks/ makes a
// system call or includes a platform header; tests call these with hand-built facts.
#pragma once

#include "model/facts.hpp"
#include "model/finding.hpp"
#include "model/verdict.hpp"

namespace hsperfguard::checks {

// Findings on the temp dir itself (tmpdir.*).
Findings check_temp_root(const TempRootFacts& root);
// Findings on one namespace directory (namespace.*, volume.*, dacl.* on the directory).
Findings check_namespace(const TempRootFacts& root, const NamespaceFacts& ns);
// Findings on one entry of a namespace (file.*, dacl.* on the file).
Findings check_file(const TempRootFacts& root, const NamespaceFacts& ns, const FileFacts& file);
// Findings on a `.java_pid<pid>` socket or `.attach_pid<pid>` file (attach.*).
Findings check_attach(const TempRootFacts& root, const AttachFacts& attach);
// All of the above for one temp root, in report order: the temp dir, then each namespace
// followed by its files, then the attach files.
Findings check_all(const TempRootFacts& root);

// Findings that follow from a backing file's liveness verdict (file.stale, file.pid-reused).
// The verdict is taken by value: its evidence becomes the finding's.
Findings check_verdict(const NamespaceFacts& ns, const FileFacts& file, LivenessVerdict verdict);

// Builds a finding with the catalogue's default severity and remediation for `rule`.
Finding make_finding(std::string_view rule, std::string path, std::string message,
                     nlohmann::json evidence = nlohmann::json::object());

}  // namespace hsperfguard::checks
