// A stand-in JVM for the Windows tests of `ps` and liveness: loads the DLL given (the suite's
// jvm.dll), maps the file given the way HotSpot maps its backing file (opened for reading and
// writing, shared for reading and deleting, a file mapping, a view of all of it), or first
// publishes its own: a copy of TEMPLATE named after its pid in DIR, as a JVM names its
// backing file; then writes the ready file and waits to be terminated.
//
//   hsperfguard_fake_jvm [-XX:FLAG...] READY_FILE [--load DLL] [--map FILE] [--publish TEMPLATE
//   DIR]
//
// -XX: flags do nothing; they are there for its command line to be read.
#include <windows.h>

#include <string>

namespace {

bool map_file(const wchar_t* path) {
  const HANDLE file =
      ::CreateFileW(path, GENERIC_READ | GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_DELETE,
                    nullptr, OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, nullptr);
  if (file == INVALID_HANDLE_VALUE) return false;
  const HANDLE mapping = ::CreateFileMappingW(file, nullptr, PAGE_READWRITE, 0, 0, nullptr);
  const bool mapped =
      mapping != nullptr && ::MapViewOfFile(mapping, FILE_MAP_ALL_ACCESS, 0, 0, 0) != nullptr;
  ::CloseHandle(file);  // the view keeps the file, as HotSpot's does
  return mapped;
}

}  // namespace

int wmain(int argc, wchar_t** argv) {
  // JVM flags first, as the java launcher takes them: they do nothing here.
  int first = 1;
  while (first < argc && std::wstring(argv[first]).rfind(L"-XX:", 0) == 0) ++first;
  if (first >= argc) return 2;
  const wchar_t* ready_file = argv[first];
  for (int i = first + 1; i < argc; i += 2) {
    const std::wstring option = argv[i];
    if (i + 1 >= argc) return 2;
    if (option == L"--load") {
      if (::LoadLibraryW(argv[i + 1]) == nullptr) return 3;
    } else if (option == L"--map") {
      if (!map_file(argv[i + 1])) return 4;
    } else if (option == L"--publish" && i + 2 < argc) {
      const std::wstring own =
          std::wstring(argv[i + 2]) + L"\\" + std::to_wstring(::GetCurrentProcessId());
      if (!::CopyFileW(argv[i + 1], own.c_str(), TRUE) || !map_file(own.c_str())) return 5;
      ++i;
    } else {
      return 2;
    }
  }
  const HANDLE ready = ::CreateFileW(ready_file, GENERIC_WRITE, 0, nullptr, CREATE_NEW,
                                     FILE_ATTRIBUTE_NORMAL, nullptr);
  if (ready == INVALID_HANDLE_VALUE) return 6;
  ::CloseHandle(ready);
  ::Sleep(INFINITE);
  return 0;
}
