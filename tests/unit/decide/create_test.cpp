// The judging half of `create` (create.hpp) and the region writer it uses: pure tests on
// hand-built facts and on bytes.
#include <gtest/gtest.h>

#include <random>

#include "checks_builders.hpp"
#include "decide/create.hpp"
#include "model/perfdata.hpp"

namespace hsperfguard::test {
namespace {

TEST(CreateNames, UserNamesThatCannotNameANamespaceAreRefused) {
  EXPECT_FALSE(check_user_name("alice"));
  EXPECT_FALSE(check_user_name("svc-app.1"));
  EXPECT_TRUE(check_user_name(""));
  EXPECT_TRUE(check_user_name("."));
  EXPECT_TRUE(check_user_name(".."));
  EXPECT_TRUE(check_user_name("../etc"));
  EXPECT_TRUE(check_user_name("a/b"));
  EXPECT_TRUE(check_user_name(std::string("a\0b", 3)));
  EXPECT_TRUE(check_user_name(std::string(250, 'a')));
  EXPECT_EQ(namespace_name_for("alice"), "hsperfdata_alice");
}

TEST(CreateNames, OnlyTheModesTheAuditAcceptsAreOffered) {
  EXPECT_EQ(parse_namespace_mode("0755"), 0755u);
  EXPECT_EQ(parse_namespace_mode("755"), 0755u);
  EXPECT_EQ(parse_namespace_mode("0700"), 0700u);
  EXPECT_EQ(parse_namespace_mode("700"), 0700u);
  EXPECT_FALSE(parse_namespace_mode("0775"));
  EXPECT_FALSE(parse_namespace_mode("0777"));
  EXPECT_FALSE(parse_namespace_mode(""));
}

TEST(CreateNames, AnExistingNamespaceOnlyLosesTheBitsTheRequestedModeLacks) {
  // --mode 0755 (the default) takes nothing from a 0700 or 0750 namespace; --mode 0700 takes
  // the group and other bits; no request ever adds a bit.
  EXPECT_EQ(0700u & ~bits_create_clears(0755), 0700u);
  EXPECT_EQ(0750u & ~bits_create_clears(0755), 0750u);
  EXPECT_EQ(0755u & ~bits_create_clears(0755), 0755u);
  EXPECT_EQ(0755u & ~bits_create_clears(0700), 0700u);
  EXPECT_EQ(bits_create_clears(0755) & 07000u, 0u);
}

TEST(CreateRegion, SizeIsRoundedUpToThePageAndBounded) {
  EXPECT_EQ(perfdata::round_up_to_page(1, 4096), 4096u);
  EXPECT_EQ(perfdata::round_up_to_page(4096, 4096), 4096u);
  EXPECT_EQ(perfdata::round_up_to_page(4097, 4096), 8192u);
  EXPECT_EQ(perfdata::round_up_to_page(0, 4096), 0u);
  EXPECT_FALSE(perfdata::round_up_to_page(SIZE_MAX, 4096));
  EXPECT_FALSE(perfdata::round_up_to_page(1, 0));

  EXPECT_EQ(plan_region({}, 4096).bytes.size(), 32768u);
  EXPECT_EQ(plan_region({5000, 1, std::nullopt}, 4096).bytes.size(), 8192u);
  EXPECT_EQ(plan_region({5000, 1, std::nullopt}, 65536).bytes.size(), 65536u);
  EXPECT_TRUE(plan_region({100, 1, std::nullopt}, 4096).error);  // below HotSpot's minimum
  EXPECT_TRUE(plan_region({3u << 20, 1, std::nullopt}, 4096).error);
  // HotSpot's bounds themselves are allowed, one byte past either is not.
  EXPECT_FALSE(plan_region({128, 1, std::nullopt}, 4096).error);
  EXPECT_EQ(plan_region({128, 1, std::nullopt}, 4096).bytes.size(), 4096u);
  EXPECT_TRUE(plan_region({127, 1, std::nullopt}, 4096).error);
  EXPECT_FALSE(plan_region({2u << 20, 1, std::nullopt}, 4096).error);
  EXPECT_TRUE(plan_region({(2u << 20) + 1, 1, std::nullopt}, 4096).error);
  // 2 MiB - 1 on 64 KiB pages rounds to exactly 2 MiB: allowed.
  EXPECT_EQ(plan_region({(2u << 20) - 1, 1, std::nullopt}, 65536).bytes.size(), 2u << 20);
  // A command line longer than the region does not fit.
  EXPECT_TRUE(plan_region({4096, 1, std::string(5000, 'x')}, 4096).error);
}

TEST(CreateRegion, RegionParsesBackWithTheWrittenValues) {
  const PlannedRegion planned = plan_region({std::nullopt, 1700000000123, "Demo 1"}, 4096);
  ASSERT_FALSE(planned.error) << *planned.error;
  const perfdata::Region region = perfdata::parse_region(planned.bytes);
  ASSERT_TRUE(region.valid()) << region.error->reason;
  EXPECT_EQ(region.prologue->accessible, 1);
  EXPECT_EQ(region.prologue->byte_order, perfdata::host_byte_order());
  EXPECT_EQ(region.prologue->major_version, 2);
  EXPECT_EQ(region.prologue->minor_version, 0);
  EXPECT_EQ(static_cast<std::size_t>(region.prologue->used), region.walk_end);
  ASSERT_NE(region.find("sun.rt.createVmBeginTime"), nullptr);
  EXPECT_EQ(region.find("sun.rt.createVmBeginTime")->long_value, 1700000000123);
  ASSERT_NE(region.find("sun.rt.javaCommand"), nullptr);
  EXPECT_EQ(region.find("sun.rt.javaCommand")->string_value, "Demo 1");
  EXPECT_TRUE(region.find("sun.rt.javaCommand")->supported());
  ASSERT_NE(region.find("sun.os.hrt.frequency"), nullptr);
  EXPECT_EQ(region.find("sun.os.hrt.frequency")->units, perfdata::Units::hertz);
  // Without --command there is no javaCommand.
  const perfdata::Region bare = perfdata::parse_region(plan_region({}, 4096).bytes);
  ASSERT_TRUE(bare.valid());
  EXPECT_EQ(bare.find("sun.rt.javaCommand"), nullptr);
}

// Property: whatever counters create is given, writing then parsing gives them back, in
// both byte orders.
TEST(CreateRegion, StandardEntriesRoundTripThroughTheParser) {
  std::mt19937_64 random(12345);
  for (int round = 0; round < 200; ++round) {
    perfdata::StandardCounters counters;
    counters.create_vm_begin_time_ms = static_cast<std::int64_t>(random());
    counters.hrt_frequency = static_cast<std::int64_t>(random() % 4'000'000'000ULL);
    if (round % 3 != 0) {
      std::string command;
      const std::size_t length = random() % 300;
      for (std::size_t i = 0; i < length; ++i) command.push_back(static_cast<char>(1 + random() % 255));
      counters.java_command = command;
    }
    perfdata::RegionSpec spec;
    spec.byte_order = round % 2 ? perfdata::ByteOrder::big : perfdata::ByteOrder::little;
    spec.entries = perfdata::standard_entries(counters);
    const auto built = perfdata::build_region(spec);
    ASSERT_FALSE(built.error);
    const auto region = perfdata::parse_region(built.bytes);
    ASSERT_TRUE(region.valid());
    ASSERT_EQ(region.entries.size(), spec.entries.size());
    for (std::size_t i = 0; i < spec.entries.size(); ++i) {
      const auto& want = spec.entries[i];
      const auto& got = region.entries[i];
      EXPECT_EQ(got.name, want.name);
      EXPECT_EQ(got.is_string(), want.is_string);
      EXPECT_EQ(got.units, want.units);
      EXPECT_EQ(got.variability, want.variability);
      EXPECT_TRUE(got.supported());
      if (want.is_string) {
        EXPECT_EQ(got.string_value, want.string_value);
      } else {
        EXPECT_EQ(got.long_value, want.long_value);
      }
    }
    EXPECT_EQ(region.find("sun.rt.createVmBeginTime")->long_value, counters.create_vm_begin_time_ms);
  }
}

// ---- Judging what exists ------------------------------------------------------------------

CreateAssessment assess(const TempRootFacts& root) {
  return assess_for_create(root, find_namespace(root, "hsperfdata_alice"), default_policy(),
                           Severity::medium);
}

TEST(CreateAssess, CompliantNamespaceIsNotBlockedAndHasNoFinding) {
  const TempRootFacts root = compliant_world();
  const CreateAssessment a = assess(root);
  EXPECT_FALSE(a.blocked());
  EXPECT_EQ(a.total(), 0u);
}

TEST(CreateAssess, MissingNamespaceJudgesOnlyTheTempDir) {
  TempRootFacts root = temp_root();
  NamespaceFacts other = namespace_of("mallory", kMalloryUid);
  other.lstat->mode = other.opened->mode = 0777;  // someone else's problem, not create's
  root.namespaces.push_back(other);
  const CreateAssessment a = assess_for_create(root, std::nullopt, default_policy(), Severity::medium);
  EXPECT_FALSE(a.blocked());
  EXPECT_EQ(a.total(), 0u);
}

TEST(CreateAssess, UnsafeTempDirBlocksEverything) {
  TempRootFacts root = temp_root();
  root.lstat->mode = root.opened->mode = 0777;  // world-writable without the sticky bit
  const CreateAssessment a = assess_for_create(root, std::nullopt, default_policy(), Severity::medium);
  ASSERT_EQ(ids(a.blocking_temp_dir), std::vector<std::string>{"tmpdir.unsafe"});
}

TEST(CreateAssess, SquattedNamespaceIsRefusedAndRepairLeavesIt) {
  TempRootFacts root = temp_root();
  NamespaceFacts ns = namespace_of();
  ns.lstat->uid = ns.opened->uid = kMalloryUid;
  root.namespaces.push_back(ns);
  const CreateAssessment a = assess(root);
  ASSERT_TRUE(a.blocked());
  const Finding* f = find(a.blocking, "namespace.owner-mismatch");
  ASSERT_NE(f, nullptr);
  const std::string advice = repair_advice(a.repair, *f);
  EXPECT_NE(advice.find("leaves it"), std::string::npos) << advice;
  EXPECT_NE(advice.find("squatted"), std::string::npos) << advice;
}

TEST(CreateAssess, SymlinkedNamespaceIsRefusedAndRepairNeverFollowsIt) {
  TempRootFacts root = temp_root();
  NamespaceFacts ns = namespace_of();
  ns.lstat = inode(FileKind::symlink, 0777, kMalloryUid, 999);
  ns.opened.reset();
  root.namespaces.push_back(ns);
  const CreateAssessment a = assess(root);
  const Finding* f = find(a.blocking, "namespace.symlink");
  ASSERT_NE(f, nullptr);
  const std::string advice = repair_advice(a.repair, *f);
  EXPECT_NE(advice.find("never follows"), std::string::npos) << advice;
  EXPECT_EQ(a.repair.targets.size(), 0u);
}

TEST(CreateAssess, PlantedFileBlocksAndIsNeverChowned) {
  TempRootFacts root = temp_root();
  NamespaceFacts ns = namespace_of();
  FileFacts planted = backing_file(ns, "777");
  planted.lstat->uid = planted.opened->uid = kMalloryUid;
  ns.files.push_back(planted);
  root.namespaces.push_back(ns);
  const CreateAssessment a = assess(root);
  const Finding* f = find(a.blocking, "file.owner-mismatch");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(repair_advice(a.repair, *f).find("never changes an owner"), std::string::npos);
  EXPECT_EQ(a.repair.targets.size(), 0u);
}

TEST(CreateAssess, WritableNamespaceOfTheUserIsRefusedButRepairFixesIt) {
  TempRootFacts root = temp_root();
  NamespaceFacts ns = namespace_of();
  ns.lstat->mode = ns.opened->mode = 0777;
  root.namespaces.push_back(ns);
  const CreateAssessment a = assess(root);
  const Finding* f = find(a.blocking, "namespace.group-other-writable");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(repair_advice(a.repair, *f).find("repair` fixes it (mode 0777 -> 0755)"), std::string::npos)
      << repair_advice(a.repair, *f);
}

}  // namespace
}  // namespace hsperfguard::test
