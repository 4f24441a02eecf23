#include "commands/rules_command.hpp"

#include <CLI/CLI.hpp>
#include <iomanip>
#include <iostream>
#include <memory>
#include <ostream>

#include "commands/exit_codes.hpp"
#include "model/rule_catalog.hpp"
#include "report/report_json.hpp"

namespace hsperfguard {

int run_rules_command(bool json, std::ostream& out) {
  if (json) {
    nlohmann::json rules = nlohmann::json::array();
    for (const auto& [id, r] : rule_catalog()) {
      rules.push_back({{"id", r.id},
                       {"title", r.title},
                       {"severity", to_string(r.severity)},
                       {"applies_to", r.applies_to},
                       {"platforms", r.platforms},
                       {"rationale", r.rationale},
                       {"remediation", r.remediation},
                       {"references", r.references},
                       {"repairable", r.repairable}});
    }
    out << dump_json({{"rules", rules}, {"profiles", profile_names()}}) << "\n";
    return kExitOk;
  }
  std::size_t width = 0;
  for (const auto& [id, r] : rule_catalog()) width = std::max(width, id.size());
  for (const auto& [id, r] : rule_catalog()) {
    out << std::left << std::setw(static_cast<int>(width)) << id << "  " << std::setw(8)
        << to_string(r.severity) << "  " << r.title << (r.repairable ? "  [repairable]" : "") << "\n";
  }
  return kExitOk;
}

SubcommandHook add_rules_command(CLI::App& app) {
  auto format = std::make_shared<std::string>("text");
  auto* cmd = app.add_subcommand("rules", "List the rule catalogue");
  cmd->add_option("--format", *format, "json or text")->check(CLI::IsMember({"json", "text"}));
  return SubcommandHook{cmd,
                        [format]() { return run_rules_command(*format == "json", std::cout); }};
}

}  // namespace hsperfguard
