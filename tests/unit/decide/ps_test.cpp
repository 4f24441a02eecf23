// `ps` rows from hand-built facts, blind-JVM attribution, and the /proc parsers ps needs.
#include "decide/ps.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "checks_builders.hpp"
#include "decide/audit.hpp"
#include "model/procfs_parse.hpp"
#include "model/shell_word.hpp"
#include "report/ps_report.hpp"
#include "report/audit_report_json.hpp"
#include "test_support.hpp"

namespace hsperfguard {
namespace {

using namespace test;  // NOLINT: the builders
using ::testing::HasSubstr;
using ::testing::Not;
using Existence = ProcessFacts::Existence;

constexpr std::int64_t kNow = 1'800'000'000'000;

// A container root reached through host pid 5000, its /tmp/hsperfdata_alice/1 locked and
// mapped by host pid 5000 (ns pid 1).
TempRootFacts container_world() {
  TempRootFacts root = temp_root();
  root.kind = RootKind::container;
  root.root = "/proc/5000/root";
  root.container = ContainerFacts{5000, "mnt:[4026532176]", "/docker/abc", std::nullopt};
  NamespaceFacts ns = namespace_of();
  ns.path = "/proc/5000/root/tmp/hsperfdata_alice";
  FileFacts file = backing_file(ns, "1");
  LivenessFacts lf;
  lf.lock_held = true;
  lf.lock_source = "proc-locks";
  lf.lock_holder_pid = 5000;
  ProcessFacts p = process(5000, Existence::alive);
  p.ns_pids = {5000, 1};
  p.mount_namespace = "mnt:[4026532176]";
  p.maps_backing_file = true;
  lf.candidates.push_back(p);
  lf.candidates_complete = true;
  file.liveness = lf;
  ns.files.push_back(file);
  root.namespaces.push_back(ns);
  return root;
}

JvmProcessFacts jvm(std::int32_t pid, std::optional<bool> maps_file, std::string user = "alice") {
  JvmProcessFacts j;
  j.process = process(pid, Existence::alive);
  j.process.ns_pids = {pid};
  j.process.mount_namespace = "mnt:[4026531841]";
  j.process.maps_libjvm = true;
  j.process.start_time_ms = kNow - 65'000;
  j.maps_backing_file = maps_file;
  j.user = std::move(user);
  j.command_line = "java -XX:-UsePerfData Quiet";
  j.temp_dir_dev = 0x2a;
  j.temp_dir_ino = 100;
  return j;
}

// A JVM of uid 54321, which has no entry in its root's user database (that was read).
JvmProcessFacts no_user_jvm(std::int32_t pid) {
  JvmProcessFacts j = jvm(pid, false);
  j.user.reset();
  j.process.effective_uid = 54321;
  j.no_user_entry = true;
  return j;
}

TEST(Ps, ContainerJvmRowHasHostPidNsPidAndContainer) {
  JvmProcessFacts owner = jvm(5000, true);
  owner.process.cgroup = "/docker/abc";
  const auto rows = ps_rows({container_world()}, {owner}, {});
  ASSERT_EQ(rows.size(), 1u);  // the JVM is listed once, through its file
  const PsRow& r = rows[0];
  EXPECT_EQ(r.host_pid, 5000);
  EXPECT_EQ(r.ns_pid, 1);
  EXPECT_EQ(r.user, "alice");
  EXPECT_EQ(r.root_kind, RootKind::container);
  EXPECT_EQ(r.mount_namespace, "mnt:[4026532176]");
  EXPECT_EQ(r.cgroup, "/docker/abc");
  EXPECT_EQ(r.main, "Main -Dsecret=1");
  EXPECT_EQ(r.state, "live");
  EXPECT_EQ(r.reason, "lock-held");
  EXPECT_EQ(r.backing_file, "/proc/5000/root/tmp/hsperfdata_alice/1");
  EXPECT_EQ(r.start_time_ms, 1);  // createVmBeginTime of the region
}

// ps reads the lock table only when a row depends on it: a file its own JVM maps is live
// either way; a file that would be stale, an unmapped one, or a blind JVM need it.
TEST(Ps, RowsDependOnLocksUnlessEveryFileIsMappedByItsJvm) {
  JvmProcessFacts owner = jvm(5000, true);
  TempRootFacts world = container_world();
  auto depends = [](const TempRootFacts& root, const std::vector<JvmProcessFacts>& jvms) {
    return ps_rows_depend_on_locks(ps_rows({root}, jvms, {}));
  };
  EXPECT_TRUE(depends(world, {owner})) << "decided by the lock: it may say otherwise";
  LivenessFacts& lf = *world.namespaces[0].files[0].liveness;
  lf.lock_held.reset();
  lf.lock_source = "none";
  lf.lock_holder_pid.reset();
  EXPECT_FALSE(depends(world, {owner}));
  // The same row but for the reason: the mapping decided it.
  const auto rows = ps_rows({world}, {owner}, {});
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].state, "live");
  EXPECT_EQ(rows[0].reason, "mapped");
  EXPECT_EQ(rows[0].host_pid, 5000);

