// The passwd(5) text format, parsed without touching the OS.
//
// Used for foreign roots (`--root DIR`, a container's /proc/<pid>/root), whose users must
// come from *their* etc/passwd and never from the host's NSS. The input is untrusted: every
// line is checked, nothing is assumed about its length, and nothing throws but bad_alloc.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/run_limits.hpp"

namespace hsperfguard::passwd {

// What an account is to hsperfguard: its name and ids (the other fields are checked for form
// and not kept: a foreign root's passwd can be tens of MB). The name is a view into its
// Database's names.
struct Entry {
  std::string_view name;
  std::uint32_t uid = 0;
  std::uint32_t gid = 0;
};

// At most this many accounts are indexed: no system has two million, and a passwd of short
// lines written by a tenant ("a::1:1:::", 6.7 million of them in 64 MiB) cost 390 MB to index
// as it came. More is no database (too_many_entries): every look-up in it fails, which the
// audit reports (namespace.user-lookup-failed), and memory stays what two million entries
// take (32 bytes each with the two indexes, and their names).
inline constexpr std::size_t kMaxEntries = std::size_t{1} << 21;

struct Database {
  Database() = default;
  Database(Database&&) = default;
  Database& operator=(Database&&) = default;
  Database(const Database&) = delete;  // the entries' names point into this one's
  Database& operator=(const Database&) = delete;

  std::vector<Entry> entries;       // in file order
  std::vector<char> names;          // every entry's name, one after another (never reallocated)
  std::size_t malformed_lines = 0;  // lines that are not 7 well-formed fields
  std::size_t nis_lines = 0;        // "+..." / "-..." compat lines, skipped (no NIS here)
  bool too_many_entries = false;    // more than kMaxEntries: empty, nothing may be concluded
  // Set when parse was told to stop (RunLimits::reached) before the end: the database is
  // incomplete and holds nothing. A missing user must never be concluded from it.
  const char* stopped = nullptr;

  // The first entry with this name / uid, as glibc's files backend answers. Indexed once by
  // parse: a look-up costs O(log n) however large the file (a container's passwd is written
  // by whoever made the container, and is looked up once per namespace).
  const Entry* find_name(std::string_view name) const;
  const Entry* find_uid(std::uint32_t uid) const;

  // Entry positions ordered by (name, position) and by (uid, position); parse fills them.
  std::vector<std::uint32_t> by_name;
  std::vector<std::uint32_t> by_uid;
};

// Splits on '\n' (a trailing '\r' is dropped) and skips leading blanks, as glibc does.
// Skipped without counting: blank lines and lines whose first non-blank character is '#'.
// Malformed: not exactly 7 ':'-separated fields, an empty name, a NUL anywhere, a uid or
// gid that is not plain decimal in [0, 4294967294] ((uid_t)-1 is never a user).
// With `limits`, asks them every 4,096 lines and before indexing: a passwd of tens of MB must
// not hold off a stop signal or the deadline (then `stopped` is set).
Database parse(std::string_view text, const RunLimits* limits = nullptr);

// A parse that was stopped and can go on: what parse_some keeps between two calls.
struct PartialParse {
  Database db;                  // the entries so far; indexed once done
  std::size_t offset = 0;       // where the next line of the text starts
  std::size_t line_number = 0;  // lines read so far
  bool done = false;
};

// parse, a piece at a time: goes on with `text` (the same text at every call) from where
// `state` stopped, to its end (then state.done, and state.db is the whole database, indexed)
// or until `limits` are reached, and returns why ("deadline", "interrupted"; nullptr: done).
// Each call goes on by 4,096 lines or the indexing at least before it asks the limits.
// A passwd of tens of MB opened by several roots, each with its own share of the run's time,
// is parsed once even when no one share is enough for the whole of it.
const char* parse_some(std::string_view text, PartialParse& state, const RunLimits* limits = nullptr);

}  // namespace hsperfguard::passwd
