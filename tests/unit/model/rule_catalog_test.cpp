// The rule catalogue and profiles compiled in from rules/, and policy files on top of them.
#include "model/rule_catalog.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <set>
#include <string>

namespace hsperfguard {
namespace {

using nlohmann::json;
using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Not;

std::string source_path(const std::string& relative) {
  return std::string(HSPERFGUARD_SOURCE_DIR) + "/" + relative;
}

json read_json(const std::string& path) {
  std::ifstream in(path);
  return json::parse(in);
}

// ---- severities -------------------------------------------------------------------------------

TEST(Severity, NamesRoundTrip) {
  for (auto s :
       {Severity::info, Severity::low, Severity::medium, Severity::high, Severity::critical}) {
    EXPECT_EQ(parse_severity(to_string(s)), s);
  }
  EXPECT_EQ(to_string(Severity::critical), "critical");
  EXPECT_EQ(parse_severity("severe"), std::nullopt);
  EXPECT_EQ(parse_severity("HIGH"), std::nullopt);
  EXPECT_EQ(parse_severity(""), std::nullopt);
  EXPECT_LT(Severity::info, Severity::critical);
}

// ---- the catalogue ----------------------------------------------------------------------------

TEST(RuleCatalog, EveryEntryIsWellFormed) {
  const std::regex id_form("[a-z0-9-]+\\.[a-z0-9-]+");
  const std::regex reference_form("(JDK-[0-9]+|CVE-[0-9]{4}-[0-9]+|CWE-[0-9]+)");
  const std::set<std::string> subjects{"temp-dir", "namespace", "file", "attach"};
  const std::set<std::string> platforms{"linux", "windows"};
  ASSERT_FALSE(rule_catalog().empty());
  for (const auto& [id, rule] : rule_catalog()) {
    SCOPED_TRACE(id);
    EXPECT_EQ(id, rule.id);
    EXPECT_TRUE(std::regex_match(id, id_form));
    EXPECT_FALSE(rule.title.empty());
    EXPECT_FALSE(rule.rationale.empty());
    EXPECT_FALSE(rule.remediation.empty());
    EXPECT_FALSE(rule.applies_to.empty());
    for (const auto& s : rule.applies_to) EXPECT_TRUE(subjects.count(s)) << s;
    EXPECT_FALSE(rule.platforms.empty());
    for (const auto& p : rule.platforms) EXPECT_TRUE(platforms.count(p)) << p;
    for (const auto& r : rule.references) EXPECT_TRUE(std::regex_match(r, reference_form)) << r;
  }
}

TEST(RuleCatalog, FamiliesApplyToTheirSubject) {
  const std::map<std::string, std::string> subject_of{{"tmpdir", "temp-dir"},
                                                      {"namespace", "namespace"},
                                                      {"volume", "namespace"},
                                                      {"file", "file"},
                                                      {"attach", "attach"}};
  std::set<std::string> families_seen;
  for (const auto& [id, rule] : rule_catalog()) {
    const auto family = subject_of.find(id.substr(0, id.find('.')));
    if (family == subject_of.end()) continue;  // families of other modules (dacl.*, ...)
    EXPECT_THAT(rule.applies_to, Contains(family->second)) << id;
    families_seen.insert(family->first);
  }
  EXPECT_EQ(families_seen.size(), subject_of.size()) << "every family has rules in the catalogue";
}

TEST(RuleCatalog, SourceFilesAreWhatIsCompiledIn) {
  // Every rule in rules/*.json is in the binary with the same metadata, and nothing else is.
  std::set<std::string> on_disk;
  for (const auto& file : std::filesystem::directory_iterator(source_path("rules"))) {
    if (file.path().extension() != ".json") continue;
    const json rules = read_json(file.path().string());
    ASSERT_TRUE(rules.is_array()) << file.path();
    for (const json& r : rules) {
      const std::string id = r.at("id");
      on_disk.insert(id);
      const RuleInfo* info = find_rule(id);
      ASSERT_NE(info, nullptr) << id;
      EXPECT_EQ(info->title, r.at("title").get<std::string>());
      EXPECT_EQ(to_string(info->severity), r.at("severity").get<std::string>());
      EXPECT_EQ(info->repairable, r.at("repairable").get<bool>());
    }
  }
  std::set<std::string> compiled;
  for (const auto& [id, rule] : rule_catalog()) compiled.insert(id);
  EXPECT_EQ(on_disk, compiled);
}

TEST(RuleCatalog, FindRule) {
  const RuleInfo* r = find_rule("namespace.symlink");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->severity, Severity::high);
  EXPECT_THAT(r->references, Contains("JDK-8050807"));
  EXPECT_EQ(find_rule("namespace.nope"), nullptr);
  EXPECT_EQ(find_rule(""), nullptr);
}

TEST(RuleCatalog, DefaultSeveritiesOfTheCoreRules) {
  const std::map<std::string, Severity> expected{
      {"tmpdir.unsafe", Severity::high},
      {"namespace.group-other-writable", Severity::high},
      {"namespace.owner-mismatch", Severity::high},
      {"namespace.not-private", Severity::low},
      {"namespace.user-lookup-failed", Severity::info},
      {"file.hard-link", Severity::high},
      {"file.mode", Severity::high},
      {"file.foreign-name", Severity::low},
      {"attach.socket-unsafe", Severity::high},
      {"attach.stale", Severity::low},
  };
  for (const auto& [id, severity] : expected) {
    const RuleInfo* r = find_rule(id);
    ASSERT_NE(r, nullptr) << id;
    EXPECT_EQ(r->severity, severity) << id;
  }
}

// ---- profiles ---------------------------------------------------------------------------------

TEST(Profiles, EveryProfileParsesAndIsNamedAfterItsFile) {
  const auto names = profile_names();
  EXPECT_THAT(names, Contains("default"));
  EXPECT_THAT(names, Contains("strict"));
  EXPECT_THAT(names, Contains("hotspot"));
  for (const auto& name : names) {
    const auto profile = builtin_profile(name);
    ASSERT_TRUE(profile.has_value()) << name;
    EXPECT_EQ(profile->name, name);
    for (const auto& [id, setting] : profile->rules) EXPECT_NE(find_rule(id), nullptr) << id;
  }
  EXPECT_EQ(builtin_profile("nope"), std::nullopt);
}

TEST(Profiles, DefaultDisablesOnlyNotPrivate) {
  const Policy p = *builtin_profile("default");
  ASSERT_GE(rule_catalog().size(), 20u);
  for (const auto& [id, rule] : rule_catalog()) {
    EXPECT_EQ(p.enabled(id), id != "namespace.not-private") << id;
    EXPECT_EQ(p.severity_of(id, rule.severity), rule.severity) << id;
  }
}

TEST(Profiles, StrictEnablesNotPrivateAndNeverLowersASeverity) {
  const Policy p = *builtin_profile("strict");
  EXPECT_TRUE(p.enabled("namespace.not-private"));
  int raised = 0;
  for (const auto& [id, rule] : rule_catalog()) {
    EXPECT_TRUE(p.enabled(id)) << id;
    const Severity s = p.severity_of(id, rule.severity);
    EXPECT_GE(s, rule.severity) << id;
    if (s > rule.severity) ++raised;
  }
  EXPECT_GT(raised, 5);
  EXPECT_EQ(p.severity_of("file.hard-link", Severity::info), Severity::critical);
}

TEST(Profiles, HotspotEnablesExactlyWhatTheJdkEnforces) {
  const std::set<std::string> enforced{
      // HotSpot refuses the namespace (perfMemory_posix.cpp, JDK-8050807)...
      "namespace.symlink", "namespace.not-directory", "namespace.group-other-writable",
      "namespace.owner-mismatch", "namespace.identity-changed",
      // ...or the backing file (O_NOFOLLOW, st_nlink > 1, a regular file to size and map)...
      "file.symlink", "file.hard-link", "file.not-regular",
      // ...its readers refuse the region (jvmstat: size, magic, version, entries)...
      "file.bad-size", "file.bad-prologue",
      // ...the attach client refuses the socket...
      "attach.socket-unsafe",
      // ...and HotSpot on Windows refuses reparse points and volumes that are compressed,
      // keep no ACLs or have no drive letter (is_directory_secure, is_filesystem_secure).
      "namespace.reparse-point", "volume.compressed", "volume.no-persistent-acls",
      "volume.unc-path",
      // ...a JVM cannot create its backing file in a namespace HotSpot accepts (the prediction),
      // and the live JVMs that publish nothing, each with its cause, are what the JDK does too.
      "namespace.owner-no-access", "namespace.read-only", "namespace.immutable", "namespace.no-space",
      "tmpdir.new-namespaces-fail", "tmpdir.shared-pid-names", "namespace.jvm-blinded", "jvm.perf-data-disabled",
      "jvm.backing-file-deleted", "jvm.create-failed", "jvm.locked-by-another-jvm", "jvm.namespace-changed",
      "jvm.cause-undetermined", "jvm.no-passwd-entry"};
  const Policy p = *builtin_profile("hotspot");
  std::set<std::string> enabled;
  for (const auto& [id, rule] : rule_catalog()) {
    // Listed explicitly, so that a new rule must be classified before it ships.
    EXPECT_TRUE(p.rules.count(id)) << id << " is not classified in rules/profiles/hotspot.json";
    if (p.enabled(id)) enabled.insert(id);
  }
  EXPECT_EQ(enabled, enforced);
}

TEST(Profiles, ProfileFilesOnDiskAreTheBuiltIns) {
  std::set<std::string> on_disk;
  for (const auto& file : std::filesystem::directory_iterator(source_path("rules/profiles"))) {
    if (file.path().extension() == ".json") on_disk.insert(file.path().stem().string());
  }
  const auto names = profile_names();
  EXPECT_EQ(on_disk, std::set<std::string>(names.begin(), names.end()));
}

// ---- policies ---------------------------------------------------------------------------------

TEST(Policy, UnknownRuleIdIsRejectedAndNothingIsApplied) {
  Policy p = *builtin_profile("default");
  const Policy before = p;
  const auto error = apply_policy(p, json::parse(R"({
    "name": "site",
    "rules": {"file.mode": {"enabled": false}, "file.modes": {"enabled": false}}
  })"));
  ASSERT_TRUE(error.has_value());
  EXPECT_THAT(*error, HasSubstr("unknown rule id \"file.modes\""));
  EXPECT_EQ(p.name, before.name);
  EXPECT_TRUE(p.enabled("file.mode"));
  EXPECT_EQ(p.rules.size(), before.rules.size());
}

// A policy naming `file.stail` or severity "hihg" is refused with the nearest known word, as
// the command line does for its values.
TEST(Policy, AMistypedRuleIdOrSeverityGetsTheNearestOne) {
  Policy p;
  const auto id = apply_policy(p, json::parse(R"({"rules": {"file.stail": {"enabled": false}}})"));
  ASSERT_TRUE(id.has_value());
  EXPECT_THAT(*id, HasSubstr("unknown rule id \"file.stail\"; did you mean \"file.stale\"?"));
  const auto severity = apply_policy(p, json::parse(R"({"rules": {"file.mode": {"severity": "hihg"}}})"));
  ASSERT_TRUE(severity.has_value());
  EXPECT_THAT(*severity, HasSubstr("unknown severity \"hihg\"; did you mean \"high\"?"));
  // Nothing near: no guess.
  const auto far = apply_policy(p, json::parse(R"({"rules": {"nothing.like.it": {"enabled": false}}})"));
  ASSERT_TRUE(far.has_value());
  EXPECT_THAT(*far, Not(HasSubstr("did you mean")));
}

TEST(Policy, UnknownSeverityIsRejected) {
  Policy p;
  const auto error =
      apply_policy(p, json::parse(R"({"rules": {"file.mode": {"severity": "severe"}}})"));
  ASSERT_TRUE(error.has_value());
  EXPECT_THAT(*error, HasSubstr("file.mode"));
  EXPECT_THAT(*error, HasSubstr("severe"));
}

TEST(Policy, MalformedDocumentsAreRejectedWithAReason) {
  const std::vector<std::pair<std::string, std::string>> cases{
      {R"([])", "JSON object"},
      {R"({"rules": []})", "\"rules\" must be an object"},
      {R"({"rules": {"file.mode": false}})", "expected an object"},
      {R"({"rules": {"file.mode": {"enabled": "no"}}})", "\"enabled\" must be true or false"},
      {R"({"rules": {"file.mode": {"enable": false}}})", "unknown key \"enable\""},
      {R"({"rules": {"file.mode": {"severity": 3}}})", "unknown severity 3"},
      {R"({"name": 7})", "\"name\" must be a string"},
      {R"({"rule": {}})", "unknown key \"rule\""},
  };
  for (const auto& [text, reason] : cases) {
    Policy p;
    const auto error = apply_policy(p, json::parse(text));
    ASSERT_TRUE(error.has_value()) << text;
    EXPECT_THAT(*error, HasSubstr(reason)) << text;
    EXPECT_TRUE(p.rules.empty()) << text;
  }
}

TEST(Policy, DisablesARuleAndChangesASeverity) {
  Policy p = *builtin_profile("default");
  const auto error = apply_policy(p, json::parse(R"({
    "name": "site",
    "description": "our fleet",
    "rules": {
      "file.foreign-name": {"enabled": false},
      "file.mode": {"severity": "critical"},
      "namespace.not-private": {"enabled": true}
    }
  })"));
  ASSERT_FALSE(error.has_value()) << *error;
  EXPECT_EQ(p.name, "site");
  EXPECT_FALSE(p.enabled("file.foreign-name"));
  EXPECT_TRUE(p.enabled("file.mode"));
  EXPECT_EQ(p.severity_of("file.mode", Severity::high), Severity::critical);
  EXPECT_TRUE(p.enabled("namespace.not-private"));

  Findings findings;
  for (const char* rule : {"file.foreign-name", "file.mode", "file.hard-link"}) {
    Finding f;
    f.rule = rule;
    f.path = "/tmp/hsperfdata_a/x";
    findings.push_back(f);
  }
  const Findings out = apply_policy_to_findings(findings, p);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].rule, "file.mode");
  EXPECT_EQ(out[0].severity, Severity::critical);
  EXPECT_EQ(out[0].remediation, remediation_for(*find_rule("file.mode"), "/tmp/hsperfdata_a/x"));
  EXPECT_EQ(out[1].rule, "file.hard-link");
  EXPECT_EQ(out[1].severity, find_rule("file.hard-link")->severity);
}

