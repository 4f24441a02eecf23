#include "commands/create_command.hpp"

#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <ostream>
#include <sstream>
#include <string_view>

#include "commands/cli_checks.hpp"
#include "commands/environment.hpp"
#include "commands/exit_codes.hpp"
#include "commands/output_target.hpp"
#include "decide/create.hpp"
#include "decide/discover.hpp"
#include "model/rule_catalog.hpp"
#include "model/json_text.hpp"
#include "model/text_escape.hpp"
#include "report/audit_report_text.hpp"
#include "report/create_report.hpp"

namespace hsperfguard {
namespace {

constexpr Severity kBlockingSeverity = Severity::medium;  // the audit's default --fail-on

std::string plural(std::size_t n, std::string_view one, std::string_view many) {
  return std::to_string(n) + " " + std::string(n == 1 ? one : many);
}

// One run of `create`, step by step. Each step either lets the run go on (nullopt) or ends
// it with an exit code, having said why on `err` and in the record's exit reason. What is made
// is said in the text report as it goes, and kept in the record for JSON.
class CreateRun {
 public:
  // `color`: the text's severities in the audit's colours (stdout a terminal, no --output).
  CreateRun(const CreateCommandOptions& options, Environment& env, std::ostream& err, bool color)
      : options_(options), env_(env), err_(err), color_(color) {}

  int run() {
    record_.user = options_.user;
    record_.profile = options_.profile;
    for (auto step : {&CreateRun::check_options, &CreateRun::resolve_user, &CreateRun::judge_existing,
                      &CreateRun::make_namespace, &CreateRun::make_backing_file}) {
      if (const std::optional<int> exit = (this->*step)()) return settle(*exit);
    }
    return settle(judge_made());
  }

  const CreateRecord& record() const { return record_; }
  // The text report: what was made, said as it was made, then the exit line when not 0. A
  // usage error (2) is said once, on standard error, as the parser's are: nothing was done.
  std::string text() const {
    std::string text = out_.str();
    if (record_.exit_code != 0 && record_.exit_code != kExitUsage) {
      text += "exit " + std::to_string(record_.exit_code) + ": " + record_.exit_reason + "\n";
    }
    return text;
  }

 private:
  int settle(int code) {
    record_.exit_code = code;
    record_.generated_at_ms = env_.now_epoch_ms();
    return code;
  }

  // Ends the run with `code`, for `reason` (the exit line's words).
  std::optional<int> stop(int code, std::string reason) {
    record_.exit_reason = std::move(reason);
    return code;
  }

  void print_findings(std::ostream& to, const Findings& findings, const RepairPlan* plan, bool blocking) {
    for (const auto& f : findings) {
      CreateFinding kept{f, plan != nullptr ? repair_advice(*plan, f) : std::string(), blocking};
      // Colour only in the report (stdout), never on stderr.
      to << "  [" << severity_text(color_ && &to == &out_, f.severity) << "] " << f.rule << ": "
         << terminal_safe(f.message) << "\n";
      if (plan != nullptr) to << "      " << terminal_safe(kept.advice) << "\n";
      record_.findings.push_back(std::move(kept));
    }
  }

  void print_error(const ObservationError& e) {
    err_ << "hsperfguard: create: " << terminal_safe(e.path) << ": " << terminal_safe(e.op) << ": "
         << terminal_safe(e.message) << "\n";
    record_.errors.push_back(e);
  }

  // The exit code and message for a primitive that failed.
  int report_failure(const platform::CreateResult& result, const std::string& what) {
    if (result.error) print_error(*result.error);
    switch (result.failure) {
      case platform::CreateFailure::exists:
        err_ << "hsperfguard: create: " << what
             << " already exists (it appeared while this run was working, or was not judged): "
                "refused, nothing changed\n";
        return *stop(kExitRefused, "refused: " + what + " appeared while this run was working; nothing changed");
      case platform::CreateFailure::changed:
        err_ << "hsperfguard: create: " << what
             << " changed while this run was working (replaced, or not what was judged): refused\n";
        return *stop(kExitRefused, "refused: " + what + " changed while this run was working");
      case platform::CreateFailure::no_space:
        err_ << "hsperfguard: create: no space left for " << what << ": nothing was left behind\n";
        return *stop(kExitIncomplete, "no space left for " + what + " (nothing was left behind)");
      default:
        err_ << "hsperfguard: create: could not make " << what << "\n";
        return *stop(kExitIncomplete, "could not make " + what + " (the error above says why)");
    }
  }

