// The reap plan, pure: facts built by hand, every reason to remove, keep or skip an entry.
#include "decide/reaper.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "commands/cli_checks.hpp"
#include "commands/reap_command.hpp"
#include "model/facts.hpp"
#include "model/json_text.hpp"
#include "model/pid_name.hpp"
#include "model/shell_word.hpp"
#include "model/text_escape.hpp"
#include "report/reap_report.hpp"

namespace hsperfguard {
namespace {

using Existence = ProcessFacts::Existence;

constexpr std::int64_t kNow = 1'800'000'000'000;  // epoch ms of the plan
constexpr std::int64_t kOld = kNow - 3'600'000;    // an hour before
constexpr std::int64_t kBegin = kOld - 60'000;     // the VM that wrote the file began
constexpr std::uint32_t kAlice = 1000;
constexpr std::uint32_t kAliceGroup = 1000;
constexpr std::uint64_t kDev = 0x803;

Timestamp at(std::int64_t ms) { return {ms / 1000, (ms % 1000) * 1'000'000}; }

InodeFacts inode(FileKind kind, std::uint64_t ino, std::int64_t changed = kOld) {
  InodeFacts i;
  i.kind = kind;
  i.mode = kind == FileKind::directory ? 0755 : 0600;
  i.uid = kAlice;
  i.gid = kAliceGroup;
  i.dev = kDev;
  i.ino = ino;
  i.mtime = at(changed);
  i.ctime = at(changed);
  return i;
}

perfdata::Region region_begun_at(std::int64_t begin) {
  perfdata::Region r;
  r.size = 32768;
  r.prologue = perfdata::Prologue{};
  perfdata::Entry e;
  e.name = "sun.rt.createVmBeginTime";
  e.long_value = begin;
  r.entries.push_back(e);
  return r;
}

ProcessFacts process(std::int32_t pid, Existence existence,
                     std::optional<std::int64_t> start = std::nullopt,
                     std::optional<bool> maps = std::nullopt) {
  ProcessFacts p;
  p.pid = pid;
  p.existence = existence;
  p.start_time_ms = start;
  p.maps_backing_file = maps;
  return p;
}

enum class Lock { held, free, unknown };

// An entry of hsperfdata_alice, with its liveness evidence.
FileFacts entry(std::string name, FileKind kind = FileKind::regular, Lock lock = Lock::free,
                std::vector<ProcessFacts> candidates = {}, std::int64_t changed = kOld) {
  static std::uint64_t next_ino = 100;
  FileFacts f;
  f.name = name;
  f.path = "/tmp/hsperfdata_alice/" + name;
  f.pid_name = classify_pid_name(name);
  f.lstat = inode(kind, next_ino++, changed);
  if (kind == FileKind::regular) {
    f.opened = f.lstat;
    f.region = RegionSummary{region_begun_at(kBegin), 32768};
  }
  LivenessFacts lf;
  lf.lock_source = "proc-locks";
  if (lock != Lock::unknown) lf.lock_held = lock == Lock::held;
  if (candidates.empty() && f.pid_name.pid) {
    candidates.push_back(process(*f.pid_name.pid, Existence::gone));
  }
  lf.candidates = std::move(candidates);
  f.liveness = std::move(lf);
  return f;
}

NamespaceFacts alice_namespace(std::vector<FileFacts> files) {
  NamespaceFacts ns;
  ns.name = "hsperfdata_alice";
  ns.user_suffix = "alice";
  ns.path = "/tmp/hsperfdata_alice";
  ns.lstat = inode(FileKind::directory, 10);
  ns.opened = ns.lstat;
  ns.user = UserFacts{"alice", kAlice, kAliceGroup, std::nullopt};
  ns.files = std::move(files);
  return ns;
}

TempRootFacts temp_root(std::vector<NamespaceFacts> namespaces) {
  TempRootFacts root;
  root.kind = RootKind::tmpdir;
  root.temp_dir = "/tmp";
  root.lstat = inode(FileKind::directory, 2);
  root.lstat->mode = 01777;
  root.lstat->uid = 0;
  root.opened = root.lstat;
  root.namespaces = std::move(namespaces);
  return root;
}

ReapOptions options(std::int64_t min_age_ms = 60'000) {
  ReapOptions o;
  o.min_age_ms = min_age_ms;
  return o;
}

Plan plan_of(std::vector<FileFacts> files, const ReapOptions& o = options(), std::uint32_t euid = 0) {
  return plan_reap({temp_root({alice_namespace(std::move(files))})}, o, kNow, euid);
}

// The single item's action and why.
::testing::AssertionResult planned(const Plan& plan, ReapAction action, const std::string& why,
                                   std::size_t item = 0) {
  if (item >= plan.items.size()) return ::testing::AssertionFailure() << "no item " << item;
  const PlanItem& p = plan.items[item];
  if (p.action == action && p.why == why) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << p.name << ": " << to_string(p.action) << "/" << p.why
                                       << " (verdict " << to_string(p.verdict) << "/" << p.reason
                                       << "), want " << to_string(action) << "/" << why;
}

TEST(ReapPlan, StaleFileIsRemovedWithTheIdentityItWasJudgedBy) {
  const Plan plan = plan_of({entry("4242")});
  ASSERT_EQ(plan.items.size(), 1u);
  EXPECT_TRUE(planned(plan, ReapAction::remove, "reapable"));
  const PlanItem& item = plan.items[0];
  EXPECT_EQ(item.verdict, Verdict::stale);
  EXPECT_EQ(item.reason, "process-gone");
  EXPECT_EQ(item.subject, ReapSubject::namespace_file);
  ASSERT_TRUE(item.expected);
  EXPECT_EQ(item.expected->dev, kDev);
  EXPECT_EQ(item.expected->kind, FileKind::regular);
  EXPECT_EQ(item.expected->uid, kAlice);
  EXPECT_EQ(item.age_ms, 3'600'000);
  ASSERT_TRUE(item.ns);
  EXPECT_EQ(plan.namespaces[*item.ns].name, "hsperfdata_alice");
}

TEST(ReapPlan, RootActsAsTheNamespaceOwner) {
  const Plan plan = plan_of({entry("4242")}, options(), 0);
  ASSERT_TRUE(plan.namespaces[0].acting);
  EXPECT_EQ(plan.namespaces[0].acting->uid, kAlice);
  EXPECT_EQ(plan.namespaces[0].acting->gid, kAliceGroup);
  ASSERT_TRUE(plan.items[0].acting);
  EXPECT_EQ(plan.items[0].acting->uid, kAlice);
}

TEST(ReapPlan, UserActsAsItselfAndOnlyInItsOwnNamespace) {
  const Plan own = plan_of({entry("4242")}, options(), kAlice);
  EXPECT_FALSE(own.namespaces[0].acting);
  EXPECT_TRUE(own.namespaces[0].actionable);
  EXPECT_TRUE(planned(own, ReapAction::remove, "reapable"));

  const Plan other = plan_of({entry("4242")}, options(), kAlice + 1);
  EXPECT_FALSE(other.namespaces[0].actionable);
  EXPECT_EQ(other.namespaces[0].why, "not-owner");
  EXPECT_TRUE(planned(other, ReapAction::skip, "namespace-not-actionable"));
}

TEST(ReapPlan, LiveAndUnknownFilesAreKept) {
  const Plan plan = plan_of({
      entry("100", FileKind::regular, Lock::held),
      entry("101", FileKind::regular, Lock::unknown),
      entry("102", FileKind::regular, Lock::free, {process(102, Existence::no_permission)}),
      entry("103", FileKind::regular, Lock::free, {process(103, Existence::alive, kBegin - 500)}),
      entry("104", FileKind::regular, Lock::free, {process(104, Existence::alive, std::nullopt, true)}),
  });
  EXPECT_TRUE(planned(plan, ReapAction::keep, "live", 0));
  EXPECT_TRUE(planned(plan, ReapAction::keep, "unknown", 1));
  EXPECT_TRUE(planned(plan, ReapAction::keep, "unknown", 2));
  EXPECT_TRUE(planned(plan, ReapAction::keep, "live", 3));
  EXPECT_TRUE(planned(plan, ReapAction::keep, "live", 4));
  EXPECT_EQ(plan.counts().keep, 5u);
  EXPECT_EQ(plan.counts().remove, 0u);
}

TEST(ReapPlan, PidReusedByALaterProcessIsRemoved) {
  const Plan plan = plan_of(
      {entry("200", FileKind::regular, Lock::free, {process(200, Existence::alive, kNow - 1000)})});
  EXPECT_EQ(plan.items[0].verdict, Verdict::pid_reused);
  EXPECT_TRUE(planned(plan, ReapAction::remove, "reapable"));
}

TEST(ReapPlan, MinAgeProtectsFilesBeingCreatedByCtimeAndByMtime) {
  FileFacts young_ctime = entry("300");
  young_ctime.lstat->ctime = at(kNow - 10'000);
  FileFacts young_mtime = entry("301");
  young_mtime.lstat->mtime = at(kNow - 10'000);
  FileFacts future = entry("302");
  future.lstat->mtime = at(kNow + 3'600'000);  // a clock step: never "old"
  FileFacts just_old = entry("303", FileKind::regular, Lock::free, {}, kNow - 60'000);
  const Plan plan = plan_of({young_ctime, young_mtime, future, just_old});
  EXPECT_TRUE(planned(plan, ReapAction::skip, "too-young", 0));
  EXPECT_TRUE(planned(plan, ReapAction::skip, "too-young", 1));
  EXPECT_TRUE(planned(plan, ReapAction::skip, "too-young", 2));
  EXPECT_LT(*plan.items[2].age_ms, 0);
  EXPECT_TRUE(planned(plan, ReapAction::remove, "reapable", 3));

  const Plan no_min_age = plan_of({young_ctime, young_mtime}, options(0));
  EXPECT_TRUE(planned(no_min_age, ReapAction::remove, "reapable", 0));
  EXPECT_TRUE(planned(no_min_age, ReapAction::remove, "reapable", 1));
}

TEST(ReapPlan, ForeignRegularFilesAndSymlinksAreRemovedLikeTheJvmWould) {
  const Plan plan = plan_of({entry("notes.txt"), entry("007"), entry("link", FileKind::symlink)});
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(plan.items[i].verdict, Verdict::foreign) << plan.items[i].name;
    EXPECT_TRUE(planned(plan, ReapAction::remove, "reapable", i));
  }
  EXPECT_EQ(plan.items[2].expected->kind, FileKind::symlink);
}

TEST(ReapPlan, SpecialFilesOnlyWithIncludeSpecial) {
  const std::vector<FileKind> kinds = {FileKind::fifo, FileKind::socket, FileKind::char_device,
                                       FileKind::block_device};
  std::vector<FileFacts> files;
  for (const FileKind k : kinds) files.push_back(entry("special" + std::to_string(files.size()), k));
  const Plan plain = plan_of(files);
  ReapOptions with = options();
  with.include_special = true;
  const Plan special = plan_of(files, with);
  for (std::size_t i = 0; i < kinds.size(); ++i) {
    EXPECT_TRUE(planned(plain, ReapAction::skip, "special-file", i));
    EXPECT_TRUE(planned(special, ReapAction::remove, "reapable", i));
  }
}

TEST(ReapPlan, DirectoriesAreNeverRemoved) {
  ReapOptions with = options();
  with.include_special = true;
  with.remove_empty_namespaces = true;
  const Plan plan = plan_of({entry("sub", FileKind::directory), entry("4243", FileKind::directory)}, with);
  EXPECT_TRUE(planned(plan, ReapAction::skip, "directory", 0));
  EXPECT_TRUE(planned(plan, ReapAction::skip, "directory", 1));
}

TEST(ReapPlan, HardLinkedFilesAreLeftToAnOperator) {
  FileFacts linked = entry("4244");
  linked.lstat->nlink = 2;
  linked.opened->nlink = 2;
  const Plan plan = plan_of({linked});
  EXPECT_TRUE(planned(plan, ReapAction::skip, "hard-linked"));
}

// The executor opens a regular file for reading (to take its lock) and unlinks it with the
// identity the plan names (root: the namespace owner, fsuid and fsgid, no supplementary
// groups, no capabilities). What that identity may not do is never planned for removal: it
// would fail on every run. It is kept, left to a person with a remedy.
FileFacts owned_entry(std::string name, std::uint32_t uid, std::uint32_t gid, std::uint32_t mode) {
  FileFacts f = entry(std::move(name));
  f.lstat->uid = f.opened->uid = uid;
  f.lstat->gid = f.opened->gid = gid;
  f.lstat->mode = f.opened->mode = mode;
  return f;
}

TEST(ReapPlan, AnotherUsersFileTheNamespaceOwnerMayNotReadIsKeptForAPerson) {
  constexpr std::uint32_t kNobody = 65534;
  const Plan plan = plan_of({owned_entry("4250", kNobody, kNobody, 0600),  // nobody's, 0600
                             owned_entry("4251", kNobody, kNobody, 0644),  // others may read
                             owned_entry("4252", kNobody, kAliceGroup, 0640),  // alice's group may
                             owned_entry("4253", kNobody, kNobody, 0640)});
  EXPECT_TRUE(planned(plan, ReapAction::keep, "not-permitted", 0));
  EXPECT_EQ(plan.items[0].verdict, Verdict::stale);
  EXPECT_TRUE(planned(plan, ReapAction::remove, "reapable", 1));
  EXPECT_TRUE(planned(plan, ReapAction::remove, "reapable", 2));
  EXPECT_TRUE(planned(plan, ReapAction::keep, "not-permitted", 3));
  EXPECT_EQ(plan.left_to_a_person(), 2u);

  const auto remedy = item_remediation(plan, 0);
  ASSERT_TRUE(remedy);
  EXPECT_NE(remedy->find("Owned by uid 65534, not by uid 1000"), std::string::npos) << *remedy;
  EXPECT_NE(remedy->find("mode 0600"), std::string::npos) << *remedy;
  // Run as alice, the namespace's owner: she could put anything at that path before it runs.
  EXPECT_NE(remedy->find("`setpriv --reuid=1000 --regid=1000 --clear-groups -- rm -- " +
                         shell_word(plan.items[0].path) + "`"),
            std::string::npos)
      << *remedy;
  EXPECT_EQ(remedy->find("<path>"), std::string::npos) << *remedy;
  EXPECT_FALSE(item_remediation(plan, 1)) << "only what is left to a person has a remedy";

  // Root's own namespace: root keeps its capabilities there, and may.
  NamespaceFacts root_ns = alice_namespace({owned_entry("4254", kNobody, kNobody, 0600)});
  root_ns.lstat->uid = root_ns.opened->uid = 0;
  EXPECT_TRUE(planned(plan_reap({temp_root({root_ns})}, options(), kNow, 0), ReapAction::remove, "reapable"));
  // A run as alice herself: her supplementary groups are not known to the plan, so a group's
  // bits grant her nothing here; her own file she may read.
  const Plan as_alice = plan_of({owned_entry("4255", kNobody, kAliceGroup, 0640), entry("4256")}, options(), kAlice);
  EXPECT_TRUE(planned(as_alice, ReapAction::keep, "not-permitted", 0));
  EXPECT_TRUE(planned(as_alice, ReapAction::remove, "reapable", 1));
}

// The sticky bit stops only those who own neither the entry nor the directory: in her own
// sticky namespace the owner may remove another user's file (one she may read), as the kernel
// lets her; the plan says so, not "not-permitted".
TEST(ReapPlan, TheStickyBitOfHerOwnNamespaceDoesNotStopTheOwner) {
  constexpr std::uint32_t kNobody = 65534;
  for (const std::uint32_t mode : {0755u, 01755u}) {
    NamespaceFacts ns = alice_namespace({owned_entry("4257", kNobody, kNobody, 0644), entry("4258")});
    ns.lstat->mode = ns.opened->mode = mode;
    const Plan plan = plan_reap({temp_root({ns})}, options(), kNow, 0);
    EXPECT_TRUE(planned(plan, ReapAction::remove, "reapable", 0)) << octal_mode(mode);
    EXPECT_TRUE(planned(plan, ReapAction::remove, "reapable", 1)) << octal_mode(mode);
  }
}

TEST(ReapPlan, WhatTheNamespaceOwnerMayNotDoInItIsKeptForAPerson) {
  // Her own file she may not read.
  const Plan unreadable = plan_of({owned_entry("4260", kAlice, kAliceGroup, 0200)});
  EXPECT_TRUE(planned(unreadable, ReapAction::keep, "not-permitted"));
  EXPECT_NE(item_remediation(unreadable, 0)->find("chmod u+r"), std::string::npos);
  // A symbolic link or a socket is held with O_PATH: nothing to read.
  ReapOptions special = options();
  special.include_special = true;
  for (const FileKind kind : {FileKind::symlink, FileKind::socket}) {
    FileFacts held = entry("held", kind);
    held.lstat->uid = 65534;
    held.lstat->mode = 0;
    EXPECT_TRUE(planned(plan_of({held}, special), ReapAction::remove, "reapable")) << to_string(kind);
  }

  // A namespace its owner may not write to (or search): nothing in it can go.
  for (const std::uint32_t mode : {0555u, 0644u}) {
    NamespaceFacts ns = alice_namespace({entry("4262"), entry("4263")});
    ns.lstat->mode = ns.opened->mode = mode;
    const Plan plan = plan_reap({temp_root({ns})}, options(), kNow, 0);
    EXPECT_TRUE(planned(plan, ReapAction::keep, "not-permitted", 0)) << octal_mode(mode);
    EXPECT_TRUE(planned(plan, ReapAction::keep, "not-permitted", 1)) << octal_mode(mode);
    const auto remedy = item_remediation(plan, 0);
    ASSERT_TRUE(remedy);
    EXPECT_NE(remedy->find(mode == 0555 ? "may not write to its namespace" : "may not search its namespace"),
              std::string::npos)
        << *remedy;
    EXPECT_NE(remedy->find("hsperfguard repair"), std::string::npos) << *remedy;
  }

  // An empty namespace of a gone user, in a temp dir that user may not write to.
  NamespaceFacts gone = alice_namespace({});
  gone.user.reset();
  TempRootFacts closed = temp_root({gone});
  closed.lstat->mode = closed.opened->mode = 0755;
  ReapOptions with = options();
  with.remove_empty_namespaces = true;
  const Plan plan = plan_reap({closed}, with, kNow, 0);
  ASSERT_EQ(plan.items.size(), 1u);
  EXPECT_EQ(plan.items[0].subject, ReapSubject::namespace_dir);
  EXPECT_TRUE(planned(plan, ReapAction::keep, "not-permitted"));
  EXPECT_NE(item_remediation(plan, 0)->find("may not write to the temp dir"), std::string::npos);
}

TEST(ReapPlan, WindowsEntriesAreNotJudgedByPosixPermissionBits) {
  TempRootFacts root = temp_root({alice_namespace({owned_entry("4270", 65534, 65534, 0)})});
  root.platform = Platform::windows;
  EXPECT_TRUE(planned(plan_reap({root}, options(), kNow, 0), ReapAction::remove, "reapable"));
}

TEST(ReapPlan, NothingIsActedOnInANamespaceThatIsNotTheObservedDirectory) {
  auto with_namespace = [](auto change) {
    NamespaceFacts ns = alice_namespace({entry("4245")});
    change(ns);
    return plan_reap({temp_root({ns})}, options(), kNow, 0);
  };
  struct Case {
    const char* why;
    Plan plan;
  };
  const std::vector<Case> cases = {
      {"replaced", with_namespace([](NamespaceFacts& ns) { ns.identity_matches = false; })},
      {"crosses-mount", with_namespace([](NamespaceFacts& ns) { ns.crosses_mount = true; })},
      {"unobserved", with_namespace([](NamespaceFacts& ns) { ns.opened.reset(); })},
      {"not-a-directory", with_namespace([](NamespaceFacts& ns) {
         ns.lstat->kind = FileKind::symlink;
       })},
  };
  for (const Case& c : cases) {
    EXPECT_FALSE(c.plan.namespaces[0].actionable) << c.why;
    EXPECT_EQ(c.plan.namespaces[0].why, c.why);
    EXPECT_TRUE(planned(c.plan, ReapAction::skip, "namespace-not-actionable")) << c.why;
  }

  TempRootFacts unopened = temp_root({alice_namespace({entry("4246")})});
  unopened.opened.reset();
  const Plan plan = plan_reap({unopened}, options(), kNow, 0);
  EXPECT_FALSE(plan.roots[0].actionable);
  EXPECT_EQ(plan.namespaces[0].why, "temp-dir-unobserved");
  EXPECT_TRUE(planned(plan, ReapAction::skip, "namespace-not-actionable"));
}

TEST(ReapPlan, UnobservedFilesAreKept) {
  FileFacts vanished;
  vanished.name = "4247";
  vanished.path = "/tmp/hsperfdata_alice/4247";
  vanished.pid_name = classify_pid_name(vanished.name);
  vanished.errors.push_back(ObservationError{vanished.path, "statx", 2, "No such file"});
  const Plan plan = plan_of({vanished});
  EXPECT_TRUE(planned(plan, ReapAction::keep, "unknown"));
  EXPECT_FALSE(plan.items[0].expected);
}

AttachFacts attach(std::string name, AttachFacts::Kind kind, FileKind file_kind,
                   std::optional<ProcessFacts> p, std::uint32_t uid = kAlice) {
  AttachFacts a;
  a.name = name;
  a.path = "/tmp/" + name;
  a.kind = kind;
  const std::string_view prefix =
      kind == AttachFacts::Kind::listener_socket ? ".java_pid" : ".attach_pid";
  a.pid = classify_pid_name(std::string_view(name).substr(prefix.size())).pid;
  a.lstat = inode(file_kind, 500 + name.size());
  a.lstat->uid = uid;
  if (p) {
    a.liveness.emplace();
    a.liveness->candidates.push_back(std::move(*p));
    a.liveness->candidates_complete = true;
  }
  return a;
}

TEST(ReapPlan, AttachFilesOnlyWhenTheirPidIsGone) {
  using K = AttachFacts::Kind;
  TempRootFacts root = temp_root({});
  root.attach_files = {
      attach(".java_pid4300", K::listener_socket, FileKind::socket, process(4300, Existence::gone)),
      attach(".attach_pid4301", K::trigger_file, FileKind::regular, process(4301, Existence::gone)),
      attach(".java_pid4302", K::listener_socket, FileKind::socket, process(4302, Existence::alive)),
      attach(".java_pid4303", K::listener_socket, FileKind::socket,
             process(4303, Existence::no_permission)),
      attach(".java_pid4304", K::listener_socket, FileKind::socket, std::nullopt),
      attach(".java_pid4305", K::listener_socket, FileKind::regular, process(4305, Existence::gone)),
      attach(".java_pidxyz", K::listener_socket, FileKind::socket, std::nullopt),
  };
  const Plan plan = plan_reap({root}, options(), kNow, 0);
  ASSERT_EQ(plan.items.size(), 7u);
  EXPECT_TRUE(planned(plan, ReapAction::remove, "reapable", 0));
  EXPECT_TRUE(planned(plan, ReapAction::remove, "reapable", 1));
  EXPECT_TRUE(planned(plan, ReapAction::keep, "live", 2));
  EXPECT_TRUE(planned(plan, ReapAction::keep, "unknown", 3));
  EXPECT_TRUE(planned(plan, ReapAction::keep, "unknown", 4));
  EXPECT_TRUE(planned(plan, ReapAction::skip, "unexpected-kind", 5));
  EXPECT_TRUE(planned(plan, ReapAction::skip, "not-a-pid-name", 6));
  EXPECT_EQ(plan.items[0].subject, ReapSubject::attach_file);
  EXPECT_FALSE(plan.items[0].ns);
  ASSERT_TRUE(plan.items[0].acting);
  EXPECT_EQ(plan.items[0].acting->uid, kAlice);  // the socket's owner, in the sticky temp dir
}

// A JVM names its attach files by its own pid: in a container sharing this temp dir, the last
// field of its NSpid. One live candidate found there keeps the file, whatever the host pid of
// that number says; a search that could not place every process keeps it too.
TEST(ReapPlan, AttachFileIsStaleOnlyWhenItsPidIsGoneInEveryNamespaceUsingTheTempDir) {
  using K = AttachFacts::Kind;
  TempRootFacts root = temp_root({});
  AttachFacts in_container =
      attach(".java_pid5000", K::listener_socket, FileKind::socket, process(5000, Existence::gone));
  ProcessFacts jvm = process(30, Existence::alive);
  jvm.ns_pids = {30, 5000};
  in_container.liveness->candidates.push_back(jvm);
  AttachFacts unplaced =
      attach(".java_pid5001", K::listener_socket, FileKind::socket, process(5001, Existence::gone));
  unplaced.liveness->candidates_complete = false;
  AttachFacts none_found = attach(".attach_pid5002", K::trigger_file, FileKind::regular, std::nullopt);
  none_found.liveness.emplace().candidates_complete = true;  // a container's: no host pid asked
  root.attach_files = {in_container, unplaced, none_found};
  const Plan plan = plan_reap({root}, options(), kNow, 0);
  ASSERT_EQ(plan.items.size(), 3u);
  EXPECT_TRUE(planned(plan, ReapAction::keep, "live", 0));
  EXPECT_EQ(plan.items[0].reason, "process-alive");
  const LivenessVerdict live = judge_attach_file(root.attach_files[0]);
  EXPECT_EQ(live.evidence["decided_by_pid"], 30);
  EXPECT_NE(live.message.find("host pid 30"), std::string::npos) << live.message;
  EXPECT_TRUE(planned(plan, ReapAction::keep, "unknown", 1));
  EXPECT_EQ(plan.items[1].reason, "process-scan-incomplete");
  EXPECT_TRUE(planned(plan, ReapAction::remove, "reapable", 2));
  EXPECT_EQ(plan.items[2].reason, "process-gone");
}

// A listener socket whose pid lives but does not listen on it is stale, whatever the pid is:
// a killed JVM's socket, its pid given to a `sleep`. Listening keeps it live; a listening
// state that could not be read keeps it, saying why; trigger files are judged by pid alone.
TEST(ReapPlan, AttachSocketThatNothingListensOnIsStaleThoughItsPidLives) {
  using K = AttachFacts::Kind;
  const auto socket = [](std::int32_t pid, std::optional<bool> listens, std::optional<bool> jvm) {
    ProcessFacts p = process(pid, Existence::alive);
    p.maps_libjvm = jvm;
    AttachFacts a = attach(".java_pid" + std::to_string(pid), K::listener_socket, FileKind::socket, p);
    AttachListenerFacts l;
    l.pid = pid;
    l.listens = listens;
    if (listens == true) {
      l.socket_inode = 4788658;
      l.bound_path = "/tmp/.java_pid" + std::to_string(pid) + ".tmp";
    } else if (!listens) {
      l.errors.push_back(ObservationError{"/proc/" + std::to_string(pid) + "/fd", "read", 13,
                                          "Permission denied"});
    }
    a.liveness->listeners.push_back(l);
    return a;
  };
  TempRootFacts root = temp_root({});
  root.attach_files = {socket(4320, false, false), socket(4321, false, true), socket(4322, true, true),
                       socket(4323, std::nullopt, true), socket(4324, false, std::nullopt)};
  AttachFacts unplaced = socket(4325, false, false);
  unplaced.liveness->candidates_complete = false;
  root.attach_files.push_back(unplaced);
  AttachFacts trigger = attach(".attach_pid4326", K::trigger_file, FileKind::regular,
                               process(4326, Existence::alive));
  root.attach_files.push_back(trigger);
  const Plan plan = plan_reap({root}, options(), kNow, 0);
  ASSERT_EQ(plan.items.size(), 7u);
  EXPECT_TRUE(planned(plan, ReapAction::remove, "reapable", 0));
  EXPECT_EQ(plan.items[0].verdict, Verdict::stale);
  EXPECT_EQ(plan.items[0].reason, "no-listener");
  EXPECT_EQ(judge_attach_file(root.attach_files[0]).message,
            "pid 4320 is alive but nothing listens on this socket (pid 4320 is not a JVM)");
  EXPECT_TRUE(planned(plan, ReapAction::remove, "reapable", 1));
  EXPECT_EQ(judge_attach_file(root.attach_files[1]).message,
            "pid 4321 is alive but nothing listens on this socket (pid 4321 is a JVM without an "
            "attach listener)");
  EXPECT_TRUE(planned(plan, ReapAction::keep, "live", 2));
  const LivenessVerdict listening = judge_attach_file(root.attach_files[2]);
  EXPECT_EQ(listening.message, "pid 4322 is alive and listens on this socket");
  EXPECT_EQ(listening.evidence["listeners"][0]["socket_inode"], 4788658);
  EXPECT_EQ(listening.evidence["listeners"][0]["bound_path"], "/tmp/.java_pid4322.tmp");
  EXPECT_TRUE(planned(plan, ReapAction::keep, "unknown", 3));
  EXPECT_EQ(plan.items[3].reason, "listener-unobserved");
  EXPECT_EQ(judge_attach_file(root.attach_files[3]).message,
            "pid 4323 is alive; whether it listens on this socket could not be read "
            "(/proc/4323/fd: read: Permission denied)");
  EXPECT_TRUE(planned(plan, ReapAction::remove, "reapable", 4));
  EXPECT_NE(judge_attach_file(root.attach_files[4]).message.find("(it may not be a JVM)"),
            std::string::npos);
  EXPECT_TRUE(planned(plan, ReapAction::keep, "live", 5));  // not every process placed
  EXPECT_TRUE(planned(plan, ReapAction::keep, "live", 6));
  EXPECT_EQ(plan.items[6].reason, "process-alive");
}

TEST(ReapPlan, AttachFilesOfOthersAreNotAUsersToRemove) {
  TempRootFacts root = temp_root({});
  root.attach_files = {attach(".java_pid4310", AttachFacts::Kind::listener_socket,
                              FileKind::socket, process(4310, Existence::gone), kAlice + 1)};
  EXPECT_TRUE(planned(plan_reap({root}, options(), kNow, kAlice), ReapAction::skip, "not-owner"));
  EXPECT_TRUE(planned(plan_reap({root}, options(), kNow, 0), ReapAction::remove, "reapable"));
}

// Any user can make any number of attach files: a run plans at most kAttachItemsPerRun that it
// would remove and as many others; the reapable ones beyond are left for the next run, the
// others counted. Which are planned does not depend on the order of removable and kept ones.
TEST(ReapPlan, AttachFilesBeyondWhatOneRunPlansAreCountedAndLeftForTheNext) {
  using K = AttachFacts::Kind;
  const std::size_t n = kAttachItemsPerRun + 10;
  TempRootFacts root = temp_root({});
  for (std::size_t i = 0; i < n; ++i) {
    root.attach_files.push_back(attach(".attach_pid_" + std::to_string(i), K::trigger_file,
                                       FileKind::regular, std::nullopt));  // not a pid: skipped
    const auto pid = static_cast<std::int32_t>(10000 + i);
    root.attach_files.push_back(attach(".attach_pid" + std::to_string(pid), K::trigger_file,
                                       FileKind::regular, process(pid, Existence::gone)));
  }
  const Plan plan = plan_reap({root}, options(), kNow, 0);
  ASSERT_EQ(plan.roots.size(), 1u);
  EXPECT_EQ(plan.roots[0].attach_judged, 2 * n);
  EXPECT_EQ(plan.roots[0].attach_deferred, 10u);
  EXPECT_EQ(plan.roots[0].attach_unlisted, 10u);
  const PlanCounts counts = plan.counts();
  EXPECT_EQ(counts.remove, kAttachItemsPerRun);
  EXPECT_EQ(counts.skip, kAttachItemsPerRun);
  // The items planned are the first of each kind, and point at their own facts.
  for (const PlanItem& item : plan.items) {
    EXPECT_EQ(item.name, root.attach_files.at(item.index).name);
    EXPECT_LT(item.index, 2 * kAttachItemsPerRun);
  }

  // Planned one at a time, a caller keeps the facts of the planned ones only.
  Plan streamed;
  ReapOptions o = options();
  ReapPlanner planner(streamed, o, 0);
  TempRootFacts shell = temp_root({});
  planner.begin_root(shell, 0, kNow);
  std::size_t dropped = 0;
  for (AttachFacts& a : root.attach_files) {
    shell.attach_files.push_back(a);
    if (!planner.add_attach(shell, shell.attach_files.size() - 1)) {
      shell.attach_files.pop_back();
      ++dropped;
    }
  }
  planner.end_root(shell);
  EXPECT_EQ(dropped, 20u);
  EXPECT_EQ(shell.attach_files.size(), 2 * kAttachItemsPerRun);
  EXPECT_EQ(streamed.items.size(), plan.items.size());
  for (const PlanItem& item : streamed.items) {
    EXPECT_EQ(item.name, shell.attach_files.at(item.index).name);
  }
  EXPECT_EQ(streamed.roots[0].attach_deferred, 10u);
}

TEST(ReapPlan, EmptyNamespaceOfAGoneUserOnlyWhenAskedAndOnlyWhenEverythingGoes) {
  auto plan_with = [](std::vector<FileFacts> files, bool user_exists, bool flag,
                      bool lookup_failed = false) {
    NamespaceFacts ns = alice_namespace(std::move(files));
    if (!user_exists) ns.user.reset();
    ns.user_lookup_failed = lookup_failed;
    ReapOptions o = options();
    o.remove_empty_namespaces = flag;
    return plan_reap({temp_root({ns})}, o, kNow, 0);
  };
  EXPECT_EQ(plan_with({}, false, false).items.size(), 0u);
  EXPECT_EQ(plan_with({}, true, true).items.size(), 0u);
  EXPECT_EQ(plan_with({}, false, true, true).items.size(), 0u);  // unknown is not gone

  const Plan empty = plan_with({}, false, true);
  ASSERT_EQ(empty.items.size(), 1u);
  EXPECT_EQ(empty.items[0].subject, ReapSubject::namespace_dir);
  EXPECT_EQ(empty.items[0].reason, "user-gone");
  EXPECT_TRUE(planned(empty, ReapAction::remove, "reapable"));

  const Plan emptied = plan_with({entry("4320"), entry("4321")}, false, true);
  ASSERT_EQ(emptied.items.size(), 3u);
  EXPECT_EQ(emptied.items[2].subject, ReapSubject::namespace_dir);  // after its files
  EXPECT_TRUE(planned(emptied, ReapAction::remove, "reapable", 2));

  const Plan kept = plan_with({entry("4322"), entry("4323", FileKind::regular, Lock::held)}, false, true);
  EXPECT_TRUE(planned(kept, ReapAction::skip, "not-empty", 2));
}

// The audit's count of what a reap would remove (count_reap) is the plan's: one fact said
// twice, in the audit's summary and by the reap, agrees; an empty namespace of a gone user
// (with --remove-empty-namespaces) included, and no namespace of a user that exists.
TEST(ReapPlan, TheCountOfANamespaceIsWhatThePlanRemoves) {
  for (const bool with_files : {false, true}) {
    for (const bool user_exists : {false, true}) {
      for (const bool flag : {false, true}) {
        NamespaceFacts ns = alice_namespace(with_files ? std::vector<FileFacts>{entry("4320"), entry("4321")}
                                                       : std::vector<FileFacts>{});
        if (!user_exists) ns.user.reset();
        ReapOptions o = options();
        o.remove_empty_namespaces = flag;
        const TempRootFacts root = temp_root({ns});
        const Plan plan = plan_reap({root}, o, kNow, 0);
        const auto removed = static_cast<std::size_t>(std::count_if(
            plan.items.begin(), plan.items.end(), [](const PlanItem& i) { return i.action == ReapAction::remove; }));
        EXPECT_EQ(count_reap(root, root.namespaces[0], o, kNow, 0).remove, removed)
            << "files " << with_files << ", user exists " << user_exists << ", flag " << flag;
      }
    }
  }
}

// A gone user's namespace says, in its evidence, how many of its own entries the plan removes:
// those of another namespace are not counted.
TEST(ReapPlan, AGoneUsersNamespaceCountsItsOwnEntriesPlannedForRemoval) {
  NamespaceFacts alice = alice_namespace({entry("4330"), entry("4331")});
  alice.user.reset();
  NamespaceFacts bob = alice_namespace({entry("4332")});
  bob.name = "hsperfdata_bob";
  bob.path = "/tmp/hsperfdata_bob";
  bob.user_suffix = "bob";
  bob.user.reset();
  std::vector<TempRootFacts> roots = {temp_root({alice, bob})};
  ReapOptions o = options();
  o.remove_empty_namespaces = true;
  const Plan plan = plan_reap(roots, o, kNow, 0);
  std::vector<std::pair<std::string, std::size_t>> counted;
  for (std::size_t i = 0; i < plan.items.size(); ++i) {
    if (plan.items[i].subject != ReapSubject::namespace_dir) continue;
    const LivenessVerdict v = explain_item(roots, plan, i, o);
    counted.emplace_back(plan.items[i].name, v.evidence.at("entries_planned_for_removal").get<std::size_t>());
    EXPECT_EQ(v.evidence.at("entries"), plan.items[i].name == "hsperfdata_alice" ? 2u : 1u);
  }
  EXPECT_EQ(counted, (std::vector<std::pair<std::string, std::size_t>>{{"hsperfdata_alice", 2},
                                                                      {"hsperfdata_bob", 1}}));
}

TEST(ReapPlan, ItemsAreOrderedNamespaceByNamespaceThenAttachFiles) {
  NamespaceFacts bob = alice_namespace({entry("4401")});
  bob.name = "hsperfdata_bob";
  TempRootFacts root = temp_root({alice_namespace({entry("4400"), entry("4402")}), bob});
  root.attach_files = {attach(".java_pid4403", AttachFacts::Kind::listener_socket, FileKind::socket,
                              process(4403, Existence::gone))};
  const Plan plan = plan_reap({root}, options(), kNow, 0);
  ASSERT_EQ(plan.items.size(), 4u);
  EXPECT_EQ(plan.items[0].ns, std::optional<std::size_t>(0));
  EXPECT_EQ(plan.items[1].ns, std::optional<std::size_t>(0));
  EXPECT_EQ(plan.items[2].ns, std::optional<std::size_t>(1));
  EXPECT_EQ(plan.items[3].subject, ReapSubject::attach_file);
  const PlanCounts counts = plan.counts();
  EXPECT_EQ(counts.remove, 4u);
}

TEST(ReapPlan, ExplanationAgreesWithThePlan) {
  NamespaceFacts ns = alice_namespace({
      entry("4500"),
      entry("4501", FileKind::regular, Lock::held),
      entry("4502", FileKind::regular, Lock::free, {process(4502, Existence::alive, kNow - 1000)}),
      entry("junk", FileKind::fifo),
  });
  ns.user.reset();
  std::vector<TempRootFacts> roots = {temp_root({ns})};
  roots[0].attach_files = {attach(".java_pid4503", AttachFacts::Kind::listener_socket,
                                  FileKind::socket, process(4503, Existence::gone))};
  ReapOptions o = options();
  o.remove_empty_namespaces = true;
  const Plan plan = plan_reap(roots, o, kNow, 0);
  ASSERT_EQ(plan.items.size(), 6u);
  for (std::size_t i = 0; i < plan.items.size(); ++i) {
    const LivenessVerdict v = explain_item(roots, plan, i, o);
    EXPECT_EQ(v.verdict, plan.items[i].verdict) << plan.items[i].path;
    EXPECT_EQ(v.reason, plan.items[i].reason) << plan.items[i].path;
    EXPECT_FALSE(v.message.empty()) << plan.items[i].path;
    EXPECT_TRUE(v.evidence.contains("decided_by")) << v.evidence.dump();
    EXPECT_EQ(v.evidence.value("reason", ""), v.reason) << v.evidence.dump();
  }
}

TEST(ReapPlan, RegionsMatterOnlyWhenThePidMayBeAlive) {
  EXPECT_FALSE(region_may_decide(entry("4600")));
  EXPECT_TRUE(region_may_decide(
      entry("4601", FileKind::regular, Lock::free, {process(4601, Existence::alive)})));
  EXPECT_TRUE(region_may_decide(
      entry("4602", FileKind::regular, Lock::free, {process(4602, Existence::no_permission)})));
  FileFacts no_evidence = entry("4603");
  no_evidence.liveness.reset();
  EXPECT_TRUE(region_may_decide(no_evidence));

  // A file whose pid is gone is judged the same with and without its region.
  FileFacts without_region = entry("4604");
  without_region.region.reset();
  const Plan with = plan_of({entry("4604")});
  const Plan without = plan_of({without_region});
  EXPECT_EQ(with.items[0].verdict, without.items[0].verdict);
  EXPECT_EQ(with.items[0].reason, without.items[0].reason);
}

// The report's writer says what the plan and the records say, hostile names included (not
// UTF-8, quotes, backslashes, control characters); plan_item_json and action_json are its
// records parsed.
TEST(ReapReport, StreamedJsonIsThePlanAndTheActions) {
  ReapRun run;
  const std::string hostile = std::string("bad\xff\"q\\b\n") + "\x01";
  FileFacts odd = entry(hostile);
  odd.path = "/tmp/hsperfdata_alice/" + hostile;
  run.roots = {temp_root({alice_namespace({entry("4700"), odd, entry("4701", FileKind::symlink),
                                           entry("4702", FileKind::regular, Lock::held)})})};
  run.options = options(0);
  run.plan = plan_reap(run.roots, run.options, kNow, 0);
  ExecutionResult execution;
  for (std::size_t i = 0; i < run.plan.items.size(); ++i) {
    if (run.plan.items[i].action != ReapAction::remove) continue;
    ReapActionRecord r;
    r.item = i;
    r.outcome = i == 0 ? ReapOutcome::removed : ReapOutcome::failed;
    r.detail = i == 0 ? "unlinked" : "unlinkat";
    r.at_ms = kNow + 5;
    if (i != 0) r.error = ObservationError{run.plan.items[i].path, "unlinkat", 13, "Permission denied"};
    execution.actions.push_back(r);
  }
  run.execution = execution;
  run.started_at_ms = kNow;
  run.finished_at_ms = kNow + 10;

  const std::string text = reap_report_json_text(run, HostInfo{"host", "linux", "6.1", 0});
  const auto doc = nlohmann::json::parse(text, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << text;
  ASSERT_EQ(doc.at("plan").size(), run.plan.items.size());
  for (std::size_t i = 0; i < run.plan.items.size(); ++i) {
    const PlanItem& item = run.plan.items[i];
    const auto& j = doc.at("plan")[i];
    EXPECT_EQ(j.at("item"), i);
    EXPECT_EQ(j.at("subject"), to_string(item.subject));
    EXPECT_EQ(j.at("path"), escape_non_utf8(item.path));
    EXPECT_EQ(j.at("verdict"), to_string(item.verdict));
    EXPECT_EQ(j.at("reason"), item.reason);
    EXPECT_EQ(j.at("action"), to_string(item.action));
    EXPECT_EQ(j.at("why"), item.why);
    EXPECT_EQ(j.at("root"), item.root);
    EXPECT_FALSE(j.at("message").get<std::string>().empty()) << i;
    // The explanation is of the plan's own decision.
    EXPECT_EQ(j.at("evidence").at("reason"), item.reason) << i;
    if (item.expected) {
      EXPECT_EQ(j.at("expected").at("ino"), item.expected->ino);
      EXPECT_EQ(j.at("expected").at("kind"), to_string(item.expected->kind));
    }
    EXPECT_EQ(j, plan_item_json(run, i)) << i;
  }
  EXPECT_EQ(doc.at("plan")[0].at("name"), "4700");
  EXPECT_FALSE(doc.at("plan")[0].contains("name_hex"));
  ASSERT_EQ(doc.at("actions").size(), execution.actions.size());
  for (std::size_t i = 0; i < execution.actions.size(); ++i) {
    const ReapActionRecord& r = execution.actions[i];
    const auto& j = doc.at("actions")[i];
    EXPECT_EQ(j.at("item"), r.item);
    EXPECT_EQ(j.at("outcome"), to_string(r.outcome));
    EXPECT_EQ(j.at("detail"), r.detail);
    EXPECT_EQ(j.at("at"), format_utc_millis(kNow + 5));
    EXPECT_EQ(j.at("path"), escape_non_utf8(run.plan.items[r.item].path));
    EXPECT_EQ(j.at("error").is_null(), !r.error.has_value());
    if (r.error) {
      EXPECT_EQ(j.at("error").at("code"), 13);
    }
    EXPECT_EQ(j, action_json(run.plan, r)) << i;
  }
  EXPECT_EQ(doc.at("plan")[1].at("name_hex"), "626164ff22715c620a01");
  EXPECT_EQ(doc.at("reap").at("outcomes").at("failed"), execution.actions.size() - 1);
  EXPECT_EQ(doc.at("command"), "reap");
}

// A namespace planned, acted on and reported in parts, each part dropped once reported (as
// run_reap_command does), gives the report of the same namespace planned whole: the same
// items in the same order with the run's numbers, the text's groups counted over every part,
// the totals, and the directory of a gone user planned after its last part from every part's
// entries.
TEST(ReapReport, ARunInPartsReportsWhatTheWholeRunReports) {
  std::vector<FileFacts> files;
  for (int i = 0; i < 9; ++i) files.push_back(entry(std::to_string(4800 + i)));
  files.push_back(entry("4809", FileKind::fifo));
  files.push_back(entry("4810", FileKind::regular, Lock::held));
  NamespaceFacts whole = alice_namespace(files);
  whole.user.reset();  // a gone user: its empty directory may go (--remove-empty-namespaces)
  ReapOptions o = options(0);
  o.remove_empty_namespaces = true;
  const auto execute = [](const Plan& plan) {
    ExecutionResult done;
    for (std::size_t i = 0; i < plan.items.size(); ++i) {
      if (plan.items[i].action != ReapAction::remove) continue;
      ReapActionRecord r;
      r.item = i;
      r.outcome = i % 4 == 1 ? ReapOutcome::vanished : ReapOutcome::removed;
      r.detail = i % 4 == 1 ? "not-found" : "unlinked";
      r.at_ms = kNow + 5;
      done.actions.push_back(r);
    }
    return done;
  };
  const HostInfo host{"host", "linux", "6.1", 0};

  ReapRun all;
  all.roots = {temp_root({whole})};
  all.options = o;
  all.plan = plan_reap(all.roots, o, kNow, 0);
  all.execution = execute(all.plan);
  const std::string want_json = reap_report_json_text(all, host);
  const std::string want_text = reap_report_text(all, false, "", false);
  ASSERT_EQ(all.plan.items.size(), 12u) << "11 files and the directory";

  ReapRun run;
  run.options = o;
  run.execution.emplace();
  ReapPlanner planner(run.plan, o, 0);
  ReapReportWriter json_writer(true, false, false, [] { return std::make_unique<StringSpool>(); });
  ReapReportWriter text_writer(false, false, false, [] { return std::make_unique<StringSpool>(); });
  TempRootFacts shell = temp_root({});
  run.roots = {shell};
  planner.begin_root(shell, 0, kNow);
  for (std::size_t begin = 0; begin < files.size(); begin += 4) {
    NamespaceFacts part = whole;
    part.files.assign(files.begin() + static_cast<std::ptrdiff_t>(begin),
                      files.begin() + static_cast<std::ptrdiff_t>(std::min(files.size(), begin + 4)));
    part.part = begin / 4;
    part.more_parts = begin + 4 < files.size();
    if (part.part == 0) {
      run.roots[0].namespaces = {part};
    } else {
      run.roots[0].namespaces[0].files = part.files;
    }
    planner.add_namespace(shell, part, 0);
    ExecutionResult done = execute(run.plan);
    run.execution->actions = std::move(done.actions);
    json_writer.add_part(run);
    text_writer.add_part(run);
    run.dropped.add_items(run.plan.items);
    run.dropped.add_actions(run.execution->actions);
    run.items_before += run.plan.items.size();
    run.plan.items.clear();
    run.execution->actions.clear();
    run.roots[0].namespaces[0].files.clear();
  }
  planner.end_root(run.roots[0]);
  EXPECT_EQ(run.items_before, 12u);
  EXPECT_EQ(run.plan.namespaces.at(0).entries, 11u);
  std::string got_json, got_text;
  json_writer.write_report(run, host, "", [&](std::string_view piece) { got_json.append(piece); });
  text_writer.write_report(run, host, "", [&](std::string_view piece) { got_text.append(piece); });
  EXPECT_EQ(got_json, want_json);
  EXPECT_EQ(got_text, want_text);
  EXPECT_NE(got_text.find("    remove  9 files (4800, 4801, 4802, ...; --verbose lists each)"), std::string::npos)
      << got_text;
}

TEST(ReapDuration, ParsesUnits) {
  EXPECT_EQ(parse_duration_ms("0"), 0);
  EXPECT_EQ(parse_duration_ms("90"), 90'000);
  EXPECT_EQ(parse_duration_ms("90s"), 90'000);
  EXPECT_EQ(parse_duration_ms("500ms"), 500);
  EXPECT_EQ(parse_duration_ms("15m"), 900'000);
  EXPECT_EQ(parse_duration_ms("2h"), 7'200'000);
  EXPECT_EQ(parse_duration_ms("1d"), 86'400'000);
  EXPECT_EQ(parse_duration_ms("3650d"), kMaxDurationMs);
  for (const char* bad : {"", "s", "-1", "1.5s", "10x", " 10", "10 s", "99999999999999999999",
                          "106752d", "9999999999", "3651d", "87601h"}) {
    EXPECT_FALSE(parse_duration_ms(bad)) << bad;
  }
}

}  // namespace
}  // namespace hsperfguard
