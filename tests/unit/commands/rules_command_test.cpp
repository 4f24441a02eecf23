// `hsperfguard rules show ID`: one rule from the catalogue, for a person (text) or a tool
// (JSON), and an unknown id answered with the nearest one.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "commands/exit_codes.hpp"
#include "commands/rules_command.hpp"
#include "model/rule_catalog.hpp"

namespace hsperfguard::test {
namespace {

struct Shown {
  int exit_code = -1;
  std::string out, err;
};

Shown show(std::string_view id, bool json = false) {
  std::ostringstream out, err;
  Shown s;
  s.exit_code = run_rules_show_command(id, json, out, err);
  s.out = out.str();
  s.err = err.str();
  return s;
}

TEST(RulesShow, TextHasTheRationaleEvidenceRemedyRepairAndSeverityByProfile) {
  const Shown s = show("namespace.group-other-writable");
  ASSERT_EQ(s.exit_code, kExitOk) << s.err;
  EXPECT_EQ(s.err, "");
  const std::string& t = s.out;
  EXPECT_EQ(t.rfind("namespace.group-other-writable: Namespace is writable by group or others\n", 0), 0u) << t;
  EXPECT_NE(t.find("default high, hotspot high, strict high"), std::string::npos) << t;
  EXPECT_NE(t.find("repair:     `hsperfguard repair` fixes it\n"), std::string::npos) << t;
  EXPECT_NE(t.find("why it matters:\n  Anyone who can write the namespace directory"), std::string::npos) << t;
  EXPECT_NE(t.find("group_writable, mode, mode_numeric, other_writable"), std::string::npos) << t;
  EXPECT_NE(t.find("remedy:\n  Remove the write bits"), std::string::npos) << t;
  EXPECT_NE(t.find("platforms:  linux\n"), std::string::npos) << t;
  EXPECT_NE(t.find("references: JDK-8050807, CWE-732"), std::string::npos) << t;
  // A rule the hotspot profile disables, and one repair does not fix.
  const Shown mode = show("file.mode");
  EXPECT_NE(mode.out.find("hotspot off"), std::string::npos) << mode.out;
  const Shown owner = show("namespace.owner-mismatch");
  EXPECT_NE(owner.out.find("`hsperfguard repair` does not fix it"), std::string::npos) << owner.out;
}

TEST(RulesShow, EveryRuleIsShownWithItsCatalogueTextInJson) {
  for (const auto& [id, info] : rule_catalog()) {
    const Shown s = show(id, true);
    ASSERT_EQ(s.exit_code, kExitOk) << id << s.err;
    const auto j = nlohmann::json::parse(s.out);
    EXPECT_EQ(j.at("id"), id);
    EXPECT_EQ(j.at("rationale"), info.rationale) << id;
    EXPECT_EQ(j.at("remediation"), info.remediation) << id;
    EXPECT_EQ(j.at("evidence"), info.evidence) << id;
    EXPECT_EQ(j.at("repairable"), info.repairable) << id;
    ASSERT_TRUE(j.at("severity_by_profile").is_object()) << id;
    for (const auto& profile : profile_names()) {
      const auto& severity = j.at("severity_by_profile").at(profile);
      const bool enabled = builtin_profile(profile)->enabled(id);
      EXPECT_EQ(severity.is_null(), !enabled) << id << " " << profile;
      // The severity shown is the one the audit gives the rule's findings under that profile.
      if (enabled) {
        Finding finding;
        finding.rule = id;
        const Findings judged = apply_policy_to_findings({finding}, *builtin_profile(profile));
        ASSERT_EQ(judged.size(), 1u) << id << " " << profile;
        EXPECT_EQ(severity, std::string(to_string(judged[0].severity))) << id << " " << profile;
      }
    }
  }
  const auto strict = nlohmann::json::parse(show("namespace.not-private", true).out);
  EXPECT_EQ(strict.at("severity_by_profile").at("default"), nullptr);
  EXPECT_EQ(strict.at("severity_by_profile").at("strict"), "medium");
}

TEST(RulesShow, UnknownIdIsAUsageErrorNamingTheNearestId) {
  const Shown typo = show("namespace.group-writable");
  EXPECT_EQ(typo.exit_code, kExitUsage);
  EXPECT_EQ(typo.out, "");
  EXPECT_NE(typo.err.find("no rule \"namespace.group-writable\"; did you mean namespace.group-other-writable?"),
            std::string::npos)
      << typo.err;
  const Shown bare = show("mode");
  EXPECT_NE(bare.err.find("did you mean file.mode?"), std::string::npos) << bare.err;
  const Shown nothing = show("zzzzzzzzzzzzzzzzzzzz");
  EXPECT_EQ(nothing.exit_code, kExitUsage);
  EXPECT_EQ(nothing.err.find("did you mean"), std::string::npos) << nothing.err;
  EXPECT_NE(nothing.err.find("`hsperfguard rules` lists every id"), std::string::npos) << nothing.err;
}

}  // namespace
}  // namespace hsperfguard::test