  // What the command line asks for, beyond what the parser checks.
  std::optional<int> check_options() {
    if (auto problem = check_user_name(options_.user)) {
      err_ << "hsperfguard: create: --user: " << *problem << "\n";
      return stop(kExitUsage, "--user: " + *problem);
    }
    mode_ = parse_namespace_mode(options_.mode);
    if (!mode_) {
      err_ << "hsperfguard: create: --mode must be 0755 or 0700, not " << terminal_safe(options_.mode) << "\n";
      return stop(kExitUsage, "--mode must be 0755 or 0700");
    }
    if (options_.pid && *options_.pid <= 0) {
      err_ << "hsperfguard: create: --pid must be a positive process id\n";
      return stop(kExitUsage, "--pid must be a positive process id");
    }
    // The rules the result is judged by: the profile and the policy file, as the audit reads them.
    policy_.emplace();
    if (auto problem = load_policy(options_.profile, options_.policy_file, options_.policy_file_is_default,
                                   *policy_, record_.policy_file)) {
      err_ << "hsperfguard: create: " << terminal_safe(*problem)
           << (options_.policy_file_is_default ? " (the default policy file; --no-policy ignores it)" : "") << "\n";
      return stop(kExitUsage, terminal_safe(*problem));
    }
    if (options_.pid) {
      region_ = plan_region(RegionRequest{options_.size, env_.now_epoch_ms(), options_.command},
                            env_.page_size());
      if (region_->error) {
        err_ << "hsperfguard: create: " << *region_->error << "\n";
        return stop(kExitUsage, *region_->error);
      }
    }
    return std::nullopt;
  }

  // The user, as the system that owns the temp dir knows it; only root makes another's.
  std::optional<int> resolve_user() {
    auto users = env_.users(options_.root);
    user_ = users->find_user(options_.user);
    // POSIX accounts have a uid, Windows accounts a SID; either identifies the owner.
    if (!user_ || (!user_->uid && !user_->sid)) {
      if (users->failed()) {
        if (auto e = users->error()) print_error(*e);
        err_ << "hsperfguard: create: the user database could not be read\n";
        return stop(kExitIncomplete, "the user database could not be read");
      }
      err_ << "hsperfguard: create: no such user: " << terminal_safe(options_.user) << "\n";
      return stop(kExitUsage, "no such user: " + terminal_safe(options_.user));
    }
    uid_ = user_->uid.value_or(0);
    gid_ = user_->gid.value_or(uid_);
    euid_ = env_.host().euid;
    // Without a uid (Windows) the primitive decides: it makes the user's SID the owner when
    // the token may, and says so when it could not.
    if (user_->uid && euid_ != 0 && euid_ != uid_) {
      // Making another user's namespace is exactly the squatting the audit reports.
      err_ << "hsperfguard: create: only root may create the namespace of another user ("
           << terminal_safe(options_.user) << " is uid " << uid_ << ", this process runs as uid " << euid_
           << "): run it as root, or as " << terminal_safe(options_.user) << "\n";
      return stop(kExitUsage, "only root may create the namespace of another user");
    }
    return std::nullopt;
  }