TEST(Policy, SettingsMergeOverTheProfile) {
  Policy p = *builtin_profile("strict");
  ASSERT_FALSE(apply_policy(p, json::parse(R"({"rules": {"file.mode": {"enabled": false}}})")));
  EXPECT_FALSE(p.enabled("file.mode"));
  // strict's other settings are untouched
  EXPECT_EQ(p.severity_of("file.hard-link", Severity::info), Severity::critical);
  ASSERT_FALSE(apply_policy(p, json::parse(R"({"rules": {"file.mode": {"severity": "low"}}})")));
  EXPECT_FALSE(p.enabled("file.mode"));  // a severity alone does not re-enable
  EXPECT_EQ(p.severity_of("file.mode", Severity::high), Severity::low);
  EXPECT_EQ(p.name, "strict");
}

TEST(Policy, EmptyDocumentChangesNothing) {
  Policy p = *builtin_profile("hotspot");
  const Policy before = p;
  EXPECT_FALSE(apply_policy(p, json::object()).has_value());
  EXPECT_EQ(p.rules.size(), before.rules.size());
}

TEST(Policy, FindingsOfUnknownRulesAreKept) {
  Finding f;
  f.rule = "future.rule";
  f.severity = Severity::low;
  const Findings out = apply_policy_to_findings({f}, *builtin_profile("hotspot"));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].severity, Severity::low);
}

