// What a version 2 report states once: the path templates of shared texts (and that filling
// them gives the text back), the bounded table of texts, the rules of a run's policy, and a
// finding written against them with nothing it shares with its rule.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "model/json_text.hpp"
#include "model/rule_catalog.hpp"
#include "report/finding_json.hpp"

namespace hsperfguard {
namespace {

std::string filled(std::string text, const std::string& path) {
  for (std::size_t at = text.find("<path>"); at != std::string::npos; at = text.find("<path>", at + path.size())) {
    text.replace(at, 6, path);
  }
  return text;
}

TEST(FindingJson, PathTemplateGivesTheTextBackWhenFilled) {
  const std::string path = "/tmp/hsperfdata_bob/4242";
  const std::string text = "backing file " + path + " has size 1; remove " + path + " (" + path + "x)";
  const auto templated = path_template(text, path);
  ASSERT_TRUE(templated);
  EXPECT_EQ(*templated, "backing file <path> has size 1; remove <path> (<path>x)");
  EXPECT_EQ(filled(*templated, path), text);
  // A path ending in what opens the placeholder, and one holding a piece of it.
  for (const std::string& odd : {std::string("/tmp/a<"), std::string("/tmp/<pat"), std::string("path>")}) {
    const std::string t = "at " + odd + " and " + odd + "x>";
    const auto tt = path_template(t, odd);
    ASSERT_TRUE(tt) << odd;
    EXPECT_EQ(filled(*tt, odd), t) << odd;
  }
  // A text that holds the placeholder itself cannot be a template: no consumer could tell.
  EXPECT_FALSE(path_template("a file named <path> at " + path, path));
  EXPECT_EQ(*path_template("no path here", ""), "no path here");
}

TEST(FindingJson, TextsShareLongTextsByKeyAndStopAtTheBound) {
  ReportTexts texts;
  EXPECT_FALSE(texts.key_for("short"));
  const std::string text(50, 'a');
  const auto key = texts.key_for(text);
  ASSERT_TRUE(key);
  EXPECT_EQ(key->size(), 12U);
  EXPECT_EQ(texts.key_for(text), key);  // the same text, the same key
  for (std::size_t i = 1; i < ReportTexts::kMaxTexts; ++i) {
    EXPECT_TRUE(texts.key_for(std::string(50, 'a') + std::to_string(i)));
  }
  EXPECT_FALSE(texts.key_for(std::string(50, 'b'))) << "past the bound a text is written where it is used";
  EXPECT_TRUE(texts.key_for(text)) << "what is already shared stays shared";
  EXPECT_EQ(texts.to_json().size(), ReportTexts::kMaxTexts);
  EXPECT_EQ(texts.to_json().at(*key), text);
}

TEST(FindingJson, RulesAreThePolicysEnabledOnesWithItsSeverities) {
  Policy policy = *builtin_profile("default");
  policy.rules["file.stale"].enabled = false;
  policy.rules["file.mode"].severity = Severity::critical;
  const ReportRules rules(policy);
  EXPECT_FALSE(rules.index_of("file.stale"));
  EXPECT_FALSE(rules.index_of("no.such-rule"));
  const auto mode = rules.index_of("file.mode");
  ASSERT_TRUE(mode);
  EXPECT_EQ(rules.severity_at(*mode), Severity::critical);
  const nlohmann::json listed = rules.to_json();
  const nlohmann::json& entry = listed.at(*mode);
  EXPECT_EQ(entry.at("id"), "file.mode");
  EXPECT_EQ(entry.at("severity"), "critical");
  EXPECT_EQ(entry.at("default_severity"), to_string(find_rule("file.mode")->severity));
  EXPECT_EQ(entry.at("title"), find_rule("file.mode")->title);
  EXPECT_EQ(entry.at("rationale"), find_rule("file.mode")->rationale);
  EXPECT_EQ(entry.at("remediation"), find_rule("file.mode")->remediation);
  std::size_t enabled = 0;
  for (const auto& [id, info] : rule_catalog()) enabled += policy.enabled(id) ? 1 : 0;
  EXPECT_EQ(listed.size(), enabled);
}

// A finding of its subject, of its rule's severity and not repairable carries its rule, its
// evidence and its texts only; what differs from its rule or subject stays in it.
TEST(FindingJson, FindingCarriesOnlyWhatIsItsOwn) {
  const Policy policy = *builtin_profile("default");
  const ReportRules rules(policy);
  ReportTexts texts;
  const std::string path = "/tmp/hsperfdata_bob/4242";
  const RuleInfo& info = *find_rule("file.mode");
  Finding plain{"file.mode", info.severity, path, "backing file " + path + " has mode 0644 (group or others)",
                {{"mode", "0644"}}, "chmod 0600 " + path + "; then find what created the file"};
  Finding odd = plain;
  odd.path = "/tmp/hsperfdata_bob";
  odd.severity = Severity::critical;
  odd.repairable = true;
  odd.message = "short";
  const nlohmann::json written = report_findings_json({plain, odd}, {&rules, &texts, path});
  const nlohmann::json& a = written.at(0);
  EXPECT_FALSE(a.contains("path"));
  EXPECT_FALSE(a.contains("severity"));
  EXPECT_FALSE(a.contains("repairable"));
  EXPECT_FALSE(a.contains("message"));
  EXPECT_FALSE(a.contains("remediation"));
  EXPECT_FALSE(a.contains("title"));
  EXPECT_EQ(a.at("rule"), "file.mode");
  EXPECT_EQ(a.at("rule_index"), *rules.index_of("file.mode"));
  EXPECT_EQ(a.at("evidence"), plain.evidence);
  const nlohmann::json table = texts.to_json();
  EXPECT_EQ(filled(table.at(a.at("message_ref").get<std::string>()), path), plain.message);
  EXPECT_EQ(filled(table.at(a.at("remediation_ref").get<std::string>()), path), plain.remediation);
  const nlohmann::json& b = written.at(1);
  EXPECT_EQ(b.at("path"), odd.path);
  EXPECT_EQ(b.at("severity"), "critical");
  EXPECT_EQ(b.at("repairable"), true);
  EXPECT_EQ(b.at("message"), "short");
  // Its remediation names another path than its own: shared as it is, filled by its own path.
  EXPECT_EQ(filled(table.at(b.at("remediation_ref").get<std::string>()), odd.path), odd.remediation);
  // Without a table every text is written in the finding.
  const nlohmann::json alone = report_findings_json({plain}, {&rules, nullptr, path});
  EXPECT_EQ(alone.at(0).at("message"), plain.message);
  EXPECT_EQ(alone.at(0).at("remediation"), plain.remediation);
}

// Evidence is written as it is only when every string and key in it, at any depth, is valid
// UTF-8; bytes that are not, in an array, a key or a nested object, are escaped as everywhere
// else (sanitize_json), so the report stays valid JSON.
TEST(FindingJson, EvidenceWithBytesThatAreNotUtf8AtAnyDepthIsEscaped) {
  const Policy policy = *builtin_profile("default");
  const ReportRules rules(policy);
  const std::string path = "/tmp/hsperfdata_bob/4242";
  const std::string bad = std::string("na") + static_cast<char>(0xff) + "me";
  const std::vector<nlohmann::json> evidences = {
      {{"names", {"ok", bad}}},              // in an array, after a valid string
      {{bad, 1}},                            // a key, with a valid value
      {{"outer", {{"inner", {{"x", bad}}}}}},  // nested objects
  };
  for (const nlohmann::json& evidence : evidences) {
    Finding f{"file.mode", Severity::medium, path, "mode", evidence, "chmod 0600 " + path};
    std::string out;
    append_report_findings(out, {f}, {&rules, nullptr, path});
    nlohmann::json parsed;
    ASSERT_NO_THROW(parsed = nlohmann::json::parse(out)) << out;
    EXPECT_EQ(parsed.at(0).at("evidence"), sanitize_json(evidence)) << out;
  }
}

}  // namespace
}  // namespace hsperfguard
