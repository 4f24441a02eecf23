// The reap executor on Windows. See platform/reap.hpp for the contract; the Windows means:
//
// - Directories are pinned (win::pin_directory): the temp dir and each namespace are opened as
//   themselves (a reparse point is refused by its name's attributes before the open and by
//   the handle's after), compared (volume serial, file index, kind) with the plan, and held
//   without FILE_SHARE_DELETE. While they are held nobody can rename or delete them, so the
//   path of an entry beneath them keeps leading into the directory that was checked: the
//   Windows counterpart of working relative to a verified directory fd.
// - Each entry is opened by that path with FILE_FLAG_OPEN_REPARSE_POINT |
//   FILE_FLAG_BACKUP_SEMANTICS (a link or junction is the entry itself, never its target) and
//   DELETE access, sharing only reading. Its (volume serial, file index, kind) must be the
//   plan's, its volume the namespace's, its link count 1. Held that way, nobody can rename it
//   or open it for writing until we are done, and it is deleted through the handle
//   (SetFileInformationByHandle, FileDispositionInfo): the very file that was checked, never a
//   name looked up again.
// - A live JVM keeps its backing file open for writing (GENERIC_READ|GENERIC_WRITE, shared for
//   reading and deleting: docs/POLICY.md section 4) and mapped. Our open does not share writing, so
//   it fails with a sharing violation while any process has the file open for writing: that
//   is "became-live" ("in-use"), never a removal. The JVM's named mapping
//   (hsperfdata_<user>_<pid>) is looked up again right before, as the flock is on Linux.
// - Windows has no per-thread file-system identity like setfsuid: the executor acts with the
//   process's own token (the plan's acting identity is not used), and the DACLs of the
//   directories decide what it may delete. Nothing recurses, nothing follows a reparse
//   point, nothing but an empty namespace directory the plan names is removed as a directory.
#include <aclapi.h>
#include <sddl.h>
#include <windows.h>

#include <algorithm>
#include <cctype>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "model/digits.hpp"
#include "model/pid_name.hpp"
#include "platform/reap.hpp"
#include "platform/reap_ledger.hpp"
#include "platform/windows/win_util.hpp"

namespace hsperfguard::platform {
namespace {

using Clock = std::chrono::steady_clock;
using win::narrow;
using win::UniqueHandle;
using win::widen;

constexpr DWORD kNoFollow = FILE_FLAG_OPEN_REPARSE_POINT | FILE_FLAG_BACKUP_SEMANTICS;

// What a handle says about the object it holds.
struct Seen {
  std::uint64_t dev = 0;
  std::uint64_t ino = 0;
  FileKind kind = FileKind::unknown;
  std::uint64_t nlink = 0;
};

DWORD seen_of(HANDLE handle, Seen& out) {
  BY_HANDLE_FILE_INFORMATION info{};
  if (!::GetFileInformationByHandle(handle, &info)) return ::GetLastError();
  const InodeFacts facts = win::to_inode_facts(info);
  out.dev = facts.dev;
  out.ino = facts.ino;
  out.kind = facts.kind;
  out.nlink = facts.nlink;
  return ERROR_SUCCESS;
}

// Windows has no numeric owner: identity is (volume serial, file index) and kind.
bool same_entry(const Seen& s, const ExpectedInode& e) {
  return s.dev == e.dev && s.ino == e.ino && s.kind == e.kind;
}

bool not_found(DWORD error) { return error == ERROR_FILE_NOT_FOUND || error == ERROR_PATH_NOT_FOUND; }

bool pid_like(const std::string& name) { return name.size() <= 10 && all_digits(name); }

// The path a handle really names (GetFinalPathNameByHandleW), or nullopt (GetLastError says why).
std::optional<std::wstring> final_path(HANDLE handle) {
  std::wstring buffer(MAX_PATH, L'\0');
  for (;;) {
    const DWORD n = ::GetFinalPathNameByHandleW(handle, buffer.data(), static_cast<DWORD>(buffer.size()),
                                                FILE_NAME_NORMALIZED | VOLUME_NAME_DOS);
    if (n == 0) return std::nullopt;
    if (n < buffer.size()) {
      buffer.resize(n);
      return buffer;
    }
    buffer.resize(n + 1);
  }
}

// A pinned directory whose entries are removed: its path as the plan names it, its volume, and
// the path its handle really names.
struct Place {
  std::wstring path;
  std::uint64_t dev = 0;
  std::wstring real;
};

class Executor {
 public:
  Executor(const Plan& plan, const ExecuteOptions& options, ExecutionResult& result)
      : plan_(plan), ledger_(plan, options, result) {}

  void run() {
    ledger_.run([&](const RootPlan& root, const ExecutionLedger::RootWork& work) { run_root(root, work); });
  }

