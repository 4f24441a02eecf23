// The entry points of the rules, what decide/ and the tests call: pure functions from facts
// to findings. Nothing in src/checks/ makes a system call or includes a platform header;
// tests call these with hand-built facts. Each runs the registry's rows for its subject
// (checks/registry.hpp), in registry order, all of them or the ones `rules` selects. The top
// of src/checks/: no other file of it includes this one.
#pragma once

#include <optional>
#include <string>

#include "checks/dacl_access.hpp"
#include "checks/publication.hpp"
#include "checks/registry.hpp"
#include "model/facts.hpp"
#include "model/finding.hpp"
#include "model/verdict.hpp"

namespace hsperfguard::checks {

// Findings on the temp dir itself (tmpdir.*) and on the invisible JVMs whose namespace does
// not exist in it (jvm.*).
Findings check_temp_root(const TempRootFacts& root,
                         const RuleSelection& rules = RuleSelection::all());
// Findings on one namespace directory (namespace.*, volume.*, jvm.* of its invisible JVMs,
// dacl.* on the directory). `prediction`, when given, is predict_publication(root, ns) made
// by the caller (who reports it too); otherwise it is made here when a rule needs it.
Findings check_namespace(const TempRootFacts& root, const NamespaceFacts& ns,
                         const RuleSelection& rules = RuleSelection::all(),
                         const PublicationPrediction* prediction = nullptr);
// Findings on one entry of a namespace (file.*, dacl.* on the file).
Findings check_file(const TempRootFacts& root, const NamespaceFacts& ns, const FileFacts& file,
                    const RuleSelection& rules = RuleSelection::all());
// Findings on a `.java_pid<pid>` socket or `.attach_pid<pid>` file (attach.*).
Findings check_attach(const TempRootFacts& root, const AttachFacts& attach,
                      const RuleSelection& rules = RuleSelection::all());
// All of the above for one temp root, in report order: the temp dir, then each namespace
// followed by its files, then the attach files.
Findings check_all(const TempRootFacts& root, const RuleSelection& rules = RuleSelection::all());

// Findings that follow from a backing file's liveness verdict (file.stale, file.pid-reused),
// the verdict decided before and carried with the file's judgement, taken by value: its
// message and evidence become the finding's.
Findings check_verdict(const NamespaceFacts& ns, const FileFacts& file, LivenessVerdict verdict,
                       const RuleSelection& rules = RuleSelection::all());

// All dacl.* rules on one descriptor (the registry's dacl.* rows, in its order). `user_sid`
// is the SID of the namespace's user, when known; `path` names the subject in the findings.
Findings check_security_descriptor(const SecurityDescriptor& descriptor, SecuredObject object,
                                   const std::string& path,
                                   const std::optional<std::string>& user_sid);

}  // namespace hsperfguard::checks
