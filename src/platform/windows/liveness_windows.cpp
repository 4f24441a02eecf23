// Liveness evidence on Windows. There is no lock table: a running JVM is recognised by
// the named file mapping it publishes its region through ("hsperfdata_<user>_<pid>",
// docs/POLICY.md section 4), and its process by OpenProcess (observe_process). The maps proof:
// a live candidate's mapped views (views_windows.hpp) are compared, by volume serial and file
// index, with the file: "maps it" makes it live whatever else is said, "readable and does not
// map it" lets the judgement tell a reused pid from the JVM (decide/liveness.hpp), and a
// process that cannot be opened for reading stays unknown (nullopt).
//
// The mapping is looked up in this session's object namespace, which is where a JVM of
// the same session creates it: "not found" is reported as "not held", and what keeps a
// file of another session's JVM is its live pid, which OpenProcess sees across sessions.
// Opening the mapping asks for READ_CONTROL only, which HotSpot's DACL grants Everyone;
// "access denied" still proves that the object exists.
#include <windows.h>

#include <algorithm>
#include <string>
#include <unordered_map>
#include <vector>

#include "platform/liveness.hpp"
#include "platform/process.hpp"
#include "platform/windows/views_windows.hpp"
#include "platform/windows/win_util.hpp"

namespace hsperfguard::platform {

namespace {

// The JVM's mapping for this name: true held, false absent, nullopt unknown.
std::optional<bool> mapping_exists(const std::string& user, std::int32_t pid, const std::string& path,
                                   std::vector<ObservationError>& errors) {
  const std::wstring name = win::widen("hsperfdata_" + user + "_" + std::to_string(static_cast<std::uint32_t>(pid)));
  win::UniqueHandle mapping(::OpenFileMappingW(READ_CONTROL, FALSE, name.c_str()));
  if (mapping.valid()) return true;
  const DWORD error = ::GetLastError();
  if (error == ERROR_ACCESS_DENIED) return true;
  if (error == ERROR_FILE_NOT_FOUND) return false;
  errors.push_back(win::make_error(path, "OpenFileMappingW", error));
  return std::nullopt;
}

// The backing files (volume serial, file index) a process maps: views of hsperfdata_*\*
// files only. nullopt when the process cannot be opened or its address space walked, or when
// a view of such a file names something that exists and cannot be opened (a path form this
// process cannot open): "does not map it" would then be a guess, and a guess can make a live
// JVM's file look like a reused pid's.
std::optional<std::vector<win::FileIdentity>> mapped_backing_files(std::int32_t pid) {
  const win::UniqueHandle process(
      ::OpenProcess(PROCESS_QUERY_INFORMATION | PROCESS_VM_READ, FALSE, static_cast<DWORD>(pid)));
  if (!process.valid()) return std::nullopt;
  const auto views = win::mapped_views(process.get(), nullptr);
  if (!views) return std::nullopt;
  std::vector<win::FileIdentity> out;
  for (const auto& view : *views) {
    if (!win::backing_file_user(view.nt_name)) continue;
    bool gone = false;
    const auto id = win::identity_of(win::openable_path(view.nt_name), &gone);
    if (id) {
      out.push_back(*id);
    } else if (!gone) {
      return std::nullopt;
    }
  }
  return out;
}

}  // namespace

struct LivenessGatherer::Impl {
  LivenessOptions options;
  std::unordered_map<std::int32_t, ProcessFacts> processes;
  std::unordered_map<std::int32_t, std::optional<std::vector<win::FileIdentity>>> mapped;

  // Whether live process `pid` maps the file of `inode` (nullopt: cannot tell).
  std::optional<bool> maps(std::int32_t pid, const InodeFacts& inode) {
    auto it = mapped.find(pid);
    if (it == mapped.end()) it = mapped.emplace(pid, mapped_backing_files(pid)).first;
    if (!it->second) return std::nullopt;
    return std::any_of(it->second->begin(), it->second->end(), [&](const win::FileIdentity& id) {
      return id.dev == inode.dev && id.ino == inode.ino;
    });
  }

  const ProcessFacts& process(std::int32_t pid) {
    auto it = processes.find(pid);
    if (it == processes.end()) it = processes.emplace(pid, observe_process(pid)).first;
    return it->second;
  }
};

LivenessGatherer::LivenessGatherer(LivenessOptions options) : impl_(std::make_unique<Impl>()) {
  impl_->options = options;
}

LivenessGatherer::~LivenessGatherer() = default;

const ProcessFacts& LivenessGatherer::process(std::int32_t pid) { return impl_->process(pid); }

void LivenessGatherer::gather(TempRootFacts& root) {
  const LivenessScope scope = liveness_scope_of(root);
  for (auto& ns : root.namespaces) gather(ns, scope);
}

// Windows has no attach files (observation lists none); should a caller hand one over, its
// pid is a process id of this host, the only namespace there is.
void LivenessGatherer::gather(AttachFacts& attach, const LivenessScope& /*scope*/) {
  attach.liveness.reset();
  if (!attach.pid || !attach.lstat) return;
  AttachLiveness& al = attach.liveness.emplace();
  al.candidates.push_back(impl_->process(*attach.pid));
  al.candidates_complete = true;
}

// JVM facts carry no mapped_files here: the views are asked per file (Impl::maps).
void LivenessGatherer::adopt(const std::vector<JvmProcessFacts>& /*jvms*/) {}
// No mount namespaces here: nothing to place.
void LivenessGatherer::adopt(const ContainerScan& /*placed*/) {}

// The named mapping is looked at by gather() whatever the options say: nothing to add.
void LivenessGatherer::gather_locks(TempRootFacts& /*root*/) {}

void LivenessGatherer::gather(NamespaceFacts& ns, const LivenessScope& /*scope*/) {
  for (FileFacts& file : ns.files) {
    const InodeFacts* inode = file.opened ? &*file.opened : file.lstat ? &*file.lstat : nullptr;
    if (inode == nullptr) continue;  // never looked at: nothing to look up
    LivenessFacts lf;
    if (file.pid_name.pid && inode->kind == FileKind::regular) {
      lf.lock_source = "file-mapping";
      lf.lock_held = mapping_exists(ns.user_suffix, *file.pid_name.pid, file.path, file.errors);
    } else {
      lf.lock_source = "none";
    }
    if (file.pid_name.pid) {
      ProcessFacts candidate = impl_->process(*file.pid_name.pid);
      if (candidate.existence == ProcessFacts::Existence::alive &&
          inode->kind == FileKind::regular) {
        candidate.maps_backing_file = impl_->maps(*file.pid_name.pid, *inode);
      }
      lf.candidates.push_back(std::move(candidate));
    }
    file.liveness = std::move(lf);
  }
}

}  // namespace hsperfguard::platform
