#include "commands/inspect_command.hpp"

#include <CLI/CLI.hpp>
#include <cerrno>
#include <iomanip>
#include <sstream>
#include <iostream>
#include <memory>
#include <ostream>

#include "commands/cli_checks.hpp"
#include "commands/environment.hpp"
#include "commands/exit_codes.hpp"
#include "commands/ps_observation.hpp"
#include "decide/inspect_target.hpp"
#include "model/json_text.hpp"
#include "model/pid_name.hpp"
#include "model/text_escape.hpp"
#include "platform/files.hpp"
#include "report/perfdata_json.hpp"
#include "report/ps_report.hpp"
#include "report/snap.hpp"

namespace hsperfguard {

namespace {

// What the text format says before the counters: which JVM this is and in what state.
struct InspectHeader {
  std::optional<std::int32_t> pid;
  std::string state;                     // "live: pid 4242 maps this file", "stale: no process 4242"
  std::optional<std::uint32_t> uid;      // the file's owner
  std::optional<std::string> user;       // its name, when the host's user database knows it
  // A container JVM's file as the container names it (the file line gives this host's path).
  std::optional<std::string> container_path;
};

std::string counter_text(const perfdata::Region& region, std::string_view name) {
  const perfdata::Entry* e = region.find(name);
  return e != nullptr && e->is_string() ? terminal_safe(e->string_value) : std::string();
}

void print_header(const InspectHeader& h, const perfdata::Region& region, std::int64_t now_ms,
                  std::ostream& out) {
  if (h.pid) out << "pid:     " << *h.pid << (h.state.empty() ? "" : " (" + h.state + ")") << "\n";
  if (const auto main = counter_text(region, "sun.rt.javaCommand"); !main.empty()) out << "main:    " << main << "\n";
  if (h.uid) out << "user:    " << (h.user ? terminal_safe(*h.user) + " (uid " + std::to_string(*h.uid) + ")" : "uid " + std::to_string(*h.uid)) << "\n";
  if (const perfdata::Entry* begin = region.find("sun.rt.createVmBeginTime"); begin != nullptr && !begin->is_string() &&
                                                                             begin->long_value > 0) {
    out << "started: " << format_utc_millis(begin->long_value);
    if (h.state.starts_with("live")) out << " (up " << format_uptime(begin->long_value, now_ms) << ")";
    out << "\n";
  }
  std::string vm = counter_text(region, "java.property.java.vm.version");
  if (const auto name = counter_text(region, "java.property.java.vm.name"); !name.empty()) {
    vm = vm.empty() ? name : vm + " (" + name + ")";
  }
  if (!vm.empty()) out << "JVM:     " << vm << "\n";
}

void print_text(const std::string& path, const perfdata::Region& region, std::ostream& out,
                const InspectHeader& header, std::int64_t now_ms) {
  print_header(header, region, now_ms, out);
  out << "file:    " << terminal_safe(path);
  if (header.container_path) out << " (in its container: " << terminal_safe(*header.container_path) << ")";
  out << "\n";
  if (region.prologue) {
    const auto& p = *region.prologue;
    out << "format:  PerfData " << int{p.major_version} << "." << int{p.minor_version} << ", "
        << perfdata::to_string(p.byte_order) << "-endian, " << region.size << " bytes, used "
        << p.used << ", overflow " << p.overflow << ", accessible " << int{p.accessible} << "\n"
        << "entries: " << region.entries.size() << " (prologue says " << p.num_entries << ")\n";
  }
  std::size_t width = 0;
  for (const auto& e : region.entries) width = std::max(width, e.name.size());
  for (const auto& e : region.entries) {
    out << std::left << std::setw(static_cast<int>(width)) << terminal_safe(e.name) << "  ";
    if (e.is_string()) {
      out << '"' << terminal_safe(e.string_value) << '"';
    } else {
      out << e.long_value << ' ' << perfdata::to_string(e.units);
    }
    out << (e.supported() ? "" : "  (unsupported)") << "\n";
  }
}

// One run of `inspect`: what it was asked, the world it looks at, where it writes.
struct Inspection {
  const InspectOptions& options;
  Environment& env;
  std::ostream& out;
  std::ostream& err;
};

// The header of a file read for `pid` (its owner named from the host's user database when the
// file is in the host's temp dir).
InspectHeader header_for(Inspection& run, std::optional<std::int32_t> pid, std::string state,
                         const platform::FileRead& file, bool host_file) {
  InspectHeader h;
  h.pid = pid;
  h.state = std::move(state);
  if (file.stat) {
    h.uid = file.stat->uid;
    if (host_file) h.user = run.env.users(std::nullopt)->find_name(file.stat->uid);
  }
  return h;
}

// Decodes the region read from `path` and prints it in the format asked for.
int print_region(Inspection& run, const std::string& path, const platform::FileRead& file,
                 const InspectHeader& header, const platform::MappedBackingFile* mapped = nullptr) {
  std::ostream& out = run.out;
  std::ostream& err = run.err;
  if (file.error) {
    err << "hsperfguard: inspect: " << terminal_safe(path) << ": " << terminal_safe(file.error->message) << "\n";
    return kExitIncomplete;
  }
  if (file.bytes.size() > perfdata::kMaxRegionSize) {
    err << "hsperfguard: inspect: " << terminal_safe(path)
        << ": larger than 2 MiB, the largest region a JVM publishes\n";
    return kExitBadData;
  }
  const auto region = perfdata::parse_region(file.bytes);
  if (run.options.format == InspectFormat::json) {
    nlohmann::json j = region_to_json(region);
    // Where the file is on this host; a container's own name for it beside.
    j["path"] = escape_non_utf8(mapped ? mapped->host_path.value_or(mapped->path) : path);
    if (mapped && mapped->host_path) j["container_path"] = escape_non_utf8(mapped->path);
    if (mapped) {
      j["backing_file_deleted"] = mapped->deleted;
      j["read_through"] = mapped->through;
    }
    out << dump_json(j) << "\n";
  } else if (region.valid()) {
    std::ostringstream text;
    if (run.options.format == InspectFormat::snap) {
      for (const auto& line : snap_lines(region, !run.options.supported_only)) text << terminal_safe(line) << "\n";
    } else {
      print_text(path, region, text, header, run.env.now_epoch_ms());
    }
    // On a terminal no line wraps: a JVM's command line or counters long enough to wrap
    // could otherwise start a line of their own that reads as a header of another JVM.
    const auto columns = run.env.stdout_terminal_columns();
    out << (columns ? fit_to_columns(text.str(), *columns) : text.str());
  }
  if (!region.valid()) {
    err << "hsperfguard: inspect: " << terminal_safe(path) << ": not a valid PerfData region: "
        << terminal_safe(region.error->reason) << " (at offset " << region.error->offset << ")\n";
    return kExitBadData;
  }
  return kExitOk;
}

// A path: the pid its name says, its state not looked at (`inspect PID` does).
int inspect_path(Inspection& run) {
  const std::string& target = run.options.target;
  const auto file = run.env.read_backing_file(target, perfdata::kMaxRegionSize + 1);
  // A path that is not there is a mistyped operand: the open's own answer says so.
  if (file.error) {
    if (const auto reason = missing_path_reason(file.error->code)) {
      run.err << "hsperfguard: inspect: " << terminal_safe(target) << ": " << *reason << "\n";
      return kExitUsage;
    }
  }
  const auto name = std::string_view(target).substr(target.find_last_of('/') + 1);
  const PidName named = classify_pid_name(std::string(name), INT32_MAX);
  return print_region(run, target, file,
                      header_for(run, named.kind == PidNameKind::canonical ? named.pid : std::nullopt, "", file, true));
}

// The file the process itself maps, read through its mapping (root): that file and no other,
// whatever else is named after the pid in any namespace.
int inspect_mapped(Inspection& run, std::int32_t pid, const std::string& temp_dir,
                   const platform::MappedBackingFile& mapped) {
  // A container JVM's file is named from its own root: this host reaches it by host_path, and
  // its owner is a uid of the container's users, not of this host's.
  const std::string& host_path = mapped.host_path.value_or(mapped.path);
  const bool in_temp_dir = !mapped.host_path && mapped.path.starts_with(temp_dir + "/");
  if (mapped.deleted) {
    run.err << "hsperfguard: inspect: note: the backing file of pid " << pid << ", " << terminal_safe(host_path)
            << ", was deleted while the JVM runs (a temp cleaner?): jps and jstat find JVMs by that name "
               "and cannot see this one; its counters are read through its mapping, "
            << terminal_safe(mapped.through) << "\n";
  } else if (!in_temp_dir && !mapped.host_path) {
    run.err << "hsperfguard: inspect: note: pid " << pid << " maps " << terminal_safe(mapped.path) << ", not under "
            << terminal_safe(temp_dir) << "; read through " << terminal_safe(mapped.through) << "\n";
  }
  InspectHeader header = header_for(
      run, pid, std::string(mapped.deleted ? "live: it maps this file, deleted since" : "live: it maps this file"),
      mapped.read, in_temp_dir);
  if (mapped.host_path) header.container_path = mapped.path;
  return print_region(run, mapped.deleted ? host_path + " (deleted)" : host_path, mapped.read, header, &mapped);
}

// No file named after the pid could be chosen: why, as ps says it (no such process, not a
// JVM, or ps's diagnosis of a JVM that publishes no backing file), else the refusal.
int explain_no_file(Inspection& run, std::int32_t pid, const std::string& temp_dir, const ProcessFacts& facts,
                    std::size_t files, const InspectTarget& target,
                    const std::optional<platform::MappedBackingFile>& mapped) {
  std::ostream& err = run.err;
  NoBackingFileFacts why;
  why.pid = pid;
  why.existence = facts.existence;
  why.files = files;
  why.maps_libjvm = facts.maps_libjvm;
  std::optional<PsObservation> ps;
  if (facts.existence == ProcessFacts::Existence::alive) {
    why.comm = run.env.process_name(pid);
    if (facts.maps_libjvm != false) {
      ps = observe_ps(PsCommandOptions{}, run.env);
      for (const auto& row : ps->rows) {
        if (row.host_pid == pid && (row.state == "blind" || row.state == "deleted" || row.state == "openj9")) {
          why.jvm = &row;
        }
      }
    }
  }
  if (const auto text = explain_no_backing_file(why)) {
    err << "hsperfguard: inspect: " << *text;
    if (facts.existence == ProcessFacts::Existence::gone) {
      err << ", and no backing file named " << pid << " under " << terminal_safe(temp_dir) << "/hsperfdata_*";
    }
    err << "\n";
    return kExitIncomplete;
  }
  err << "hsperfguard: inspect: " << target.refusal << " (under " << terminal_safe(temp_dir) << "/hsperfdata_*)";
  if (mapped && mapped->read.error) {
    err << "; it maps " << terminal_safe(mapped->path) << (mapped->deleted ? " (deleted)" : "")
        << ", which cannot be read through " << terminal_safe(mapped->through) << ": "
        << terminal_safe(mapped->read.error->message)
        << (mapped->read.error->code == EACCES || mapped->read.error->code == EPERM ? " (reading a mapping needs root)"
                                                                                     : "");
  }
  err << "\n";
  return kExitIncomplete;
}

// A pid whose mapping could not be read: one of the files named after it, chosen by what the
// process says of itself (the file it maps, by identity; else its user), never the newest of
// anyone's.
int inspect_named_file(Inspection& run, std::int32_t pid, const std::string& temp_dir,
                       const std::optional<platform::MappedBackingFile>& mapped) {
  const ProcessFacts facts = run.env.observe_process(pid);
  InspectProcess process;
  process.pid = pid;
  process.existence = facts.existence;
  process.effective_uid = facts.effective_uid;
  process.maps_read = facts.maps_libjvm.has_value();
  if (mapped) process.mapped = InspectProcess::Mapped{mapped->dev, mapped->ino};
  const auto found = run.env.find_backing_files(temp_dir, pid);
  const InspectTarget target = choose_backing_file(process, found);
  for (const auto& note : target.notes) run.err << "hsperfguard: inspect: note: " << note << "\n";
  if (!target.candidate) return explain_no_file(run, pid, temp_dir, facts, found.size(), target, mapped);
  const BackingFileCandidate& chosen = found[*target.candidate];
  platform::FileRead read = run.env.read_backing_file(chosen.path, perfdata::kMaxRegionSize + 1);
  // POSIX candidates carry their identity: the file read must be the one chosen.
  if (!read.error && read.stat && chosen.owner_uid &&
      (read.stat->ino != chosen.ino || read.stat->dev != chosen.dev || read.stat->uid != *chosen.owner_uid)) {
    run.err << "hsperfguard: inspect: " << terminal_safe(chosen.path) << ": replaced while it was chosen and read\n";
    return kExitIncomplete;
  }
  std::string state = process.existence == ProcessFacts::Existence::gone ? "stale: no process " + std::to_string(pid)
                      : process.mapped && process.mapped->dev == chosen.dev && process.mapped->ino == chosen.ino
                          ? "live: it maps this file"
                      : process.maps_read ? "pid " + std::to_string(pid) + " runs and does not map this file"
                                          : "pid " + std::to_string(pid) + " runs; whether it maps this file is unknown";
  return print_region(run, chosen.path, read, header_for(run, pid, std::move(state), read, true));
}

}  // namespace

int run_inspect(const InspectOptions& options, std::ostream& out, std::ostream& err) {
  return run_inspect(options, out, err, system_environment());
}

namespace {

int inspect_target(Inspection& run) {
  const PidName as_pid = classify_pid_name(run.options.target, INT32_MAX);
  if (as_pid.kind != PidNameKind::canonical) return inspect_path(run);
  const std::int32_t pid = *as_pid.pid;
  const std::string temp_dir = run.options.temp_dir.empty() ? run.env.default_temp_dir() : run.options.temp_dir;
  const auto mapped = run.env.read_mapped_backing_file(pid, perfdata::kMaxRegionSize + 1);
  if (mapped && !mapped->read.error) return inspect_mapped(run, pid, temp_dir, *mapped);
  return inspect_named_file(run, pid, temp_dir, mapped);
}

}  // namespace

int run_inspect(const InspectOptions& options, std::ostream& out, std::ostream& err, Environment& env) {
  Inspection run{options, env, out, err};
  const int exit_code = inspect_target(run);
  // The last line says why the status is not 0, on stderr: stdout stays what was decoded
  // (snap lines are read by scripts). A usage error has said what to fix.
  if (exit_code != kExitOk && exit_code != kExitUsage) {
    out.flush();
    err << "hsperfguard: inspect: " << exit_line("inspect", exit_code) << "\n";
  }
  return exit_code;
}

SubcommandHook add_inspect_command(CLI::App& app) {
  struct Parsed {
    InspectOptions options;
    std::string format = "text";
  };
  auto p = std::make_shared<Parsed>();
  auto* cmd = app.add_subcommand("inspect", "Decode one backing file (a path or a pid)");
  cmd->add_option("target", p->options.target, "Backing file path, or a pid: the file that process maps, else its user's")
      ->option_text("FILE|PID")
      ->check(non_empty())
      ->required();
  cmd->add_option("-f,--format", p->format, "snap (jstat -snap lines), json or text")
      ->check(CLI::IsMember({"snap", "json", "text"}));
  cmd->add_flag("--supported-only", p->options.supported_only,
                "snap: only counters flagged supported (like jstat without showUnsupported)");
  cmd->add_option("--tmpdir", p->options.temp_dir, "Where to resolve a pid (default: /tmp)")
      ->check(dir_path());
  return SubcommandHook{cmd, [p]() {
                          InspectOptions inspect = p->options;
                          inspect.format = p->format == "snap"   ? InspectFormat::snap
                                           : p->format == "json" ? InspectFormat::json
                                                                 : InspectFormat::text;
                          return run_inspect(inspect, std::cout, std::cerr);
                        }};
}

}  // namespace hsperfguard
