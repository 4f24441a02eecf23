#include "model/shell_word.hpp"

#include <algorithm>
#include <cstdint>

#include "model/text_escape.hpp"

namespace hsperfguard {
namespace {

constexpr char kHex[] = "0123456789abcdef";

// Characters no POSIX shell (bash, zsh, ksh, dash) gives a meaning to inside a word. Left out
// on purpose: `\` (an escape), `=` (zsh's =cmd expansion at a word's start), `~` (tilde
// expansion; zsh's glob exclusion), and every glob, quote, expansion and separator character.
bool posix_plain(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         std::string_view("/._,:@%+-").find(c) != std::string_view::npos;
}

// Whether every character shows as itself on a terminal: valid UTF-8 and no invisible control
// (terminal_safe changes exactly the other texts).
// A backquote is printable but never printed inside a word: the text outputs set commands off
// with backquotes, and a person copies what lies between two of them.
bool printable_text(std::string_view raw) {
  return raw.find('`') == std::string_view::npos && terminal_safe(raw) == raw;
}

// PowerShell's single quotes: ' and the typographic U+2018..U+201B (E2 80 98..9B).
std::size_t powershell_quote_at(std::string_view s, std::size_t i) {
  if (s[i] == '\'') return 1;
  if (i + 2 < s.size() && static_cast<unsigned char>(s[i]) == 0xe2 &&
      static_cast<unsigned char>(s[i + 1]) == 0x80) {
    const auto third = static_cast<unsigned char>(s[i + 2]);
    if (third >= 0x98 && third <= 0x9b) return 3;
  }
  return 0;
}

}  // namespace

std::string posix_shell_word(std::string_view raw) {
  if (raw.empty()) return "''";
  bool plain = true;
  for (char c : raw) plain = plain && posix_plain(c);
  if (plain) return std::string(raw);
  std::string out;
  out.reserve(raw.size() + 8);
  if (printable_text(raw)) {
    out += '\'';
    for (char c : raw) {
      if (c == '\'') {
        out += "'\\''";
      } else {
        out += c;
      }
    }
    out += '\'';
    return out;
  }
  // ANSI-C quoting: every byte outside printable ASCII as \xHH (at most two hex digits are
  // read, so the next character is never taken into the escape), a quote and a backslash
  // escaped. The word's bytes are exact whatever the shell's locale.
  out += "$'";
  for (char c : raw) {
    const auto b = static_cast<unsigned char>(c);
    if (c == '\'' || c == '\\') {
      out += '\\';
      out += c;
    } else if (b < 0x20 || b >= 0x7f || c == '`') {
      append_x_escape(out, b);
    } else {
      out += c;
    }
  }
  out += '\'';
  return out;
}

std::string powershell_word(std::string_view raw) {
  if (raw.empty()) return "''";
  // A control character has no literal form in PowerShell's single quotes: the word is then a
  // parenthesised expression that concatenates quoted parts and [char] code points, which
  // PowerShell takes as one argument.
  std::string quoted = "'";
  std::string expression;
  bool needs_expression = false;
  auto close_part = [&] {
    if (quoted.size() > 1) expression += (expression.empty() ? "" : "+") + quoted + "'";
    quoted = "'";
  };
  for (std::size_t i = 0; i < raw.size();) {
    if (const std::size_t q = powershell_quote_at(raw, i); q > 0) {
      quoted.append(raw.substr(i, q)).append(raw.substr(i, q));
      i += q;
      continue;
    }
    std::size_t length = 0;
    std::uint32_t c = utf8_code_point_at(raw, i, length);
    const bool literal = length > 0 && !is_invisible_control(c) && c != '`';
    if (length == 0) {
      // Not UTF-8. An unpaired surrogate of a Windows name comes as its three WTF-8 bytes
      // (ED A0..BF 80..BF) and is that UTF-16 unit again; any other byte, which no Windows
      // name holds, becomes the code point of its value.
      const auto at = [&](std::size_t k) { return static_cast<unsigned char>(raw[i + k]); };
      if (i + 2 < raw.size() && at(0) == 0xed && at(1) >= 0xa0 && at(1) <= 0xbf && at(2) >= 0x80 &&
          at(2) <= 0xbf) {
        c = 0xd000u | ((at(1) & 0x3fu) << 6) | (at(2) & 0x3fu);
        length = 3;
      } else {
        c = at(0);
        length = 1;
      }
    }
    if (!literal) {
      needs_expression = true;
      close_part();
      expression += expression.empty() ? "" : "+";
      if (c > 0xffff) {  // above the BMP: two UTF-16 units
        expression += "[char]::ConvertFromUtf32(0x";
        for (int shift = 20; shift >= 0; shift -= 4) expression += kHex[(c >> shift) & 0xf];
        expression += ")";
      } else {
        expression += "[char]0x";
        for (int shift = 12; shift >= 0; shift -= 4) expression += kHex[(c >> shift) & 0xf];
      }
    } else {
      quoted.append(raw.substr(i, length));
    }
    i += length;
  }
  if (!needs_expression) return quoted + "'";
  close_part();
  return "(" + expression + ")";
}

std::string shell_word(std::string_view raw) {
#ifdef _WIN32
  return powershell_word(raw);
#else
  return posix_shell_word(raw);
#endif
}

std::string shell_option(std::string_view option, std::string_view value) {
  std::string out(option);
  out += value.starts_with('-') ? "=" : " ";
  out += shell_word(value);
  return out;
}

std::string as_user_prefix(std::uint32_t uid, std::uint32_t gid) {
  return "setpriv --reuid=" + std::to_string(uid) + " --regid=" + std::to_string(gid) + " --clear-groups -- ";
}

std::string tmpfiles_path_field(std::string_view raw) {
  // '%' starts a specifier (%h, %t, ...) in every field, quoted or not: "%%" is one '%'.
  std::string path;
  for (const char c : raw) {
    path += c;
    if (c == '%') path += '%';
  }
  const bool plain = !path.empty() && std::none_of(path.begin(), path.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u <= 0x20 || u == 0x7f || c == '"' || c == '\'' || c == '\\';
  });
  if (plain) return path;
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "\"";
  for (const char c : path) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20 || u == 0x7f) {
      out += "\\x";
      out += kHex[u >> 4];
      out += kHex[u & 0xf];
    } else {
      out += c;
    }
  }
  out += '"';
  return out;
}

}  // namespace hsperfguard
