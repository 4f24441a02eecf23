// The entry points (checks/checks.hpp): which registry rows judge which subject, in registry
// order, with the subjects (checks/subjects.hpp) built once for the rows that take them. A
// new rule is one function in the file of its family, declared in rules.hpp, and one row in
// registry.cpp; nothing here changes.
#include "checks/checks.hpp"

#include <optional>
#include <vector>

#include "checks/evidence.hpp"
#include "checks/rules.hpp"
#include "checks/subjects.hpp"

namespace hsperfguard::checks {
namespace {

void append(Findings& out, Findings more) {
  out.insert(out.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
}

// The registry's rows per subject, in registry order, listed once: an audit runs the file rows
// for every one of 100,000 files. (Temp dir and namespace rows run in registry order with
// their jvm.* block, run_in_order.)
struct Rows {
  std::vector<std::size_t> file, jvm, descriptor, attach, verdict;
};

const Rows& rows() {
  static const Rows all = [] {
    Rows r;
    const auto registry = rule_registry();
    for (std::size_t i = 0; i < registry.size(); ++i) {
      const RuleEntry& e = registry[i];
      if (e.file) r.file.push_back(i);
      if (e.jvm) r.jvm.push_back(i);
      if (e.descriptor) r.descriptor.push_back(i);
      if (e.attach) r.attach.push_back(i);
      if (e.verdict) r.verdict.push_back(i);
    }
    return r;
  }();
  return all;
}

// Each JVM diagnosed once, then judged by every selected jvm.* rule.
void run_jvm_rules(const TempRootFacts& root, const NamespaceFacts* ns, const JvmProcessFacts& jvm,
                   const std::string& path, const RuleSelection& rules, Findings& out) {
  const InvisibleDiagnosis diagnosis = diagnose_invisible(jvm, root, ns);
  const JvmSubject subject{root, ns, jvm, diagnosis, path};
  const auto registry = rule_registry();
  for (const std::size_t i : rows().jvm) {
    if (rules.runs(i)) registry[i].jvm(subject, out);
  }
}

void run_descriptor_rules(const DescriptorSubject& subject, const RuleSelection& rules,
                          Findings& out) {
  const auto registry = rule_registry();
  for (const std::size_t i : rows().descriptor) {
    if (rules.runs(i)) registry[i].descriptor(subject, out);
  }
}

// Runs `own(entry)` for each selected row, and `block()` once where the first row that
// `in_block` names stands.
template <typename Own, typename InBlock, typename Block>
void run_in_order(const RuleSelection& rules, Own own, InBlock in_block, Block block) {
  const auto registry = rule_registry();
  bool block_done = false;
  for (std::size_t i = 0; i < registry.size(); ++i) {
    if (rules.runs(i)) own(registry[i]);
    if (!block_done && in_block(registry[i])) {
      block_done = true;
      block();
    }
  }
}

std::optional<std::string> user_sid(const NamespaceFacts& ns) {
  return ns.user ? ns.user->sid : std::nullopt;
}

}  // namespace

Findings check_temp_root(const TempRootFacts& root, const RuleSelection& rules) {
  Findings out;
  run_in_order(
      rules,
      [&](const RuleEntry& e) {
        if (e.temp_dir) e.temp_dir(root, out);
      },
      [](const RuleEntry& e) { return e.jvm != nullptr; },
      [&] {
        // Invisible JVMs whose namespace does not exist: found where it would be.
        for (const auto& jvm : root.invisible_jvms) {
          run_jvm_rules(root, nullptr, jvm, invisible_finding_path(jvm, root, nullptr), rules, out);
        }
      });
  return out;
}

Findings check_namespace(const TempRootFacts& root, const NamespaceFacts& ns,
                         const RuleSelection& rules, const PublicationPrediction* given) {
  Findings out;
  // Made once, for the first rule that needs it, unless the caller made it.
  const PublicationPrediction* prediction = given;
  std::optional<PublicationPrediction> made;
  run_in_order(
      rules,
      [&](const RuleEntry& e) {
        if (e.namespace_dir) e.namespace_dir(root, ns, out);
        if (e.prediction) {
          if (prediction == nullptr) prediction = &made.emplace(predict_publication(root, ns));
          e.prediction({root, ns, *prediction}, out);
        }
      },
      [](const RuleEntry& e) { return e.jvm != nullptr; },
      [&] {
        for (const auto& jvm : ns.invisible_jvms)
          run_jvm_rules(root, &ns, jvm, ns.path, rules, out);
      });
  if (ns.security) {
    // The descriptor rows come last in the registry: no namespace row follows them.
    const auto sid = user_sid(ns);
    run_descriptor_rules({*ns.security, SecuredObject::directory, ns.path, sid}, rules, out);
  }
  return out;
}

Findings check_file(const TempRootFacts& root, const NamespaceFacts& ns, const FileFacts& file,
                    const RuleSelection& rules) {
  Findings out;
  const auto registry = rule_registry();
  for (const std::size_t i : rows().file) {
    if (rules.runs(i)) registry[i].file(root, ns, file, out);
  }
  if (file.security) {
    // After every file row, as the registry orders them.
    const InodeFacts* inode = judged_inode(file.opened, file.lstat);
    const SecuredObject object = inode != nullptr && inode->kind == FileKind::directory
                                     ? SecuredObject::directory
                                     : SecuredObject::file;
    const auto sid = user_sid(ns);
    run_descriptor_rules({*file.security, object, file.path, sid, has_pid_like_name(file)}, rules,
                         out);
  }
  return out;
}

Findings check_attach(const TempRootFacts& root, const AttachFacts& attach,
                      const RuleSelection& rules) {
  Findings out;
  const auto registry = rule_registry();
  for (const std::size_t i : rows().attach) {
    if (rules.runs(i)) registry[i].attach(root, attach, out);
  }
  return out;
}

Findings check_all(const TempRootFacts& root, const RuleSelection& rules) {
  Findings out = check_temp_root(root, rules);
  for (const auto& ns : root.namespaces) {
    append(out, check_namespace(root, ns, rules));
    for (const auto& file : ns.files) append(out, check_file(root, ns, file, rules));
  }
  for (const auto& attach : root.attach_files) append(out, check_attach(root, attach, rules));
  return out;
}

Findings check_verdict(const NamespaceFacts& ns, const FileFacts& file, LivenessVerdict verdict,
                       const RuleSelection& rules) {
  Findings out;
  const auto registry = rule_registry();
  for (const std::size_t i : rows().verdict) {
    if (rules.runs(i)) registry[i].verdict(ns, file, verdict, out);
  }
  return out;
}

Findings check_security_descriptor(const SecurityDescriptor& descriptor, SecuredObject object,
                                   const std::string& path,
                                   const std::optional<std::string>& user_sid) {
  Findings out;
  run_descriptor_rules({descriptor, object, path, user_sid}, RuleSelection::all(), out);
  return out;
}

}  // namespace hsperfguard::checks
