#include "report/report_text.hpp"

#include "model/text_escape.hpp"

namespace hsperfguard {
namespace {

void print_findings(std::string& out, const Findings& findings, const char* indent) {
  for (const auto& f : findings) {
    out.append(indent).append("[").append(to_string(f.severity)).append("] ").append(f.rule).append(": ");
    out.append(terminal_safe(f.message)).append("\n");
    out.append(indent).append("    fix: ").append(terminal_safe(f.remediation)).append("\n");
  }
}

void print_error(std::string& out, const char* indent, const ObservationError& e, bool with_path) {
  out.append(indent).append("error: ");
  if (with_path) out.append(terminal_safe(e.path)).append(": ");
  out.append(terminal_safe(e.op)).append(": ").append(terminal_safe(e.message)).append("\n");
}

void print_attention(std::string& out, const Findings& findings, Severity at_least) {
  for (const auto& f : findings) {
    if (f.severity < at_least) continue;
    out.append(to_string(f.severity)).append(" ").append(f.rule).append(" ");
    out.append(terminal_safe(f.path)).append(": ").append(terminal_safe(f.message));
    out.append("; fix: ").append(terminal_safe(f.remediation)).append("\n");
  }
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

std::string audit_root_opening_text(const TempRootFacts& root) {
  std::string out = "temp dir " + terminal_safe(root.shown_temp_dir());
  if (root.kind != RootKind::host) {
    out.append(" (").append(to_string(root.kind)).append(" ").append(terminal_safe(root.root)).append(")");
  }
  return out + "\n";
}

void render_audit_namespace_text(std::string& out, const NamespaceFacts& ns, const NamespaceJudgement& nj) {
  std::size_t file_findings = 0;
  for (const auto& fj : nj.files) file_findings += fj.findings.size();
  if (ns.part == 0) {
    out.append("  ").append(terminal_safe(ns.path)).append("  ").append(std::to_string(ns.files.size()));
    out.append(ns.more_parts ? "+ file(s), a large namespace shown in parts" : " file(s)");
    if (!ns.more_parts && nj.findings.empty() && file_findings == 0 && ns.errors.empty()) {
      out.append("  ok\n");
      return;
    }
    out.append("\n");
  } else if (file_findings > 0 || !ns.errors.empty()) {
    out.append("  ").append(terminal_safe(ns.path)).append("  (continued: ")
        .append(std::to_string(ns.files.size())).append(" more file(s))\n");
  }
  print_findings(out, nj.findings, "    ");
  for (const auto& e : ns.errors) print_error(out, "    ", e, false);
  for (std::size_t f = 0; f < ns.files.size() && f < nj.files.size(); ++f) {
    if (nj.files[f].findings.empty()) continue;
    out.append("    ").append(terminal_safe(ns.files[f].name)).append("\n");
    print_findings(out, nj.files[f].findings, "      ");
  }
}

void render_audit_attach_text(std::string& out, const AttachFacts& attach, const Findings& findings) {
  if (findings.empty()) return;
  out.append("  ").append(terminal_safe(attach.path)).append("\n");
  print_findings(out, findings, "    ");
}

std::string audit_root_closing_text(const TempRootFacts& root, const RootJudgement& rj, std::size_t namespaces) {
  std::string out;
  print_findings(out, rj.findings, "  ");
  for (const auto& e : root.errors) print_error(out, "  ", e, true);
  for (std::size_t a = 0; a < root.attach_files.size() && a < rj.attach_files.size(); ++a) {
    render_audit_attach_text(out, root.attach_files[a], rj.attach_files[a]);
  }
  out.append("  ").append(std::to_string(namespaces)).append(" namespace(s) in ").append(terminal_safe(root.shown_temp_dir()));
  if (root.stopped) out.append("; STOPPED (").append(*root.stopped).append(") before its end");
  return out + "\n";
}

std::string audit_summary_text(const AuditTally& tally, const AuditResult& result, const ReportContext& context) {
  std::string out = "\n" + std::to_string(tally.namespaces) + " namespace(s), " + std::to_string(tally.files) +
                    " file(s), " + std::to_string(tally.findings) + " finding(s)";
  if (tally.worst) out.append(", highest ").append(to_string(*tally.worst));
  out.append("; failing at ").append(to_string(context.fail_on)).append(" or above");
  if (result.stopped) {
    out.append("; INCOMPLETE: stopped (").append(*result.stopped).append(") before everything was observed");
  } else if (result.incomplete) {
    out.append("; INCOMPLETE: some temp dirs could not be observed");
  }
  return out + "\n";
}

std::string audit_report_text(const AuditResult& result, const ReportContext& context) {
  std::string out;
  for (std::size_t r = 0; r < result.roots.size(); ++r) {
    const auto& root = result.roots[r];
    const auto& rj = result.judgements.at(r);
    out += audit_root_opening_text(root);
    for (std::size_t n = 0; n < root.namespaces.size(); ++n) {
      render_audit_namespace_text(out, root.namespaces[n], rj.namespaces.at(n));
    }
    out += audit_root_closing_text(root, rj, root.namespaces.size());
  }
  return out + audit_summary_text(tally_result(result), result, context);
}

}  // namespace hsperfguard
