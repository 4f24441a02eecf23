#include "decide/repair.hpp"

#include <functional>
#include <map>
#include <string_view>

#include "checks/dacl_access.hpp"
#include "model/compliant_descriptor.hpp"
#include "model/rule_catalog.hpp"
#include "model/text_escape.hpp"

namespace hsperfguard {
namespace {

constexpr std::uint32_t kGroupOtherWrite = 0022;
constexpr std::uint32_t kGroupOtherAny = 0077;
constexpr std::uint32_t kSpecialBits = 07000;

bool same_inode(const InodeFacts& a, const InodeFacts& b) { return a.dev == b.dev && a.ino == b.ino; }

// How the reasons name a link and a file-system boundary on the platform of the facts.
struct Words {
  const char* link;
  const char* boundary;
};
Words words_for(Platform platform) {
  return platform == Platform::windows ? Words{"a reparse point (a link or junction)", "volume"}
                                       : Words{"a symbolic link", "mount"};
}

// Why a file of a safe namespace is not acted on (nullopt: it may be).
std::optional<std::string> file_unsafe_for_repair(const FileFacts& file, Platform platform) {
  const Words words = words_for(platform);
  if (!file.lstat) return "the entry could not be observed";
  if (file.lstat->kind == FileKind::symlink) {
    return std::string("the entry is ") + words.link + ": repair never follows it";
  }
  if (file.lstat->kind != FileKind::regular) return "the entry is not a regular file";
  if (!file.opened || !same_inode(*file.opened, *file.lstat) ||
      file.opened->kind != FileKind::regular) {
    return "the entry was not opened, or changed identity while it was observed";
  }
  if (file.opened->nlink > 1)
    return "the file has more than one hard link: changing it would change the other names too";
  if (file.crosses_mount)
    return std::string("the entry is on another ") + words.boundary + " than its namespace";
  return std::nullopt;
}

// Why nothing in a temp root is acted on (nullopt: it may be).
std::optional<std::string> root_unsafe_for_repair(const TempRootFacts& root, const Findings& root_findings) {
  if (!root.opened) return "the temp dir could not be observed";
  for (const auto& f : root_findings) {
    if (f.rule == "tmpdir.unsafe" || f.rule == "tmpdir.identity-changed") {
      return "the temp dir itself is unsafe (" + f.rule + "): nothing beneath it is repaired";
    }
  }
  return std::nullopt;
}

// Windows: an owner that may hold a namespace or file (the user, or Administrators, as
// dacl.owner judges). Another account's object is that account's to change.
bool trusted_windows_owner(const std::optional<std::string>& owner, const std::string& user_sid) {
  return owner && (*owner == user_sid || *owner == checks::sids::kAdministrators);
}

std::string owner_name(const std::optional<std::string>& owner) {
  return owner ? escape_non_utf8(*owner) : std::string("nobody");
}

// Windows: why a file that is otherwise safe is not acted on: its owner (nullopt: it may be).
std::optional<std::string> windows_file_owner_unsafe(const FileFacts& file,
                                                     const std::string& user_sid) {
  if (!file.security) return "its security descriptor could not be read";
  if (!trusted_windows_owner(file.security->owner_sid, user_sid)) {
    return "owned by " + owner_name(file.security->owner_sid) +
           ", neither its user nor Administrators: a planted file is never changed";
  }
  return std::nullopt;
}

// POSIX: why a file that is otherwise safe is not acted on: its owner (nullopt: it may be).
// The namespace's user's JVMs make its files; a file of anyone else was put there, and a
// remedy never changes what someone else put there (file.owner-mismatch says what to do).
std::optional<std::string> posix_file_owner_unsafe(const NamespaceFacts& ns, const FileFacts& file) {
  if (!ns.user || !ns.user->uid || !file.opened) return std::nullopt;
  if (file.opened->uid == *ns.user->uid) return std::nullopt;
  return "the file is owned by uid " + std::to_string(file.opened->uid) + ", not by " +
         escape_non_utf8(ns.user_suffix) + " (uid " + std::to_string(*ns.user->uid) +
         "): a file put there by someone else is never changed";
}

// The rules repair has a fix for, by subject and platform.
bool has_fix(const Finding& f, const RepairSubject& subject, Platform platform) {
  if (platform == Platform::windows) return f.rule.rfind("dacl.", 0) == 0;
  if (subject.file != nullptr) return f.rule == "file.mode" || f.rule == "file.setid" || f.rule == "file.acl";
  return f.rule == "namespace.group-other-writable" || f.rule == "namespace.not-private" ||
         f.rule == "namespace.acl-grants-write" || f.rule == "namespace.owner-no-access" ||
         f.rule == "namespace.default-acl";
}

bool catalogue_repairable(const Finding& f) {
  const RuleInfo* info = find_rule(f.rule);
  return info != nullptr && info->repairable;
}

RepairRefusal place(std::string reason) { return {RepairRefusal::Kind::place, std::move(reason)}; }
RepairRefusal rule(std::string reason) { return {RepairRefusal::Kind::rule, std::move(reason)}; }

constexpr const char* kNotRepairable = "not repairable: needs a decision by a person";
constexpr const char* kNoFix = "repair has no fix for this rule on this platform";

// Why repair does not act in namespace `ns` at all, for where it is (nullopt: it may).
std::optional<std::string> namespace_place_refusal(const TempRootFacts& root, const Findings& root_findings,
                                                   const NamespaceFacts& ns);

class Planner {
 public:
  explicit Planner(RepairPlan& plan) : plan_(plan) {}

