// The reaper in parts: a reap of many stale files holds a part of them at a time, so that its
// peak memory does not grow with their number, and its report is still whole: every file's
// plan item and action, the totals, and the same plan a dry run of the same tree makes.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "test_support.hpp"

namespace hsperfguard {
namespace {

using nlohmann::json;

// A temp dir of `namespaces` namespaces of `files` empty files each, named out of the pid range
// (foreign, reapable at --min-age 0).
void make_tree(const std::string& tmp, int namespaces, int files) {
  ASSERT_EQ(::mkdir(tmp.c_str(), 0755), 0) << tmp;
  for (int n = 0; n < namespaces; ++n) {
    const std::string ns = tmp + "/hsperfdata_user" + std::to_string(n);
    ASSERT_EQ(::mkdir(ns.c_str(), 0755), 0);
    for (int f = 0; f < files; ++f) {
      const std::string file = ns + "/" + std::to_string(10'000'000 + f);
      const int fd = ::open(file.c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
      ASSERT_GE(fd, 0) << file;
      ::close(fd);
    }
  }
}


json read_json(const std::string& path) {
  const auto bytes = test::read_file(path);
  return json::parse(std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

// What a plan says of each entry: path -> (action, verdict, why).
std::map<std::string, std::tuple<std::string, std::string, std::string>> plan_of(const json& report) {
  std::map<std::string, std::tuple<std::string, std::string, std::string>> plan;
  for (const json& item : report.at("plan")) {
    plan[item.at("path")] = {item.at("action"), item.at("verdict"), item.at("why")};
  }
  return plan;
}

// 60,000 stale files in two namespaces cost no more memory than 20,000: the reaper holds a
// few parts of 1,024 files at a time (the one it acts on, those observed ahead of it), and the
// report's items wait in a temp file, not in memory. (Held whole, the facts, plan and actions
// of a file cost about 1.3 KiB: 50 MiB more here.) The report still has every file, with the
// plan the dry run made of the same tree.
TEST(ReapCli, MemoryIsThatOfAFewPartsWhateverTheNumberOfFiles) {
  test::ScratchDir scratch;
  constexpr int kFiles = 30'000;  // per namespace
  const std::string small = scratch / "small", large = scratch / "large";
  make_tree(small, 2, kFiles / 3);
  make_tree(large, 2, kFiles);
  const auto reap = [&](const std::string& tmp, const std::string& report, bool dry_run, int* rc) {
    std::vector<std::string> args = {"reap", "--tmpdir", tmp, "--no-containers", "--no-lock", "--min-age", "0",
                                     "--format", "json", "--output", report};
    if (dry_run) args.push_back("--dry-run");
    return test::peak_rss_kib(args, rc);
  };
  int small_rc = -1, dry_rc = -1, large_rc = -1;
  const long small_kib = reap(small, scratch / "small.json", false, &small_rc);
  const long dry_kib = reap(large, scratch / "dry.json", true, &dry_rc);
  const long large_kib = reap(large, scratch / "large.json", false, &large_rc);
  EXPECT_EQ(small_rc, 0);
  EXPECT_EQ(dry_rc, 0);
  EXPECT_EQ(large_rc, 0);
  ASSERT_GT(small_kib, 0);
  EXPECT_LT(dry_kib - small_kib, 12 * 1024) << "dry run: 20,000 files: " << small_kib << " KiB, 60,000: " << dry_kib
                                           << " KiB";
  EXPECT_LT(large_kib - small_kib, 12 * 1024) << "20,000 files: " << small_kib << " KiB, 60,000: " << large_kib
                                             << " KiB";

  const json dry = read_json(scratch / "dry.json");
  const json done = read_json(scratch / "large.json");
  constexpr std::size_t kAll = 2 * kFiles;
  // Every file once in the plan, numbered in order, and the real run's plan is the dry run's.
  ASSERT_EQ(done.at("plan").size(), kAll);
  for (std::size_t i = 0; i < kAll; ++i) ASSERT_EQ(done["plan"][i].at("item"), i);
  const auto planned = plan_of(done);
  EXPECT_EQ(planned.size(), kAll);
  EXPECT_EQ(planned, plan_of(dry));
  for (const auto& [path, what] : planned) ASSERT_EQ(std::get<0>(what), "remove") << path;
  // Every removal done, once, and counted.
  ASSERT_EQ(done.at("actions").size(), kAll);
  std::set<std::string> removed;
  for (const json& a : done.at("actions")) {
    EXPECT_EQ(a.at("outcome"), "removed");
    EXPECT_EQ(done["plan"][a.at("item").get<std::size_t>()].at("path"), a.at("path"));
    removed.insert(a.at("path"));
  }
  EXPECT_EQ(removed.size(), kAll);
  EXPECT_EQ(done["reap"]["planned"]["items"], kAll);
  EXPECT_EQ(done["reap"]["planned"]["remove"], kAll);
  EXPECT_EQ(dry["reap"]["planned"]["remove"], kAll);
  EXPECT_EQ(done["reap"]["outcomes"]["removed"], kAll);
  for (const json& ns : done["reap"]["namespaces"]) EXPECT_EQ(ns.at("entries"), kFiles);
  for (int n = 0; n < 2; ++n) {
    const std::string ns = large + "/hsperfdata_user" + std::to_string(n);
    EXPECT_EQ(::rmdir(ns.c_str()), 0) << ns << " is empty";
  }
}

// The text report of a run in parts says what the run whole said: one line for each like
// group of a namespace (its count across every part), and the same totals.
TEST(ReapCli, TextOfARunInPartsCountsEachNamespaceWhole) {
  test::ScratchDir scratch;
  const std::string tmp = scratch / "tmp";
  make_tree(tmp, 1, 10'000);
  const test::CommandResult dry =
      test::run({test::tool_path(), "reap", "--tmpdir", tmp, "--no-containers", "--min-age", "0", "--dry-run"});
  EXPECT_EQ(dry.exit_code, 0) << dry.err;
  EXPECT_NE(dry.out.find("    remove  10000 files ("), std::string::npos) << dry.out;
  EXPECT_NE(dry.out.find("\nplan: 10000 item(s): 10000 to remove, 0 to keep, 0 skipped\n"), std::string::npos)
      << dry.out;
  const test::CommandResult done = test::run(
      {test::tool_path(), "reap", "--tmpdir", tmp, "--no-containers", "--no-lock", "--min-age", "0"});
  EXPECT_EQ(done.exit_code, 0) << done.err;
  EXPECT_NE(done.out.find("  removed       10000 foreign files in " + tmp + "/hsperfdata_user0 ("),
            std::string::npos)
      << done.out;
  EXPECT_NE(done.out.find("\ndone: 10000 removed, 0 vanished, 0 became live, 0 changed, 0 failed, 0 not attempted\n"),
            std::string::npos)
      << done.out;
}

}  // namespace
}  // namespace hsperfguard
