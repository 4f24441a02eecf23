// Windows liveness evidence: the JVM's named file mapping and the pid's process.
#include "platform/liveness.hpp"

#include <windows.h>

#include <gtest/gtest.h>

#include <string>

#include "platform/observe.hpp"
#include "platform/windows/win_util.hpp"
#include "test_support.hpp"

namespace hsperfguard::platform {
namespace {

std::string user_name() {
  wchar_t name[256];
  DWORD size = 256;
  EXPECT_TRUE(::GetUserNameW(name, &size));
  return win::narrow(std::wstring(name, size - 1));
}

class WindowsLiveness : public ::testing::Test {
 protected:
  void SetUp() override {
    user_ = user_name();
    pid_ = std::to_string(::GetCurrentProcessId());
    const std::string ns = scratch_.path() + "\\hsperfdata_" + user_;
    ASSERT_TRUE(::CreateDirectoryW(win::widen(ns).c_str(), nullptr));
    test::write_file(ns + "\\" + pid_, std::vector<std::byte>(4096));
    test::write_file(ns + "\\notes", test::to_bytes("x"));
  }

  TempRootFacts observe_and_gather() {
    RootSpec spec;
    spec.kind = RootKind::tmpdir;
    spec.temp_dir = scratch_.path();
    TempRootFacts root = observe_temp_root(spec, ObserveOptions{});
    LivenessGatherer gatherer;
    gatherer.gather(root);
    return root;
  }

  const FileFacts& file(const TempRootFacts& root, const std::string& name) {
    for (const auto& f : root.namespaces.at(0).files) {
      if (f.name == name) return f;
    }
    ADD_FAILURE() << name << " not observed";
    return root.namespaces.at(0).files.at(0);
  }

  test::ScratchDir scratch_;
  std::string user_;
  std::string pid_;
};

TEST_F(WindowsLiveness, NoMappingIsNotHeldAndTheProcessIsAlive) {
  const auto root = observe_and_gather();
  ASSERT_EQ(root.namespaces.size(), 1u);
  const FileFacts& backing = file(root, pid_);
  ASSERT_TRUE(backing.liveness.has_value());
  EXPECT_EQ(backing.liveness->lock_source, "file-mapping");
  EXPECT_EQ(backing.liveness->lock_held, false);
  ASSERT_EQ(backing.liveness->candidates.size(), 1u);
  EXPECT_EQ(backing.liveness->candidates[0].existence, ProcessFacts::Existence::alive);
}

TEST_F(WindowsLiveness, TheJvmsNamedMappingMeansHeld) {
  const std::wstring name = win::widen("hsperfdata_" + user_ + "_" + pid_);
  win::UniqueHandle mapping(
      ::CreateFileMappingW(INVALID_HANDLE_VALUE, nullptr, PAGE_READWRITE, 0, 4096, name.c_str()));
  ASSERT_TRUE(mapping.valid()) << win::error_message(::GetLastError());
  const auto root = observe_and_gather();
  const FileFacts& backing = file(root, pid_);
  ASSERT_TRUE(backing.liveness.has_value());
  EXPECT_EQ(backing.liveness->lock_held, true);
  mapping.reset();
  EXPECT_EQ(file(observe_and_gather(), pid_).liveness->lock_held, false);
}

TEST_F(WindowsLiveness, NamesThatAreNoPidHaveNoEvidence) {
  const auto root = observe_and_gather();
  const FileFacts& notes = file(root, "notes");
  ASSERT_TRUE(notes.liveness.has_value());
  EXPECT_EQ(notes.liveness->lock_source, "none");
  EXPECT_FALSE(notes.liveness->lock_held.has_value());
  EXPECT_TRUE(notes.liveness->candidates.empty());
}

TEST(WindowsLivenessProcess, CachedPerGatherer) {
  LivenessGatherer gatherer;
  const auto self = static_cast<std::int32_t>(::GetCurrentProcessId());
  const ProcessFacts& first = gatherer.process(self);
  EXPECT_EQ(first.existence, ProcessFacts::Existence::alive);
  EXPECT_EQ(&gatherer.process(self), &first);
  EXPECT_EQ(gatherer.process(0x7FFFFFFC).existence, ProcessFacts::Existence::gone);
}

}  // namespace
}  // namespace hsperfguard::platform
