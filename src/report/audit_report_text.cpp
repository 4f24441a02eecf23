// The text audit report (audit_report_text.hpp): the digest of a temp dir without --verbose,
// each finding with its evidence under --verbose, the closing of a temp dir and the summary.
#include "report/audit_report_text.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <iterator>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "model/rule_catalog.hpp"
#include "model/shell_word.hpp"
#include "model/text_escape.hpp"

namespace hsperfguard {

std::string styled_text(bool color, std::string_view code, std::string_view text) {
  if (!color) return std::string(text);
  return "\033[" + std::string(code) + "m" + std::string(text) + "\033[0m";
}

std::string severity_text(bool color, Severity severity) {
  const std::string_view word = to_string(severity);
  switch (severity) {
    case Severity::critical:
    case Severity::high: return styled_text(color, "1;31", word);
    case Severity::medium: return styled_text(color, "33", word);
    case Severity::low:
    case Severity::info: return styled_text(color, "2", word);
  }
  return std::string(word);
}

namespace {

// A group of file findings shows this many names; --verbose shows them all.
constexpr std::size_t kNamesShown = TextDigest::kNamesShown;

// ANSI styles, only when the options say so.
std::string styled(const TextOptions& options, std::string_view code, std::string_view text) {
  return styled_text(options.color, code, text);
}

std::string bold(const TextOptions& options, std::string_view text) { return styled(options, "1", text); }

std::string severity_word(const TextOptions& options, Severity severity) {
  return severity_text(options.color, severity);
}

std::string plural(std::size_t n, std::string_view one, std::string_view many) {
  return std::to_string(n) + " " + std::string(n == 1 ? one : many);
}

// The repair hint of a finding repair fixes (unless its remedy says so).
void print_repair_hint(std::string& out, const char* indent, const Finding& f, const TextOptions& options) {
  if (!f.repairable) return;
  if (f.remediation.find("hsperfguard repair") != std::string::npos) return;
  out.append(indent).append("or run: hsperfguard repair").append(terminal_safe(options.scope));
  out.append(" (it fixes this finding)\n");
}

// A scalar of the evidence as its line shows it: a plain string as it is, any other quoted.
std::string evidence_scalar(const nlohmann::json& value) {
  if (value.is_string()) {
    const auto& text = value.get_ref<const std::string&>();
    const bool plain = !text.empty() && text != "true" && text != "false" && text != "null" &&
                       std::all_of(text.begin(), text.end(), [](char c) {
                         return std::isalnum(static_cast<unsigned char>(c)) != 0 ||
                                std::string_view("._/:+@%,-").find(c) != std::string_view::npos;
                       });
    if (plain) return text;
  }
  return terminal_safe(value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

bool scalar_list(const nlohmann::json& value) {
  return value.is_array() && std::none_of(value.begin(), value.end(), [](const nlohmann::json& v) {
           return v.is_structured();
         });
}

// "key: value" for a scalar or a list of scalars ("[1, 2]"); "key:" and the value's lines
// indented beneath it otherwise; a list of objects as "- " items.
void append_evidence_value(std::string& out, std::string_view indent, std::string_view head,
                           const nlohmann::json& value) {
  const std::string deeper = std::string(indent) + "  ";
  if (value.is_object() && !value.empty()) {
    out.append(indent).append(head).append("\n");
    for (const auto& [key, item] : value.items()) append_evidence_value(out, deeper, terminal_safe(key) + ":", item);
  } else if (value.is_array() && !scalar_list(value)) {
    out.append(indent).append(head).append("\n");
    for (const auto& item : value) append_evidence_value(out, deeper, "-", item);
  } else if (value.is_array()) {
    out.append(indent).append(head).append(" [");
    for (std::size_t i = 0; i < value.size(); ++i) out.append(i > 0 ? ", " : "").append(evidence_scalar(value[i]));
    out.append("]\n");
  } else {
    out.append(indent).append(head).append(" ").append(value.is_object() ? "{}" : evidence_scalar(value)).append("\n");
  }
}

// One finding: "[severity] rule: message" (after `subject`, a file's name, when given), its
// evidence under --verbose, its fix and the repair hint.
void print_finding(std::string& out, const char* indent, const Finding& f, const TextOptions& options,
                   std::string_view subject = {}) {
  out.append(indent).append("[").append(severity_word(options, f.severity)).append("] ").append(f.rule);
  if (!subject.empty()) out.append(" ").append(terminal_safe(subject));
  out.append(": ").append(terminal_safe(f.message)).append("\n");
  const std::string deeper = std::string(indent) + "    ";
  if (options.verbose) {
    out.append(deeper).append("evidence:\n");
    append_evidence_lines(out, f.evidence, deeper + "  ");
  }
  out.append(deeper).append("fix: ").append(terminal_safe(f.remediation)).append("\n");
  print_repair_hint(out, deeper.c_str(), f, options);
}

// Worst first: severity, then rule, then path.
bool worse(const Finding& a, const Finding& b) {
  if (a.severity != b.severity) return a.severity > b.severity;
  if (a.rule != b.rule) return a.rule < b.rule;
  return a.path < b.path;
}

void print_findings(std::string& out, const Findings& findings, const char* indent, const TextOptions& options) {
  std::vector<const Finding*> order;
  for (const auto& f : findings) order.push_back(&f);
  std::stable_sort(order.begin(), order.end(), [](const Finding* a, const Finding* b) { return worse(*a, *b); });
  for (const Finding* f : order) print_finding(out, indent, *f, options);
}

void print_error(std::string& out, const char* indent, const ObservationError& e, bool with_path) {
  out.append(indent).append("error: ");
  if (with_path) out.append(terminal_safe(e.path)).append(": ");
  out.append(terminal_safe(e.op)).append(": ").append(terminal_safe(e.message)).append("\n");
}

// The errors of a namespace's files (an entry that could not be read): by operation and
// message, with how many files and the first.
void print_file_errors(std::string& out, const NamespaceFacts& ns) {
  std::map<std::pair<std::string, std::string>, std::pair<std::size_t, std::string_view>> errors;
  std::vector<std::pair<std::string, std::string>> order;
  for (const auto& file : ns.files) {
    for (const auto& e : file.errors) {
      auto [at, added] = errors.try_emplace({e.op, e.message}, 0, file.name);
      if (added) order.push_back(at->first);
      ++at->second.first;
    }
  }
  for (const auto& key : order) {
    const auto& [count, first] = errors.at(key);
    out.append("    error: ");
    if (count == 1) {
      out.append(terminal_safe(first));
    } else {
      out.append(std::to_string(count)).append(" files, the first ").append(terminal_safe(first));
    }
    out.append(": ").append(terminal_safe(key.first)).append(": ").append(terminal_safe(key.second)).append("\n");
  }
}

void print_attention(std::string& out, const Findings& findings, Severity at_least) {
  for (const auto& f : findings) {
    if (f.severity < at_least) continue;
    out.append(to_string(f.severity)).append(" ").append(f.rule).append(" ");
    out.append(terminal_safe(f.path)).append(": ").append(terminal_safe(f.message));
    out.append("; fix: ").append(terminal_safe(f.remediation)).append("\n");
  }
}

bool any_file_errors(const NamespaceFacts& ns) {
  for (const auto& file : ns.files) {
    if (!file.errors.empty()) return true;
  }
  return false;
}

}  // namespace

void render_attention_namespace(std::string& out, const NamespaceJudgement& nj, Severity at_least) {
  print_attention(out, nj.findings, at_least);
  for (const auto& fj : nj.files) print_attention(out, fj.findings, at_least);
}

void render_attention_findings(std::string& out, const Findings& findings, Severity at_least) {
  print_attention(out, findings, at_least);
}

std::string attention_root_text(const RootJudgement& rj, Severity at_least) {
  std::string out;
  print_attention(out, rj.findings, at_least);
  for (const auto& attach : rj.attach_files) print_attention(out, attach, at_least);
  return out;
}

// ---- the digest of a temp dir (without --verbose)

namespace {

// Whether `text` holds `word` at `at` as a whole word: after the start, a space, a backquote,
// '(' or '=', and before the end, a space, a backquote, ')', ',', ';', ':' or a full stop
// that ends a sentence.
bool whole_word_at(std::string_view text, std::size_t at, std::size_t size) {
  if (at > 0 && std::string_view(" `(=").find(text[at - 1]) == std::string_view::npos) return false;
  const std::size_t end = at + size;
  if (end == text.size() || std::string_view(" `),;:").find(text[end]) != std::string_view::npos) return true;
  return text[end] == '.' && (end + 1 == text.size() || text[end + 1] == ' ');
}

// Every whole-word `word` of text[from, to) replaced by `with`; the new end of the range.
std::size_t replace_word(std::string& text, std::string_view word, std::string_view with, std::size_t from = 0,
                         std::size_t to = std::string::npos) {
  if (to == std::string::npos) to = text.size();
  if (word.empty()) return to;
  for (std::size_t at = text.find(word, from); at != std::string::npos && at + word.size() <= to;
       at = text.find(word, at)) {
    if (!whole_word_at(text, at, word.size())) {
      ++at;
      continue;
    }
    text.replace(at, word.size(), with);
    to = to + with.size() - word.size();
    at += with.size();
  }
  return to;
}

// The digits at text[at...]: their value and where they end; nullopt without any.
std::optional<std::pair<std::uint32_t, std::size_t>> digits_at(std::string_view text, std::size_t at) {
  std::size_t end = at;
  std::uint64_t value = 0;
  while (end < text.size() && end - at < 10 && std::isdigit(static_cast<unsigned char>(text[end])) != 0) {
    value = value * 10 + static_cast<std::uint64_t>(text[end] - '0');
    ++end;
  }
  if (end == at || value > 0xffffffffu) return std::nullopt;
  return std::pair{static_cast<std::uint32_t>(value), end};
}

// Each as_user_prefix(uid, gid) of `text` with <uid> and <gid> for its numbers.
void replace_owner_ids(std::string& text) {
  constexpr std::string_view kReuid = "setpriv --reuid=";
  for (std::size_t at = text.find(kReuid); at != std::string::npos; at = text.find(kReuid, at + 1)) {
    const auto uid = digits_at(text, at + kReuid.size());
    if (!uid) continue;
    constexpr std::string_view kRegid = " --regid=";
    if (text.compare(uid->second, kRegid.size(), kRegid) != 0) continue;
    const auto gid = digits_at(text, uid->second + kRegid.size());
    if (!gid) continue;
    const std::string prefix = as_user_prefix(uid->first, gid->first);
    if (text.compare(at, prefix.size(), prefix) != 0) continue;
    std::string shape = prefix;
    replace_word(shape, "--reuid=" + std::to_string(uid->first), "--reuid=<uid>");
    replace_word(shape, "--regid=" + std::to_string(gid->first), "--regid=<gid>");
    text.replace(at, prefix.size(), shape);
  }
}

std::string_view subject_nouns(TextSubject subject) {
  switch (subject) {
    case TextSubject::temp_dir: return "temp dirs";
    case TextSubject::namespace_dir: return "namespaces";
    case TextSubject::file: return "files";
    case TextSubject::attach: return "attach files";
  }
  return "entries";
}

// What each placeholder of a remedy shape stands for, for the line that gives it.
std::string placeholders_of(std::string_view shape) {
  std::string legend;
  const auto add = [&](std::string_view placeholder, std::string_view meaning) {
    if (shape.find(placeholder) == std::string_view::npos) return;
    legend.append(legend.empty() ? "" : ", ").append(placeholder).append(" ").append(meaning);
  };
  add("<path>", "its path");
  add("<file>", "its path");
  add("<namespace>", "its namespace");
  add("<user>", "its user");
  add("<uid>", "its owner's uid");
  add("<gid>", "its owner's gid");
  return legend;
}

// The first kNamesShown names of two sorted lists, sorted.
void merge_names(std::vector<std::string>& names, std::vector<std::string>&& more) {
  std::vector<std::string> merged;
  std::merge(std::make_move_iterator(names.begin()), std::make_move_iterator(names.end()),
             std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()), std::back_inserter(merged));
  merged.erase(std::unique(merged.begin(), merged.end()), merged.end());
  if (merged.size() > kNamesShown) merged.resize(kNamesShown);
  names = std::move(merged);
}

// The name a group shows for `path`: relative to the one namespace of its files.
std::string_view shown_name(std::string_view path, std::string_view ns_path) {
  if (!ns_path.empty() && path.size() > ns_path.size() + 1 && path.starts_with(ns_path) &&
      (path[ns_path.size()] == '/' || path[ns_path.size()] == '\\')) {
    return path.substr(ns_path.size() + 1);
  }
  return path;
}

}  // namespace

std::string remedy_shape(std::string_view remedy, std::string_view path, std::string_view ns_path,
                         std::string_view user) {
  std::string shape(remedy);
  if (!path.empty()) replace_word(shape, shell_word(path), "<path>");
  if (!ns_path.empty() && ns_path != path) replace_word(shape, shell_word(ns_path), "<namespace>");
  if (!user.empty()) {
    replace_word(shape, shell_option("--user", user), "--user <user>");
    // The user's word only inside a command (between backquotes): in the prose around it a
    // user named like a word of it ("root") is that word.
    for (std::size_t open = shape.find('`'); open != std::string::npos;) {
      const std::size_t close = shape.find('`', open + 1);
      if (close == std::string::npos) break;
      const std::size_t end = replace_word(shape, shell_word(user), "<user>", open + 1, close);
      open = shape.find('`', end + 1);
    }
  }
  replace_owner_ids(shape);
  return shape;
}

void append_evidence_lines(std::string& out, const nlohmann::json& evidence, std::string_view indent) {
  if (!evidence.is_object()) {
    append_evidence_value(out, indent, "value:", evidence);
    return;
  }
  for (const auto& [key, value] : evidence.items()) append_evidence_value(out, indent, terminal_safe(key) + ":", value);
}

TextDigest::Group& TextDigest::group_for(Key key) {
  if (auto it = groups_.find(key); it != groups_.end()) return it->second;
  if (groups_.size() >= kMaxGroups) {
    // Past the bound, further shapes of a rule share one group: what is kept stays bounded.
    std::get<4>(key) = "\n";
    auto [at, added] = groups_.try_emplace(std::move(key));
    at->second.remedies_differ = true;
    return at->second;
  }
  Group& group = groups_[key];
  group.shape = std::get<4>(key);
  return group;
}

void TextDigest::add(const Finding& finding, TextSubject subject, std::string_view ns_path, std::string_view user) {
  Key key{-static_cast<int>(finding.severity), finding.rule, static_cast<int>(subject), finding.repairable,
          remedy_shape(finding.remediation, finding.path, ns_path, user)};
  Group& group = group_for(std::move(key));
  ++group.count;
  if (group.names.empty() || finding.path < group.names.front()) group.first = finding;
  const auto at = std::lower_bound(group.names.begin(), group.names.end(), finding.path);
  if (static_cast<std::size_t>(at - group.names.begin()) < kNamesShown && (at == group.names.end() || *at != finding.path)) {
    group.names.insert(at, finding.path);
    if (group.names.size() > kNamesShown) group.names.pop_back();
  }
  if (subject == TextSubject::file && group.last_namespace != ns_path) {
    ++group.namespaces;
    if (group.first_namespace.empty()) group.first_namespace = ns_path;
    group.last_namespace = ns_path;
  }
}

void TextDigest::add_error(const ObservationError& error) {
  std::pair<std::string, std::string> key{error.op, error.message};
  auto it = errors_.find(key);
  if (it == errors_.end()) {
    // Past the bound, further errors share one group.
    if (errors_.size() >= kMaxGroups) key = {"observe", "other errors"};
    it = errors_.try_emplace(std::move(key)).first;
  }
  ErrorGroup& group = it->second;
  if (group.count == 0 || error.path < group.first_path) group.first_path = error.path;
  ++group.count;
}

void TextDigest::flag(const std::string& ns_path) {
  if (flagged_ > 0 && last_flagged_ == ns_path) return;
  ++flagged_;
  if (first_flagged_.empty()) first_flagged_ = ns_path;
  last_flagged_ = ns_path;
}

void TextDigest::add_namespace(const NamespaceFacts& ns, const NamespaceJudgement& nj) {
  bool any = !nj.findings.empty() || !ns.errors.empty();
  for (const Finding& f : nj.findings) add(f, TextSubject::namespace_dir, ns.path, ns.user_suffix);
  for (const auto& e : ns.errors) add_error(e);
  for (std::size_t f = 0; f < ns.files.size() && f < nj.files.size(); ++f) {
    for (const Finding& finding : nj.files[f].findings) add(finding, TextSubject::file, ns.path, ns.user_suffix);
    any = any || !nj.files[f].findings.empty();
  }
  for (const auto& file : ns.files) {
    for (const auto& e : file.errors) add_error(e);
    any = any || !file.errors.empty();
  }
  if (any) flag(ns.path);
}

void TextDigest::add_root(const TempRootFacts& root, const RootJudgement& rj) {
  for (const Finding& f : rj.findings) add(f, TextSubject::temp_dir, {}, {});
  for (const auto& e : root.errors) add_error(e);
  for (std::size_t a = 0; a < root.attach_files.size() && a < rj.attach_files.size(); ++a) {
    add_attach(root.attach_files[a], rj.attach_files[a]);
  }
}

void TextDigest::add_attach(const AttachFacts& attach, const Findings& findings) {
  for (const Finding& f : findings) add(f, TextSubject::attach, {}, {});
  for (const auto& e : attach.errors) add_error(e);
}

void TextDigest::merge(TextDigest&& later) {
  for (auto& [key, theirs] : later.groups_) {
    Group& ours = group_for(key);
    if (ours.names.empty() || (!theirs.names.empty() && theirs.names.front() < ours.names.front())) {
      ours.first = std::move(theirs.first);
    }
    ours.count += theirs.count;
    merge_names(ours.names, std::move(theirs.names));
    if (theirs.namespaces > 0) {
      // A namespace in parts: its later part continues the namespace this one ended with.
      ours.namespaces += theirs.namespaces - (ours.last_namespace == theirs.first_namespace ? 1 : 0);
      if (ours.first_namespace.empty()) ours.first_namespace = theirs.first_namespace;
      ours.last_namespace = theirs.last_namespace;
    }
  }
  for (auto& [key, theirs] : later.errors_) {
    auto it = errors_.find(key);
    if (it == errors_.end()) {
      it = errors_.try_emplace(errors_.size() < kMaxGroups ? key : std::pair<std::string, std::string>{"observe", "other errors"}).first;
    }
    ErrorGroup& ours = it->second;
    if (ours.count == 0 || theirs.first_path < ours.first_path) ours.first_path = theirs.first_path;
    ours.count += theirs.count;
  }
  if (later.flagged_ > 0) {
    flagged_ += later.flagged_ - (flagged_ > 0 && last_flagged_ == later.first_flagged_ ? 1 : 0);
    if (first_flagged_.empty()) first_flagged_ = later.first_flagged_;
    last_flagged_ = later.last_flagged_;
  }
}

void TextDigest::render(std::string& out, const TextOptions& options) const {
  std::vector<std::pair<const Key*, const Group*>> order;
  for (const auto& [key, group] : groups_) order.emplace_back(&key, &group);
  // Worst first: severity, then rule, then the first path by name.
  std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
    if (std::get<0>(*a.first) != std::get<0>(*b.first)) return std::get<0>(*a.first) < std::get<0>(*b.first);
    if (std::get<1>(*a.first) != std::get<1>(*b.first)) return std::get<1>(*a.first) < std::get<1>(*b.first);
    return a.second->names < b.second->names;
  });
  for (const auto& [key, group_ptr] : order) {
    const Group& group = *group_ptr;
    const Finding& f = group.first;
    if (group.count == 1) {
      print_finding(out, "  ", f, options, f.path);
      continue;
    }
    const auto subject = static_cast<TextSubject>(std::get<2>(*key));
    const bool one_namespace = subject == TextSubject::file && group.namespaces == 1;
    const RuleInfo* info = find_rule(f.rule);
    out.append("  [").append(severity_word(options, f.severity)).append("] ").append(f.rule);
    if (info != nullptr) out.append(" (").append(info->title).append(")");
    out.append(": ").append(std::to_string(group.count)).append(" ").append(subject_nouns(subject));
    if (one_namespace) {
      out.append(" in ").append(terminal_safe(group.first_namespace));
    } else if (subject == TextSubject::file && group.namespaces > 1) {
      out.append(" in ").append(std::to_string(group.namespaces)).append(" namespaces");
    }
    out.append(group.names.size() < group.count ? ", the first " + std::to_string(group.names.size()) + " by name: "
                                                : ": ");
    for (std::size_t n = 0; n < group.names.size(); ++n) {
      out.append(n > 0 ? ", " : "")
          .append(terminal_safe(shown_name(group.names[n], one_namespace ? group.first_namespace : "")));
    }
    out.append(" (--verbose lists each with its evidence)\n");
    out.append("      the first: ").append(terminal_safe(f.message)).append("\n");
    if (group.remedies_differ) {
      out.append("      fix: each its own (--verbose shows them); the first's: ").append(terminal_safe(f.remediation));
    } else if (const std::string legend = placeholders_of(group.shape);
               group.shape != f.remediation && !legend.empty()) {
      out.append("      fix, for each of the ").append(std::to_string(group.count)).append(" (")
          .append(legend).append("): ").append(terminal_safe(group.shape));
    } else {
      out.append("      fix: ").append(terminal_safe(f.remediation));
    }
    out.append("\n");
    if (f.repairable && f.remediation.find("hsperfguard repair") == std::string::npos) {
      out.append("      or run: hsperfguard repair").append(terminal_safe(options.scope));
      out.append(" (it fixes these ").append(std::to_string(group.count)).append(" findings)\n");
    }
  }
  for (const auto& [key, group] : errors_) {
    out.append("  error: ");
    if (group.count > 1) out.append(std::to_string(group.count)).append(" entries, the first ");
    out.append(terminal_safe(group.first_path)).append(": ").append(terminal_safe(key.first)).append(": ")
        .append(terminal_safe(key.second)).append("\n");
  }
}