  void root(std::size_t index, const TempRootFacts& root, const RootJudgement& judgement) {
    RepairRoot& r = plan_.roots.emplace_back();
    r.kind = root.kind;
    r.root_dir = root.root;
    r.temp_dir = root.temp_dir;
    if (root.opened) r.expected = expected_from(*root.opened);
    root_findings_ = &judgement.findings;
    for (const auto& f : judgement.findings) left(f, refusal(root, {}, f)->reason);
    for (std::size_t n = 0; n < root.namespaces.size() && n < judgement.namespaces.size(); ++n) {
      if (root.platform == Platform::windows) {
        windows_namespace(index, root, root.namespaces[n], judgement.namespaces[n]);
      } else {
        namespace_(index, root, root.namespaces[n], judgement.namespaces[n]);
      }
    }
    for (const auto& attach : judgement.attach_files) {
      for (const auto& f : attach) left(f, refusal(root, {.attach = true}, f)->reason);
    }
  }

 private:
  void namespace_(std::size_t root_index, const TempRootFacts& root, const NamespaceFacts& ns,
                  const NamespaceJudgement& judgement) {
    if (!left_whole(root, ns, judgement)) return;
    const InodeFacts& dir = *ns.opened;
    std::optional<std::size_t> target;
    auto dir_target = [&]() -> RepairTarget& {
      if (!target) {
        target = plan_.targets.size();
        RepairTarget& t = plan_.targets.emplace_back();
        t.root = root_index;
        t.namespace_name = ns.name;
        t.path = ns.path;
        t.namespace_expected = expected_from(dir);
        t.expected = t.namespace_expected;
      }
      return plan_.targets[*target];
    };
    std::vector<std::size_t> mode_items;
    for (const auto& f : judgement.findings) {
      if (const auto refused = refusal(root, {.ns = &ns}, f)) {
        left(f, refused->reason);
        continue;
      }
      if (f.rule == "namespace.group-other-writable" || f.rule == "namespace.not-private" ||
          f.rule == "namespace.acl-grants-write") {
        RepairTarget& t = dir_target();
        // With an extended ACL the group bits of the mode are the ACL mask: clearing group
        // write there keeps the reduced ACL from granting it to the owning group.
        const std::uint32_t clear = f.rule == "namespace.not-private" ? kGroupOtherAny : kGroupOtherWrite;
        t.new_mode = t.new_mode.value_or(dir.mode) & ~clear;
        if (f.rule == "namespace.acl-grants-write") t.strip_access_acl = true;
        mode_items.push_back(fix(f, *target, ""));
      } else if (f.rule == "namespace.owner-no-access") {
        // The owner gets read, search and write back (u+rwx), as HotSpot's 0755 has them.
        RepairTarget& t = dir_target();
        t.new_mode = t.new_mode.value_or(dir.mode) | 0700;
        mode_items.push_back(fix(f, *target, ""));
      } else if (f.rule == "namespace.default-acl") {
        dir_target().remove_default_acl = true;
        fix(f, *target, "default ACL removed");
      } else {
        left(f, kNoFix);
      }
    }
    if (target) describe_mode_changes(plan_.targets[*target], mode_items, "namespace.acl-grants-write");

    for (std::size_t i = 0; i < ns.files.size() && i < judgement.files.size(); ++i) {
      file(root_index, root, ns, ns.files[i], judgement.files[i]);
    }
  }

