#include <windows.h>
#include <sddl.h>

#include <algorithm>
#include <chrono>
#include <string_view>

#include "platform/host.hpp"
#include "platform/windows/win_util.hpp"

namespace hsperfguard::platform {

using win::narrow;
using win::UniqueHandle;
using win::widen;

namespace {

// The real version: GetVersionExW answers what the application manifest asks for.
std::string windows_version() {
  using RtlGetVersion = LONG(WINAPI*)(OSVERSIONINFOW*);
  const HMODULE ntdll = ::GetModuleHandleW(L"ntdll.dll");
  const auto get_version = reinterpret_cast<RtlGetVersion>(
      reinterpret_cast<void*>(::GetProcAddress(ntdll, "RtlGetVersion")));
  OSVERSIONINFOW info{};
  info.dwOSVersionInfoSize = sizeof info;
  if (get_version == nullptr || get_version(&info) != 0) return "";
  return std::to_string(info.dwMajorVersion) + "." + std::to_string(info.dwMinorVersion) + "." +
         std::to_string(info.dwBuildNumber);
}

}  // namespace

HostInfo observe_host() {
  HostInfo host;
  host.os = "windows";
  wchar_t name[256];
  DWORD size = 256;
  if (::GetComputerNameExW(ComputerNameDnsHostname, name, &size)) host.name = narrow(std::wstring_view(name, size));
  host.kernel = windows_version();
  host.euid = 0;  // no numeric user ids on Windows
  return host;
}

std::int64_t now_epoch_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

struct WholeStandardOutput::Impl {};
WholeStandardOutput::WholeStandardOutput() = default;
WholeStandardOutput::~WholeStandardOutput() = default;

bool stdout_is_terminal() {
  DWORD mode = 0;
  return ::GetConsoleMode(::GetStdHandle(STD_OUTPUT_HANDLE), &mode) != 0;
}

bool stderr_is_terminal() {
  DWORD mode = 0;
  return ::GetConsoleMode(::GetStdHandle(STD_ERROR_HANDLE), &mode) != 0;
}

std::optional<std::size_t> stdout_terminal_columns() {
  CONSOLE_SCREEN_BUFFER_INFO info{};
  if (!stdout_is_terminal() || !::GetConsoleScreenBufferInfo(::GetStdHandle(STD_OUTPUT_HANDLE), &info)) {
    return std::nullopt;
  }
  const int columns = info.srWindow.Right - info.srWindow.Left + 1;
  if (columns <= 0) return std::nullopt;
  return static_cast<std::size_t>(columns);
}

std::optional<std::string> read_config_file(const std::string& path, ObservationError* error) {
  constexpr std::uint64_t kMaxBytes = 16 * 1024 * 1024;
  const std::wstring wide = widen(path);
  UniqueHandle file(::CreateFileW(wide.c_str(), FILE_READ_DATA | FILE_READ_ATTRIBUTES | SYNCHRONIZE,
                                  FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr, OPEN_EXISTING,
                                  FILE_ATTRIBUTE_NORMAL, nullptr));
  if (!file.valid()) {
    if (error) *error = win::make_error(path, "CreateFileW", ::GetLastError());
    return std::nullopt;
  }
  BY_HANDLE_FILE_INFORMATION info{};
  if (!::GetFileInformationByHandle(file.get(), &info)) {
    if (error) *error = win::make_error(path, "GetFileInformationByHandle", ::GetLastError());
    return std::nullopt;
  }
  const InodeFacts facts = win::to_inode_facts(info);
  if (facts.kind != FileKind::regular || ::GetFileType(file.get()) != FILE_TYPE_DISK || facts.size > kMaxBytes) {
    if (error) *error = ObservationError{path, "GetFileInformationByHandle", 0, "not a regular file of at most 16 MiB"};
    return std::nullopt;
  }
  std::string content(static_cast<std::size_t>(facts.size), '\0');
  std::size_t got = 0;
  while (got < content.size()) {
    DWORD n = 0;
    if (!::ReadFile(file.get(), content.data() + got, static_cast<DWORD>(content.size() - got), &n, nullptr)) {
      if (error) *error = win::make_error(path, "ReadFile", ::GetLastError());
      return std::nullopt;
    }
    if (n == 0) break;
    got += n;
  }
  content.resize(got);
  return content;
}

// Windows has no conventional place the packages install a policy to: --policy names one.
std::optional<std::string> default_policy_file() { return std::nullopt; }

bool config_file_absent(const ObservationError& error) {
  const auto code = static_cast<DWORD>(error.code);
  return code == ERROR_FILE_NOT_FOUND || code == ERROR_PATH_NOT_FOUND;
}

}  // namespace hsperfguard::platform
