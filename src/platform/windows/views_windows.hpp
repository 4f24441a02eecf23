// What another process has loaded and mapped, on Windows: its modules (a module walk, for
// jvm.dll) and its mapped views (VirtualQueryEx over its address space, GetMappedFileNameW for
// each view of a file). Windows has no /proc/PID/maps; this answers the same questions (does
// this process map this backing file? is it a JVM? does it map a backing file whose name is
// gone?). Observes, never judges.
#pragma once

#include <windows.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/facts.hpp"

namespace hsperfguard::platform::win {

// Whether `process` (opened with PROCESS_QUERY_INFORMATION | PROCESS_VM_READ) has a module
// whose file name is `base_name` (case-insensitive, "jvm.dll"); nullopt when its module list
// could not be read (error set).
std::optional<bool> has_module(HANDLE process, std::wstring_view base_name,
                               ObservationError* error);

// One mapped view of a file: its name as the kernel gives it ("\Device\HarddiskVolume3\...",
// or "\??\C:\..." under wine), and the view's base address.
struct MappedView {
  std::wstring nt_name;
  std::uintptr_t base = 0;
};
// Every view of a file (MEM_MAPPED, committed) in `process`, one per distinct name, in address
// order; nullopt when the address space could not be walked (error set).
std::optional<std::vector<MappedView>> mapped_views(HANDLE process, ObservationError* error);

// A kernel name as a path CreateFileW opens: "\??\C:\x" -> "\\?\C:\x", "\Device\..." ->
// "\\?\GLOBALROOT\Device\...". Anything else is returned as is.
std::wstring openable_path(std::wstring_view nt_name);
// A kernel name as people write it: "\??\C:\x" -> "C:\x"; "\Device\HarddiskVolume3\x" ->
// "C:\x" when a drive letter names that device (QueryDosDeviceW); otherwise unchanged.
std::wstring display_path(std::wstring_view nt_name);

// Identity (volume serial, file index) of what `openable` names, opened without following a
// reparse point and without asking for data access. nullopt with `gone` set when nothing has
// that name any more; nullopt with `gone` unset when it could not be opened.
struct FileIdentity {
  std::uint64_t dev = 0;
  std::uint64_t ino = 0;
};
std::optional<FileIdentity> identity_of(const std::wstring& openable, bool* gone);

// Whether the last two components of `nt_name` are "hsperfdata_<user>" and a name (a backing
// file of some namespace), and if so the user.
std::optional<std::string> backing_file_user(std::wstring_view nt_name);

}  // namespace hsperfguard::platform::win
