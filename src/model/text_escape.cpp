#include "model/text_escape.hpp"

#include <algorithm>
#include <cstdint>
#include <utility>

namespace hsperfguard {
namespace {

// Length of the valid UTF-8 sequence starting at `i`, or 0 (RFC 3629: no overlongs,
// no surrogates, nothing above U+10FFFF).
std::size_t utf8_sequence(std::string_view s, std::size_t i) {
  const auto b0 = static_cast<std::uint8_t>(s[i]);
  if (b0 < 0x80) return 1;
  std::size_t n = 0;
  std::uint8_t lo = 0x80, hi = 0xbf;
  if (b0 >= 0xc2 && b0 <= 0xdf) {
    n = 2;
  } else if (b0 >= 0xe0 && b0 <= 0xef) {
    n = 3;
    if (b0 == 0xe0) lo = 0xa0;
    if (b0 == 0xed) hi = 0x9f;
  } else if (b0 >= 0xf0 && b0 <= 0xf4) {
    n = 4;
    if (b0 == 0xf0) lo = 0x90;
    if (b0 == 0xf4) hi = 0x8f;
  } else {
    return 0;
  }
  if (s.size() - i < n) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    const auto b = static_cast<std::uint8_t>(s[i + k]);
    const std::uint8_t l = k == 1 ? lo : 0x80, h = k == 1 ? hi : 0xbf;
    if (b < l || b > h) return 0;
  }
  return n;
}

constexpr char kHex[] = "0123456789abcdef";

}  // namespace

void append_x_escape(std::string& out, std::uint8_t b) {
  out += "\\x";
  out += kHex[b >> 4];
  out += kHex[b & 0xf];
}

bool is_valid_utf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    if (static_cast<std::uint8_t>(s[i]) < 0x80) {  // ASCII, the usual case: one byte
      ++i;
      continue;
    }
    const std::size_t n = utf8_sequence(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string escape_non_utf8(std::string_view s) {
  if (is_valid_utf8(s)) return std::string(s);
  std::string out;
  out.reserve(s.size() + 8);
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = utf8_sequence(s, i);
    if (n == 0) {
      append_x_escape(out, static_cast<std::uint8_t>(s[i]));
      ++i;
    } else if (s[i] == '\\') {
      out += "\\\\";
      ++i;
    } else {
      out.append(s.substr(i, n));
      i += n;
    }
  }
  return out;
}

namespace {

// The code point of a valid UTF-8 sequence of `n` bytes at `s`.
std::uint32_t code_point(const char* s, std::size_t n) {
  const auto b = [&](std::size_t i) { return static_cast<std::uint32_t>(static_cast<std::uint8_t>(s[i])); };
  switch (n) {
    case 1: return b(0);
    case 2: return ((b(0) & 0x1f) << 6) | (b(1) & 0x3f);
    case 3: return ((b(0) & 0x0f) << 12) | ((b(1) & 0x3f) << 6) | (b(2) & 0x3f);
    default: return ((b(0) & 0x07) << 18) | ((b(1) & 0x3f) << 12) | ((b(2) & 0x3f) << 6) | (b(3) & 0x3f);
  }
}

// \uXXXX, or \U00XXXXXX above the BMP (a terminal text: one escape per code point).
void append_u_escape(std::string& out, std::uint32_t c) {
  if (c > 0xffff) {
    out += "\\U";
    for (int shift = 28; shift >= 0; shift -= 4) out += kHex[(c >> shift) & 0xf];
    return;
  }
  out += "\\u";
  for (int shift = 12; shift >= 0; shift -= 4) out += kHex[(c >> shift) & 0xf];
}

// JSON's form: \uXXXX, a surrogate pair above the BMP.
void append_json_u_escape(std::string& out, std::uint32_t c) {
  if (c <= 0xffff) return append_u_escape(out, c);
  const std::uint32_t v = c - 0x10000;
  append_u_escape(out, 0xd800 + (v >> 10));
  append_u_escape(out, 0xdc00 + (v & 0x3ff));
}

}  // namespace

bool is_invisible_control(std::uint32_t c) {
  if (c < 0x20 || c == 0x7f || (c >= 0x80 && c <= 0x9f)) return true;  // C0, DEL, C1 (NEL included)
  if (c < 0xad) return false;  // the usual case: printable ASCII and Latin-1
  // Line and paragraph separators, bidi controls, and every other character a terminal shows
  // as nothing (Unicode's Default_Ignorable_Code_Point: zero-width spaces and joiners, word
  // joiner, soft hyphen, fillers, variation selectors, BOM, tags) or as something that is not
  // there (format characters: Arabic number signs, interlinear annotation).
  struct Range {
    std::uint32_t first, last;
  };
  static constexpr Range kInvisible[] = {
      {0x00ad, 0x00ad},   {0x034f, 0x034f},   {0x0600, 0x0605},   {0x061c, 0x061c},
      {0x06dd, 0x06dd},   {0x070f, 0x070f},   {0x08e2, 0x08e2},   {0x115f, 0x1160},
      {0x17b4, 0x17b5},   {0x180b, 0x180f},   {0x200b, 0x200f},   {0x2028, 0x202e},
      {0x2060, 0x206f},   {0x3164, 0x3164},   {0xfe00, 0xfe0f},   {0xfeff, 0xfeff},
      {0xffa0, 0xffa0},   {0xfff0, 0xfffb},   {0x110bd, 0x110bd}, {0x110cd, 0x110cd},
      {0x1bca0, 0x1bca3}, {0x1d173, 0x1d17a}, {0xe0000, 0xe0fff},
  };
  for (const Range& r : kInvisible) {
    if (c < r.first) return false;
    if (c <= r.last) return true;
  }
  return false;
}

