#include "passwd.hpp"

#include <array>

namespace hsperfguard::passwd {
namespace {

// Plain decimal only: no sign, no blanks, at least one digit, below (uid_t)-1.
std::optional<std::uint32_t> parse_id(std::string_view field) {
  if (field.empty()) return std::nullopt;
  std::uint64_t value = 0;
  for (char c : field) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + static_cast<std::uint64_t>(c - '0');
    if (value >= 0xffffffffULL) return std::nullopt;
  }
  return static_cast<std::uint32_t>(value);
}

bool is_blank(char c) { return c == ' ' || c == '\t'; }

}  // namespace

const Entry* Database::find_name(std::string_view name) const {
  for (const auto& e : entries) {
    if (e.name == name) return &e;
  }
  return nullptr;
}

const Entry* Database::find_uid(std::uint32_t uid) const {
  for (const auto& e : entries) {
    if (e.uid == uid) return &e;
  }
  return nullptr;
}

Database parse(std::string_view text) {
  Database db;
  while (!text.empty()) {
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
    bool too_many = false;
    for (std::string_view rest = line;;) {
      const auto colon = rest.find(':');
      if (count == field.size()) {
        too_many = true;
        break;
      }
      field[count++] = rest.substr(0, colon);
      if (colon == std::string_view::npos) break;
      rest.remove_prefix(colon + 1);
    }
    const auto uid = count == 7 ? parse_id(field[2]) : std::nullopt;
    const auto gid = count == 7 ? parse_id(field[3]) : std::nullopt;
    if (too_many || count != 7 || field[0].empty() || !uid || !gid) {
      ++db.malformed_lines;
      continue;
    }
    db.entries.push_back(
        Entry{std::string(field[0]), *uid, *gid, std::string(field[5]), std::string(field[6])});
  }
  return db;
}

}  // namespace hsperfguard::passwd
