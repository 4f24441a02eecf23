// JSON text as every report writes it: serialised with valid UTF-8 whatever the input, hostile
// text kept exactly (escaped, plus its hex), instants in one format.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace hsperfguard {

// Serialises with every string guaranteed valid UTF-8 (hostile names were escaped before;
// anything that slipped through is replaced, never a throw) and every invisible control
// escaped (escape_json_invisibles: no raw U+2028, U+2029 or U+0085 splits a JSON line).
std::string dump_json(const nlohmann::json& document, int indent = 2);

// Sets document[key] to the escaped text and, when the bytes were not UTF-8,
// document[key + "_hex"] to their hex, so no byte of a hostile name is lost.
void put_text(nlohmann::json& document, const std::string& key, std::string_view raw);

// Returns a copy whose string values (and keys) are all valid UTF-8.
nlohmann::json sanitize_json(const nlohmann::json& value);

std::string format_utc_millis(std::int64_t epoch_ms);             // 2026-11-22T20:37:39.123Z
void append_utc_millis(std::string& out, std::int64_t epoch_ms);  // the same, appended

}  // namespace hsperfguard
