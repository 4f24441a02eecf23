// A JVM that jps lists and the host's attach misses (checks/reach.hpp) and its rule,
// jvm.own-mount-namespace: systemd's PrivateTmp= (the unit from the cgroup, else from the
// private directory's name), a pod's container seen from a sidecar, and what is not that case
// (a container with its own pid namespace, the host's /tmp). A hostile unit name comes out of
// the advice as one shell word meaning its bytes.
#include "checks/reach.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "checks/checks.hpp"
#include "checks_builders.hpp"
#include "model/rule_catalog.hpp"
#include "model/shell_word.hpp"

namespace hsperfguard {
namespace {

using namespace test;  // NOLINT: the builders
using ::testing::HasSubstr;
using ::testing::Not;

constexpr const char* kPrivateDir =
    "systemd-private-0123456789abcdef0123456789abcdef-tomcat.service-AbC123";

// /proc/4242/root/tmp, the /tmp of a process of our pid namespace in another mount namespace,
// a systemd-private-* directory of the host's /tmp when `private_dir` is given.
TempRootFacts private_root(std::optional<std::string> private_dir = kPrivateDir) {
  TempRootFacts root = temp_root();
  root.kind = RootKind::container;
  root.root = "/proc/4242/root";
  root.container = ContainerFacts{};
  root.container->host_pid = 4242;
  root.container->mount_namespace = "mnt:[4026532177]";
  root.container->systemd_private_dir = std::move(private_dir);
  return root;
}

// The JVM: in our pid namespace (one NSpid field), mapping its backing file.
ProcessFacts owner(std::int32_t pid = 4242) {
  ProcessFacts p = process(pid, ProcessFacts::Existence::alive);
  p.ns_pids = {pid};
  p.mount_namespace = "mnt:[4026532177]";
  p.maps_backing_file = true;
  return p;
}

TEST(Reach, PrivateTmpOfAServiceNamedByItsCgroup) {
  ProcessFacts jvm = owner();
  jvm.cgroup = "/system.slice/tomcat9.service";
  const auto d = checks::diagnose_reach(private_root(), jvm);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->cause, checks::ReachCause::systemd_private_tmp);
  EXPECT_EQ(checks::to_string(d->cause), "systemd-private-tmp");
  EXPECT_EQ(d->unit, "tomcat9.service");  // the cgroup's, before the directory's name
  EXPECT_EQ(d->pid, 4242);
  EXPECT_EQ(d->command, "nsenter -t 4242 -m -- jcmd 4242 VM.version");
  EXPECT_EQ(d->explanation,
            "private /tmp of tomcat9.service (PrivateTmp=): jps lists it, but JDK 17's jcmd on the "
            "host cannot attach (it looks for the JVM's attach socket in the host's /tmp); reach "
            "it with nsenter -t 4242 -m -- jcmd 4242 VM.version");
}

TEST(Reach, WithoutAServiceCgroupTheUnitIsThePrivateDirectorys) {
  ProcessFacts jvm = owner();
  jvm.cgroup = "/process_api/0797327b47c8319a0a27db3203d35a97";
  const auto d = checks::diagnose_reach(private_root(), jvm);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->unit, "tomcat.service");
  EXPECT_THAT(d->explanation, HasSubstr("private /tmp of tomcat.service (PrivateTmp=)"));
}

TEST(Reach, APodsContainerSeenFromASidecarIsReachedByNsenterOrKubectlExec) {
  ProcessFacts jvm = owner(77);
  jvm.cgroup = "/kubepods.slice/kubepods-burstable.slice/cri-containerd-0123.scope";
  const auto d = checks::diagnose_reach(private_root(std::nullopt), jvm);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->cause, checks::ReachCause::own_mount_namespace);
  EXPECT_EQ(d->unit, std::nullopt);
  EXPECT_EQ(d->command, "nsenter -t 77 -m -- jcmd 77 VM.version");
  EXPECT_THAT(d->explanation,
              HasSubstr("its /tmp is another mount namespace's in this pid namespace"));
  EXPECT_THAT(d->explanation, HasSubstr("reach it with nsenter -t 77 -m -- jcmd 77 VM.version, or "
                                        "kubectl exec into the JVM's container"));
}

