#include "decide/remedy.hpp"

#include <array>
#include <string>
#include <string_view>

#include "model/roots.hpp"
#include "model/rule_catalog.hpp"
#include "model/shell_word.hpp"
#include "model/text_escape.hpp"

namespace hsperfguard {
namespace {

// Commands of a remedy (each after the backquote that opens it) that change the entry they
// name, or act on the temp dir of the host the tool runs on.
constexpr std::array<std::string_view, 8> kChanging{"`chmod ", "`chown ", "`setfacl ", "`chattr ",
                                                    "`unlink ", "`rm ", "`hsperfguard create",
                                                    "`hsperfguard repair"};

bool changes_the_entry(std::string_view remedy) {
  for (const auto command : kChanging) {
    if (remedy.find(command) != std::string_view::npos) return true;
  }
  return false;
}

// Appends `option` to every `hsperfguard SUBCOMMAND ...` command of `remedy` whose subcommand
// is one of `subcommands`, just before the backquote that closes it (a word never holds one).
std::string with_option(std::string remedy, std::initializer_list<std::string_view> subcommands,
                        const std::string& option) {
  constexpr std::string_view kOpen = "`hsperfguard ";
  for (std::size_t at = remedy.find(kOpen); at != std::string::npos; at = remedy.find(kOpen, at + 1)) {
    const std::size_t close = remedy.find('`', at + 1);
    if (close == std::string::npos) break;
    const std::string_view command(remedy.data() + at + kOpen.size(), close - at - kOpen.size());
    const std::string_view sub = command.substr(0, command.find(' '));
    bool wanted = false;
    for (const auto s : subcommands) wanted = wanted || s == sub;
    if (!wanted) continue;
    remedy.insert(close, " " + option);
  }
  return remedy;
}

std::string container_remedy(const Finding& f, const TempRootFacts& root) {
  const std::string pid = root.container ? std::to_string(root.container->host_pid) : std::string("?");
  std::string out = "This is in the /tmp of a container (the one host pid " + pid +
                    " is in), reached from this host as " + shell_word(f.path) +
                    ": change nothing through that path, where a name can be a link or a mount "
                    "of this host's files, and `hsperfguard repair` and `create` never act there.";
  const RuleInfo* info = find_rule(f.rule);
  const auto inside = path_inside_root(f.path, root.shown_temp_dir(), root.temp_dir);
  if (info != nullptr && inside) {
    out += " Inside the container (its runtime's exec, as its root), where it is " + shell_word(*inside) +
           ": " + remediation_for(*info, *inside);
  }
  return out;
}

std::string place_remedy(const Finding& f, const RepairRefusal& refusal) {
  return "Not to be changed in place, by repair or by hand: " + escape_non_utf8(refusal.reason) +
         ". The other findings of this entry, its namespace or its temp dir say what to do about " +
         "that first; audit again afterwards (" + f.rule + " then says what is left).";
}

// The owner of namespace `ns` as it was seen (nullopt: not observed).
std::optional<InodeFacts> namespace_owner(const NamespaceFacts* ns) {
  if (ns == nullptr) return std::nullopt;
  if (ns->opened) return ns->opened;
  return ns->lstat;
}

}  // namespace

std::string run_as_owner(std::string remedy, std::uint32_t uid, std::uint32_t gid) {
  const std::string prefix = as_user_prefix(uid, gid);
  for (const std::string_view verb : {"`chmod ", "`setfacl ", "`unlink ", "`rm "}) {
    for (std::size_t at = remedy.find(verb); at != std::string::npos; at = remedy.find(verb, at + 1)) {
      // Only a command that names a path (not an example such as "not `rm -r`").
      const std::size_t close = remedy.find('`', at + 1);
      if (close == std::string::npos) break;
      if (remedy.find('/', at) > close) continue;
      remedy.insert(at + 1, prefix);
      at += prefix.size();
    }
  }
  return remedy;
}

void fit_remedy(Finding& f, const TempRootFacts& root, const NamespaceFacts* ns,
                const std::optional<RepairRefusal>& refusal) {
  f.repairable = !refusal.has_value();
  if (root.kind == RootKind::container) {
    if (changes_the_entry(f.remediation)) {
      f.remediation = container_remedy(f, root);
    } else if (root.container) {
      f.remediation = with_option(std::move(f.remediation), {"reap", "audit"},
                                  "--container " + std::to_string(root.container->host_pid));
    }
    return;
  }
  // A rule repair fixes, refused for where the entry is: its remedy (chmod, setfacl) would do
  // by hand what repair refuses. The other rules' remedies are written for the entry as it is.
  const RuleInfo* info = find_rule(f.rule);
  if (refusal && refusal->kind == RepairRefusal::Kind::place && info != nullptr && info->repairable &&
      changes_the_entry(f.remediation)) {
    f.remediation = place_remedy(f, *refusal);
    return;
  }
  if (root.kind == RootKind::tmpdir || root.kind == RootKind::alt_temp_dir) {
    f.remediation = with_option(std::move(f.remediation), {"create", "repair", "reap", "audit"},
                                shell_option("--tmpdir", root.temp_dir));
  } else if (root.kind == RootKind::root) {
    f.remediation = with_option(std::move(f.remediation), {"create", "repair", "reap", "audit"},
                                shell_option("--root", root.root));
  }
  if (const auto owner = namespace_owner(ns); owner && owner->uid != 0 && root.platform == Platform::posix) {
    f.remediation = run_as_owner(std::move(f.remediation), owner->uid, owner->gid);
  }
}

}  // namespace hsperfguard