std::string temp_dir_whose(const TempRootFacts& root) {
  switch (root.kind) {
    case RootKind::host: return "this host's";
    case RootKind::tmpdir: return "named by --tmpdir";
    case RootKind::alt_temp_dir:
      return root.alt_temp_dir_pid ? "named by -XX:AltTempDir of JVM pid " + std::to_string(*root.alt_temp_dir_pid)
                                   : std::string("named by a JVM's -XX:AltTempDir");
    case RootKind::account_temp_dir:
      if (!root.account) return "another account's";
      return "of account " + terminal_safe(root.account->name) +
             (root.account->jvm_pid ? ", named by the TMP of JVM pid " + std::to_string(*root.account->jvm_pid)
                                    : std::string(", a service account"));
    case RootKind::root: return "of the system root " + terminal_safe(root.root) + ", named by --root";
    case RootKind::container:
      return root.container ? "a container's, host pid " + std::to_string(root.container->host_pid)
                            : std::string("a container's");
  }
  return "this host's";
}

std::string audit_root_opening_text(const TempRootFacts& root, const TextOptions& options) {
  return bold(options, "temp dir " + terminal_safe(root.shown_temp_dir())) + " (" + temp_dir_whose(root) + ")\n";
}

void render_audit_namespace_text(std::string& out, const NamespaceFacts& ns, const NamespaceJudgement& nj,
                                 const TextOptions& options) {
  // Every finding of the part, the namespace's and its files', worst first.
  std::vector<std::pair<const Finding*, std::string_view>> findings;
  for (const auto& f : nj.findings) findings.emplace_back(&f, std::string_view());
  for (std::size_t f = 0; f < ns.files.size() && f < nj.files.size(); ++f) {
    for (const Finding& finding : nj.files[f].findings) findings.emplace_back(&finding, ns.files[f].name);
  }
  std::stable_sort(findings.begin(), findings.end(),
                   [](const auto& a, const auto& b) { return worse(*a.first, *b.first); });
  const bool file_errors = any_file_errors(ns);
  if (ns.part == 0) {
    out.append("  ").append(terminal_safe(ns.path)).append("  ").append(std::to_string(ns.files.size()));
    out.append(ns.more_parts ? "+ file(s), a large namespace shown in parts" : " file(s)");
    if (!ns.more_parts && findings.empty() && ns.errors.empty() && !file_errors) {
      out.append("  ok\n");
      return;
    }
    out.append("\n");
  } else if (!findings.empty() || !ns.errors.empty() || file_errors) {
    out.append("  ").append(terminal_safe(ns.path)).append("  (continued: ")
        .append(std::to_string(ns.files.size())).append(" more file(s))\n");
  }
  for (const auto& [finding, subject] : findings) print_finding(out, "    ", *finding, options, subject);
  for (const auto& e : ns.errors) print_error(out, "    ", e, false);
  print_file_errors(out, ns);
}

