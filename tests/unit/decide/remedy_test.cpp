// What a person is told to do about a finding (decide/remedy.hpp): a finding is `repairable`
// exactly when the repair planner fixes it, and its remedy never proposes changing in place
// what repair refuses for where the entry is; a container's entry is fixed inside the
// container, never through /proc/<pid>/root; a command on a path a user controls runs with her
// rights. Pure: hand-built facts.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <utility>

#include "checks_builders.hpp"
#include "decide/audit.hpp"
#include "decide/repair.hpp"
#include "model/shell_word.hpp"

namespace hsperfguard::test {
namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

AuditResult result_of(const std::vector<TempRootFacts>& roots, const std::vector<RootJudgement>& judged) {
  AuditResult result;
  result.roots = roots;
  result.judgements = judged;
  return result;
}

const Finding* find(const std::vector<RootJudgement>& judged, std::string_view rule) {
  const Finding* out = nullptr;
  for (const auto& r : judged) {
    for (const auto& ns : r.namespaces) {
      for (const auto& f : ns.findings) {
        if (f.rule == rule) out = &f;
      }
      for (const auto& file : ns.files) {
        for (const auto& f : file.findings) {
          if (f.rule == rule) out = &f;
        }
      }
    }
  }
  return out;
}

// A namespace of alice with one file of each kind repair refuses to touch, and one it fixes.
TempRootFacts mixed_root() {
  TempRootFacts root = temp_root();
  NamespaceFacts ns = namespace_of();
  ns.lstat->mode = ns.opened->mode = 0777;  // group-other-writable: repair fixes it
  FileFacts wide = backing_file(ns, "100");  // 0644: fixed
  wide.lstat->mode = wide.opened->mode = 0644;
  FileFacts linked = backing_file(ns, "101");  // 0666 with two names: left
  linked.lstat->mode = linked.opened->mode = 0666;
  linked.lstat->nlink = linked.opened->nlink = 2;
  FileFacts planted = backing_file(ns, "102");  // 0666, mallory's: left
  planted.lstat->mode = planted.opened->mode = 0666;
  planted.lstat->uid = planted.opened->uid = kMalloryUid;
  FileFacts mounted = backing_file(ns, "103");  // 0666 on a mount of its own: left
  mounted.lstat->mode = mounted.opened->mode = 0666;
  mounted.crosses_mount = true;
  ns.files = {wide, linked, planted, mounted};
  root.namespaces.push_back(ns);
  return root;
}

// One fact, one source: every finding's `repairable` is what the planner does with it.
TEST(Remedy, RepairableIsWhatThePlannerDoesWithEveryFinding) {
  for (const RootKind kind : {RootKind::host, RootKind::tmpdir, RootKind::root, RootKind::container}) {
    TempRootFacts root = mixed_root();
    root.kind = kind;
    if (kind == RootKind::container) {
      root.root = "/proc/77/root";
      root.reachable_path = "/proc/77/root/tmp";
      root.container = ContainerFacts{77, "mnt:[4026532000]", std::nullopt, std::nullopt};
    }
    const std::vector<TempRootFacts> roots{root};
    const auto judged = judge(roots, default_policy());
    const RepairPlan plan = plan_repair(roots, judged);
    std::map<std::pair<std::string, std::string>, bool> fixed;
    for (const auto& i : plan.items) fixed[{i.rule, i.path}] = i.disposition == RepairDisposition::fix;
    std::size_t findings = 0, repairable = 0;
    for_each_finding(result_of(roots, judged), [&](const Finding& f) {
      ++findings;
      repairable += f.repairable ? 1 : 0;
      const auto it = fixed.find({f.rule, f.path});
      ASSERT_NE(it, fixed.end()) << f.rule << " " << f.path;
      EXPECT_EQ(f.repairable, it->second) << to_string(kind) << " " << f.rule << " " << f.path;
    });
    EXPECT_EQ(findings, plan.items.size());
    EXPECT_EQ(repairable, kind == RootKind::container ? 0u : 2u) << to_string(kind);
  }
}

// A 0666 file with two names: repair refuses it (the other name's file would change too), and
// the audit no longer says `chmod 0600` for it, nor that repair fixes it.
TEST(Remedy, AFileRepairRefusesForWhereItIsGetsNoChmod) {
  const std::vector<TempRootFacts> roots{mixed_root()};
  const auto judged = judge(roots, default_policy());
  std::size_t refused = 0;
  for (const auto& file : judged[0].namespaces[0].files) {
    for (const auto& f : file.findings) {
      if (f.rule != "file.mode") continue;
      if (f.path.ends_with("/100")) {
        EXPECT_TRUE(f.repairable);
        EXPECT_TRUE(has(f.remediation, "chmod 0600 " + shell_word("/tmp/hsperfdata_alice/100"))) << f.remediation;
        continue;
      }
      ++refused;
      EXPECT_FALSE(f.repairable) << f.path;
      EXPECT_FALSE(has(f.remediation, "chmod")) << f.path << ": " << f.remediation;
      EXPECT_TRUE(has(f.remediation, "Not to be changed in place")) << f.remediation;
    }
  }
  EXPECT_EQ(refused, 3u);
  // The repair plan leaves the same findings with the same words.
  const RepairPlan plan = plan_repair(roots, judged);
  for (const auto& i : plan.items) {
    if (i.rule == "file.mode" && i.disposition == RepairDisposition::left) {
      EXPECT_FALSE(has(i.remediation, "chmod")) << i.path << ": " << i.remediation;
    }
  }
}

// A container's entry: fixed inside the container, never through /proc/<pid>/root (a user
// can bind a file of this host there, or make a name an absolute link, which resolves on
// this host); the tool's own commands that look at containers name it.
TEST(Remedy, AContainersEntryIsFixedInsideItNeverThroughProcRoot) {
  TempRootFacts root = mixed_root();
  root.kind = RootKind::container;
  root.root = "/proc/77/root";
  root.reachable_path = "/proc/77/root/tmp";
  root.container = ContainerFacts{77, "mnt:[4026532000]", std::nullopt, std::nullopt};
  for (auto& ns : root.namespaces) {
    ns.path = "/proc/77/root" + ns.path;
    for (auto& file : ns.files) file.path = ns.path + "/" + file.name;
  }
  NamespaceFacts root_ns = namespace_of("root", 0);
  root_ns.path = "/proc/77/root/tmp/hsperfdata_root";
  root_ns.lstat->uid = root_ns.opened->uid = kMalloryUid;  // namespace.root-owner-mismatch
  root.namespaces.push_back(root_ns);
  const std::vector<TempRootFacts> roots{root};
  const auto judged = judge(roots, default_policy());
  std::size_t seen = 0;
  for_each_finding(result_of(roots, judged), [&](const Finding& f) {
    ++seen;
    EXPECT_FALSE(f.repairable) << f.rule;
    for (const char* verb : {"`chmod /proc", "`chown ", "`setfacl /proc", "`unlink /proc", "`rm -- /proc"}) {
      EXPECT_FALSE(has(f.remediation, verb)) << f.rule << ": " << f.remediation;
    }
    EXPECT_FALSE(has(f.remediation, "chmod 0600 /proc/77/root")) << f.remediation;
  });
  EXPECT_GT(seen, 4u);
  const Finding* writable = find(judged, "namespace.group-other-writable");
  ASSERT_NE(writable, nullptr);
  EXPECT_TRUE(has(writable->remediation, "Inside the container")) << writable->remediation;
  EXPECT_TRUE(has(writable->remediation, "chmod go-w " + shell_word("/tmp/hsperfdata_alice") + "`"))
      << writable->remediation;
  const Finding* stale_like = find(judged, "file.mode");
  ASSERT_NE(stale_like, nullptr);
  EXPECT_TRUE(has(stale_like->remediation, "/proc/77/root/tmp/hsperfdata_alice/10")) << "names the path reached";
}

// --tmpdir and --root: the tool's own commands act on the temp dir the finding is about.
TEST(Remedy, TheToolsOwnCommandsCarryTheTempDirTheyAreAbout) {
  for (const auto& [kind, option] : {std::pair{RootKind::tmpdir, shell_option("--tmpdir", "/scratch/t")},
                                     std::pair{RootKind::root, shell_option("--root", "/mnt/sys")}}) {
    TempRootFacts root = temp_root();
    root.kind = kind;
    root.root = kind == RootKind::root ? "/mnt/sys" : "/";
    root.temp_dir = kind == RootKind::root ? "/tmp" : "/scratch/t";
    root.reachable_path = kind == RootKind::root ? "/mnt/sys/tmp" : "";
    NamespaceFacts ns = namespace_of("bob", 2000);
    ns.path = root.shown_temp_dir() + "/hsperfdata_bob";
    ns.lstat->uid = ns.opened->uid = kMalloryUid;  // squatted: owner-mismatch
    root.namespaces.push_back(ns);
    const std::vector<TempRootFacts> roots{root};
    const auto judged = judge(roots, default_policy());
    const Finding* squatted = find(judged, "namespace.owner-mismatch");
    ASSERT_NE(squatted, nullptr);
    EXPECT_TRUE(has(squatted->remediation, "`hsperfguard create --user " + shell_word("bob") + " " + option + "`"))
        << squatted->remediation;
  }
}

// A user's namespace: she can put a link at its path (or at any path in it) between the
// report and the command, so the command runs with her rights alone.
TEST(Remedy, ACommandOnAUsersPathRunsWithHerRights) {
  TempRootFacts root = temp_root();
  NamespaceFacts ns = namespace_of();
  ns.lstat->mode = ns.opened->mode = 0777;
  root.namespaces.push_back(ns);
  NamespaceFacts roots_ns = namespace_of("root", 0);
  roots_ns.lstat->mode = roots_ns.opened->mode = 0777;
  root.namespaces.push_back(roots_ns);
  const std::vector<TempRootFacts> roots{root};
  const auto judged = judge(roots, default_policy());
  const auto& alice = judged[0].namespaces[0].findings;
  const auto& root_owned = judged[0].namespaces[1].findings;
  ASSERT_FALSE(alice.empty());
  ASSERT_FALSE(root_owned.empty());
  EXPECT_TRUE(has(alice[0].remediation,
                  "`setpriv --reuid=1000 --regid=1000 --clear-groups -- chmod go-w " +
                      shell_word("/tmp/hsperfdata_alice") + "`"))
      << alice[0].remediation;
  EXPECT_TRUE(has(root_owned[0].remediation, "`chmod go-w " + shell_word("/tmp/hsperfdata_root") + "`"))
      << root_owned[0].remediation;
}

}  // namespace
}  // namespace hsperfguard::test
