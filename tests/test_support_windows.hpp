// Windows test helpers beyond test_support.hpp: the Unix side of wine (making links wine
// itself cannot make), and child processes that live or die on demand.
#pragma once

#include <windows.h>

#include <cstdint>
#include <optional>
#include <string>

#include "platform/windows/win_util.hpp"

namespace hsperfguard::test {

// This process's account name (GetUserNameW); empty if it cannot be read.
std::string current_user_name();

// Unix path of a Windows path, when running under wine (kernel32 exports the converter);
// nullopt on real Windows.
std::optional<std::string> unix_path(const std::string& windows_path);

// Runs a Unix command (wine runs ELF executables through CreateProcessW) and waits until
// `windows_path` exists (or no longer does): handles of Unix processes cannot be waited on
// under wine, so the effect is polled.
bool run_unix(std::wstring command, const std::string& windows_path, bool want_present);

// `ln -s unix_target unix_link`, waiting for `windows_link` to appear.
bool unix_symlink(const std::string& unix_target, const std::string& unix_link, const std::string& windows_link);

// Wine cannot delete a Unix symlink to a directory (RemoveDirectoryW and DeleteFileW both
// fail), so the link goes the way it came.
struct UnixLinkRemover {
  std::string unix_link;
  std::string windows_link;
  ~UnixLinkRemover() { run_unix(L"/bin/rm -f \"" + platform::win::widen(unix_link) + L"\"", windows_link, false); }
};

// A child process: this test binary itself, created suspended, so it does nothing.
struct Child {
  platform::win::UniqueHandle process;
  platform::win::UniqueHandle thread;
  std::int32_t pid = 0;
};
Child start_suspended_child();
// Ends the child and waits for it. The caller keeps `process` open: the process object, and
// so its pid, stays reserved (no new process can get that pid) while it is gone.
bool terminate_child(Child& child, UINT exit_code = 3);

}  // namespace hsperfguard::test