TEST(Reach, NotForAContainerWithItsOwnPidNamespaceNorForTheHostsTmp) {
  ProcessFacts contained = owner();
  contained.ns_pids = {4242, 1};  // jps and jcmd reach it through /proc/4242/root: not this case
  EXPECT_FALSE(checks::diagnose_reach(private_root(), contained));
  TempRootFacts host = temp_root();
  EXPECT_FALSE(checks::diagnose_reach(host, owner()));
  ProcessFacts unread = owner();
  unread.ns_pids.clear();  // its NSpid unknown: nothing said
  EXPECT_FALSE(checks::diagnose_reach(private_root(), unread));
  ProcessFacts locker = owner();
  locker.maps_backing_file = false;  // holds the lock, maps nothing: no JVM to attach to
  EXPECT_FALSE(checks::diagnose_reach(private_root(), locker));
}

TEST(Reach, AHostileUnitNameIsOneShellWord) {
  for (const std::string& unit :
       {std::string("to mcat.service"), std::string("it's.service"),
        std::string("a\"b$(id)`x`.service"), std::string("nl\n.service")}) {
    ProcessFacts jvm = owner();
    jvm.cgroup = "/system.slice/" + unit;
    const auto d = checks::diagnose_reach(private_root(), jvm);
    ASSERT_TRUE(d) << unit;
    EXPECT_EQ(d->unit, unit);
    EXPECT_THAT(d->explanation,
                HasSubstr("private /tmp of " + posix_shell_word(unit) + " (PrivateTmp=)"));
    EXPECT_NE(posix_shell_word(unit), unit) << "the test's names all need quoting";
    EXPECT_THAT(d->explanation, Not(HasSubstr("\n")));
  }
}

TEST(Reach, TheOwnerIsTheProcessMappingTheFileElseTheLockHolder) {
  LivenessFacts lf;
  ProcessFacts other = owner(10);
  other.maps_backing_file = false;
  lf.candidates = {other, owner(11)};
  EXPECT_EQ(checks::backing_file_owner(lf)->pid, 11);
  lf.candidates[1].maps_backing_file = false;
  EXPECT_EQ(checks::backing_file_owner(lf), nullptr);
  lf.lock_held = true;
  lf.lock_holder_pid = 10;
  EXPECT_EQ(checks::backing_file_owner(lf)->pid, 10);
}

// The findings of `rule` for `jvm`'s backing file in the namespace of `user` at `ns_path` of
// `root` (by default root's, in the container's /tmp).
Findings rule_findings(const TempRootFacts& root, const ProcessFacts& jvm,
                       const std::string& rule = "jvm.own-mount-namespace", const std::string& user = "root",
                       const std::string& ns_path = "/proc/4242/root/tmp/hsperfdata_root") {
  TempRootFacts r = root;
  NamespaceFacts ns = namespace_of(user, 0);
  ns.path = ns_path;
  FileFacts file = backing_file(ns, std::to_string(jvm.pid));
  file.liveness = LivenessFacts{};
  file.liveness->candidates = {jvm};
  ns.files.push_back(file);
  r.namespaces.push_back(ns);
  Findings out;
  for (auto& f : checks::check_all(r)) {
    if (f.rule == rule) out.push_back(std::move(f));
  }
  return out;
}

TEST(JvmOwnMountNamespace, AnInfoFindingWithTheCommandThatReachesIt) {
  const Findings found = rule_findings(private_root(), owner());
  ASSERT_EQ(found.size(), 1u);
  const Finding& f = found[0];
  EXPECT_EQ(f.severity, Severity::info);
  EXPECT_EQ(f.path, "/proc/4242/root/tmp/hsperfdata_root/4242");
  EXPECT_EQ(f.evidence["command"], "nsenter -t 4242 -m -- jcmd 4242 VM.version");
  EXPECT_EQ(f.evidence["unit"], "tomcat.service");
  EXPECT_EQ(f.evidence["reason"], "systemd-private-tmp");
  EXPECT_EQ(f.evidence["systemd_private_dir"], kPrivateDir);
  EXPECT_THAT(f.message, HasSubstr("JVM pid 4242: private /tmp of tomcat.service (PrivateTmp=)"));
}

TEST(JvmOwnMountNamespace, NothingForAContainerWithItsOwnPidNamespace) {
  ProcessFacts contained = owner();
  contained.ns_pids = {4242, 1};
  EXPECT_TRUE(rule_findings(private_root(), contained).empty());
  ProcessFacts gone = owner();
  gone.maps_backing_file = false;  // nobody owns the file: no JVM to reach
  EXPECT_TRUE(rule_findings(private_root(), gone).empty());
}

TEST(JvmOwnMountNamespace, InfoIsBelowTheDefaultFailureThreshold) {
  const RuleInfo* info = find_rule("jvm.own-mount-namespace");
  ASSERT_NE(info, nullptr);
  EXPECT_EQ(info->severity, Severity::info);
}