  void file(std::size_t root_index, const TempRootFacts& root, const NamespaceFacts& ns,
            const FileFacts& facts, const FileJudgement& judgement) {
    std::optional<std::size_t> target;
    std::vector<std::size_t> mode_items;
    for (const auto& f : judgement.findings) {
      if (const auto refused = refusal(root, {.ns = &ns, .file = &facts}, f)) {
        left(f, refused->reason);
        continue;
      }
      const InodeFacts& inode = *facts.opened;
      auto file_target = [&]() -> RepairTarget& {
        if (!target) {
          target = plan_.targets.size();
          RepairTarget& t = plan_.targets.emplace_back();
          t.root = root_index;
          t.namespace_name = ns.name;
          t.file = facts.name;
          t.path = facts.path;
          t.namespace_expected = expected_from(*ns.opened);
          t.expected = expected_from(inode);
        }
        return plan_.targets[*target];
      };
      if (f.rule == "file.mode" || f.rule == "file.setid" || f.rule == "file.acl") {
        RepairTarget& t = file_target();
        // Each fix only removes bits (a JVM's 0600 is the most a file keeps: a 0400 one stays
        // 0400). With an access ACL the group bits are its mask, cleared with the ACL.
        const std::uint32_t clear = f.rule == "file.setid" ? kSpecialBits : kGroupOtherAny;
        t.new_mode = t.new_mode.value_or(inode.mode) & ~clear;
        if (f.rule == "file.acl") t.strip_access_acl = true;
        mode_items.push_back(fix(f, *target, ""));
      } else {
        left(f, kNoFix);
      }
    }
    if (target) describe_mode_changes(plan_.targets[*target], mode_items, "file.acl");
  }

  // Leaves every finding of a namespace that repair does not act in at all (its files' too),
  // and returns false; true when it may act there.
  bool left_whole(const TempRootFacts& root, const NamespaceFacts& ns, const NamespaceJudgement& judgement) {
    if (!namespace_place_refusal(root, *root_findings_, ns)) return true;
    for (const auto& f : judgement.findings) left(f, refusal(root, {.ns = &ns}, f)->reason);
    for (std::size_t i = 0; i < judgement.files.size(); ++i) {
      const FileFacts* file = i < ns.files.size() ? &ns.files[i] : nullptr;
      for (const auto& f : judgement.files[i].findings) {
        left(f, refusal(root, {.ns = &ns, .file = file}, f)->reason);
      }
    }
    return false;
  }

  std::optional<RepairRefusal> refusal(const TempRootFacts& root, const RepairSubject& subject,
                                       const Finding& f) const {
    return repair_refusal(root, *root_findings_, subject, f);
  }

