// Names on disk are bytes; reports are UTF-8. These keep every byte visible.
#pragma once

#include <string>
#include <string_view>

namespace hsperfguard {

bool is_valid_utf8(std::string_view bytes);

// Valid UTF-8 is returned unchanged. Otherwise each byte that is not part of a valid
// sequence becomes "\xNN" and each backslash "\\", so the result is unambiguous.
std::string escape_non_utf8(std::string_view bytes);

// For a terminal or a text log: escape_non_utf8, and every character that could change what a
// terminal shows besides itself written as an escape: C0 controls (newline and carriage
// return included) and DEL as \xNN, C1 controls (U+0080..U+009F: a terminal may read U+009B as
// CSI) and the Unicode bidirectional controls (which reorder the text around them) as \uXXXX.
// A name can then neither forge a line, move the cursor, erase text, set the window title nor
// hide what follows it. Every text output of a name or value from the file system or a
// process goes through here.
std::string terminal_safe(std::string_view raw);

// Lowercase hex of every byte.
std::string to_hex(std::string_view bytes);

}  // namespace hsperfguard
