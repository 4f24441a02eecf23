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

bool stdout_is_terminal() {
  DWORD mode = 0;
  return ::GetConsoleMode(::GetStdHandle(STD_OUTPUT_HANDLE), &mode) != 0;
}

std::optional<ObservationError> write_file_atomically(const std::string& path, const std::string& content,
                                                      std::uint32_t mode) {
  return write_file_atomically_streamed(
      path, [&](const ContentSink& write) { write(content); }, mode);
}

std::optional<ObservationError> write_file_atomically_streamed(
    const std::string& path, const std::function<void(const ContentSink&)>& produce, std::uint32_t mode) {
  const auto separator = path.find_last_of("\\/");
  const std::string dir = separator == std::string::npos ? "" : path.substr(0, separator + 1);
  const std::string base = separator == std::string::npos ? path : path.substr(separator + 1);
  // The report's DACL, from the POSIX mode: the owner (OWNER RIGHTS), SYSTEM and
  // Administrators always; Everyone may read only when the mode lets others read.
  std::wstring sddl = L"D:P(A;;FA;;;OW)(A;;FA;;;SY)(A;;FA;;;BA)";
  if ((mode & 0004) != 0) sddl += L"(A;;FR;;;WD)";
  win::LocalPtr<PSECURITY_DESCRIPTOR> descriptor;
  if (!::ConvertStringSecurityDescriptorToSecurityDescriptorW(sddl.c_str(), SDDL_REVISION_1, descriptor.out(),
                                                              nullptr)) {
    return win::make_error(path, "ConvertStringSecurityDescriptorToSecurityDescriptorW", ::GetLastError());
  }
  SECURITY_ATTRIBUTES attributes{sizeof(SECURITY_ATTRIBUTES), descriptor.get(), FALSE};
  // A hidden temp name beside the target, created exclusively (CREATE_NEW never opens an
  // existing entry, link or not), shared with nobody until it is renamed into place.
  std::wstring temp;
  UniqueHandle file;
  for (int attempt = 0; attempt < 100 && !file.valid(); ++attempt) {
    temp = widen(dir + "." + base + ".tmp." + std::to_string(::GetCurrentProcessId()) + "." +
                 std::to_string(attempt));
    file.reset(::CreateFileW(temp.c_str(), GENERIC_WRITE | DELETE, 0, &attributes, CREATE_NEW,
                             FILE_ATTRIBUTE_NORMAL, nullptr));
    if (!file.valid() && ::GetLastError() != ERROR_FILE_EXISTS) {
      return win::make_error(narrow(temp), "CreateFileW", ::GetLastError());
    }
  }
  if (!file.valid()) return win::make_error(narrow(temp), "CreateFileW", ERROR_FILE_EXISTS);
  DWORD error = ERROR_SUCCESS;
  const char* failed_op = "WriteFile";
  produce([&](std::string_view piece) {
    while (error == ERROR_SUCCESS && !piece.empty()) {
      DWORD written = 0;
      const auto chunk = static_cast<DWORD>(std::min<std::size_t>(piece.size(), 1u << 20));
      if (!::WriteFile(file.get(), piece.data(), chunk, &written, nullptr)) {
        error = ::GetLastError();
      } else if (written == 0) {
        error = ERROR_WRITE_FAULT;
      } else {
        piece.remove_prefix(written);
      }
    }
  });
  if (error == ERROR_SUCCESS && !::FlushFileBuffers(file.get())) {
    error = ::GetLastError();
    failed_op = "FlushFileBuffers";
  }
  if (error != ERROR_SUCCESS) {
    file.reset();
    ::DeleteFileW(temp.c_str());
    return win::make_error(path, failed_op, error);
  }
  file.reset();
  const std::wstring target = widen(path);
  if (!::MoveFileExW(temp.c_str(), target.c_str(), MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH)) {
    error = ::GetLastError();
    ::DeleteFileW(temp.c_str());
    return win::make_error(path, "MoveFileExW", error);
  }
  return std::nullopt;
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

}  // namespace hsperfguard::platform