  // What exists, judged by the audit's rules: an unsafe temp dir or namespace is refused.
  std::optional<int> judge_existing() {
    DiscoverOptions discover;
    discover.tmpdir = options_.tmpdir;
    discover.root = options_.root;
    discover.host_temp_dir = env_.default_temp_dir();
    spec_ = discover_roots(discover).front();
    name_ = namespace_name_for(options_.user);
    before_ = observe_whole(env_, spec_, platform::ObserveOptions{});
    if (!before_.opened) {
      for (const auto& e : before_.errors) print_error(e);
      err_ << "hsperfguard: create: the temp dir " << terminal_safe(spec_.temp_dir) << " could not be opened\n";
      return stop(kExitIncomplete, "the temp dir " + terminal_safe(spec_.temp_dir) + " could not be opened");
    }
    index_ = find_namespace(before_, name_);
    const CreateAssessment assessment = assess_for_create(before_, index_, *policy_, kBlockingSeverity);
    if (!assessment.blocking_temp_dir.empty()) {
      err_ << "hsperfguard: create: refused: the temp dir " << terminal_safe(before_.temp_dir)
           << " is unsafe, nothing is made beneath it:\n";
      print_findings(err_, assessment.blocking_temp_dir, nullptr, true);
      return stop(kExitRefused, "refused: the temp dir " + terminal_safe(before_.temp_dir) + " is unsafe (" +
                                    plural(assessment.blocking_temp_dir.size(), "finding", "findings") + " at or above " +
                                    std::string(to_string(kBlockingSeverity)) + "); nothing was made");
    }
    separator_ = before_.platform == Platform::windows ? "\\" : "/";
    const bool ends_with_separator = before_.temp_dir.ends_with(separator_) || before_.temp_dir.ends_with('/');
    ns_path_ = index_ ? before_.namespaces[*index_].path
                      : before_.temp_dir + (ends_with_separator ? "" : separator_) + name_;
    record_.namespace_path = ns_path_;
    if (!assessment.blocking.empty()) {
      err_ << "hsperfguard: create: refused: " << terminal_safe(ns_path_)
           << " exists and is unsafe; it was left as it is:\n";
      print_findings(err_, assessment.blocking, &assessment.repair, true);
      return stop(kExitRefused, "refused: " + terminal_safe(ns_path_) + " exists and is unsafe (" +
                                    plural(assessment.blocking.size(), "finding", "findings") + " at or above " +
                                    std::string(to_string(kBlockingSeverity)) + "); it was left as it is");
    }
    return std::nullopt;
  }

  // The namespace made, or the existing one verified (and only ever tightened).
  std::optional<int> make_namespace() {
    where_ = platform::TempDirLocation{spec_.kind, spec_.root, spec_.temp_dir, expected_from(*before_.opened)};
    request_.where = where_;
    request_.name = name_;
    request_.uid = uid_;
    request_.gid = gid_;
    request_.mode = *mode_;
    request_.chown = user_->uid && euid_ == 0 && uid_ != euid_;
    request_.owner_sid = user_->sid;
    if (index_) {
      const NamespaceFacts& ns = before_.namespaces[*index_];
      if (!ns.opened) {
        for (const auto& e : ns.errors) print_error(e);
        err_ << "hsperfguard: create: " << terminal_safe(ns_path_) << " exists but could not be opened\n";
        return stop(kExitIncomplete, terminal_safe(ns_path_) + " exists but could not be opened");
      }
      request_.existing = expected_from(*ns.opened);
      request_.clear_bits = bits_create_clears(*mode_);
    }
    made_ = env_.make_namespace(request_);
    if (!made_.ok()) return report_failure(made_, terminal_safe(ns_path_));
    record_.namespace_action = made_.created ? "created" : made_.mode_before ? "changed" : "verified";
    record_.mode_before = made_.mode_before;
    if (!user_->sid) {
      record_.mode = made_.made->mode;
      record_.uid = made_.made->uid;
    }
    record_.owner_sid = user_->sid;
    record_.notes.insert(record_.notes.end(), made_.notes.begin(), made_.notes.end());
    if (made_.mode_before) {
      // Say exactly what changed; "verified" is only for a namespace left as it was.
      out_ << "namespace " << terminal_safe(ns_path_) << ": mode " << octal_mode(*made_.mode_before) << " -> "
           << octal_mode(made_.made->mode) << "\n";
    }
    out_ << (made_.created ? "created " : made_.mode_before ? "changed " : "verified ") << terminal_safe(ns_path_)
         << " (owner " << terminal_safe(options_.user);
    if (user_->sid) {
      out_ << " " << *user_->sid << ", protected DACL)\n";  // Windows: no uid, no mode bits
    } else {
      out_ << " uid " << made_.made->uid << ", mode " << octal_mode(made_.made->mode) << ")\n";
    }
    for (const auto& note : made_.notes) out_ << "note: " << terminal_safe(note) << "\n";
    return std::nullopt;
  }