// docs/POLICY.md section 8 and docs/operations.md rate each invisible-JVM rule as the
// catalogue does. Before, section 8 said jvm.cause-undetermined (medium) while rules/ and
// docs/operations.md said low.
TEST(RuleCatalog, TheDocsRateTheInvisibleJvmRulesAsTheCatalogueDoes) {
  const auto text_of = [](const std::string& relative) {
    std::ifstream in(source_path(relative));
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  };
  const std::string policy = text_of("docs/POLICY.md");
  const std::size_t begin = policy.find("## 8. Invisible JVMs");
  ASSERT_NE(begin, std::string::npos);
  const std::string section = policy.substr(begin, policy.find("\n## ", begin + 1) - begin);
  // "`jvm.cause-undetermined` (low)" in the table; "(`jvm.cause-undetermined`, low)" in prose.
  const std::regex rated(R"(`((?:jvm|namespace)\.[a-z-]+)`,? \(?(info|low|medium|high|critical)\b)");
  std::set<std::string> seen;
  for (const std::string& text : {section, text_of("docs/operations.md")}) {
    for (auto m = std::sregex_iterator(text.begin(), text.end(), rated); m != std::sregex_iterator(); ++m) {
      const RuleInfo* rule = find_rule((*m)[1].str());
      ASSERT_NE(rule, nullptr) << (*m)[0];
      EXPECT_EQ(to_string(rule->severity), (*m)[2].str()) << (*m)[0];
      seen.insert((*m)[1].str());
    }
  }
  for (const auto& [id, rule] : rule_catalog()) {
    if (id.starts_with("jvm.")) {
      EXPECT_TRUE(seen.contains(id)) << id << " is not rated in docs/POLICY.md section 8";
    }
  }
  EXPECT_TRUE(seen.contains("namespace.jvm-blinded"));
}

}  // namespace
}  // namespace hsperfguard
