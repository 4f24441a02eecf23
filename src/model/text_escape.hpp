// Names on disk are bytes; reports are UTF-8. These keep every byte visible.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace hsperfguard {

bool is_valid_utf8(std::string_view bytes);

// Valid UTF-8 is returned unchanged. Otherwise each byte that is not part of a valid
// sequence becomes "\xNN" and each backslash "\\", so the result is unambiguous.
std::string escape_non_utf8(std::string_view bytes);

// The one escaping rule of every output. The characters that could change what a terminal or a
// line-oriented reader shows besides themselves: C0 controls (newline and carriage return
// included) and DEL, C1 controls (U+0080..U+009F: a terminal may read U+009B as CSI, and U+0085
// is a line break to Python's splitlines), the line and paragraph separators U+2028 and U+2029
// (line breaks to JavaScript and splitlines), the Unicode bidirectional controls (which
// reorder the text around them), and the characters a terminal shows as nothing or as what is
// not there (Default_Ignorable_Code_Point: zero-width spaces and joiners, soft hyphen, Hangul
// fillers, variation selectors, BOM, tags; and format characters such as U+FFF9..U+FFFB):
// "hsperfdata_root" followed by U+200B would read as root's own namespace.
bool is_invisible_control(std::uint32_t code_point);

// For a terminal, a text log or a metrics label: escape_non_utf8, and every invisible control
// written as an escape: \xNN below U+0080, \uXXXX above, \U00XXXXXX above U+FFFF. A name can then neither forge a
// line, move the cursor, erase text, set the window title nor hide what follows it. Every
// text output of a name or value from the file system or a process goes through here.
std::string terminal_safe(std::string_view raw);

// terminal_safe made one-to-one, for a text that must tell every name apart (a metrics label:
// two namespaces whose labels were equal made one series, and the file's other sample was
// dropped): a backslash of the name is written "\\", so that no escape can stand for both a
// byte and the characters that spell its escape ("\x0a" and a newline).
std::string unambiguous_text(std::string_view raw);

// For JSON text already serialised (valid UTF-8; the serialiser escaped C0 controls): every
// invisible control it left raw is rewritten as its \uXXXX escape, from byte `from` on. Such
// a character can only be inside a string, so the document means the same, and a reader that
// splits lines at U+2028, U+2029 or U+0085 sees one record per line.
void escape_json_invisibles(std::string& json_text, std::size_t from = 0);

// The code point of the valid UTF-8 sequence at byte `i` of `s`, and its length in `length`;
// 0 with `length` 0 where no valid sequence starts there (RFC 3629).
std::uint32_t utf8_code_point_at(std::string_view s, std::size_t i, std::size_t& length);

// Every line of `text` (terminal_safe text) that would take more than `columns` columns of a
// terminal, cut to `columns - 1` columns and ended with '>': on a terminal no line wraps, so
// no name or argument long enough to wrap can put text at the start of a line of its own (a
// forged row of a table, a header, a fix). Columns are counted high: two for an East Asian
// wide character, one for anything else (a combining mark too).
std::string fit_to_columns(std::string_view text, std::size_t columns);

// Appends "\xNN", the escape of byte `b` (lowercase hex) every escaping here writes.
void append_x_escape(std::string& out, std::uint8_t b);

// Lowercase hex of every byte.
std::string to_hex(std::string_view bytes);

}  // namespace hsperfguard
