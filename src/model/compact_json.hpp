// Compact JSON written straight into a string, byte for byte what dump_json(value, -1) would
// write for the equivalent nlohmann::json value (keys in sorted order, as nlohmann keeps them),
// several times faster: no document is built, and nlohmann's serializer runs a UTF-8 decoder
// over every byte of every string, which at 100,000 records costs more than observing them.
// The reports' per-file and per-item records go through here, and only here: where a
// document of one is needed, it is parsed from this text.
#pragma once

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace hsperfguard {

// True when `text` is printable ASCII without quotes or backslashes: its JSON string is the
// text between two quotes.
inline bool is_plain_json_text(std::string_view text) {
  return std::all_of(text.begin(), text.end(),
                     [](char c) { return c >= 0x20 && c < 0x7f && c != '"' && c != '\\'; });
}

// A JSON string. Printable ASCII without quotes or backslashes is copied as it is; anything
// else goes through dump_json (escapes, and the replacement of bytes that are not UTF-8).
void append_json_string(std::string& out, std::string_view text);

// Any value, compactly.
void append_json(std::string& out, const nlohmann::json& value);

// An object written member by member. The caller writes members in sorted key order, so that
// the text equals dump_json of the same object.
class CompactObject {
 public:
  explicit CompactObject(std::string& out) : out_(out) { out_ += '{'; }
  ~CompactObject() { out_ += '}'; }
  CompactObject(const CompactObject&) = delete;
  CompactObject& operator=(const CompactObject&) = delete;

  // `"k":` after the separator; returns the string to write the value into.
  std::string& key(std::string_view k) {
    member(k, {});
    return out_;
  }
  void string(std::string_view k, std::string_view v) {
    if (is_plain_json_text(v)) {
      member(k, v, true);
    } else {
      append_json_string(key(k), v);
    }
  }
  void null(std::string_view k) { member(k, "null"); }
  void boolean(std::string_view k, bool v) { member(k, v ? "true" : "false"); }
  template <typename Int>
  void number(std::string_view k, Int v) {
    char digits[24];
    member(k, std::string_view(digits,
                               static_cast<std::size_t>(
                                   std::to_chars(digits, digits + sizeof digits, v).ptr - digits)));
  }
  template <typename Int>
  void number(std::string_view k, const std::optional<Int>& v) {
    if (v) {
      number(k, *v);
    } else {
      null(k);
    }
  }
  // An instant as the report writes them (format_utc_millis).
  void time(std::string_view k, std::int64_t epoch_ms);
  void boolean_or_null(std::string_view k, const std::optional<bool>& v) {
    if (v) {
      boolean(k, *v);
    } else {
      null(k);
    }
  }
  void value(std::string_view k, const nlohmann::json& v) { append_json(key(k), v); }
  // The text under `k`, bytes that are not UTF-8 escaped (as the report escapes every string
  // it does not also give in hex): messages, error texts, codes.
  void utf8(std::string_view k, std::string_view text);
  // put_text's pair: the text escaped to UTF-8 under `k`, and its exact bytes in "<k>_hex"
  // when they were not UTF-8. "<k>_hex" sorts right after `k` among the report's keys, so it
  // is written here, at once.
  void text(std::string_view k, std::string_view raw);

 private:
  // `"k":` after the separator, then `value` (already JSON), appended at once: a report of
  // 100,000 records writes millions of members, each four to six appends before.
  // With `quote`, `value` is plain text (is_plain_json_text) written as a JSON string.
  void member(std::string_view k, std::string_view value, bool quote = false) {
    char piece[128];
    if (k.size() + value.size() + 6 > sizeof piece) {
      if (!first_) out_ += ',';
      first_ = false;
      out_ += '"';
      out_ += k;  // member names are fixed ASCII names
      out_ += "\":";
      if (quote) out_ += '"';
      out_ += value;
      if (quote) out_ += '"';
      return;
    }
    char* at = piece;
    if (!first_) *at++ = ',';
    first_ = false;
    *at++ = '"';
    at = std::copy(k.begin(), k.end(), at);
    *at++ = '"';
    *at++ = ':';
    if (quote) *at++ = '"';
    at = std::copy(value.begin(), value.end(), at);
    if (quote) *at++ = '"';
    out_.append(piece, static_cast<std::size_t>(at - piece));
  }

  std::string& out_;
  bool first_ = true;
};

}  // namespace hsperfguard
