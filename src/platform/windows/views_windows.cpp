#include "platform/windows/views_windows.hpp"

#include <psapi.h>

#include "platform/windows/win_util.hpp"

namespace hsperfguard::platform::win {
namespace {

std::wstring_view last_component(std::wstring_view path) {
  const auto slash = path.find_last_of(L"\\/");
  return slash == std::wstring_view::npos ? path : path.substr(slash + 1);
}

}  // namespace

std::optional<bool> has_module(HANDLE process, std::wstring_view base_name,
                               ObservationError* error) {
  std::vector<HMODULE> modules(256);
  for (int attempt = 0; attempt < 4; ++attempt) {
    DWORD needed = 0;
    const auto bytes = static_cast<DWORD>(modules.size() * sizeof(HMODULE));
    if (!::EnumProcessModulesEx(process, modules.data(), bytes, &needed, LIST_MODULES_ALL)) {
      if (error != nullptr)
        *error = make_error("process", "EnumProcessModulesEx", ::GetLastError());
      return std::nullopt;
    }
    if (needed > bytes) {  // more modules than room: again, with room for them
      modules.resize(needed / sizeof(HMODULE) + 16);
      continue;
    }
    for (std::size_t i = 0; i < needed / sizeof(HMODULE); ++i) {
      wchar_t name[MAX_PATH];
      const DWORD length = ::GetModuleBaseNameW(process, modules[i], name, MAX_PATH);
      if (length > 0 && equal_ignoring_case(std::wstring_view(name, length), base_name))
        return true;
    }
    return false;
  }
  if (error != nullptr)
    *error = ObservationError{"process", "EnumProcessModulesEx", 0, "its module list kept growing"};
  return std::nullopt;
}

std::optional<std::vector<MappedView>> mapped_views(HANDLE process, ObservationError* error) {
  std::vector<MappedView> views;
  MEMORY_BASIC_INFORMATION region{};
  std::uintptr_t address = 0;
  std::wstring previous;
  while (::VirtualQueryEx(process, reinterpret_cast<LPCVOID>(address), &region, sizeof region) ==
         sizeof region) {
    const auto base = reinterpret_cast<std::uintptr_t>(region.BaseAddress);
    if (region.State == MEM_COMMIT && region.Type == MEM_MAPPED) {
      std::wstring name(1024, L'\0');
      DWORD length = ::GetMappedFileNameW(process, region.BaseAddress, name.data(),
                                          static_cast<DWORD>(name.size()));
      if (length > 0) {
        name.resize(length);
        // A view spans several regions when its pages differ in protection: one entry.
        if (name != previous) views.push_back(MappedView{name, base});
        previous = std::move(name);
      }
      // length 0: a view of the paging file (an anonymous section), which names no file.
    }
    const std::uintptr_t next = base + region.RegionSize;
    if (next <= address) break;  // wrapped around: the end of the address space
    address = next;
  }
  const DWORD last = ::GetLastError();
  // The walk ends with ERROR_INVALID_PARAMETER past the highest address; anything else at
  // the very start means the address space could not be read at all.
  if (address == 0 && last != ERROR_INVALID_PARAMETER) {
    if (error != nullptr) *error = make_error("process", "VirtualQueryEx", last);
    return std::nullopt;
  }
  return views;
}

std::wstring openable_path(std::wstring_view nt_name) {
  if (nt_name.starts_with(L"\\??\\")) return L"\\\\?\\" + std::wstring(nt_name.substr(4));
  if (nt_name.starts_with(L"\\Device\\")) return L"\\\\?\\GLOBALROOT" + std::wstring(nt_name);
  return std::wstring(nt_name);
}

std::wstring display_path(std::wstring_view nt_name) {
  if (nt_name.starts_with(L"\\??\\")) return std::wstring(nt_name.substr(4));
  if (!nt_name.starts_with(L"\\Device\\")) return std::wstring(nt_name);
  wchar_t drive[] = L"A:";
  for (wchar_t letter = L'A'; letter <= L'Z'; ++letter) {
    drive[0] = letter;
    wchar_t device[MAX_PATH];
    if (::QueryDosDeviceW(drive, device, MAX_PATH) == 0) continue;
    const std::wstring_view prefix(device);
    if (nt_name.size() > prefix.size() && nt_name[prefix.size()] == L'\\' &&
        equal_ignoring_case(nt_name.substr(0, prefix.size()), prefix)) {
      return std::wstring(drive) + std::wstring(nt_name.substr(prefix.size()));
    }
  }
  return std::wstring(nt_name);
}

std::optional<FileIdentity> identity_of(const std::wstring& openable, bool* gone) {
  if (gone != nullptr) *gone = false;
  const UniqueHandle handle(
      ::CreateFileW(openable.c_str(), FILE_READ_ATTRIBUTES,
                    FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr, OPEN_EXISTING,
                    FILE_FLAG_OPEN_REPARSE_POINT | FILE_FLAG_BACKUP_SEMANTICS, nullptr));
  if (!handle.valid()) {
    const DWORD code = ::GetLastError();
    // A name being deleted (a view keeps the file; its name is pending deletion) is gone too.
    if (gone != nullptr) {
      *gone = code == ERROR_FILE_NOT_FOUND || code == ERROR_PATH_NOT_FOUND ||
              code == ERROR_DELETE_PENDING;
    }
    return std::nullopt;
  }
  BY_HANDLE_FILE_INFORMATION info{};
  if (!::GetFileInformationByHandle(handle.get(), &info)) return std::nullopt;
  const InodeFacts facts = to_inode_facts(info);
  return FileIdentity{facts.dev, facts.ino};
}

std::optional<std::string> backing_file_user(std::wstring_view nt_name) {
  const auto slash = nt_name.find_last_of(L"\\/");
  if (slash == std::wstring_view::npos || slash + 1 == nt_name.size()) return std::nullopt;
  const std::wstring_view dir = last_component(nt_name.substr(0, slash));
  if (!is_namespace_name(dir) || dir.size() == kNamespacePrefix.size()) return std::nullopt;
  return narrow(dir.substr(kNamespacePrefix.size()));
}

}  // namespace hsperfguard::platform::win
