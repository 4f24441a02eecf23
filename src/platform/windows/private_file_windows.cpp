// PrivateFile on Windows: created CREATE_NEW with a protected DACL (the owner, SYSTEM and
// Administrators), or opened without following a reparse point and kept only when it is a
// plain file of ours with one link; LockFileEx on a byte range beyond the content for the
// lock; writes at the offset this handle knows for the journal.
#include <aclapi.h>
#include <sddl.h>
#include <windows.h>

#include <utility>
#include <vector>

#include "platform/private_file.hpp"
#include "platform/windows/win_util.hpp"

namespace hsperfguard::platform {

using win::UniqueHandle;
using win::widen;

struct PrivateFile::Impl {
  UniqueHandle file;
  std::string path;
  bool created = false;
  std::uint64_t size = 0;
};

namespace {

// The lock is a byte range far beyond the holder's pid, so that the pid stays readable.
constexpr DWORD kLockOffsetHigh = 1;

// Owner (OWNER RIGHTS), SYSTEM and Administrators only, not inherited: for the lock file,
// its directory and the journal.
class PrivateSecurity {
 public:
  PrivateSecurity() {
    ok_ = ::ConvertStringSecurityDescriptorToSecurityDescriptorW(
              L"D:P(A;;FA;;;OW)(A;;FA;;;SY)(A;;FA;;;BA)", SDDL_REVISION_1, descriptor_.out(),
              nullptr) != 0;
    attributes_ = SECURITY_ATTRIBUTES{sizeof(SECURITY_ATTRIBUTES), descriptor_.get(), FALSE};
  }
  SECURITY_ATTRIBUTES* get() { return ok_ ? &attributes_ : nullptr; }

