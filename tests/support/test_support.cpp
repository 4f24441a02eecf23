// Test helpers that are the same on every platform; the OS-specific ones (scratch
// directories, spawning processes) are in test_support_posix.cpp and test_support_windows.cpp.
#include "test_support.hpp"

#include <cstring>
#include <fstream>
#include <iterator>

namespace hsperfguard::test {

std::string source_path(const std::string& relative) {
  return std::string(HSPERFGUARD_SOURCE_DIR) + "/" + relative;
}

CommandResult run_tool(std::vector<std::string> args) {
  args.insert(args.begin(), tool_path());
  return run(args);
}

std::vector<std::byte> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> out(chars.size());
  std::memcpy(out.data(), chars.data(), chars.size());
  return out;
}

void write_file(const std::string& path, const std::vector<std::byte>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

std::vector<std::byte> to_bytes(const std::string& s) {
  std::vector<std::byte> out(s.size());
  if (!s.empty()) std::memcpy(out.data(), s.data(), s.size());  // an empty vector's data() may be null
  return out;
}

}  // namespace hsperfguard::test
