// The rule modules as a whole: the POSIX ACL evaluator, evidence helpers, make_finding, the
// entry points, and a sweep over hostile facts proving that every emitted id is in the
// catalogue and every catalogue rule of these modules is exercised.
#include "checks/checks.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <random>
#include <set>

#include "checks/acl.hpp"
#include "checks/evidence.hpp"
#include "checks_builders.hpp"
#include "model/rule_catalog.hpp"

namespace hsperfguard::test {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

// ---- POSIX ACL evaluation ------------------------------------------------------------------

TEST(PosixAclEvaluation, MaskLimitsNamedUsersGroupObjAndNamedGroupsOnly) {
  const PosixAcl a{{entry(AclTag::user_obj, 7), entry(AclTag::user, 7, 5),
                    entry(AclTag::group_obj, 7), entry(AclTag::group, 6, 9), entry(AclTag::mask, 4),
                    entry(AclTag::other, 7)}};
  EXPECT_EQ(checks::acl::effective_perms(a, a.entries[0]), 7);  // user_obj: never masked
  EXPECT_EQ(checks::acl::effective_perms(a, a.entries[1]), 4);
  EXPECT_EQ(checks::acl::effective_perms(a, a.entries[2]), 4);
  EXPECT_EQ(checks::acl::effective_perms(a, a.entries[3]), 4);
  EXPECT_EQ(checks::acl::effective_perms(a, a.entries[4]), 0);  // the mask grants nothing
  EXPECT_EQ(checks::acl::effective_perms(a, a.entries[5]), 7);  // other: never masked
}

TEST(PosixAclEvaluation, WithoutMaskGroupObjIsUnlimited) {
  const PosixAcl a{
      {entry(AclTag::user_obj, 6), entry(AclTag::group_obj, 6), entry(AclTag::other, 0)}};
  EXPECT_EQ(checks::acl::mask_of(a), std::nullopt);
  EXPECT_EQ(checks::acl::effective_perms(a, a.entries[1]), 6);
}

TEST(PosixAclEvaluation, GrantsToOthersSkipsOwnerEntries) {
  const PosixAcl a{{entry(AclTag::user_obj, 7), entry(AclTag::user, 7, 1000),
                    entry(AclTag::user, 2, 1001), entry(AclTag::group_obj, 1),
                    entry(AclTag::mask, 7), entry(AclTag::other, 4)}};
  const auto writes = checks::acl::grants_to_others(a, checks::acl::kWrite, 1000u);
  ASSERT_EQ(writes.size(), 1u);
  EXPECT_EQ(writes[0].entry.qualifier, 1001u);
  const auto any = checks::acl::grants_to_others(a, checks::acl::kAll, 1000u);
  EXPECT_EQ(any.size(), 3u);  // user:1001, group_obj (x), other (r)
  // Without knowing the owner, a named entry for uid 1000 counts.
  EXPECT_EQ(checks::acl::grants_to_others(a, checks::acl::kWrite).size(), 2u);
}

TEST(PosixAclEvaluation, TextForms) {
  EXPECT_EQ(checks::acl::perms_string(5), "r-x");
  EXPECT_EQ(checks::acl::perms_string(0), "---");
  EXPECT_EQ(checks::acl::entry_text(entry(AclTag::user, 6, 42)), "user:42:rw-");
  EXPECT_EQ(checks::acl::entry_text(entry(AclTag::mask, 5)), "mask::r-x");
  EXPECT_EQ(checks::acl::entry_text(entry(AclTag::user_obj, 7)), "user::rwx");
  EXPECT_EQ(checks::acl::entry_text(entry(AclTag::other, 0)), "other::---");
}

// ---- evidence helpers ------------------------------------------------------------------------

TEST(Evidence, OctalModes) {
  EXPECT_EQ(octal_mode(0777), "0777");
  EXPECT_EQ(octal_mode(01777), "1777");
  EXPECT_EQ(octal_mode(0600), "0600");
  EXPECT_EQ(octal_mode(0100644), "0644");  // file-type bits are not permission bits
  nlohmann::json e = nlohmann::json::object();
  checks::put_mode(e, 0755, "expected_");
  EXPECT_EQ(e["expected_mode"], "0755");
  EXPECT_EQ(e["expected_mode_numeric"], 0755);
}

TEST(Evidence, InodeAndErrors) {
  const auto j = checks::inode_json(inode(FileKind::fifo, 0640, 7, 9, 3));
  EXPECT_EQ(j["kind"], "fifo");
  EXPECT_EQ(j["mode"], "0640");
  EXPECT_EQ(j["uid"], 7);
  EXPECT_EQ(j["ino"], 9);
  EXPECT_EQ(j["size"], 3);
  const auto errors = checks::errors_json({ObservationError{"/tmp/\xff", "openat", 2, "gone"}});
  EXPECT_EQ(errors[0]["path"], "/tmp/\\xff");
  EXPECT_NO_THROW((void)errors.dump());
}

// ---- make_finding and the entry points -------------------------------------------------------

TEST(MakeFinding, TakesSeverityAndRemediationFromTheCatalogue) {
  const Finding f =
      checks::make_finding("file.hard-link", "/tmp/hsperfdata_alice/1", "msg", {{"nlink", 2}});
  const RuleInfo* info = find_rule("file.hard-link");
  ASSERT_NE(info, nullptr);
  EXPECT_EQ(f.severity, info->severity);
  EXPECT_EQ(f.remediation, remediation_for(*info, f.path));
  EXPECT_EQ(f.path, "/tmp/hsperfdata_alice/1");
  EXPECT_EQ(f.evidence["nlink"], 2);
}

TEST(MakeFinding, UnknownRuleKeepsDefaults) {
  const Finding f = checks::make_finding("no.such-rule", "p", "m");
  EXPECT_EQ(f.severity, Severity::medium);
  EXPECT_TRUE(f.remediation.empty());
  EXPECT_TRUE(f.evidence.is_object());
}

TEST(EntryPoints, CompliantWorldAuditsClean) {
  const TempRootFacts root = compliant_world();
  EXPECT_THAT(apply_policy_to_findings(checks::check_all(root), default_policy()), IsEmpty());
  // Raw, only HotSpot's deliberate 0755 shows (namespace.not-private, off by default).
  EXPECT_THAT(ids(checks::check_all(root)), ElementsAre("namespace.not-private"));
}

TEST(EntryPoints, PrivateNamespaceAuditsCleanUnderStrict) {
  TempRootFacts root = compliant_world();
  set_inode(root.namespaces[0], inode(FileKind::directory, 0700, kAliceUid, 9));
  EXPECT_THAT(apply_policy_to_findings(checks::check_all(root), *builtin_profile("strict")),
              IsEmpty());
}

TEST(EntryPoints, CheckAllIsTheSumOfTheEntryPointsInReportOrder) {
  TempRootFacts root = compliant_world();
  set_inode(root, inode(FileKind::directory, 0777, 0, 100));
  root.namespaces[0].crosses_mount = true;
  root.namespaces[0].files[0].lstat->nlink = root.namespaces[0].files[0].opened->nlink = 3;
  root.attach_files[0].lstat->mode = 0644;
  EXPECT_THAT(ids(checks::check_all(root)),
              ElementsAre("attach.socket-unsafe", "file.hard-link", "namespace.mount-boundary",
                          "namespace.not-private", "tmpdir.unsafe"));
  const Findings all = checks::check_all(root);
  EXPECT_EQ(all.front().rule, "tmpdir.unsafe");
  EXPECT_EQ(all.back().rule, "attach.socket-unsafe");
}

// An unsafe -XX:AltTempDir of this host is told to the JVM that named it: its remedy names
// that directory as one shell word and the JVM's pid, not this host's /tmp (the catalogue's
// example); on Windows the catalogue's remedy stands.
TEST(EntryPoints, AnUnsafeAltTempDirsRemedyNamesItAndItsJvm) {
  TempRootFacts root = temp_root();
  root.kind = RootKind::alt_temp_dir;
  root.temp_dir = "/srv/jvm tmp";
  root.alt_temp_dir_pid = 77;
  set_inode(root, inode(FileKind::directory, 0777, kAliceUid, 100));
  const auto remedy_of = [](const TempRootFacts& r) {
    for (const Finding& f : checks::check_all(r)) {
      if (f.rule == "tmpdir.unsafe") return f.remediation;
    }
    return std::string("(no tmpdir.unsafe finding)");
  };
  const std::string remedy = remedy_of(root);
  EXPECT_NE(remedy.find("`chown root:root '/srv/jvm tmp' && chmod 1777 '/srv/jvm tmp'`"), std::string::npos) << remedy;
  EXPECT_NE(remedy.find("start the JVM (pid 77) with an -XX:AltTempDir that is"), std::string::npos) << remedy;
  root.platform = Platform::windows;
  EXPECT_EQ(remedy_of(root).find("AltTempDir"), std::string::npos) << remedy_of(root);
}

// ---- the sweep: every rule, hostile facts, catalogue coverage --------------------------------

// One world per rule family, each entry built to trip at least one rule.
std::vector<TempRootFacts> hostile_worlds() {
  std::vector<TempRootFacts> worlds;

  TempRootFacts root = temp_root();
  set_inode(root, inode(FileKind::directory, 0777, kAliceUid, 100));  // tmpdir.unsafe
  root.opened->ino = 101;                                             // tmpdir.identity-changed
  root.errors.push_back(error("/tmp", "getdents64"));                 // tmpdir.observation-error
  root.volume->network = true;                                        // volume.network-filesystem
  root.volume->acl_support = false;                                   // volume.no-acl-support

  NamespaceFacts link = namespace_of("bob", 1002);
  link.lstat = inode(FileKind::symlink, 0777, kMalloryUid, 11);
  link.opened.reset();
  link.link_target = "/srv/elsewhere";
  root.namespaces.push_back(link);  // namespace.symlink

  NamespaceFacts fifo = namespace_of("carol", 1003);
  set_inode(fifo, inode(FileKind::fifo, 0666, kMalloryUid, 12));
  root.namespaces.push_back(fifo);  // namespace.not-directory

  NamespaceFacts ghost = namespace_of("ghost", kMalloryUid);
  ghost.user.reset();
  root.namespaces.push_back(ghost);  // namespace.unknown-user

  NamespaceFacts unreadable = namespace_of("dave", 1004);
  unreadable.user.reset();
  unreadable.user_lookup_failed = true;
  root.namespaces.push_back(unreadable);  // namespace.user-lookup-failed

  NamespaceFacts alice = namespace_of();
  set_inode(alice,
            inode(FileKind::directory, 0777, kMalloryUid, 13));  // writable, owner, not-private
  alice.opened->ino = 14;                                        // identity-changed
  alice.identity_matches = false;
  alice.crosses_mount = true;                               // mount-boundary
  alice.errors.push_back(error(alice.path, "acl_get_fd"));  // observation-error
  alice.access_acl = PosixAcl{{entry(AclTag::user_obj, 7), entry(AclTag::user, 7, 1005),
                               entry(AclTag::group_obj, 7), entry(AclTag::mask, 7),
                               entry(AclTag::other, 7)}};  // acl-grants-write
  alice.default_acl = PosixAcl{{entry(AclTag::user_obj, 7), entry(AclTag::group_obj, 7),
                                entry(AclTag::other, 7)}};                  // default-acl
  JvmProcessFacts blinded;                                         // jvm-blinded
  blinded.process = process(99, ProcessFacts::Existence::alive);
  blinded.maps_backing_file = false;
  alice.invisible_jvms.push_back(blinded);

  const auto add_file = [&alice](const std::string& name, auto&& mutate) {
    FileFacts file = backing_file(alice, name);
    mutate(file);
    alice.files.push_back(std::move(file));
  };
  add_file("100", [](FileFacts& f) {  // file.symlink
    f.lstat = inode(FileKind::symlink, 0777, kMalloryUid, 30);
    f.link_target = "/etc/shadow";
    f.opened.reset();
    f.region.reset();
  });
  add_file("101", [](FileFacts& f) {  // file.not-regular
    set_inode(f, inode(FileKind::socket, 0777, kMalloryUid, 31));
    f.region.reset();
  });
  add_file("102", [](FileFacts& f) {  // hard-link, owner-mismatch, mode, setid, acl, bad-size
    set_inode(f, inode(FileKind::regular, 06666, kAliceUid, 32, 5 * 1024 * 1024 + 3));
    f.lstat->nlink = f.opened->nlink = 2;
    f.access_acl =
        PosixAcl{{entry(AclTag::user_obj, 6), entry(AclTag::user, 6, 1005),
                  entry(AclTag::group_obj, 6), entry(AclTag::mask, 6), entry(AclTag::other, 6)}};
  });
  add_file("103", [](FileFacts& f) {  // bad-prologue, mount-boundary, identity, observation-error
    f.region = region_of(std::vector<std::byte>(64, std::byte{0x41}));
    f.crosses_mount = true;
    f.opened->ino = 777;
    f.errors.push_back(error(f.path, "read"));
  });
  add_file(std::string("notes\xff"), [](FileFacts&) {});  // foreign-name
  add_file("0", [](FileFacts&) {});                       // pid-out-of-range
  add_file("0042", [](FileFacts&) {});                    // noncanonical-pid
  root.namespaces.push_back(alice);

  AttachFacts unsafe = listener(100, kMalloryUid);
  unsafe.lstat->mode = 0777;
  root.attach_files.push_back(unsafe);  // attach.socket-unsafe
  AttachFacts stale = trigger_file(101);
  stale.liveness->candidates[0].existence = ProcessFacts::Existence::gone;
  stale.errors.push_back(error(stale.path, "open /proc"));
  root.attach_files.push_back(stale);  // attach.stale, attach.observation-error
  AttachFacts orphan = listener(102);
  orphan.liveness->listeners.push_back(listening(102, false));
  root.attach_files.push_back(orphan);  // attach.no-listener
  worlds.push_back(root);

  // Whether a JVM could publish, and the invisible JVMs with each cause.
  TempRootFacts second = temp_root();
  set_inode(second, inode(FileKind::directory, 0755, 0, 200));  // tmpdir.new-namespaces-fail
  second.sharing_mount_namespaces = {"mnt:[4026532999]"};        // with gina's lock: tmpdir.shared-pid-names
  second.unobserved.count = 3;                                   // tmpdir.containers-unobserved
  second.unobserved.pids = {5, 7, 9};
  second.unobserved.errors = {error("/proc/5/ns/mnt", "readlink")};
  second.cleaners = CleanerFacts{};
  cleaners::parse_tmpfiles("/usr/lib/tmpfiles.d/tmp.conf",
                           "q /tmp 1777 root root 10d\n"   // tmpdir.cleaner-ages-jvm-files
                           "Y /tmp - - - 1d\n",            // tmpdir.cleaners-unread
                           second.cleaners->configuration);
  NamespaceFacts shut = namespace_of("erin", 1006);
  set_inode(shut, inode(FileKind::directory, 0100, 1006, 21));  // namespace.owner-no-access
  shut.inode_flags = 0x10;                                      // namespace.immutable
  shut.volume = tmpfs();
  shut.volume->free_bytes = 0;                                  // namespace.no-space
  JvmProcessFacts failed;                                       // jvm.create-failed
  failed.process = process(201, ProcessFacts::Existence::alive, 1006);
  failed.maps_backing_file = false;
  shut.invisible_jvms.push_back(failed);
  second.namespaces.push_back(shut);
  NamespaceFacts frozen = namespace_of("fred", 1007);
  frozen.volume = tmpfs();
  frozen.volume->read_only = true;  // namespace.read-only
  second.namespaces.push_back(frozen);
  NamespaceFacts roots = namespace_of("root", 0);
  set_inode(roots, inode(FileKind::directory, 0755, kMalloryUid, 22));  // namespace.root-owner-mismatch
  second.namespaces.push_back(roots);
  NamespaceFacts sound = namespace_of("gina", 1008);
  sound.files.push_back(locked_file(sound, "1", 300));
  const auto invisible = [](std::int32_t pid, auto&& mutate) {
    JvmProcessFacts jvm;
    jvm.process = process(pid, ProcessFacts::Existence::alive, 1008);
    jvm.maps_backing_file = false;
    mutate(jvm);
    return jvm;
  };
  sound.invisible_jvms = {
      invisible(301, [](JvmProcessFacts& j) {  // jvm.backing-file-deleted
        j.maps_backing_file = true;
        j.backing_file_deleted = true;
      }),
      invisible(302, [](JvmProcessFacts& j) {  // jvm.perf-data-disabled
        j.perf_data = PerfDataOption{true, "-XX:+PerfDisableSharedMem", "JAVA_TOOL_OPTIONS"};
      }),
      invisible(303, [](JvmProcessFacts& j) { j.process.ns_pids = {303, 1}; }),  // jvm.locked-by-another-jvm
      invisible(304, [](JvmProcessFacts&) {}),                                     // jvm.cause-undetermined
      invisible(305, [](JvmProcessFacts& j) { j.process.start_time_ms = 1'700'000'000'000; }),  // jvm.namespace-changed
  };
  sound.lstat->ctime = sound.opened->ctime = Timestamp{1'700'000'100, 0};  // changed after 305 started
  second.namespaces.push_back(sound);
  // jvm.no-passwd-entry: a uid without a user name has no namespace, so it is the temp dir's.
  second.invisible_jvms.push_back(invisible(306, [](JvmProcessFacts& j) {
    j.process.effective_uid = 54321;
    j.no_user_entry = true;
  }));
  worlds.push_back(second);

  // A JVM of our pid namespace in a service's private /tmp: jvm.own-mount-namespace.
  TempRootFacts private_tmp = temp_root();
  private_tmp.kind = RootKind::container;
  private_tmp.container = ContainerFacts{};
  private_tmp.container->host_pid = 400;
  private_tmp.container->mount_namespace = "mnt:[4026532177]";
  private_tmp.container->systemd_private_dir =
      "systemd-private-0123456789abcdef0123456789abcdef-it's a\xff.service-AbC123";
  NamespaceFacts private_ns = namespace_of("hank", 1009);
  FileFacts reached = backing_file(private_ns, "400");
  reached.liveness = LivenessFacts{};
  reached.liveness->candidates = {process(400, ProcessFacts::Existence::alive, 1009)};
  reached.liveness->candidates[0].ns_pids = {400};
  reached.liveness->candidates[0].maps_backing_file = true;
  private_ns.files.push_back(reached);
  private_tmp.namespaces.push_back(private_ns);
  worlds.push_back(private_tmp);

  TempRootFacts windows = temp_root();
  windows.platform = Platform::windows;
  NamespaceFacts win_ns = namespace_of();
  win_ns.user->uid.reset();
  win_ns.volume = VolumeFacts{};
  win_ns.volume->fs_type = "NTFS";
  win_ns.volume->compressed = true;  // volume.compressed
  windows.namespaces.push_back(win_ns);
  worlds.push_back(windows);
  return worlds;
}

// Every id the rule modules of this tree can emit. A new rule goes here, into rules/*.json,
// and into a positive and a negative test.
const std::set<std::string>& module_rules() {
  static const std::set<std::string> ids = {
      "tmpdir.unsafe",
      "tmpdir.identity-changed",
      "tmpdir.observation-error",
      "namespace.symlink",
      "namespace.not-directory",
      "namespace.group-other-writable",
      "namespace.owner-mismatch",
      "namespace.unknown-user",
      "namespace.user-lookup-failed",
      "namespace.acl-grants-write",
      "namespace.default-acl",
      "namespace.identity-changed",
      "namespace.mount-boundary",
      "namespace.not-private",
      "namespace.jvm-blinded",
      "namespace.observation-error",
      "namespace.root-owner-mismatch",
      "namespace.owner-no-access",
      "namespace.read-only",
      "namespace.immutable",
      "namespace.no-space",
      "tmpdir.new-namespaces-fail",
      "tmpdir.shared-pid-names",
      "tmpdir.containers-unobserved",
      "tmpdir.cleaner-ages-jvm-files",
      "tmpdir.cleaners-unread",
      "jvm.perf-data-disabled",
      "jvm.backing-file-deleted",
      "jvm.create-failed",
      "jvm.locked-by-another-jvm",
      "jvm.namespace-changed",
      "jvm.cause-undetermined",
      "jvm.no-passwd-entry",
      "jvm.own-mount-namespace",
      "volume.network-filesystem",
      "volume.no-acl-support",
      "volume.compressed",
      "file.symlink",
      "file.not-regular",
      "file.hard-link",
      "file.owner-mismatch",
      "file.mode",
      "file.acl",
      "file.setid",
      "file.foreign-name",
      "file.pid-out-of-range",
      "file.noncanonical-pid",
      "file.bad-size",
      "file.bad-prologue",
      "file.mount-boundary",
      "file.identity-changed",
      "file.observation-error",
      "attach.socket-unsafe",
      "attach.stale",
      "attach.no-listener",
      "attach.observation-error",
  };
  return ids;
}

void expect_well_formed(const Finding& f) {
  const RuleInfo* info = find_rule(f.rule);
  ASSERT_NE(info, nullptr) << "rule id not in the catalogue: " << f.rule;
  EXPECT_EQ(f.severity, info->severity) << f.rule;
  EXPECT_EQ(f.remediation, remediation_for(*info, f.path)) << f.rule;
  EXPECT_FALSE(f.message.empty()) << f.rule;
  EXPECT_FALSE(f.path.empty()) << f.rule;
  EXPECT_TRUE(f.evidence.is_object()) << f.rule;
  EXPECT_FALSE(f.evidence.empty()) << f.rule << ": evidence must hold the deciding values";
  // Evidence and message go into JSON reports as they are: valid UTF-8 always.
  EXPECT_NO_THROW((void)f.evidence.dump()) << f.rule;
  EXPECT_NO_THROW((void)nlohmann::json(f.message).dump()) << f.rule;
}

TEST(RuleSweep, EveryModuleRuleFiresOnHostileFactsAndIsInTheCatalogue) {
  std::set<std::string> emitted;
  for (const TempRootFacts& world : hostile_worlds()) {
    for (const Finding& f : checks::check_all(world)) {
      expect_well_formed(f);
      emitted.insert(f.rule);
    }
  }
  EXPECT_EQ(emitted, module_rules());
}

// A namespace's findings come in the registry's order, its invisible JVMs' (the jvm.* block,
// each JVM's in turn) where the first jvm.* row stands, and a temp dir's likewise: the
// report's order.
TEST(RuleSweep, ANamespacesAndATempDirsFindingsComeInRegistryOrder) {
  std::map<std::string, std::size_t> index;
  const auto registry = checks::rule_registry();
  // Every jvm.* finding stands where the first jvm.* row does: the block runs each JVM's rows
  // in turn.
  std::optional<std::size_t> first_jvm;
  for (std::size_t i = 0; i < registry.size(); ++i) {
    if (registry[i].jvm != nullptr && !first_jvm) first_jvm = i;
    index[std::string(registry[i].id)] = registry[i].jvm != nullptr ? *first_jvm : i;
  }
  std::size_t jvm_findings = 0;
  const auto in_order = [&](const Findings& findings, const std::string& subject) {
    std::size_t last = 0;
    for (const Finding& f : findings) {
      ASSERT_TRUE(index.count(f.rule)) << f.rule;
      EXPECT_GE(index[f.rule], last) << subject << ": " << f.rule << " after a later row's finding";
      last = index[f.rule];
      if (f.rule.starts_with("jvm.")) ++jvm_findings;
    }
  };
  for (const TempRootFacts& world : hostile_worlds()) {
    in_order(checks::check_temp_root(world), world.shown_temp_dir());
    for (const NamespaceFacts& ns : world.namespaces) in_order(checks::check_namespace(world, ns), ns.path);
  }
  EXPECT_GT(jvm_findings, 0u) << "the worlds hold invisible JVMs";
}

TEST(RuleSweep, EveryModuleRuleIsInTheCatalogue) {
  for (const auto& id : module_rules()) EXPECT_NE(find_rule(id), nullptr) << id;
}

TEST(RuleSweep, EveryLinuxCatalogueRuleIsAModuleRule) {
  // Rules judged on Linux facts must be exercised here; Windows-only rules of other modules
  // (dacl.*, ...) are tested with those modules.
  std::size_t swept = 0;
  for (const auto& [id, info] : rule_catalog()) {
    const bool linux_rule =
        std::find(info.platforms.begin(), info.platforms.end(), "linux") != info.platforms.end();
    // Verdict rules follow from liveness verdicts, not from facts alone: their tests are in
    // unit/decide/audit_test.cpp.
    const bool verdict_rule = id == "file.stale" || id == "file.pid-reused";
    if (linux_rule && !verdict_rule) {
      EXPECT_TRUE(module_rules().count(id)) << id << " is exercised by no test";
      ++swept;
    }
  }
  EXPECT_GE(swept, 20u) << "the sweep must have rules to sweep";
}

// Random mutations of hostile facts: whatever the combination, every finding is well formed
// and its id is in the catalogue.
// A random mutation of the compliant world: inodes, modes, owners, ACLs, volumes, names,
// regions and attach files drawn from hostile values.
TempRootFacts random_world(std::mt19937& rng) {
  const auto pick = [&rng](auto... values) {
    const std::array options{values...};
    return options[std::uniform_int_distribution<std::size_t>(0, options.size() - 1)(rng)];
  };
  const auto kinds = [&] {
    return pick(FileKind::regular, FileKind::directory, FileKind::symlink, FileKind::fifo,
                FileKind::socket, FileKind::char_device, FileKind::block_device, FileKind::unknown);
  };
  const auto mutate_inode = [&](auto& i) {
    if (pick(0, 1, 2, 3) == 0) {
      i.reset();
      return;
    }
    if (!i) i = InodeFacts{};
    i->kind = kinds();
    i->mode = std::uniform_int_distribution<std::uint32_t>(0, 07777)(rng);
    i->uid = pick(0u, kAliceUid, kMalloryUid);
    i->nlink = pick(0u, 1u, 2u);
    i->size = pick(0u, 1u, 4096u, 32768u, 32769u, 3u * 1024 * 1024);
    i->ino = pick(1u, 2u);
  };
  TempRootFacts root = compliant_world();
  root.platform = pick(Platform::posix, Platform::windows);
  mutate_inode(root.lstat);
  mutate_inode(root.opened);
  NamespaceFacts& ns = root.namespaces[0];
  mutate_inode(ns.lstat);
  mutate_inode(ns.opened);
  ns.link_target = "/srv/elsewhere";  // shown only when the namespace is a link
  ns.identity_matches = pick(true, false);
  ns.crosses_mount = pick(true, false);
  if (pick(0, 1) == 0) ns.user.reset();
  ns.user_lookup_failed = pick(true, false);
  if (pick(0, 1) == 0) {
    const auto perms = [&] { return static_cast<std::uint8_t>(pick(0, 2, 5, 6, 7)); };
    ns.access_acl = PosixAcl{{entry(AclTag::user_obj, 7), entry(AclTag::user, perms(), 1005),
                              entry(AclTag::group_obj, perms()), entry(AclTag::mask, perms()),
                              entry(AclTag::other, perms())}};
  }
  ns.volume = tmpfs();
  ns.volume->network = pick(true, false);
  ns.volume->compressed = pick(std::optional<bool>{}, std::optional<bool>{true});
  ns.files.push_back(backing_file(ns, pick("1", "007", "0", "x", "99999999999", "")));
  for (FileFacts& f : ns.files) {
    mutate_inode(f.lstat);
    mutate_inode(f.opened);
    f.link_target = "/etc/shadow";  // shown only when the entry is a link
    f.crosses_mount = pick(true, false);
    if (pick(0, 1) == 0)
      f.region = region_of(std::vector<std::byte>(pick(0u, 31u, 64u), std::byte{0xca}));
  }
  AttachFacts& a = root.attach_files[0];
  mutate_inode(a.lstat);
  a.liveness->candidates[0].existence = pick(ProcessFacts::Existence::alive, ProcessFacts::Existence::gone,
                              ProcessFacts::Existence::unknown);
  return root;
}

TEST(RuleSweep, RandomisedHostileFactsOnlyEmitCatalogueRules) {
  std::mt19937 rng(20240611);
  std::set<std::string> emitted;
  for (int round = 0; round < 300; ++round) {
    const TempRootFacts root = random_world(rng);
    for (const Finding& f : checks::check_all(root)) {
      expect_well_formed(f);
      emitted.insert(f.rule);
    }
  }
  for (const auto& id : emitted) EXPECT_TRUE(module_rules().count(id)) << id;
  EXPECT_GT(emitted.size(), module_rules().size() / 2);
}

// ---- the registry: one function per catalogue rule -------------------------------------------

TEST(Registry, NamesEveryCatalogueRuleOnceAndNothingElse) {
  std::set<std::string> registered;
  for (const checks::RuleEntry& e : checks::rule_registry()) {
    EXPECT_TRUE(registered.insert(std::string(e.id)).second) << e.id << " is registered twice";
    EXPECT_NE(find_rule(e.id), nullptr) << e.id << " has a function but no catalogue entry";
    const int functions = (e.temp_dir != nullptr) + (e.namespace_dir != nullptr) +
                          (e.prediction != nullptr) + (e.file != nullptr) + (e.jvm != nullptr) +
                          (e.descriptor != nullptr) + (e.attach != nullptr) +
                          (e.verdict != nullptr);
    EXPECT_EQ(functions, 1) << e.id << ": one function, for the one subject the rule judges";
    EXPECT_EQ(checks::find_rule_entry(e.id), &e);
  }
  for (const auto& [id, info] : rule_catalog()) {
    EXPECT_TRUE(registered.count(id)) << id << " is in the catalogue but no function judges it";
  }
  EXPECT_EQ(registered.size(), rule_catalog().size());
  EXPECT_EQ(checks::find_rule_entry("no.such-rule"), nullptr);
}

// Every world the sweep knows: the hostile worlds and random mutations of the compliant one.
std::vector<TempRootFacts> sweep_worlds() {
  std::vector<TempRootFacts> worlds = hostile_worlds();
  std::mt19937 rng(20261126);
  for (int round = 0; round < 200; ++round) worlds.push_back(random_world(rng));
  return worlds;
}

// `rules show` tells what a rule's findings carry as evidence from the catalogue: each key a
// finding has must be listed there, and every rule explains why it matters and what to do.
TEST(RuleSweep, EveryFindingsEvidenceIsWhatTheCatalogueListsAndEveryRuleHasRationaleAndRemedy) {
  for (const TempRootFacts& world : sweep_worlds()) {
    for (const Finding& f : checks::check_all(world)) {
      const RuleInfo* info = find_rule(f.rule);
      ASSERT_NE(info, nullptr) << f.rule;
      for (const auto& [key, value] : f.evidence.items()) {
        EXPECT_NE(std::find(info->evidence.begin(), info->evidence.end(), key), info->evidence.end())
            << f.rule << ": evidence key \"" << key << "\" is not in the catalogue's \"evidence\"";
      }
    }
  }
  for (const auto& [id, info] : rule_catalog()) {
    EXPECT_FALSE(info.rationale.empty()) << id;
    EXPECT_FALSE(info.remediation.empty()) << id;
    EXPECT_FALSE(info.evidence.empty()) << id;
  }
}

std::multiset<std::string> keys(const Findings& findings) {
  std::multiset<std::string> out;
  for (const Finding& f : findings)
    out.insert(f.rule + "|" + f.path + "|" + f.message + "|" + f.evidence.dump());
  return out;
}

// Run alone, each rule's function says only its own id; the rules run one at a time add up
// to exactly what the entry points say with all of them.
TEST(Registry, EachRuleRunAloneEmitsOnlyItsIdAndTheRulesAddUpToTheWhole) {
  std::set<std::string> fired;
  for (const TempRootFacts& world : sweep_worlds()) {
    std::multiset<std::string> one_at_a_time;
    for (const checks::RuleEntry& e : checks::rule_registry()) {
      const Findings alone = checks::check_all(world, checks::RuleSelection::only(e.id));
      for (const Finding& f : alone) {
        EXPECT_EQ(f.rule, e.id);
        fired.insert(f.rule);
      }
      const auto k = keys(alone);
      one_at_a_time.insert(k.begin(), k.end());
    }
    EXPECT_EQ(one_at_a_time, keys(checks::check_all(world)));
  }
  EXPECT_EQ(fired, module_rules());
}

TEST(Registry, VerdictRulesEachJudgeTheirOwnVerdict) {
  const TempRootFacts root = compliant_world();
  const NamespaceFacts& ns = root.namespaces[0];
  const FileFacts& file = ns.files[0];
  for (const Verdict v : {Verdict::stale, Verdict::pid_reused, Verdict::live, Verdict::unknown}) {
    LivenessVerdict verdict;
    verdict.verdict = v;
    verdict.reason = "process-gone";
    verdict.message = "a message";
    verdict.evidence = {
        {"decided_by", "process"}, {"lock", {{"state", "free"}, {"holders", 0}}}, {"noise", 1}};
    const Findings all = checks::check_verdict(ns, file, verdict);
    const char* expected = v == Verdict::stale        ? "file.stale"
                           : v == Verdict::pid_reused ? "file.pid-reused"
                                                      : nullptr;
    if (expected == nullptr) {
      EXPECT_THAT(all, IsEmpty());
      continue;
    }
    ASSERT_EQ(all.size(), 1u);
    EXPECT_EQ(all[0].rule, expected);
    // Only the deciding values, the lock cut down to its state.
    EXPECT_EQ(all[0].evidence["lock"], "free");
    EXPECT_FALSE(all[0].evidence.contains("noise"));
    EXPECT_THAT(checks::check_verdict(ns, file, verdict,
                                      checks::RuleSelection::where(
                                          [&](std::string_view id) { return id != expected; })),
                IsEmpty());
  }
}

// A rule a selection leaves out is not run, and nothing else changes.
TEST(Registry, ARuleLeftOutIsNotRunAndTheOthersAreUnchanged) {
  for (const TempRootFacts& world : hostile_worlds()) {
    Findings expected = checks::check_all(world);
    std::erase_if(expected, [](const Finding& f) {
      return f.rule == "file.mode" || f.rule == "namespace.symlink";
    });
    const auto without = checks::RuleSelection::where(
        [](std::string_view id) { return id != "file.mode" && id != "namespace.symlink"; });
    EXPECT_EQ(ids(checks::check_all(world, without)), ids(expected));
    EXPECT_EQ(keys(checks::check_all(world, without)), keys(expected));
  }
}

}  // namespace
}  // namespace hsperfguard::test
