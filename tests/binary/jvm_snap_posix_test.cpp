// System test against real JVMs: `hsperfguard inspect <pid> --format snap` prints exactly
// the lines `jstat -snap <pid>` prints, counter for counter, for several JVM configurations.
// Also the JvmProcess helper's own contract (run as another user, kill leaves the file).
#include <gtest/gtest.h>
#include <pwd.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <iostream>
#include <optional>
#include <sstream>

#include "jvm_support.hpp"
#include "model/perfdata.hpp"
#include "test_support.hpp"

namespace hsperfguard::test {
namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Compares line i with line i; a missing line counts as a difference.
struct LineComparison {
  std::size_t compared = 0;
  std::size_t equal = 0;
  std::string differences;  // one "line N" block per differing line
};

LineComparison compare_lines(const std::vector<std::string>& expected,
                             const std::vector<std::string>& actual) {
  LineComparison c;
  c.compared = std::max(expected.size(), actual.size());
  for (std::size_t i = 0; i < c.compared; ++i) {
    const std::string* e = i < expected.size() ? &expected[i] : nullptr;
    const std::string* a = i < actual.size() ? &actual[i] : nullptr;
    if (e != nullptr && a != nullptr && *e == *a) {
      ++c.equal;
      continue;
    }
    c.differences += "line " + std::to_string(i + 1) +
                     ":\n  jstat:       " + (e != nullptr ? *e : "<none>") +
                     "\n  hsperfguard: " + (a != nullptr ? *a : "<none>") + "\n";
  }
  return c;
}

// `-J-XX:-UsePerfData`: jstat's own JVM publishes no file and deletes no stale files.
CommandResult jstat_snap(pid_t pid, bool show_unsupported) {
  std::vector<std::string> argv = {"jstat", "-J-XX:-UsePerfData"};
  if (show_unsupported) argv.emplace_back("-J-Djstat.showUnsupported=true");
  argv.insert(argv.end(), {"-snap", std::to_string(pid)});
  return run(argv);
}

struct JvmConfig {
  const char* name;  // test name suffix
  std::vector<std::string> options;
  std::size_t region_size;  // PerfDataMemorySize
};

void PrintTo(const JvmConfig& config, std::ostream* os) { *os << config.name; }

class JvmSnap : public ::testing::TestWithParam<JvmConfig> {
 protected:
  void SetUp() override {
    if (!have_jdk()) GTEST_SKIP() << "java, javac and jstat are needed on PATH";
  }
};

// One JVM, stopped so that its counters are frozen, read by jstat and by us.
TEST_P(JvmSnap, InspectSnapEqualsJstatSnapLineForLine) {
  const JvmConfig& config = GetParam();
  JvmProcess jvm;
  ASSERT_TRUE(jvm.start(config.options, {"snap-test", "two words"}));
  ASSERT_TRUE(jvm.stop());
  const std::string pid = std::to_string(jvm.pid());

  struct stat st {};
  ASSERT_EQ(::stat(jvm.backing_file_path().c_str(), &st), 0) << jvm.backing_file_path();
  // The JVM rounds PerfDataMemorySize up to whole pages.
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  EXPECT_EQ(static_cast<std::size_t>(st.st_size), (config.region_size + page - 1) / page * page);

  struct Variant {
    const char* what;
    bool all_counters;
  };
  for (const Variant v : {Variant{"all counters", true}, Variant{"supported only", false}}) {
    SCOPED_TRACE(v.what);
    const CommandResult jstat = jstat_snap(jvm.pid(), v.all_counters);
    ASSERT_EQ(jstat.exit_code, 0) << jstat.err << jstat.out;
    std::vector<std::string> by_pid_args = {"inspect", pid, "--format", "snap"};
    std::vector<std::string> by_path_args = {"inspect", jvm.backing_file_path(), "--format",
                                             "snap"};
    if (!v.all_counters) {
      by_pid_args.emplace_back("--supported-only");
      by_path_args.emplace_back("--supported-only");
    }
    const CommandResult by_pid = run_tool(by_pid_args);
    ASSERT_EQ(by_pid.exit_code, 0) << by_pid.err;
    const CommandResult by_path = run_tool(by_path_args);
    ASSERT_EQ(by_path.exit_code, 0) << by_path.err;
    EXPECT_EQ(by_path.out, by_pid.out);

    const auto expected = lines_of(jstat.out);
    const auto actual = lines_of(by_pid.out);
    // Sanity: jstat saw this very JVM (sun.rt.javaCommand is an unsupported counter), and
    // the lists are as long as a real region's.
    if (v.all_counters) {
      const std::string command = "sun.rt.javaCommand=\"IdleJvm snap-test two words\"";
      EXPECT_TRUE(std::find(expected.begin(), expected.end(), command) != expected.end())
          << "jstat output lacks " << command;
    }
    EXPECT_GT(expected.size(), v.all_counters ? 150u : 15u);

    const LineComparison c = compare_lines(expected, actual);
    std::cout << "[ jvm-snap ] " << config.name << ", " << v.what << ": " << c.compared
              << " lines compared, " << c.equal << " equal (jstat " << expected.size()
              << ", hsperfguard " << actual.size() << ")\n";
    const std::string key = std::string(v.all_counters ? "all" : "supported");
    RecordProperty(key + "_compared", std::to_string(c.compared));
    RecordProperty(key + "_equal", std::to_string(c.equal));
    EXPECT_EQ(expected.size(), actual.size());
    EXPECT_EQ(c.equal, c.compared)
        << c.compared - c.equal << " of " << c.compared << " lines differ:\n"
        << c.differences;
  }
  ASSERT_TRUE(jvm.cont());
}

INSTANTIATE_TEST_SUITE_P(
    Configs, JvmSnap,
    ::testing::Values(
        JvmConfig{"Default", {}, perfdata::kDefaultRegionSize},
        JvmConfig{"SerialGcXmx64m", {"-XX:+UseSerialGC", "-Xmx64m"}, perfdata::kDefaultRegionSize},
        JvmConfig{
            "ParallelGc64KiB", {"-XX:+UseParallelGC", "-XX:PerfDataMemorySize=65536"}, 65536}),
    [](const ::testing::TestParamInfo<JvmConfig>& param) { return std::string(param.param.name); });

// As root the JVM runs as `nobody`: its namespace then belongs to this test alone, so no
// other JVM of the same user, starting in a parallel test, deletes the killed JVM's file
// (JVM start-up removes its user's stale files) before the test has looked at it.
TEST(JvmSupport, RunsAsAnotherUserAndAKillLeavesTheFileUntilDestruction) {
  if (!have_jdk()) GTEST_SKIP() << "java, javac and jstat are needed on PATH";
  std::optional<RunAs> as;
  std::string user;
  if (is_root()) {
    const passwd* nobody = ::getpwnam("nobody");
    if (nobody == nullptr) GTEST_SKIP() << "no user 'nobody' to run the JVM as";
    as = RunAs{nobody->pw_uid, nobody->pw_gid};
    user = nobody->pw_name;
  } else {
    const passwd* self = ::getpwuid(::geteuid());
    ASSERT_NE(self, nullptr);
    user = self->pw_name;
  }
  const std::string namespace_dir = "/tmp/hsperfdata_" + user;
  struct stat st {};
  const bool namespace_existed = ::lstat(namespace_dir.c_str(), &st) == 0;
  std::string path;
  {
    JvmProcess jvm;
    ASSERT_TRUE(jvm.start({"-Xmx32m"}, {"kill-test"}, as));
    path = jvm.backing_file_path();
    EXPECT_EQ(path, namespace_dir + "/" + std::to_string(jvm.pid()));
    ASSERT_EQ(::stat(path.c_str(), &st), 0) << path;
    EXPECT_EQ(st.st_uid, as ? as->uid : ::geteuid());
    EXPECT_EQ(st.st_mode & 07777, 0600u);
    const CommandResult inspect =
        run_tool({"inspect", std::to_string(jvm.pid()), "--format", "snap"});
    EXPECT_EQ(inspect.exit_code, 0) << inspect.err;
    EXPECT_NE(inspect.out.find("sun.rt.javaCommand=\"IdleJvm kill-test\"\n"), std::string::npos);

    ASSERT_TRUE(jvm.stop());
    ASSERT_TRUE(jvm.cont());
    EXPECT_TRUE(jvm.running());
    ASSERT_TRUE(jvm.kill9());
    EXPECT_FALSE(jvm.running());
    errno = 0;
    EXPECT_NE(::kill(jvm.pid(), 0), 0);
    EXPECT_EQ(errno, ESRCH);
    EXPECT_EQ(::stat(path.c_str(), &st), 0) << "SIGKILL should leave " << path;
  }
  EXPECT_NE(::stat(path.c_str(), &st), 0) << path << " left behind";
  if (as && !namespace_existed) {
    EXPECT_NE(::lstat(namespace_dir.c_str(), &st), 0) << namespace_dir << " left behind";
  }
}

}  // namespace
}  // namespace hsperfguard::test
