// "Did you mean": the word of a closed set nearest to one that is not in it. One function for
// every set a person types from (subcommands, options, an option's choices, severities,
// profiles, rule ids on the command line and in a policy file), so that they all guess alike.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hsperfguard {

// Optimal string alignment distance (Damerau-Levenshtein with adjacent transpositions).
std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidate nearest to `word` (leading dashes aside on both: options), if any is near
// enough to be what was meant: within one edit for a word of up to 3 characters, two up to
// 6, a third of a longer word (at least three), or a candidate that starts with it ("strict"
// for "str").
std::optional<std::string> nearest_match(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace hsperfguard
