// The report for people on a terminal. Each temp dir opens with a line; without --verbose its
// findings are gathered as the audit goes (a TextDigest per temp dir: counts and the first
// names, never the findings) and shown at its end worst first, those of one rule and one
// remedy as one entry across its namespaces and their parts; --verbose writes each namespace
// (or part of one) as it is judged, every finding with its evidence. The totals come last.
// Every name and message from the file system is made terminal_safe.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "decide/audit.hpp"
#include "report/audit_report_json.hpp"

namespace hsperfguard {

// How the text is written.
struct TextOptions {
  // Every finding on its own with its evidence; otherwise a namespace's (or part's) file
  // findings of one rule and remedy are one entry with a count and the first few names.
  bool verbose = false;
  // ANSI colours and bold (severity words, headers): a terminal only, never a file.
  bool color = false;
  // The audit's target options ("--tmpdir DIR", "--container PID"; empty for the host), for
  // the commands the summary suggests.
  std::string scope;
  // JVM processes looked at (the summary says what was checked).
  std::size_t jvm_processes = 0;
};

// The audit's colours, for every command's text: `text` in the ANSI style `code` ("1;31" bold
// red, "33" yellow, "32" green, "2" dim) when `color`, else as it is; a severity word in its
// colour (high and critical bold red, medium yellow, low and info dim).
std::string styled_text(bool color, std::string_view code, std::string_view text);
std::string severity_text(bool color, Severity severity);
// What a finding is about, for the words of a group ("150 namespaces", "5000 files").
enum class TextSubject { temp_dir = 0, namespace_dir = 1, file = 2, attach = 3 };

// The findings and errors of a temp dir (or of one namespace part, merged in order into its
// temp dir's), without --verbose. Findings of one severity, rule, subject kind, repairability
// and remedy shape (the remedy with its path, namespace, user and owner ids put back as the
// catalogue's placeholders) are one group: its count, the first kNamesShown paths by name,
// the finding of the first of them, and how many namespaces it spans. Errors of one operation
// and message are one group too. Memory grows with the groups, not with the findings: past
// kMaxGroups shapes, a rule's further findings share one group whose remedies differ.
class TextDigest {
 public:
  static constexpr std::size_t kNamesShown = 3;
  static constexpr std::size_t kMaxGroups = 1024;

  // A namespace part's findings and errors (and those of its files).
  void add_namespace(const NamespaceFacts& ns, const NamespaceJudgement& judgement);
  // The temp dir's own findings and errors; an attach file's.
  void add_root(const TempRootFacts& root, const RootJudgement& judgement);
  void add_attach(const AttachFacts& attach, const Findings& findings);
  // A later namespace part, or the next namespaces, of the same temp dir.
  void merge(TextDigest&& later);
  // The groups worst first (severity, then rule, then the first path), then the errors.
  void render(std::string& out, const TextOptions& options) const;
  // Namespaces with a finding or an error (a namespace in parts counts once).
  std::size_t namespaces_flagged() const { return flagged_; }

 private:
  struct Group {
    Finding first;  // the finding of the first path by name
    std::size_t count = 0;
    std::vector<std::string> names;  // the first kNamesShown paths by name, sorted
    std::size_t namespaces = 0;      // namespaces spanned (file findings)
    std::string first_namespace;
    std::string last_namespace;
    std::string shape;
    bool remedies_differ = false;
  };
  // Severity (worst first), rule, subject, repairable, shape.
  using Key = std::tuple<int, std::string, int, bool, std::string>;
  struct ErrorGroup {
    std::size_t count = 0;
    std::string first_path;
  };
  void add(const Finding& finding, TextSubject subject, std::string_view ns_path, std::string_view user);
  void add_error(const ObservationError& error);
  Group& group_for(Key key);
  void flag(const std::string& ns_path);

  std::map<Key, Group> groups_;
  std::map<std::pair<std::string, std::string>, ErrorGroup> errors_;
  std::size_t flagged_ = 0;
  std::string first_flagged_;
  std::string last_flagged_;
};

// A finding's remedy with the words that name its subject put back as the catalogue's
// placeholders (<path>, <namespace>, <user>, and <uid> and <gid> of a command run as the
// owner): what one remedy for many subjects says. Each word is replaced only where it stands
// as a whole word (what shell_word made of that name), the user only inside a command.
std::string remedy_shape(std::string_view remedy, std::string_view path, std::string_view ns_path,
                         std::string_view user);

// --verbose evidence as "key: value" lines under `indent`, nested values indented further;
// a string is quoted (JSON) unless it is plain (letters, digits and ._/:+@%,-).
void append_evidence_lines(std::string& out, const nlohmann::json& evidence, std::string_view indent);

// Whose a temp dir is, in words: "this host's", "named by --tmpdir", "of the system root DIR,
// named by --root", "a container's, host pid N" (audit and reap text say it alike).
std::string temp_dir_whose(const TempRootFacts& root);
// "temp dir /tmp (this host's)": the temp dir, named as it is reached, and whose it is.
std::string audit_root_opening_text(const TempRootFacts& root, const TextOptions& options = {});
// --verbose: one namespace, or one part of a large one, appended to `text`, its findings
// worst first.
void render_audit_namespace_text(std::string& text, const NamespaceFacts& ns, const NamespaceJudgement& judgement,
                                 const TextOptions& options = {});
// An attach file judged apart from its temp dir, appended to `text` (nothing when it has
// neither finding nor error): its path and findings, as the closing text shows the temp dir's.
void render_audit_attach_text(std::string& text, const AttachFacts& attach, const Findings& findings,
                              const TextOptions& options = {});
// After the namespaces of a temp dir: its findings, errors and attach files, and how many
// namespaces it holds. Without --verbose, `digest` holds what its namespaces and attach files
// had; the temp dir's own findings and errors are added to it, and it is shown worst first.
std::string audit_root_closing_text(const TempRootFacts& root, const RootJudgement& judgement,
                                    std::size_t namespaces, const TextOptions& options = {},
                                    TextDigest digest = {});
// The summary: what was checked, the findings by severity, whether the run fails at
// --fail-on and why, the errors, and what to run next.
std::string audit_summary_text(const AuditTally& tally, const AuditResult& result, const ReportContext& context,
                               const TextOptions& options = {});

// --quiet: what needs a person, for cron to mail, one line per finding at or above
// `at_least`: "SEVERITY RULE PATH: MESSAGE; fix: REMEDIATION", every part terminal_safe.
// A namespace's (and its files') findings, appended to `text`; a temp dir's own and its
// attach files'.
void render_attention_namespace(std::string& text, const NamespaceJudgement& judgement, Severity at_least);
std::string attention_root_text(const RootJudgement& judgement, Severity at_least);
// --quiet: findings (an attach file's) at or above at_least, one line each.
void render_attention_findings(std::string& text, const Findings& findings, Severity at_least);

// A whole result (namespaces kept) through the same pieces.
std::string audit_report_text(const AuditResult& result, const ReportContext& context,
                              const TextOptions& options = {});

}  // namespace hsperfguard
