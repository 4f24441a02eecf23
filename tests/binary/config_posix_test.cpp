// Issue 36's configuration part on real trees: create never loosens an existing namespace and
// says what it changed; the conventional /etc/hsperfguard/policy.json is read by default (in a
// private mount namespace with a tmpfs on /etc, never the host's); the packaged
// hsperfguard-policy(5) documents every key the policy parser accepts.
#include <gtest/gtest.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <fstream>
#include <sstream>
#include <thread>

#include <filesystem>
#include <regex>
#include <string>

#include "hostile_support.hpp"
#include "jvm_support.hpp"
#include "model/rule_catalog.hpp"
#include "reap_test_support.hpp"

namespace hsperfguard::test {
namespace {

using reaptest::kNobody;
using reaptest::kNogroup;
using reaptest::ReapTree;

mode_t mode_of(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

// ---- create never loosens -------------------------------------------------------------------

TEST(CreateNeverLoosens, AdminsChmod700StaysAndIsOnlyVerified) {
  if (!is_root()) GTEST_SKIP() << "needs root (the namespace belongs to nobody)";
  ReapTree tree;
  for (const mode_t mode : {0700, 0750, 0711}) {
    const std::string ns = tree.make_namespace("nobody", kNobody, kNogroup, mode);
    const auto r = run_tool({"create", "--user", "nobody", "--tmpdir", tree.tmp});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(mode_of(ns), mode) << r.out;
    EXPECT_NE(r.out.find("verified " + ns), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("->"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("mode 0755"), std::string::npos) << r.out;
    ASSERT_EQ(::rmdir(ns.c_str()), 0);
  }
}

TEST(CreateNeverLoosens, AStricterModeAskedForIsAppliedAndSaidExactly) {
  if (!is_root()) GTEST_SKIP() << "needs root (the namespace belongs to nobody)";
  ReapTree tree;
  const std::string ns = tree.make_namespace("nobody", kNobody, kNogroup, 0755);
  const auto r = run_tool({"create", "--user", "nobody", "--tmpdir", tree.tmp, "--mode", "0700"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(mode_of(ns), 0700u);
  EXPECT_NE(r.out.find("namespace " + ns + ": mode 0755 -> 0700\n"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("verified"), std::string::npos) << r.out;
  // Run again: nothing left to change, so it only verifies.
  const auto again = run_tool({"create", "--user", "nobody", "--tmpdir", tree.tmp, "--mode", "0700"});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.out.find("verified " + ns), std::string::npos) << again.out;
}

// ---- /etc/hsperfguard/policy.json, read by default -------------------------------------------

// An overlay on /etc in the case's private mount namespace (the host's /etc is never
// written), and `summary` printing what an audit of /tmp/t used: rc= profile= policy_file=
// bad_size= (whether file.bad-size, which the policy below disables, was reported).
constexpr const char* kEtcOverlay = R"SH(
mkdir -p /tmp/etc-up /tmp/etc-work
mount -t overlay overlay -o lowerdir=/etc,upperdir=/tmp/etc-up,workdir=/tmp/etc-work /etc || echo overlay=failed
mkdir -p /etc/hsperfguard
summary() { python3 -c '
import json, sys
rc = sys.argv[1]
try:
    d = json.load(sys.stdin)
except ValueError:
    print("%s rc=%s profile=none policy_file=none bad_size=none" % (sys.argv[2], rc)); sys.exit(0)
print("%s rc=%s profile=%s policy_file=%s bad_size=%s" % (sys.argv[2], rc, d.get("profile"),
      d.get("policy_file", "absent"), "file.bad-size" in d["summary"]["by_rule"]))' "$@"; }
POLICY='{"name": "etc-site", "rules": {"file.bad-size": {"enabled": false}}}'
)SH";

TEST(DefaultPolicy, EtcPolicyIsReadByDefaultAndNamedInTheReport) {
  SKIP_UNLESS_ROOT();
  const auto o = hostile::run_case(std::string(kEtcOverlay) + R"SH(
echo "$POLICY" > /etc/hsperfguard/policy.json
out=$($H audit --tmpdir /tmp/t --format json); printf "%s\n" "$out" | summary $? "default"
out=$($H audit --tmpdir /tmp/t --format json --no-policy); printf "%s\n" "$out" | summary $? "nopolicy"
echo '{"rules": {}}' > /tmp/other.json
out=$($H audit --tmpdir /tmp/t --format json --policy /tmp/other.json); printf "%s\n" "$out" | summary $? "named"
rm /etc/hsperfguard/policy.json
out=$($H audit --tmpdir /tmp/t --format json); printf "%s\n" "$out" | summary $? "absent"
rmdir /etc/hsperfguard
out=$($H audit --tmpdir /tmp/t --format json); printf "%s\n" "$out" | summary $? "nodir"
)SH");
  ASSERT_EQ(o.at("overlay"), "<not printed>") << o.result.err;
  // Read by default: its name is the report's profile, its path the report's policy_file, and
  // the rule it disables is not reported.
  EXPECT_NE(o.result.out.find("default rc=1 profile=etc-site policy_file=/etc/hsperfguard/policy.json bad_size=False"),
            std::string::npos)
      << o.result.out << o.result.err;
  EXPECT_NE(o.result.out.find("nopolicy rc=1 profile=default policy_file=absent bad_size=True"), std::string::npos)
      << o.result.out << o.result.err;
  EXPECT_NE(o.result.out.find("named rc=1 profile=default policy_file=/tmp/other.json bad_size=True"),
            std::string::npos)
      << o.result.out << o.result.err;
  // A missing default (or a missing /etc/hsperfguard) is not an error: the profile alone.
  EXPECT_NE(o.result.out.find("absent rc=1 profile=default policy_file=absent bad_size=True"), std::string::npos)
      << o.result.out << o.result.err;
  EXPECT_NE(o.result.out.find("nodir rc=1 profile=default policy_file=absent bad_size=True"), std::string::npos)
      << o.result.out << o.result.err;
}

TEST(DefaultPolicy, InvalidOrUnreadableDefaultPolicyIsAUsageErrorNamingIt) {
  SKIP_UNLESS_ROOT();
  const auto o = hostile::run_case(std::string(kEtcOverlay) + R"SH(
echo '{"rules": {"no.such-rule": {}}}' > /etc/hsperfguard/policy.json
$H audit --tmpdir /tmp/t --format json >/dev/null 2>/tmp/err; echo "invalid_rc=$?"; echo "invalid_err=$(cat /tmp/err)"
rm /etc/hsperfguard/policy.json; mkdir /etc/hsperfguard/policy.json
$H audit --tmpdir /tmp/t --format json >/dev/null 2>/tmp/err; echo "dir_rc=$?"; echo "dir_err=$(cat /tmp/err)"
$H audit --tmpdir /tmp/t --format json --no-policy >/dev/null 2>&1; echo "ignored_rc=$?"
)SH");
  EXPECT_EQ(o.at("invalid_rc"), "2") << o.result.out << o.result.err;
  EXPECT_NE(o.at("invalid_err").find("/etc/hsperfguard/policy.json: "), std::string::npos) << o.result.out;
  EXPECT_NE(o.at("invalid_err").find("no.such-rule"), std::string::npos) << o.result.out;
  EXPECT_NE(o.at("invalid_err").find("--no-policy"), std::string::npos) << o.result.out;
  EXPECT_EQ(o.at("dir_rc"), "2") << o.result.out << o.result.err;
  EXPECT_NE(o.at("dir_err").find("/etc/hsperfguard/policy.json"), std::string::npos) << o.result.out;
  EXPECT_EQ(o.at("ignored_rc"), "1") << o.result.out << o.result.err;
}

// A policy decides what the audit calls clean, so it is trusted as the lock file is: a 0666
// or a user's policy, or one in a user's directory or reached through her link, lowered every
// severity and her 0777 namespace audited "clean (exit 0)" (found by an outside review).
TEST(DefaultPolicy, APolicyAnotherUserCouldWriteIsRefusedNamingWhy) {
  SKIP_UNLESS_ROOT();
  const auto o = hostile::run_case(std::string(kEtcOverlay) + R"SH(
P='{"rules": {"namespace.group-other-writable": {"enabled": false}}}'
mkdir -m 0777 /tmp/t/hsperfdata_nobody
try() { $H audit --tmpdir /tmp/t --no-containers "$@" >/dev/null 2>/tmp/err; echo "$1_rc=$?"; echo "$1_err=$(cat /tmp/err | head -1)"; }
echo "$P" > /etc/hsperfguard/policy.json && chmod 0666 /etc/hsperfguard/policy.json
$H audit --tmpdir /tmp/t --no-containers >/dev/null 2>/tmp/err; echo "wide_rc=$?"; echo "wide_err=$(head -1 /tmp/err)"
chmod 0644 /etc/hsperfguard/policy.json && chown nobody /etc/hsperfguard/policy.json
$H audit --tmpdir /tmp/t --no-containers >/dev/null 2>/tmp/err; echo "theirs_rc=$?"; echo "theirs_err=$(head -1 /tmp/err)"
mkdir /tmp/evil && echo "$P" > /tmp/evil/policy.json && chown nobody /tmp/evil
$H audit --tmpdir /tmp/t --no-containers --policy /tmp/evil/policy.json >/dev/null 2>/tmp/err; echo "dir_rc=$?"; echo "dir_err=$(head -1 /tmp/err)"
chown root /etc/hsperfguard/policy.json
ln -s /etc/hsperfguard/policy.json /tmp/link && chown -h nobody /tmp/link
$H audit --tmpdir /tmp/t --no-containers --policy /tmp/link >/dev/null 2>/tmp/err; echo "link_rc=$?"; echo "link_err=$(head -1 /tmp/err)"
$H audit --tmpdir /tmp/t --no-containers >/tmp/out 2>/tmp/err; echo "roots_rc=$?"
echo "roots_applied=$(grep -c group-other-writable /tmp/out)"
)SH");
  ASSERT_EQ(o.at("overlay"), "<not printed>") << o.result.err;
  for (const char* c : {"wide", "theirs", "dir", "link"}) {
    EXPECT_EQ(o.at(std::string(c) + "_rc"), "2") << c << ": " << o.result.out << o.result.err;
  }
  EXPECT_NE(o.at("wide_err").find("/etc/hsperfguard/policy.json: writable by its group or others"), std::string::npos)
      << o.at("wide_err");
  EXPECT_NE(o.at("theirs_err").find("owned by uid 65534"), std::string::npos) << o.at("theirs_err");
  EXPECT_NE(o.at("dir_err").find("/tmp/evil/policy.json"), std::string::npos) << o.at("dir_err");
  EXPECT_NE(o.at("link_err").find("/tmp/link"), std::string::npos) << o.at("link_err");
  // root's own 0644 policy in root's directory is read: the rule it disables is not reported.
  EXPECT_NE(o.at("roots_rc"), "2") << o.result.out << o.result.err;
  EXPECT_EQ(o.at("roots_applied"), "0") << o.result.out << o.result.err;
}

// ---- rules show, on the command line ---------------------------------------------------------

TEST(RulesShowCli, ShowsOneRuleAndRefusesAnUnknownOneWithExit2) {
  const auto r = run_tool({"rules", "show", "file.stale"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("file.stale: ", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("why it matters:"), std::string::npos) << r.out;
  const auto json = run_tool({"rules", "show", "file.stale", "--format", "json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_NE(json.out.find("\"severity_by_profile\""), std::string::npos) << json.out;
  const auto typo = run_tool({"rules", "show", "file.stael"});
  EXPECT_EQ(typo.exit_code, 2) << typo.out;
  EXPECT_NE(typo.err.find("did you mean file.stale?"), std::string::npos) << typo.err;
  // The list is as it was.
  const auto list = run_tool({"rules"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_NE(list.out.find("file.stale "), std::string::npos) << list.out;
}

// ---- inspect PID: ps's diagnosis, and a header -------------------------------------------------

// `java OPTIONS IdleJvm` as a child of ours, its stdin a pipe we hold (IdleJvm idles until
// EOF), ready once it maps libjvm. Killed and reaped when destroyed.
class JavaChild : public reaptest::ChildProcess {
 public:
  ~JavaChild() {
    if (stdin_ >= 0) ::close(stdin_);
  }
  bool start(const std::vector<std::string>& options) {
    const std::string java = find_program("java");
    const std::string& classes = test_classes();
    if (java.empty() || classes.empty()) return false;
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return false;
    std::vector<std::string> args = {java};
    args.insert(args.end(), options.begin(), options.end());
    for (const char* a : {"-cp", classes.c_str(), kIdleJvmClass, "quiet"}) args.emplace_back(a);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    const pid_t parent = ::getpid();
    pid_ = ::fork();
    if (pid_ == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) ::_exit(127);
      ::dup2(fds[0], 0);
      ::execv(java.c_str(), argv.data());
      ::_exit(127);
    }
    ::close(fds[0]);
    stdin_ = fds[1];
    if (pid_ < 0) return false;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (std::chrono::steady_clock::now() < deadline) {
      std::ifstream maps("/proc/" + std::to_string(pid_) + "/maps");
      std::stringstream text;
      text << maps.rdbuf();
      if (text.str().find("libjvm.so") != std::string::npos) {
        std::this_thread::sleep_for(std::chrono::milliseconds(300));  // past its start-up
        return true;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  }

 private:
  int stdin_ = -1;
};

TEST(InspectDiagnosis, JvmStartedWithoutPerfDataIsSaidSoAsPsSaysIt) {
  if (!have_jdk()) GTEST_SKIP() << "java is needed on PATH";
  if (!is_root()) GTEST_SKIP() << "ps reads every process's maps as root";
  JavaChild jvm;
  ASSERT_TRUE(jvm.start({"-XX:-UsePerfData", "-Xmx32m"}));
  const std::string pid = std::to_string(jvm.pid());
  const auto r = run_tool({"inspect", pid});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("hsperfguard: inspect: pid " + pid +
                       " is a JVM started with -XX:-UsePerfData (command line): it has no backing file"),
            std::string::npos)
      << r.err;
  // The fix is the catalogue's remediation of jvm.perf-data-disabled, as the audit gives it.
  EXPECT_NE(r.err.find("fix: Nothing to do if it is deliberate; otherwise remove the flag and restart the JVM."),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("maps none"), std::string::npos) << r.err;
}

TEST(InspectDiagnosis, MissingPidAndAProcessThatIsNoJvmAreNamedSo) {
  // A pid that has exited: no process, and no file of that name.
  const pid_t gone = ::fork();
  if (gone == 0) ::_exit(0);
  ASSERT_GT(gone, 0);
  ASSERT_EQ(::waitpid(gone, nullptr, 0), gone);
  const auto missing = run_tool({"inspect", std::to_string(gone)});
  EXPECT_EQ(missing.exit_code, 3) << missing.err;
  EXPECT_NE(missing.err.find("hsperfguard: inspect: no process " + std::to_string(gone) + ", and no backing file named"),
            std::string::npos)
      << missing.err;
  reaptest::Sleeper sleeper;
  ASSERT_TRUE(sleeper.start());
  const auto not_jvm = run_tool({"inspect", std::to_string(sleeper.pid())});
  EXPECT_EQ(not_jvm.exit_code, 3) << not_jvm.err;
  EXPECT_NE(not_jvm.err.find("pid " + std::to_string(sleeper.pid()) + " is not a JVM (comm sleep)"),
            std::string::npos)
      << not_jvm.err;
}

TEST(InspectHeader, TextNamesTheJvmItsMainUserStateStartVersionAndFile) {
  if (!have_jdk()) GTEST_SKIP() << "java is needed on PATH";
  JvmProcess jvm;
  ASSERT_TRUE(jvm.start({"-XX:+UseSerialGC", "-Xmx32m"}, {"header-check"}));
  const std::string pid = std::to_string(jvm.pid());
  const auto r = run_tool({"inspect", pid, "--format", "text"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("pid:     " + pid + " (live: it maps this file)\nmain:    IdleJvm header-check\n", 0), 0u)
      << r.out.substr(0, 600);
  EXPECT_TRUE(std::regex_search(r.out, std::regex("\nuser:    [^\n]+ \\(uid " + std::to_string(::geteuid()) + "\\)\n")))
      << r.out.substr(0, 600);
  EXPECT_TRUE(std::regex_search(r.out, std::regex("\nstarted: 20[0-9-]+T[0-9:.]+Z \\(up [0-9]+[a-z]")))
      << r.out.substr(0, 600);
  EXPECT_TRUE(std::regex_search(r.out, std::regex("\nJVM:     [0-9][^\n]*\n"))) << r.out.substr(0, 600);
  EXPECT_NE(r.out.find("\nfile:    " + jvm.backing_file_path() + "\n"), std::string::npos) << r.out.substr(0, 600);
  // snap stays exactly jstat's lines: no header.
  const auto snap = run_tool({"inspect", pid, "--format", "snap"});
  ASSERT_EQ(snap.exit_code, 0) << snap.err;
  EXPECT_EQ(snap.out.find("pid:"), std::string::npos);
}

// ---- hsperfguard-policy(5) ------------------------------------------------------------------

TEST(PolicyManPage, DocumentsEveryKeyTheParserAcceptsAndRendersWithoutWarnings) {
  // The parser accepts exactly the listed keys: each with a value of its type, nothing else.
  for (const auto key : kPolicyKeys) {
    Policy policy = *builtin_profile("default");
    const std::string value = key == "rules" ? "{}" : "\"x\"";
    EXPECT_EQ(apply_policy_text(policy, "{\"" + std::string(key) + "\": " + value + "}"), std::nullopt) << key;
  }
  for (const auto key : kPolicyRuleKeys) {
    Policy policy = *builtin_profile("default");
    const std::string value = key == "enabled" ? "false" : "\"high\"";
    EXPECT_EQ(apply_policy_text(policy, R"({"rules": {"file.mode": {")" + std::string(key) + "\": " + value + "}}}"),
              std::nullopt)
        << key;
  }
  Policy policy = *builtin_profile("default");
  EXPECT_NE(apply_policy_text(policy, R"({"profile": "strict"})"), std::nullopt);

  const std::string build_dir = std::filesystem::path(HSPERFGUARD_BINARY).parent_path().string();
  const std::string page = build_dir + "/share/man/man5/hsperfguard-policy.5.gz";
  ASSERT_TRUE(std::filesystem::exists(page)) << "the build made no " << page << " (it is what the packages install)";
  if (!have_program("man")) GTEST_SKIP() << "no man to render it (Debian: man-db)";
  const auto rendered = run({"sh", "-c", "LC_ALL=C MANWIDTH=200 man --warnings -l '" + page + "' | col -bx"});
  ASSERT_EQ(rendered.exit_code, 0) << rendered.err;
  EXPECT_EQ(rendered.err, "") << "groff warnings";
  const std::string& text = rendered.out;
  // Each key is a term of its own, with its type: "name (string)".
  for (const auto key : kPolicyKeys) {
    EXPECT_TRUE(std::regex_search(text, std::regex("\n +" + std::string(key) + " \\(")))
        << "key \"" << key << "\" is not documented in hsperfguard-policy(5)";
  }
  for (const auto key : kPolicyRuleKeys) {
    EXPECT_TRUE(std::regex_search(text, std::regex("\n +" + std::string(key) + " \\(")))
        << "rule key \"" << key << "\" is not documented in hsperfguard-policy(5)";
  }
  for (const auto& profile : profile_names()) {
    EXPECT_TRUE(std::regex_search(text, std::regex("\n +" + profile + "\\b"))) << "profile " << profile;
  }
  for (const char* severity : {"info", "low", "medium", "high", "critical"}) {
    EXPECT_NE(text.find(severity), std::string::npos) << severity;
  }
  for (const char* word : {"/etc/hsperfguard/policy.json", "--no-policy", "--policy", "policy_file", "EXAMPLES",
                           "ERRORS", "RULE IDS", "hsperfguard rules show"}) {
    EXPECT_NE(text.find(word), std::string::npos) << word;
  }
}

}  // namespace
}  // namespace hsperfguard::test