void render_audit_attach_text(std::string& out, const AttachFacts& attach, const Findings& findings,
                              const TextOptions& options) {
  if (findings.empty() && attach.errors.empty()) return;
  out.append("  ").append(terminal_safe(attach.path)).append("\n");
  print_findings(out, findings, "    ", options);
  for (const auto& e : attach.errors) print_error(out, "    ", e, false);
}

std::string audit_root_closing_text(const TempRootFacts& root, const RootJudgement& rj, std::size_t namespaces,
                                    const TextOptions& options, TextDigest digest) {
  std::string out;
  if (options.verbose) {
    print_findings(out, rj.findings, "  ", options);
    for (const auto& e : root.errors) print_error(out, "  ", e, true);
    for (std::size_t a = 0; a < root.attach_files.size() && a < rj.attach_files.size(); ++a) {
      render_audit_attach_text(out, root.attach_files[a], rj.attach_files[a], options);
    }
  } else {
    digest.add_root(root, rj);
    digest.render(out, options);
  }
  out.append("  ").append(std::to_string(namespaces)).append(" namespace(s) in ").append(terminal_safe(root.shown_temp_dir()));
  if (!options.verbose && namespaces > 0) {
    out.append(", ").append(std::to_string(digest.namespaces_flagged())).append(" with findings or errors");
  }
  if (root.stopped) out.append("; STOPPED (").append(*root.stopped).append(") before its end");
  return out + "\n";
}

