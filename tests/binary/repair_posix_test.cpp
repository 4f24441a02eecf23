// `hsperfguard repair` on real trees: it fixes what is safe (modes, ACLs; never an owner),
// --dry-run changes nothing, a second audit shows exactly what is left, and it
// never works through a symlinked, squatted or swapped namespace (sentinels outside the
// tree never change).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/xattr.h>

#include <nlohmann/json.hpp>

#include "decide/audit.hpp"
#include "platform/create.hpp"
#include "platform/observe.hpp"
#include "child_posix.hpp"
#include "reap_test_support.hpp"
#include "decide/repair.hpp"

namespace hsperfguard::test {
namespace {

using json = nlohmann::json;
using reaptest::exists;
using reaptest::kNobody;
using reaptest::kNogroup;
using reaptest::ReapTree;

constexpr uid_t kDaemon = 1;

struct stat lstat_of(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
  return st;
}

mode_t mode_of(const std::string& path) { return lstat_of(path).st_mode & 07777; }

using reaptest::audit_json;

// (rule, path) of every finding of an audit report: its own path, else that of the subject
// holding it (report version 2).
std::set<std::pair<std::string, std::string>> findings_of(const json& doc) {
  std::set<std::pair<std::string, std::string>> out;
  auto add = [&](const json& list, const json& subject_path) {
    for (const auto& f : list) {
      out.emplace(f.at("rule").get<std::string>(), f.value("path", subject_path.get<std::string>()));
    }
  };
  for (const auto& root : doc.at("roots")) add(root.at("findings"), root.at("temp_dir"));
  for (const auto& ns : doc.at("namespaces")) {
    add(ns.at("findings"), ns.at("path"));
    for (const auto& file : ns.at("files")) add(file.at("findings"), file.at("path"));
  }
  return out;
}

using reaptest::acls_work;

// Every inode under `dir` (not following links): path -> (ino, uid, mode).
std::map<std::string, std::tuple<ino_t, uid_t, mode_t>> tree_state(const std::string& dir) {
  std::map<std::string, std::tuple<ino_t, uid_t, mode_t>> out;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    struct stat st {};
    if (::lstat(it->path().c_str(), &st) == 0) out[it->path()] = {st.st_ino, st.st_uid, st.st_mode};
    if (it->is_symlink()) it.disable_recursion_pending();
  }
  return out;
}

// A temp dir with one of each: fixable, squatted, symlinked, unknown user, root-made.
struct MixedTree {
  ReapTree tree;
  std::string loose, loose_file, acl_file;  // nobody's: fixable
  std::string squatted, squatted_file;      // hsperfdata_bin owned by daemon
  std::string linked, victim;               // hsperfdata_sys -> outside/victim
  std::string orphan;                       // a user that does not exist
  std::string provisioned, provisioned_file;  // daemon's, made by root
  bool with_acl = false;

