// The one "did you mean" of every closed set a person types from: a near typo is matched, a
// far word is not, and short words are held to one edit.
#include "model/nearest_word.hpp"

#include <gtest/gtest.h>

#include <chrono>

#include "model/rule_catalog.hpp"

namespace hsperfguard {
namespace {

TEST(NearestWord, EditDistanceCountsATranspositionOnce) {
  EXPECT_EQ(edit_distance("hihg", "high"), 1u);
  EXPECT_EQ(edit_distance("file.stail", "file.stale"), 2u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
  EXPECT_EQ(edit_distance("same", "same"), 0u);
}

TEST(NearestWord, EachClosedSetGetsItsNearestWord) {
  const std::vector<std::string> severities = {"info", "low", "medium", "high", "critical"};
  EXPECT_EQ(nearest_match("hihg", severities), "high");
  EXPECT_EQ(nearest_match("critcal", severities), "critical");
  EXPECT_EQ(nearest_match("severe", severities), std::nullopt);
  EXPECT_EQ(nearest_match("strcit", profile_names()), "strict");
  EXPECT_EQ(nearest_match("str", profile_names()), "strict") << "a prefix";
  EXPECT_EQ(nearest_match("nevr", {"auto", "always", "never"}), "never");
  EXPECT_EQ(nearest_match("jsn", {"json", "text"}), "json");
  std::vector<std::string> ids;
  for (const auto& [id, rule] : rule_catalog()) ids.push_back(id);
  EXPECT_EQ(nearest_match("file.stail", ids), "file.stale");
  // Options: the dashes are not part of the word compared.
  EXPECT_EQ(nearest_match("--no-lok", {"--no-lock", "--no-wait"}), "--no-lock");
  // Short words are held to one edit: "ps" is not a typo of "rules".
  EXPECT_EQ(nearest_match("ps", {"rules", "reap"}), std::nullopt);
  EXPECT_EQ(nearest_match("", {"a"}), std::nullopt);
}

// A word far longer than any candidate has no nearest, and is not measured against each: a
// policy naming a rule id of a million characters took over 300 s under TSan (20 million
// cells of the edit-distance table per rule id); the lengths alone rule it out now.
TEST(NearestWord, AHugeWordIsRuledOutByItsLength) {
  const std::string huge(1000000, 'x');
  const auto started = std::chrono::steady_clock::now();
  EXPECT_EQ(nearest_match(huge, {"file.stale", "namespace.group-other-writable", "xx"}), std::nullopt);
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(1));
  // Near in length and in letters, it is still found.
  EXPECT_EQ(nearest_match("file.stail", {"file.stale", "file.mode"}), "file.stale");
}

}  // namespace
}  // namespace hsperfguard
