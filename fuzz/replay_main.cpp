// Runs a fuzz target over saved inputs without libFuzzer: every file named on the command
// line and every regular file directly inside each directory named, in name order. ctest
// replays the committed corpus with it, so the targets keep building and passing with any
// compiler, clang or not. A failing input aborts the run after its path was printed.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <system_error>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

namespace fs = std::filesystem;

bool collect(const fs::path& arg, std::vector<fs::path>& inputs) {
  std::error_code ec;
  if (fs::is_directory(arg, ec)) {
    for (const auto& entry : fs::directory_iterator(arg, ec)) {
      if (entry.is_regular_file(ec)) inputs.push_back(entry.path());
    }
    return !ec;
  }
  if (fs::is_regular_file(arg, ec)) {
    inputs.push_back(arg);
    return true;
  }
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<fs::path> inputs;
  for (int i = 1; i < argc; ++i) {
    if (!collect(argv[i], inputs)) {
      std::fprintf(stderr, "replay: %s: not a readable file or directory\n", argv[i]);
      return 2;
    }
  }
  if (inputs.empty()) {
    std::fprintf(stderr, "usage: %s FILE_OR_DIR... (no inputs found)\n", argv[0]);
    return 2;
  }
  std::sort(inputs.begin(), inputs.end());
  for (const fs::path& path : inputs) {
    std::ifstream in(path, std::ios::binary);
    const std::vector<char> contents{std::istreambuf_iterator<char>(in),
                                     std::istreambuf_iterator<char>()};
    if (in.bad()) {
      std::fprintf(stderr, "replay: %s: read error\n", path.string().c_str());
      return 2;
    }
    // An exact-size heap copy, as libFuzzer passes it, so a read one past the end is caught.
    const auto data = std::make_unique<std::uint8_t[]>(contents.size());
    std::copy(contents.begin(), contents.end(), reinterpret_cast<char*>(data.get()));
    std::fprintf(stderr, "replay: %s (%zu bytes)\n", path.string().c_str(), contents.size());
    LLVMFuzzerTestOneInput(data.get(), contents.size());
  }
  std::printf("replay: %zu inputs, all invariants held\n", inputs.size());
  return 0;
}
