#include "platform/windows/win_util.hpp"

namespace hsperfguard::platform::win {

namespace {

void append_utf8(std::string& out, char32_t cp) {
  auto byte = [&](unsigned value) { out.push_back(static_cast<char>(static_cast<unsigned char>(value))); };
  if (cp < 0x80) {
    byte(cp);
  } else if (cp < 0x800) {
    byte(0xC0 | (cp >> 6));
    byte(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    byte(0xE0 | (cp >> 12));
    byte(0x80 | ((cp >> 6) & 0x3F));
    byte(0x80 | (cp & 0x3F));
  } else {
    byte(0xF0 | (cp >> 18));
    byte(0x80 | ((cp >> 12) & 0x3F));
    byte(0x80 | ((cp >> 6) & 0x3F));
    byte(0x80 | (cp & 0x3F));
  }
}

bool is_high_surrogate(char32_t unit) { return unit >= 0xD800 && unit <= 0xDBFF; }
bool is_low_surrogate(char32_t unit) { return unit >= 0xDC00 && unit <= 0xDFFF; }

}  // namespace

std::string narrow(std::wstring_view wide) {
  std::string out;
  out.reserve(wide.size());
  for (std::size_t i = 0; i < wide.size(); ++i) {
    const char32_t unit = static_cast<char16_t>(wide[i]);
    if (is_high_surrogate(unit) && i + 1 < wide.size() &&
        is_low_surrogate(static_cast<char16_t>(wide[i + 1]))) {
      const char32_t low = static_cast<char16_t>(wide[++i]);
      append_utf8(out, 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00));
    } else {
      append_utf8(out, unit);  // BMP character, or an unpaired surrogate kept as is
    }
  }
  return out;
}

std::wstring widen(std::string_view utf8) {
  std::wstring out;
  out.reserve(utf8.size());
  const auto at = [&](std::size_t i) { return static_cast<unsigned char>(utf8[i]); };
  const auto continuation = [&](std::size_t i) { return i < utf8.size() && (at(i) & 0xC0) == 0x80; };
  std::size_t i = 0;
  while (i < utf8.size()) {
    const unsigned lead = at(i);
    std::size_t length = 0;
    char32_t cp = 0;
    char32_t minimum = 0;
    if (lead < 0x80) {
      length = 1;
      cp = lead;
    } else if ((lead & 0xE0) == 0xC0) {
      length = 2;
      cp = lead & 0x1F;
      minimum = 0x80;
    } else if ((lead & 0xF0) == 0xE0) {
      length = 3;
      cp = lead & 0x0F;
      minimum = 0x800;
    } else if ((lead & 0xF8) == 0xF0) {
      length = 4;
      cp = lead & 0x07;
      minimum = 0x10000;
    }
    bool valid = length != 0;
    for (std::size_t k = 1; valid && k < length; ++k) {
      valid = continuation(i + k);
      if (valid) cp = (cp << 6) | (at(i + k) & 0x3F);
    }
    // Overlong forms and code points beyond Unicode are refused; surrogates are accepted
    // because narrow() writes unpaired ones this way.
    if (!valid || cp < minimum || cp > 0x10FFFF) {
      out.push_back(L'\xFFFD');
      ++i;
      continue;
    }
    if (cp >= 0x10000) {
      cp -= 0x10000;
      out.push_back(static_cast<wchar_t>(0xD800 + (cp >> 10)));
      out.push_back(static_cast<wchar_t>(0xDC00 + (cp & 0x3FF)));
    } else {
      out.push_back(static_cast<wchar_t>(cp));
    }
    i += length;
  }
  return out;
}

bool equal_ignoring_case(std::wstring_view a, std::wstring_view b) {
  return ::CompareStringOrdinal(a.data(), static_cast<int>(a.size()), b.data(),
                                static_cast<int>(b.size()), TRUE) == CSTR_EQUAL;
}

bool is_namespace_name(std::wstring_view name) {
  return name.size() >= kNamespacePrefix.size() &&
         equal_ignoring_case(name.substr(0, kNamespacePrefix.size()), kNamespacePrefix);
}

std::wstring join(const std::wstring& dir, const std::wstring& name) {
  if (dir.empty()) return name;
  if (dir.back() == L'\\' || dir.back() == L'/') return dir + name;
  return dir + L'\\' + name;
}

std::wstring temp_dir_path(RootKind kind, const std::string& root, const std::string& temp_dir) {
  std::wstring temp = widen(temp_dir);
  if (kind != RootKind::root) return temp;
  std::wstring inside = temp;
  for (auto& c : inside) {
    if (c == L'/') c = L'\\';
  }
  while (!inside.empty() && inside.front() == L'\\') inside.erase(inside.begin());
  return join(widen(root), inside);
}

std::wstring windows_directory() {
  std::wstring buffer(MAX_PATH + 1, L'\0');
  const UINT length = ::GetSystemWindowsDirectoryW(buffer.data(), static_cast<UINT>(buffer.size()));
  if (length == 0 || length >= buffer.size()) return L"C:\\Windows";
  buffer.resize(length);
  return buffer;
}

std::string error_message(DWORD code) {
  LocalPtr<wchar_t*> buffer;
  const DWORD length = ::FormatMessageW(
      FORMAT_MESSAGE_ALLOCATE_BUFFER | FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS,
      nullptr, code, 0, reinterpret_cast<wchar_t*>(buffer.out()), 0, nullptr);
  if (length == 0 || buffer.get() == nullptr) return "Win32 error " + std::to_string(code);
  std::wstring_view text(buffer.get(), length);
  while (!text.empty() && (text.back() == L'\n' || text.back() == L'\r' || text.back() == L' ')) {
    text.remove_suffix(1);
  }
  return narrow(text);
}

ObservationError make_error(std::string path, std::string op, DWORD code) {
  return ObservationError{std::move(path), std::move(op), static_cast<int>(code), error_message(code)};
}

Timestamp to_timestamp(const FILETIME& time) {
  constexpr std::int64_t kUnixEpochIn100ns = 116444736000000000;  // 1601-01-01 .. 1970-01-01
  const std::int64_t ticks =
      static_cast<std::int64_t>((static_cast<std::uint64_t>(time.dwHighDateTime) << 32) | time.dwLowDateTime);
  const std::int64_t since_epoch = ticks - kUnixEpochIn100ns;
  std::int64_t sec = since_epoch / 10000000;
  std::int64_t rest = since_epoch % 10000000;
  if (rest < 0) {
    rest += 10000000;
    --sec;
  }
  return Timestamp{sec, rest * 100};
}

// The same time as a LARGE_INTEGER (FILE_BASIC_INFO, directory listings).
static Timestamp to_timestamp(const LARGE_INTEGER& time) {
  FILETIME ft{};
  ft.dwLowDateTime = static_cast<DWORD>(static_cast<std::uint64_t>(time.QuadPart) & 0xFFFFFFFF);
  ft.dwHighDateTime = static_cast<DWORD>(static_cast<std::uint64_t>(time.QuadPart) >> 32);
  return to_timestamp(ft);
}

FileKind kind_from_attributes(DWORD attributes) {
  if ((attributes & FILE_ATTRIBUTE_REPARSE_POINT) != 0) return FileKind::symlink;
  if ((attributes & FILE_ATTRIBUTE_DIRECTORY) != 0) return FileKind::directory;
  if ((attributes & FILE_ATTRIBUTE_DEVICE) != 0) return FileKind::char_device;
  return FileKind::regular;
}

InodeFacts to_inode_facts(const BY_HANDLE_FILE_INFORMATION& info) {
  InodeFacts facts;
  facts.kind = kind_from_attributes(info.dwFileAttributes);
  facts.nlink = info.nNumberOfLinks;
  facts.size = (static_cast<std::uint64_t>(info.nFileSizeHigh) << 32) | info.nFileSizeLow;
  facts.dev = info.dwVolumeSerialNumber;
  facts.ino = (static_cast<std::uint64_t>(info.nFileIndexHigh) << 32) | info.nFileIndexLow;
  facts.mtime = to_timestamp(info.ftLastWriteTime);
  facts.atime = to_timestamp(info.ftLastAccessTime);
  facts.windows_attributes = info.dwFileAttributes;
  return facts;
}

std::optional<InodeFacts> inode_facts_of(HANDLE handle, const std::string& path,
                                         ObservationError* error) {
  BY_HANDLE_FILE_INFORMATION info{};
  if (!::GetFileInformationByHandle(handle, &info)) {
    if (error != nullptr) *error = make_error(path, "GetFileInformationByHandle", ::GetLastError());
    return std::nullopt;
  }
  InodeFacts facts = to_inode_facts(info);
  FILE_BASIC_INFO basic{};
  if (::GetFileInformationByHandleEx(handle, FileBasicInfo, &basic, sizeof basic)) {
    facts.ctime = to_timestamp(basic.ChangeTime);
  }
  return facts;
}

InodeFacts to_inode_facts(const FILE_ID_BOTH_DIR_INFO& entry, std::uint64_t volume_serial) {
  InodeFacts facts;
  facts.kind = kind_from_attributes(entry.FileAttributes);
  facts.size = static_cast<std::uint64_t>(entry.EndOfFile.QuadPart);
  facts.dev = volume_serial;
  facts.ino = static_cast<std::uint64_t>(entry.FileId.QuadPart);
  facts.mtime = to_timestamp(entry.LastWriteTime);
  facts.atime = to_timestamp(entry.LastAccessTime);
  facts.ctime = to_timestamp(entry.ChangeTime);
  facts.windows_attributes = entry.FileAttributes;
  return facts;
}

std::optional<PinnedDirectory> pin_directory(const std::wstring& path, ObservationError* error,
                                             DWORD extra_access) {
  const std::string shown = narrow(path);
  auto fail = [&](ObservationError e) -> std::optional<PinnedDirectory> {
    if (error != nullptr) *error = std::move(e);
    return std::nullopt;
  };
  const DWORD attributes = ::GetFileAttributesW(path.c_str());
  if (attributes == INVALID_FILE_ATTRIBUTES) return fail(make_error(shown, "GetFileAttributesW", ::GetLastError()));
  if (kind_from_attributes(attributes) != FileKind::directory) {
    return fail(ObservationError{shown, "GetFileAttributesW", 0, "not a directory (a reparse point or a file)"});
  }
  PinnedDirectory pinned;
  pinned.handle.reset(::CreateFileW(
      path.c_str(), FILE_LIST_DIRECTORY | FILE_READ_ATTRIBUTES | SYNCHRONIZE | extra_access,
      FILE_SHARE_READ | FILE_SHARE_WRITE, nullptr, OPEN_EXISTING,
      FILE_FLAG_OPEN_REPARSE_POINT | FILE_FLAG_BACKUP_SEMANTICS, nullptr));
  if (!pinned.handle.valid()) return fail(make_error(shown, "CreateFileW", ::GetLastError()));
  ObservationError e;
  auto facts = inode_facts_of(pinned.handle.get(), shown, &e);
  if (!facts) return fail(e);
  if (facts->kind != FileKind::directory) {
    return fail(ObservationError{shown, "CreateFileW", 0, "not a directory (a reparse point or a file)"});
  }
  pinned.facts = *facts;
  return pinned;
}

}  // namespace hsperfguard::platform::win
