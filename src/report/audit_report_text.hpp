// The report for people on a terminal, written as the audit goes: each temp dir opens with a
// line, each namespace (or part of one) is rendered on the worker that judged it, the temp
// dir's own findings, errors and attach files follow its namespaces, and the totals come last.
// Every name and message from the file system is made terminal_safe.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

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

// Whose a temp dir is, in words: "this host's", "named by --tmpdir", "of the system root DIR,
// named by --root", "a container's, host pid N" (audit and reap text say it alike).
std::string temp_dir_whose(const TempRootFacts& root);
// "temp dir /tmp (this host's)": the temp dir, named as it is reached, and whose it is.
std::string audit_root_opening_text(const TempRootFacts& root, const TextOptions& options = {});
// One namespace, or one part of a large one, appended to `text`.
void render_audit_namespace_text(std::string& text, const NamespaceFacts& ns, const NamespaceJudgement& judgement,
                                 const TextOptions& options = {});
// An attach file judged apart from its temp dir, appended to `text` (nothing when it has
// neither finding nor error): its path and findings, as the closing text shows the temp dir's.
void render_audit_attach_text(std::string& text, const AttachFacts& attach, const Findings& findings,
                              const TextOptions& options = {});
// After the namespaces of a temp dir: its findings, errors and attach files, and how many
// namespaces it holds.
std::string audit_root_closing_text(const TempRootFacts& root, const RootJudgement& judgement,
                                    std::size_t namespaces, const TextOptions& options = {});
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
