#include "report_text.hpp"

#include <sstream>

#include "text_escape.hpp"

namespace hsperfguard {
namespace {

void print_findings(std::ostringstream& out, const Findings& findings, const char* indent) {
  for (const auto& f : findings) {
    out << indent << "[" << to_string(f.severity) << "] " << f.rule << ": "
        << escape_non_utf8(f.message) << "\n"
        << indent << "    fix: " << f.remediation << "\n";
  }
}

}  // namespace

std::string audit_report_text(const AuditResult& result, const ReportContext& context) {
  std::ostringstream out;
  std::size_t namespaces = 0, files = 0;
  for (std::size_t r = 0; r < result.roots.size(); ++r) {
    const auto& root = result.roots[r];
    const auto& rj = result.judgements.at(r);
    out << "temp dir " << escape_non_utf8(root.temp_dir);
    if (root.kind != RootKind::host) out << " (" << to_string(root.kind) << " " << escape_non_utf8(root.root) << ")";
    out << ": " << root.namespaces.size() << " namespace(s)\n";
    print_findings(out, rj.findings, "  ");
    for (const auto& e : root.errors) {
      out << "  error: " << escape_non_utf8(e.path) << ": " << e.op << ": " << e.message << "\n";
    }
    for (std::size_t n = 0; n < root.namespaces.size(); ++n) {
      const auto& ns = root.namespaces[n];
      const auto& nj = rj.namespaces.at(n);
      ++namespaces;
      files += ns.files.size();
      std::size_t file_findings = 0;
      for (const auto& fj : nj.files) file_findings += fj.findings.size();
      out << "  " << escape_non_utf8(ns.path) << "  " << ns.files.size() << " file(s)";
      if (nj.findings.empty() && file_findings == 0 && ns.errors.empty()) {
        out << "  ok\n";
        continue;
      }
      out << "\n";
      print_findings(out, nj.findings, "    ");
      for (const auto& e : ns.errors) {
        out << "    error: " << e.op << ": " << e.message << "\n";
      }
      for (std::size_t f = 0; f < ns.files.size(); ++f) {
        if (nj.files[f].findings.empty()) continue;
        out << "    " << escape_non_utf8(ns.files[f].name) << "\n";
        print_findings(out, nj.files[f].findings, "      ");
      }
    }
    for (std::size_t a = 0; a < root.attach_files.size(); ++a) {
      if (rj.attach_files[a].empty()) continue;
      out << "  " << escape_non_utf8(root.attach_files[a].path) << "\n";
      print_findings(out, rj.attach_files[a], "    ");
    }
  }
  std::size_t total = 0;
  for_each_finding(result, [&](const Finding&) { ++total; });
  const auto worst = highest_severity(result);
  out << "\n" << namespaces << " namespace(s), " << files << " file(s), " << total << " finding(s)";
  if (worst) out << ", highest " << to_string(*worst);
  out << "; failing at " << to_string(context.fail_on) << " or above";
  if (result.incomplete) out << "; INCOMPLETE: some temp dirs could not be observed";
  out << "\n";
  return out.str();
}

}  // namespace hsperfguard