  JvmProcessFacts quiet = jvm(77, false);  // blind: its diagnosis asks who holds its name's lock
  EXPECT_TRUE(depends(world, {owner, quiet}));
  JvmProcessFacts unreadable = jvm(78, std::nullopt);  // a process row no file decided
  EXPECT_FALSE(depends(world, {owner, unreadable}));

  TempRootFacts gone = world;  // its process exited: stale only if nobody holds the lock
  gone.namespaces[0].files[0].liveness->candidates[0].existence = Existence::gone;
  gone.namespaces[0].files[0].liveness->candidates[0].maps_backing_file.reset();
  ASSERT_EQ(ps_rows({gone}, {}, {}).size(), 1u) << "without the lock state nothing is hidden";
  EXPECT_EQ(ps_rows({gone}, {}, {})[0].state, "unknown") << "no lock state: never stale";
  EXPECT_TRUE(depends(gone, {}));

  TempRootFacts unmapped = world;  // alive, not mapping it: a held lock would make it live
  unmapped.namespaces[0].files[0].liveness->candidates[0].maps_backing_file = false;
  EXPECT_TRUE(depends(unmapped, {owner}));
}

TEST(Ps, BlindJvmIsListedWithItsCommandLine) {
  TempRootFacts host = temp_root();
  JvmProcessFacts quiet = jvm(77, false);
  quiet.perf_data = PerfDataOption{true, "-XX:-UsePerfData", "command line"};
  const auto rows = ps_rows({host}, {quiet}, {});
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].state, "blind");
  EXPECT_EQ(rows[0].reason, "perf-data-disabled");
  EXPECT_EQ(rows[0].details, (std::vector<std::string>{"-XX:-UsePerfData", "command line"}));
  EXPECT_EQ(rows[0].host_pid, 77);
  EXPECT_EQ(rows[0].ns_pid, 77);
  EXPECT_FALSE(rows[0].backing_file);
  const std::string text = ps_text(rows, kNow);
  EXPECT_THAT(text, HasSubstr("[java -XX:-UsePerfData Quiet]"));
  EXPECT_THAT(text, HasSubstr("1m05s"));
  EXPECT_THAT(text, HasSubstr("77 blind (perf-data-disabled): it was started with -XX:-UsePerfData (command line)"));
}

// On a terminal no row is longer than it is wide: a command line padded to the terminal's
// width followed by a forged row ("1 1 root live 9d ...") wrapped into a line of its own that
// read as another JVM (found by an outside review at 80 and 40 columns).
TEST(Ps, OnATerminalNoRowWrapsIntoALineOfItsOwn) {
  JvmProcessFacts quiet = jvm(77, false);
  quiet.perf_data = PerfDataOption{true, "-XX:-UsePerfData", "command line"};
  quiet.command_line = "java -XX:-UsePerfData Quiet " + std::string(200, ' ') +
                       "1 1 root live 9d - 17.0.21 org.example.Billing \u6f22\u5b57\u6f22\u5b57";
  const auto rows = ps_rows({temp_root()}, {quiet}, {});
  for (const std::size_t columns : {40u, 80u, 132u}) {
    const std::string text = ps_text(rows, kNow, columns);
    const std::string table = text.substr(0, text.find("\n\n"));
    std::size_t start = 0;
    while (start < table.size()) {
      const std::size_t end = std::min(table.find('\n', start), table.size());
      const std::string line = table.substr(start, end - start);
      std::size_t width = 0;  // the test's text is ASCII but for the two-column CJK at the end
      for (std::size_t i = 0; i < line.size(); ++i) {
        if ((static_cast<unsigned char>(line[i]) & 0xc0) == 0x80) continue;
        width += static_cast<unsigned char>(line[i]) >= 0xe0 ? 2 : 1;
      }
      EXPECT_LE(width, columns) << line;
      start = end + 1;
    }
    EXPECT_THAT(table, HasSubstr(">")) << "the cut row says it was cut";
  }
  // Without a terminal (a pipe, a file) the row is whole.
  EXPECT_THAT(ps_text(rows, kNow), HasSubstr("org.example.Billing"));
}

