// Names on disk are bytes; reports are UTF-8. These keep every byte visible.
#pragma once

#include <string>
#include <string_view>

namespace hsperfguard {

bool is_valid_utf8(std::string_view bytes);

// Valid UTF-8 is returned unchanged. Otherwise each byte that is not part of a valid
// sequence becomes "\xNN" and each backslash "\\", so the result is unambiguous.
std::string escape_non_utf8(std::string_view bytes);

// Lowercase hex of every byte.
std::string to_hex(std::string_view bytes);

}  // namespace hsperfguard
