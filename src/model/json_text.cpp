#include "model/json_text.hpp"

#include <array>
#include <chrono>
#include <cstdio>

#include "model/text_escape.hpp"

namespace hsperfguard {

using nlohmann::json;

// The civil calendar of <chrono>: no gmtime_r/gmtime_s, the same on every platform. Written
// digit by digit (a report of 100,000 files formats 200,000 of these).
void append_utc_millis(std::string& out, std::int64_t epoch_ms) {
  using namespace std::chrono;
  const sys_time<milliseconds> at{milliseconds{epoch_ms}};
  const sys_days day = floor<days>(at);
  const year_month_day date{day};
  const hh_mm_ss<milliseconds> time{at - day};
  const int year = static_cast<int>(date.year());
  if (year < 0 || year > 9999) {  // outside what four digits hold: the general formatter
    std::array<char, 96> buf{};
    // At most 31 characters (a year of 11): never truncated.
    static_cast<void>(std::snprintf(
        buf.data(), buf.size(), "%04d-%02u-%02uT%02d:%02d:%02d.%03dZ", year,
        static_cast<unsigned>(date.month()), static_cast<unsigned>(date.day()),
        static_cast<int>(time.hours().count()), static_cast<int>(time.minutes().count()),
        static_cast<int>(time.seconds().count()), static_cast<int>(time.subseconds().count())));
    out += buf.data();
    return;
  }
  char text[] = "0000-00-00T00:00:00.000Z";
  auto put = [&](std::size_t at_end, long long value, int digits) {
    for (int d = 0; d < digits; ++d, value /= 10)
      text[at_end - static_cast<std::size_t>(d)] = static_cast<char>('0' + value % 10);
  };
  put(3, year, 4);
  put(6, static_cast<unsigned>(date.month()), 2);
  put(9, static_cast<unsigned>(date.day()), 2);
  put(12, time.hours().count(), 2);
  put(15, time.minutes().count(), 2);
  put(18, time.seconds().count(), 2);
  put(22, time.subseconds().count(), 3);
  out.append(text, sizeof text - 1);
}

std::string format_utc_millis(std::int64_t epoch_ms) {
  std::string out;
  append_utc_millis(out, epoch_ms);
  return out;
}

void put_text(json& document, const std::string& key, std::string_view raw) {
  document[key] = escape_non_utf8(raw);
  if (!is_valid_utf8(raw)) document[key + "_hex"] = to_hex(raw);
}

json sanitize_json(const json& value) {
  if (value.is_string()) {
    const auto& s = value.get_ref<const std::string&>();
    return is_valid_utf8(s) ? value : json(escape_non_utf8(s));
  }
  if (value.is_array()) {
    json out = json::array();
    for (const auto& v : value) out.push_back(sanitize_json(v));
    return out;
  }
  if (value.is_object()) {
    json out = json::object();
    for (const auto& [k, v] : value.items()) out[escape_non_utf8(k)] = sanitize_json(v);
    return out;
  }
  return value;
}

std::string dump_json(const json& document, int indent) {
  std::string text = document.dump(indent, ' ', false, json::error_handler_t::replace);
  escape_json_invisibles(text);
  return text;
}

}  // namespace hsperfguard