// Each reason of the closed set, from the facts that decide it.
TEST(Ps, InvisibleJvmReasons) {
  const auto reason_of = [](const TempRootFacts& root, const JvmProcessFacts& j) {
    const auto rows = ps_rows({root}, {j}, {});
    return rows.size() == 1 ? rows[0].reason : "rows: " + std::to_string(rows.size());
  };
  TempRootFacts refused = temp_root();
  NamespaceFacts loose = namespace_of();
  loose.lstat->mode = loose.opened->mode = 0777;
  refused.namespaces.push_back(loose);
  EXPECT_EQ(reason_of(refused, jvm(70, false)), "namespace-refused");

  TempRootFacts shut = temp_root();
  NamespaceFacts no_write = namespace_of();
  no_write.lstat->mode = no_write.opened->mode = 0500;
  shut.namespaces.push_back(no_write);
  EXPECT_EQ(reason_of(shut, jvm(71, false)), "create-failed");

  TempRootFacts full = temp_root();
  full.volume->free_bytes = 4096;
  full.namespaces.push_back(namespace_of());
  EXPECT_EQ(reason_of(full, jvm(72, false)), "create-failed");

  // Its name, 1 in its pid namespace, is held by another container's pid-1 JVM (host pid 900).
  TempRootFacts shared = temp_root();
  NamespaceFacts ns = namespace_of();
  ns.files.push_back(locked_file(ns, "1", 900));
  shared.namespaces.push_back(ns);
  JvmProcessFacts second = jvm(901, false);
  second.process.ns_pids = {901, 1};
  const auto rows = ps_rows({shared}, {second}, {});
  ASSERT_EQ(rows.size(), 2u);  // the file "1" (its holder's row) and the blind JVM
  const auto blind = std::find_if(rows.begin(), rows.end(),
                                  [](const PsRow& r) { return r.host_pid == 901; });
  ASSERT_NE(blind, rows.end());
  EXPECT_EQ(blind->state, "blind");
  EXPECT_EQ(blind->reason, "locked-by-another-jvm");
  EXPECT_EQ(blind->lock_holder_pid, 900);

  JvmProcessFacts cleaned = jvm(73, true);
  cleaned.backing_file_deleted = true;
  cleaned.mapped_backing_file = "/tmp/hsperfdata_alice/73";
  cleaned.region_main = "Main";
  const auto deleted = ps_rows({temp_root()}, {cleaned}, {});
  ASSERT_EQ(deleted.size(), 1u);
  EXPECT_EQ(deleted[0].state, "deleted");
  EXPECT_EQ(deleted[0].reason, "backing-file-deleted");
  EXPECT_EQ(deleted[0].main, "Main");
  EXPECT_EQ(deleted[0].backing_file, "/tmp/hsperfdata_alice/73");

  TempRootFacts sound = temp_root();
  sound.namespaces.push_back(namespace_of());
  EXPECT_EQ(reason_of(sound, jvm(74, false)), "undetermined");
}

// What ps (and inspect, which prints ps's row) gives as the fix for an invisible JVM is the
// audit's remediation of its finding for the same facts: the catalogue's, fitted to the temp
// dir. Before, ps wrote its own sentences ("fix the namespace (`hsperfguard audit` says how;
// ...)", "restart the JVM and run `hsperfguard audit` if it stays invisible"), the audit the
// catalogue's.
void expect_ps_fix_is_the_audits(TempRootFacts root, const JvmProcessFacts& j, const std::string& reason,
                                 const std::string& rule) {
  const auto rows = ps_rows({root}, {j}, {});
  const auto row = std::find_if(rows.begin(), rows.end(), [&](const PsRow& r) { return r.host_pid == j.process.pid; });
  ASSERT_NE(row, rows.end()) << reason;
  EXPECT_EQ(row->reason, reason);
  ASSERT_TRUE(row->fix.has_value()) << reason;
  // The audit finds the JVM in its user's namespace, or beside them when there is none.
  bool placed = false;
  for (auto& ns : root.namespaces) {
    if (ns.user_suffix == j.user) {
      ns.invisible_jvms.push_back(j);
      placed = true;
    }
  }
  if (!placed) root.invisible_jvms.push_back(j);
  const auto judged = judge({root}, *builtin_profile("default"));
  std::vector<Finding> findings = judged.at(0).findings;
  for (const auto& ns : judged.at(0).namespaces) findings.insert(findings.end(), ns.findings.begin(), ns.findings.end());
  const Finding* about = nullptr;
  for (const auto& f : findings) {
    const bool names_it = f.evidence.value("pid", 0) == j.process.pid ||
                          (f.evidence.contains("pids") && f.evidence["pids"].at(0) == j.process.pid);
    if (names_it) about = &f;
  }
  ASSERT_NE(about, nullptr) << reason;
  EXPECT_EQ(about->rule, rule) << reason;  // ps's diagnosis is the audit's finding
  EXPECT_EQ(*row->fix, about->remediation) << reason << " (" << about->rule << ")";
  EXPECT_EQ(about->remediation.empty(), false);
}

