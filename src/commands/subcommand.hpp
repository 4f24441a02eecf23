// How a subcommand joins the command line: it adds itself and its options to the CLI11 app
// and hands back what runs it once parsed. command_line.cpp only lists them; every option of a
// subcommand is declared in that subcommand's own file.
#pragma once

#include <functional>
#include <memory>
#include <ostream>
#include <optional>
#include <string>

#include "report/logging.hpp"

namespace CLI {
class App;
}

namespace hsperfguard {

// A subcommand added to the command line: `cmd` is set once parsed, `run` runs it. The hook
// owns what the subcommand's options parse into: keep it until the command line is parsed
// and run (every add_*_command is [[nodiscard]] for that reason).
struct SubcommandHook {
  CLI::App* cmd = nullptr;
  std::function<int()> run;
};

// What unattended runs need, the same on audit and reap: --metrics, --log-format, --quiet,
// --syslog.
struct UnattendedFlags {
  std::string metrics;
  std::string log_format;
  bool quiet = false;
  bool syslog = false;

  void add_to(CLI::App* cmd);
  LogOptions log_options() const;
  std::optional<std::string> metrics_file() const;
  // The logger of `command` ("audit", "reap"): its lines on `err`, or with --syslog in the
  // system log (tag hsperfguard-<command>) while `err` keeps the plain error messages; where
  // nothing receives messages at the system log, on `err` after saying so once.
  std::unique_ptr<Logger> make_logger(const std::string& command, std::ostream& err) const;
};

}  // namespace hsperfguard
