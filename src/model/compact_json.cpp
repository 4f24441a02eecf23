#include "model/compact_json.hpp"

#include <algorithm>

#include "model/json_text.hpp"
#include "model/text_escape.hpp"

namespace hsperfguard {

using nlohmann::json;

void append_json_string(std::string& out, std::string_view text) {
  if (!is_plain_json_text(text)) {
    out += dump_json(json(std::string(text)), -1);
    return;
  }
  out += '"';
  out += text;
  out += '"';
}

void append_json(std::string& out, const json& value) {
  switch (value.type()) {
    case json::value_t::object: {
      out += '{';
      bool first = true;
      for (auto it = value.begin(); it != value.end(); ++it) {
        if (!first) out += ',';
        first = false;
        append_json_string(out, it.key());
        out += ':';
        append_json(out, it.value());
      }
      out += '}';
      return;
    }
    case json::value_t::array: {
      out += '[';
      bool first = true;
      for (const auto& element : value) {
        if (!first) out += ',';
        first = false;
        append_json(out, element);
      }
      out += ']';
      return;
    }
    case json::value_t::string:
      append_json_string(out, value.get_ref<const std::string&>());
      return;
    case json::value_t::number_integer:
    case json::value_t::number_unsigned: {
      char digits[24];
      const auto end = value.is_number_unsigned()
                           ? std::to_chars(digits, digits + sizeof digits, value.get<std::uint64_t>()).ptr
                           : std::to_chars(digits, digits + sizeof digits, value.get<std::int64_t>()).ptr;
      out.append(digits, end);
      return;
    }
    case json::value_t::boolean:
      out += value.get<bool>() ? "true" : "false";
      return;
    case json::value_t::null:
      out += "null";
      return;
    default:  // floating point, binary
      out += dump_json(value, -1);
      return;
  }
}

void CompactObject::time(std::string_view k, std::int64_t epoch_ms) {
  std::string& out = key(k);
  out += '"';
  append_utc_millis(out, epoch_ms);  // digits, '-', ':', 'T', '.', 'Z': nothing to escape
  out += '"';
}

void CompactObject::utf8(std::string_view k, std::string_view text) {
  if (is_valid_utf8(text)) {
    string(k, text);
  } else {
    string(k, escape_non_utf8(text));
  }
}

void CompactObject::text(std::string_view k, std::string_view raw) {
  if (is_valid_utf8(raw)) {
    string(k, raw);
    return;
  }
  string(k, escape_non_utf8(raw));
  std::string hex_key(k);
  hex_key += "_hex";
  string(hex_key, to_hex(raw));
}

}  // namespace hsperfguard
