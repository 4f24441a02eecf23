// Test helpers, Windows: scratch directories (std::filesystem) and CreateProcessW.
#include "test_support_windows.hpp"

#include <gtest/gtest.h>
#include <windows.h>

#include <algorithm>
#include <array>
#include <cwchar>
#include <cwctype>
#include <filesystem>
#include <random>
#include <stdexcept>
#include <string_view>
#include <thread>
#include <vector>

#include "platform/windows/win_util.hpp"
#include "test_support.hpp"

namespace hsperfguard::test {

namespace fs = std::filesystem;
using platform::win::narrow;
using platform::win::UniqueHandle;
using platform::win::widen;

ScratchDir::ScratchDir() {
  std::random_device random;
  const auto name = L"hsperfguard-test-" + std::to_wstring(::GetCurrentProcessId()) + L"-" +
                    std::to_wstring(random());
  const fs::path base = fs::temp_directory_path() / name;
  fs::create_directories(base);
  path_ = narrow(base.native());
}

namespace {

// Removes `path` and everything below it without ever entering a reparse point: a link
// planted in a scratch dir (the tests make some) is removed itself, never its target.
// std::filesystem::remove_all cannot be used: libstdc++ on Windows does not know reparse
// points and follows them.
void remove_tree(const std::wstring& path) {
  const DWORD attributes = ::GetFileAttributesW(path.c_str());
  if (attributes == INVALID_FILE_ATTRIBUTES) return;
  if ((attributes & FILE_ATTRIBUTE_READONLY) != 0) {
    ::SetFileAttributesW(path.c_str(), attributes & ~FILE_ATTRIBUTE_READONLY);
  }
  if ((attributes & FILE_ATTRIBUTE_REPARSE_POINT) != 0) {
    if (!::RemoveDirectoryW(path.c_str())) ::DeleteFileW(path.c_str());
    return;
  }
  if ((attributes & FILE_ATTRIBUTE_DIRECTORY) == 0) {
    ::DeleteFileW(path.c_str());
    return;
  }
  std::vector<std::wstring> children;
  WIN32_FIND_DATAW entry{};
  HANDLE search = ::FindFirstFileW(platform::win::join(path, L"*").c_str(), &entry);
  if (search != INVALID_HANDLE_VALUE) {
    do {
      const std::wstring_view name = entry.cFileName;
      if (name != L"." && name != L"..") children.push_back(platform::win::join(path, std::wstring(name)));
    } while (::FindNextFileW(search, &entry));
    ::FindClose(search);
  }
  for (const auto& child : children) remove_tree(child);
  ::RemoveDirectoryW(path.c_str());
}

}  // namespace

ScratchDir::~ScratchDir() { remove_tree(widen(path_)); }

namespace {

// Quotes one argument the way CommandLineToArgvW and the C runtime split it again.
std::wstring quote_argument(const std::wstring& arg) {
  if (!arg.empty() && arg.find_first_of(L" \t\n\v\"") == std::wstring::npos) return arg;
  std::wstring out = L"\"";
  std::size_t backslashes = 0;
  for (const wchar_t c : arg) {
    if (c == L'\\') {
      ++backslashes;
    } else if (c == L'"') {
      out.append(2 * backslashes + 1, L'\\');
      out.push_back(c);
      backslashes = 0;
    } else {
      out.append(backslashes, L'\\');
      out.push_back(c);
      backslashes = 0;
    }
  }
  out.append(2 * backslashes, L'\\');
  out.push_back(L'"');
  return out;
}

void drain(HANDLE pipe, std::string& into) {
  std::array<char, 65536> buf;
  DWORD n = 0;
  while (::ReadFile(pipe, buf.data(), static_cast<DWORD>(buf.size()), &n, nullptr) && n > 0) {
    into.append(buf.data(), n);
  }
}

}  // namespace

CommandResult run(const std::vector<std::string>& argv) {
  CommandResult result;
  // Wine starts a Unix program given by its Unix path, but its exit code never reaches this
  // parent (it reads 0 whatever the program returned): a test relying on it could not fail.
  if (argv.empty() || (!argv.front().empty() && argv.front().front() == '/')) {
    throw std::invalid_argument("test::run on Windows runs Windows programs only, not " +
                                (argv.empty() ? std::string("nothing") : argv.front()));
  }
  SECURITY_ATTRIBUTES inherit{sizeof(SECURITY_ATTRIBUTES), nullptr, TRUE};
  HANDLE out_read = nullptr, out_write = nullptr, err_read = nullptr, err_write = nullptr;
  if (!::CreatePipe(&out_read, &out_write, &inherit, 0) || !::CreatePipe(&err_read, &err_write, &inherit, 0)) {
    throw std::runtime_error("CreatePipe");
  }
  UniqueHandle out_r(out_read), out_w(out_write), err_r(err_read), err_w(err_write);
  ::SetHandleInformation(out_r.get(), HANDLE_FLAG_INHERIT, 0);
  ::SetHandleInformation(err_r.get(), HANDLE_FLAG_INHERIT, 0);
  UniqueHandle null_in(::CreateFileW(L"NUL", GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE, &inherit,
                                     OPEN_EXISTING, 0, nullptr));

  std::wstring command_line;
  for (const auto& arg : argv) {
    if (!command_line.empty()) command_line.push_back(L' ');
    command_line += quote_argument(widen(arg));
  }
  STARTUPINFOW startup{};
  startup.cb = sizeof startup;
  startup.dwFlags = STARTF_USESTDHANDLES;
  startup.hStdInput = null_in.get();
  startup.hStdOutput = out_w.get();
  startup.hStdError = err_w.get();
  PROCESS_INFORMATION info{};
  if (!::CreateProcessW(nullptr, command_line.data(), nullptr, nullptr, TRUE, CREATE_NO_WINDOW, nullptr,
                        nullptr, &startup, &info)) {
    result.err = "spawn failed: " + platform::win::error_message(::GetLastError());
    return result;
  }
  UniqueHandle process(info.hProcess), thread(info.hThread);
  out_w.reset();
  err_w.reset();
  // Both pipes are drained at once so that a child filling one of them cannot block.
  std::thread err_reader([&] { drain(err_r.get(), result.err); });
  drain(out_r.get(), result.out);
  err_reader.join();
  ::WaitForSingleObject(process.get(), INFINITE);
  DWORD exit_code = 0;
  ::GetExitCodeProcess(process.get(), &exit_code);
  result.exit_code = static_cast<int>(exit_code);
  return result;
}

bool exists(const std::string& path) {
  return ::GetFileAttributesW(platform::win::widen(path).c_str()) != INVALID_FILE_ATTRIBUTES;
}

std::set<std::string> dacl_rules(const nlohmann::json& findings) {
  std::set<std::string> ids;
  for (const auto& f : findings) {
    const std::string rule = f.value("rule", "");
    if (rule.starts_with("dacl.")) ids.insert(rule);
  }
  return ids;
}

std::string build_output_path(std::string path) {
  if (!path.empty() && path.front() == '/') {  // the build host's Unix path: drive Z: under wine
    std::replace(path.begin(), path.end(), '/', '\\');
    path = "Z:" + path;
  }
  return path;
}

std::string tool_path() { return build_output_path(HSPERFGUARD_BINARY); }

bool tool_sanitized() { return false; }  // no sanitizer in the mingw build

std::string current_user_name() {
  wchar_t name[256];
  DWORD size = 256;
  if (!::GetUserNameW(name, &size)) return {};
  return platform::win::narrow(std::wstring(name, size > 0 ? size - 1 : 0));
}

bool is_root() {
  // The Windows counterpart: a member of BUILTIN\Administrators with the group enabled.
  SID_IDENTIFIER_AUTHORITY nt = SECURITY_NT_AUTHORITY;
  PSID admins = nullptr;
  if (!::AllocateAndInitializeSid(&nt, 2, SECURITY_BUILTIN_DOMAIN_RID, DOMAIN_ALIAS_RID_ADMINS, 0, 0, 0, 0,
                                  0, 0, &admins)) {
    return false;
  }
  BOOL member = FALSE;
  const bool ok = ::CheckTokenMembership(nullptr, admins, &member);
  ::FreeSid(admins);
  return ok && member;
}

bool have_program(const std::string& name) {
  const std::wstring wide = widen(name);
  wchar_t found[MAX_PATH];
  return ::SearchPathW(nullptr, wide.c_str(), L".exe", MAX_PATH, found, nullptr) != 0;
}

std::optional<std::string> unix_path(const std::string& windows_path) {
  using Convert = char*(CDECL*)(const wchar_t*);
  const HMODULE kernel32 = ::GetModuleHandleW(L"kernel32.dll");
  const auto convert = reinterpret_cast<Convert>(
      reinterpret_cast<void*>(::GetProcAddress(kernel32, "wine_get_unix_file_name")));
  if (convert == nullptr) return std::nullopt;
  const std::wstring wide = widen(windows_path);
  char* converted = convert(wide.c_str());
  if (converted == nullptr) return std::nullopt;
  std::string out(converted);
  ::HeapFree(::GetProcessHeap(), 0, converted);
  return out;
}

bool run_unix(std::wstring command, const std::string& windows_path, bool want_present) {
  STARTUPINFOW startup{};
  startup.cb = sizeof startup;
  PROCESS_INFORMATION info{};
  if (!::CreateProcessW(nullptr, command.data(), nullptr, nullptr, FALSE, CREATE_NO_WINDOW, nullptr, nullptr,
                        &startup, &info)) {
    return false;
  }
  // Not closed: for a Unix program wine hands back handle values that are not this process's
  // handles to it; closing them closed a handle kernelbase had cached (its BaseNamedObjects
  // directory), and every later OpenFileMappingW failed with "invalid handle".
  const std::wstring path = widen(windows_path);
  for (int i = 0; i < 500; ++i) {
    if ((::GetFileAttributesW(path.c_str()) != INVALID_FILE_ATTRIBUTES) == want_present) return true;
    ::Sleep(20);
  }
  return false;
}

bool unix_symlink(const std::string& unix_target, const std::string& unix_link, const std::string& windows_link) {
  return run_unix(L"/bin/ln -s \"" + widen(unix_target) + L"\" \"" + widen(unix_link) + L"\"", windows_link, true);
}

Child start_suspended_child() {
  Child child;
  wchar_t self[MAX_PATH];
  const DWORD length = ::GetModuleFileNameW(nullptr, self, MAX_PATH);
  if (length == 0) return child;
  std::wstring command = L"\"" + std::wstring(self, length) + L"\" --gtest_list_tests";
  STARTUPINFOW startup{};
  startup.cb = sizeof startup;
  PROCESS_INFORMATION info{};
  if (!::CreateProcessW(nullptr, command.data(), nullptr, nullptr, FALSE, CREATE_SUSPENDED | CREATE_NO_WINDOW,
                        nullptr, nullptr, &startup, &info)) {
    return child;
  }
  child.process.reset(info.hProcess);
  child.thread.reset(info.hThread);
  child.pid = static_cast<std::int32_t>(info.dwProcessId);
  return child;
}

bool terminate_child(Child& child, UINT exit_code) {
  return child.process.valid() && ::TerminateProcess(child.process.get(), exit_code) &&
         ::WaitForSingleObject(child.process.get(), 10000) == WAIT_OBJECT_0;
}

namespace {

// This process's environment block with `entries` (NAME=value) set over it, for
// CreateProcessW (CREATE_UNICODE_ENVIRONMENT): a name given replaces the one inherited,
// without regard to case as Windows reads names.
std::wstring environment_block(const std::vector<std::string>& entries) {
  std::vector<std::wstring> out;
  auto name_of = [](const std::wstring& entry) {
    std::wstring name = entry.substr(0, entry.find(L'=', 1));
    for (auto& c : name) c = static_cast<wchar_t>(::towupper(c));
    return name;
  };
  std::vector<std::wstring> given;
  for (const auto& e : entries) given.push_back(platform::win::widen(e));
  wchar_t* inherited = ::GetEnvironmentStringsW();
  for (const wchar_t* at = inherited; at != nullptr && *at != L'\0'; at += std::wcslen(at) + 1) {
    const std::wstring entry(at);
    if (std::none_of(given.begin(), given.end(), [&](const std::wstring& g) { return name_of(g) == name_of(entry); })) {
      out.push_back(entry);
    }
  }
  if (inherited != nullptr) ::FreeEnvironmentStringsW(inherited);
  out.insert(out.end(), given.begin(), given.end());
  std::wstring block;
  for (const auto& e : out) block.append(e).push_back(L'\0');
  block.push_back(L'\0');
  return block;
}

}  // namespace

FakeJvm::FakeJvm(const std::string& scratch, const std::vector<std::string>& args,
                 const std::vector<std::string>& environment) {
  static int counter = 0;
  const std::string ready = scratch + "\\ready-" + std::to_string(::GetCurrentProcessId()) + "-" +
                            std::to_string(counter++);
  // JVM flags (-XX:...) go before the rest, as the java launcher takes them.
  std::wstring command =
      L"\"" + platform::win::widen(build_output_path(HSPERFGUARD_FAKE_JVM)) + L"\"";
  for (const auto& a : args) {
    if (a.starts_with("-XX:")) command += L" \"" + platform::win::widen(a) + L"\"";
  }
  command += L" \"" + platform::win::widen(ready) + L"\"";
  for (const auto& a : args) {
    if (!a.starts_with("-XX:")) command += L" \"" + platform::win::widen(a) + L"\"";
  }
  STARTUPINFOW startup{};
  startup.cb = sizeof startup;
  PROCESS_INFORMATION info{};
  std::wstring block = environment_block(environment);
  if (!::CreateProcessW(nullptr, command.data(), nullptr, nullptr, FALSE,
                        CREATE_NO_WINDOW | CREATE_UNICODE_ENVIRONMENT,
                        environment.empty() ? nullptr : block.data(), nullptr, &startup, &info)) {
    ADD_FAILURE() << "CreateProcessW: " << platform::win::error_message(::GetLastError());
    return;
  }
  process_.reset(info.hProcess);
  ::CloseHandle(info.hThread);
  pid_ = static_cast<std::int32_t>(info.dwProcessId);
  const std::wstring wide_ready = platform::win::widen(ready);
  for (int i = 0; i < 500 && ::GetFileAttributesW(wide_ready.c_str()) == INVALID_FILE_ATTRIBUTES;
       ++i) {
    if (::WaitForSingleObject(process_.get(), 20) == WAIT_OBJECT_0) break;  // it failed
  }
  DWORD code = 0;
  ::GetExitCodeProcess(process_.get(), &code);
  EXPECT_NE(::GetFileAttributesW(wide_ready.c_str()), INVALID_FILE_ATTRIBUTES)
      << "the stand-in JVM did not get ready (exit code " << code << ")";
}

void FakeJvm::stop() {
  if (!process_.valid()) return;
  ::TerminateProcess(process_.get(), 9);
  ::WaitForSingleObject(process_.get(), 10000);
  process_.reset();
}

std::string standin_jvm_dll() { return build_output_path(HSPERFGUARD_JVM_DLL); }

}  // namespace hsperfguard::test