void escape_json_invisibles(std::string& text, std::size_t from) {
  // Every invisible control above U+007F is at least two bytes long, so it starts with a lead
  // byte of 0xC2 or above, which never occurs inside another sequence.
  const auto lead = [](char c) { return static_cast<std::uint8_t>(c) >= 0xc2; };
  std::size_t i = from;
  while (i < text.size() && !lead(text[i])) ++i;
  if (i == text.size()) return;  // the usual case: nothing to rewrite, nothing copied
  std::string out(text, 0, i);
  while (i < text.size()) {
    const std::size_t n = std::max<std::size_t>(1, utf8_sequence(text, i));
    const std::uint32_t c = code_point(text.data() + i, n);
    if (n > 1 && is_invisible_control(c)) {
      append_json_u_escape(out, c);
    } else {
      out.append(text, i, n);
    }
    i += n;
  }
  text = std::move(out);
}

namespace {

// The code point `c`, the `n` bytes of `text` at `i`, as it is when it shows as itself, else as
// its escape: \xNN below U+0080, \uXXXX above (\U00XXXXXX above the BMP).
void append_visible(std::string& out, std::string_view text, std::size_t i, std::size_t n, std::uint32_t c) {
  if (!is_invisible_control(c)) {
    out.append(text, i, n);
  } else if (c < 0x80) {
    append_x_escape(out, static_cast<std::uint8_t>(c));
  } else {
    append_u_escape(out, c);
  }
}

}  // namespace

std::string terminal_safe(std::string_view raw) {
  const std::string text = escape_non_utf8(raw);  // ASCII and valid UTF-8 only from here on
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = std::max<std::size_t>(1, utf8_sequence(text, i));
    append_visible(out, text, i, n, code_point(text.data() + i, n));
    i += n;
  }
  return out;
}

std::string unambiguous_text(std::string_view raw) {
  std::string out;
  out.reserve(raw.size());
  for (std::size_t i = 0; i < raw.size();) {
    const std::size_t n = utf8_sequence(raw, i);
    if (n == 0) {  // not UTF-8: the byte's escape
      append_x_escape(out, static_cast<std::uint8_t>(raw[i]));
      ++i;
    } else if (raw[i] == '\\') {
      out += "\\\\";
      ++i;
    } else {
      append_visible(out, raw, i, n, code_point(raw.data() + i, n));
      i += n;
    }
  }
  return out;
}

std::string to_hex(std::string_view s) {
  std::string out;
  out.reserve(s.size() * 2);
  for (char c : s) {
    const auto b = static_cast<std::uint8_t>(c);
    out += kHex[b >> 4];
    out += kHex[b & 0xf];
  }
  return out;
}

std::uint32_t utf8_code_point_at(std::string_view s, std::size_t i, std::size_t& length) {
  length = i < s.size() ? utf8_sequence(s, i) : 0;
  return length == 0 ? 0 : code_point(s.data() + i, length);
}

namespace {

// Terminal columns of code point `c`, counted high (wcwidth's wide ranges take two).
std::size_t columns_of(std::uint32_t c) {
  const bool wide = (c >= 0x1100 && c <= 0x115f) || (c >= 0x2e80 && c <= 0xa4cf) ||
                    (c >= 0xac00 && c <= 0xd7a3) || (c >= 0xf900 && c <= 0xfaff) ||
                    (c >= 0xfe30 && c <= 0xfe4f) || (c >= 0xff00 && c <= 0xff60) ||
                    (c >= 0xffe0 && c <= 0xffe6) || (c >= 0x1f300 && c <= 0x1faff) ||
                    (c >= 0x20000 && c <= 0x3fffd);
  return wide ? 2 : 1;
}

}  // namespace

std::string fit_to_columns(std::string_view text, std::size_t columns) {
  if (columns < 2) return std::string(text);
  std::string out;
  out.reserve(text.size());
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    const std::string_view line = text.substr(0, end);
    std::size_t used = 0, i = 0, cut = std::string_view::npos;
    while (i < line.size()) {
      const std::size_t n = std::max<std::size_t>(1, utf8_sequence(line, i));
      const std::size_t w = columns_of(code_point(line.data() + i, n));
      if (cut == std::string_view::npos && used + w > columns - 1) cut = i;  // where '>' would go
      used += w;
      if (used > columns) break;
      i += n;
    }
    if (used > columns) {
      out.append(line.substr(0, cut)).append(">");
    } else {
      out.append(line);
    }
    if (end == std::string_view::npos) break;
    out += '\n';
    text.remove_prefix(end + 1);
  }
  return out;
}

}  // namespace hsperfguard