  // Windows: every repairable dacl.* finding of the namespace, and of each file in it, is
  // fixed by one new protected DACL per object (model/compliant_descriptor.hpp), written
  // through a handle that was compared with what was judged. The owner is never changed
  // (dacl.owner is not repairable: a person decides who should own it).
  void windows_namespace(std::size_t root_index, const TempRootFacts& root,
                         const NamespaceFacts& ns, const NamespaceJudgement& judgement) {
    if (!left_whole(root, ns, judgement)) return;
    const std::string& user_sid = *ns.user->sid;
    const SecurityDescriptor& current = *ns.security;
    // Everyone keeps HotSpot's listing of the namespace, unless it could not list it before.
    const bool everyone_may_list =
        !current.dacl_present || (checks::effective_rights(current, checks::sids::kEveryone) &
                                  checks::rights::kReadData) != 0;
    const auto descriptor =
        compliant_descriptor(CompliantObject::namespace_directory, current.owner_sid.value_or(""),
                             user_sid, everyone_may_list);
    windows_object(root_index, root, ns, nullptr, judgement.findings, descriptor);
    for (std::size_t i = 0; i < ns.files.size() && i < judgement.files.size(); ++i) {
      const FileFacts& file = ns.files[i];
      if (file_unsafe_for_repair(file, Platform::windows) || windows_file_owner_unsafe(file, user_sid)) {
        for (const auto& f : judgement.files[i].findings) left(f, refusal(root, {.ns = &ns, .file = &file}, f)->reason);
        continue;
      }
      windows_object(root_index, root, ns, &file, judgement.files[i].findings,
                     compliant_descriptor(CompliantObject::backing_file,
                                          file.security->owner_sid.value_or(""), user_sid));
    }
  }

  // The findings of one object (the namespace when `file` is null): a target with the new
  // DACL for the dacl.* ones, the others left.
  void windows_object(std::size_t root_index, const TempRootFacts& root, const NamespaceFacts& ns,
                      const FileFacts* file, const Findings& findings, const SecurityDescriptor& descriptor) {
    std::optional<std::size_t> target;
    for (const auto& f : findings) {
      if (const auto refused = refusal(root, {.ns = &ns, .file = file}, f)) {
        left(f, refused->reason);
        continue;
      }
      if (!target) {
        target = plan_.targets.size();
        RepairTarget& t = plan_.targets.emplace_back();
        t.root = root_index;
        t.namespace_name = ns.name;
        t.namespace_expected = expected_from(*ns.opened);
        if (file != nullptr) {
          t.file = file->name;
          t.path = file->path;
          t.expected = expected_from(*file->opened);
          t.expected_owner_sid = file->security->owner_sid;
        } else {
          t.path = ns.path;
          t.expected = t.namespace_expected;
          t.expected_owner_sid = ns.security->owner_sid;
        }
        t.new_security = descriptor;
      }
      fix(f, *target, describe_dacl(descriptor));
    }
  }

  // The change each mode fix of `target` makes, once every fix of the entry is planned (they
  // share one new mode); the fix of `acl_rule` also says that the access ACL goes.
  void describe_mode_changes(const RepairTarget& target, const std::vector<std::size_t>& mode_items,
                             std::string_view acl_rule) {
    for (const std::size_t i : mode_items) {
      RepairItem& item = plan_.items[i];
      item.change = mode_change(target.expected.mode, target.new_mode.value_or(target.expected.mode));
      if (target.strip_access_acl && item.rule == acl_rule) {
        item.change = "access ACL reduced to the mode bits, " + item.change;
      }
    }
  }

  std::size_t fix(const Finding& f, std::size_t target, std::string change) {
    RepairItem& item = add(f);
    item.disposition = RepairDisposition::fix;
    item.target = target;
    item.change = std::move(change);
    return plan_.items.size() - 1;
  }

  void left(const Finding& f, std::string reason) {
    RepairItem& item = add(f);
    item.disposition = RepairDisposition::left;
    item.reason = std::move(reason);
    item.remediation = f.remediation;
  }

  RepairItem& add(const Finding& f) {
    RepairItem& item = plan_.items.emplace_back();
    item.rule = f.rule;
    item.severity = f.severity;
    item.path = f.path;
    item.message = f.message;
    return item;
  }

