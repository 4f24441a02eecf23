// The nearest word of a closed set (model/nearest_word.hpp).
#include "model/nearest_word.hpp"

#include <algorithm>

namespace hsperfguard {
namespace {

std::string_view without_dashes(std::string_view word) {
  while (word.starts_with('-')) word.remove_prefix(1);
  return word;
}

}  // namespace

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.size()][b.size()];
}

std::optional<std::string> nearest_match(std::string_view word, const std::vector<std::string>& candidates) {
  const std::string_view bare = without_dashes(word);
  if (bare.empty()) return std::nullopt;
  // One edit for a short word ("ps" is not a typo of "rules"), two up to 6 characters, then a
  // third of the word: a rule id left without one of its parts (namespace.group-writable).
  const std::size_t allowed = bare.size() <= 3 ? 1 : bare.size() <= 6 ? 2 : std::max<std::size_t>(3, bare.size() / 3);
  std::optional<std::string> best;
  std::size_t best_distance = allowed + 1;
  for (const auto& candidate : candidates) {
    const std::string_view name = without_dashes(candidate);
    const bool prefix = bare.size() >= 2 && name.starts_with(bare);
    // The distance is at least the difference of the lengths: a word that cannot come near is
    // not measured (a policy's rule id of a million characters cost 20 million cells per id).
    const std::size_t gap = bare.size() > name.size() ? bare.size() - name.size() : name.size() - bare.size();
    if (!prefix && gap >= best_distance) continue;
    std::size_t distance = edit_distance(bare, name);
    if (prefix) distance = std::min<std::size_t>(distance, 1);
    if (distance < best_distance) {
      best_distance = distance;
      best = candidate;
    }
  }
  return best;
}

}  // namespace hsperfguard
