// JVM processes on Windows: every process whose module list holds jvm.dll (a Toolhelp
// snapshot of the processes, EnumProcessModulesEx of each), with its mapped views
// (VirtualQueryEx + GetMappedFileNameW, views_windows.hpp) as the maps proof: a JVM that maps
// no view of an hsperfdata_<user>\<name> file is blind; one whose mapped file has no name any
// more is a JVM whose backing file was deleted.
//
// The command line and the environment (both read from the process's PEB; the command line
// split as the C runtime splits it, CommandLineToArgvW) tell -XX:-UsePerfData and
// -XX:+PerfDisableSharedMem, given there or in JAVA_TOOL_OPTIONS and the others, and the temp
// dir the JVM uses: HotSpot takes it from its own TMP, TEMP or USERPROFILE (GetTempPath), so a
// JVM of another account, a service's, publishes in that account's temp dir. A JVM whose
// environment cannot be read is assumed to use this host's temp dir (the user's, as this
// process sees it); one that maps a backing file uses the temp dir that file is in. Processes
// that cannot be opened for reading (other accounts' without administrator rights, protected
// processes) are counted in one error.
#include <windows.h>
// After windows.h, whose types it uses.
#include <shellapi.h>
#include <tlhelp32.h>
#include <winternl.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/jvm_options.hpp"
#include "platform/containers.hpp"
#include "platform/files.hpp"
#include "platform/process.hpp"
#include "platform/ps.hpp"
#include "platform/windows/security_windows.hpp"
#include "platform/windows/views_windows.hpp"
#include "platform/windows/win_util.hpp"