  // --pid: the backing file, in the namespace just made or verified.
  std::optional<int> make_backing_file() {
    if (!options_.pid) return std::nullopt;
    platform::BackingFileRequest file;
    file.where = where_;
    file.namespace_name = name_;
    file.namespace_expected = *made_.made;
    file.name = std::to_string(*options_.pid);
    file.uid = uid_;
    file.gid = gid_;
    file.chown = request_.chown;
    file.owner_sid = request_.owner_sid;
    file.content = std::move(region_->bytes);
    const std::string file_path = ns_path_ + separator_ + file.name;
    const std::size_t size = file.content.size();
    const platform::CreateResult written = env_.make_backing_file(file);
    if (!written.ok()) {
      return report_failure(written, "backing file " + terminal_safe(file_path) + " (" + std::to_string(size) + " bytes)");
    }
    record_.backing_file = file_path;
    record_.backing_file_size = size;
    if (!user_->sid) record_.backing_file_mode = written.made->mode;
    record_.notes.insert(record_.notes.end(), written.notes.begin(), written.notes.end());
    out_ << "created " << terminal_safe(file_path) << " (" << size << " bytes, "
         << (user_->sid ? std::string("protected DACL") : "mode " + octal_mode(written.made->mode)) << ")\n";
    for (const auto& note : written.notes) out_ << "note: " << terminal_safe(note) << "\n";
    return std::nullopt;
  }

  // What was made must audit clean by the same rules.
  int judge_made() {
    TempRootFacts after = observe_whole(env_, spec_, platform::ObserveOptions{});
    const auto after_index = find_namespace(after, name_);
    if (!after.opened || !after_index) {
      for (const auto& e : after.errors) print_error(e);
      err_ << "hsperfguard: create: " << terminal_safe(ns_path_) << " could not be observed after it was made\n";
      return *stop(kExitIncomplete, terminal_safe(ns_path_) + " could not be observed after it was made");
    }
    const CreateAssessment check = assess_for_create(after, after_index, *policy_, kBlockingSeverity);
    if (check.blocked()) {
      err_ << "hsperfguard: create: " << terminal_safe(ns_path_) << " does not audit clean after it was made:\n";
      print_findings(err_, check.blocking_temp_dir, nullptr, true);
      print_findings(err_, check.blocking, &check.repair, true);
      return *stop(kExitIncomplete, terminal_safe(ns_path_) + " does not audit clean after it was made (the findings above)");
    }
    if (!check.notes.empty()) {
      out_ << "note: findings below " << to_string(kBlockingSeverity) << ":\n";
      print_findings(out_, check.notes, nullptr, false);
    }
    return kExitOk;
  }

