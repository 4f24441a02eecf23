// The Windows host services: host facts, guarded report files, config files, accounts.
#include "platform/host.hpp"
#include "platform/output.hpp"

#include <windows.h>

#include <gtest/gtest.h>

#include <string>

#include "platform/users.hpp"
#include "platform/windows/win_util.hpp"
#include "test_support.hpp"

namespace hsperfguard::platform {
namespace {

TEST(WindowsHost, Facts) {
  const HostInfo host = observe_host();
  EXPECT_EQ(host.os, "windows");
  EXPECT_FALSE(host.name.empty());
  EXPECT_FALSE(host.kernel.empty());
  EXPECT_GT(now_epoch_ms(), 1600000000000);
}

TEST(WindowsHost, WriteOutputReplacesAndLeavesNoTempFile) {
  test::ScratchDir scratch;
  const std::string path = scratch.path() + "\\report.json";
  ASSERT_FALSE(write_output_text(path, "first").has_value());
  ASSERT_FALSE(write_output_text(path, "second\n").has_value());
  ObservationError error;
  EXPECT_EQ(read_config_file(path, &error), "second\n");
  // Only the report is left in the directory.
  WIN32_FIND_DATAW entry{};
  HANDLE search = ::FindFirstFileW(win::widen(scratch.path() + "\\*").c_str(), &entry);
  ASSERT_NE(search, INVALID_HANDLE_VALUE);
  int files = 0;
  do {
    if ((entry.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) == 0) ++files;
  } while (::FindNextFileW(search, &entry));
  ::FindClose(search);
  EXPECT_EQ(files, 1);
}

TEST(WindowsHost, WriteOutputReportsAMissingDirectory) {
  const auto error = write_output_text("C:\\no\\such\\dir\\report.json", "x");
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->op, "CreateFileW");
}

TEST(WindowsHost, WriteOutputRefusesADirectoryTarget) {
  test::ScratchDir scratch;
  const auto error = write_output_text(scratch.path(), "x");
  ASSERT_TRUE(error.has_value());
  EXPECT_NE(error->message.find("directory"), std::string::npos) << error->message;
  EXPECT_NE(::GetFileAttributesW(win::widen(scratch.path()).c_str()), INVALID_FILE_ATTRIBUTES);
}

TEST(WindowsHost, WriteOutputWritesThroughTheNulDevice) {
  EXPECT_FALSE(write_output_text("NUL", "discarded").has_value());
}

TEST(WindowsHost, WriteOutputStopRequestedLeavesTheTargetAsItWas) {
  test::ScratchDir scratch;
  const std::string path = scratch.path() + "\\report.json";
  ASSERT_FALSE(write_output_text(path, "old").has_value());
  std::atomic<bool> stop{true};
  OutputOptions options;
  options.stop = &stop;
  const auto error = write_output_text(path, "new", options);
  ASSERT_TRUE(error.has_value());
  ObservationError read_error;
  EXPECT_EQ(read_config_file(path, &read_error), "old");
}

TEST(WindowsHost, ReadConfigFileRefusesDirectories) {
  test::ScratchDir scratch;
  ObservationError error;
  EXPECT_FALSE(read_config_file(scratch.path(), &error).has_value());
  EXPECT_FALSE(error.message.empty());
}

TEST(WindowsUsers, HostAccounts) {
  wchar_t name[256];
  DWORD size = 256;
  ASSERT_TRUE(::GetUserNameW(name, &size));
  auto users = host_user_database();
  const auto me = users->find_user(win::narrow(std::wstring(name, size - 1)));
  ASSERT_TRUE(me.has_value());
  ASSERT_TRUE(me->sid.has_value());
  EXPECT_TRUE(me->sid->starts_with("S-1-5-"));
  EXPECT_FALSE(me->uid.has_value());
  EXPECT_FALSE(users->find_user("nosuchuser42").has_value());
  EXPECT_FALSE(users->failed());
  EXPECT_FALSE(users->find_name(1000).has_value());
}

TEST(WindowsUsers, ForeignRootPasswd) {
  test::ScratchDir scratch;
  ASSERT_TRUE(::CreateDirectoryW(win::widen(scratch.path() + "\\etc").c_str(), nullptr));
  test::write_file(scratch.path() + "\\etc\\passwd",
                   test::to_bytes("root:x:0:0:root:/root:/bin/sh\nalice:x:1000:1000::/home/alice:/bin/sh\n"));
  auto users = root_user_database(scratch.path());
  EXPECT_FALSE(users->failed());
  const auto alice = users->find_user("alice");
  ASSERT_TRUE(alice.has_value());
  EXPECT_EQ(alice->uid, 1000u);
  EXPECT_FALSE(alice->sid.has_value());
  EXPECT_EQ(users->find_name(0), "root");

  auto missing = root_user_database(scratch.path() + "\\nowhere");
  EXPECT_TRUE(missing->failed());
  EXPECT_TRUE(missing->error().has_value());
}

}  // namespace
}  // namespace hsperfguard::platform