TEST(Ps, TheFixOfEachInvisibleJvmIsTheAuditsRemediationForIt) {
  for (const RootKind kind : {RootKind::host, RootKind::tmpdir}) {
    TempRootFacts base = temp_root();
    base.kind = kind;
    if (kind == RootKind::tmpdir) base.temp_dir = "/srv/scratch tmp";

    TempRootFacts refused = base;
    NamespaceFacts loose = namespace_of();
    loose.lstat->mode = loose.opened->mode = 0777;
    refused.namespaces.push_back(loose);
    expect_ps_fix_is_the_audits(refused, jvm(70, false), "namespace-refused", "namespace.jvm-blinded");

    TempRootFacts shut = base;
    NamespaceFacts no_write = namespace_of();
    no_write.lstat->mode = no_write.opened->mode = 0500;
    shut.namespaces.push_back(no_write);
    expect_ps_fix_is_the_audits(shut, jvm(71, false), "create-failed", "jvm.create-failed");

    TempRootFacts shared = base;
    NamespaceFacts ns = namespace_of();
    ns.files.push_back(locked_file(ns, "1", 900));
    shared.namespaces.push_back(ns);
    JvmProcessFacts second = jvm(901, false);
    second.process.ns_pids = {901, 1};
    expect_ps_fix_is_the_audits(shared, second, "locked-by-another-jvm", "jvm.locked-by-another-jvm");

    JvmProcessFacts cleaned = jvm(73, true);
    cleaned.backing_file_deleted = true;
    cleaned.mapped_backing_file = "/tmp/hsperfdata_alice/73";
    expect_ps_fix_is_the_audits(base, cleaned, "backing-file-deleted", "jvm.backing-file-deleted");

    TempRootFacts sound = base;
    sound.namespaces.push_back(namespace_of());
    JvmProcessFacts quiet = jvm(75, false);
    quiet.perf_data = PerfDataOption{true, "-XX:-UsePerfData", "command line"};
    expect_ps_fix_is_the_audits(sound, quiet, "perf-data-disabled", "jvm.perf-data-disabled");
    expect_ps_fix_is_the_audits(sound, jvm(74, false), "undetermined", "jvm.cause-undetermined");

    TempRootFacts fixed = base;
    NamespaceFacts chmodded = namespace_of();
    chmodded.lstat->ctime = chmodded.opened->ctime = Timestamp{kNow / 1000 - 5, 0};
    fixed.namespaces.push_back(chmodded);
    expect_ps_fix_is_the_audits(fixed, jvm(76, false), "namespace-changed", "jvm.namespace-changed");

    expect_ps_fix_is_the_audits(sound, no_user_jvm(77), "no-passwd-entry", "jvm.no-passwd-entry");
  }
}

// A uid without a user name in its own root (`docker run --user 54321`, OpenShift's arbitrary
// uids): HotSpot gives up before it looks at any directory. Before: `blind (undetermined):
// nothing observed now explains it ... fix: restart the JVM`; the cause is knowable, and a
// restart under the same uid does the same.
TEST(Ps, AJvmWhoseUidHasNoUserNameIsBlindForThatCause) {
  TempRootFacts sound = temp_root();
  sound.namespaces.push_back(namespace_of());
  // Even beside a namespace that accepts JVMs, and with none of its own to predict.
  for (const TempRootFacts& root : {temp_root(), sound}) {
    const auto rows = ps_rows({root}, {no_user_jvm(80)}, {});
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows[0].state, "blind");
    EXPECT_EQ(rows[0].reason, "no-passwd-entry");
    EXPECT_EQ(rows[0].user, std::nullopt);
    EXPECT_THAT(rows[0].details, ::testing::ElementsAre("uid 54321"));
    EXPECT_THAT(rows[0].explanation.value_or(""), HasSubstr("uid 54321 has no entry"));
    // The catalogue's remedy: the entry it needs, and that a restart alone does not help.
    EXPECT_THAT(rows[0].fix.value_or(""), HasSubstr("entry in the passwd of the JVM's own root"));
    EXPECT_THAT(rows[0].fix.value_or(""), HasSubstr("A restart alone does not help"));
  }
  // A user database that could not be read says nothing of the uid: not this cause.
  JvmProcessFacts unread = no_user_jvm(81);
  unread.no_user_entry = false;
  const auto rows = ps_rows({sound}, {unread}, {});
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].reason, "undetermined");
  // -XX:-UsePerfData decides before the JVM asks for its user name.
  JvmProcessFacts quiet = no_user_jvm(82);
  quiet.perf_data = PerfDataOption{true, "-XX:-UsePerfData", "command line"};
  EXPECT_EQ(ps_rows({sound}, {quiet}, {}).at(0).reason, "perf-data-disabled");
}

TEST(Ps, AJvmWhoseUidHasNoUserNameIsItsTempDirsInvisibleJvm) {
  std::vector<TempRootFacts> roots = {temp_root()};
  roots[0].namespaces.push_back(namespace_of());
  JvmProcessFacts unread = no_user_jvm(84);
  unread.no_user_entry = false;  // a failed read: no namespace can be told, none is assumed
  assign_invisible_jvms(roots, {no_user_jvm(83), unread});
  ASSERT_EQ(roots[0].invisible_jvms.size(), 1u);
  EXPECT_EQ(roots[0].invisible_jvms[0].process.pid, 83);
  EXPECT_TRUE(roots[0].namespaces[0].invisible_jvms.empty());
  const auto judged = judge(roots, *builtin_profile("default"));
  ASSERT_EQ(judged.at(0).findings.size(), 1u);
  const Finding& f = judged.at(0).findings[0];
  EXPECT_EQ(f.rule, "jvm.no-passwd-entry");
  EXPECT_EQ(f.severity, Severity::high);
  EXPECT_EQ(f.path, "/tmp");  // no name, no namespace: the temp dir it would be in
  EXPECT_EQ(f.evidence.value("uid", 0), 54321);
  EXPECT_EQ(f.evidence.value("reason", ""), "no-passwd-entry");
}