namespace hsperfguard::platform {
namespace {

using win::narrow;
using win::UniqueHandle;
using win::widen;

bool read_memory(HANDLE process, const void* from, void* to, std::size_t size) {
  SIZE_T done = 0;
  return ::ReadProcessMemory(process, from, to, size, &done) && done == size;
}

// The head of a process's parameters: winternl.h's documented fields, then the pointer to its
// environment block, which follows CommandLine in the structure ntdll keeps (the same place
// on every Windows NT since XP, and in wine).
struct ProcessParametersHead {
  RTL_USER_PROCESS_PARAMETERS documented;
  const wchar_t* environment;
};

// The process's parameters, read where the process keeps them (its PEB; a process of this
// one's bitness). nullopt when they cannot be read.
std::optional<ProcessParametersHead> process_parameters(HANDLE process) {
  using Query = LONG(NTAPI*)(HANDLE, PROCESSINFOCLASS, PVOID, ULONG, PULONG);
  const auto query = reinterpret_cast<Query>(reinterpret_cast<void*>(
      ::GetProcAddress(::GetModuleHandleW(L"ntdll.dll"), "NtQueryInformationProcess")));
  if (query == nullptr) return std::nullopt;
  PROCESS_BASIC_INFORMATION basic{};
  ULONG length = 0;
  if (query(process, ProcessBasicInformation, &basic, sizeof basic, &length) < 0 ||
      basic.PebBaseAddress == nullptr) {
    return std::nullopt;
  }
  PEB peb{};
  ProcessParametersHead parameters{};
  if (!read_memory(process, basic.PebBaseAddress, &peb, sizeof peb) || peb.ProcessParameters == nullptr ||
      !read_memory(process, peb.ProcessParameters, &parameters, sizeof parameters)) {
    return std::nullopt;
  }
  return parameters;
}

// Its command line as one string; nullopt when it cannot be read.
std::optional<std::wstring> command_line_of(HANDLE process, const ProcessParametersHead& parameters) {
  const UNICODE_STRING& line = parameters.documented.CommandLine;
  if (line.Buffer == nullptr || line.Length == 0 || line.Length > 65534) return std::nullopt;
  std::wstring text(line.Length / sizeof(wchar_t), L'\0');
  if (!read_memory(process, line.Buffer, text.data(), line.Length)) return std::nullopt;
  return text;
}

// Its environment block (NAME=value entries, each ended by a NUL, the block by another) as
// NUL-separated UTF-8, read a page at a time up to the empty entry that ends it (a read never
// crosses into a page that may not be mapped); nullopt when it cannot be read or is longer
// than 1 MiB.
std::optional<std::string> environment_of(HANDLE process, const ProcessParametersHead& parameters) {
  constexpr std::size_t kMaxBytes = 1 << 20;
  constexpr std::size_t kPage = 4096;
  if (parameters.environment == nullptr) return std::nullopt;
  const auto* at = reinterpret_cast<const char*>(parameters.environment);
  std::wstring block;
  while (block.size() * sizeof(wchar_t) < kMaxBytes) {
    const std::size_t to_page_end = kPage - (reinterpret_cast<std::uintptr_t>(at) % kPage);
    std::wstring chunk(to_page_end / sizeof(wchar_t), L'\0');
    if (chunk.empty() || !read_memory(process, at, chunk.data(), chunk.size() * sizeof(wchar_t))) return std::nullopt;
    at += chunk.size() * sizeof(wchar_t);
    block += chunk;
    if (const auto end = block.find(std::wstring_view(L"\0\0", 2)); end != std::wstring::npos) {
      block.resize(end + 1);
      std::string out;
      std::size_t from = 0;
      while (from < block.size()) {
        const std::size_t nul = block.find(L'\0', from);
        out += narrow(std::wstring_view(block).substr(from, nul - from));
        out.push_back('\0');
        from = nul + 1;
      }
      return out;
    }
  }
  return std::nullopt;
}

// Its arguments, as NUL-separated bytes (the form perf_data_option reads) and for people
// (separated by blanks).
struct Arguments {
  std::string nul_separated;
  std::string shown;
};
std::optional<Arguments> arguments_of(const std::wstring& command_line) {
  int count = 0;
  LPWSTR* argv = ::CommandLineToArgvW(command_line.c_str(), &count);
  if (argv == nullptr) return std::nullopt;
  Arguments out;
  for (int i = 0; i < count; ++i) {
    const std::string arg = narrow(argv[i]);
    out.nul_separated += arg;
    out.nul_separated.push_back('\0');
    out.shown += (i == 0 ? "" : " ") + arg;
  }
  ::LocalFree(reinterpret_cast<HLOCAL>(argv));
  return out;
}

// Identity of a directory, opened as itself.
void set_temp_dir(JvmProcessFacts& jvm, const std::wstring& path) {
  ObservationError ignored;
  if (const auto pinned = win::pin_directory(path, &ignored)) {
    jvm.temp_dir_dev = pinned->facts.dev;
    jvm.temp_dir_ino = pinned->facts.ino;
  }
}

std::wstring parent_of(const std::wstring& path) {
  const auto slash = path.find_last_of(L"\\/");
  return slash == std::wstring::npos ? std::wstring() : path.substr(0, slash);
}

// What a JVM's mapped views say: whether one of them is a backing file, and then that file's
// temp dir and whether it was deleted. Views that cannot be listed are an error in `errors`
// (`error` says which), and leave maps_backing_file unknown.
void read_mapped_backing_file(HANDLE process, DWORD pid, JvmProcessFacts& jvm,
                              ObservationError& error, std::vector<ObservationError>& errors) {
  const auto views = win::mapped_views(process, &error);
  if (!views) {
    error.path = "pid " + std::to_string(pid);
    errors.push_back(error);  // maps_backing_file stays unknown
    return;
  }
  jvm.maps_backing_file = false;
  for (const auto& view : *views) {
    if (!win::backing_file_user(view.nt_name)) continue;
    jvm.maps_backing_file = true;
    const std::wstring shown = win::display_path(view.nt_name);
    jvm.mapped_backing_file = narrow(shown);
    bool gone = false;
    win::identity_of(win::openable_path(view.nt_name), &gone);
    jvm.backing_file_deleted = gone;
    set_temp_dir(jvm, parent_of(parent_of(shown)));
    break;
  }
}

// A process whose modules hold jvm.dll, observed as a JVM: its account, its command line's
// flags, its mapped backing file and its temp dir. nullopt when it exited meanwhile.
std::optional<JvmProcessFacts> observe_jvm(HANDLE process, DWORD pid, const std::wstring& host_temp,
                                           const std::wstring& windows_dir,
                                           ObservationError& error,
                                           std::vector<ObservationError>& errors) {
  JvmProcessFacts jvm;
  jvm.process = observe_process(static_cast<std::int32_t>(pid));
  if (jvm.process.existence != ProcessFacts::Existence::alive) return std::nullopt;
  jvm.process.maps_libjvm = true;
  // HotSpot names its namespace after the account name (GetUserName in the JVM).
  if (const auto sid = win::process_user_sid(process, nullptr)) jvm.user = win::account_name(*sid);
  const auto parameters = process_parameters(process);
  const auto environment = parameters ? environment_of(process, *parameters) : std::nullopt;
  if (environment) {
    jvm.environment_read = true;
    jvm.temp_dir_path = windows_temp_dir(*environment, narrow(windows_dir));
  }
  if (const auto line = parameters ? command_line_of(process, *parameters) : std::nullopt) {
    if (auto arguments = arguments_of(*line)) {
      jvm.command_line = std::move(arguments->shown);
      // JAVA_TOOL_OPTIONS and _JAVA_OPTIONS too, when its environment was read.
      jvm.perf_data = perf_data_option(arguments->nul_separated, environment.value_or(""));
    }
  }
  read_mapped_backing_file(process, pid, jvm, error, errors);
  // One that maps no backing file would have made it in the temp dir its environment names
  // (another account's, when it runs as one); this host's when that could not be read.
  if (!jvm.temp_dir_dev) set_temp_dir(jvm, jvm.temp_dir_path ? widen(*jvm.temp_dir_path) : host_temp);
  return jvm;
}

}  // namespace

std::vector<JvmProcessFacts> observe_jvm_processes(std::vector<ObservationError>& errors,
                                                   const RunLimits& limits,
                                                   std::vector<ObservationError>* partial) {
  std::vector<JvmProcessFacts> jvms;
  const UniqueHandle snapshot(::CreateToolhelp32Snapshot(TH32CS_SNAPPROCESS, 0));
  if (!snapshot.valid()) {
    errors.push_back(win::make_error("processes", "CreateToolhelp32Snapshot", ::GetLastError()));
    return jvms;
  }
  const DWORD self = ::GetCurrentProcessId();
  const std::wstring host_temp = widen(default_temp_dir());
  const std::wstring windows_dir = win::windows_directory();
  std::size_t not_opened = 0;
  std::size_t unreadable = 0;
  PROCESSENTRY32W entry{};
  entry.dwSize = sizeof entry;
  for (BOOL more = ::Process32FirstW(snapshot.get(), &entry); more;
       more = ::Process32NextW(snapshot.get(), &entry)) {
    const DWORD pid = entry.th32ProcessID;
    if (const char* why = limits.reached()) {
      (partial != nullptr ? *partial : errors)
          .push_back(ObservationError{"processes", "scan", ERROR_OPERATION_ABORTED,
                                      std::string("stopped (") + why +
                                          "): not every process was looked at for jvm.dll"});
      break;
    }
    if (pid == 0 || pid == 4 || pid == self) continue;  // the idle and system processes, and us
    const UniqueHandle process(
        ::OpenProcess(PROCESS_QUERY_INFORMATION | PROCESS_VM_READ, FALSE, pid));
    if (!process.valid()) {
      // Gone since the snapshot (ERROR_INVALID_PARAMETER) is nothing; anything else hides a
      // process that may be a JVM.
      if (::GetLastError() != ERROR_INVALID_PARAMETER) ++not_opened;
      continue;
    }
    ObservationError error;
    const auto is_jvm = win::has_module(process.get(), L"jvm.dll", &error);
    if (!is_jvm) {
      // A process exiting or still starting has no readable module list: counted, not listed.
      ++unreadable;
      continue;
    }
    if (!*is_jvm) continue;

    // None when it exited meanwhile.
    if (auto jvm = observe_jvm(process.get(), pid, host_temp, windows_dir, error, errors)) {
      jvms.push_back(std::move(*jvm));
    }
  }
  if (not_opened > 0 || unreadable > 0) {
    errors.push_back(
        ObservationError{"processes", "OpenProcess", not_opened > 0 ? ERROR_ACCESS_DENIED : 0,
                         std::to_string(not_opened) + " processes could not be opened and " +
                             std::to_string(unreadable) +
                             " had no readable module list: JVMs among them are not listed "
                             "(run as an administrator to see other accounts' processes)"});
  }
  std::sort(jvms.begin(), jvms.end(), [](const JvmProcessFacts& a, const JvmProcessFacts& b) {
    return a.process.pid < b.process.pid;
  });
  return jvms;
}

// No containers to scan here (platform/containers.hpp): the JVMs are the one pass.
HostProcesses scan_host_processes(const ContainerScanOptions& options,
                                  std::vector<ObservationError>& errors) {
  HostProcesses host;
  host.containers = scan_container_temp_dirs(options);
  host.jvms = observe_jvm_processes(errors, options.limits);
  return host;
}

}  // namespace hsperfguard::platform
