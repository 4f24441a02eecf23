// The cleaners configured on a system (systemd-tmpfiles, tmpreaper, tmpwatch, cron `find`),
// parsed from their files' text without touching the OS: what each would delete, from which
// directories, after which age, and what it is told to spare. Facts only: whether a JVM's
// files are in reach is the rule's question (checks/tmpdir.cpp). The input is untrusted: a
// line is kept as written (bounded), and a line that is not understood is kept as such,
// never guessed at.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace hsperfguard::cleaners {

enum class Tool { tmpfiles, tmpreaper, tmpwatch, find };
const char* to_string(Tool tool);

// One configured cleaning: a tmpfiles.d line with an age, a tmpreaper or tmpwatch run, a
// `find ... -delete`.
struct Cleaning {
  Tool tool = Tool::tmpfiles;
  std::string file;       // as the audited system names it: "/etc/tmpfiles.d/tmp.conf"
  std::size_t line = 0;   // 1-based, the first physical line of it
  std::string text;       // the line as written (at most kMaxKeptText bytes)
  // tmpfiles: the line's path (a glob); the others: the directories given to them.
  std::vector<std::string> paths;
  std::string age;        // as written: "10d", "~10d", "7d", "+7" (find -mtime)
  // tmpfiles: whether the path is a glob (an `e` line's; d, D, v, q, Q and C name one path).
  bool path_is_glob = false;
  // tmpfiles "~": only what is one level below a directory of the path, not its children.
  bool below_children_only = false;
  // What the cleaner is told to spare, as written: tmpreaper --protect patterns, tmpwatch
  // -x paths and -X patterns, find's negated -name/-path tests and pruned -path tests.
  std::vector<std::string> protect_patterns;  // tmpreaper --protect, tmpwatch -X, find ! -path
  std::vector<std::string> exclude_paths;     // tmpwatch -x (a path and all below it)
  std::vector<std::string> exclude_names;     // find ! -name (a last component)
  std::vector<std::string> prune_patterns;    // find -path P -prune (P and all below it)
  // Where the protect patterns come from a shell variable of a sourced file (Debian's job turns
  // each word of TMPREAPER_PROTECT_EXTRA into a --protect): its name, value and file, so that
  // the exclusion line to add keeps what is there.
  std::string protect_variable;
  std::string protect_variable_value;
  std::string protect_variable_file;
  // Which kinds of file it removes: tmpreaper and tmpwatch remove regular files (and empty
  // directories) unless given --all; find removes what its -type tests let through.
  bool removes_sockets = true;
  bool removes_regular = true;
  int max_depth = -1;     // find -maxdepth; -1: none
  // Where a cron job sources a configuration that stops it (tmpreaper's SHOWWARNING=true).
  bool disabled = false;
  std::string disabled_by;  // "line 63 exits first: if [ "$SHOWWARNING" = true ]; then"
};

// A tmpfiles.d exclusion: `x PATH` spares the path and everything below it; `X PATH` the
// path itself only.
struct TmpfilesExclusion {
  std::string path;  // a glob
  bool with_contents = true;
  std::string file;
  std::size_t line = 0;
};

// A line of a cleaner's configuration that the parser does not understand: kept, never
// guessed at.
struct NotUnderstood {
  std::string file;
  std::size_t line = 0;
  std::string text;  // at most kMaxKeptText bytes
  std::string why;
};

struct Configuration {
  std::vector<Cleaning> cleanings;
  std::vector<TmpfilesExclusion> tmpfiles_exclusions;
  std::vector<NotUnderstood> not_understood;
  // Every file read, in the order read, as the audited system names it.
  std::vector<std::string> files;
};

inline constexpr std::size_t kMaxKeptText = 512;

// A tmpfiles.d(5) file: "Type Path Mode User Group Age Argument". Age rules of d, D, e, v, q,
// Q and C become cleanings, x and X exclusions; other known types are not cleaners.
void parse_tmpfiles(std::string_view file, std::string_view text, Configuration& out);

// A shell file's simple assignments (NAME=value, NAME='value', NAME="value"), as Debian's
// /etc/tmpreaper.conf is: the last one of each name wins. Other lines that are not comments
// are not understood when `strict`.
std::map<std::string, std::string> parse_assignments(std::string_view file, std::string_view text,
                                                     bool strict, Configuration& out);

// A crontab (`system_crontab`: /etc/crontab and /etc/cron.d, with a user field; otherwise a
// user's crontab) or a script run by cron (/etc/cron.daily/*): each command that runs find with
// -delete or -exec rm, tmpwatch or tmpreaper becomes a cleaning. Parameters ($NAME, ${NAME},
// ${NAME:-default}) expand to the script's own assignments before them and to those of a file
// it sources (`. FILE`) when `sourced` holds that file's (parse_assignments). A script's
// `if [ A = B ]; then ... exit` whose test holds on those values stops it there: the
// cleanings after it are disabled (tmpreaper's SHOWWARNING=true). Anything else a shell would
// do is not done: a cleaner's command holding a value not known here is not understood.
enum class CronFile { system_crontab, user_crontab, script };
using Assignments = std::map<std::string, std::string>;
void parse_cron(std::string_view file, std::string_view text, CronFile kind,
                const std::map<std::string, Assignments>& sourced, Configuration& out);

// Whether `pattern` (fnmatch(3) syntax: *, ?, [...], [!...], backslash) matches `name`.
// `pathname`: a wildcard never matches '/'. `period`: a leading '.' of a component matches
// only a '.' written in the pattern.
bool glob_match(std::string_view pattern, std::string_view name, bool pathname, bool period);

}  // namespace hsperfguard::cleaners
