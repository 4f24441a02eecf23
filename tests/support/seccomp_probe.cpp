// seccomp_probe: what a process of the node image's pod can do to another process, asked of
// the kernel. tests/binary/oci_image_posix_test.cpp builds it static (the image is FROM scratch: no
// shell, no libraries of the probe's), mounts it into a container of the image run with the
// DaemonSet's settings, and runs it against a JVM in another container:
//
//   seccomp_probe PID
//
// One line per call, `NAME ok` or `NAME errno=NAME (N)`: process_vm_readv of 8 bytes of
// PID's first readable mapping, process_vm_writev of nothing, kcmp of the two address
// spaces, ptrace(PTRACE_SEIZE) (which neither stops nor changes PID and ends when the probe
// exits), clone3 without arguments, then unshare(CLONE_NEWUSER). Exit 0 once every call was made.
#include <linux/kcmp.h>
#include <sched.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

void report(const char* name, long result, int error) {
  if (result >= 0) {
    std::printf("%s ok\n", name);
  } else {
    const char* errno_name = strerrorname_np(error);
    std::printf("%s errno=%s (%d)\n", name, errno_name != nullptr ? errno_name : "?", error);
  }
}

// The start of the first readable mapping of `pid`, 0 when none could be read.
unsigned long first_readable(pid_t pid) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/maps", static_cast<int>(pid));
  FILE* maps = std::fopen(path, "re");
  if (maps == nullptr) return 0;
  unsigned long start = 0, end = 0;
  char perms[8] = {};
  unsigned long found = 0;
  while (std::fscanf(maps, "%lx-%lx %7s %*[^\n]", &start, &end, perms) == 3) {
    if (perms[0] == 'r') {
      found = start;
      break;
    }
  }
  std::fclose(maps);
  return found;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: seccomp_probe PID\n");
    return 2;
  }
  const pid_t pid = static_cast<pid_t>(std::atol(argv[1]));
  std::setvbuf(stdout, nullptr, _IOLBF, 0);

  char buffer[8] = {};
  iovec local{buffer, sizeof buffer};
  iovec remote{reinterpret_cast<void*>(first_readable(pid)), sizeof buffer};
  errno = 0;
  long r = syscall(SYS_process_vm_readv, pid, &local, 1UL, &remote, 1UL, 0UL);
  report("process_vm_readv", r, errno);

  errno = 0;
  r = syscall(SYS_process_vm_writev, pid, &local, 0UL, &remote, 0UL, 0UL);
  report("process_vm_writev", r, errno);

  errno = 0;
  r = syscall(SYS_kcmp, static_cast<pid_t>(getpid()), pid, KCMP_VM, 0UL, 0UL);
  report("kcmp", r, errno);

  errno = 0;
  r = ptrace(PTRACE_SEIZE, pid, nullptr, nullptr);
  report("ptrace", r, errno);

  errno = 0;
  r = syscall(SYS_clone3, nullptr, 0UL);
  report("clone3", r, errno);

  // Last: a new user namespace has no capability over PID's.
  errno = 0;
  r = unshare(CLONE_NEWUSER);
  report("unshare", r, errno);
  return 0;
}
