// perf_data_option and alt_temp_dir_option: which of a JVM's options decide whether and where
// it publishes its counters, read from the NUL-separated bytes of /proc/<pid>/cmdline and /proc/<pid>/environ.
#include "model/jvm_options.hpp"

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>

namespace hsperfguard {
namespace {

using namespace std::string_literals;

// argv joined with the NULs /proc/<pid>/cmdline has (each argument ends with one).
std::string argv(std::initializer_list<std::string> args) {
  std::string out;
  for (const auto& a : args) out += a + '\0';
  return out;
}

TEST(JvmOptions, NoFlagNoVerdict) {
  EXPECT_FALSE(perf_data_option(argv({"java", "-Xmx64m", "Main"}), ""));
  EXPECT_FALSE(perf_data_option("", ""));
}

TEST(JvmOptions, CommandLineFlagDisables) {
  const auto o = perf_data_option(argv({"java", "-XX:-UsePerfData", "Main"}), "");
  ASSERT_TRUE(o);
  EXPECT_TRUE(o->disables);
  EXPECT_EQ(o->flag, "-XX:-UsePerfData");
  EXPECT_EQ(o->source, "command line");
}

TEST(JvmOptions, PerfDisableSharedMemAlsoHidesTheJvm) {
  const auto o = perf_data_option(argv({"/usr/bin/java", "-XX:+PerfDisableSharedMem", "-jar", "app.jar"}), "");
  ASSERT_TRUE(o);
  EXPECT_TRUE(o->disables);
  EXPECT_EQ(o->flag, "-XX:+PerfDisableSharedMem");
}

TEST(JvmOptions, TheLastSettingWins) {
  const auto on = perf_data_option(argv({"java", "-XX:-UsePerfData", "-XX:+UsePerfData", "Main"}), "");
  ASSERT_TRUE(on);
  EXPECT_FALSE(on->disables);
  EXPECT_EQ(on->flag, "-XX:+UsePerfData");
  // _JAVA_OPTIONS comes after the command line and overrides it.
  const auto off = perf_data_option(argv({"java", "-XX:+UsePerfData", "Main"}), "_JAVA_OPTIONS=-XX:-UsePerfData\0"s);
  ASSERT_TRUE(off);
  EXPECT_TRUE(off->disables);
  EXPECT_EQ(off->source, "_JAVA_OPTIONS");
  // JAVA_TOOL_OPTIONS comes before the command line, which overrides it.
  const auto cmd = perf_data_option(argv({"java", "-XX:+UsePerfData", "Main"}), "JAVA_TOOL_OPTIONS=-XX:-UsePerfData\0"s);
  ASSERT_TRUE(cmd);
  EXPECT_FALSE(cmd->disables);
  EXPECT_EQ(cmd->source, "command line");
}

TEST(JvmOptions, EnvironmentVariablesAreSplitOnBlanks) {
  const std::string env = "PATH=/bin\0JAVA_TOOL_OPTIONS=-Xmx1g  -XX:-UsePerfData\t-Dx=1\0HOME=/root\0"s;
  const auto o = perf_data_option(argv({"java", "Main"}), env);
  ASSERT_TRUE(o);
  EXPECT_TRUE(o->disables);
  EXPECT_EQ(o->source, "JAVA_TOOL_OPTIONS");
  const auto jdk = perf_data_option(argv({"java", "Main"}), "JDK_JAVA_OPTIONS=-XX:+PerfDisableSharedMem\0"s);
  ASSERT_TRUE(jdk);
  EXPECT_TRUE(jdk->disables);
  EXPECT_EQ(jdk->source, "JDK_JAVA_OPTIONS");
}

TEST(JvmOptions, ProgramArgumentsAfterTheMainClassAreNotJvmOptions) {
  EXPECT_FALSE(perf_data_option(argv({"java", "Main", "-XX:-UsePerfData"}), ""));
  EXPECT_FALSE(perf_data_option(argv({"java", "-jar", "app.jar", "-XX:-UsePerfData"}), ""));
  EXPECT_FALSE(perf_data_option(argv({"java", "-m", "mod/Main", "-XX:-UsePerfData"}), ""));
  EXPECT_FALSE(perf_data_option(argv({"java", "--module=mod/Main", "-XX:-UsePerfData"}), ""));
  // The value of -cp is not the main class.
  const auto o = perf_data_option(argv({"java", "-cp", "lib", "-XX:-UsePerfData", "Main"}), "");
  ASSERT_TRUE(o);
  EXPECT_TRUE(o->disables);
}

TEST(JvmOptions, ANameThatMerelyStartsLikeTheVariableIsNotIt) {
  EXPECT_FALSE(perf_data_option(argv({"java", "Main"}), "JAVA_TOOL_OPTIONS_X=-XX:-UsePerfData\0"s));
  EXPECT_FALSE(perf_data_option(argv({"java", "Main"}), "XJAVA_TOOL_OPTIONS=-XX:-UsePerfData\0"s));
}

TEST(JvmOptions, TruncatedOrGarbageInputIsHarmless) {
  EXPECT_FALSE(perf_data_option("java", ""));                      // no NUL at all
  EXPECT_FALSE(perf_data_option("\0\0\0"s, "=\0==\0JAVA_TOOL_OPTIONS\0"s));
  const auto o = perf_data_option("java\0-XX:-UsePerfData"s, "");  // no final NUL
  ASSERT_TRUE(o);
  EXPECT_TRUE(o->disables);
}

TEST(AltTempDirOption, NoneGivenIsNone) {
  EXPECT_FALSE(alt_temp_dir_option(argv({"java", "-Xmx64m", "Main"}), "JAVA_TOOL_OPTIONS=-Xmx1g\0"s));
  EXPECT_FALSE(alt_temp_dir_option("", ""));
}

TEST(AltTempDirOption, TheCommandLinesDirectoryIsReadWholeBlanksIncluded) {
  const auto o = alt_temp_dir_option(argv({"java", "-XX:AltTempDir=/var/diags/my jvms", "-jar", "app.jar"}), "");
  ASSERT_TRUE(o);
  EXPECT_EQ(o->path, "/var/diags/my jvms");
  EXPECT_EQ(o->source, "command line");
  EXPECT_TRUE(o->absolute());
}

TEST(AltTempDirOption, TheLastSettingWinsInHotSpotsOrder) {
  // JAVA_TOOL_OPTIONS, JDK_JAVA_OPTIONS, the command line, then _JAVA_OPTIONS.
  const std::string env = "JAVA_TOOL_OPTIONS=-XX:AltTempDir=/a\0JDK_JAVA_OPTIONS=-XX:AltTempDir=/b\0"s;
  auto o = alt_temp_dir_option(argv({"java", "Main"}), env);
  ASSERT_TRUE(o);
  EXPECT_EQ(o->path, "/b");
  EXPECT_EQ(o->source, "JDK_JAVA_OPTIONS");
  o = alt_temp_dir_option(argv({"java", "-XX:AltTempDir=/c", "Main"}), env);
  ASSERT_TRUE(o);
  EXPECT_EQ(o->path, "/c");
  o = alt_temp_dir_option(argv({"java", "-XX:AltTempDir=/c", "Main"}), env + "_JAVA_OPTIONS=-Xmx1g -XX:AltTempDir=/d\0"s);
  ASSERT_TRUE(o);
  EXPECT_EQ(o->path, "/d");
  EXPECT_EQ(o->source, "_JAVA_OPTIONS");
}

TEST(AltTempDirOption, AProgramArgumentIsNotAJvmOption) {
  EXPECT_FALSE(alt_temp_dir_option(argv({"java", "Main", "-XX:AltTempDir=/x"}), ""));
  EXPECT_FALSE(alt_temp_dir_option(argv({"java", "-jar", "app.jar", "-XX:AltTempDir=/x"}), ""));
  // The value of -cp is not an option either.
  EXPECT_FALSE(alt_temp_dir_option(argv({"java", "-cp", "-XX:AltTempDir=/x", "Main"}), ""));
}

TEST(AltTempDirOption, ARelativeDirectoryIsReturnedAndSaidNotAbsolute) {
  const auto o = alt_temp_dir_option(argv({"java", "-XX:AltTempDir=diags", "Main"}), "");
  ASSERT_TRUE(o);
  EXPECT_EQ(o->path, "diags");
  EXPECT_FALSE(o->absolute());
  const auto empty = alt_temp_dir_option(argv({"java", "-XX:AltTempDir=", "Main"}), "");
  ASSERT_TRUE(empty);
  EXPECT_FALSE(empty->absolute());
}

TEST(AltTempDirOption, ItDoesNotChangeThePerfDataVerdict) {
  EXPECT_FALSE(perf_data_option(argv({"java", "-XX:AltTempDir=/x", "Main"}), ""));
  const auto o = perf_data_option(argv({"java", "-XX:AltTempDir=/x", "-XX:-UsePerfData", "Main"}), "");
  ASSERT_TRUE(o);
  EXPECT_TRUE(o->disables);
}

// Windows: the temp dir a JVM's environment names, in GetTempPath's order.
std::string env(std::initializer_list<const char*> entries) {
  std::string out;
  for (const char* e : entries) out.append(e).push_back('\0');
  return out;
}

TEST(WindowsTempDir, TmpThenTempThenUserprofileThenTheWindowsDirectory) {
  EXPECT_EQ(windows_temp_dir(env({"TEMP=C:\\b", "TMP=C:\\a\\", "USERPROFILE=C:\\Users\\x"}), "C:\\Windows"), "C:\\a");
  EXPECT_EQ(windows_temp_dir(env({"TEMP=C:\\b", "USERPROFILE=C:\\Users\\x"}), "C:\\Windows"), "C:\\b");
  EXPECT_EQ(windows_temp_dir(env({"USERPROFILE=C:\\Users\\x"}), "C:\\Windows"), "C:\\Users\\x");
  EXPECT_EQ(windows_temp_dir(env({"PATH=C:\\bin"}), "C:\\Windows"), "C:\\Windows");
  EXPECT_EQ(windows_temp_dir("", "C:\\Windows"), "C:\\Windows");
}

TEST(WindowsTempDir, NamesWithoutRegardToCaseAndAnEmptyValueIsNotSet) {
  EXPECT_EQ(windows_temp_dir(env({"tmp=D:\\svc tmp", "TEMP=C:\\b"}), "C:\\Windows"), "D:\\svc tmp");
  EXPECT_EQ(windows_temp_dir(env({"TMP=", "TEMP=C:\\b"}), "C:\\Windows"), "C:\\b");
  // The per-drive directories ("=C:=C:\\dir") and names that only begin like one are not it.
  EXPECT_EQ(windows_temp_dir(env({"=C:=C:\\x", "TMPDIR=C:\\y", "XTMP=C:\\z"}), "C:\\Windows"), "C:\\Windows");
  // A drive's root keeps its separator.
  EXPECT_EQ(windows_temp_dir(env({"TMP=D:\\"}), "C:\\Windows"), "D:\\");
}

// Every trailing separator goes, down to a name of one character; only a drive's root keeps
// its own.
TEST(WindowsTempDir, TrailingSeparatorsGoDownToANameOfOneCharacter) {
  EXPECT_EQ(windows_temp_dir(env({"TMP=t\\"}), "C:\\Windows"), "t");
  EXPECT_EQ(windows_temp_dir(env({"TMP=t//"}), "C:\\Windows"), "t");
  EXPECT_EQ(windows_temp_dir(env({"TMP=\\\\"}), "C:\\Windows"), "\\");
  EXPECT_EQ(windows_temp_dir(env({"TMP=D:\\\\"}), "C:\\Windows"), "D:\\");
}

}  // namespace
}  // namespace hsperfguard