 private:
  using Batch = ExecutionLedger::Batch;

  void run_root(const RootPlan& root, const ExecutionLedger::RootWork& work) {
    const std::wstring temp_path = win::temp_dir_path(root.kind, root.root_dir, root.temp_dir);
    ObservationError error;
    auto temp = win::pin_directory(temp_path, &error);
    if (!temp) return fail_root(root, error, "temp-dir-changed");
    if (!root.expected || temp->facts.dev != root.expected->dev || temp->facts.ino != root.expected->ino) {
      return fail_root(root, ObservationError{root.temp_dir, "CreateFileW", 0, "replaced since it was observed"},
                       "temp-dir-changed");
    }

    const auto temp_real = final_path(temp->handle.get());
    if (!temp_real) return fail_root(root, win::make_error(root.temp_dir, "GetFinalPathNameByHandleW", ::GetLastError()), "temp-dir-changed");
    const Place temp_place{temp_path, temp->facts.dev, *temp_real};

    // Namespaces and their batches of files are shared between acting threads (a namespace's
    // directory after all its files: ExecutionLedger::share; no identity to switch: any thread
    // will do).
    ledger_.share(work, [&](const ExecutionLedger::NextBatch& next) {
      while (const Batch* batch = next()) run_namespace(temp_place, *batch);
    });

    for (const std::size_t i : work.attach) {
      if (halted()) break;
      remove_entry(temp_place, i, std::nullopt);
    }
  }

  void run_namespace(const Place& temp, const Batch& batch) {
    if (!batch.ns) return;
    const NamespacePlan& ns = plan_.namespaces[*batch.ns];
    auto fail_all = [&](const ObservationError& e, const char* detail) {
      record_error(e);
      for (const std::size_t i : batch.items) settle(i, ReapOutcome::failed, detail, e);
    };
    if (!ns.expected) return fail_all(ObservationError{ns.path, "open", 0, "never observed"}, "namespace-changed");
    const std::wstring ns_path = win::join(temp.path, widen(ns.name));
    ObservationError error;
    auto dir = win::pin_directory(ns_path, &error);
    if (!dir) return fail_all(error, "namespace-changed");
    if (dir->facts.dev != ns.expected->dev || dir->facts.ino != ns.expected->ino) {
      return fail_all(ObservationError{ns.path, "CreateFileW", 0,
                                       "not the directory that was observed (volume or file index changed)"},
                      "namespace-changed");
    }
    if (dir->facts.dev != temp.dev) {
      return fail_all(ObservationError{ns.path, "CreateFileW", 0, "on another volume than its temp dir"},
                      "crosses-mount");
    }
    const auto ns_real = final_path(dir->handle.get());
    if (!ns_real) return fail_all(win::make_error(ns.path, "GetFinalPathNameByHandleW", ::GetLastError()), "namespace-changed");
    const Place place{ns_path, dir->facts.dev, *ns_real};
    for (const std::size_t i : batch.items) {
      if (halted()) break;
      if (plan_.items[i].subject == ReapSubject::namespace_dir) {
        // Planned last. Our own pin shares no deleting: let go of it first (the directory's
        // identity is checked again on the handle that deletes it).
        dir.reset();
        remove_entry(temp, i, std::nullopt);
      } else if (dir) {
        remove_entry(place, i, ns.user);
      }
    }
  }

