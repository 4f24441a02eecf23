// create on Windows. See platform/create.hpp for the sequence; the reasons are here.
//
// The descriptor is given at creation (CreateDirectoryW, CreateFileW with SECURITY_ATTRIBUTES),
// never applied afterwards: a namespace or file that exists for an instant with the temp
// dir's inherited DACL is a namespace somebody may already have opened. Nothing existing is
// reused or followed: CreateDirectoryW and CREATE_NEW fail on any existing name, a link
// included, and every directory we work beneath is opened as itself, checked against what
// observation saw, and held without FILE_SHARE_DELETE so that it stays where it is.
//
// repair sets the DACL a plan gives a namespace or backing file (decide/repair.hpp: the
// protected DACL create gives), through a handle opened as the object itself (never through a
// reparse point) and compared with what was judged, then reads it back through that handle:
// fixed only if the stored DACL is the one given. It changes no owner and removes nothing.
#include <windows.h>

#include <aclapi.h>
#include <sddl.h>

#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <utility>

#include "model/perfdata.hpp"
#include "platform/create.hpp"
#include "platform/windows/security_windows.hpp"
#include "platform/windows/win_util.hpp"

namespace hsperfguard::platform {
namespace {

using win::narrow;
using win::UniqueHandle;
using win::widen;

CreateFailure failure_of(DWORD error) {
  if (error == ERROR_ALREADY_EXISTS || error == ERROR_FILE_EXISTS) return CreateFailure::exists;
  if (error == ERROR_DISK_FULL || error == ERROR_HANDLE_DISK_FULL) return CreateFailure::no_space;
  return CreateFailure::failed;
}

void fail(CreateResult& result, const std::string& path, const char* op, DWORD error) {
  result.failure = failure_of(error);
  result.error = win::make_error(path, op, error);
  if (result.failure == CreateFailure::no_space) result.error->message += " (the file system is full)";
}

void changed(CreateResult& result, const std::string& path, const char* op, std::string why) {
  result.failure = CreateFailure::changed;
  result.error = ObservationError{path, op, 0, std::move(why)};
}

ExpectedInode expected_of(const InodeFacts& facts) { return expected_from(facts); }

// A directory we work beneath, opened as itself and compared with what was judged. On
// failure `result` says why: a reparse point, a file or another directory under the name is
// "changed", a failed system call "failed".
std::optional<win::PinnedDirectory> pin_checked(const std::wstring& path, const std::optional<ExpectedInode>& want,
                                                const char* not_it, CreateResult& result) {
  ObservationError error;
  auto pinned = win::pin_directory(path, &error);
  if (!pinned) {
    // pin_directory says "not a directory" with code 0: something else took the name.
    result.failure = error.code == 0 || error.code == ERROR_FILE_NOT_FOUND || error.code == ERROR_PATH_NOT_FOUND
                         ? CreateFailure::changed
                         : CreateFailure::failed;
    result.error = error;
    return std::nullopt;
  }
  if (want && (pinned->facts.dev != want->dev || pinned->facts.ino != want->ino)) {
    changed(result, narrow(path), "CreateFileW", not_it);
    return std::nullopt;
  }
  return pinned;
}

std::optional<win::PinnedDirectory> pin_temp_dir(const TempDirLocation& where, CreateResult& result) {
  return pin_checked(win::temp_dir_path(where.kind, where.root_dir, where.temp_dir), where.expected,
                     "replaced since it was observed", result);
}

// Lets this process make another account the owner of what it creates: Windows accepts as
// owner only the token's own user (or a group it holds as owner) unless SeRestorePrivilege is
// enabled. Enabled for one create call only and put back as it was: the privilege also
// bypasses DACLs on opens with FILE_FLAG_BACKUP_SEMANTICS, which nothing else here needs.
class RestorePrivilege {
 public:
  RestorePrivilege() {
    HANDLE raw = nullptr;
    if (!::OpenProcessToken(::GetCurrentProcess(), TOKEN_ADJUST_PRIVILEGES | TOKEN_QUERY, &raw)) return;
    token_.reset(raw);
    TOKEN_PRIVILEGES wanted{};
    wanted.PrivilegeCount = 1;
    wanted.Privileges[0].Attributes = SE_PRIVILEGE_ENABLED;
    if (!::LookupPrivilegeValueW(nullptr, L"SeRestorePrivilege", &wanted.Privileges[0].Luid)) return;
    DWORD size = sizeof previous_;
    // ERROR_NOT_ALL_ASSIGNED: the token does not hold it; Windows then refuses the owner.
    adjusted_ = ::AdjustTokenPrivileges(token_.get(), FALSE, &wanted, sizeof previous_, &previous_, &size) &&
                ::GetLastError() == ERROR_SUCCESS;
  }
  RestorePrivilege(const RestorePrivilege&) = delete;
  RestorePrivilege& operator=(const RestorePrivilege&) = delete;
  ~RestorePrivilege() {
    if (adjusted_) ::AdjustTokenPrivileges(token_.get(), FALSE, &previous_, 0, nullptr, nullptr);
  }