  MixedTree() {
    loose = tree.make_namespace("nobody", kNobody, kNogroup, 0777);
    loose_file = tree.region_file(loose, "4242");
    ::chmod(loose_file.c_str(), 02666);
    acl_file = tree.region_file(loose, "4243");
    with_acl = acls_work(acl_file);
    if (with_acl) run({"setfacl", "-m", "u:daemon:rw", acl_file});

    squatted = tree.make_namespace("bin", kDaemon, kDaemon, 0777);
    squatted_file = tree.region_file(squatted, "4244");
    ::chmod(squatted_file.c_str(), 0666);

    victim = tree.outside + "/victim";
    ::mkdir(victim.c_str(), 0777);
    ::chmod(victim.c_str(), 0777);
    tree.sentinel_in(victim, "4245");
    ::chmod((victim + "/4245").c_str(), 0666);
    tree.sentinels[victim + "/4245"].mode = lstat_of(victim + "/4245").st_mode;
    linked = tree.tmp + "/hsperfdata_sys";
    ::symlink(victim.c_str(), linked.c_str());

    orphan = tree.make_namespace("no-such-user-4711", kNobody, kNogroup, 0777);

    provisioned = tree.make_namespace("daemon", 0, 0, 0755);
    provisioned_file = tree.region_file(provisioned, "4246");
  }
};

TEST(RepairCli, FixesOnlyWhatIsSafeDryRunChangesNothingAndTheAuditShowsWhatIsLeft) {
  if (!is_root()) GTEST_SKIP() << "needs root (trees of several users)";
  MixedTree m;
  int rc = -1;
  const json before = audit_json(m.tree.tmp, &rc);
  ASSERT_EQ(rc, 1);
  const auto state = tree_state(m.tree.scratch.path());

  // --dry-run: the plan, and not one inode changed.
  const auto dry = run_tool({"repair", "--tmpdir", m.tree.tmp, "--dry-run"});
  EXPECT_EQ(dry.exit_code, 4) << dry.out << dry.err;
  EXPECT_NE(dry.out.find("would fix  namespace.group-other-writable  " + m.loose + ": mode 0777 -> 0755"),
            std::string::npos)
      << dry.out;
  EXPECT_EQ(tree_state(m.tree.scratch.path()), state);

  const auto r = run_tool({"repair", "--tmpdir", m.tree.tmp});
  EXPECT_EQ(r.exit_code, 4) << r.out << r.err;  // findings are left that repair does not fix
  EXPECT_NE(r.out.find("fixed  file.mode  " + m.loose_file + ": mode 2666 -> 0600"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("0 failed"), std::string::npos) << r.out;

  // Fixed: nobody's namespace and files.
  EXPECT_EQ(mode_of(m.loose), 0755u);
  EXPECT_EQ(mode_of(m.loose_file), 0600u);
  if (m.with_acl) {
    EXPECT_FALSE(::lgetxattr(m.acl_file.c_str(), "system.posix_acl_access", nullptr, 0) >= 0);
    EXPECT_EQ(mode_of(m.acl_file), 0600u);
  }
  // Left: the squatted namespace and its file, the link and what it points to, the orphan,
  // daemon's root-made namespace and root's file in it (no owner is ever changed).
  EXPECT_EQ(lstat_of(m.provisioned).st_uid, 0u);
  EXPECT_EQ(lstat_of(m.provisioned_file).st_uid, 0u);
  EXPECT_EQ(mode_of(m.squatted), 0777u);
  EXPECT_EQ(lstat_of(m.squatted).st_uid, kDaemon);
  EXPECT_EQ(mode_of(m.squatted_file), 0666u);
  EXPECT_TRUE(S_ISLNK(lstat_of(m.linked).st_mode));
  EXPECT_EQ(mode_of(m.victim), 0777u);
  EXPECT_EQ(mode_of(m.orphan), 0777u);
  EXPECT_TRUE(m.tree.sentinels_intact());
  EXPECT_NE(r.out.find("left  namespace.symlink  " + m.linked), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("manual remedy:"), std::string::npos) << r.out;

  // The second audit: what repair fixed is gone, what it left is all that remains.
  const json after = audit_json(m.tree.tmp, &rc);
  const auto remaining = findings_of(after);
  for (const auto& [rule, path] : remaining) {
    if (rule == "file.stale" || rule == "file.pid-reused") continue;  // reap's work, not repair's
    EXPECT_TRUE(path.rfind(m.squatted, 0) == 0 || path == m.linked || path == m.orphan ||
                path.rfind(m.provisioned, 0) == 0)
        << rule << " " << path;
  }
  EXPECT_TRUE(remaining.contains({"namespace.owner-mismatch", m.squatted}));
  EXPECT_TRUE(remaining.contains({"namespace.symlink", m.linked}));
  EXPECT_TRUE(remaining.contains({"namespace.unknown-user", m.orphan}));
  EXPECT_FALSE(remaining.contains({"namespace.group-other-writable", m.loose}));
  EXPECT_TRUE(remaining.contains({"namespace.owner-mismatch", m.provisioned}));
  EXPECT_NE(r.out.find("left  namespace.owner-mismatch  " + m.provisioned), std::string::npos) << r.out;
  // A second repair changes nothing more.
  const auto second = run_tool({"repair", "--tmpdir", m.tree.tmp});
  EXPECT_EQ(lstat_of(m.provisioned).st_uid, 0u) << second.out;
  EXPECT_EQ(lstat_of(m.provisioned_file).st_uid, 0u) << second.out;
  EXPECT_TRUE(m.tree.sentinels_intact());
}

// What repair says it does is what it does: it never changes an owner (the README's repair
// section says so, and HostileInput.RootsFileRenamedIntoAUsersNamespaceIsNeverGivenToHer shows
// it), so its help, and the man page made from it, promise no ownership given back.
TEST(RepairCli, HelpPromisesNoChangeOfOwner) {
  const auto help = run_tool({"repair", "--help"});
  ASSERT_EQ(help.exit_code, 0) << help.err;
  EXPECT_NE(help.out.find("never changes an owner"), std::string::npos) << help.out;
  for (const char* promise : {"ownership given back", "root-made ownership"}) {
    EXPECT_EQ(help.out.find(promise), std::string::npos) << promise;
  }
}

TEST(RepairCli, NothingToDoExitsZero) {
  ReapTree tree;
  const auto r = run_tool({"repair", "--tmpdir", tree.tmp});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("repair: 0 fixed, 0 failed, 0 left"), std::string::npos) << r.out;
  EXPECT_EQ(run_tool({"repair", "--tmpdir", tree.scratch / "missing"}).exit_code, 2);
  // A temp dir that cannot be opened (a link is never followed): could not complete.
  std::filesystem::create_directory_symlink(tree.tmp, tree.scratch / "linked");
  EXPECT_EQ(run_tool({"repair", "--tmpdir", tree.scratch / "linked"}).exit_code, 3);
}

// repair judges by the policy file the audit reads: a finding the policy disables is not
// repaired, one it enables (namespace.not-private, off in the default profile) is; and the
// JSON report, with the policy file it applied, matches its schema.
TEST(RepairCli, JudgesByTheSitePolicyAsTheAuditDoes) {
  if (!is_root()) GTEST_SKIP() << "needs root (a namespace of another user)";
  ReapTree tree;
  const std::string loose = tree.make_namespace("nobody", kNobody, kNogroup, 0777);
  const std::string off = tree.scratch / "off.json";
  write_file(off, to_bytes(R"({"rules": {"namespace.group-other-writable": {"enabled": false}}})"));
  const auto audit_off = run_tool({"audit", "--tmpdir", tree.tmp, "--policy", off});
  EXPECT_EQ(audit_off.out.find("namespace.group-other-writable"), std::string::npos) << audit_off.out;
  const auto kept = run_tool({"repair", "--tmpdir", tree.tmp, "--policy", off});
  EXPECT_EQ(kept.exit_code, 0) << kept.out << kept.err;
  EXPECT_NE(kept.out.find("repair: 0 fixed"), std::string::npos) << kept.out;
  EXPECT_EQ(mode_of(loose), 0777u);
  // Without the policy the profile alone: fixed, 0777 -> 0755.
  ASSERT_EQ(run_tool({"repair", "--tmpdir", tree.tmp, "--no-policy"}).exit_code, 0);
  EXPECT_EQ(mode_of(loose), 0755u);

  const std::string on = tree.scratch / "on.json";
  write_file(on, to_bytes(R"({"rules": {"namespace.not-private": {"enabled": true}}})"));
  const auto dry = run_tool({"repair", "--tmpdir", tree.tmp, "--policy", on, "--dry-run", "--format", "json"});
  ASSERT_EQ(dry.exit_code, 0) << dry.out << dry.err;
  EXPECT_TRUE(schema_valid(dry.out, "schemas/repair.schema.json")) << dry.out;
  const json report = json::parse(dry.out);
  EXPECT_EQ(report.at("policy_file"), on);
  ASSERT_EQ(report.at("items").size(), 1u) << dry.out;
  EXPECT_EQ(report.at("items")[0].at("rule"), "namespace.not-private");
  EXPECT_EQ(mode_of(loose), 0755u) << "a dry run changed it";
  const auto fixed = run_tool({"repair", "--tmpdir", tree.tmp, "--policy", on});
  EXPECT_EQ(fixed.exit_code, 0) << fixed.out << fixed.err;
  EXPECT_EQ(mode_of(loose) & 077, 0u) << fixed.out;
}

TEST(RepairCli, TheUserRepairsItsOwnNamespaceWithoutRoot) {
  if (!is_root() || !have_program("setpriv")) GTEST_SKIP() << "needs root and setpriv";
  ReapTree tree;
  const std::string ns = tree.make_namespace("nobody", kNobody, kNogroup, 0777);
  const std::string file = tree.region_file(ns, "4242");
  ::chmod(file.c_str(), 0644);
  const auto r = run({"setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", test::tool_path(),
                      "repair", "--tmpdir", tree.tmp});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(mode_of(ns), 0755u);
  EXPECT_EQ(mode_of(file), 0600u);
}

// A namespace's default ACL is removed, and a removal the kernel refuses is a failure: the
// namespace made immutable (chattr +i) refuses fremovexattr with EPERM, and repair must say
// so (exit 1, "1 failed", the call) and leave the ACL, never report it fixed. The errno of
// the removal is read only after it failed.
TEST(RepairCli, DefaultAclTheKernelRefusesToRemoveIsAFailureNotAFix) {
  if (!is_root() || !have_program("setfacl") || !have_program("chattr"))
    GTEST_SKIP() << "needs root, setfacl and chattr";
  ReapTree tree;
  const std::string fixable = tree.make_namespace("nobody", kNobody, kNogroup, 0755);
  const std::string stuck = tree.make_namespace("daemon", kDaemon, kDaemon, 0755);
  if (!acls_work(fixable)) GTEST_SKIP() << "no ACLs on this file system";
  for (const std::string& ns : {fixable, stuck}) {
    ASSERT_EQ(run({"setfacl", "-d", "-m", "u:bin:r", ns}).exit_code, 0) << ns;
  }
  if (run({"chattr", "+i", stuck}).exit_code != 0) GTEST_SKIP() << "no immutable flag here";
  struct Mutable {
    std::string path;
    ~Mutable() { (void)run({"chattr", "-i", path}); }
  } thaw{stuck};
  const auto has_default_acl = [](const std::string& path) {
    return ::lgetxattr(path.c_str(), "system.posix_acl_default", nullptr, 0) >= 0;
  };

  const auto r = run_tool({"repair", "--tmpdir", tree.tmp});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("fixed  namespace.default-acl  " + fixable), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("fixed  namespace.default-acl  " + stuck), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1 fixed, 1 failed"), std::string::npos) << r.out;
  EXPECT_NE((r.out + r.err).find("fremovexattr"), std::string::npos) << r.out << r.err;
  EXPECT_FALSE(has_default_acl(fixable));
  EXPECT_TRUE(has_default_acl(stuck));
}

// ---- Races between judging and acting: the executor refuses what it did not judge ----------

struct Planned {
  std::vector<TempRootFacts> roots;
  RepairPlan plan;
};

Planned plan_in(const std::string& tmp) {
  RootSpec spec;
  spec.kind = RootKind::tmpdir;
  spec.temp_dir = tmp;
  Planned p;
  p.roots.push_back(platform::observe_temp_root(spec, platform::ObserveOptions{}));
  p.plan = plan_repair(p.roots, judge(p.roots, *builtin_profile("default")));
  return p;
}

TEST(RepairRace, NamespaceSwappedForASymlinkAfterPlanningIsNotFollowed) {
  if (!is_root()) GTEST_SKIP() << "needs root";
  ReapTree tree;
  const std::string ns = tree.make_namespace("nobody", kNobody, kNogroup, 0777);
  const std::string file = tree.region_file(ns, "4242");
  ::chmod(file.c_str(), 0666);
  const Planned p = plan_in(tree.tmp);
  ASSERT_EQ(p.plan.targets.size(), 2u);

  // The attacker swaps the namespace for a link to a directory of theirs... or of a victim.
  const std::string victim = tree.outside + "/victim";
  ASSERT_EQ(::mkdir(victim.c_str(), 0777), 0);
  ASSERT_EQ(::chmod(victim.c_str(), 0777), 0);
  const std::string sentinel = tree.sentinel_in(victim, "4242");
  ASSERT_EQ(::chmod(sentinel.c_str(), 0666), 0);
  tree.sentinels[sentinel].mode = lstat_of(sentinel).st_mode;
  ASSERT_EQ(::rename(ns.c_str(), (tree.scratch / "moved").c_str()), 0);
  ASSERT_EQ(::symlink(victim.c_str(), ns.c_str()), 0);

  const auto records = platform::execute_repair(p.plan);
  ASSERT_EQ(records.size(), 2u);
  for (const auto& r : records) {
    EXPECT_EQ(r.outcome, RepairOutcome::changed) << r.detail;
  }
  EXPECT_EQ(mode_of(victim), 0777u);
  EXPECT_TRUE(tree.sentinels_intact());
}

TEST(RepairRace, NamespaceReplacedByAnotherDirectoryIsLeftAlone) {
  if (!is_root()) GTEST_SKIP() << "needs root";
  ReapTree tree;
  const std::string ns = tree.make_namespace("nobody", kNobody, kNogroup, 0777);
  const Planned p = plan_in(tree.tmp);
  ASSERT_EQ(p.plan.targets.size(), 1u);
  ASSERT_EQ(::rename(ns.c_str(), (tree.scratch / "moved").c_str()), 0);
  tree.make_namespace("nobody", kNobody, kNogroup, 0777);  // same name, owner, mode: new inode
  const auto records = platform::execute_repair(p.plan);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].outcome, RepairOutcome::changed);
  EXPECT_EQ(mode_of(ns), 0777u);
}