// OpenJ9 maps a libjvm.so (its redirector) and writes no hsperfdata by design. Before, it was
// taken for HotSpot: `blind (undetermined)` and a jvm.cause-undetermined finding.
TEST(Ps, AnOpenJ9JvmIsNamedAndNeverAnInvisibleHotSpot) {
  TempRootFacts sound = temp_root();
  sound.namespaces.push_back(namespace_of());
  JvmProcessFacts j9 = jvm(85, false);
  j9.vm = VmKind::openj9;
  EXPECT_FALSE(j9.blind());
  EXPECT_FALSE(j9.invisible());
  const auto rows = ps_rows({sound}, {j9}, {});
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].state, "openj9");
  EXPECT_EQ(rows[0].reason, "no-hsperfdata");
  EXPECT_THAT(rows[0].explanation.value_or(""), HasSubstr("OpenJ9 writes no hsperfdata, by design"));
  EXPECT_THAT(rows[0].explanation.value_or(""), HasSubstr(".com_ibm_tools_attach"));
  EXPECT_EQ(rows[0].fix, std::nullopt);
  EXPECT_FALSE(ps_rows_depend_on_locks(rows));
  // No finding: the audit is given no invisible JVM for it.
  std::vector<TempRootFacts> roots = {sound};
  assign_invisible_jvms(roots, {j9});
  EXPECT_TRUE(roots[0].invisible_jvms.empty());
  EXPECT_TRUE(roots[0].namespaces[0].invisible_jvms.empty());
  // The same process as HotSpot is blind, as before.
  EXPECT_EQ(ps_rows({sound}, {jvm(85, false)}, {}).at(0).state, "blind");
}

TEST(Ps, JvmMappingAFileNoRootHoldsIsUnlisted) {
  const auto rows = ps_rows({temp_root()}, {jvm(78, true)}, {});
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].state, "unlisted");
}

TEST(Ps, StaleFilesOnlyWithAll) {
  TempRootFacts root = container_world();
  FileFacts& file = root.namespaces[0].files[0];
  file.liveness->lock_held = false;
  file.liveness->lock_holder_pid.reset();
  file.liveness->candidates.clear();  // no process of the namespace has ns pid 1
  EXPECT_TRUE(ps_rows({root}, {}, {}).empty());
  const auto rows = ps_rows({root}, {}, PsOptions{true});
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].state, "stale");
  EXPECT_EQ(rows[0].reason, "no-process-in-namespace");
  EXPECT_FALSE(rows[0].host_pid);  // nobody owns it: no host pid to show
  EXPECT_EQ(rows[0].ns_pid, 1);
}

TEST(Ps, HostileTextIsEscapedOnATerminal) {
  JvmProcessFacts j = jvm(79, false, "al\x1b[2Jice\xff");
  j.command_line = "java \x1b]0;owned\x07";
  const std::string text = ps_text(ps_rows({temp_root()}, {j}, {}), kNow);
  EXPECT_THAT(text, Not(HasSubstr("\x1b")));
  EXPECT_THAT(text, Not(HasSubstr("\x07")));
  EXPECT_THAT(text, HasSubstr("\\xff"));
  const auto doc = ps_json(ps_rows({temp_root()}, {j}, {}), kNow, {});
  EXPECT_EQ(doc["schema"], "hsperfguard-ps/1");
  EXPECT_EQ(doc["jvms"][0]["user_hex"], "616c1b5b324a696365ff");
}

