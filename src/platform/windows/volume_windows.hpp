// The volume a path lives on, as HotSpot's file-system check sees it (GetVolumeInformationW).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "model/facts.hpp"

namespace hsperfguard::platform::win {

// True for "C:\..." and "\\?\C:\..."; false for UNC ("\\server\share", "\\?\UNC\..."),
// device paths ("\\.\...") and anything else without a drive letter. HotSpot refuses to
// create its namespace on a path without one.
bool has_drive_letter(std::wstring_view path);

// File-system name, FS_PERSISTENT_ACLS, FS_VOL_IS_COMPRESSED, network or not, UNC or not.
// Fields that could not be read stay empty; the failure goes into `error`.
VolumeFacts observe_volume(const std::string& path, std::optional<ObservationError>* error);

}  // namespace hsperfguard::platform::win
