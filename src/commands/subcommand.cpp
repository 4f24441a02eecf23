#include "commands/subcommand.hpp"

#include <CLI/CLI.hpp>

#include "commands/cli_checks.hpp"
#include "model/rule_catalog.hpp"
#include "model/text_escape.hpp"
#include "platform/host.hpp"
#include "platform/system_log.hpp"

namespace hsperfguard {

void UnattendedFlags::add_to(CLI::App* cmd) {
  cmd->add_option("--metrics", metrics,
                  "Write Prometheus metrics to FILE (node_exporter textfile collector), atomically")
      ->check(file_path());
  cmd->add_option("--log-format", log_format,
                  "Also log one line per action or error on stderr: text or json")
      ->check(CLI::IsMember({"text", "json"}));
  cmd->add_flag("-q,--quiet", quiet,
                "No report on stdout (use --output): only what needs a person, one line each "
                "(audit: findings at or above --fail-on; reap: failed removals, entries left to a "
                "person), nothing on a clean run; with --log-format, no summary line when all is well");
  cmd->add_flag("--syslog", syslog,
                "Write the log lines (--log-format, text by default) to the system log (tag "
                "hsperfguard-COMMAND, priority from each line's level) instead of stderr, which "
                "keeps the error messages; to stderr, saying so once, if nothing receives them at /dev/log");
}

TempDirOptions add_temp_dir_options(CLI::App* cmd, std::optional<std::string>& tmpdir,
                                    std::optional<std::string>& root, const std::string& verb,
                                    const std::string& which) {
  TempDirOptions options;
  options.tmpdir = cmd->add_option("--tmpdir", tmpdir, verb + " " + which + " instead of /tmp")
                       ->check(dir_path());
  options.root = cmd->add_option("--root", root,
                                 verb + " the system whose root is DIR (its /tmp, its etc/passwd)")
                     ->check(dir_path())
                     ->excludes(options.tmpdir);
  return options;
}

CLI::Option* add_user_scope_option(CLI::App* cmd, std::optional<std::string>& user, const std::string& verb) {
  return cmd->add_option("--user", user,
                         verb + " only the namespaces of USER (hsperfdata_USER): the others are out of "
                                "scope, and so are containers when not root; the run is complete when all of "
                                "USER's were read")
      ->option_text("USER")
      ->check(user_name());
}

ContainerOptions add_container_options(CLI::App* cmd, bool& no_containers,
                                       std::optional<std::int32_t>& container_pid,
                                       const std::string& container_help,
                                       const std::string& no_containers_help) {
  ContainerOptions options;
  options.no_containers = cmd->add_flag("--no-containers", no_containers, no_containers_help);
  options.container = cmd->add_option("--container", container_pid, container_help)
                          ->option_text("PID")
                          ->check(CLI::PositiveNumber)
                          ->excludes(options.no_containers);
  return options;
}

CLI::Option* add_format_option(CLI::App* cmd, std::string& format) {
  return cmd->add_option("-f,--format", format, "text (the default) or json")
      ->check(CLI::IsMember({"json", "text"}));
}

CLI::Option* add_color_option(CLI::App* cmd, std::string& color) {
  return cmd->add_option("--color", color, "auto (on a terminal, unless NO_COLOR is set), always or never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
}

CLI::Option* add_output_option(CLI::App* cmd, std::optional<std::string>& output) {
  return cmd->add_option("-o,--output", output,
                         "Write the report to FILE (atomically; a device, FIFO or - is written through)")
      ->check(file_path());
}

std::optional<std::string> PolicyFileOptions::chosen() const {
  if (!file.empty()) return file;
  if (none) return std::nullopt;
  return platform::default_policy_file();
}

bool PolicyFileOptions::chosen_is_default() const { return file.empty() && !none; }

void add_policy_options(CLI::App* cmd, PolicyFileOptions& options) {
  auto* policy_opt = cmd->add_option("--policy", options.file,
                                     "JSON policy: disable rules, change severities (default: "
                                     "/etc/hsperfguard/policy.json when it exists; hsperfguard-policy(5))")
                         ->check(file_path());
  cmd->add_flag("--no-policy", options.none, "Do not read /etc/hsperfguard/policy.json: the profile alone")
      ->excludes(policy_opt);
}

std::optional<std::string> load_policy(const std::string& profile, const std::optional<std::string>& policy_file,
                                       bool policy_file_is_default, Policy& policy,
                                       std::optional<std::string>& read) {
  auto builtin = builtin_profile(profile);
  if (!builtin) return "unknown profile '" + terminal_safe(profile) + "'";
  policy = *builtin;
  if (!policy_file) return std::nullopt;
  ObservationError error;
  const auto text = platform::read_config_file(*policy_file, &error);
  if (!text && policy_file_is_default && platform::config_file_absent(error)) return std::nullopt;
  // The open's own answer names what is wrong with the path (no look before it).
  const std::string named = (policy_file_is_default ? "" : "--policy ") + *policy_file;
  if (!text) return named + ": " + missing_path_reason(error.code).value_or(error.message);
  read = *policy_file;
  if (auto problem = apply_policy_text(policy, *text)) return named + ": " + *problem;
  return std::nullopt;
}

CLI::Option* add_profile_option(CLI::App* cmd, std::string& profile, const std::string& help) {
  return cmd->add_option("--profile", profile, help)->check(CLI::IsMember(profile_names()));
}

LogOptions UnattendedFlags::log_options() const {
  LogOptions options;
  if (!log_format.empty()) {
    options.format = log_format == "json" ? LogFormat::json : LogFormat::text;
  } else if (syslog) {
    options.format = LogFormat::text;
  }
  options.quiet = quiet;
  return options;
}

std::optional<std::string> UnattendedFlags::metrics_file() const {
  return metrics.empty() ? std::nullopt : std::optional<std::string>(metrics);
}

std::unique_ptr<Logger> UnattendedFlags::make_logger(const std::string& command, std::ostream& err) const {
  if (!syslog) return std::make_unique<Logger>(err, log_options(), command, &platform::now_epoch_ms);
  ObservationError error;
  auto system_log = platform::SystemLog::open("hsperfguard-" + command, &error);
  if (!system_log) {
    // A host without a log daemon (a container, a minimal cron-only host): the lines go where
    // they go without --syslog, standard error (what cron mails), and the run says so once.
    err << "hsperfguard: " << command << ": --syslog: " << error.path << ": " << error.op << ": "
        << error.message << "; the log lines go to standard error instead\n";
    return std::make_unique<Logger>(err, log_options(), command, &platform::now_epoch_ms);
  }
  const auto write = [log = *system_log](LogLevel level, std::string_view line) {
    log.write(level == LogLevel::error     ? platform::SystemLogPriority::error
              : level == LogLevel::warning ? platform::SystemLogPriority::warning
                                           : platform::SystemLogPriority::info,
              line);
  };
  return std::make_unique<Logger>(write, err, log_options(), command, &platform::now_epoch_ms);
}

}  // namespace hsperfguard
