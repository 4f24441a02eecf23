// Test helpers, POSIX: scratch directories (Boost.Filesystem) and posix_spawn.
#include "test_support.hpp"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cctype>
#include <boost/filesystem.hpp>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

extern char** environ;

namespace hsperfguard::test {

std::string tool_path() {
  const char* other = std::getenv("HSPERFGUARD_TEST_BINARY");
  return other != nullptr && *other != '\0' ? std::string(other) : std::string(HSPERFGUARD_BINARY);
}

bool tool_sanitized() {
#ifdef HSPERFGUARD_SANITIZED
  return true;
#else
  const char* sanitized = std::getenv("HSPERFGUARD_TEST_SANITIZED");
  return sanitized != nullptr && *sanitized != '\0';
#endif
}

long peak_rss_kib(const std::vector<std::string>& args, int* exit_code) {
  std::vector<std::string> argv = {"python3", "-c",
                                   "import resource, subprocess, sys\n"
                                   "rc = subprocess.call(sys.argv[1:], stdout=subprocess.DEVNULL)\n"
                                   "print(rc, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n",
                                   tool_path()};
  argv.insert(argv.end(), args.begin(), args.end());
  const CommandResult result = run(argv);
  std::istringstream words(result.out);
  long kib = -1;
  if (!(words >> *exit_code >> kib)) return -1;
  return kib;
}

std::string traced_asan_options() {
  const char* set = std::getenv("ASAN_OPTIONS");
  return std::string("ASAN_OPTIONS=") + (set ? std::string(set) + ":" : "") + "detect_leaks=0";
}

::testing::AssertionResult schema_valid(const std::string& document, const std::string& schema) {
  ScratchDir dir;
  const std::string path = dir / "document.json";
  std::ofstream(path) << document;
  const auto result =
      run({"/usr/bin/python3", source_path("tests/support/validate_json.py"), source_path(schema), path});
  if (result.exit_code == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << schema << ": " << result.err << result.out;
}

std::string report_v1_in_place(const std::string& file) {
  return "jq -f '" + source_path("schemas/report-2-to-1.jq") + "' " + file + " > " + file + ".v1 && mv " + file +
         ".v1 " + file;
}

ScratchDir::ScratchDir() {
  auto base = boost::filesystem::temp_directory_path() /
              boost::filesystem::unique_path("hsperfguard-test-%%%%-%%%%-%%%%");
  boost::filesystem::create_directories(base);
  path_ = base.string();
}

ScratchDir::~ScratchDir() {
  boost::system::error_code ec;
  boost::filesystem::remove_all(path_, ec);
}

CommandResult run(const std::vector<std::string>& argv) {
  int out_pipe[2], err_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0 || ::pipe2(err_pipe, O_CLOEXEC) != 0) {
    throw std::runtime_error("pipe");
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], 2);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int rc = ::posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  CommandResult result;
  if (rc != 0) {
    ::close(out_pipe[0]);
    ::close(err_pipe[0]);
    result.err = std::string("spawn failed: ") + std::strerror(rc);
    return result;
  }
  std::array<pollfd, 2> fds{{{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}}};
  int open_fds = 2;
  std::array<char, 65536> buf;
  while (open_fds > 0) {
    if (::poll(fds.data(), fds.size(), -1) < 0) break;
    for (std::size_t i = 0; i < fds.size(); ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      const ssize_t n = ::read(fds[i].fd, buf.data(), buf.size());
      if (n <= 0) {
        ::close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      } else {
        (i == 0 ? result.out : result.err).append(buf.data(), static_cast<std::size_t>(n));
      }
    }
  }
  int status = 0;
  struct rusage usage {};
  ::wait4(pid, &status, 0, &usage);
  result.max_rss_kb = usage.ru_maxrss;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

std::vector<std::string> unit_capabilities(const std::string& unit_file) {
  std::vector<std::string> caps;
  std::ifstream in(unit_file);
  for (std::string line; std::getline(in, line);) {
    if (!line.starts_with("CapabilityBoundingSet=")) continue;
    std::istringstream words(line.substr(line.find('=') + 1));
    for (std::string w; words >> w;) {
      std::string name = w.substr(w.starts_with("CAP_") ? 4 : 0);
      for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      caps.push_back(name);
    }
  }
  return caps;
}

std::string bounding_set(const std::vector<std::string>& caps, const std::string& without) {
  std::string set = "-all";
  for (const auto& c : caps) {
    if (c != without) set += ",+" + c;
  }
  return set;
}

bool is_root() { return ::geteuid() == 0; }

bool have_program(const std::string& name) {
  return run({"sh", "-c", "command -v " + name + " >/dev/null"}).exit_code == 0;
}

CommandResult run_in_private_mounts(const std::string& script) {
  // The binary is opened before /tmp is covered and run through that descriptor.
  const std::string prologue = R"(set -u
exec 9<"$HSPERFGUARD_BIN" || exit 120
H=/proc/$$/fd/9
# A checkout under /tmp (a clone made there) is put back at its path once /tmp is covered, so
# that a script can name its files (tests/support/validate_json.py, a schema); it is held open first
# and bound from that descriptor (--no-canonicalize: its link text names the covered path).
case "$HSPERFGUARD_TREE" in /tmp/?*) exec 8<"$HSPERFGUARD_TREE" || exit 119 ;; esac
# A working directory under /tmp (a checkout there) is covered below: start from /, where
# every program of the script (a pyenv shim too) can stay.
cd / || exit 127
mount --make-rprivate / || exit 121
mount -t tmpfs -o mode=1777 tmpfs /tmp || exit 122
mount -t tmpfs -o mode=0755 tmpfs /run || exit 123
mount -t tmpfs -o mode=0755 tmpfs /dev || exit 124
mknod -m 666 /dev/null c 1 3 && mknod -m 666 /dev/zero c 1 5 && mknod -m 666 /dev/full c 1 7 || exit 125
ln -s /proc/self/fd /dev/fd && ln -s /proc/self/fd/0 /dev/stdin && ln -s /proc/self/fd/1 /dev/stdout &&
  ln -s /proc/self/fd/2 /dev/stderr || exit 126
case "$HSPERFGUARD_TREE" in
  /tmp/?*) { mkdir -p "$HSPERFGUARD_TREE" && mount --no-canonicalize --bind /proc/$$/fd/8 "$HSPERFGUARD_TREE"; } || exit 118
           exec 8<&- ;;
esac
)";
  return run({"env", "HSPERFGUARD_BIN=" + tool_path(), "HSPERFGUARD_TREE=" + source_path(""), "unshare",
              "--mount", "--propagation", "private", "sh",
              "-c", prologue + script});
}

}  // namespace hsperfguard::test