TEST(Ps, JsonCarriesEveryColumn) {
  const auto doc = ps_json(ps_rows({container_world()}, {jvm(5000, true)}, {}), kNow,
                           {ObservationError{"/proc/1/root", "open", 13, "Permission denied"}});
  ASSERT_EQ(doc["jvms"].size(), 1u);
  const auto& j = doc["jvms"][0];
  for (const char* key : {"host_pid", "ns_pid", "user", "root_kind", "mount_namespace", "cgroup",
                          "main", "command_line", "vm_version", "start_time_ms", "uptime",
                          "backing_file", "state", "reason"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_EQ(j["ns_pid"], 1);
  EXPECT_EQ(j["root_kind"], "container");
  EXPECT_EQ(doc["errors"].size(), 1u);
}

// container_world's JVM in our pid namespace, its /tmp a service's PrivateTmp= directory.
TempRootFacts private_tmp_world(const std::string& cgroup) {
  TempRootFacts root = container_world();
  root.container->cgroup = cgroup;
  root.container->systemd_private_dir =
      "systemd-private-0123456789abcdef0123456789abcdef-tomcat.service-AbC123";
  ProcessFacts& owner = root.namespaces[0].files[0].liveness->candidates[0];
  owner.ns_pids = {5000};
  owner.cgroup = cgroup;
  root.namespaces[0].files[0].name = "5000";
  root.namespaces[0].files[0].pid_name = classify_pid_name("5000");
  return root;
}

// Before: the row said live, mnt:[...], and nothing of why the host's jcmd misses the JVM.
TEST(Ps, APrivateTmpJvmSaysWhyTheHostsAttachMissesItAndWhatReachesIt) {
  const auto rows = ps_rows({private_tmp_world("/system.slice/tomcat.service")}, {}, {});
  ASSERT_EQ(rows.size(), 1u);
  const PsRow& r = rows[0];
  EXPECT_EQ(r.state, "live");
  EXPECT_EQ(r.reach_cause, "systemd-private-tmp");
  EXPECT_EQ(r.unit, "tomcat.service");
  EXPECT_EQ(r.reach_command, "nsenter -t 5000 -m -- jcmd 5000 VM.version");
  const std::string text = ps_text(rows, kNow);
  EXPECT_THAT(text, HasSubstr("\n5000 live (systemd-private-tmp): private /tmp of tomcat.service "
                              "(PrivateTmp=): jps lists it, but JDK 17's jcmd on the host cannot "
                              "attach (it looks for the JVM's attach socket in the host's /tmp); "
                              "reach it with nsenter -t 5000 -m -- jcmd 5000 VM.version\n"));
  const auto doc = ps_json(rows, kNow, {});
  const auto& reach = doc["jvms"][0]["reach"];
  EXPECT_EQ(reach["cause"], "systemd-private-tmp");
  EXPECT_EQ(reach["unit"], "tomcat.service");
  EXPECT_EQ(reach["command"], "nsenter -t 5000 -m -- jcmd 5000 VM.version");
  // A container with its own pid namespace: no such line, reach null.
  const auto contained = ps_rows({container_world()}, {jvm(5000, true)}, {});
  EXPECT_FALSE(contained[0].reach_cause);
  EXPECT_TRUE(ps_json(contained, kNow, {})["jvms"][0]["reach"].is_null());
  EXPECT_THAT(ps_text(contained, kNow), Not(HasSubstr("jcmd")));
}

TEST(Ps, AHostileUnitNameInTheCgroupIsOneShellWordOnAPlainLine) {
  const auto rows = ps_rows({private_tmp_world("/system.slice/it's \x1b[2J.service")}, {}, {});
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].unit, "it's \x1b[2J.service");
  const std::string text = ps_text(rows, kNow);
  EXPECT_THAT(text, Not(HasSubstr("\x1b")));
  // One word, meaning exactly the cgroup's bytes (model/shell_word.hpp), holding no escape.
  EXPECT_THAT(text, HasSubstr("private /tmp of " + posix_shell_word("it's \x1b[2J.service") +
                              " (PrivateTmp=)"));
  EXPECT_THAT(posix_shell_word("it's \x1b[2J.service"), HasSubstr("\\x1b"));
}

// Rows of every state, hostile text included, against schemas/ps.schema.json.
TEST(Ps, JsonMatchesItsSchema) {
  std::vector<PsRow> rows = ps_rows({container_world()}, {jvm(5000, true)}, {});
  for (auto& r : ps_rows({private_tmp_world("/system.slice/a\xff.service")}, {}, {})) {
    rows.push_back(std::move(r));
  }
  TempRootFacts refused = temp_root();
  NamespaceFacts loose = namespace_of();
  loose.lstat->mode = loose.opened->mode = 0777;
  refused.namespaces.push_back(loose);
  JvmProcessFacts quiet = jvm(70, false, "al\xffice");
  quiet.command_line = "java \x1b]0;x\x07 Main";
  for (auto& r : ps_rows({refused}, {quiet}, {})) rows.push_back(std::move(r));
  JvmProcessFacts cleaned = jvm(73, true);
  cleaned.backing_file_deleted = true;
  cleaned.mapped_backing_file = "/tmp/hsperfdata_alice/73";
  for (auto& r : ps_rows({temp_root()}, {cleaned, jvm(78, true)}, {})) rows.push_back(std::move(r));
  TempRootFacts stale = container_world();
  stale.namespaces[0].files[0].liveness->lock_held = false;
  stale.namespaces[0].files[0].liveness->candidates.clear();
  for (auto& r : ps_rows({stale}, {}, PsOptions{true})) rows.push_back(std::move(r));
  std::set<std::string> states;
  for (const auto& r : rows) states.insert(r.state);
  EXPECT_EQ(states, (std::set<std::string>{"live", "blind", "deleted", "unlisted", "stale"}));
  const auto doc = ps_json(rows, kNow, {ObservationError{"/proc/1/root", "open", 13, "Permission denied"}});
  EXPECT_EQ(doc["jvms"].size(), rows.size());
#ifndef _WIN32  // see test::schema_valid
  EXPECT_TRUE(test::schema_valid(dump_json(doc, 2), "schemas/ps.schema.json"));
  // And the schema can fail: a reason outside the closed set for a blind JVM.
  auto bad = doc;
  for (auto& j : bad["jvms"]) {
    if (j["state"] == "blind") j["reason"] = "no-backing-file";
  }
  EXPECT_FALSE(test::schema_valid(dump_json(bad, 2), "schemas/ps.schema.json"));
#endif
}

