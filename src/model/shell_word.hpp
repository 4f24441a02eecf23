// What the tool prints for a person to run is code: every name from the file system or a user
// database in such a command (a remedy, a hint, a `next` line, a reap's "left to a person") is
// one shell word that means exactly its bytes. This is the one place that makes those words.
//
// POSIX (bash, zsh, ksh; a root shell): a word of plain characters as it is; a word of printable
// text in single quotes (a quote written '\''); a word holding a control character, an
// invisible Unicode control (bidi, line separators) or a byte that is not UTF-8 as $'...' with
// each such byte \xHH, so that the printed line holds no raw control and the word still means
// its exact bytes. A word never goes into double quotes, where $(...) and backticks expand.
// dash has no $'...': there such a word reads as a relative path under the current directory
// beginning with "$", which names nothing of the file system's (docs/security.md).
//
// Windows (PowerShell, the prompt its docs name): single quotes, a quote doubled; PowerShell also
// reads U+2018..U+201B as single quotes, so those are doubled too. cmd.exe expands %VAR% inside
// double quotes and has no literal quoting at all: the remedies name PowerShell.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace hsperfguard {

// A word for a POSIX shell (see above).
std::string posix_shell_word(std::string_view raw);

// A word for PowerShell (see above). Windows names are UTF-16 turned into WTF-8: an unpaired
// surrogate is written as [char]0xD8xx, the UTF-16 unit it was.
std::string powershell_word(std::string_view raw);

// The word for the shell of the platform this binary is built for: PowerShell in the Windows
// build, a POSIX shell everywhere else. Every command printed for a person goes through here.
std::string shell_word(std::string_view raw);

// An option and its value as the words of a command line: "--tmpdir WORD", or "--tmpdir=WORD"
// when the value begins with '-' (which a parser would take for another option).
std::string shell_option(std::string_view option, std::string_view value);

// A path as a tmpfiles.d(5) path field, for a line the tool tells a person to write: as it is
// when it holds nothing systemd-tmpfiles would split at or unescape, otherwise in double
// quotes with '"' and '\' escaped and control bytes (below 0x20, 0x7f) as \xHH, which
// tmpfiles reads back as exactly those bytes; a '%' (a specifier's start) is written "%%".
std::string tmpfiles_path_field(std::string_view path);

// What makes a command a person runs act with a user's rights alone (util-linux setpriv):
// "setpriv --reuid=UID --regid=GID --clear-groups -- ". A command on a path inside a
// directory that user controls is given this prefix, so that whatever she puts at that path
// between the report and the command, the command can do no more than she could herself.
std::string as_user_prefix(std::uint32_t uid, std::uint32_t gid);

}  // namespace hsperfguard