namespace {

// The findings at or above --fail-on (which fail the run), and those below it.
struct FailingCounts {
  std::size_t failing = 0;
  std::size_t below = 0;
};

// The summary's findings line: the findings by severity, worst first.
FailingCounts append_findings_line(std::string& out, const AuditTally& tally, const ReportContext& context,
                                   const TextOptions& options) {
  out.append("  findings  ").append(std::to_string(tally.findings)).append(" finding(s)");
  FailingCounts counts;
  std::string by_severity;
  for (int s = static_cast<int>(Severity::critical); s >= static_cast<int>(Severity::info); --s) {
    const auto severity = static_cast<Severity>(s);
    const auto it = tally.by_severity.find(severity);
    if (it == tally.by_severity.end() || it->second == 0) continue;
    (severity >= context.fail_on ? counts.failing : counts.below) += it->second;
    by_severity.append(by_severity.empty() ? "" : ", ").append(std::to_string(it->second)).append(" ")
        .append(severity_word(options, severity));
  }
  if (!by_severity.empty()) out.append(": ").append(by_severity);
  out.append("\n");
  return counts;
}

// Whether the run fails, and why, with its exit code.
std::string run_verdict(const AuditResult& result, const ReportContext& context, FailingCounts counts,
                        const TextOptions& options) {
  const std::string fail_on(to_string(context.fail_on));
  std::string verdict;
  if (result.stopped) {
    verdict.append(styled(options, "1;31", "INCOMPLETE")).append(": stopped (").append(*result.stopped)
        .append(") before everything was observed (exit 3)");
  } else if (result.incomplete) {
    // What was not looked at and why, in one line; a run with nothing counted missing
    // (--containers-only found no temp dir) keeps the general words.
    std::string missing = not_looked_at_line(result.not_looked_at);
    if (missing.empty()) missing = "some temp dirs or processes could not be observed";
    verdict.append(styled(options, "1;31", "INCOMPLETE")).append(": ").append(missing).append(" (exit 3)");
  } else if (counts.failing > 0) {
    verdict.append(styled(options, "1;31", "FAIL")).append(": ").append(std::to_string(counts.failing))
        .append(" finding(s) at or above --fail-on ").append(fail_on).append(" (exit 1)");
  } else {
    verdict.append(styled(options, "32", "clean")).append(": no findings at or above ").append(fail_on);
    if (counts.below > 0) verdict.append(" (").append(std::to_string(counts.below)).append(" below it)");
    verdict.append(" (exit 0)");
  }
  if ((result.stopped || result.incomplete) && counts.failing > 0) {
    verdict.append("; ").append(std::to_string(counts.failing)).append(" finding(s) at or above --fail-on ").append(fail_on);
  }
  return verdict;
}

// What could not be observed: the count JSON gives, and the first.
void append_errors_line(std::string& out, const AuditTally& tally) {
  out.append("  errors    ");
  if (tally.error_count == 0) {
    out.append("none\n");
    return;
  }
  out.append(std::to_string(tally.error_count)).append(" (what could not be observed)");
  if (!tally.errors.empty()) {
    const ObservationError& e = tally.errors.front();
    out.append("; the first: ").append(terminal_safe(e.path)).append(": ").append(terminal_safe(e.op))
        .append(": ").append(terminal_safe(e.message));
  }
  out.append("\n");
}

// The rule of the worst finding (the first of that severity in rule order); empty without any.
std::string worst_rule_of(const AuditTally& tally) {
  std::string worst_rule;
  Severity worst = Severity::info;
  for (const auto& entry : tally.by_rule_and_severity) {
    const auto& [rule, severity] = entry.first;
    if (worst_rule.empty() || severity > worst) {
      worst = severity;
      worst_rule = rule;
    }
  }
  return worst_rule;
}

// What to run next, each command with what it does.
std::vector<std::string> next_commands(const AuditTally& tally, const TextOptions& options) {
  std::vector<std::string> next;
  const std::size_t repairable = tally.repairable;
  const std::string worst_rule = worst_rule_of(tally);
  const std::string scope = terminal_safe(options.scope);
  if (repairable > 0) {
    next.push_back("hsperfguard repair --dry-run" + scope + "   shows how it would fix " +
                   std::to_string(repairable) + " repairable finding(s); without --dry-run it fixes them");
  }
  // The reap planner's count on the same facts (AuditTally::reap), not the verdicts: a
  // hard-linked file, a FIFO or a file younger than --min-age is stale and stays.
  const ReapCount& reap = tally.reap;
  const std::string kept = std::to_string(reap.kept_reapable) + " stale or foreign file(s)";
  if (reap.remove > 0) {
    next.push_back("hsperfguard reap --dry-run" + scope + "   shows what the reaper would remove (" +
                   std::to_string(reap.remove) + " file(s))" +
                   (reap.kept_reapable == 0 ? "" : " and why it keeps " + std::to_string(reap.kept_reapable) +
                                                       " other stale or foreign file(s)"));
  } else if (reap.kept_reapable > 0) {
    next.push_back("hsperfguard reap --dry-run" + scope + "   shows why the reaper keeps " + kept);
  }
  if (!worst_rule.empty()) {
    next.push_back("hsperfguard rules show " + worst_rule + "   what the worst finding means and how to fix it");
  }
  if (!options.verbose && tally.findings > 0) {
    next.push_back("hsperfguard audit --verbose" + scope + "   every finding with its evidence");
  }
  return next;
}

}  // namespace