TEST(Ps, Uptime) {
  EXPECT_EQ(format_uptime(std::nullopt, kNow), "-");
  EXPECT_EQ(format_uptime(kNow + 5, kNow), "-");
  EXPECT_EQ(format_uptime(kNow - 12'000, kNow), "12s");
  EXPECT_EQ(format_uptime(kNow - (2 * 3600 + 5 * 60) * 1000LL, kNow), "2h05m");
  EXPECT_EQ(format_uptime(kNow - (3 * 86400 + 4 * 3600) * 1000LL, kNow), "3d04h");
}

// A JVM blinded by a 0777 namespace of its user in its own /tmp: attributed to that
// namespace, and namespace.jvm-blinded follows; the same JVM in another /tmp is not.
TEST(Ps, BlindJvmGoesToItsUsersNamespaceInItsTempDir) {
  std::vector<TempRootFacts> roots{temp_root()};
  NamespaceFacts ns = namespace_of();
  ns.lstat->mode = ns.opened->mode = 0777;
  roots[0].namespaces.push_back(ns);
  roots[0].namespaces.push_back(namespace_of("bob", 1002));
  JvmProcessFacts elsewhere = jvm(81, false);
  elsewhere.temp_dir_ino = 999;
  assign_invisible_jvms(roots, {jvm(80, false), jvm(82, true), elsewhere});
  ASSERT_EQ(roots[0].namespaces[0].invisible_jvms.size(), 1u);
  EXPECT_EQ(roots[0].namespaces[0].invisible_jvms[0].process.pid, 80);
  EXPECT_TRUE(roots[0].namespaces[1].invisible_jvms.empty());
  EXPECT_TRUE(roots[0].invisible_jvms.empty());
  const auto judged = judge(roots, default_policy());
  EXPECT_EQ(count(judged[0].namespaces[0].findings, "namespace.jvm-blinded"), 1u);
  EXPECT_EQ(count(judged[0].namespaces[1].findings, "namespace.jvm-blinded"), 0u);
}

TEST(ProcfsParse, Cgroup) {
  EXPECT_EQ(procfs::parse_cgroup("0::/system.slice/docker-abc.scope\n"),
            "/system.slice/docker-abc.scope");
  EXPECT_EQ(procfs::parse_cgroup("9:name=systemd:/\n4:memory:/process_api/bce3\n0::/\n"),
            "/process_api/bce3");
  EXPECT_EQ(procfs::parse_cgroup("12:name=systemd:/docker/1\n4:memory:/docker/2\n0::/x:y\n"),
            "/x:y");
  // cgroup v1 alone: the name=systemd hierarchy's path, wherever it is listed, before any
  // other controller's.
  EXPECT_EQ(procfs::parse_cgroup("4:memory:/docker/2\n12:name=systemd:/docker/1\n"), "/docker/1");
  EXPECT_EQ(procfs::parse_cgroup("12:name=systemd:/docker/1\n4:memory:/docker/2\n"), "/docker/1");
  EXPECT_EQ(procfs::parse_cgroup("4:memory:/docker/2\n5:cpu:/docker/3\n"), "/docker/2");
  EXPECT_EQ(procfs::parse_cgroup("3:cpu:/\n0::/\n"), "/");
  EXPECT_FALSE(procfs::parse_cgroup(""));
  EXPECT_FALSE(procfs::parse_cgroup("garbage\nx:y\n"));
}

TEST(ProcfsParse, MapsNamesABackingFile) {
  EXPECT_TRUE(procfs::parse_maps("7f-8f rw-s 0 00:2a 12 /tmp/hsperfdata_root/1\n").hsperfdata);
  EXPECT_TRUE(procfs::parse_maps("7f-8f rw-s 0 00:2a 12 /hsperfdata_app/42 (deleted)\n").hsperfdata);
  EXPECT_FALSE(procfs::parse_maps("7f-8f r--p 0 fe:00 5 /opt/hsperfdata_x\n").hsperfdata);
  EXPECT_FALSE(procfs::parse_maps("7f-8f r--p 0 fe:00 5 /tmp/hsperfdata_/1\n").hsperfdata);
  EXPECT_FALSE(procfs::parse_maps("7f-8f r--p 0 fe:00 5 /usr/lib/jvm/lib/server/libjvm.so\n")
                   .hsperfdata);
  // A backing file is a name in the namespace: not the namespace, nor a name-less path.
  EXPECT_FALSE(procfs::parse_maps("7f-8f rw-s 0 00:2a 12 /tmp/hsperfdata_root/\n").hsperfdata);
  EXPECT_FALSE(procfs::parse_maps("7f-8f rw-s 0 00:2a 12 /tmp/hsperfdata_root\n").hsperfdata);
  EXPECT_FALSE(procfs::parse_maps("7f-8f rw-s 0 00:2a 12 /hsperfdata_root\n").hsperfdata);
  EXPECT_TRUE(procfs::parse_maps("7f-8f rw-s 0 00:2a 12 hsperfdata_root/7\n").hsperfdata);
}

// OpenJ9's VM library as an OpenJ9 JDK maps it: lib/default/libj9vm29.so run as code, beside
// the lib/server/libjvm.so redirector the launcher loaded.
TEST(ProcfsParse, MapsNameOpenJ9sVmLibrary) {
  const auto m = procfs::parse_maps(
      "7f1c2a400000-7f1c2a5f0000 r-xp 00000000 08:01 1234 /opt/java/openjdk/lib/default/libj9vm29.so\n"
      "7f1c2b000000-7f1c2b010000 r-xp 00000000 08:01 1235 /opt/java/openjdk/lib/server/libjvm.so\n");
  EXPECT_TRUE(m.j9vm);
  EXPECT_TRUE(m.libjvm);
  EXPECT_TRUE(procfs::parse_maps("7f-8f r-xp 0 fe:00 5 /opt/j9/libj9vm30.so (deleted)\n").j9vm);
  // HotSpot's libraries, and names that only look alike, are not OpenJ9's VM.
  EXPECT_FALSE(procfs::parse_maps("7f-8f r-xp 0 fe:00 5 /usr/lib/jvm/lib/server/libjvm.so\n").j9vm);
  EXPECT_FALSE(procfs::parse_maps("7f-8f r-xp 0 fe:00 5 /opt/j9/libj9thr29.so\n").j9vm);
  EXPECT_FALSE(procfs::parse_maps("7f-8f r-xp 0 fe:00 5 /opt/j9/libj9vm.so\n").j9vm);
  EXPECT_FALSE(procfs::parse_maps("7f-8f r-xp 0 fe:00 5 /opt/j9/libj9vm29.so.bak\n").j9vm);
  EXPECT_FALSE(procfs::parse_maps("7f-8f r-xp 0 fe:00 5 /opt/j9/libj9vm2x.so\n").j9vm);
  EXPECT_FALSE(procfs::parse_maps("7f-8f r-xp 0 fe:00 5 /opt/j9/xlibj9vm29.so\n").j9vm);
  // Read, not run: no VM runs its code.
  EXPECT_FALSE(procfs::parse_maps("7f-8f r--p 0 fe:00 5 /opt/j9/libj9vm29.so\n").j9vm);
  // Each of the three is looked for until all three are found, in whatever order the maps
  // list them (by address): OpenJ9's library after libjvm.so and a backing file is still seen.
  std::vector<std::string> lines = {"7f-8f r-xp 0 fe:00 5 /usr/lib/jvm/lib/server/libjvm.so\n",
                                    "8f-9f rw-s 0 00:2a 12 /tmp/hsperfdata_app/42\n",
                                    "9f-af r-xp 0 fe:00 6 /opt/j9/lib/default/libj9vm29.so\n"};
  std::sort(lines.begin(), lines.end());
  do {
    const auto all = procfs::parse_maps(lines[0] + lines[1] + lines[2]);
    EXPECT_TRUE(all.libjvm && all.hsperfdata && all.j9vm) << lines[0] << lines[1] << lines[2];
  } while (std::next_permutation(lines.begin(), lines.end()));
}

TEST(ProcfsParse, MapsGiveTheBackingMappingAndWhetherItWasDeleted) {
  const std::string text =
      "7f10-7f20 r-xp 0 fe:00 5 /usr/lib/jvm/lib/server/libjvm.so\n"
      "7f3c0000-7f3c8000 rw-s 00000000 00:2a 12 /tmp/hsperfdata_app/42 (deleted)\n"
      "7f50-7f60 rw-s 0 00:2a 13 /tmp/hsperfdata_app/43\n";
  const auto m = procfs::parse_maps(text);
  ASSERT_TRUE(m.backing);
  EXPECT_EQ(m.backing->range, "7f3c0000-7f3c8000");
  EXPECT_EQ(m.backing->path, "/tmp/hsperfdata_app/42");
  EXPECT_TRUE(m.backing->deleted);
  EXPECT_EQ(m.backing->file, (procfs::FileId{0, 0x2a, 12}));
  const auto live = procfs::parse_maps("7f-8f rw-s 0 00:2a 12 /tmp/hsperfdata_app/42\n");
  ASSERT_TRUE(live.backing);
  EXPECT_FALSE(live.backing->deleted);
  EXPECT_FALSE(procfs::parse_maps("7f-8f r--p 0 fe:00 5 /opt/x (deleted)\n").backing);
}

// Which mounts are the reader's root: those mounted on "/" (field 5), not those whose root
// within their file system (field 4) is "/", and never a line whose id is not a number.
TEST(ProcfsParse, RootMountsAreThoseMountedOnTheRoot) {
  const std::string text =
      "22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n"
      "30 22 0:27 / /tmp rw,nosuid shared:5 - tmpfs tmpfs rw\n"
      "31 22 0:28 /sub /srv rw - tmpfs tmpfs rw\n"
      "x7 22 0:29 / / rw - overlay overlay rw\n"
      "45 22 0:30 /etc / rw - overlay overlay rw\n";
  EXPECT_EQ(procfs::root_mount_ids(text), (std::vector<std::uint64_t>{22, 45}));
  EXPECT_TRUE(procfs::root_mount_ids("").empty());
  EXPECT_TRUE(procfs::root_mount_ids("30 22 0:27 / /tmp rw - tmpfs tmpfs rw\n").empty());
}

}  // namespace
}  // namespace hsperfguard
