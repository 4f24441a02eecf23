#include "commands/create_command.hpp"

#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <ostream>

#include "commands/cli_checks.hpp"
#include "decide/create.hpp"
#include "decide/discover.hpp"
#include "commands/exit_codes.hpp"
#include "platform/create.hpp"
#include "platform/files.hpp"
#include "platform/host.hpp"
#include "platform/observe.hpp"
#include "platform/users.hpp"
#include "model/text_escape.hpp"

namespace hsperfguard {
namespace {

constexpr Severity kBlockingSeverity = Severity::medium;  // the audit's default --fail-on

void print_findings(std::ostream& err, const Findings& findings, const RepairPlan* plan) {
  for (const auto& f : findings) {
    err << "  [" << to_string(f.severity) << "] " << f.rule << ": " << terminal_safe(f.message) << "\n";
    if (plan != nullptr) err << "      " << terminal_safe(repair_advice(*plan, f)) << "\n";
  }
}

void print_error(std::ostream& err, const ObservationError& e) {
  err << "hsperfguard: create: " << terminal_safe(e.path) << ": " << terminal_safe(e.op) << ": "
      << terminal_safe(e.message) << "\n";
}

// The exit code and message for a primitive that failed.
int report_failure(std::ostream& err, const platform::CreateResult& result, const std::string& what) {
  if (result.error) print_error(err, *result.error);
  switch (result.failure) {
    case platform::CreateFailure::exists:
      err << "hsperfguard: create: " << what
          << " already exists (it appeared while this run was working, or was not judged): "
             "refused, nothing changed\n";
      return kExitRefused;
    case platform::CreateFailure::changed:
      err << "hsperfguard: create: " << what
          << " changed while this run was working (replaced, or not what was judged): refused\n";
      return kExitRefused;
    case platform::CreateFailure::no_space:
      err << "hsperfguard: create: no space left for " << what
          << ": nothing was left behind\n";
      return kExitIncomplete;
    default:
      err << "hsperfguard: create: could not make " << what << "\n";
      return kExitIncomplete;
  }
}

}  // namespace

int run_create_command(const CreateCommandOptions& options, std::ostream& out, std::ostream& err) {
  if (auto problem = check_user_name(options.user)) {
    err << "hsperfguard: create: --user: " << *problem << "\n";
    return kExitUsage;
  }
  const auto mode = parse_namespace_mode(options.mode);
  if (!mode) {
    err << "hsperfguard: create: --mode must be 0755 or 0700, not " << terminal_safe(options.mode) << "\n";
    return kExitUsage;
  }
  if (options.pid && *options.pid <= 0) {
    err << "hsperfguard: create: --pid must be a positive process id\n";
    return kExitUsage;
  }
  auto policy = builtin_profile(options.profile);
  if (!policy) {
    err << "hsperfguard: create: unknown profile '" << terminal_safe(options.profile) << "'\n";
    return kExitUsage;
  }
  std::optional<PlannedRegion> region;
  if (options.pid) {
    region = plan_region(RegionRequest{options.size, platform::now_epoch_ms(), options.command},
                         platform::page_size());
    if (region->error) {
      err << "hsperfguard: create: " << *region->error << "\n";
      return kExitUsage;
    }
  }

  // The user, as the system that owns the temp dir knows it.
  auto users = options.root ? platform::root_user_database(*options.root) : platform::host_user_database();
  const auto user = users->find_user(options.user);
  // POSIX accounts have a uid, Windows accounts a SID; either identifies the owner.
  if (!user || (!user->uid && !user->sid)) {
    if (users->failed()) {
      if (auto e = users->error()) print_error(err, *e);
      err << "hsperfguard: create: the user database could not be read\n";
      return kExitIncomplete;
    }
    err << "hsperfguard: create: no such user: " << terminal_safe(options.user) << "\n";
    return kExitUsage;
  }
  const std::uint32_t uid = user->uid.value_or(0);
  const std::uint32_t gid = user->gid.value_or(uid);
  const std::uint32_t euid = platform::observe_host().euid;
  // Without a uid (Windows) the primitive decides: it makes the user's SID the owner when
  // the token may, and says so when it could not.
  if (user->uid && euid != 0 && euid != uid) {
    // Making another user's namespace is exactly the squatting the audit reports.
    err << "hsperfguard: create: only root may create the namespace of another user ("
        << terminal_safe(options.user) << " is uid " << uid << ", this process runs as uid " << euid
        << "): run it as root, or as " << terminal_safe(options.user) << "\n";
    return kExitUsage;
  }

  DiscoverOptions discover;
  discover.tmpdir = options.tmpdir;
  discover.root = options.root;
  discover.host_temp_dir = platform::default_temp_dir();
  const RootSpec spec = discover_roots(discover).front();
  const std::string name = namespace_name_for(options.user);

  // What exists, judged by the audit's rules.
  platform::ObserveOptions observe;
  TempRootFacts before = platform::observe_temp_root(spec, observe);
  if (!before.opened) {
    for (const auto& e : before.errors) print_error(err, e);
    err << "hsperfguard: create: the temp dir " << terminal_safe(spec.temp_dir) << " could not be opened\n";
    return kExitIncomplete;
  }
  const auto index = find_namespace(before, name);
  const CreateAssessment assessment = assess_for_create(before, index, *policy, kBlockingSeverity);
  if (!assessment.blocking_temp_dir.empty()) {
    err << "hsperfguard: create: refused: the temp dir " << terminal_safe(before.temp_dir)
        << " is unsafe, nothing is made beneath it:\n";
    print_findings(err, assessment.blocking_temp_dir, nullptr);
    return kExitRefused;
  }
  const std::string separator = before.platform == Platform::windows ? "\\" : "/";
  const std::string ns_path =
      index ? before.namespaces[*index].path
            : before.temp_dir +
                  (before.temp_dir.ends_with(separator) || before.temp_dir.ends_with('/') ? "" : separator) + name;
  if (!assessment.blocking.empty()) {
    err << "hsperfguard: create: refused: " << terminal_safe(ns_path)
        << " exists and is unsafe; it was left as it is:\n";
    print_findings(err, assessment.blocking, &assessment.repair);
    return kExitRefused;
  }

  platform::TempDirLocation where{spec.kind, spec.root, spec.temp_dir, expected_from(*before.opened)};
  platform::NamespaceRequest request;
  request.where = where;
  request.name = name;
  request.uid = uid;
  request.gid = gid;
  request.mode = *mode;
  request.chown = user->uid && euid == 0 && uid != euid;
  request.owner_sid = user->sid;
  if (index) {
    const NamespaceFacts& ns = before.namespaces[*index];
    if (!ns.opened) {
      for (const auto& e : ns.errors) print_error(err, e);
      err << "hsperfguard: create: " << terminal_safe(ns_path) << " exists but could not be opened\n";
      return kExitIncomplete;
    }
    request.existing = expected_from(*ns.opened);
    request.clear_bits = bits_create_clears(*mode);
  }
  const platform::CreateResult made = platform::make_namespace(request);
  if (!made.ok()) return report_failure(err, made, terminal_safe(ns_path));
  if (made.mode_before) {
    // Say exactly what changed; "verified" is only for a namespace left as it was.
    out << "namespace " << terminal_safe(ns_path) << ": mode " << octal_mode(*made.mode_before) << " -> "
        << octal_mode(made.made->mode) << "\n";
  }
  out << (made.created ? "created " : made.mode_before ? "changed " : "verified ") << terminal_safe(ns_path)
      << " (owner " << terminal_safe(options.user);
  if (user->sid) {
    out << " " << *user->sid << ", protected DACL)\n";  // Windows: no uid, no mode bits
  } else {
    out << " uid " << made.made->uid << ", mode " << octal_mode(made.made->mode) << ")\n";
  }
  for (const auto& note : made.notes) out << "note: " << terminal_safe(note) << "\n";

  if (options.pid) {
    platform::BackingFileRequest file;
    file.where = where;
    file.namespace_name = name;
    file.namespace_expected = *made.made;
    file.name = std::to_string(*options.pid);
    file.uid = uid;
    file.gid = gid;
    file.chown = request.chown;
    file.owner_sid = request.owner_sid;
    file.content = std::move(region->bytes);
    const std::string file_path = ns_path + separator + file.name;
    const std::size_t size = file.content.size();
    const platform::CreateResult written = platform::make_backing_file(file);
    if (!written.ok()) {
      return report_failure(err, written, "backing file " + terminal_safe(file_path) + " (" + std::to_string(size) + " bytes)");
    }
    out << "created " << terminal_safe(file_path) << " (" << size << " bytes, "
        << (user->sid ? std::string("protected DACL") : "mode " + octal_mode(written.made->mode)) << ")\n";
    for (const auto& note : written.notes) out << "note: " << terminal_safe(note) << "\n";
  }

  // What was made must audit clean by the same rules.
  TempRootFacts after = platform::observe_temp_root(spec, observe);
  const auto after_index = find_namespace(after, name);
  if (!after.opened || !after_index) {
    for (const auto& e : after.errors) print_error(err, e);
    err << "hsperfguard: create: " << terminal_safe(ns_path) << " could not be observed after it was made\n";
    return kExitIncomplete;
  }
  const CreateAssessment check = assess_for_create(after, after_index, *policy, kBlockingSeverity);
  if (check.blocked()) {
    err << "hsperfguard: create: " << terminal_safe(ns_path) << " does not audit clean after it was made:\n";
    print_findings(err, check.blocking_temp_dir, nullptr);
    print_findings(err, check.blocking, &check.repair);
    return kExitIncomplete;
  }
  if (!check.notes.empty()) {
    out << "note: findings below " << to_string(kBlockingSeverity) << ":\n";
    print_findings(out, check.notes, nullptr);
  }
  return kExitOk;
}

SubcommandHook add_create_command(CLI::App& app) {
  auto options = std::make_shared<CreateCommandOptions>();
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
  auto* tmpdir = cmd->add_option("--tmpdir", options->tmpdir, "Create in this temp dir instead of /tmp")
                     ->check(dir_path());
  cmd->add_option("--root", options->root, "Create in the system whose root is DIR (its /tmp, its etc/passwd)")
      ->check(dir_path())
      ->excludes(tmpdir);
  cmd->add_option("--mode", options->mode, "Mode of a namespace it makes: 0755 (HotSpot's) or 0700; an existing one only loses the bits this mode lacks")
      ->check(CLI::IsMember({"0755", "755", "0700", "700"}))
      ->capture_default_str();
  auto* pid = cmd->add_option("--pid", options->pid, "Also create the backing file of this pid")
                   ->option_text("PID");
  cmd->add_option_function<std::string>(
         "--size", [options](const std::string& text) { options->size = *parse_byte_count(text); },
         "Region size in bytes (default 32768; rounded up to the page size)")
      ->check(byte_count())
      ->needs(pid);
  cmd->add_option("--command", options->command, "sun.rt.javaCommand of the region (what jps shows)")
      ->needs(pid);
  cmd->add_option("--profile", options->profile, "Rule profile the result is judged with")
      ->check(CLI::IsMember(profile_names()))
      ->capture_default_str();
  return SubcommandHook{cmd, [options]() {
                          return run_create_command(*options, std::cout, std::cerr);
                        }};
}

}  // namespace hsperfguard
