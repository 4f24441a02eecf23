// Linked into the hsperfguard executable when it holds libstdc++ (HSPERFGUARD_STATIC_LIBSTDCXX,
// Linux), and only then.
//
// GCC 12's libstdc++.a calls arc4random (from std::random_device, which its string
// instantiations pull in), a function glibc has from 2.36 on: linked against Debian 12's glibc,
// the binary would need GLIBC_2.36, past what RHEL 9, Amazon Linux 2023 (2.34) and Ubuntu 22.04
// (2.35) ship (packaging/floor.txt; PackageFloor.PackagedBinaryAndDependenciesStayWithinTheFloor
// fails on it). This definition takes its place with glibc's contract, a uniformly random 32-bit
// value from the kernel's generator, by getrandom (glibc 2.25). The tool draws no random numbers
// itself: only std::random_device("arc4random") would call it.
#include <sys/random.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>

extern "C" std::uint32_t arc4random() noexcept {
  std::uint32_t value = 0;
  for (;;) {
    const ssize_t n = ::getrandom(&value, sizeof value, 0);
    if (n == static_cast<ssize_t>(sizeof value)) return value;
    // glibc's arc4random ends the process too when the kernel gives no randomness.
    if (n < 0 && errno != EINTR) std::abort();
  }
}
