// Liveness evidence on Windows. There is no lock table: a running JVM is recognised by
// the named file mapping it publishes its region through ("hsperfdata_<user>_<pid>",
// docs/POLICY.md section 4), and its process by OpenProcess (observe_process).
//
// The mapping is looked up in this session's object namespace, which is where a JVM of
// the same session creates it: "not found" is reported as "not held", and what keeps a
// file of another session's JVM is its live pid, which OpenProcess sees across sessions.
// Opening the mapping asks for READ_CONTROL only, which HotSpot's DACL grants Everyone;
// "access denied" still proves that the object exists.
#include <windows.h>

#include <string>
#include <unordered_map>

#include "platform/liveness.hpp"
#include "platform/process.hpp"
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

}  // namespace

struct LivenessGatherer::Impl {
  LivenessOptions options;
  std::unordered_map<std::int32_t, ProcessFacts> processes;

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
    if (file.pid_name.pid) lf.candidates.push_back(impl_->process(*file.pid_name.pid));
    file.liveness = std::move(lf);
  }
}

}  // namespace hsperfguard::platform