  // One entry of the pinned directory `dir_path`: a namespace file, an attach file, or an
  // empty namespace directory. `user`: the namespace's user, whose JVMs' mappings are named
  // after it.
  void remove_entry(const Place& place, std::size_t i, const std::optional<std::string>& user) {
    const PlanItem& item = plan_.items[i];
    if (!item.expected) return settle(i, ReapOutcome::changed, "identity-changed");
    const ExpectedInode& want = *item.expected;
    const std::wstring path = win::join(place.path, widen(item.name));

    // The name's own attributes first: wine opens a link's target even under
    // FILE_FLAG_OPEN_REPARSE_POINT, so a reparse point where none was judged is refused here.
    const DWORD attributes = ::GetFileAttributesW(path.c_str());
    if (attributes == INVALID_FILE_ATTRIBUTES) return settle_error(i, ::GetLastError(), "stat");
    if (win::kind_from_attributes(attributes) != want.kind) return settle(i, ReapOutcome::changed, "identity-changed");

    // A JVM with this pid publishes its region through this mapping: it lives after all.
    if (user && item.subject == ReapSubject::namespace_file && pid_like(item.name)) {
      const std::wstring mapping_name = widen("hsperfdata_" + *user + "_" + item.name);
      UniqueHandle mapping(::OpenFileMappingW(READ_CONTROL, FALSE, mapping_name.c_str()));
      if (mapping.valid() || ::GetLastError() == ERROR_ACCESS_DENIED) {
        return settle(i, ReapOutcome::became_live, "mapping-exists");
      }
    }

    // Held as itself, for deleting, sharing only reading: a writer (a JVM) makes this fail,
    // and while it is held nobody can rename it, delete it or open it for writing.
    UniqueHandle handle(::CreateFileW(path.c_str(), DELETE | FILE_READ_ATTRIBUTES | SYNCHRONIZE, FILE_SHARE_READ,
                                      nullptr, OPEN_EXISTING, kNoFollow, nullptr));
    if (!handle.valid()) {
      const DWORD err = ::GetLastError();
      if (err == ERROR_SHARING_VIOLATION) return settle(i, ReapOutcome::became_live, "in-use");
      return settle_error(i, err, "open");
    }
    Seen seen;
    if (const DWORD err = seen_of(handle.get(), seen); err != ERROR_SUCCESS) return settle_error(i, err, "stat");
    if (!same_entry(seen, want)) return settle(i, ReapOutcome::changed, "identity-changed");
    if (seen.dev != place.dev) return settle(i, ReapOutcome::changed, "crosses-mount");
    if (seen.kind != FileKind::directory && seen.nlink > 1) return settle(i, ReapOutcome::changed, "hard-linked");
    // The handle must name the entry itself. Wine opens a Unix symlink's target even under
    // FILE_FLAG_OPEN_REPARSE_POINT, with the target's kind and file index (the plan saw the
    // same): the path the handle really names is then the target's, and nothing is deleted.
    const auto real = final_path(handle.get());
    if (!real) return settle_error(i, ::GetLastError(), "GetFinalPathNameByHandleW");
    if (!win::equal_ignoring_case(*real, win::join(place.real, widen(item.name)))) {
      return settle(i, ReapOutcome::changed, "leads-elsewhere");
    }

    if (!write_ahead(i)) return;
    FILE_DISPOSITION_INFO disposition{};
    disposition.DeleteFile = TRUE;
    if (!::SetFileInformationByHandle(handle.get(), FileDispositionInfo, &disposition, sizeof disposition)) {
      // ERROR_DIR_NOT_EMPTY: something appeared in the namespace since; it stays.
      return settle_error(i, ::GetLastError(), "delete");
    }
    handle.reset();  // the last handle of ours: the name goes now, or when a reader closes its own
    const bool directory = item.subject == ReapSubject::namespace_dir;
    if (::GetFileAttributesW(path.c_str()) != INVALID_FILE_ATTRIBUTES) {
      // Still named. Another process may have it open (for reading, sharing deletion): then
      // it is deleted and its name goes when that process closes it, and opening it now is
      // refused (a file pending deletion cannot be opened). If it opens as the same file,
      // the deletion did not happen.
      UniqueHandle again(::CreateFileW(path.c_str(), FILE_READ_ATTRIBUTES | SYNCHRONIZE,
                                       FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr,
                                       OPEN_EXISTING, kNoFollow, nullptr));
      Seen now;
      if (again.valid() && seen_of(again.get(), now) == ERROR_SUCCESS && now.dev == seen.dev && now.ino == seen.ino) {
        return settle(i, ReapOutcome::failed, "still-present",
                      ObservationError{item.path, "delete", 0, "still present after its deletion was requested"});
      }
      if (!again.valid() && ::GetLastError() == ERROR_ACCESS_DENIED) {
        return settle(i, ReapOutcome::removed, "delete-pending");
      }
      if (again.valid()) {
        return settle(i, ReapOutcome::failed, "swapped-during-unlink",
                      ObservationError{item.path, "delete", 0, "another file took the name right after the deletion"});
      }
    }
    settle(i, ReapOutcome::removed, directory ? "removed-directory" : "unlinked");
  }

  bool write_ahead(std::size_t i) { return ledger_.write_ahead(i); }

  void settle_error(std::size_t i, DWORD error, const char* op) {
    if (not_found(error)) return settle(i, ReapOutcome::vanished, "not-found");
    settle(i, ReapOutcome::failed, op, win::make_error(plan_.items[i].path, op, error));
  }

  void settle(std::size_t i, ReapOutcome outcome, const char* detail,
              std::optional<ObservationError> error = std::nullopt) {
    ledger_.settle(i, outcome, detail, std::move(error));
  }
  void fail_root(const RootPlan& root, const ObservationError& e, const char* detail) {
    ledger_.fail_root(root, e, detail);
  }
  void record_error(const ObservationError& e) { ledger_.record_error(e); }
  bool halted() { return ledger_.halted(); }

  const Plan& plan_;
  ExecutionLedger ledger_;
};

}  // namespace

ExecutionResult execute_plan(const Plan& plan, const ExecuteOptions& options) {
  ExecutionResult result;
  Executor(plan, options, result).run();
  return result;
}

}  // namespace hsperfguard::platform
