// What an `audit` run is asked to do: the options the command line parses into, and what
// the run's record (run_record.hpp) reads of them.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>

#include "commands/output_target.hpp"  // ReportFormat, ColorChoice
#include "model/finding.hpp"

namespace hsperfguard {

struct AuditCommandOptions {
  std::optional<std::string> tmpdir;
  std::optional<std::string> root;
  std::string profile = "default";
  std::optional<std::string> policy_file;
  // policy_file is the conventional one (platform::default_policy_file), not named by --policy:
  // when it does not exist the profile alone is used; unreadable or invalid, it is an error.
  bool policy_file_is_default = false;
  std::optional<ReportFormat> format;  // default: text, wherever stdout goes
  std::optional<std::string> output;   // written to a temp name, then renamed
  bool verbose = false;  // text: every finding with its evidence, none grouped
  ColorChoice color = ColorChoice::automatic;  // text on stdout only (output_target.hpp)
  Severity fail_on = Severity::medium;
  // Container temp dirs too (as root, without --tmpdir / --root); --no-containers: false.
  bool containers = true;
  std::optional<std::int32_t> container_pid;  // --container PID: only that process's /tmp
  // --user NAME: only the namespaces named after NAME (hsperfdata_NAME, as create --user names
  // them); the others are out of scope, not missing, and so are containers when not root.
  std::optional<std::string> user;
  // --containers-only: every other mount namespace's temp dir, none of our own (as root; in a
  // pod with the node's pid namespace, the node's /tmp and its containers'). Finding none is
  // an incomplete run.
  bool containers_only = false;
  // --max-runtime: stop observing after this long (exit 3, the report says where it stopped).
  std::optional<std::int64_t> max_runtime_ms;
  std::optional<std::string> metrics;  // Prometheus textfile, written atomically (run_record.hpp)
  class Logger* logger = nullptr;       // actions, errors, summary for unattended runs (logging.hpp)
  // --quiet: no report on `out`; instead one line per finding at or above fail_on (what cron
  // mails), and nothing at all on a clean run.
  bool quiet = false;
  // --every: the interval of run_audit_every (a node image has no shell, cron or sleep).
  std::optional<std::int64_t> every_ms;
  // The stop flag of a StopSignals the caller holds (run_audit_every); none: the run installs
  // its own.
  const std::atomic<bool>* stop = nullptr;
};

}  // namespace hsperfguard
