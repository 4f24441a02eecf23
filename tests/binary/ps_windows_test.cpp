// `hsperfguard ps` on Windows, through the binary under wine: the JVMs of this host's temp dir
// (%TEMP%, GetTempPathW), found by their backing files; a live one is live by its named
// mapping, as HotSpot's tools find it. Blind JVMs (jvm.dll loaded, no backing file mapped):
// jvm_processes_windows_test.cpp.
#include <windows.h>

#include <gtest/gtest.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>

#include "model/perfdata.hpp"
#include "platform/windows/win_util.hpp"
#include "test_support.hpp"
#include "test_support_windows.hpp"

namespace hsperfguard {
namespace {

using platform::win::narrow;
using platform::win::UniqueHandle;
using platform::win::widen;

std::string temp_dir() {
  wchar_t path[MAX_PATH + 1];
  const DWORD n = ::GetTempPathW(MAX_PATH + 1, path);
  std::wstring p(path, n);
  while (!p.empty() && p.back() == L'\\') p.pop_back();
  return narrow(p);
}

TEST(PsWindows, LiveJvmOfTheTempDirIsListedByItsBackingFileAndMapping) {
  test::Child child = test::start_suspended_child();
  ASSERT_TRUE(child.process.valid());
  const std::string user = test::current_user_name();
  const std::string ns = temp_dir() + "\\hsperfdata_" + user;
  ::CreateDirectoryW(widen(ns).c_str(), nullptr);  // may exist from an earlier run
  const std::string file = ns + "\\" + std::to_string(child.pid);

  perfdata::RegionSpec spec;
  // The VM began after the process started (as it does): the start time does not contradict.
  const std::int64_t began = std::chrono::duration_cast<std::chrono::milliseconds>(
                                 std::chrono::system_clock::now().time_since_epoch())
                                 .count();
  spec.entries.push_back({"sun.rt.createVmBeginTime", perfdata::Units::ticks, perfdata::Variability::constant,
                          true, false, began, "", 0});
  spec.entries.push_back({"sun.rt.javaCommand", perfdata::Units::string, perfdata::Variability::constant, true,
                          true, 0, "PsWindowsMain --flag", 0});
  const auto region = perfdata::build_region(spec);
  ASSERT_FALSE(region.error.has_value());
  test::write_file(file, region.bytes);
  {
    // Held as a running HotSpot holds it: open, and mapped under hsperfdata_<user>_<pid>.
    UniqueHandle handle(::CreateFileW(widen(file).c_str(), GENERIC_READ | GENERIC_WRITE,
                                      FILE_SHARE_READ | FILE_SHARE_DELETE, nullptr, OPEN_EXISTING,
                                      FILE_ATTRIBUTE_NORMAL, nullptr));
    ASSERT_TRUE(handle.valid());
    const std::wstring name = widen("hsperfdata_" + user + "_" + std::to_string(child.pid));
    UniqueHandle mapping(::CreateFileMappingW(handle.get(), nullptr, PAGE_READWRITE, 0, 0, name.c_str()));
    ASSERT_TRUE(mapping.valid());

    const auto ps = test::run_tool({"ps", "--format", "json"});
    EXPECT_EQ(ps.exit_code, 0) << ps.err;
    const auto doc = nlohmann::json::parse(ps.out, nullptr, false);
    ASSERT_FALSE(doc.is_discarded()) << ps.out;
    const nlohmann::json* row = nullptr;
    for (const auto& j : doc.at("jvms")) {
      if (j.value("host_pid", -1) == child.pid) row = &j;
    }
    ASSERT_NE(row, nullptr) << ps.out;
    EXPECT_EQ(row->at("state"), "live") << row->dump();
    EXPECT_EQ(row->at("main"), "PsWindowsMain --flag") << row->dump();  // sun.rt.javaCommand
    EXPECT_EQ(row->at("reason"), "lock-held") << row->dump();
    EXPECT_EQ(row->at("user"), user);
    // Not a JVM (no jvm.dll): listed by its backing file only, never as a blind JVM too.
    std::size_t rows_of_child = 0;
    for (const auto& j : doc.at("jvms"))
      rows_of_child += j.value("host_pid", -1) == child.pid ? 1 : 0;
    EXPECT_EQ(rows_of_child, 1u) << ps.out;
  }
  ::DeleteFileW(widen(file).c_str());
  ::RemoveDirectoryW(widen(ns).c_str());  // only when empty
  test::terminate_child(child);
}

}  // namespace
}  // namespace hsperfguard
