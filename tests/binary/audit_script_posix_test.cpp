// The README's main command, `bash scripts/audit.sh`, is a newcomer's first report: it builds
// the hsperfguard binary alone (the "audit" preset of CMakePresets.json: no tests, benches or
// fuzzers configured, one target built) and runs that binary's audit. Building the whole
// default preset first made the first report wait for the test suite's compile (7 min 51 s on
// a fresh 2-vCPU machine). The test suite is built by scripts/test.sh, as before.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "test_support.hpp"

namespace hsperfguard {
namespace {

std::string text_of(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

nlohmann::json preset(const nlohmann::json& presets, const std::string& kind, const std::string& name) {
  for (const auto& p : presets.at(kind)) {
    if (p.value("name", "") == name) return p;
  }
  return nullptr;
}

// The lines of `text` that start with `prefix`.
std::vector<std::string> lines_starting(const std::string& text, const std::string& prefix) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(prefix, 0) == 0) lines.push_back(line);
  }
  return lines;
}

// Each of `values` (cache variable, value) as the configure preset `name` sets it, and its
// binary directory.
void expect_configure_preset(const nlohmann::json& presets, const std::string& name, const std::string& binary_dir,
                             const std::vector<std::pair<std::string, std::string>>& values) {
  const auto configure = preset(presets, "configurePresets", name);
  ASSERT_TRUE(configure.is_object()) << "CMakePresets.json has no configure preset \"" << name << "\"";
  EXPECT_EQ(configure.value("binaryDir", ""), binary_dir) << name;
  const auto cache = configure.value("cacheVariables", nlohmann::json::object());
  for (const auto& [variable, value] : values) EXPECT_EQ(cache.value(variable, ""), value) << name << ": " << variable;
}

TEST(AuditScript, BuildsTheAuditPresetsBinaryAloneAndRunsIt) {
  const auto presets = nlohmann::json::parse(text_of(test::source_path("CMakePresets.json")));
  // Optimized, without debug info: -O2 compiled the binary's sources in less CPU time than -O3
  // (Release) or -O2 -g (RelWithDebInfo), and the audit's binary has no use for either.
  // In the release preset's directory, with its flags: the test suite's build that follows
  // (CI's, where both have warnings as errors) compiles the tests alone, not the binary's
  // sources again. So the release preset states each of these values itself: a configure of it
  // after this one must not keep the tests switched off, or another optimization.
  expect_configure_preset(presets, "audit", "${sourceDir}/build-release",
                          {{"HSPERFGUARD_TESTS", "OFF"},
                           {"HSPERFGUARD_BENCH", "OFF"},
                           {"HSPERFGUARD_FUZZ", "OFF"},
                           {"CMAKE_BUILD_TYPE", "Release"},
                           {"CMAKE_CXX_FLAGS_RELEASE", "-O2 -DNDEBUG"}});
  expect_configure_preset(presets, "release", "${sourceDir}/build-release",
                          {{"HSPERFGUARD_TESTS", "ON"},
                           {"HSPERFGUARD_BENCH", "ON"},
                           {"HSPERFGUARD_FUZZ", "OFF"},
                           {"CMAKE_BUILD_TYPE", "Release"},
                           {"CMAKE_CXX_FLAGS_RELEASE", "-O2 -DNDEBUG"}});
  const auto build = preset(presets, "buildPresets", "audit");
  ASSERT_TRUE(build.is_object()) << "CMakePresets.json has no build preset \"audit\"";
  EXPECT_EQ(build.value("configurePreset", ""), "audit");
  EXPECT_EQ(build.value("targets", nlohmann::json::array()), nlohmann::json::array({"hsperfguard"}));

  const std::string script = text_of(test::source_path("scripts/audit.sh"));
  EXPECT_EQ(lines_starting(script, "bash scripts/build.sh"), std::vector<std::string>{"bash scripts/build.sh audit"})
      << script;
  EXPECT_EQ(lines_starting(script, "exec "), std::vector<std::string>{"exec ./build-release/hsperfguard audit \"$@\""})
      << script;
}

