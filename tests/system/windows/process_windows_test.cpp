// observe_process on real processes: this one, a suspended child, a child that exited
// (with its handle still open, and after it is closed), and one that exited with 259.
#include "platform/process.hpp"

#include <windows.h>

#include <gtest/gtest.h>

#include <string>

#include "platform/windows/win_util.hpp"

namespace hsperfguard::platform {
namespace {

using Existence = ProcessFacts::Existence;

// A child that does nothing until told: this test binary itself, created suspended.
struct Child {
  win::UniqueHandle process;
  win::UniqueHandle thread;
  std::int32_t pid = 0;
};

Child start_suspended_child() {
  wchar_t self[MAX_PATH];
  const DWORD length = ::GetModuleFileNameW(nullptr, self, MAX_PATH);
  EXPECT_GT(length, 0u);
  std::wstring command = L"\"" + std::wstring(self, length) + L"\" --gtest_list_tests";
  STARTUPINFOW startup{};
  startup.cb = sizeof startup;
  PROCESS_INFORMATION info{};
  const BOOL ok = ::CreateProcessW(nullptr, command.data(), nullptr, nullptr, FALSE,
                                   CREATE_SUSPENDED | CREATE_NO_WINDOW, nullptr, nullptr, &startup, &info);
  EXPECT_TRUE(ok) << win::error_message(::GetLastError());
  Child child;
  child.process.reset(info.hProcess);
  child.thread.reset(info.hThread);
  child.pid = static_cast<std::int32_t>(info.dwProcessId);
  return child;
}

void terminate(Child& child, UINT exit_code) {
  ASSERT_TRUE(::TerminateProcess(child.process.get(), exit_code));
  ASSERT_EQ(::WaitForSingleObject(child.process.get(), 10000), WAIT_OBJECT_0);
}

TEST(ObserveProcess, ThisProcessIsAlive) {
  const auto facts = observe_process(static_cast<std::int32_t>(::GetCurrentProcessId()));
  EXPECT_EQ(facts.existence, Existence::alive);
  ASSERT_TRUE(facts.start_time_ms.has_value());
  FILETIME now{};
  ::GetSystemTimeAsFileTime(&now);
  EXPECT_LE(*facts.start_time_ms, win::to_timestamp(now).millis());
  EXPECT_FALSE(facts.error.has_value());
}

TEST(ObserveProcess, SuspendedChildIsAliveThenGone) {
  Child child = start_suspended_child();
  ASSERT_TRUE(child.process.valid());
  EXPECT_EQ(observe_process(child.pid).existence, Existence::alive);
  terminate(child, 3);
  // Exited, but our handle keeps the process object (and its pid) around.
  EXPECT_EQ(observe_process(child.pid).existence, Existence::gone);
  child.thread.reset();
  child.process.reset();
  EXPECT_EQ(observe_process(child.pid).existence, Existence::gone);
}

TEST(ObserveProcess, ExitCode259IsNotMistakenForStillActive) {
  Child child = start_suspended_child();
  ASSERT_TRUE(child.process.valid());
  terminate(child, STILL_ACTIVE);
  DWORD code = 0;
  ASSERT_TRUE(::GetExitCodeProcess(child.process.get(), &code));
  ASSERT_EQ(code, STILL_ACTIVE);  // GetExitCodeProcess alone would call it running
  EXPECT_EQ(observe_process(child.pid).existence, Existence::gone);
}

TEST(ObserveProcess, PidsThatAreNoMultipleOfFourNeverAliasARunningProcess) {
  const auto self = static_cast<std::int32_t>(::GetCurrentProcessId());
  ASSERT_EQ(self % 4, 0);
  EXPECT_EQ(observe_process(self).existence, Existence::alive);
  for (int low = 1; low < 4; ++low) EXPECT_EQ(observe_process(self + low).existence, Existence::gone) << low;
}

TEST(ObserveProcess, ImpossiblePidsAreGone) {
  EXPECT_EQ(observe_process(0).existence, Existence::gone);
  EXPECT_EQ(observe_process(-4).existence, Existence::gone);
  // Far beyond any process id in use.
  EXPECT_EQ(observe_process(0x7FFFFFFC).existence, Existence::gone);
}

}  // namespace
}  // namespace hsperfguard::platform
