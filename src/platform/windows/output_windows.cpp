// write_output on Windows. The target is looked at without following a reparse point:
// absent or a plain file is replaced (a new file beside it, created exclusively with the
// report's DACL, moved into place once it is whole); a device name (NUL, \\.\...) is written
// through; a reparse point (symlink, junction, mount point) or a directory is refused.
// What is not done here as on POSIX: the directory part of the path is not walked component by
// component (Windows resolves it; a reparse point there is followed).
#include <windows.h>
#include <sddl.h>

#include <algorithm>
#include <cwctype>
#include <string_view>

#include "platform/output.hpp"
#include "platform/windows/win_util.hpp"

namespace hsperfguard::platform {

using win::narrow;
using win::UniqueHandle;
using win::widen;

namespace {

bool stop_requested(const std::atomic<bool>* stop) {
  return stop != nullptr && stop->load(std::memory_order_relaxed);
}

ObservationError interrupted(const std::string& path) {
  return ObservationError{path, "WriteFile", ERROR_OPERATION_ABORTED,
                          "interrupted by a stop signal: the target was left as it was"};
}

// "NUL", "CON", "\\.\PIPE\x", "\\?\GLOBALROOT\Device\..."-style names of devices, not files.
bool is_device_name(std::string_view path) {
  if (path.starts_with("\\\\.\\")) return true;
  std::string upper;
  for (const char c : path) upper.push_back(static_cast<char>(std::towupper(static_cast<unsigned char>(c))));
  return upper == "NUL" || upper == "CON" || upper == "CONOUT$";
}

// Writes every piece; the first failure makes the rest no-ops. Returns the Win32 error.
DWORD feed(HANDLE file, const ContentProducer& produce, const std::atomic<bool>* stop) {
  DWORD error = ERROR_SUCCESS;
  produce([&](std::string_view piece) {
    while (error == ERROR_SUCCESS && !piece.empty()) {
      if (stop_requested(stop)) {
        error = ERROR_OPERATION_ABORTED;
        return;
      }
      DWORD written = 0;
      const auto chunk = static_cast<DWORD>(std::min<std::size_t>(piece.size(), 1u << 20));
      if (!::WriteFile(file, piece.data(), chunk, &written, nullptr)) {
        error = ::GetLastError();
      } else if (written == 0) {
        error = ERROR_WRITE_FAULT;
      } else {
        piece.remove_prefix(written);
      }
    }
  });
  if (error == ERROR_SUCCESS && stop_requested(stop)) error = ERROR_OPERATION_ABORTED;
  return error;
}

std::optional<ObservationError> write_device(const std::string& path, const ContentProducer& produce,
                                             const OutputOptions& options) {
  UniqueHandle device(::CreateFileW(widen(path).c_str(), GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_WRITE,
                                    nullptr, OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, nullptr));
  if (!device.valid()) return win::make_error(path, "CreateFileW", ::GetLastError());
  const DWORD error = feed(device.get(), produce, options.stop);
  if (error == ERROR_OPERATION_ABORTED && stop_requested(options.stop)) return interrupted(path);
  if (error != ERROR_SUCCESS) return win::make_error(path, "WriteFile", error);
  return std::nullopt;
}

// What is at the path now: nullopt when it may be replaced (absent or a plain file).
std::optional<ObservationError> refuse_unless_replaceable(const std::string& path) {
  const DWORD attributes = ::GetFileAttributesW(widen(path).c_str());
  if (attributes == INVALID_FILE_ATTRIBUTES) {
    const DWORD error = ::GetLastError();
    if (error == ERROR_FILE_NOT_FOUND || error == ERROR_PATH_NOT_FOUND) return std::nullopt;  // CreateFileW says which
    return win::make_error(path, "GetFileAttributesW", error);
  }
  if ((attributes & FILE_ATTRIBUTE_REPARSE_POINT) != 0) {
    return ObservationError{path, "GetFileAttributesW", ERROR_ACCESS_DENIED,
                            "is a reparse point (a link or mount point): refused, nothing written"};
  }
  if ((attributes & FILE_ATTRIBUTE_DIRECTORY) != 0) {
    return ObservationError{path, "GetFileAttributesW", ERROR_DIRECTORY,
                            "is a directory: refused, nothing written"};
  }
  return std::nullopt;
}

}  // namespace

std::optional<ObservationError> write_output(const std::string& path, const ContentProducer& produce,
                                             const OutputOptions& options) {
  if (path.empty()) return ObservationError{path, "CreateFileW", ERROR_INVALID_NAME, "an empty path names no file"};
  if (is_device_name(path)) return write_device(path, produce, options);
  if (auto refused = refuse_unless_replaceable(path)) return refused;
  const auto separator = path.find_last_of("\\/");
  const std::string dir = separator == std::string::npos ? "" : path.substr(0, separator + 1);
  const std::string base = separator == std::string::npos ? path : path.substr(separator + 1);
  if (base.empty()) return ObservationError{path, "CreateFileW", ERROR_DIRECTORY, "names a directory, not a file"};
  // The report's DACL, from the POSIX mode: the owner (OWNER RIGHTS), SYSTEM and
  // Administrators always; Everyone may read only when the mode lets others read.
  std::wstring sddl = L"D:P(A;;FA;;;OW)(A;;FA;;;SY)(A;;FA;;;BA)";
  if ((options.mode & 0004) != 0) sddl += L"(A;;FR;;;WD)";
  win::LocalPtr<PSECURITY_DESCRIPTOR> descriptor;
  if (!::ConvertStringSecurityDescriptorToSecurityDescriptorW(sddl.c_str(), SDDL_REVISION_1, descriptor.out(),
                                                              nullptr)) {
    return win::make_error(path, "ConvertStringSecurityDescriptorToSecurityDescriptorW", ::GetLastError());
  }
  SECURITY_ATTRIBUTES attributes{sizeof(SECURITY_ATTRIBUTES), descriptor.get(), FALSE};
  // A hidden temp name beside the target, created exclusively (CREATE_NEW never opens an
  // existing entry, link or not), shared with nobody until it is moved into place.
  std::wstring temp;
  UniqueHandle file;
  for (int attempt = 0; attempt < 100 && !file.valid(); ++attempt) {
    temp = widen(dir + "." + base + ".tmp." + std::to_string(::GetCurrentProcessId()) + "." +
                 std::to_string(attempt));
    file.reset(::CreateFileW(temp.c_str(), GENERIC_WRITE | DELETE, 0, &attributes, CREATE_NEW,
                             FILE_ATTRIBUTE_NORMAL, nullptr));
    if (!file.valid() && ::GetLastError() != ERROR_FILE_EXISTS) {
      return win::make_error(narrow(temp), "CreateFileW", ::GetLastError());
    }
  }
  if (!file.valid()) return win::make_error(narrow(temp), "CreateFileW", ERROR_FILE_EXISTS);
  DWORD error = feed(file.get(), produce, options.stop);
  const char* failed_op = "WriteFile";
  if (error == ERROR_SUCCESS && !::FlushFileBuffers(file.get())) {
    error = ::GetLastError();
    failed_op = "FlushFileBuffers";
  }
  file.reset();
  if (error != ERROR_SUCCESS) {
    ::DeleteFileW(temp.c_str());
    if (error == ERROR_OPERATION_ABORTED && stop_requested(options.stop)) return interrupted(path);
    return win::make_error(path, failed_op, error);
  }
  // Looked at again just before the move: a link or directory that appeared is not replaced.
  if (auto refused = refuse_unless_replaceable(path)) {
    ::DeleteFileW(temp.c_str());
    return refused;
  }
  const std::wstring target = widen(path);
  if (!::MoveFileExW(temp.c_str(), target.c_str(), MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH)) {
    error = ::GetLastError();
    ::DeleteFileW(temp.c_str());
    return win::make_error(path, "MoveFileExW", error);
  }
  return std::nullopt;
}

std::optional<ObservationError> write_output_text(const std::string& path, std::string_view text,
                                                  const OutputOptions& options) {
  return write_output(path, [&](const ContentSink& write) { write(text); }, options);
}

}  // namespace hsperfguard::platform