TEST(RepairRace, FileSwappedForASymlinkFifoOrHardLinkIsNeverChanged) {
  if (!is_root()) GTEST_SKIP() << "needs root";
  ReapTree tree;
  const std::string ns = tree.make_namespace("nobody", kNobody, kNogroup, 0755);
  const std::string a = tree.region_file(ns, "4242");
  const std::string b = tree.region_file(ns, "4243");
  const std::string c = tree.region_file(ns, "4244");
  for (const auto& f : {a, b, c}) ::chmod(f.c_str(), 0666);
  const Planned p = plan_in(tree.tmp);
  ASSERT_EQ(p.plan.targets.size(), 3u);

  const std::string sentinel = tree.sentinel("victim");
  ASSERT_EQ(::chmod(sentinel.c_str(), 0666), 0);
  tree.sentinels[sentinel].mode = lstat_of(sentinel).st_mode;
  ASSERT_EQ(::unlink(a.c_str()), 0);
  ASSERT_EQ(::symlink(sentinel.c_str(), a.c_str()), 0);
  ASSERT_EQ(::unlink(b.c_str()), 0);
  ASSERT_EQ(::mkfifo(b.c_str(), 0666), 0);  // opening it would block: it must never be opened
  const mode_t fifo_mode = mode_of(b);
  ASSERT_EQ(::unlink(c.c_str()), 0);
  ASSERT_EQ(::link(sentinel.c_str(), c.c_str()), 0);

  const auto records = platform::execute_repair(p.plan);  // returns: the FIFO was not opened
  ASSERT_EQ(records.size(), 3u);
  for (const auto& r : records) EXPECT_EQ(r.outcome, RepairOutcome::changed) << r.detail;
  EXPECT_EQ(mode_of(b), fifo_mode);
  EXPECT_TRUE(tree.sentinels_intact());
}