 private:
  UniqueHandle token_;
  TOKEN_PRIVILEGES previous_{};
  bool adjusted_ = false;
};

// Who owns and who is granted what we make: the user's SID, or this process's user.
struct Ownership {
  std::string owner;
  std::string user;
  bool another_account = false;  // the user is not this process's: SeRestorePrivilege is needed
};

std::optional<Ownership> resolve_ownership(const std::optional<std::string>& owner_sid, const std::string& path,
                                           CreateResult& result) {
  ObservationError error;
  const auto token = win::current_user_sid(&error);
  if (!token) {
    result.failure = CreateFailure::failed;
    error.path = path;
    result.error = error;
    return std::nullopt;
  }
  const std::string user = owner_sid.value_or(*token);
  return Ownership{user, user, user != *token};
}

// Runs `create` with the descriptor for `object`; when Windows refuses the user as owner
// (ERROR_INVALID_OWNER: not our own SID and no SeRestorePrivilege), once more with this
// process's user as owner, and notes it. Returns the last error (ERROR_SUCCESS when made).
DWORD create_with_descriptor(win::CreatedObject object, Ownership& who, bool everyone_may_list,
                             const std::string& path, CreateResult& result, const char*& op,
                             const std::function<DWORD(SECURITY_ATTRIBUTES&)>& create) {
  std::optional<RestorePrivilege> privilege;
  if (who.another_account) privilege.emplace();
  for (int attempt = 0; attempt < 2; ++attempt) {
    const std::string sddl = win::creation_sddl(object, who.owner, who.user, everyone_may_list);
    win::LocalPtr<PSECURITY_DESCRIPTOR> descriptor;
    if (!::ConvertStringSecurityDescriptorToSecurityDescriptorW(widen(sddl).c_str(), SDDL_REVISION_1,
                                                                descriptor.out(), nullptr)) {
      op = "ConvertStringSecurityDescriptorToSecurityDescriptorW";
      return ::GetLastError();
    }
    SECURITY_ATTRIBUTES attributes{sizeof(SECURITY_ATTRIBUTES), descriptor.get(), FALSE};
    const DWORD error = create(attributes);
    if (error != ERROR_INVALID_OWNER || attempt > 0) return error;
    ObservationError token_error;
    const auto token = win::current_user_sid(&token_error);
    if (!token || *token == who.owner) return error;
    result.notes.push_back(path + ": owned by this process's user " + *token + ", not by " + who.user +
                           " (making another account the owner needs SeRestorePrivilege)");
    who.owner = *token;
  }
  return ERROR_INVALID_OWNER;
}

bool same_dacl(const SecurityDescriptor& a, const SecurityDescriptor& b) {
  constexpr std::uint16_t kProtected = SE_DACL_PROTECTED;
  if (a.dacl_present != b.dacl_present || (a.control & kProtected) != (b.control & kProtected) ||
      a.dacl.size() != b.dacl.size()) {
    return false;
  }
  for (std::size_t i = 0; i < a.dacl.size(); ++i) {
    const Ace& x = a.dacl[i];
    const Ace& y = b.dacl[i];
    if (x.type != y.type || x.flags != y.flags || x.mask != y.mask || x.sid != y.sid) return false;
  }
  return true;
}

// Writes the DACL of `wanted` through `handle` as a protected DACL (nothing inherited) and
// reads the descriptor back through the handle into `stored`: an error unless the stored DACL
// is the one given (a file system that derives descriptors, as wine does from POSIX mode
// bits, keeps another). `handle` needs READ_CONTROL and WRITE_DAC.
std::optional<ObservationError> set_dacl_and_verify(HANDLE handle, PSECURITY_DESCRIPTOR wanted,
                                                    const std::string& path,
                                                    SecurityDescriptor& stored) {
  const SecurityDescriptor want = win::to_security_descriptor(wanted);
  BOOL present = FALSE;
  BOOL defaulted = FALSE;
  PACL dacl = nullptr;
  if (!::GetSecurityDescriptorDacl(wanted, &present, &dacl, &defaulted) || !present ||
      dacl == nullptr) {
    return win::make_error(path, "GetSecurityDescriptorDacl", ::GetLastError());
  }
  const DWORD rc = ::SetSecurityInfo(
      handle, SE_FILE_OBJECT, DACL_SECURITY_INFORMATION | PROTECTED_DACL_SECURITY_INFORMATION,
      nullptr, nullptr, dacl, nullptr);
  if (rc != ERROR_SUCCESS) return win::make_error(path, "SetSecurityInfo", rc);
  ObservationError error;
  auto again = win::read_security(handle, path, &error);
  if (!again) return error;
  stored = std::move(*again);
  if (!same_dacl(stored, want)) {
    const bool kept_protected = (stored.control & SE_DACL_PROTECTED) != 0;
    return ObservationError{
        path, "SetSecurityInfo", 0,
        "the file system does not keep the protected DACL it was given (it reads back " +
            std::string(kept_protected ? "protected" : "unprotected") + ", with " +
            std::to_string(stored.dacl.size()) + " ACEs)"};
  }
  return std::nullopt;
}

// Proves that the object carries the descriptor it was created with, read back through the
// handle the way observation reads it. Windows stores the descriptor given at creation; an
// implementation that only derives one (wine maps it onto POSIX mode bits and back, without
// SE_DACL_PROTECTED) gets the DACL set once more through the handle, and is read again. An
// owner other than the one asked for is not changed here: it is noted. `handle` needs
// READ_CONTROL and WRITE_DAC.
std::optional<ObservationError> ensure_descriptor(HANDLE handle, win::CreatedObject object, const Ownership& who,
                                                  bool everyone_may_list, const std::string& path,
                                                  CreateResult& result) {
  const std::string sddl = win::creation_sddl(object, who.owner, who.user, everyone_may_list);
  win::LocalPtr<PSECURITY_DESCRIPTOR> wanted;
  if (!::ConvertStringSecurityDescriptorToSecurityDescriptorW(widen(sddl).c_str(), SDDL_REVISION_1, wanted.out(),
                                                              nullptr)) {
    return win::make_error(path, "ConvertStringSecurityDescriptorToSecurityDescriptorW", ::GetLastError());
  }
  const SecurityDescriptor want = win::to_security_descriptor(wanted.get());
  ObservationError error;
  auto stored = win::read_security(handle, path, &error);
  if (!stored) return error;
  if (!same_dacl(*stored, want)) {
    if (auto bad = set_dacl_and_verify(handle, wanted.get(), path, *stored)) return bad;
  }
  if (stored->owner_sid != want.owner_sid) {
    result.notes.push_back(path + ": owned by " + stored->owner_sid.value_or("nobody") + ", not by " +
                           want.owner_sid.value_or("") + " as asked");
  }
  return std::nullopt;
}

// The directory just made, opened as itself to be checked, secured and (if that fails)
// removed: never a reparse point, held without FILE_SHARE_DELETE. DELETE is asked for when
// the token has it (not when another account was made the owner without the right to).
std::optional<UniqueHandle> open_made_directory(const std::wstring& path, InodeFacts& facts, CreateResult& result) {
  const std::string shown = narrow(path);
  const DWORD attributes = ::GetFileAttributesW(path.c_str());
  if (attributes == INVALID_FILE_ATTRIBUTES || win::kind_from_attributes(attributes) != FileKind::directory) {
    changed(result, shown, "GetFileAttributesW", "the directory just made was replaced before it could be opened");
    return std::nullopt;
  }
  constexpr DWORD kAccess = READ_CONTROL | WRITE_DAC | FILE_LIST_DIRECTORY | FILE_READ_ATTRIBUTES | SYNCHRONIZE;
  UniqueHandle handle;
  for (const DWORD access : {kAccess | DELETE, kAccess}) {
    handle.reset(::CreateFileW(path.c_str(), access, FILE_SHARE_READ | FILE_SHARE_WRITE, nullptr, OPEN_EXISTING,
                               FILE_FLAG_OPEN_REPARSE_POINT | FILE_FLAG_BACKUP_SEMANTICS, nullptr));
    if (handle.valid() || ::GetLastError() != ERROR_ACCESS_DENIED) break;
  }
  if (!handle.valid()) {
    fail(result, shown, "CreateFileW", ::GetLastError());
    return std::nullopt;
  }
  ObservationError error;
  auto opened = win::inode_facts_of(handle.get(), shown, &error);
  if (!opened) {
    result.failure = CreateFailure::failed;
    result.error = error;
    return std::nullopt;
  }
  if (opened->kind != FileKind::directory) {
    changed(result, shown, "CreateFileW", "the directory just made was replaced before it could be opened");
    return std::nullopt;
  }
  facts = *opened;
  return handle;
}

DWORD write_at(HANDLE file, const std::byte* data, std::size_t size, std::uint64_t at) {
  while (size > 0) {
    OVERLAPPED where{};
    where.Offset = static_cast<DWORD>(at & 0xFFFFFFFFu);
    where.OffsetHigh = static_cast<DWORD>(at >> 32);
    const auto chunk = static_cast<DWORD>(std::min<std::size_t>(size, std::size_t{1} << 20));
    DWORD written = 0;
    if (!::WriteFile(file, data, chunk, &written, &where)) return ::GetLastError();
    if (written == 0) return ERROR_WRITE_FAULT;
    data += written;
    size -= written;
    at += written;
  }
  return ERROR_SUCCESS;
}

// Gives the space of a file we made back, then deletes that very file through its handle;
// result's error says whether it went.
void discard_made_file(UniqueHandle& file, CreateResult& result) {
  FILE_END_OF_FILE_INFO empty{};
  ::SetFileInformationByHandle(file.get(), FileEndOfFileInfo, &empty, sizeof empty);
  FILE_DISPOSITION_INFO disposition{};
  disposition.DeleteFile = TRUE;
  const bool gone = ::SetFileInformationByHandle(file.get(), FileDispositionInfo, &disposition, sizeof disposition);
  const DWORD why = gone ? ERROR_SUCCESS : ::GetLastError();
  file.reset();
  result.error->message += gone ? "; the file was removed again"
                                : "; the file could not be removed again: " + win::error_message(why);
}

// The region written into the file just made: its full size first, so that a full volume
// fails here and not in a reader; then every byte (a set end alone may be sparse), the
// entries first and the prologue (which makes them visible) last; then flushed. Returns the
// error and sets `failed_op`, or ERROR_SUCCESS.
DWORD write_region(HANDLE file, const std::vector<std::byte>& content, const char*& failed_op) {
  FILE_END_OF_FILE_INFO end{};
  end.EndOfFile.QuadPart = static_cast<LONGLONG>(content.size());
  if (!::SetFileInformationByHandle(file, FileEndOfFileInfo, &end, sizeof end)) {
    failed_op = "SetFileInformationByHandle";
    return ::GetLastError();
  }
  const std::size_t head = std::min(content.size(), perfdata::kPrologueSize);
  failed_op = "WriteFile";
  if (const DWORD err = write_at(file, content.data() + head, content.size() - head, head); err != ERROR_SUCCESS) {
    return err;
  }
  if (const DWORD err = write_at(file, content.data(), head, 0); err != ERROR_SUCCESS) return err;
  if (!::FlushFileBuffers(file)) {
    failed_op = "FlushFileBuffers";
    return ::GetLastError();
  }
  return ERROR_SUCCESS;
}

}  // namespace

std::size_t page_size() {
  SYSTEM_INFO info;
  ::GetSystemInfo(&info);
  return info.dwPageSize > 0 ? static_cast<std::size_t>(info.dwPageSize) : 4096;
}

CreateResult make_namespace(const NamespaceRequest& request) {
  CreateResult result;
  const auto temp = pin_temp_dir(request.where, result);
  if (!temp) return result;
  const std::wstring wide_path =
      win::join(win::temp_dir_path(request.where.kind, request.where.root_dir, request.where.temp_dir),
                widen(request.name));
  const std::string path = narrow(wide_path);

  if (request.existing) {
    // Verify the namespace that was judged compliant. Its DACL was judged too; it is left as is.
    const auto dir = pin_checked(wide_path, request.existing, "not the directory that was observed and judged", result);
    if (!dir) return result;
    if (dir->facts.dev != temp->facts.dev) {
      changed(result, path, "CreateFileW", "not on the temp dir's volume");
      return result;
    }
    result.made = expected_of(dir->facts);
    return result;
  }

  auto who = resolve_ownership(request.owner_sid, path, result);
  if (!who) return result;
  const bool everyone_may_list = (request.mode & 0005) != 0;
  const char* op = "CreateDirectoryW";
  const DWORD error = create_with_descriptor(
      win::CreatedObject::namespace_directory, *who, everyone_may_list, path, result, op,
      [&](SECURITY_ATTRIBUTES& attributes) -> DWORD {
        return ::CreateDirectoryW(wide_path.c_str(), &attributes) ? ERROR_SUCCESS : ::GetLastError();
      });
  if (error != ERROR_SUCCESS) {
    fail(result, path, op, error);
    return result;
  }
  result.created = true;
  // Opened as itself. Not removed when that fails: what the name leads to now may not be
  // what we made.
  InodeFacts facts;
  auto dir = open_made_directory(wide_path, facts, result);
  if (!dir) return result;
  if (facts.dev != temp->facts.dev) {
    changed(result, path, "CreateFileW", "the directory just made is not on the temp dir's volume");
    return result;
  }
  if (auto bad = ensure_descriptor(dir->get(), win::CreatedObject::namespace_directory, *who, everyone_may_list,
                                   path, result)) {
    result.failure = CreateFailure::failed;
    result.error = *bad;
    // Ours, and not secured: it goes (through the handle; it is empty, nothing can be in it yet
    // that its DACL did not allow).
    FILE_DISPOSITION_INFO disposition{};
    disposition.DeleteFile = TRUE;
    if (::SetFileInformationByHandle(dir->get(), FileDispositionInfo, &disposition, sizeof disposition)) {
      result.error->message += "; the directory was removed again";
    } else {
      result.error->message += "; the directory could not be removed again: " + win::error_message(::GetLastError());
    }
    return result;
  }
  result.made = expected_of(facts);
  return result;
}

CreateResult make_backing_file(const BackingFileRequest& request) {
  CreateResult result;
  const auto temp = pin_temp_dir(request.where, result);
  if (!temp) return result;
  const std::wstring ns_path =
      win::join(win::temp_dir_path(request.where.kind, request.where.root_dir, request.where.temp_dir),
                widen(request.namespace_name));
  const auto dir = pin_checked(ns_path, request.namespace_expected, "not the namespace that was verified", result);
  if (!dir) return result;
  if (dir->facts.dev != temp->facts.dev) {
    changed(result, narrow(ns_path), "CreateFileW", "not on the temp dir's volume");
    return result;
  }
  const std::wstring wide_path = win::join(ns_path, widen(request.name));
  const std::string path = narrow(wide_path);

  auto who = resolve_ownership(request.owner_sid, path, result);
  if (!who) return result;
  UniqueHandle file;
  const char* op = "CreateFileW";
  const DWORD error = create_with_descriptor(
      win::CreatedObject::backing_file, *who, false, path, result, op, [&](SECURITY_ATTRIBUTES& attributes) -> DWORD {
        // The creator gets the access it asks for whatever the new DACL says. Shared with
        // nobody until the region is complete.
        file.reset(::CreateFileW(wide_path.c_str(), GENERIC_READ | GENERIC_WRITE | DELETE | WRITE_DAC, 0, &attributes,
                                 CREATE_NEW, FILE_ATTRIBUTE_NORMAL | FILE_FLAG_OPEN_REPARSE_POINT, nullptr));
        return file.valid() ? ERROR_SUCCESS : ::GetLastError();
      });
  if (error != ERROR_SUCCESS) {
    fail(result, path, op, error);
    return result;
  }
  result.created = true;
  auto undo = [&](const char* failed_op, DWORD err) {
    if (err == ERROR_SUCCESS) {
      changed(result, path, failed_op,
              "the file just made is not a single-link regular file on the namespace's volume");
    } else {
      fail(result, path, failed_op, err);
    }
    discard_made_file(file, result);
    return result;
  };
  ObservationError facts_error;
  auto facts = win::inode_facts_of(file.get(), path, &facts_error);
  if (!facts) return undo("GetFileInformationByHandle", static_cast<DWORD>(facts_error.code));
  if (facts->kind != FileKind::regular || facts->nlink != 1 || facts->dev != dir->facts.dev ||
      ::GetFileType(file.get()) != FILE_TYPE_DISK) {
    return undo("CreateFileW", ERROR_SUCCESS);
  }
  const char* write_op = nullptr;
  if (const DWORD err = write_region(file.get(), request.content, write_op); err != ERROR_SUCCESS) {
    return undo(write_op, err);
  }
  // Proved last: nobody can open the file while we hold it (no sharing), and a file whose
  // descriptor did not hold goes with its contents.
  if (auto bad = ensure_descriptor(file.get(), win::CreatedObject::backing_file, *who, false, path, result)) {
    result.failure = CreateFailure::failed;
    result.error = *bad;
    discard_made_file(file, result);
    return result;
  }
  facts = win::inode_facts_of(file.get(), path, &facts_error);
  if (!facts) return undo("GetFileInformationByHandle", static_cast<DWORD>(facts_error.code));
  result.made = expected_of(*facts);
  return result;
}

namespace {

void settle(RepairOutcomeRecord& record, RepairOutcome outcome, std::string detail,
            std::optional<ObservationError> error = std::nullopt) {
  record.outcome = outcome;
  record.detail = std::move(detail);
  record.error = std::move(error);
}

bool not_found(std::int64_t code) {
  return code == ERROR_FILE_NOT_FOUND || code == ERROR_PATH_NOT_FOUND;
}

bool same_identity(const InodeFacts& facts, const ExpectedInode& want) {
  return facts.dev == want.dev && facts.ino == want.ino;
}

// The descriptor the target is to get, as Windows takes it. false, with the record settled,
// when there is none: only DACLs are repaired here, and Windows may refuse the SDDL.
bool wanted_descriptor(const RepairTarget& target, win::LocalPtr<PSECURITY_DESCRIPTOR>& wanted,
                       RepairOutcomeRecord& record) {
  if (!target.new_security) {
    settle(record, RepairOutcome::failed, "not-supported",
           ObservationError{
               target.path, "repair", ERROR_NOT_SUPPORTED,
               "only DACLs are repaired on Windows (modes, POSIX ACLs and owners are not)"});
    return false;
  }
  const auto sddl = win::to_sddl(*target.new_security);
  if (!sddl || !::ConvertStringSecurityDescriptorToSecurityDescriptorW(
                   widen(*sddl).c_str(), SDDL_REVISION_1, wanted.out(), nullptr)) {
    settle(record, RepairOutcome::failed, "bad-descriptor",
           win::make_error(target.path, "ConvertStringSecurityDescriptorToSecurityDescriptorW",
                           sddl ? ::GetLastError() : ERROR_INVALID_SECURITY_DESCR));
    return false;
  }
  return true;
}

// A target's temp dir and namespace, pinned as themselves (not shared for deleting: they stay
// where they are while we work in them).
struct PinnedNamespace {
  win::PinnedDirectory temp;
  win::PinnedDirectory ns;
  std::wstring path;  // the namespace's
};

// The temp dir and the namespace of `target` pinned and compared with the plan, the namespace
// with the right to change its DACL when it is the target. nullopt, with the record settled,
// when either is gone, changed or cannot be opened.
std::optional<PinnedNamespace> pin_target_namespace(const RepairPlan& plan,
                                                    const RepairTarget& target,
                                                    ObservationError& error,
                                                    RepairOutcomeRecord& record) {
  const RepairRoot& root = plan.roots.at(target.root);
  const std::wstring temp_path = win::temp_dir_path(root.kind, root.root_dir, root.temp_dir);
  auto temp = win::pin_directory(temp_path, &error);
  if (!temp) {
    settle(record,
           error.code == 0 || not_found(error.code) ? RepairOutcome::changed : RepairOutcome::failed,
           "temp-dir-changed", error);
    return std::nullopt;
  }
  if (!root.expected || !same_identity(temp->facts, *root.expected)) {
    settle(record, RepairOutcome::changed, "temp-dir-changed",
           ObservationError{narrow(temp_path), "CreateFileW", 0,
                            root.expected ? "replaced since it was observed" : "never observed"});
    return std::nullopt;
  }
  std::wstring ns_path = win::join(temp_path, widen(target.namespace_name));
  const std::string ns_shown = narrow(ns_path);
  auto ns = win::pin_directory(ns_path, &error, target.file ? 0 : READ_CONTROL | WRITE_DAC);
  if (!ns) {
    if (not_found(error.code)) {
      settle(record, RepairOutcome::vanished, "not-found");
      return std::nullopt;
    }
    // Code 0: not a directory (a reparse point or a file took the name).
    settle(record, error.code == 0 ? RepairOutcome::changed : RepairOutcome::failed,
           error.code == 0 ? "namespace-changed" : "CreateFileW", error);
    return std::nullopt;
  }
  if (!same_identity(ns->facts, target.namespace_expected) || ns->facts.dev != temp->facts.dev) {
    settle(record, RepairOutcome::changed, "namespace-changed",
           ObservationError{ns_shown, "CreateFileW", 0,
                            "not the namespace that was judged (volume or file index changed)"});
    return std::nullopt;
  }
  return PinnedNamespace{std::move(*temp), std::move(*ns), std::move(ns_path)};
}

// The target's file in the pinned namespace, opened as itself without following and compared
// with the plan (one link, on the namespace's volume, the file judged). Invalid, with the
// record settled, when it is gone, changed or cannot be opened.
UniqueHandle open_target_file(const RepairTarget& target, const PinnedNamespace& where,
                              ObservationError& error, RepairOutcomeRecord& record) {
  const std::wstring path = win::join(where.path, widen(*target.file));
  const DWORD attributes = ::GetFileAttributesW(path.c_str());
  if (attributes == INVALID_FILE_ATTRIBUTES) {
    const DWORD code = ::GetLastError();
    if (not_found(code)) {
      settle(record, RepairOutcome::vanished, "not-found");
    } else {
      settle(record, RepairOutcome::failed, "GetFileAttributesW",
             win::make_error(target.path, "GetFileAttributesW", code));
    }
    return {};
  }
  if (win::kind_from_attributes(attributes) != FileKind::regular) {
    settle(record, RepairOutcome::changed, "identity-changed",
           ObservationError{target.path, "GetFileAttributesW", 0,
                            "a reparse point or a directory took the judged file's name"});
    return {};
  }
  // No data access is asked for, so the share mode of the JVM that holds the file does not
  // stand in the way; the handle is the object itself, never what a reparse point names.
  UniqueHandle file(::CreateFileW(path.c_str(),
                                  READ_CONTROL | WRITE_DAC | FILE_READ_ATTRIBUTES | SYNCHRONIZE,
                                  FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr,
                                  OPEN_EXISTING, FILE_FLAG_OPEN_REPARSE_POINT, nullptr));
  if (!file.valid()) {
    const DWORD code = ::GetLastError();
    if (not_found(code)) {
      settle(record, RepairOutcome::vanished, "not-found");
    } else {
      settle(record, RepairOutcome::failed, "CreateFileW",
             win::make_error(target.path, "CreateFileW", code));
    }
    return {};
  }
  const auto facts = win::inode_facts_of(file.get(), target.path, &error);
  if (!facts) {
    settle(record, RepairOutcome::failed, error.op, error);
    return {};
  }
  if (facts->kind != FileKind::regular || facts->nlink != 1 || facts->dev != where.ns.facts.dev ||
      !same_identity(*facts, target.expected)) {
    settle(record, RepairOutcome::changed, "identity-changed",
           ObservationError{
               target.path, "CreateFileW", 0,
               "not the file that was judged (volume, file index, kind or links changed)"});
    return {};
  }
  return file;
}

// Through `object` (the target itself): its owner compared with the judged one, then the
// wanted DACL written and read back, the previous DACL put back when it did not hold.
void replace_dacl(HANDLE object, PSECURITY_DESCRIPTOR wanted, const RepairTarget& target,
                  ObservationError& error, RepairOutcomeRecord& record) {
  auto stored = win::read_security(object, target.path, &error);
  if (!stored) return settle(record, RepairOutcome::failed, error.op, error);
  if (stored->owner_sid != target.expected_owner_sid) {
    return settle(
        record, RepairOutcome::changed, "owner-changed",
        ObservationError{target.path, "GetSecurityInfo", 0,
                         "owned by " + stored->owner_sid.value_or("nobody") + " now, not by " +
                             target.expected_owner_sid.value_or("nobody") + " as judged"});
  }
  // The DACL as it is, to put back when the new one does not hold: a file system that keeps
  // another DACL than the one given (wine turns it into POSIX mode bits) is left as it was.
  PACL previous_dacl = nullptr;
  win::LocalPtr<PSECURITY_DESCRIPTOR> previous;
  if (const DWORD rc = ::GetSecurityInfo(object, SE_FILE_OBJECT, DACL_SECURITY_INFORMATION, nullptr,
                                         nullptr, &previous_dacl, nullptr, previous.out());
      rc != ERROR_SUCCESS) {
    return settle(record, RepairOutcome::failed, "GetSecurityInfo",
                  win::make_error(target.path, "GetSecurityInfo", rc));
  }
  const bool was_protected = (stored->control & SE_DACL_PROTECTED) != 0;
  if (auto bad = set_dacl_and_verify(object, wanted, target.path, *stored)) {
    const DWORD rc = ::SetSecurityInfo(
        object, SE_FILE_OBJECT,
        DACL_SECURITY_INFORMATION | (was_protected ? PROTECTED_DACL_SECURITY_INFORMATION
                                                   : UNPROTECTED_DACL_SECURITY_INFORMATION),
        nullptr, nullptr, previous_dacl, nullptr);
    bad->message += rc == ERROR_SUCCESS
                        ? "; the previous DACL was put back"
                        : "; the previous DACL could not be put back: " + win::error_message(rc);
    return settle(record, RepairOutcome::failed, "dacl-not-kept", *bad);
  }
  settle(record, RepairOutcome::fixed, describe_target_changes(target));
}

// One target: the temp dir and the namespace pinned as themselves and compared with the
// plan, the file (if the target is one) opened without following, compared, its owner
// compared, then the DACL written and read back through the object's own handle.
void repair_target(const RepairPlan& plan, const RepairTarget& target,
                   RepairOutcomeRecord& record) {
  win::LocalPtr<PSECURITY_DESCRIPTOR> wanted;
  if (!wanted_descriptor(target, wanted, record)) return;
  ObservationError error;
  const auto pinned = pin_target_namespace(plan, target, error, record);
  if (!pinned) return;
  HANDLE object = pinned->ns.handle.get();
  UniqueHandle file;
  if (target.file) {
    file = open_target_file(target, *pinned, error, record);
    if (!file.valid()) return;
    object = file.get();
  }
  replace_dacl(object, wanted.get(), target, error, record);
}

}  // namespace

std::vector<RepairOutcomeRecord> execute_repair(const RepairPlan& plan) {
  std::vector<RepairOutcomeRecord> out;
  for (std::size_t i = 0; i < plan.targets.size(); ++i) {
    RepairOutcomeRecord record;
    record.target = i;
    repair_target(plan, plan.targets[i], record);
    out.push_back(std::move(record));
  }
  return out;
}

}  // namespace hsperfguard::platform
