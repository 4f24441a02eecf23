// Observation of a Windows temp dir: the hsperfdata_* namespaces, their security
// descriptors, volumes and backing files. Read-only; never follows a reparse point.
//
// Directories are listed through their opened handle (FileIdBothDirectoryInfo), the
// counterpart of readdir on a verified fd: each entry comes with its file id, so the
// listing is the lstat and the handle later opened on the entry (FILE_FLAG_OPEN_REPARSE_POINT)
// is the fstat, and an entry replaced between the two shows up as a different (dev, ino).
#include <windows.h>

#include <algorithm>
#include <functional>
#include <cstddef>
#include <limits>
#include <span>
#include <string_view>
#include <vector>

#include "model/perfdata.hpp"
#include "model/pid_name.hpp"
#include "platform/observe.hpp"
#include "platform/reap.hpp"
#include "platform/users.hpp"
#include "platform/windows/security_windows.hpp"
#include "platform/windows/volume_windows.hpp"
#include "platform/windows/win_util.hpp"

namespace hsperfguard::platform {

namespace {

using win::narrow;
using win::UniqueHandle;
using win::widen;

using win::is_namespace_name;
using win::kNamespacePrefix;

constexpr DWORD kShareAll = FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE;
constexpr DWORD kNoFollow = FILE_FLAG_OPEN_REPARSE_POINT | FILE_FLAG_BACKUP_SEMANTICS;

bool is_dot_or_dotdot(std::wstring_view name) { return name == L"." || name == L".."; }

// One entry of a directory listing: its name and what the listing says about it.
struct Listed {
  std::wstring name;
  InodeFacts facts;
};

// Calls `visit` for every entry of the opened directory `dir` except "." and "..".
// `volume_serial` is the directory's (entries carry only their file id). Returns the
// error, if any.
template <typename Visit>
std::optional<ObservationError> list_directory(HANDLE dir, const std::string& path, std::uint64_t volume_serial,
                                               Visit visit) {
  // 64 KiB, 8-byte aligned: the entries hold LARGE_INTEGERs.
  std::vector<std::uint64_t> buffer(8192);
  const auto bytes = static_cast<DWORD>(buffer.size() * sizeof(std::uint64_t));
  FILE_INFO_BY_HANDLE_CLASS kind = FileIdBothDirectoryRestartInfo;
  while (::GetFileInformationByHandleEx(dir, kind, buffer.data(), bytes)) {
    kind = FileIdBothDirectoryInfo;
    std::size_t offset = 0;
    while (true) {
      const auto* entry = reinterpret_cast<const FILE_ID_BOTH_DIR_INFO*>(
          reinterpret_cast<const std::byte*>(buffer.data()) + offset);
      const std::size_t name_end = offset + offsetof(FILE_ID_BOTH_DIR_INFO, FileName) + entry->FileNameLength;
      if (name_end > bytes) break;  // never read past what the call filled
      const std::wstring name(entry->FileName, entry->FileNameLength / sizeof(wchar_t));
      if (!is_dot_or_dotdot(name)) visit(Listed{name, win::to_inode_facts(*entry, volume_serial)});
      if (entry->NextEntryOffset == 0) break;
      offset += entry->NextEntryOffset;
      if (offset + sizeof(FILE_ID_BOTH_DIR_INFO) > bytes) break;
    }
  }
  const DWORD error = ::GetLastError();
  if (error != ERROR_NO_MORE_FILES) return win::make_error(path, "GetFileInformationByHandleEx", error);
  return std::nullopt;
}

// The listing and the opened handle describe the same object: same (volume, file id),
// same kind, and both agree on being a directory or a reparse point. A file system that
// lists no file ids (0) is compared on the rest only.
bool same_entry(const InodeFacts& listed, const InodeFacts& opened) {
  constexpr DWORD kIdentity = FILE_ATTRIBUTE_DIRECTORY | FILE_ATTRIBUTE_REPARSE_POINT;
  const bool same_id = listed.ino == 0 || (listed.dev == opened.dev && listed.ino == opened.ino);
  return same_id && listed.kind == opened.kind &&
         (listed.windows_attributes.value_or(0) & kIdentity) == (opened.windows_attributes.value_or(0) & kIdentity);
}

// Extends `bytes` to `want` bytes read from offset bytes.size(). A short file is not an
// error (it may shrink while we read); a failed read is, and returns false.
bool read_more(HANDLE file, std::vector<std::byte>& bytes, std::size_t want, const std::string& path,
               std::vector<ObservationError>& errors) {
  while (bytes.size() < want) {
    const std::size_t have = bytes.size();
    bytes.resize(want);
    OVERLAPPED at{};
    at.Offset = static_cast<DWORD>(have);
    at.OffsetHigh = static_cast<DWORD>(static_cast<std::uint64_t>(have) >> 32);
    DWORD n = 0;
    const bool ok = ::ReadFile(file, bytes.data() + have, static_cast<DWORD>(want - have), &n, &at);
    const DWORD error = ok ? ERROR_SUCCESS : ::GetLastError();
    bytes.resize(have + n);
    if (!ok && error != ERROR_HANDLE_EOF) {
      errors.push_back(win::make_error(path, "ReadFile", error));
      return false;
    }
    if (n == 0) break;
  }
  return true;
}

// Reads the region prefix as perfdata::region_bytes_to_parse says (never more than
// `max_bytes` or the file size), so that a huge or sparse file is never read whole.
std::optional<RegionSummary> read_region(HANDLE file, std::uint64_t size, std::size_t max_bytes,
                                         const std::string& path, std::vector<ObservationError>& errors) {
  const auto limit = static_cast<std::size_t>(std::min<std::uint64_t>(size, max_bytes));
  std::vector<std::byte> bytes;
  if (!read_more(file, bytes, std::min(limit, perfdata::kRegionFirstRead), path, errors))
    return std::nullopt;
  const std::size_t want = perfdata::region_bytes_to_parse(bytes, limit);
  if (!read_more(file, bytes, want, path, errors)) return std::nullopt;
  if (bytes.size() > want) bytes.resize(want);
  RegionSummary summary;
  summary.bytes_read = bytes.size();
  summary.region = perfdata::parse_region_keeping(bytes, kObservedCounters);
  return summary;
}

FileFacts observe_file(const std::wstring& ns_path, const Listed& entry, const NamespaceFacts& ns,
                       std::int64_t max_pid, const ObserveOptions& options) {
  FileFacts file;
  const std::wstring wide_path = win::join(ns_path, entry.name);
  file.name = narrow(entry.name);
  file.path = narrow(wide_path);
  file.lstat = entry.facts;
  file.pid_name = classify_pid_name(file.name, max_pid);
  if (file.lstat->kind == FileKind::symlink) return file;  // never followed

  // Read access to the data is optional: without it, the descriptor and facts still count.
  const DWORD metadata = READ_CONTROL | FILE_READ_ATTRIBUTES | SYNCHRONIZE;
  // A name that is no pid (PidNameKind::not_a_pid) is read by no JVM and no JVM tool: its
  // content is left unread, as on Linux, where the read would renew its access time.
  const bool want_data = file.lstat->kind == FileKind::regular && options.max_region_bytes > 0 &&
                         file.pid_name.kind != PidNameKind::not_a_pid;
  UniqueHandle handle;
  if (want_data) {
    handle.reset(::CreateFileW(wide_path.c_str(), metadata | FILE_READ_DATA, kShareAll, nullptr,
                               OPEN_EXISTING, kNoFollow, nullptr));
  }
  bool have_data = handle.valid();
  if (!handle.valid()) {
    handle.reset(::CreateFileW(wide_path.c_str(), metadata, kShareAll, nullptr, OPEN_EXISTING,
                               kNoFollow, nullptr));
  }
  if (!handle.valid()) {
    file.errors.push_back(win::make_error(file.path, "CreateFileW", ::GetLastError()));
    return file;
  }
  ObservationError error;
  file.opened = win::inode_facts_of(handle.get(), file.path, &error);
  if (!file.opened) {
    file.errors.push_back(error);
    return file;
  }
  if (!same_entry(*file.lstat, *file.opened)) have_data = false;  // replaced: do not read it
  if (ns.opened) file.crosses_mount = file.opened->dev != ns.opened->dev;
  file.security = win::read_security(handle.get(), file.path, &error);
  if (!file.security) file.errors.push_back(error);
  if (have_data && file.opened->kind == FileKind::regular && ::GetFileType(handle.get()) == FILE_TYPE_DISK) {
    file.region = read_region(handle.get(), file.opened->size, options.max_region_bytes, file.path,
                              file.errors);
  }
  return file;
}

NamespaceFacts observe_namespace(const TempRootFacts& root, const std::wstring& temp, const Listed& entry,
                                 UserDatabase& users, const ObserveOptions& options) {
  NamespaceFacts ns;
  const std::wstring wide_path = win::join(temp, entry.name);
  ns.name = narrow(entry.name);
  ns.user_suffix = ns.name.substr(kNamespacePrefix.size());
  ns.path = narrow(wide_path);
  ns.lstat = entry.facts;

  ns.user = users.find_user(ns.user_suffix);
  if (users.failed()) {
    ns.user_lookup_failed = true;
    if (auto error = users.error()) ns.errors.push_back(*error);
  }

  // A reparse point (symlink, junction, mount point) is reported, never entered.
  if (ns.lstat->kind != FileKind::directory) return ns;

  UniqueHandle handle(::CreateFileW(wide_path.c_str(),
                                    READ_CONTROL | FILE_READ_ATTRIBUTES | FILE_LIST_DIRECTORY | SYNCHRONIZE,
                                    kShareAll, nullptr, OPEN_EXISTING, kNoFollow, nullptr));
  if (!handle.valid()) {
    ns.errors.push_back(win::make_error(ns.path, "CreateFileW", ::GetLastError()));
    return ns;
  }
  ObservationError error;
  ns.opened = win::inode_facts_of(handle.get(), ns.path, &error);
  if (!ns.opened) {
    ns.errors.push_back(error);
    return ns;
  }
  ns.identity_matches = same_entry(*ns.lstat, *ns.opened);
  if (root.opened) ns.crosses_mount = ns.opened->dev != root.opened->dev;
  ns.security = win::read_security(handle.get(), ns.path, &error);
  if (!ns.security) ns.errors.push_back(error);
  std::optional<ObservationError> volume_error;
  ns.volume = win::observe_volume(ns.path, &volume_error);
  if (volume_error) ns.errors.push_back(*volume_error);
  if (!ns.identity_matches) return ns;  // whatever is there now is not what was listed

  const auto list_error = list_directory(handle.get(), ns.path, ns.opened->dev, [&](const Listed& file_entry) {
    ns.files.push_back(observe_file(wide_path, file_entry, ns, root.max_pid, options));
  });
  if (list_error) ns.errors.push_back(*list_error);
  return ns;
}

}  // namespace

TempRootFacts observe_temp_root(const RootSpec& spec, const ObserveOptions& options,
                                const NamespaceConsumer& consume, const NamespaceStage& stage) {
  TempRootFacts root;
  root.kind = spec.kind;
  root.platform = Platform::windows;
  root.root = spec.root;
  root.temp_dir = spec.temp_dir;
  root.container = spec.container;
  root.account = spec.account;
  // Windows process ids are 32-bit values (multiples of 4 in practice); HotSpot's name
  // test narrows to int, so that is the largest name a JVM can produce.
  root.max_pid = std::numeric_limits<std::int32_t>::max();

  // A foreign root's temp dir ("/tmp") lies beneath that root.
  const std::wstring temp = win::temp_dir_path(spec.kind, spec.root, spec.temp_dir);
  const std::string temp_path = narrow(temp);
  root.reachable_path = temp_path;
  // The entry's own attributes decide whether it is a reparse point: wine follows links
  // even under FILE_FLAG_OPEN_REPARSE_POINT, so the handle alone cannot tell.
  WIN32_FILE_ATTRIBUTE_DATA attributes{};
  if (!::GetFileAttributesExW(temp.c_str(), GetFileExInfoStandard, &attributes)) {
    root.errors.push_back(win::make_error(temp_path, "GetFileAttributesExW", ::GetLastError()));
    return root;
  }
  InodeFacts listed;
  listed.kind = win::kind_from_attributes(attributes.dwFileAttributes);
  listed.size = (static_cast<std::uint64_t>(attributes.nFileSizeHigh) << 32) | attributes.nFileSizeLow;
  listed.mtime = win::to_timestamp(attributes.ftLastWriteTime);
  listed.atime = win::to_timestamp(attributes.ftLastAccessTime);
  listed.windows_attributes = attributes.dwFileAttributes;
  root.lstat = listed;
  std::optional<ObservationError> volume_error;
  root.volume = win::observe_volume(temp_path, &volume_error);
  if (volume_error) root.errors.push_back(*volume_error);
  if (listed.kind != FileKind::directory) return root;  // a reparse point is not entered

  UniqueHandle handle(::CreateFileW(temp.c_str(), FILE_LIST_DIRECTORY | FILE_READ_ATTRIBUTES | SYNCHRONIZE,
                                    kShareAll, nullptr, OPEN_EXISTING, kNoFollow, nullptr));
  if (!handle.valid()) {
    root.errors.push_back(win::make_error(temp_path, "CreateFileW", ::GetLastError()));
    return root;
  }
  ObservationError error;
  const auto opened = win::inode_facts_of(handle.get(), temp_path, &error);
  if (!opened) {
    root.errors.push_back(error);
    return root;
  }
  // Opening without following is Windows' lstat: the handle is the entry itself. Both
  // observations are then the handle's, with its identity.
  root.opened = opened;
  root.lstat = opened;
  if (opened->kind != FileKind::directory) return root;

  // Suffixes are this host's account names; a foreign root's come from its etc/passwd.
  const auto users = spec.kind == RootKind::root ? root_user_database(spec.root) : host_user_database();
  const auto list_error = list_directory(handle.get(), temp_path, opened->dev, [&](const Listed& entry) {
    if (is_namespace_name(entry.name)) {
      root.namespaces.push_back(observe_namespace(root, temp, entry, *users, options));
    }
  });
  if (list_error) root.errors.push_back(*list_error);
  std::sort(root.namespaces.begin(), root.namespaces.end(),
            [](const NamespaceFacts& a, const NamespaceFacts& b) { return a.name < b.name; });
  // Observed whole (a Windows temp dir holds few namespaces), then handed over in order.
  std::vector<NamespaceFacts> namespaces = std::move(root.namespaces);
  root.namespaces.clear();
  for (std::size_t i = 0; i < namespaces.size(); ++i) {
    if (const char* why = options.limits.reached()) {
      root.stopped = why;
      root.errors.push_back(ObservationError{temp_path, "observe", ERROR_OPERATION_ABORTED,
                                             std::string("stopped (") + why + ") after " + std::to_string(i) +
                                                 " namespaces: the others were not handed over"});
      break;
    }
    if (stage) stage(root, i, namespaces[i]);
    consume(root, std::move(namespaces[i]));
  }
  return root;
}

// The reaper's late region reads (platform/reap.hpp), here beside observation's own: the
// temp dir and each namespace pinned and compared (volume, file id) with what observation
// opened, each wanted file reopened without following and compared with its listing.
void read_regions(const TempRootFacts& root, std::span<NamespaceFacts> namespaces,
                  const std::function<bool(const FileFacts&)>& wanted, std::size_t max_bytes,
                  std::vector<ObservationError>& errors) {
  const std::wstring temp = win::temp_dir_path(root.kind, root.root, root.temp_dir);
  auto same_dir = [](const win::PinnedDirectory& dir, const std::optional<InodeFacts>& want) {
    return want && dir.facts.dev == want->dev && dir.facts.ino == want->ino;
  };
  std::optional<win::PinnedDirectory> temp_dir;
  std::optional<win::PinnedDirectory> dir;
  std::wstring ns_path;
  walk_wanted_files(
      namespaces, wanted,
      [&] {
        ObservationError error;
        temp_dir = win::pin_directory(temp, &error);
        if (temp_dir && !same_dir(*temp_dir, root.opened)) {
          error = ObservationError{root.temp_dir, "CreateFileW", 0, "replaced while being observed"};
          temp_dir.reset();
        }
        if (!temp_dir) errors.push_back(error);
        return temp_dir.has_value();
      },
      [&](NamespaceFacts& ns) {
        ns_path = win::join(temp, widen(ns.name));
        ObservationError error;
        dir = win::pin_directory(ns_path, &error);
        if (dir && !same_dir(*dir, ns.opened)) {
          error = ObservationError{ns.path, "CreateFileW", 0, "replaced while being observed"};
          dir.reset();
        }
        if (!dir) ns.errors.push_back(error);
        return dir.has_value();
      },
      [&](NamespaceFacts&, FileFacts& file) {
        const std::wstring path = win::join(ns_path, widen(file.name));
        UniqueHandle handle(::CreateFileW(path.c_str(), FILE_READ_DATA | FILE_READ_ATTRIBUTES | SYNCHRONIZE,
                                          kShareAll, nullptr, OPEN_EXISTING, kNoFollow, nullptr));
        if (!handle.valid()) {
          file.errors.push_back(win::make_error(file.path, "CreateFileW", ::GetLastError()));
          return;
        }
        ObservationError error;
        const auto opened = win::inode_facts_of(handle.get(), file.path, &error);
        if (!opened) {
          file.errors.push_back(error);
          return;
        }
        if (!same_entry(*file.lstat, *opened) || opened->kind != FileKind::regular ||
            ::GetFileType(handle.get()) != FILE_TYPE_DISK) {
          file.errors.push_back(ObservationError{file.path, "CreateFileW", 0, "replaced while being observed"});
          return;
        }
        file.region = read_region(handle.get(), opened->size, max_bytes, file.path, file.errors);
      });
}

// HotSpot's attach files are a POSIX mechanism: a Windows temp dir has none to observe.
std::size_t observe_attach_files(const RootSpec&, const TempRootFacts&, std::size_t,
                                 const RunLimits&, const AttachConsumer&,
                                 std::vector<ObservationError>&) {
  return 0;
}

}  // namespace hsperfguard::platform
