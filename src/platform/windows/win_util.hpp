// Small Win32 helpers shared by the Windows observation code: owning wrappers for handles
// and LocalAlloc'ed memory, lossless UTF-8 <-> UTF-16 conversion, and the conversion of
// Win32 file information into neutral facts.
#pragma once

#include <windows.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "model/facts.hpp"

namespace hsperfguard::platform::win {

// Owns a kernel HANDLE (file, process, token); closes it exactly once. Both null and
// INVALID_HANDLE_VALUE mean "no handle", since Win32 uses either depending on the call.
class UniqueHandle {
 public:
  UniqueHandle() = default;
  explicit UniqueHandle(HANDLE handle) : handle_(handle) {}
  UniqueHandle(const UniqueHandle&) = delete;
  UniqueHandle& operator=(const UniqueHandle&) = delete;
  UniqueHandle(UniqueHandle&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
  UniqueHandle& operator=(UniqueHandle&& other) noexcept {
    if (this != &other) reset(std::exchange(other.handle_, nullptr));
    return *this;
  }
  ~UniqueHandle() { reset(); }

  HANDLE get() const { return handle_; }
  bool valid() const { return handle_ != nullptr && handle_ != INVALID_HANDLE_VALUE; }
  void reset(HANDLE handle = nullptr) {
    if (valid()) ::CloseHandle(handle_);
    handle_ = handle;
  }

 private:
  HANDLE handle_ = nullptr;
};

// Owns a FindFirstFileW search handle (closed with FindClose, not CloseHandle).
class UniqueFind {
 public:
  UniqueFind() = default;
  explicit UniqueFind(HANDLE find) : find_(find) {}
  UniqueFind(const UniqueFind&) = delete;
  UniqueFind& operator=(const UniqueFind&) = delete;
  ~UniqueFind() {
    if (valid()) ::FindClose(find_);
  }
  HANDLE get() const { return find_; }
  bool valid() const { return find_ != INVALID_HANDLE_VALUE; }

 private:
  HANDLE find_ = INVALID_HANDLE_VALUE;
};

// Owns memory that a Win32 call allocated with LocalAlloc and documents as "free with
// LocalFree": security descriptors, string SIDs, FormatMessage buffers.
template <typename T>
class LocalPtr {
 public:
  LocalPtr() = default;
  explicit LocalPtr(T pointer) : pointer_(pointer) {}
  LocalPtr(const LocalPtr&) = delete;
  LocalPtr& operator=(const LocalPtr&) = delete;
  LocalPtr(LocalPtr&& other) noexcept : pointer_(std::exchange(other.pointer_, nullptr)) {}
  LocalPtr& operator=(LocalPtr&& other) noexcept {
    if (this != &other) {
      reset();
      pointer_ = std::exchange(other.pointer_, nullptr);
    }
    return *this;
  }
  ~LocalPtr() { reset(); }

  T get() const { return pointer_; }
  // For out-parameters: frees what is held, then lends the slot to the call.
  T* out() {
    reset();
    return &pointer_;
  }
  void reset() {
    if (pointer_ != nullptr) ::LocalFree(reinterpret_cast<HLOCAL>(pointer_));
    pointer_ = nullptr;
  }

 private:
  T pointer_ = nullptr;
};

// UTF-16 -> UTF-8. Windows names are arbitrary sequences of 16-bit units, so unpaired
// surrogates are kept (encoded as three-byte sequences, "WTF-8") instead of being replaced:
// two distinct names must never collapse into the same string.
std::string narrow(std::wstring_view wide);
// UTF-8 (or WTF-8 from narrow()) -> UTF-16; the exact inverse of narrow(). Bytes that are
// not valid UTF-8 become U+FFFD.
std::wstring widen(std::string_view utf8);

// Whether two names are equal the way NTFS compares them: ordinal, case-insensitive
// (CompareStringOrdinal).
bool equal_ignoring_case(std::wstring_view a, std::wstring_view b);
// "hsperfdata_" as HotSpot spells the namespace prefix, and whether `name` starts with it, the
// case ignored as NTFS ignores it ("HSPERFDATA_bob" is the JVM's directory for "bob").
inline constexpr std::wstring_view kNamespacePrefix = L"hsperfdata_";
bool is_namespace_name(std::wstring_view name);

// `dir` + "\" + `name`, without doubling a separator already at the end of `dir`.
std::wstring join(const std::wstring& dir, const std::wstring& name);

// The temp dir of a root as a Windows path: `temp_dir` itself, or for a foreign root
// (RootKind::root) `temp_dir` ("/tmp") taken beneath `root`.
std::wstring temp_dir_path(RootKind kind, const std::string& root, const std::string& temp_dir);

// A directory opened as itself and held so that it stays where it is: never a reparse
// point (wine follows links even under FILE_FLAG_OPEN_REPARSE_POINT, so the name's
// attributes are checked before the open and the handle's after), shared for reading and
// writing but not for deleting, so that while the handle is held nobody can rename or
// delete the directory and a path beneath it keeps leading into it.
struct PinnedDirectory {
  UniqueHandle handle;
  InodeFacts facts;
};
// `extra_access` is asked for besides listing and reading attributes (READ_CONTROL |
// WRITE_DAC for a namespace whose DACL is repaired).
std::optional<PinnedDirectory> pin_directory(const std::wstring& path, ObservationError* error,
                                             DWORD extra_access = 0);

// The Windows directory (%SystemRoot%, GetSystemWindowsDirectoryW), "C:\\Windows" when it
// cannot be read: GetTempPath's last resort, and where the service accounts' profiles are.
std::wstring windows_directory();

// FormatMessageW text for a Win32 error code, in UTF-8, without the trailing newline.
std::string error_message(DWORD code);
ObservationError make_error(std::string path, std::string op, DWORD code);

// FILETIME (100 ns since 1601) -> Unix epoch time.
Timestamp to_timestamp(const FILETIME& time);
// FILE_ATTRIBUTE_* -> kind; any reparse point is reported as a symlink.
FileKind kind_from_attributes(DWORD attributes);
// Facts from an opened handle (volume serial as dev, file index as ino). Creation time is
// not a change time, so ctime stays 0 here.
InodeFacts to_inode_facts(const BY_HANDLE_FILE_INFORMATION& info);
// The same from the handle itself, plus the change time (ctime) from FileBasicInfo.
std::optional<InodeFacts> inode_facts_of(HANDLE handle, const std::string& path,
                                         ObservationError* error);
// Facts from a handle-relative directory listing entry, which describes the entry itself
// (the file id as ino, `volume_serial` of the listed directory as dev). The link count is
// not listed: nlink stays 1.
InodeFacts to_inode_facts(const FILE_ID_BOTH_DIR_INFO& entry, std::uint64_t volume_serial);

}  // namespace hsperfguard::platform::win
