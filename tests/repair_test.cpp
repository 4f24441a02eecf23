// The judging half of `repair` (repair.hpp): which findings are fixed, how, and which are
// left to a person. Pure tests on hand-built facts.
#include <gtest/gtest.h>

#include "decide/audit.hpp"
#include "checks_builders.hpp"
#include "decide/repair.hpp"

namespace hsperfguard::test {
namespace {

RepairPlan plan_for(const TempRootFacts& root, std::uint32_t euid = 0,
                    const Policy& policy = default_policy()) {
  const std::vector<TempRootFacts> roots{root};
  return plan_repair(roots, judge(roots, policy), RepairContext{euid});
}

const RepairItem* item(const RepairPlan& plan, std::string_view rule) {
  for (const auto& i : plan.items) {
    if (i.rule == rule) return &i;
  }
  return nullptr;
}


TEST(RepairPlan, CompliantWorldNeedsNothing) {
  const RepairPlan plan = plan_for(compliant_world());
  EXPECT_TRUE(plan.items.empty());
  EXPECT_TRUE(plan.targets.empty());
}

TEST(RepairPlan, EveryRepairableRuleOfLinuxHasAFixOrASafetyReason) {
  // Each repairable Linux rule is either fixed somewhere in these worlds, or the catalogue
  // flag is wrong.
  std::set<std::string> fixed;
  auto collect = [&](const TempRootFacts& root, const Policy& policy) {
    for (const auto& i : plan_for(root, 0, policy).items) {
      if (i.disposition == RepairDisposition::fix) fixed.insert(i.rule);
    }
  };
  TempRootFacts root = temp_root();
  NamespaceFacts ns = namespace_of();
  ns.lstat->mode = ns.opened->mode = 0777;
  ns.access_acl = PosixAcl{{entry(AclTag::user_obj, 7), entry(AclTag::user, 7, kMalloryUid),
                            entry(AclTag::group_obj, 5), entry(AclTag::mask, 7),
                            entry(AclTag::other, 5)}};
  ns.default_acl = ns.access_acl;
  // The owner cannot search its own namespace: namespace.owner-no-access.
  NamespaceFacts shut = namespace_of("bob", 1002);
  shut.lstat->mode = shut.opened->mode = 0600;
  root.namespaces.push_back(shut);
  FileFacts file = backing_file(ns);
  file.lstat->mode = file.opened->mode = 04666;
  file.access_acl = PosixAcl{{entry(AclTag::user_obj, 6), entry(AclTag::user, 6, kMalloryUid),
                              entry(AclTag::group_obj, 4), entry(AclTag::mask, 6),
                              entry(AclTag::other, 4)}};
  FileFacts root_made = backing_file(ns, "4343");
  root_made.lstat->uid = root_made.opened->uid = 0;
  root_made.lstat->ino = root_made.opened->ino = 301;
  ns.files = {file, root_made};
  root.namespaces.push_back(ns);
  NamespaceFacts provisioned = namespace_of("bob", 1002);
  provisioned.lstat->uid = provisioned.opened->uid = 0;
  root.namespaces.push_back(provisioned);
  collect(root, *builtin_profile("strict"));

  for (const auto& [id, info] : rule_catalog()) {
    if (!info.repairable) continue;
    if (std::find(info.platforms.begin(), info.platforms.end(), "linux") == info.platforms.end()) continue;
    EXPECT_TRUE(fixed.count(id)) << id << " is flagged repairable but repair never fixes it";
  }
  // And nothing is fixed that the catalogue does not flag.
  for (const auto& id : fixed) EXPECT_TRUE(find_rule(id)->repairable) << id;
}

TEST(RepairPlan, WritableNamespaceLosesGroupAndOtherWriteOnly) {
  TempRootFacts root = temp_root();
  NamespaceFacts ns = namespace_of();
  ns.lstat->mode = ns.opened->mode = 0777;
  root.namespaces.push_back(ns);
  const RepairPlan plan = plan_for(root);
  ASSERT_EQ(plan.targets.size(), 1u);
  EXPECT_EQ(plan.targets[0].new_mode, 0755u);
  EXPECT_FALSE(plan.targets[0].file);
  EXPECT_EQ(plan.targets[0].namespace_name, "hsperfdata_alice");
  EXPECT_EQ(plan.targets[0].expected.ino, ns.opened->ino);
  const RepairItem* i = item(plan, "namespace.group-other-writable");
  ASSERT_NE(i, nullptr);
  EXPECT_EQ(i->disposition, RepairDisposition::fix);
  EXPECT_EQ(i->change, "mode 0777 -> 0755");
}

TEST(RepairPlan, StrictProfileMakesTheNamespacePrivate) {
  TempRootFacts root = temp_root();
  NamespaceFacts ns = namespace_of();
  ns.lstat->mode = ns.opened->mode = 0777;
  root.namespaces.push_back(ns);
  const RepairPlan plan = plan_for(root, 0, *builtin_profile("strict"));
  ASSERT_EQ(plan.targets.size(), 1u);
  EXPECT_EQ(plan.targets[0].new_mode, 0700u);
}

TEST(RepairPlan, AclOnTheNamespaceIsStrippedAndTheMaskBitsCleared) {
  TempRootFacts root = temp_root();
  NamespaceFacts ns = namespace_of();
  // With an extended ACL, the mode's group bits are the mask (rwx here).
  ns.lstat->mode = ns.opened->mode = 0775;
  ns.access_acl = PosixAcl{{entry(AclTag::user_obj, 7), entry(AclTag::user, 7, kMalloryUid),
                            entry(AclTag::group_obj, 5), entry(AclTag::mask, 7),
                            entry(AclTag::other, 5)}};
  ns.default_acl = PosixAcl{{entry(AclTag::user_obj, 7), entry(AclTag::user, 7, kMalloryUid),
                             entry(AclTag::group_obj, 5), entry(AclTag::mask, 7),
                             entry(AclTag::other, 5)}};
  root.namespaces.push_back(ns);
  const RepairPlan plan = plan_for(root);
  ASSERT_EQ(plan.targets.size(), 1u);
  EXPECT_TRUE(plan.targets[0].strip_access_acl);
  EXPECT_TRUE(plan.targets[0].remove_default_acl);
  EXPECT_EQ(plan.targets[0].new_mode, 0755u);
}

TEST(RepairPlan, BackingFileModeBecomes0600) {
  TempRootFacts root = temp_root();
  NamespaceFacts ns = namespace_of();
  FileFacts file = backing_file(ns);
  file.lstat->mode = file.opened->mode = 02644;
  ns.files.push_back(file);
  root.namespaces.push_back(ns);
  const RepairPlan plan = plan_for(root);
  ASSERT_EQ(plan.targets.size(), 1u);
  ASSERT_TRUE(plan.targets[0].file);
  EXPECT_EQ(*plan.targets[0].file, "4242");
  EXPECT_EQ(plan.targets[0].new_mode, 0600u);
  EXPECT_EQ(item(plan, "file.mode")->change, "mode 2644 -> 0600");
  EXPECT_EQ(item(plan, "file.setid")->disposition, RepairDisposition::fix);
}

TEST(RepairPlan, SymlinkedNamespaceIsNeverEntered) {
  TempRootFacts root = temp_root();
  NamespaceFacts ns = namespace_of();
  ns.lstat = inode(FileKind::symlink, 0777, kMalloryUid, 999);
  ns.opened.reset();
  root.namespaces.push_back(ns);
  const RepairPlan plan = plan_for(root);
  EXPECT_TRUE(plan.targets.empty());
  const RepairItem* i = item(plan, "namespace.symlink");
  ASSERT_NE(i, nullptr);
  EXPECT_EQ(i->disposition, RepairDisposition::left);
  EXPECT_FALSE(i->remediation.empty());
}

TEST(RepairPlan, SquattedNamespaceIsLeftWholeEvenItsFixableFindings) {
  TempRootFacts root = temp_root();
  NamespaceFacts ns = namespace_of();
  ns.lstat->uid = ns.opened->uid = kMalloryUid;
  ns.lstat->mode = ns.opened->mode = 0777;  // fixable elsewhere: not here
  FileFacts file = backing_file(ns);
  file.lstat->mode = file.opened->mode = 0666;
  ns.files.push_back(file);
  root.namespaces.push_back(ns);
  const RepairPlan plan = plan_for(root);
  EXPECT_TRUE(plan.targets.empty());
  EXPECT_EQ(plan.count(RepairDisposition::fix), 0u);
  for (const auto& i : plan.items) {
    EXPECT_NE(i.reason.find("squatted"), std::string::npos) << i.rule << ": " << i.reason;
  }
}

TEST(RepairPlan, UnknownUsersNamespaceIsLeft) {
  TempRootFacts root = temp_root();
  NamespaceFacts ns = namespace_of();
  ns.user.reset();
  ns.lstat->mode = ns.opened->mode = 0777;
  root.namespaces.push_back(ns);
  const RepairPlan plan = plan_for(root);
  EXPECT_TRUE(plan.targets.empty());
  EXPECT_EQ(item(plan, "namespace.group-other-writable")->disposition, RepairDisposition::left);
}

TEST(RepairPlan, UnsafeTempDirLeavesEverythingBeneathIt) {
  TempRootFacts root = temp_root();
  root.lstat->mode = root.opened->mode = 0777;
  NamespaceFacts ns = namespace_of();
  ns.lstat->mode = ns.opened->mode = 0777;
  root.namespaces.push_back(ns);
  const RepairPlan plan = plan_for(root);
  EXPECT_TRUE(plan.targets.empty());
  EXPECT_NE(item(plan, "namespace.group-other-writable")->reason.find("temp dir"), std::string::npos);
}

TEST(RepairPlan, RootMadeNamespaceIsGivenToItsUserOnlyByRoot) {
  TempRootFacts root = temp_root();
  NamespaceFacts ns = namespace_of();
  ns.lstat->uid = ns.opened->uid = 0;
  root.namespaces.push_back(ns);
  const RepairPlan as_root = plan_for(root, 0);
  ASSERT_EQ(as_root.targets.size(), 1u);
  EXPECT_EQ(as_root.targets[0].new_uid, kAliceUid);
  EXPECT_EQ(as_root.targets[0].new_gid, kAliceUid);
  const RepairPlan as_user = plan_for(root, kAliceUid);
  EXPECT_TRUE(as_user.targets.empty());
  EXPECT_NE(item(as_user, "namespace.owner-mismatch")->reason.find("needs root"), std::string::npos);
}

TEST(RepairPlan, RootMadeNamespaceThatOthersCouldWriteIsNotGivenAway) {
  TempRootFacts root = temp_root();
  NamespaceFacts ns = namespace_of();
  ns.lstat->uid = ns.opened->uid = 0;
  ns.lstat->mode = ns.opened->mode = 0777;
  root.namespaces.push_back(ns);
  const RepairPlan plan = plan_for(root, 0);
  ASSERT_EQ(plan.targets.size(), 1u);
  EXPECT_FALSE(plan.targets[0].new_uid);
  EXPECT_EQ(plan.targets[0].new_mode, 0755u);
  EXPECT_NE(item(plan, "namespace.owner-mismatch")->reason.find("cannot be trusted"), std::string::npos);
}

TEST(RepairPlan, PlantedFilesAreNeverChownedHardLinksAndLinksNeverChanged) {
  TempRootFacts root = temp_root();
  NamespaceFacts ns = namespace_of();
  FileFacts planted = backing_file(ns, "100");
  planted.lstat->uid = planted.opened->uid = kMalloryUid;
  FileFacts linked = backing_file(ns, "101");
  linked.lstat->nlink = linked.opened->nlink = 2;
  linked.lstat->mode = linked.opened->mode = 0644;
  FileFacts link = backing_file(ns, "102");
  link.lstat = inode(FileKind::symlink, 0777, kAliceUid, 302);
  link.opened.reset();
  ns.files = {planted, linked, link};
  root.namespaces.push_back(ns);
  const RepairPlan plan = plan_for(root);
  EXPECT_TRUE(plan.targets.empty());
  for (const auto& i : plan.items) EXPECT_EQ(i.disposition, RepairDisposition::left) << i.rule;
  EXPECT_NE(item(plan, "file.mode")->reason.find("hard link"), std::string::npos);
}

TEST(RepairPlan, RaceSeenByObservationIsNotActedOn) {
  TempRootFacts root = temp_root();
  NamespaceFacts ns = namespace_of();
  ns.lstat->mode = 0777;
  ns.opened->mode = 0777;
  ns.opened->ino = 9999;  // swapped between lstat and open
  ns.identity_matches = false;
  root.namespaces.push_back(ns);
  EXPECT_TRUE(plan_for(root).targets.empty());
}

}  // namespace
}  // namespace hsperfguard::test