  RepairPlan& plan_;
  const Findings* root_findings_ = nullptr;  // of the temp root being planned
};

}  // namespace

std::optional<std::string> namespace_unsafe_for_repair(const TempRootFacts& root,
                                                       const NamespaceFacts& ns) {
  const bool windows = root.platform == Platform::windows;
  const Words words = words_for(root.platform);
  if (!root.opened) return "the temp dir could not be observed";
  if (ns.lstat && ns.lstat->kind == FileKind::symlink) {
    return std::string("the namespace is ") + words.link +
           ": repair never follows it (remove the link itself)";
  }
  if (!ns.lstat) {
    // Not a thing repair knows: no look at it succeeded (an I/O error, a permission).
    std::string why = "the namespace could not be observed";
    if (!ns.errors.empty()) why += " (" + ns.errors.front().op + ": " + ns.errors.front().message + ")";
    return why;
  }
  if (ns.lstat->kind != FileKind::directory) return "the namespace is not a directory";
  if (!ns.opened || ns.opened->kind != FileKind::directory) return "the namespace could not be opened";
  if (!ns.identity_matches || !same_inode(*ns.lstat, *ns.opened)) {
    return "the namespace changed identity while it was observed";
  }
  if (ns.crosses_mount)
    return std::string("the namespace is on another ") + words.boundary + " than its temp dir";
  const std::string user = windows ? "account" : "user";
  if (ns.user_lookup_failed)
    return "the " + user + " database could not be read: the rightful owner is unknown";
  if (!ns.user || !(windows ? ns.user->sid.has_value() : ns.user->uid.has_value())) {
    return "the namespace names no known " + user +
           " (squatted or orphaned): its rightful owner is unknown";
  }
  if (windows) {
    if (!ns.security) return "its security descriptor could not be read";
    if (!trusted_windows_owner(ns.security->owner_sid, *ns.user->sid)) {
      return "the namespace is owned by " + owner_name(ns.security->owner_sid) + ", neither " +
             escape_non_utf8(ns.user_suffix) + " (" + escape_non_utf8(*ns.user->sid) +
             ") nor Administrators: that account controls what is in it, so nothing in it is "
             "repaired";
    }
  } else if (ns.opened->uid != *ns.user->uid && ns.opened->uid != 0) {
    return "the namespace is squatted: owned by uid " + std::to_string(ns.opened->uid) + ", not by " +
           escape_non_utf8(ns.user_suffix) + " (uid " + std::to_string(*ns.user->uid) +
           "); its owner controls what is in it, so nothing in it is repaired";
  }
  return std::nullopt;
}

namespace {

std::optional<std::string> namespace_place_refusal(const TempRootFacts& root, const Findings& root_findings,
                                                   const NamespaceFacts& ns) {
  if (root.kind == RootKind::container) {
    return "in a container's temp dir: repair acts only on this host's temp dir (or --tmpdir, "
           "--root), never through /proc/<pid>/root, where an entry can be a link or a mount "
           "of this host's files";
  }
  if (auto reason = root_unsafe_for_repair(root, root_findings)) return reason;
  return namespace_unsafe_for_repair(root, ns);
}

}  // namespace

std::optional<RepairRefusal> repair_refusal(const TempRootFacts& root, const Findings& root_findings,
                                            const RepairSubject& subject, const Finding& f) {
  if (subject.attach) return rule("attach files are not changed by repair");
  if (subject.ns == nullptr) {
    if (auto reason = root_unsafe_for_repair(root, root_findings)) return place(*reason);
    return rule("the temp dir is not changed by repair");
  }
  if (auto reason = namespace_place_refusal(root, root_findings, *subject.ns)) return place(*reason);
  if (!catalogue_repairable(f)) return rule(kNotRepairable);
  if (subject.file != nullptr) {
    auto reason = file_unsafe_for_repair(*subject.file, root.platform);
    if (!reason && root.platform == Platform::windows && subject.ns->user && subject.ns->user->sid) {
      reason = windows_file_owner_unsafe(*subject.file, *subject.ns->user->sid);
    }
    if (!reason && root.platform == Platform::posix) reason = posix_file_owner_unsafe(*subject.ns, *subject.file);
    if (reason) return place(*reason);
  }
  if (!has_fix(f, subject, root.platform)) return rule(kNoFix);
  return std::nullopt;
}

RepairPlan plan_repair(const std::vector<TempRootFacts>& roots,
                       const std::vector<RootJudgement>& judgements) {
  RepairPlan plan;
  Planner planner(plan);
  for (std::size_t r = 0; r < roots.size() && r < judgements.size(); ++r) {
    planner.root(r, roots[r], judgements[r]);
  }
  return plan;
}

}  // namespace hsperfguard
