// Issue 36's configuration part on real trees: create never loosens an existing namespace and
// says what it changed; the conventional /etc/hsperfguard/policy.json is read by default (in a
// private mount namespace with a tmpfs on /etc, never the host's); the packaged
// hsperfguard-policy(5) documents every key the policy parser accepts.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <string>

#include "reap_test_support.hpp"

namespace hsperfguard::test {
namespace {

using reaptest::kNobody;
using reaptest::kNogroup;
using reaptest::ReapTree;

mode_t mode_of(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

// ---- create never loosens -------------------------------------------------------------------

TEST(CreateNeverLoosens, AdminsChmod700StaysAndIsOnlyVerified) {
  if (!is_root()) GTEST_SKIP() << "needs root (the namespace belongs to nobody)";
  ReapTree tree;
  for (const mode_t mode : {0700, 0750, 0711}) {
    const std::string ns = tree.make_namespace("nobody", kNobody, kNogroup, mode);
    const auto r = run_tool({"create", "--user", "nobody", "--tmpdir", tree.tmp});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(mode_of(ns), mode) << r.out;
    EXPECT_NE(r.out.find("verified " + ns), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("->"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("mode 0755"), std::string::npos) << r.out;
    ASSERT_EQ(::rmdir(ns.c_str()), 0);
  }
}

TEST(CreateNeverLoosens, AStricterModeAskedForIsAppliedAndSaidExactly) {
  if (!is_root()) GTEST_SKIP() << "needs root (the namespace belongs to nobody)";
  ReapTree tree;
  const std::string ns = tree.make_namespace("nobody", kNobody, kNogroup, 0755);
  const auto r = run_tool({"create", "--user", "nobody", "--tmpdir", tree.tmp, "--mode", "0700"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(mode_of(ns), 0700u);
  EXPECT_NE(r.out.find("namespace " + ns + ": mode 0755 -> 0700\n"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("verified"), std::string::npos) << r.out;
  // Run again: nothing left to change, so it only verifies.
  const auto again = run_tool({"create", "--user", "nobody", "--tmpdir", tree.tmp, "--mode", "0700"});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.out.find("verified " + ns), std::string::npos) << again.out;
}

}  // namespace
}  // namespace hsperfguard::test
