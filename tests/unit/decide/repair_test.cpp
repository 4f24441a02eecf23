// The judging half of `repair` (repair.hpp): which findings are fixed, how, and which are
// left to a person. Pure tests on hand-built facts.
#include "decide/repair.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "checks/dacl_access.hpp"
#include "checks_builders.hpp"
#include "decide/audit.hpp"
#include "model/compliant_descriptor.hpp"

namespace hsperfguard::test {
namespace {

RepairPlan plan_for(const TempRootFacts& root, const Policy& policy = default_policy()) {
  const std::vector<TempRootFacts> roots{root};
  return plan_repair(roots, judge(roots, policy));
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
    for (const auto& i : plan_for(root, policy).items) {
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
  const RepairPlan plan = plan_for(root, *builtin_profile("strict"));
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

TEST(RepairPlan, BackingFileFixesOnlyRemoveBitsNeverAddTheOwnersWrite) {
  // A 0440 file (group-readable: file.mode) loses the group bit and keeps its owner's
  // read-only bits: 0400, not 0600. A 04400 one (file.setid) loses the special bit only.
  TempRootFacts root = temp_root();
  NamespaceFacts ns = namespace_of();
  FileFacts readable = backing_file(ns);
  readable.lstat->mode = readable.opened->mode = 0440;
  FileFacts setid = backing_file(ns, "4243");
  setid.lstat->mode = setid.opened->mode = 04400;
  ns.files = {readable, setid};
  root.namespaces.push_back(ns);
  const RepairPlan plan = plan_for(root);
  ASSERT_EQ(plan.targets.size(), 2u);
  EXPECT_EQ(plan.targets[0].new_mode, 0400u);
  EXPECT_EQ(item(plan, "file.mode")->change, "mode 0440 -> 0400");
  EXPECT_EQ(plan.targets[1].new_mode, 0400u);
  EXPECT_EQ(item(plan, "file.setid")->change, "mode 4400 -> 0400");
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

// A root-owned namespace or entry proves nothing about who put it there (a user can rename a
// root-owned file from any directory she can write on the same file system into her own
// namespace): no plan ever changes an owner, and the finding is left with its remedy.
TEST(RepairPlan, RootOwnedNamespaceIsNeverGivenToItsUser) {
  TempRootFacts root = temp_root();
  NamespaceFacts ns = namespace_of();
  ns.lstat->uid = ns.opened->uid = 0;
  root.namespaces.push_back(ns);
  const RepairPlan plan = plan_for(root);
  EXPECT_TRUE(plan.targets.empty());
  const RepairItem* i = item(plan, "namespace.owner-mismatch");
  ASSERT_NE(i, nullptr);
  EXPECT_EQ(i->disposition, RepairDisposition::left);
  EXPECT_NE(i->remediation.find("never changes an owner"), std::string::npos) << i->remediation;
}

TEST(RepairPlan, RootOwnedFileInAUsersNamespaceIsNeverGivenToTheUser) {
  TempRootFacts root = temp_root();
  NamespaceFacts ns = namespace_of();
  FileFacts moved_in = backing_file(ns, "4242");
  moved_in.lstat->uid = moved_in.opened->uid = 0;
  ns.files.push_back(moved_in);
  root.namespaces.push_back(ns);
  const RepairPlan plan = plan_for(root);
  EXPECT_TRUE(plan.targets.empty());
  const RepairItem* i = item(plan, "file.owner-mismatch");
  ASSERT_NE(i, nullptr);
  EXPECT_EQ(i->disposition, RepairDisposition::left);
  EXPECT_NE(i->remediation.find("never changes an owner"), std::string::npos) << i->remediation;
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

// ---- Windows: which dacl.* finding gets which descriptor ------------------------------------

constexpr std::string_view kAliceSid = "S-1-5-21-1-2-3-1001";
constexpr std::string_view kMallorySid = "S-1-5-21-1-2-3-1002";

SecurityDescriptor descriptor_of(std::optional<std::string> owner, std::vector<Ace> aces,
                                 bool protect = true) {
  SecurityDescriptor d;
  d.owner_sid = std::move(owner);
  d.dacl_present = true;
  d.control = checks::control::kDaclPresent | (protect ? checks::control::kDaclProtected : 0);
  d.dacl = std::move(aces);
  return d;
}

Ace allow(std::uint32_t mask, std::string_view sid, std::uint8_t flags = 0) {
  return Ace{AceType::access_allowed, flags, mask, std::string(sid)};
}

const SecurityDescriptor& good_directory() {
  static const SecurityDescriptor d = compliant_descriptor(
      CompliantObject::namespace_directory, std::string(kAliceSid), std::string(kAliceSid));
  return d;
}
const SecurityDescriptor& good_file() {
  static const SecurityDescriptor d = compliant_descriptor(
      CompliantObject::backing_file, std::string(kAliceSid), std::string(kAliceSid));
  return d;
}

// C:\Temp with alice's namespace and one backing file, both with the descriptors create
// gives: an audit of it finds no dacl.* finding.
TempRootFacts windows_world() {
  TempRootFacts root;
  root.platform = Platform::windows;
  root.root = "C:\\";
  root.temp_dir = "C:\\Temp";
  InodeFacts dir = inode(FileKind::directory, 0, 0, 100);
  dir.windows_attributes = 0x10;
  set_inode(root, dir);
  root.volume = VolumeFacts{};
  root.volume->fs_type = "NTFS";
  root.volume->acl_support = true;
  root.volume->compressed = false;
  NamespaceFacts ns;
  ns.name = "hsperfdata_alice";
  ns.user_suffix = "alice";
  ns.path = "C:\\Temp\\hsperfdata_alice";
  InodeFacts ns_inode = inode(FileKind::directory, 0, 0, 200);
  ns_inode.windows_attributes = 0x10;
  set_inode(ns, ns_inode);
  ns.user = UserFacts{"alice", std::nullopt, std::nullopt, std::string(kAliceSid)};
  ns.security = good_directory();
  ns.volume = root.volume;
  FileFacts file;
  file.name = "1234";
  file.path = ns.path + "\\1234";
  file.pid_name = classify_pid_name(file.name);
  InodeFacts file_inode = inode(FileKind::regular, 0, 0, 300, perfdata::kDefaultRegionSize);
  file_inode.windows_attributes = 0x20;
  set_inode(file, file_inode);
  file.security = good_file();
  file.region = valid_region();
  ns.files.push_back(std::move(file));
  root.namespaces.push_back(std::move(ns));
  return root;
}

std::vector<std::string> dacl_rules_of(const RootJudgement& judgement) {
  std::vector<std::string> out;
  for (const auto& ns : judgement.namespaces) {
    for (const auto& f : ns.findings) {
      if (f.rule.rfind("dacl.", 0) == 0) out.push_back(f.rule);
    }
    for (const auto& file : ns.files) {
      for (const auto& f : file.findings) {
        if (f.rule.rfind("dacl.", 0) == 0) out.push_back(f.rule);
      }
    }
  }
  return out;
}

// Gives each target's object the descriptor the plan sets, as a successful repair would,
// and audits again.
std::vector<std::string> dacl_findings_after(TempRootFacts root, const RepairPlan& plan) {
  for (const auto& t : plan.targets) {
    for (auto& ns : root.namespaces) {
      if (ns.name != t.namespace_name) continue;
      if (!t.file) {
        ns.security = *t.new_security;
        continue;
      }
      for (auto& file : ns.files) {
        if (file.name == *t.file) file.security = *t.new_security;
      }
    }
  }
  const std::vector<TempRootFacts> roots{root};
  return dacl_rules_of(judge(roots, default_policy()).at(0));
}

TEST(RepairPlanWindows, CompliantDescriptorsNeedNothing) {
  const TempRootFacts root = windows_world();
  const std::vector<TempRootFacts> roots{root};
  EXPECT_THAT(dacl_rules_of(judge(roots, default_policy()).at(0)), ::testing::IsEmpty());
  EXPECT_TRUE(plan_for(root).targets.empty());
}

TEST(RepairPlanWindows, InheritedEveryoneFullControlGetsCreatesProtectedDacl) {
  TempRootFacts root = windows_world();
  NamespaceFacts& ns = root.namespaces[0];
  // The temp dir's DACL, inherited: Everyone may do anything.
  ns.security =
      descriptor_of(std::string(kAliceSid),
                    {allow(0x1F01FF, kAliceSid, checks::ace_flags::kInherited),
                     allow(0x1F01FF, checks::sids::kEveryone, checks::ace_flags::kInherited)},
                    false);
  const RepairPlan plan = plan_for(root);
  ASSERT_EQ(plan.targets.size(), 1u);
  const RepairTarget& t = plan.targets[0];
  EXPECT_FALSE(t.file);
  EXPECT_EQ(t.namespace_name, "hsperfdata_alice");
  EXPECT_EQ(t.expected.ino, 200u);
  EXPECT_EQ(t.expected_owner_sid, std::string(kAliceSid));
  ASSERT_TRUE(t.new_security);
  // Exactly create's descriptor: the owner kept, Everyone listing as HotSpot grants it.
  EXPECT_EQ(t.new_security->dacl.size(), 3u);
  EXPECT_EQ(t.new_security->control, good_directory().control);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(t.new_security->dacl[i].sid, good_directory().dacl[i].sid);
    EXPECT_EQ(t.new_security->dacl[i].mask, good_directory().dacl[i].mask);
    EXPECT_EQ(t.new_security->dacl[i].flags, 0);
  }
  EXPECT_FALSE(t.new_mode);
  // (Everyone's full control reaches Administrators too: no dacl.admins-missing here.)
  for (const char* rule : {"dacl.not-protected", "dacl.everyone-too-broad"}) {
    const RepairItem* i = item(plan, rule);
    ASSERT_NE(i, nullptr) << rule;
    EXPECT_EQ(i->disposition, RepairDisposition::fix) << rule;
    EXPECT_EQ(i->target, 0u) << rule;
    EXPECT_NE(
        i->change.find(
            "protected DACL set: S-1-5-21-1-2-3-1001 full control, Administrators full control, "
            "Everyone 0x001200a9"),
        std::string::npos)
        << i->change;
  }
  EXPECT_THAT(dacl_findings_after(root, plan), ::testing::IsEmpty());
}

TEST(RepairPlanWindows, NullDaclAndExtraWriterAreFixedOnTheNamespaceAndTheFile) {
  TempRootFacts root = windows_world();
  NamespaceFacts& ns = root.namespaces[0];
  ns.security = SecurityDescriptor{std::string(kAliceSid), 0, false, {}};  // NULL DACL
  FileFacts& file = ns.files[0];
  file.security =
      descriptor_of(std::string(kAliceSid),
                    {allow(0x1F01FF, kAliceSid), allow(0x1F01FF, checks::sids::kAdministrators),
                     allow(0x1F01FF, kMallorySid), allow(0x120089, checks::sids::kUsers)});
  const RepairPlan plan = plan_for(root);
  ASSERT_EQ(plan.targets.size(), 2u);
  EXPECT_EQ(item(plan, "dacl.null")->disposition, RepairDisposition::fix);
  EXPECT_EQ(plan.targets[*item(plan, "dacl.null")->target].file, std::nullopt);
  const RepairItem* writer = item(plan, "dacl.extra-writer");
  ASSERT_NE(writer, nullptr);
  EXPECT_EQ(writer->disposition, RepairDisposition::fix);
  const RepairTarget& t = plan.targets[*writer->target];
  EXPECT_EQ(t.file, "1234");
  EXPECT_EQ(t.expected.ino, 300u);
  EXPECT_EQ(t.namespace_expected.ino, 200u);
  ASSERT_TRUE(t.new_security);
  // The file gets the file's descriptor: Everyone cannot read its data.
  ASSERT_EQ(t.new_security->dacl.size(), 3u);
  EXPECT_EQ(t.new_security->dacl[2].mask, compliant_masks::kFileEveryone);
  EXPECT_EQ(item(plan, "dacl.file-data-readable")->target, writer->target);
  EXPECT_THAT(dacl_findings_after(root, plan), ::testing::IsEmpty());
}

TEST(RepairPlanWindows, NamespaceEveryoneCouldNotListStaysUnlistable) {
  TempRootFacts root = windows_world();
  // Protected, no Everyone ACE, but another account may write: only that goes.
  root.namespaces[0].security =
      descriptor_of(std::string(kAliceSid),
                    {allow(0x1F01FF, kAliceSid), allow(0x1F01FF, checks::sids::kAdministrators),
                     allow(0x1F01FF, kMallorySid)});
  const RepairPlan plan = plan_for(root);
  ASSERT_EQ(plan.targets.size(), 1u);
  ASSERT_TRUE(plan.targets[0].new_security);
  ASSERT_EQ(plan.targets[0].new_security->dacl.size(), 2u);  // the user and Administrators
  EXPECT_EQ(plan.targets[0].new_security->dacl[1].sid, checks::sids::kAdministrators);
  EXPECT_THAT(dacl_findings_after(root, plan), ::testing::IsEmpty());
}

TEST(RepairPlanWindows, AdministratorsOwnedNamespaceKeepsItsOwner) {
  TempRootFacts root = windows_world();
  root.namespaces[0].security = descriptor_of(std::string(checks::sids::kAdministrators),
                                              {allow(0x1F01FF, kAliceSid)}, false);
  const RepairPlan plan = plan_for(root);
  ASSERT_EQ(plan.targets.size(), 1u);
  EXPECT_EQ(plan.targets[0].expected_owner_sid, std::string(checks::sids::kAdministrators));
  EXPECT_EQ(plan.targets[0].new_security->owner_sid, std::string(checks::sids::kAdministrators));
  EXPECT_THAT(dacl_findings_after(root, plan), ::testing::IsEmpty());
}

TEST(RepairPlanWindows, NamespaceOwnedByAnotherAccountIsLeftWhole) {
  TempRootFacts root = windows_world();
  NamespaceFacts& ns = root.namespaces[0];
  ns.security =
      descriptor_of(std::string(kMallorySid), {allow(0x1F01FF, checks::sids::kEveryone)}, false);
  ns.files[0].security =
      descriptor_of(std::string(kAliceSid), {allow(0x1F01FF, checks::sids::kEveryone)}, false);
  const RepairPlan plan = plan_for(root);
  EXPECT_TRUE(plan.targets.empty());
  ASSERT_FALSE(plan.items.empty());
  EXPECT_EQ(item(plan, "dacl.owner")->disposition, RepairDisposition::left);
  for (const auto& i : plan.items) {
    EXPECT_EQ(i.disposition, RepairDisposition::left) << i.rule;
    EXPECT_NE(i.reason.find("owned by S-1-5-21-1-2-3-1002"), std::string::npos)
        << i.rule << ": " << i.reason;
  }
}

TEST(RepairPlanWindows, PlantedHardLinkedAndReparsePointFilesAreLeft) {
  TempRootFacts root = windows_world();
  NamespaceFacts& ns = root.namespaces[0];
  const SecurityDescriptor open_to_all =
      descriptor_of(std::string(kAliceSid),
                    {allow(0x1F01FF, kAliceSid), allow(0x1F01FF, checks::sids::kAdministrators),
                     allow(0x1F01FF, checks::sids::kEveryone)});
  FileFacts planted = ns.files[0];
  planted.security = open_to_all;
  planted.security->owner_sid = std::string(kMallorySid);
  FileFacts linked = ns.files[0];
  linked.name = "1235";
  linked.path = ns.path + "\\1235";
  linked.lstat->ino = linked.opened->ino = 301;
  linked.lstat->nlink = linked.opened->nlink = 2;
  linked.security = open_to_all;
  FileFacts reparse = ns.files[0];
  reparse.name = "1236";
  reparse.path = ns.path + "\\1236";
  reparse.lstat->kind = FileKind::symlink;
  reparse.lstat->windows_attributes = 0x400;
  reparse.opened.reset();
  reparse.security = open_to_all;
  ns.files = {planted, linked, reparse};
  const RepairPlan plan = plan_for(root);
  EXPECT_TRUE(plan.targets.empty());
  std::set<std::string> reasons;
  for (const auto& i : plan.items) {
    EXPECT_EQ(i.disposition, RepairDisposition::left) << i.rule;
    if (i.rule.rfind("dacl.", 0) == 0) reasons.insert(i.reason);
  }
  auto any_reason_has = [&](std::string_view text) {
    return std::any_of(reasons.begin(), reasons.end(),
                       [&](const std::string& r) { return r.find(text) != std::string::npos; });
  };
  EXPECT_TRUE(any_reason_has("a planted file is never changed"));
  EXPECT_TRUE(any_reason_has("more than one hard link"));
}

TEST(RepairPlanWindows, ReparsePointNamespaceAndUnknownAccountAreNeverEntered) {
  TempRootFacts root = windows_world();
  root.namespaces[0].lstat->kind = FileKind::symlink;
  root.namespaces[0].lstat->windows_attributes = 0x410;
  root.namespaces[0].opened.reset();
  root.namespaces[0].security.reset();
  EXPECT_NE(namespace_unsafe_for_repair(root, root.namespaces[0])->find("reparse point"),
            std::string::npos);
  EXPECT_TRUE(plan_for(root).targets.empty());

  TempRootFacts unknown = windows_world();
  unknown.namespaces[0].user.reset();
  unknown.namespaces[0].security =
      descriptor_of(std::string(kAliceSid), {allow(0x1F01FF, checks::sids::kEveryone)}, false);
  EXPECT_NE(namespace_unsafe_for_repair(unknown, unknown.namespaces[0])->find("no known account"),
            std::string::npos);
  const RepairPlan plan = plan_for(unknown);
  EXPECT_TRUE(plan.targets.empty());
  EXPECT_EQ(item(plan, "dacl.not-protected")->disposition, RepairDisposition::left);
  EXPECT_EQ(namespace_unsafe_for_repair(windows_world(), windows_world().namespaces[0]),
            std::nullopt);
}

TEST(RepairPlanWindows, EveryRepairableWindowsRuleHasAFix) {
  // Each repairable Windows rule is fixed in one of these worlds, or the catalogue flag is
  // wrong; and nothing is fixed that the catalogue does not flag.
  std::set<std::string> fixed;
  auto collect = [&](const TempRootFacts& root) {
    for (const auto& i : plan_for(root).items) {
      if (i.disposition == RepairDisposition::fix) fixed.insert(i.rule);
    }
  };
  TempRootFacts broad = windows_world();
  broad.namespaces[0].security =
      descriptor_of(std::string(kAliceSid),
                    {allow(0x1F01FF, kAliceSid), allow(0x1F01FF, checks::sids::kEveryone),
                     allow(0x1F01FF, kMallorySid)},
                    false);
  broad.namespaces[0].files[0].security =
      checks::hotspot_descriptor(checks::SecuredObject::file, std::string(kAliceSid));
  collect(broad);
  TempRootFacts null_dacl = windows_world();
  null_dacl.namespaces[0].security = SecurityDescriptor{std::string(kAliceSid), 0, false, {}};
  collect(null_dacl);
  TempRootFacts only_user = windows_world();
  only_user.namespaces[0].security =
      descriptor_of(std::string(kAliceSid), {allow(0x1F01FF, kAliceSid)});
  collect(only_user);
  std::size_t windows_repairable = 0;
  for (const auto& [id, info] : rule_catalog()) {
    if (!info.repairable) continue;
    if (std::find(info.platforms.begin(), info.platforms.end(), "windows") == info.platforms.end())
      continue;
    ++windows_repairable;
    EXPECT_TRUE(fixed.count(id)) << id
                                 << " is flagged repairable on Windows but repair never fixes it";
  }
  EXPECT_GE(windows_repairable, 6u);
  for (const auto& id : fixed) EXPECT_TRUE(find_rule(id)->repairable) << id;
}

}  // namespace
}  // namespace hsperfguard::test