std::string audit_summary_text(const AuditTally& tally, const AuditResult& result, const ReportContext& context,
                               const TextOptions& options) {
  std::string out = "\n" + bold(options, "summary") + "\n";
  const FailingCounts counts = append_findings_line(out, tally, context, options);
  const std::string verdict = run_verdict(result, context, counts, options);
  append_errors_line(out, tally);
  const std::vector<std::string> next = next_commands(tally, options);
  for (std::size_t n = 0; n < next.size(); ++n) out.append(n == 0 ? "  next      " : "            ").append(next[n]).append("\n");
  // Last, what was checked and the verdict, on one line (what `tail -n 1` of a report gives).
  out.append(std::to_string(tally.namespaces)).append(" namespace(s)");
  // --user: the namespaces of that user were the run's scope, the others were not looked at.
  if (result.scope_user) out.append(" of user ").append(terminal_safe(*result.scope_user));
  out.append(", ")
      .append(std::to_string(tally.files)).append(" file(s), ")
      .append(std::to_string(tally.attach_files)).append(" attach file(s) in ")
      .append(plural(tally.roots, "temp dir", "temp dirs")).append(", ")
      .append(std::to_string(options.jvm_processes)).append(" JVM process(es) looked at; ")
      .append(verdict).append("\n");
  return out;
}

std::string audit_report_text(const AuditResult& result, const ReportContext& context, const TextOptions& options) {
  std::string out;
  for (std::size_t r = 0; r < result.roots.size(); ++r) {
    const auto& root = result.roots[r];
    const auto& rj = result.judgements.at(r);
    out += audit_root_opening_text(root, options);
    TextDigest digest;
    for (std::size_t n = 0; n < root.namespaces.size(); ++n) {
      if (options.verbose) {
        render_audit_namespace_text(out, root.namespaces[n], rj.namespaces.at(n), options);
      } else {
        digest.add_namespace(root.namespaces[n], rj.namespaces.at(n));
      }
    }
    out += audit_root_closing_text(root, rj, root.namespaces.size(), options, std::move(digest));
  }
  AuditTally tally = tally_result(result);
  // As a reap run by the same user when the audit ended would plan.
  tally.reap = count_reap(result, result.finished_at_ms, context.host.euid);
  return out + audit_summary_text(tally, result, context, options);
}

}  // namespace hsperfguard
