#include "platform/windows/volume_windows.hpp"

#include <windows.h>

#include <cwctype>
#include <vector>

#include "platform/windows/win_util.hpp"

namespace hsperfguard::platform::win {

bool has_drive_letter(std::wstring_view path) {
  if (path.starts_with(L"\\\\?\\") || path.starts_with(L"\\??\\")) {
    path.remove_prefix(4);
  } else if (path.starts_with(L"\\\\") || path.starts_with(L"//")) {
    return false;  // UNC or a device path
  }
  return path.size() >= 2 && path[1] == L':' && std::iswalpha(path[0]) != 0;
}

VolumeFacts observe_volume(const std::string& path, std::optional<ObservationError>* error) {
  VolumeFacts volume;
  const std::wstring wide = widen(path);
  volume.unc_path = !has_drive_letter(wide);

  // The root of the volume that holds `path` (a drive, a mounted folder or a share).
  std::vector<wchar_t> root(wide.size() + MAX_PATH + 1);
  if (!::GetVolumePathNameW(wide.c_str(), root.data(), static_cast<DWORD>(root.size()))) {
    if (error != nullptr) *error = make_error(path, "GetVolumePathNameW", ::GetLastError());
    volume.network = volume.unc_path;
    return volume;
  }
  const UINT drive_type = ::GetDriveTypeW(root.data());
  volume.network = volume.unc_path || drive_type == DRIVE_REMOTE;

  wchar_t fs_name[MAX_PATH + 1] = {};
  DWORD serial = 0;
  DWORD max_component = 0;
  DWORD flags = 0;
  if (!::GetVolumeInformationW(root.data(), nullptr, 0, &serial, &max_component, &flags, fs_name,
                               MAX_PATH + 1)) {
    if (error != nullptr) *error = make_error(narrow(root.data()), "GetVolumeInformationW", ::GetLastError());
    return volume;
  }
  volume.fs_type = narrow(fs_name);
  volume.acl_support = (flags & FS_PERSISTENT_ACLS) != 0;
  volume.compressed = (flags & FS_VOL_IS_COMPRESSED) != 0;
  return volume;
}

}  // namespace hsperfguard::platform::win
