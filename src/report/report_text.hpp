// The report for people on a terminal, written as the audit goes: each temp dir opens with a
// line, each namespace (or part of one) is rendered on the worker that judged it, the temp
// dir's own findings, errors and attach files follow its namespaces, and the totals come last.
// Every name and message from the file system is made terminal_safe.
#pragma once

#include <cstddef>
#include <string>

#include "decide/audit.hpp"
#include "report/report_json.hpp"

namespace hsperfguard {

// "temp dir /tmp" (and what kind of root it is).
std::string audit_root_opening_text(const TempRootFacts& root);
// One namespace, or one part of a large one, appended to `text`.
void render_audit_namespace_text(std::string& text, const NamespaceFacts& ns, const NamespaceJudgement& judgement);
// An attach file judged apart from its temp dir, appended to `text` (nothing when it has no
// finding): its path and findings, as the closing text shows those of the temp dir's.
void render_audit_attach_text(std::string& text, const AttachFacts& attach, const Findings& findings);
// After the namespaces of a temp dir: its findings, errors and attach files, and how many
// namespaces it holds.
std::string audit_root_closing_text(const TempRootFacts& root, const RootJudgement& judgement,
                                    std::size_t namespaces);
// The totals.
std::string audit_summary_text(const AuditTally& tally, const AuditResult& result, const ReportContext& context);

// --quiet: what needs a person, for cron to mail, one line per finding at or above
// `at_least`: "SEVERITY RULE PATH: MESSAGE; fix: REMEDIATION", every part terminal_safe.
// A namespace's (and its files') findings, appended to `text`; a temp dir's own and its
// attach files'.
void render_attention_namespace(std::string& text, const NamespaceJudgement& judgement, Severity at_least);
std::string attention_root_text(const RootJudgement& judgement, Severity at_least);
// --quiet: findings (an attach file's) at or above at_least, one line each.
void render_attention_findings(std::string& text, const Findings& findings, Severity at_least);

// A whole result (namespaces kept) through the same pieces.
std::string audit_report_text(const AuditResult& result, const ReportContext& context);

}  // namespace hsperfguard
