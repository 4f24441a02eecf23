#include "commands/rules_command.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <iomanip>
#include <iostream>
#include <memory>
#include <ostream>
#include <sstream>
#include <string_view>
#include <vector>

#include "commands/exit_codes.hpp"
#include "commands/help_format.hpp"
#include "model/nearest_word.hpp"
#include "model/rule_catalog.hpp"
#include "report/audit_report_json.hpp"

namespace hsperfguard {
namespace {

// The catalogue id nearest to `id`, when one is near enough to be what was meant: the one
// nearest_match finds, else the only id that contains it (`mode` -> `file.mode`).
std::optional<std::string> nearest_rule(std::string_view id) {
  std::vector<std::string> ids;
  std::vector<std::string> containing;
  for (const auto& [candidate, info] : rule_catalog()) {
    ids.push_back(candidate);
    if (!id.empty() && std::string_view(candidate).find(id) != std::string_view::npos) containing.push_back(candidate);
  }
  if (auto near = nearest_match(id, ids)) return near;
  if (containing.size() == 1) return containing.front();
  return std::nullopt;
}

// The severity each built-in profile gives the rule; nullopt where the profile disables it.
std::vector<std::pair<std::string, std::optional<Severity>>> severity_by_profile(const RuleInfo& rule) {
  std::vector<std::pair<std::string, std::optional<Severity>>> out;
  for (const auto& name : profile_names()) {
    const auto profile = builtin_profile(name);
    if (!profile) continue;
    if (profile->enabled(rule.id)) {
      out.emplace_back(name, profile->severity_of(rule.id, rule.severity));
    } else {
      out.emplace_back(name, std::nullopt);
    }
  }
  return out;
}

// `text` as lines of at most `width` columns, each after `indent`.
void wrapped(std::ostream& out, std::string_view text, std::string_view indent, std::size_t width = 78) {
  std::istringstream words{std::string(text)};
  std::string word;
  std::size_t column = 0;
  while (words >> word) {
    if (column > 0 && column + 1 + word.size() > width) {
      out << "\n";
      column = 0;
    }
    if (column == 0) {
      out << indent << word;
      column = indent.size() + word.size();
    } else {
      out << " " << word;
      column += 1 + word.size();
    }
  }
  out << "\n";
}

std::string joined(const std::vector<std::string>& items, std::string_view separator = ", ") {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : std::string(separator)) + item;
  return out;
}

nlohmann::json rule_json(const RuleInfo& r) {
  return {{"id", r.id},
          {"title", r.title},
          {"severity", to_string(r.severity)},
          {"applies_to", r.applies_to},
          {"platforms", r.platforms},
          {"rationale", r.rationale},
          {"evidence", r.evidence},
          {"remediation", r.remediation},
          {"references", r.references},
          {"repairable", r.repairable}};
}

}  // namespace

int run_rules_command(bool json, std::ostream& out) {
  if (json) {
    nlohmann::json rules = nlohmann::json::array();
    for (const auto& [id, r] : rule_catalog()) rules.push_back(rule_json(r));
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

int run_rules_show_command(std::string_view id, bool json, std::ostream& out, std::ostream& err) {
  const RuleInfo* rule = find_rule(id);
  if (rule == nullptr) {
    err << "hsperfguard: rules show: no rule " << nlohmann::json(std::string(id)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    if (const auto near = nearest_rule(id)) err << "; did you mean " << *near << "?";
    err << " (`hsperfguard rules` lists every id)\n";
    return kExitUsage;
  }
  const auto by_profile = severity_by_profile(*rule);
  const std::string repair = rule->repairable ? "`hsperfguard repair` fixes it"
                                              : "`hsperfguard repair` does not fix it: follow the remedy";
  if (json) {
    nlohmann::json j = rule_json(*rule);
    nlohmann::json profiles = nlohmann::json::object();
    for (const auto& [name, severity] : by_profile) {
      profiles[name] = severity ? nlohmann::json(to_string(*severity)) : nlohmann::json(nullptr);
    }
    j["severity_by_profile"] = profiles;
    j["repair"] = repair;
    out << dump_json(j) << "\n";
    return kExitOk;
  }
  out << rule->id << ": " << rule->title << "\n\n";
  out << "severity:   ";
  bool first = true;
  for (const auto& [name, severity] : by_profile) {
    out << (first ? "" : ", ") << name << " " << (severity ? to_string(*severity) : "off");
    first = false;
  }
  out << " (by profile; a policy file may change it: hsperfguard-policy(5))\n";
  out << "applies to: " << joined(rule->applies_to) << "\n";
  out << "platforms:  " << joined(rule->platforms) << "\n";
  out << "repair:     " << repair << "\n";
  out << "\nwhy it matters:\n";
  wrapped(out, rule->rationale, "  ");
  out << "\nevidence (each finding's observed values, in the JSON report):\n";
  wrapped(out, joined(rule->evidence), "  ");
  out << "\nremedy:\n";
  wrapped(out, rule->remediation, "  ");
  if (!rule->references.empty()) out << "\nreferences: " << joined(rule->references) << "\n";
  return kExitOk;
}

SubcommandHook add_rules_command(CLI::App& app) {
  struct Parsed {
    std::string format = "text";
    std::string show_format = "text";
    std::string id;
  };
  auto p = std::make_shared<Parsed>();
  auto* cmd = app.add_subcommand("rules", "List the rule catalogue; `rules show ID` explains one rule");
  cmd->add_option("-f,--format", p->format, "json or text")->check(CLI::IsMember({"json", "text"}));
  auto* show = cmd->add_subcommand(
      "show", "One rule: why it matters, its evidence, its remedy, whether repair fixes it, its severity by profile");
  // Type RULE: the shell completion offers the catalogue's ids (commands/completion.cpp).
  show->add_option("ID", p->id, "The rule id (e.g. namespace.group-other-writable)")->type_name("RULE")->required();
  show->add_option("-f,--format", p->show_format, "json or text")->check(CLI::IsMember({"json", "text"}));
  return SubcommandHook{cmd, [p, show]() {
                          if (show->parsed()) {
                            return run_rules_show_command(p->id, p->show_format == "json", std::cout, std::cerr);
                          }
                          return run_rules_command(p->format == "json", std::cout);
                        }};
}

}  // namespace hsperfguard
