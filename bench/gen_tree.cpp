// Generates a temp dir full of stale hsperfdata files, for the reap benchmark (and anyone who
// wants a realistic tree to look at):
//
//   bench_gen_tree --out DIR [--namespaces N] [--files M] [--owners UID,UID,...]
//                  [--region FILE] [--dense] [--seed S]
//
// DIR (created, mode 1777) gets N directories hsperfdata_bench<k> (0755, owned round-robin by
// the given uids) with M backing files each (0600, owned by the directory's owner), named
// after pids that no process has at generation time (so every file is stale), distinct
// within a namespace. Every file is a copy of a real JDK 17 region (tests/data by default):
// `--dense` writes all of it as a JVM does (one byte per page), the default writes the pages
// up to the region's `used` bytes and leaves the rest a hole, which keeps a 100,000-file tree
// on tmpfs at a few hundred MiB. Files get an mtime one hour in the past; their ctime is the
// generation time (it cannot be set), so age-based cleaners need a moment to pass.
// The same arguments (and the same live pids) give the same tree: names, sizes and owners.
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "model/perfdata.hpp"

namespace {

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "bench_gen_tree: %s: %s\n", what.c_str(), std::strerror(errno));
  std::exit(1);
}

std::vector<long> parse_list(const std::string& text) {
  std::vector<long> out;
  std::size_t at = 0;
  while (at <= text.size()) {
    const auto comma = text.find(',', at);
    out.push_back(std::stol(text.substr(at, comma - at)));
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  return out;
}

long read_pid_max() {
  std::ifstream in("/proc/sys/kernel/pid_max");
  long value = 32768;
  in >> value;
  return value;
}

std::vector<bool> live_pids(long pid_max) {
  std::vector<bool> live(static_cast<std::size_t>(pid_max) + 1, false);
  DIR* proc = ::opendir("/proc");
  if (proc == nullptr) die("/proc");
  while (const dirent* d = ::readdir(proc)) {
    char* end = nullptr;
    const long pid = std::strtol(d->d_name, &end, 10);
    if (*end == '\0' && pid > 0 && pid <= pid_max) live[static_cast<std::size_t>(pid)] = true;
  }
  ::closedir(proc);
  return live;
}

}  // namespace

int main(int argc, char** argv) {
  std::string out, region_path = std::string(HSPERFGUARD_SOURCE_DIR) + "/tests/data/jdk17-default.hsperf";
  std::size_t namespaces = 10, files = 10000;
  std::vector<long> owners = {static_cast<long>(::geteuid())};
  bool dense = false;
  unsigned seed = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "bench_gen_tree: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--out") out = value();
    else if (a == "--namespaces") namespaces = std::stoul(value());
    else if (a == "--files") files = std::stoul(value());
    else if (a == "--owners") owners = parse_list(value());
    else if (a == "--region") region_path = value();
    else if (a == "--dense") dense = true;
    else if (a == "--seed") seed = static_cast<unsigned>(std::stoul(value()));
    else {
      std::fprintf(stderr, "usage: bench_gen_tree --out DIR [--namespaces N] [--files M] "
                           "[--owners UID,...] [--region FILE] [--dense] [--seed S]\n");
      return 2;
    }
  }
  if (out.empty() || owners.empty()) {
    std::fprintf(stderr, "bench_gen_tree: --out is required\n");
    return 2;
  }

  std::ifstream in(region_path, std::ios::binary);
  const std::vector<char> region((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (region.empty()) die(region_path);
  const auto parsed = hsperfguard::perfdata::parse_prologue(
      std::span(reinterpret_cast<const std::byte*>(region.data()), region.size()));
  std::size_t written = region.size();
  if (!dense && parsed.prologue && parsed.prologue->used > 0) {
    const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    written = std::min(region.size(), (static_cast<std::size_t>(parsed.prologue->used) + page - 1) / page * page);
  }

  const long pid_max = read_pid_max();
  const std::vector<bool> live = live_pids(pid_max);
  std::vector<int> dead;
  for (long pid = 300; pid < pid_max; ++pid) {
    if (!live[static_cast<std::size_t>(pid)]) dead.push_back(static_cast<int>(pid));
  }
  if (dead.size() < files) {
    std::fprintf(stderr, "bench_gen_tree: only %zu free pids for %zu files per namespace\n",
                 dead.size(), files);
    return 2;
  }

  if (::mkdir(out.c_str(), 01777) != 0 && errno != EEXIST) die(out);
  ::chmod(out.c_str(), 01777);
  const int out_fd = ::open(out.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (out_fd < 0) die(out);
  std::mt19937 rng(seed);
  const timespec old_mtime[2] = {{::time(nullptr) - 3600, 0}, {::time(nullptr) - 3600, 0}};
  for (std::size_t n = 0; n < namespaces; ++n) {
    const auto owner = static_cast<uid_t>(owners[n % owners.size()]);
    const std::string name = "hsperfdata_bench" + std::to_string(n);
    if (::mkdirat(out_fd, name.c_str(), 0755) != 0 && errno != EEXIST) die(name);
    const int ns = ::openat(out_fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (ns < 0) die(name);
    if (::fchmod(ns, 0755) != 0 || ::fchown(ns, owner, owner) != 0) die(name);
    std::shuffle(dead.begin(), dead.end(), rng);
    for (std::size_t f = 0; f < files; ++f) {
      const std::string file = std::to_string(dead[f]);
      const int fd = ::openat(ns, file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
      if (fd < 0) die(name + "/" + file);
      if (::write(fd, region.data(), written) != static_cast<ssize_t>(written) ||
          ::ftruncate(fd, static_cast<off_t>(region.size())) != 0 || ::fchown(fd, owner, owner) != 0 ||
          ::futimens(fd, old_mtime) != 0) {
        die(name + "/" + file);
      }
      ::close(fd);
    }
    ::close(ns);
  }
  ::close(out_fd);
  std::printf("%zu namespaces x %zu stale files in %s (%zu of %zu bytes written each)\n", namespaces,
              files, out.c_str(), written, region.size());
  return 0;
}
