// The entry points: which rule modules judge which subject. A new module (Windows DACLs,
// liveness verdicts) is one more call in the entry point of its subject.
#include "checks/checks.hpp"

#include "checks/dacl.hpp"
#include "checks/modules.hpp"
#include "checks/windows_volume.hpp"
#include "model/rule_catalog.hpp"

namespace hsperfguard::checks {
namespace {

void append(Findings& out, Findings more) {
  out.insert(out.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
}

}  // namespace

Findings check_temp_root(const TempRootFacts& root) {
  Findings out;
  check_temp_dir(root, out);
  check_temp_dir_prediction(root, out);
  // Invisible JVMs whose namespace does not exist: found where it would be.
  for (const auto& jvm : root.invisible_jvms) {
    const std::string path = root.temp_dir + (root.temp_dir.ends_with('/') ? "" : "/") + "hsperfdata_" +
                             jvm.user.value_or("?");
    check_invisible_jvms(root, nullptr, {jvm}, path, out);
  }
  return out;
}

Findings check_namespace(const TempRootFacts& root, const NamespaceFacts& ns) {
  Findings out;
  check_namespace_directory(root, ns, out);
  check_namespace_prediction(root, ns, out);
  check_invisible_jvms(root, &ns, ns.invisible_jvms, ns.path, out);
  check_namespace_acls(root, ns, out);
  check_volume(root, ns, out);
  append(out, check_namespace_windows(root, ns));
  append(out, check_namespace_dacl(root, ns));
  return out;
}

Findings check_file(const TempRootFacts& root, const NamespaceFacts& ns, const FileFacts& file) {
  Findings out;
  check_file_entry(root, ns, file, out);
  check_file_acl(root, ns, file, out);
  check_prologue(root, ns, file, out);
  append(out, check_file_windows(root, ns, file));
  append(out, check_file_dacl(root, ns, file));
  return out;
}

Findings check_attach(const TempRootFacts& root, const AttachFacts& attach) {
  Findings out;
  check_attach_file(root, attach, out);
  return out;
}

Findings check_all(const TempRootFacts& root) {
  Findings out = check_temp_root(root);
  for (const auto& ns : root.namespaces) {
    append(out, check_namespace(root, ns));
    for (const auto& file : ns.files) append(out, check_file(root, ns, file));
  }
  for (const auto& attach : root.attach_files) append(out, check_attach(root, attach));
  return out;
}

Finding make_finding(std::string_view rule, std::string path, std::string message,
                     nlohmann::json evidence) {
  Finding finding;
  finding.rule = std::string(rule);
  finding.path = std::move(path);
  finding.message = std::move(message);
  finding.evidence = std::move(evidence);
  // A rule id missing from the catalogue keeps the default severity and no remediation;
  // the catalogue tests make sure every id the checks emit is there.
  if (const RuleInfo* info = find_rule(rule)) {
    finding.severity = info->severity;
    finding.remediation = info->remediation;
  }
  return finding;
}

}  // namespace hsperfguard::checks
