// The `audit` command end to end: options in, report out, exit code back.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>

#include "finding.hpp"

namespace hsperfguard {

enum class ReportFormat { json, text };

struct AuditCommandOptions {
  std::optional<std::string> tmpdir;
  std::optional<std::string> root;
  std::string profile = "default";
  std::optional<std::string> policy_file;
  std::optional<ReportFormat> format;  // default: text on a terminal, JSON otherwise
  std::optional<std::string> output;   // written to a temp name, then renamed
  Severity fail_on = Severity::medium;
};

int run_audit_command(const AuditCommandOptions& options, std::ostream& out, std::ostream& err);

}  // namespace hsperfguard
