// The report for people on a terminal.
#pragma once

#include <string>

#include "audit.hpp"
#include "report_json.hpp"

namespace hsperfguard {

std::string audit_report_text(const AuditResult& result, const ReportContext& context);

}  // namespace hsperfguard
