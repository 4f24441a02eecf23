// The README's "First run" shows what `hsperfguard audit` prints: scripts/readme_sample.sh makes
// the same small temp dir in private namespaces and runs the audit; the README's block must be
// that output, durations and times aside (they differ from run to run).
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include "test_support.hpp"

namespace hsperfguard {
namespace {

// Durations ("0.02 s", "21 ms", "in 1.3s"), clock times and dates change from run to run.
std::string without_times(std::string text) {
  text = std::regex_replace(text, std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z?)"), "<time>");
  text = std::regex_replace(text, std::regex(R"(\b\d+(\.\d+)? ?(ms|s)\b)"), "<duration>");
  return text;
}

std::string readme_block(const std::string& readme) {
  const auto start_marker = readme.find("<!-- sample:");
  if (start_marker == std::string::npos) return {};
  const auto start = readme.find('\n', start_marker) + 1;
  const auto end = readme.find("<!-- end of sample -->", start);
  if (end == std::string::npos) return {};
  return readme.substr(start, end - start);
}

std::string trimmed(const std::string& text) {
  const auto first = text.find_first_not_of('\n');
  const auto last = text.find_last_not_of('\n');
  return first == std::string::npos ? std::string() : text.substr(first, last - first + 1);
}

TEST(ReadmeSample, FirstRunSampleIsWhatTheAuditPrints) {
  if (!test::is_root()) GTEST_SKIP() << "needs root (private mount and pid namespaces)";
  const std::string source = HSPERFGUARD_SOURCE_DIR;
  const auto sample = test::run({"bash", source + "/scripts/readme_sample.sh", test::tool_path()});
  ASSERT_EQ(sample.exit_code, 0) << sample.err;
  std::ifstream in(source + "/README.md");
  std::ostringstream readme;
  readme << in.rdbuf();
  const std::string block = readme_block(readme.str());
  ASSERT_FALSE(block.empty()) << "README.md has no sample block";
  // What an operator reads first: the text report, the findings with their real paths.
  EXPECT_NE(sample.out.find("$ sudo hsperfguard audit"), std::string::npos) << sample.out;
  EXPECT_NE(sample.out.find("/tmp/hsperfdata_nobody"), std::string::npos) << sample.out;
  EXPECT_EQ(sample.out.find("\"schema\""), std::string::npos) << "the sample is a JSON report:\n" << sample.out;
  EXPECT_EQ(without_times(trimmed(block)), without_times(trimmed(sample.out)))
      << "the README's sample is not what the audit prints now; update it with\n"
         "  bash scripts/readme_sample.sh BINARY --update README.md";
}

}  // namespace
}  // namespace hsperfguard
