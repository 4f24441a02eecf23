// How a subcommand joins the command line: it adds itself and its options to the CLI11 app
// and hands back what runs it once parsed. command_line.cpp only lists them; every option of a
// subcommand is declared in that subcommand's own file, those several subcommands share
// (--tmpdir and --root, --no-containers and --container, --format, --output, --profile, the
// unattended flags) through the functions below, so that they read and check the same.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <ostream>
#include <optional>
#include <string>

#include "model/rule_catalog.hpp"  // Policy
#include "report/logging.hpp"

namespace CLI {
class App;
class Option;
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

// --tmpdir and --root (which cannot be combined with --tmpdir), for a subcommand that looks
// at one system's temp dir: their help says "<verb> <which> instead of /tmp" and "<verb> the
// system whose root is DIR (...)" ("Audit", "this temp dir of this host"; "Create in", "this
// temp dir").
struct TempDirOptions {
  CLI::Option* tmpdir = nullptr;
  CLI::Option* root = nullptr;
};
TempDirOptions add_temp_dir_options(CLI::App* cmd, std::optional<std::string>& tmpdir,
                                    std::optional<std::string>& root, const std::string& verb,
                                    const std::string& which);

// --no-containers and --container PID (which cannot be combined with it), with their help.
struct ContainerOptions {
  CLI::Option* no_containers = nullptr;
  CLI::Option* container = nullptr;
};
ContainerOptions add_container_options(CLI::App* cmd, bool& no_containers,
                                       std::optional<std::int32_t>& container_pid,
                                       const std::string& container_help,
                                       const std::string& no_containers_help =
                                           "Skip the temp dirs of containers (looked at as root)");

// --user NAME of audit and reap: only the namespaces named after NAME (hsperfdata_NAME), as
// create --user names them. `verb`: "Audit", "Reap".
CLI::Option* add_user_scope_option(CLI::App* cmd, std::optional<std::string>& user, const std::string& verb);

// -f/--format of a report: text or json ("": not given, text wherever stdout goes).
CLI::Option* add_format_option(CLI::App* cmd, std::string& format);
// --color: auto, always or never (output_target.hpp: ColorChoice), for text on stdout.
CLI::Option* add_color_option(CLI::App* cmd, std::string& color);
// -o/--output: the report to FILE.
CLI::Option* add_output_option(CLI::App* cmd, std::optional<std::string>& output);
// --policy FILE and --no-policy, read as the audit reads them: without either, the default
// policy file (/etc/hsperfguard/policy.json) when it exists. The commands that act on the
// audit's findings (repair, create) judge by the same policy.
struct PolicyFileOptions {
  std::string file;    // --policy ("": not given)
  bool none = false;   // --no-policy
  // The file to read, and whether it is only the default one (its absence is no error).
  std::optional<std::string> chosen() const;
  bool chosen_is_default() const;
};
void add_policy_options(CLI::App* cmd, PolicyFileOptions& options);
// The profile, then the policy file on top of it (none: the profile alone; the default one
// only when it exists); `read` is the file that was applied. An error message on failure
// (a bad profile, an unreadable or invalid file), naming the file as the user gave it.
std::optional<std::string> load_policy(const std::string& profile, const std::optional<std::string>& policy_file,
                                       bool policy_file_is_default, Policy& policy,
                                       std::optional<std::string>& read);

// --profile: one of the built-in rule profiles.
CLI::Option* add_profile_option(CLI::App* cmd, std::string& profile,
                                const std::string& help = "Rule profile: default, strict or hotspot");

}  // namespace hsperfguard
