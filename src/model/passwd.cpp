#include "model/passwd.hpp"

#include <algorithm>
#include <array>

#include "model/digits.hpp"

namespace hsperfguard::passwd {
namespace {

// Plain decimal only: no sign, no blanks, at least one digit, below (uid_t)-1.
// A uid or gid field; 4294967295 is (uid_t)-1, never an account's.
std::optional<std::uint32_t> parse_id(std::string_view field) {
  const auto value = parse_number<std::uint32_t>(field);
  if (!value || *value == 0xffffffffU) return std::nullopt;
  return value;
}

bool is_blank(char c) { return c == ' ' || c == '\t'; }

// The fields of a passwd line (name:password:uid:gid:gecos:home:shell), split at its colons;
// false when it has more than seven.
bool split_fields(std::string_view line, std::array<std::string_view, 7>& field, std::size_t& count) {
  count = 0;
  for (std::string_view rest = line;;) {
    const auto colon = rest.find(':');
    if (count == field.size()) return false;
    field[count++] = rest.substr(0, colon);
    if (colon == std::string_view::npos) return true;
    rest.remove_prefix(colon + 1);
  }
}

// The lookups by name and by uid. Stable: of equal names (or uids), the first in the file
// comes first.
void index_entries(Database& db) {
  db.by_name.resize(db.entries.size());
  for (std::uint32_t i = 0; i < db.by_name.size(); ++i) db.by_name[i] = i;
  db.by_uid = db.by_name;
  std::stable_sort(db.by_name.begin(), db.by_name.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return db.entries[a].name < db.entries[b].name; });
  std::stable_sort(db.by_uid.begin(), db.by_uid.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return db.entries[a].uid < db.entries[b].uid; });
}

}  // namespace

const Entry* Database::find_name(std::string_view name) const {
  const auto it = std::lower_bound(by_name.begin(), by_name.end(), name,
                                   [&](std::uint32_t i, std::string_view n) { return entries[i].name < n; });
  return it != by_name.end() && entries[*it].name == name ? &entries[*it] : nullptr;
}

const Entry* Database::find_uid(std::uint32_t uid) const {
  const auto it = std::lower_bound(by_uid.begin(), by_uid.end(), uid,
                                   [&](std::uint32_t i, std::uint32_t u) { return entries[i].uid < u; });
  return it != by_uid.end() && entries[*it].uid == uid ? &entries[*it] : nullptr;
}

Database parse(std::string_view text, const RunLimits* limits) {
  PartialParse state;
  if (const char* why = parse_some(text, state, limits)) {
    Database stopped;
    stopped.stopped = why;
    return stopped;
  }
  return std::move(state.db);
}

const char* parse_some(std::string_view whole, PartialParse& state, const RunLimits* limits) {
  if (state.done) return nullptr;
  Database& db = state.db;
  std::string_view text = whole.substr(std::min(state.offset, whole.size()));
  if (state.line_number == 0 && db.names.capacity() == 0) {
    // Reserved once, as large as they could be: a name never moves (entries view it), and
    // what is reserved and not written takes no memory.
    db.names.reserve(whole.size() + 1);
    db.entries.reserve(std::min<std::size_t>(
        kMaxEntries + 1, static_cast<std::size_t>(std::count(whole.begin(), whole.end(), '\n')) + 1));
  }
  // Every call goes on by one step at least (a few thousand lines, or the indexing), so that
  // calls each made late still finish the parse between them.
  const std::size_t first_line = state.line_number;
  for (; !text.empty(); ++state.line_number) {
    if (limits != nullptr && state.line_number % 4096 == 0 && state.line_number != first_line) {
      state.offset = whole.size() - text.size();
      if (const char* why = limits->reached()) return why;
    }
    const auto newline = text.find('\n');
    std::string_view line = text.substr(0, newline);
    text.remove_prefix(newline == std::string_view::npos ? text.size() : newline + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);

    std::size_t first = 0;
    while (first < line.size() && is_blank(line[first])) ++first;
    if (first == line.size() || line[first] == '#') continue;
    line.remove_prefix(first);  // glibc's files backend skips leading blanks too
    if (line.front() == '+' || line.front() == '-') {
      ++db.nis_lines;
      continue;
    }
    if (line.find('\0') != std::string_view::npos) {
      ++db.malformed_lines;
      continue;
    }

    std::array<std::string_view, 7> field;
    std::size_t count = 0;
    const bool too_many = !split_fields(line, field, count);
    const auto uid = count == 7 ? parse_id(field[2]) : std::nullopt;
    const auto gid = count == 7 ? parse_id(field[3]) : std::nullopt;
    if (too_many || count != 7 || field[0].empty() || !uid || !gid) {
      ++db.malformed_lines;
      continue;
    }
    if (db.entries.size() == kMaxEntries) {
      db = Database{};
      db.too_many_entries = true;
      state.offset = whole.size();
      state.done = true;
      return nullptr;
    }
    const std::size_t at = db.names.size();
    db.names.insert(db.names.end(), field[0].begin(), field[0].end());
    db.entries.push_back(Entry{std::string_view(db.names.data() + at, field[0].size()), *uid, *gid});
  }
  state.offset = whole.size();
  if (limits != nullptr && state.line_number != first_line) {
    if (const char* why = limits->reached()) return why;
  }
  index_entries(db);
  state.done = true;
  return nullptr;
}

}  // namespace hsperfguard::passwd