// A user's first build does not stop at a warning (another compiler may find one), but CI
// builds the same preset with warnings as errors and runs the command: a warning g++ gives only
// at -O2 (no other CI build compiles at -O2) once made the main command fail on every fresh
// machine while CI stayed green.
TEST(AuditScript, AUsersFirstBuildWarnsAndCIRunsTheMainCommandWithWarningsAsErrors) {
  const auto presets = nlohmann::json::parse(text_of(test::source_path("CMakePresets.json")));
  const auto configure = preset(presets, "configurePresets", "audit");
  ASSERT_TRUE(configure.is_object());
  EXPECT_EQ(configure.value("cacheVariables", nlohmann::json::object()).value("HSPERFGUARD_WERROR", ""), "OFF");
  const std::string build = text_of(test::source_path("scripts/build.sh"));
  EXPECT_NE(build.find("-DHSPERFGUARD_WERROR=$HSPERFGUARD_WERROR"), std::string::npos) << build;
  const std::string suite = text_of(test::source_path("scripts/test.sh"));
  const auto start = suite.find("main_command() {");
  ASSERT_NE(start, std::string::npos) << suite;
  const std::string body = suite.substr(start, suite.find("\n}\n", start) - start);
  EXPECT_NE(body.find("local -x HSPERFGUARD_WERROR=ON"), std::string::npos) << body;
  EXPECT_NE(body.find("bash scripts/audit.sh"), std::string::npos) << body;
  EXPECT_EQ(lines_starting(suite, "stage \"main command"),
            std::vector<std::string>{"stage \"main command (scripts/audit.sh, warnings as errors)\" main_command"});
}

TEST(AuditScript, TheAuditPresetConfiguresNoTestBenchOrFuzzTarget) {
  test::ScratchDir scratch;
  const std::string dir = scratch / "build-audit";
  const auto configured =
      test::run({"cmake", "-S", test::source_path(""), "--preset", "audit", "-B", dir});
  ASSERT_EQ(configured.exit_code, 0) << configured.out << configured.err;
  const auto targets = test::run({"ninja", "-C", dir, "-t", "targets", "all"});
  ASSERT_EQ(targets.exit_code, 0) << targets.err;
  EXPECT_NE(targets.out.find("hsperfguard: phony"), std::string::npos) << targets.out;
  for (const std::string other : {"hsperfguard_unit_tests", "hsperfguard_test_support", "bench_gen_tree",
                                  "fuzz_replay_", "seccomp_refuse"}) {
    EXPECT_EQ(targets.out.find(other), std::string::npos) << other << " is configured:\n" << targets.out;
  }
  // What building the preset's one target runs: the binary's sources, nothing of tests/,
  // bench/ or fuzz/ (every command of the target and of what it depends on).
  const auto commands = test::run({"ninja", "-C", dir, "-t", "commands", "hsperfguard"});
  ASSERT_EQ(commands.exit_code, 0) << commands.err;
  const auto compiles = lines_starting(commands.out, "");
  EXPECT_GT(compiles.size(), 10u) << commands.out;
  for (const auto& command : compiles) {
    for (const std::string other : {"tests", "bench", "fuzz"}) {
      EXPECT_EQ(command.find(test::source_path(other) + "/"), std::string::npos) << command;
    }
    EXPECT_EQ(command.find("-Werror"), std::string::npos) << command;
  }
}

// CI runs the main command first, with warnings as errors, then builds the release preset in
// the same directory: every command that builds the binary must be the same in both, or ninja
// compiles the binary's sources twice (about four minutes of CI's hour on 2 cores). And the
// release configure after the audit one has the tests back.
TEST(AuditScript, TheReleaseBuildAfterTheMainCommandCompilesNothingOfTheBinaryAgain) {
  test::ScratchDir scratch;
  const std::string dir = scratch / "build-release";
  const auto audit = test::run(
      {"cmake", "-S", test::source_path(""), "--preset", "audit", "-B", dir, "-DHSPERFGUARD_WERROR=ON"});
  ASSERT_EQ(audit.exit_code, 0) << audit.out << audit.err;
  const auto audit_commands = test::run({"ninja", "-C", dir, "-t", "commands", "hsperfguard"});
  ASSERT_EQ(audit_commands.exit_code, 0) << audit_commands.err;
  const auto release = test::run({"cmake", "-S", test::source_path(""), "--preset", "release", "-B", dir});
  ASSERT_EQ(release.exit_code, 0) << release.out << release.err;
  const auto release_commands = test::run({"ninja", "-C", dir, "-t", "commands", "hsperfguard"});
  ASSERT_EQ(release_commands.exit_code, 0) << release_commands.err;
  EXPECT_GT(lines_starting(audit_commands.out, "").size(), 10u) << audit_commands.out;
  EXPECT_EQ(audit_commands.out, release_commands.out);
  EXPECT_NE(audit_commands.out.find("-Werror"), std::string::npos) << audit_commands.out;
  const auto targets = test::run({"ninja", "-C", dir, "-t", "targets", "all"});
  ASSERT_EQ(targets.exit_code, 0) << targets.err;
  EXPECT_NE(targets.out.find("hsperfguard_unit_tests"), std::string::npos) << targets.out;
}

}  // namespace
}  // namespace hsperfguard