// Windows: a JVM in another account's temp dir (a service's, or its own TMP's).
TempRootFacts account_root(std::optional<std::int32_t> named_by = std::nullopt) {
  TempRootFacts root = temp_root();
  root.platform = Platform::windows;
  root.kind = RootKind::account_temp_dir;
  root.root = "/";
  root.temp_dir = named_by ? "D:\\it's tmp" : "C:\\Windows\\Temp";
  root.account = TempDirAccount{named_by ? "svc" : "SYSTEM", named_by};
  return root;
}

TEST(Reach, AJvmInAServiceAccountsTempDirIsNamedWithItsAccountAndTheJpsThatListsIt) {
  ProcessFacts jvm = owner(1208);
  jvm.ns_pids.clear();  // Windows has no pid namespaces
  const auto d = checks::diagnose_reach(account_root(), jvm);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->cause, checks::ReachCause::other_temp_dir);
  EXPECT_EQ(checks::to_string(d->cause), "other-account-temp-dir");
  EXPECT_EQ(d->pid, 1208);
  EXPECT_EQ(d->command, "$env:TMP = 'C:\\Windows\\Temp'; jps -l -J-XX:-UsePerfData");
  EXPECT_EQ(d->explanation,
            "in the temp dir of account SYSTEM (C:\\Windows\\Temp), a service account's, not this "
            "run's: jps, jstat and jcmd list only the namespaces of the temp dir their own TMP, TEMP "
            "or USERPROFILE names, so run with another they do not list it; run them as account "
            "SYSTEM, or list it with $env:TMP = 'C:\\Windows\\Temp'; jps -l -J-XX:-UsePerfData");
  ProcessFacts locker = jvm;
  locker.maps_backing_file = false;  // holds the lock, maps nothing: no JVM
  EXPECT_FALSE(checks::diagnose_reach(account_root(), locker));
}

TEST(Reach, AJvmWhoseOwnTmpNamesItsTempDirGetsThatDirectoryAsOnePowerShellWord) {
  ProcessFacts jvm = owner(52);
  const auto d = checks::diagnose_reach(account_root(52), jvm);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->command, "$env:TMP = 'D:\\it''s tmp'; jps -l -J-XX:-UsePerfData");
  EXPECT_THAT(d->explanation, HasSubstr("in the temp dir its own TMP names (D:\\it's tmp, account svc's)"));
}

TEST(JvmOtherAccountTempDir, AnInfoFindingWithTheAccountAndNoOwnMountNamespaceFinding) {
  const TempRootFacts root = account_root();
  const ProcessFacts jvm = owner(1208);
  const std::string ns = "C:\\Windows\\Temp\\hsperfdata_SYSTEM";
  EXPECT_TRUE(rule_findings(root, jvm, "jvm.own-mount-namespace", "SYSTEM", ns).empty());
  const Findings found = rule_findings(root, jvm, "jvm.other-account-temp-dir", "SYSTEM", ns);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].severity, Severity::info);
  EXPECT_EQ(found[0].evidence["account"], "SYSTEM");
  EXPECT_EQ(found[0].evidence["temp_dir"], "C:\\Windows\\Temp");
  EXPECT_EQ(found[0].evidence["reason"], "other-account-temp-dir");
  EXPECT_FALSE(found[0].evidence.contains("named_by_pid"));
  EXPECT_THAT(found[0].message, HasSubstr("JVM pid 1208: in the temp dir of account SYSTEM"));
  // The host's own temp dir: nothing.
  TempRootFacts host = root;
  host.kind = RootKind::host;
  host.account.reset();
  EXPECT_TRUE(rule_findings(host, jvm, "jvm.other-account-temp-dir", "SYSTEM", ns).empty());
}

// The JVM of an account's temp dir is a process of a positive pid, the lowest included; pid 0
// (Windows' idle process, or no process found) is none, and gets no diagnosis.
TEST(Reach, AnAccountsJvmIsAnyPositivePidAndPidZeroIsNone) {
  for (const std::int32_t pid : {1, 4}) {
    ProcessFacts jvm = owner(pid);
    jvm.ns_pids.clear();
    const auto d = checks::diagnose_reach(account_root(), jvm);
    ASSERT_TRUE(d) << pid;
    EXPECT_EQ(d->pid, pid);
  }
  ProcessFacts none = owner(0);
  none.ns_pids.clear();
  EXPECT_FALSE(checks::diagnose_reach(account_root(), none));
}

}  // namespace
}  // namespace hsperfguard