 private:
  win::LocalPtr<PSECURITY_DESCRIPTOR> descriptor_;
  SECURITY_ATTRIBUTES attributes_{};
  bool ok_ = false;
};

// A regular file on a disk, not a reparse point, not a directory.
bool is_plain_file(HANDLE handle) {
  BY_HANDLE_FILE_INFORMATION info{};
  return ::GetFileInformationByHandle(handle, &info) &&
         (info.dwFileAttributes & (FILE_ATTRIBUTE_REPARSE_POINT | FILE_ATTRIBUTE_DIRECTORY)) == 0 &&
         ::GetFileType(handle) == FILE_TYPE_DISK;
}

// The SIDs this process's files get as owner: its user, and its default owner (an elevated
// administrator's files belong to BUILTIN\Administrators).
bool owned_by_us(HANDLE file) {
  PSID owner = nullptr;
  win::LocalPtr<PSECURITY_DESCRIPTOR> descriptor;
  if (::GetSecurityInfo(file, SE_FILE_OBJECT, OWNER_SECURITY_INFORMATION, &owner, nullptr, nullptr,
                        nullptr, descriptor.out()) != ERROR_SUCCESS ||
      owner == nullptr) {
    return false;
  }
  HANDLE raw = nullptr;
  if (!::OpenProcessToken(::GetCurrentProcess(), TOKEN_QUERY, &raw)) return false;
  UniqueHandle token(raw);
  auto token_sid_equals = [&](TOKEN_INFORMATION_CLASS cls) {
    DWORD size = 0;
    ::GetTokenInformation(token.get(), cls, nullptr, 0, &size);
    std::vector<std::uint64_t> buffer(size / sizeof(std::uint64_t) + 1);
    if (!::GetTokenInformation(token.get(), cls, buffer.data(), size, &size)) return false;
    const PSID sid = cls == TokenUser ? reinterpret_cast<TOKEN_USER*>(buffer.data())->User.Sid
                                      : reinterpret_cast<TOKEN_OWNER*>(buffer.data())->Owner;
    return ::EqualSid(sid, owner) != 0;
  };
  return token_sid_equals(TokenUser) || token_sid_equals(TokenOwner);
}

std::string parent_of(const std::string& path) {
  const auto separator = path.find_last_of("\\/");
  if (separator == std::string::npos || separator == 0) return "";
  if (separator == 2 && path[1] == ':') return "";  // "C:\x": the drive's root exists
  return path.substr(0, separator);
}

// Up to `max` bytes at `offset`; the Win32 error in `error` (0 when fine).
std::string read_at(HANDLE file, std::uint64_t offset, std::size_t max, DWORD& error) {
  std::string text(max, '\0');
  OVERLAPPED at{};
  at.Offset = static_cast<DWORD>(offset & 0xffffffffu);
  at.OffsetHigh = static_cast<DWORD>(offset >> 32);
  DWORD n = 0;
  error = ERROR_SUCCESS;
  if (max > 0 && !::ReadFile(file, text.data(), static_cast<DWORD>(max), &n, &at)) {
    error = ::GetLastError();
    if (error == ERROR_HANDLE_EOF) error = ERROR_SUCCESS;
    n = 0;
  }
  text.resize(n);
  return text;
}

// What a lock or journal file must be to be reused: a plain file of ours with one link.
std::optional<ObservationError> refuse_unless_ours(const std::string& path, HANDLE file) {
  BY_HANDLE_FILE_INFORMATION info{};
  std::string why;
  if (!is_plain_file(file) || !::GetFileInformationByHandle(file, &info)) {
    why = "not a regular file";
  } else if (!owned_by_us(file)) {
    why = "not owned by this user";
  } else if (info.nNumberOfLinks != 1) {
    why = "has " + std::to_string(info.nNumberOfLinks) + " links (a hard link to another file)";
  } else {
    return std::nullopt;
  }
  return ObservationError{path, "CreateFileW", ERROR_ACCESS_DENIED, why + ": left untouched"};
}

// Creates `path` privately (CREATE_NEW) or opens the existing file without following a reparse
// point and checks it is ours alone. `created` says which.
UniqueHandle open_private_file(const std::string& path, DWORD access, DWORD share, bool& created,
                               ObservationError& error) {
  PrivateSecurity security;
  const std::wstring wide = widen(path);
  UniqueHandle file(::CreateFileW(wide.c_str(), access, share, security.get(), CREATE_NEW,
                                  FILE_ATTRIBUTE_NORMAL | FILE_FLAG_OPEN_REPARSE_POINT, nullptr));
  created = file.valid();
  if (!created) {
    if (::GetLastError() != ERROR_FILE_EXISTS) {
      error = win::make_error(path, "CreateFileW", ::GetLastError());
      return {};
    }
    file.reset(::CreateFileW(wide.c_str(), access, share, nullptr, OPEN_EXISTING,
                             FILE_ATTRIBUTE_NORMAL | FILE_FLAG_OPEN_REPARSE_POINT, nullptr));
    if (!file.valid()) {
      error = win::make_error(path, "CreateFileW", ::GetLastError());
      return {};
    }
    if (auto refused = refuse_unless_ours(path, file.get())) {
      error = std::move(*refused);
      return {};
    }
  }
  return file;
}

}  // namespace

std::optional<PrivateFile> PrivateFile::open(const std::string& path, Use use,
                                             std::string_view content_if_created,
                                             ObservationError& error) {
  // The lock's directory, if missing: one level only, private.
  if (const std::string parent = parent_of(path); use == Use::lock && !parent.empty()) {
    PrivateSecurity security;
    if (!::CreateDirectoryW(widen(parent).c_str(), security.get()) &&
        ::GetLastError() != ERROR_ALREADY_EXISTS) {
      error = win::make_error(parent, "CreateDirectoryW", ::GetLastError());
      return std::nullopt;
    }
  }
  auto impl = std::make_unique<Impl>();
  impl->path = path;
  // The journal is written at explicit offsets (the end this handle knows), so that a record
  // that could not be completed can be cut off again (FILE_WRITE_DATA, which truncation needs).
  const DWORD access = use == Use::lock
                           ? GENERIC_READ | GENERIC_WRITE | READ_CONTROL
                           : GENERIC_READ | FILE_WRITE_DATA | FILE_APPEND_DATA | SYNCHRONIZE;
  const DWORD share = use == Use::lock ? FILE_SHARE_READ | FILE_SHARE_WRITE : FILE_SHARE_READ;
  impl->file = open_private_file(path, access, share, impl->created, error);
  if (!impl->file.valid()) return std::nullopt;
  if (impl->created && !content_if_created.empty()) {
    // Written at once (Windows has no unnamed file to write first): the window in which
    // another run could see it empty is this one call.
    DWORD written = 0;
    OVERLAPPED at{};
    if (!::WriteFile(impl->file.get(), content_if_created.data(),
                     static_cast<DWORD>(content_if_created.size()), &written, &at) ||
        written != content_if_created.size()) {
      error = win::make_error(path, "WriteFile", ::GetLastError());
      return std::nullopt;
    }
  }
  LARGE_INTEGER size{};
  if (!::GetFileSizeEx(impl->file.get(), &size)) {
    error = win::make_error(path, "GetFileSizeEx", ::GetLastError());
    return std::nullopt;
  }
  impl->size = static_cast<std::uint64_t>(size.QuadPart);
  return PrivateFile(std::move(impl));
}

PrivateFile::PrivateFile(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
PrivateFile::PrivateFile(PrivateFile&&) noexcept = default;
PrivateFile& PrivateFile::operator=(PrivateFile&&) noexcept = default;
PrivateFile::~PrivateFile() = default;

bool PrivateFile::created() const { return impl_->created; }
std::uint64_t PrivateFile::size() const { return impl_->size; }

std::optional<std::string> PrivateFile::read(std::uint64_t offset, std::size_t max,
                                             ObservationError& error) const {
  DWORD read_error = ERROR_SUCCESS;
  std::string text = read_at(impl_->file.get(), offset, max, read_error);
  if (read_error != ERROR_SUCCESS) {
    error = win::make_error(impl_->path, "ReadFile", read_error);
    return std::nullopt;
  }
  return text;
}

PrivateFile::LockResult PrivateFile::try_lock(ObservationError& error) {
  OVERLAPPED range{};
  range.OffsetHigh = kLockOffsetHigh;
  if (::LockFileEx(impl_->file.get(), LOCKFILE_EXCLUSIVE_LOCK | LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0,
                   &range)) {
    return LockResult::taken;
  }
  const DWORD lock_error = ::GetLastError();
  if (lock_error == ERROR_LOCK_VIOLATION) return LockResult::busy;
  error = win::make_error(impl_->path, "LockFileEx", lock_error);
  return LockResult::failed;
}

void PrivateFile::rewrite(std::string_view text) {
  LARGE_INTEGER start{};
  DWORD written = 0;
  if (::SetFilePointerEx(impl_->file.get(), start, nullptr, FILE_BEGIN) &&
      ::SetEndOfFile(impl_->file.get())) {
    ::WriteFile(impl_->file.get(), text.data(), static_cast<DWORD>(text.size()), &written, nullptr);
  }
}

std::optional<ObservationError> PrivateFile::append(std::string_view text, std::uint64_t end) {
  OVERLAPPED at{};
  at.Offset = static_cast<DWORD>(end & 0xffffffffu);
  at.OffsetHigh = static_cast<DWORD>(end >> 32);
  DWORD written = 0;
  const BOOL ok =
      ::WriteFile(impl_->file.get(), text.data(), static_cast<DWORD>(text.size()), &written, &at);
  if (ok && written == text.size()) return std::nullopt;
  const DWORD error = ok ? ERROR_DISK_FULL : ::GetLastError();
  if (written > 0) {
    // Part of the record was written: cut it off again.
    FILE_END_OF_FILE_INFO eof{};
    eof.EndOfFile.QuadPart = static_cast<LONGLONG>(end);
    ::SetFileInformationByHandle(impl_->file.get(), FileEndOfFileInfo, &eof, sizeof eof);
  }
  return win::make_error(impl_->path, "WriteFile", error);
}

ObservationError PrivateFile::not_ours(std::string message) const {
  return ObservationError{impl_->path, "ReadFile", ERROR_ACCESS_DENIED, std::move(message)};
}

std::int32_t current_pid() { return static_cast<std::int32_t>(::GetCurrentProcessId()); }

}  // namespace hsperfguard::platform
