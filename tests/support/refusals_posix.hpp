// openat2 and io_uring refused, as container runtimes' seccomp profiles refuse them, and the
// kernel's own answer to each. Linux only; header-only, so that the helper program
// seccomp_refuse (which runs the whole suite under such a filter) and the tests share it.
#pragma once

#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/io_uring.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <initializer_list>
#include <vector>

namespace hsperfguard::test {

// What the kernel answers this process when asked directly, by a raw system call: 0 when the
// call works, else its errno (EPERM or ENOSYS from a seccomp filter, ENOSYS from a kernel
// without it, EPERM where kernel.io_uring_disabled says so). The oracle that the tool's own
// probes (openat2_available, IoBatch::create) are checked against.
inline int openat2_refusal() {
  open_how how{};
  how.flags = O_PATH | O_DIRECTORY | O_CLOEXEC;
  how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;
  errno = 0;
  const long fd = ::syscall(SYS_openat2, AT_FDCWD, "/", &how, sizeof how);
  if (fd < 0) return errno;
  ::close(static_cast<int>(fd));
  return 0;
}

inline int io_uring_refusal() {
  io_uring_params params{};
  errno = 0;
  const long ring = ::syscall(SYS_io_uring_setup, 1, &params);
  if (ring < 0) return errno;
  ::close(static_cast<int>(ring));
  return 0;
}

// The system calls seccomp_refuse refuses: openat2, io_uring (its three calls), or both.
inline constexpr std::initializer_list<unsigned> kOpenat2 = {SYS_openat2};
inline constexpr std::initializer_list<unsigned> kIoUring = {
    SYS_io_uring_setup, SYS_io_uring_enter, SYS_io_uring_register};
inline constexpr std::initializer_list<unsigned> kOpenat2AndIoUring = {
    SYS_openat2, SYS_io_uring_setup, SYS_io_uring_enter, SYS_io_uring_register};

// The architecture whose system call numbers a filter compares: a call made through another
// ABI (a 32-bit program on a 64-bit kernel) is let through, as nothing here is such a program.
#if defined(__x86_64__)
inline constexpr unsigned kAuditArch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
inline constexpr unsigned kAuditArch = AUDIT_ARCH_AARCH64;
#elif defined(__i386__)
inline constexpr unsigned kAuditArch = AUDIT_ARCH_I386;
#elif defined(__riscv) && __riscv_xlen == 64
inline constexpr unsigned kAuditArch = AUDIT_ARCH_RISCV64;
#elif defined(__powerpc64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
inline constexpr unsigned kAuditArch = AUDIT_ARCH_PPC64LE;
#elif defined(__s390x__)
inline constexpr unsigned kAuditArch = AUDIT_ARCH_S390X;
#else
inline constexpr unsigned kAuditArch = 0;  // not known here: refuse_system_calls fails
#endif
// x32 programs call with the x86_64 architecture and this bit set in the number: cleared
// before the comparison, so that they are refused the same calls.
#if defined(__x86_64__)
inline constexpr unsigned kX32Bit = 0x40000000u;
#else
inline constexpr unsigned kX32Bit = 0;
#endif

// Installs a seccomp filter on the calling thread that makes each of `numbers` fail with
// `code` and allows every other system call. Inherited across fork and exec, never removed;
// filters stack (of two that both refuse a call, the later one's errno is returned). Root
// needs no no_new_privs (CAP_SYS_ADMIN), so the programs it starts keep the privileges they
// would have without the filter; any other user gets no_new_privs first, as the kernel
// requires. False, with errno, when the kernel refused the filter.
inline bool refuse_system_calls(std::initializer_list<unsigned> numbers, int code) {
  if (kAuditArch == 0) {
    errno = ENOSYS;
    return false;
  }
  const auto n = static_cast<unsigned>(numbers.size());
  // Jump offsets count from the next instruction; the last two allow and refuse.
  std::vector<sock_filter> program;
  program.push_back(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)));
  program.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, kAuditArch, 0,
                             static_cast<unsigned char>(n + 2)));  // another ABI: allow
  program.push_back(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)));
  program.push_back(BPF_STMT(BPF_ALU | BPF_AND | BPF_K, ~kX32Bit));
  unsigned i = 0;
  for (const unsigned number : numbers) {
    // Equal: jump past the numbers left and the allow, to the refusal.
    program.push_back(
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, number, static_cast<unsigned char>(n - i), 0));
    ++i;
  }
  program.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
  program.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (static_cast<unsigned>(code) &
                                                                   SECCOMP_RET_DATA)));
  const sock_fprog prog{static_cast<unsigned short>(program.size()), program.data()};
  if (::syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) == 0) return true;
  if (errno != EACCES) return false;
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return false;
  return ::syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) == 0;
}

}  // namespace hsperfguard::test
