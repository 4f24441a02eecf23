// What a `reap` run is asked to do: the options the command line parses into, and what the
// run's record (run_record.hpp) reads of them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "commands/output_target.hpp"  // ReportFormat

namespace hsperfguard {

// Where overlapping cron and timer runs meet. A directory only root can write, so that
// nobody can plant or hold the lock file (the systemd unit's RuntimeDirectory is the same).
inline constexpr const char* kDefaultReapLockFile = "/run/hsperfguard/reap.lock";

struct ReapCommandOptions {
  std::optional<std::string> tmpdir;
  std::optional<std::string> root;
  bool dry_run = false;
  std::int64_t min_age_ms = 60'000;
  std::optional<std::int64_t> max_runtime_ms;
  std::optional<ReportFormat> format;  // default: text, wherever stdout goes
  std::optional<std::string> output;   // written to a temp name, then renamed
  bool verbose = false;  // text: every plan item and action, none grouped
  ColorChoice color = ColorChoice::automatic;  // text on stdout only (output_target.hpp)
  bool include_special = false;
  bool remove_empty_namespaces = false;
  std::optional<std::string> lock_file = std::string(kDefaultReapLockFile);  // nullopt: --no-lock
  bool wait_for_lock = false;
  std::optional<std::string> journal;  // JSON lines, appended as the run goes
  // Container temp dirs too (as root, without --tmpdir / --root); --no-containers: false.
  bool containers = true;
  std::optional<std::int32_t> container_pid;  // --container PID: only that process's /tmp
  // --user NAME: only the namespaces named after NAME (hsperfdata_NAME, as create --user names
  // them); the others are out of scope, not missing, and so are containers when not root.
  std::optional<std::string> user;
  std::optional<std::string> metrics;  // Prometheus textfile, written atomically (run_record.hpp)
  class Logger* logger = nullptr;       // actions, errors, summary for unattended runs (logging.hpp)
  // --quiet: no report on `out`; instead one line per failed removal and per entry left to a
  // person (what cron mails), and nothing at all when all is well.
  bool quiet = false;
};

}  // namespace hsperfguard
