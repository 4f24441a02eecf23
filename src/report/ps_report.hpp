// `hsperfguard ps` rendered: the rows of decide/ps.hpp as text and as JSON
// (schemas/ps.schema.json).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "decide/ps.hpp"
#include "model/facts.hpp"

namespace hsperfguard {

// Text: a header and one line per row (hostile text escaped), then one line per invisible JVM
// saying why jps cannot see it and what to do; `now_ms` for the uptime column ("-" for a
// file whose JVM is gone: stale, pid-reused, foreign).
// The table, then why each invisible JVM is invisible. With `columns` (standard output is a
// terminal that wide) no row of the table is longer: a command line long enough to wrap could
// otherwise start a line of its own that reads as another JVM's row.
std::string ps_text(const std::vector<PsRow>& rows, std::int64_t now_ms,
                    std::optional<std::size_t> columns = std::nullopt);
// JSON: {"schema": "hsperfguard-ps/1", "generated_at", "jvms": [...], "errors": [...]}.
nlohmann::json ps_json(const std::vector<PsRow>& rows, std::int64_t now_ms,
                       const std::vector<ObservationError>& errors);

// "3d04h", "2h05m", "4m12s", "12s"; "-" when unknown or in the future.
std::string format_uptime(std::optional<std::int64_t> start_ms, std::int64_t now_ms);

}  // namespace hsperfguard