// The subtle swap: another regular file of the same owner, mode and link count put in the
// judged file's place (rename over it). Only its inode tells it apart; it is left as it is.
TEST(RepairRace, FileReplacedByAnotherOfTheSameKindIsNeverChanged) {
  if (!is_root()) GTEST_SKIP() << "needs root";
  ReapTree tree;
  const std::string ns = tree.make_namespace("nobody", kNobody, kNogroup, 0755);
  const std::string a = tree.region_file(ns, "4242");
  ASSERT_EQ(::chmod(a.c_str(), 0666), 0);
  const Planned p = plan_in(tree.tmp);
  ASSERT_EQ(p.plan.targets.size(), 1u);

  const std::string other = tree.region_file(ns, "other");
  ASSERT_EQ(::chmod(other.c_str(), 0666), 0);
  ASSERT_EQ(::rename(other.c_str(), a.c_str()), 0);
  const auto records = platform::execute_repair(p.plan);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].outcome, RepairOutcome::changed) << records[0].detail;
  EXPECT_EQ(mode_of(a), 0666u) << "the file put in its place was changed";
}

// A refusal is a failure, not an entry that changed: in a user namespace that does not map
// nobody, root has no say over nobody's 0700 namespace and opening it is EACCES. The outcome
// says so (the operator has a permission to look at), not that someone swapped the entry.
TEST(RepairExecutor, ANamespaceThatCannotBeOpenedIsAFailureWithItsErrno) {
  if (!is_root()) GTEST_SKIP() << "needs root";
  ReapTree tree;
  const std::string ns = tree.make_namespace("nobody", kNobody, kNogroup, 0700);
  const std::string a = tree.region_file(ns, "4242");
  ASSERT_EQ(::chmod(a.c_str(), 0666), 0);
  const Planned p = plan_in(tree.tmp);
  ASSERT_EQ(p.plan.targets.size(), 1u);
  const auto child = test::run_in_user_namespace("0 0 1\n", "0 0 1\n", [&]() -> std::string {
    const auto records = platform::execute_repair(p.plan);
    if (records.size() != 1) return "records: " + std::to_string(records.size());
    const auto& r = records[0];
    return std::to_string(static_cast<int>(r.outcome)) + " " + r.detail + " " +
           (r.error ? std::to_string(r.error->code) : "no error");
  });
  ASSERT_TRUE(child.finished);
  EXPECT_EQ(child.out, std::to_string(static_cast<int>(RepairOutcome::failed)) + " openat " +
                           std::to_string(EACCES));
  EXPECT_EQ(mode_of(a), 0666u);
}

TEST(RepairRace, TempDirReplacedAfterPlanningIsNotEntered) {
  if (!is_root()) GTEST_SKIP() << "needs root";
  ReapTree tree;
  tree.make_namespace("nobody", kNobody, kNogroup, 0777);
  const Planned p = plan_in(tree.tmp);
  ASSERT_EQ(p.plan.targets.size(), 1u);
  ASSERT_EQ(::rename(tree.tmp.c_str(), (tree.scratch / "old-tmp").c_str()), 0);
  ASSERT_EQ(::mkdir(tree.tmp.c_str(), 01777), 0);
  const std::string decoy = tree.tmp + "/hsperfdata_nobody";
  ASSERT_EQ(::mkdir(decoy.c_str(), 0777), 0);
  ASSERT_EQ(::chmod(decoy.c_str(), 0777), 0);
  const auto records = platform::execute_repair(p.plan);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].outcome, RepairOutcome::changed);
  EXPECT_EQ(mode_of(decoy), 0777u);
}

}  // namespace
}  // namespace hsperfguard::test
