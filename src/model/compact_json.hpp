// Compact JSON written straight into a string, byte for byte what dump_json(value, -1) would
// write for the equivalent nlohmann::json value (keys in sorted order, as nlohmann keeps them),
// several times faster: no document is built, and nlohmann's serializer runs a UTF-8 decoder
// over every byte of every string, which at 100,000 records costs more than observing them.
// The reports' per-file and per-item records go through here, and only here: where a
// document of one is needed, it is parsed from this text.
#pragma once

#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace hsperfguard {

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
    if (!first_) out_ += ',';
    first_ = false;
    out_ += '"';
    out_ += k;  // member names are fixed ASCII names
    out_ += "\":";
    return out_;
  }
  void string(std::string_view k, std::string_view v) { append_json_string(key(k), v); }
  void null(std::string_view k) { key(k) += "null"; }
  void boolean(std::string_view k, bool v) { key(k) += v ? "true" : "false"; }
  template <typename Int>
  void number(std::string_view k, Int v) {
    char digits[24];
    key(k).append(digits, std::to_chars(digits, digits + sizeof digits, v).ptr);
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
  std::string& out_;
  bool first_ = true;
};

}  // namespace hsperfguard
