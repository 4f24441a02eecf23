// Windows test helpers beyond test_support.hpp: the Unix side of wine (making links wine
// itself cannot make), and child processes that live or die on demand.
#pragma once

#include <windows.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

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

// Whether anything has the name `path` (GetFileAttributesW).
bool exists(const std::string& path);

// The dacl.* rule ids among the findings of a JSON report's namespace or file.
std::set<std::string> dacl_rules(const nlohmann::json& findings);

// A build output's path as this process opens it: the build host's Unix path is drive Z:
// under wine.
std::string build_output_path(std::string path);

// The suite's stand-in JVM (tests/support/windows/fake_jvm.cpp), started with `args` and waited for
// until it is ready; terminated (and waited for) by stop() or when it goes out of scope.
// `scratch` holds its ready file. `environment`: NAME=value entries set for it, over this
// process's own (TMP, to give it a temp dir of its own, as a service account has).
class FakeJvm {
 public:
  FakeJvm(const std::string& scratch, const std::vector<std::string>& args,
          const std::vector<std::string>& environment = {});
  FakeJvm(const FakeJvm&) = delete;
  FakeJvm& operator=(const FakeJvm&) = delete;
  ~FakeJvm() { stop(); }
  void stop();
  std::int32_t pid() const { return pid_; }

 private:
  platform::win::UniqueHandle process_;
  std::int32_t pid_ = 0;
};
// The suite's jvm.dll, for FakeJvm's --load.
std::string standin_jvm_dll();

}  // namespace hsperfguard::test
