#include <windows.h>

#include <algorithm>
#include <string_view>
#include <utility>

#include "model/pid_name.hpp"
#include "platform/files.hpp"
#include "platform/windows/win_util.hpp"

namespace hsperfguard::platform {

using win::narrow;
using win::UniqueHandle;
using win::widen;

FileRead read_regular_file(const std::string& path, std::size_t max_bytes) {
  FileRead out;
  const std::wstring wide = widen(path);
  // The entry's own attributes first: a reparse point is refused before anything opens it
  // (wine resolves links even under FILE_FLAG_OPEN_REPARSE_POINT, Windows does not).
  WIN32_FILE_ATTRIBUTE_DATA entry{};
  if (!::GetFileAttributesExW(wide.c_str(), GetFileExInfoStandard, &entry)) {
    out.error = win::make_error(path, "GetFileAttributesExW", ::GetLastError());
    return out;
  }
  if ((entry.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT) != 0) {
    out.error = ObservationError{path, "GetFileAttributesExW", 0, "a reparse point (symbolic link or junction)"};
    return out;
  }
  // Share everything so that a running JVM (which holds its file open) is never disturbed;
  // BACKUP_SEMANTICS lets a directory open so it can be refused by its facts below.
  UniqueHandle file(::CreateFileW(wide.c_str(), FILE_READ_DATA | FILE_READ_ATTRIBUTES | SYNCHRONIZE,
                                  FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr,
                                  OPEN_EXISTING,
                                  FILE_FLAG_OPEN_REPARSE_POINT | FILE_FLAG_BACKUP_SEMANTICS, nullptr));
  if (!file.valid()) {
    out.error = win::make_error(path, "CreateFileW", ::GetLastError());
    return out;
  }
  ObservationError error;
  out.stat = win::inode_facts_of(file.get(), path, &error);
  if (!out.stat) {
    out.error = error;
    return out;
  }
  if (out.stat->kind != FileKind::regular || ::GetFileType(file.get()) != FILE_TYPE_DISK) {
    out.error = ObservationError{path, "GetFileInformationByHandle", 0, "not a regular file"};
    return out;
  }
  const auto want = static_cast<std::size_t>(std::min<std::uint64_t>(out.stat->size, max_bytes));
  out.bytes.resize(want);
  std::size_t got = 0;
  while (got < want) {
    const DWORD chunk = static_cast<DWORD>(std::min<std::size_t>(want - got, 1u << 20));
    DWORD n = 0;
    if (!::ReadFile(file.get(), out.bytes.data() + got, chunk, &n, nullptr)) {
      out.error = win::make_error(path, "ReadFile", ::GetLastError());
      break;
    }
    if (n == 0) break;  // shrank while we read
    got += n;
  }
  out.bytes.resize(got);
  return out;
}

std::string default_temp_dir() {
  // GetTempPathW: TMP, TEMP, USERPROFILE, then the Windows directory, as the JVM does.
  std::wstring buffer(MAX_PATH + 1, L'\0');
  DWORD length = ::GetTempPathW(static_cast<DWORD>(buffer.size()), buffer.data());
  if (length > buffer.size()) {
    buffer.resize(length);
    length = ::GetTempPathW(static_cast<DWORD>(buffer.size()), buffer.data());
  }
  if (length == 0 || length > buffer.size()) return "C:\\Windows\\Temp";
  buffer.resize(length);
  // "C:\Users\x\AppData\Local\Temp\" -> without the trailing separator, but keep "C:\".
  if (buffer.size() > 3 && (buffer.back() == L'\\' || buffer.back() == L'/')) buffer.pop_back();
  return narrow(buffer);
}

namespace {

// The identity of a directory that exists; nullopt with `exists` false when it does not.
std::optional<DirIdentity> directory_identity(const std::wstring& path, bool& exists) {
  exists = true;
  ObservationError error;
  if (const auto pinned = win::pin_directory(path, &error)) {
    return DirIdentity{pinned->facts.dev, pinned->facts.ino};
  }
  const DWORD attributes = ::GetFileAttributesW(path.c_str());
  if (attributes == INVALID_FILE_ATTRIBUTES) {
    const DWORD code = ::GetLastError();
    exists = code != ERROR_FILE_NOT_FOUND && code != ERROR_PATH_NOT_FOUND;
  }
  return std::nullopt;
}

}  // namespace

AccountTempDirs observe_account_temp_dirs(const std::string& host_temp_dir,
                                          const std::vector<JvmProcessFacts>& jvms) {
  AccountTempDirs out;
  bool exists = false;
  out.host_temp_dir = directory_identity(widen(host_temp_dir), exists);
  const std::wstring windows = win::windows_directory();
  // Where Windows puts the service accounts' profiles; their TMP names the temp dir in it, and
  // GetUserName names the account (HotSpot's namespace suffix) as listed here.
  const std::pair<const char*, std::wstring> services[] = {
      {"SYSTEM", win::join(windows, L"Temp")},
      {"LOCAL SERVICE", win::join(windows, L"ServiceProfiles\\LocalService\\AppData\\Local\\Temp")},
      {"NETWORK SERVICE", win::join(windows, L"ServiceProfiles\\NetworkService\\AppData\\Local\\Temp")},
  };
  for (const auto& [account, path] : services) {
    auto identity = directory_identity(path, exists);
    if (!exists) continue;
    out.dirs.push_back(AccountTempDir{TempDirAccount{account, std::nullopt}, narrow(path), identity});
  }
  for (const auto& jvm : jvms) {
    if (!jvm.temp_dir_path) continue;
    auto identity = directory_identity(widen(*jvm.temp_dir_path), exists);
    if (!exists) continue;
    out.dirs.push_back(AccountTempDir{TempDirAccount{jvm.user.value_or(""), jvm.process.pid},
                                      *jvm.temp_dir_path, identity});
  }
  return out;
}

std::vector<BackingFileCandidate> find_backing_files(const std::string& temp_dir, std::int32_t pid) {
  std::vector<BackingFileCandidate> found;
  const std::wstring temp = widen(temp_dir);
  const std::wstring file = widen(pid_to_filename(pid));
  WIN32_FIND_DATAW entry{};
  win::UniqueFind search(::FindFirstFileExW(win::join(temp, L"*").c_str(), FindExInfoBasic, &entry,
                                            FindExSearchNameMatch, nullptr, 0));
  if (!search.valid()) return {};
  do {
    const std::wstring_view name = entry.cFileName;
    if (!win::is_namespace_name(name)) continue;
    if ((entry.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT) != 0 ||
        (entry.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) == 0) {
      continue;
    }
    const std::wstring candidate = win::join(win::join(temp, std::wstring(name)), file);
    WIN32_FILE_ATTRIBUTE_DATA info{};
    if (!::GetFileAttributesExW(candidate.c_str(), GetFileExInfoStandard, &info)) continue;
    if ((info.dwFileAttributes & (FILE_ATTRIBUTE_DIRECTORY | FILE_ATTRIBUTE_REPARSE_POINT |
                                  FILE_ATTRIBUTE_DEVICE)) != 0) {
      continue;
    }
    BackingFileCandidate& c = found.emplace_back();
    c.path = narrow(candidate);
    c.mtime_ns = static_cast<std::int64_t>((static_cast<std::uint64_t>(info.ftLastWriteTime.dwHighDateTime) << 32) |
                                           info.ftLastWriteTime.dwLowDateTime);
  } while (::FindNextFileW(search.get(), &entry));
  std::sort(found.begin(), found.end(),
            [](const BackingFileCandidate& a, const BackingFileCandidate& b) { return a.mtime_ns > b.mtime_ns; });
  return found;
}

// Windows keeps no per-process list of mapped files that names a deleted file; walking a
// process's views (VirtualQueryEx, GetMappedFileNameW) is not done here yet.
std::optional<MappedBackingFile> read_mapped_backing_file(std::int32_t, std::size_t) { return std::nullopt; }

}  // namespace hsperfguard::platform