  const CreateCommandOptions& options_;
  Environment& env_;
  std::ostringstream out_;
  std::ostream& err_;
  const bool color_;
  CreateRecord record_;
  // What the steps found, in the order they find it.
  std::optional<std::uint32_t> mode_;
  std::optional<Policy> policy_;
  std::optional<PlannedRegion> region_;
  std::optional<UserFacts> user_;
  std::uint32_t uid_ = 0;
  std::uint32_t gid_ = 0;
  std::uint32_t euid_ = 0;
  RootSpec spec_;
  std::string name_;
  TempRootFacts before_;
  std::optional<std::size_t> index_;
  std::string separator_;
  std::string ns_path_;
  platform::TempDirLocation where_;
  platform::NamespaceRequest request_;
  platform::CreateResult made_;
};

}  // namespace

int run_create_command(const CreateCommandOptions& options, std::ostream& out, std::ostream& err) {
  return run_create_command(options, out, err, system_environment());
}

int run_create_command(const CreateCommandOptions& options, std::ostream& out, std::ostream& err,
                       Environment& env) {
  CreateRun run(options, env, err, !options.output && color_wanted(options.color, env.stdout_is_terminal()));
  const int exit_code = run.run();
  // The report (text or JSON) on `out` or in --output; under --quiet `out` gets only the exit
  // line of a run that does not exit 0 (its reasons are already on `err`).
  std::ostream no_report(nullptr);
  std::ostream& report_out = options.quiet ? no_report : out;
  const ReportFormat format = options.format.value_or(ReportFormat::text);
  const HostInfo host = env.host();
  const auto render = [&](const platform::ContentSink& write) {
    write(format == ReportFormat::json ? dump_json(create_report_json(run.record(), host), 2) + "\n" : run.text());
  };
  if (options.output) {
    if (auto error = write_output_to(*options.output, render, platform::OutputOptions{}, &report_out)) {
      err << "hsperfguard: create: cannot write " << terminal_safe(*options.output) << ": "
          << terminal_safe(error->op) << ": " << terminal_safe(error->message) << "\n";
      return exit_code != kExitOk ? exit_code : static_cast<int>(kExitIncomplete);
    }
  } else {
    render([&](std::string_view piece) { report_out.write(piece.data(), static_cast<std::streamsize>(piece.size())); });
  }
  if (options.quiet && exit_code != kExitOk && exit_code != kExitUsage) {
    out << "exit " << exit_code << ": " << run.record().exit_reason << "\n";
  }
  out.flush();
  return exit_code;
}

SubcommandHook add_create_command(CLI::App& app) {
  struct Parsed {
    CreateCommandOptions options;
    std::string format;
    std::string color = "auto";
    PolicyFileOptions policy;
  };
  auto p = std::make_shared<Parsed>();
  CreateCommandOptions* options = &p->options;
  auto* cmd = app.add_subcommand(
      "create", "Create (or verify) a user's namespace, and optionally a backing region for a pid");
  cmd->footer(
      "The namespace is made with mkdirat beneath the verified temp dir, owned by the user, with\n"
      "no ACL, then judged by the audit's rules. An existing namespace that the rules fault is\n"
      "refused and left alone; each finding says whether `hsperfguard repair` fixes it. A compliant\n"
      "one is never loosened: it only loses the mode bits --mode lacks, and create says what changed.\n"
      "--pid makes a backing file (O_EXCL, 0600, space reserved first) with a valid region.\n"
      "Windows: CreateDirectoryW / CreateFileW(CREATE_NEW) with a protected DACL owned by the\n"
      "user's SID: HotSpot's masks, without Everyone reading a backing file's data.");
  cmd->add_option("--user", options->user, "The user the namespace is named after and owned by")
      ->check(user_name())
      ->required();
  add_temp_dir_options(cmd, options->tmpdir, options->root, "Create in", "this temp dir");
  cmd->add_option("--mode", options->mode, "Mode of a namespace it makes: 0755 (HotSpot's) or 0700; an existing one only loses the bits this mode lacks")
      ->check(CLI::IsMember({"0755", "755", "0700", "700"}))
      ->capture_default_str();
  auto* pid = cmd->add_option("--pid", options->pid, "Also create the backing file of this pid")
                   ->option_text("PID");
  cmd->add_option_function<std::string>(
         "--size", [p](const std::string& text) { p->options.size = *parse_byte_count(text); },
         "Region size in bytes (default 32768; rounded up to the page size)")
      ->check(byte_count())
      ->needs(pid);
  cmd->add_option("--command", options->command, "sun.rt.javaCommand of the region (what jps shows)")
      ->needs(pid);
  add_profile_option(cmd, options->profile, "Rule profile the result is judged with")->capture_default_str();
  add_policy_options(cmd, p->policy);
  add_format_option(cmd, p->format);
  add_output_option(cmd, options->output);
  add_color_option(cmd, p->color);
  cmd->add_flag("-q,--quiet", options->quiet,
                "No report on stdout (use --output): nothing when all is well, else the exit line (the "
                "reasons are on stderr)");
  return SubcommandHook{cmd, [p]() {
                          CreateCommandOptions create = p->options;
                          create.policy_file = p->policy.chosen();
                          create.policy_file_is_default = p->policy.chosen_is_default();
                          create.format = parse_report_format(p->format);
                          create.color = parse_color_choice(p->color);
                          return run_create_command(create, std::cout, std::cerr);
                        }};
}

}  // namespace hsperfguard
