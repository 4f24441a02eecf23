// Linked into the hsperfguard executable when it holds libstdc++ and libgcc
// (HSPERFGUARD_STATIC_LIBSTDCXX, Linux), and only then.
//
// GCC 12's libstdc++.a calls arc4random (from std::random_device, which its string
// instantiations pull in), a function glibc has from 2.36 on: linked against Debian 12's glibc,
// the binary would need GLIBC_2.36, past what RHEL 9, Amazon Linux 2023 (2.34) and Ubuntu 22.04
// (2.35) ship (packaging/floor.txt; PackageFloor.PackagedBinaryAndDependenciesStayWithinTheFloor
// fails on it). This definition takes its place with glibc's contract, a uniformly random 32-bit
// value from the kernel's generator, by getrandom (glibc 2.25). The tool draws no random numbers
// itself: only std::random_device("arc4random") would call it.
//
// GCC 12's libgcc_eh.a (the unwinder, linked in with -static-libgcc) finds the unwind tables
// of the code an exception passes through with _dl_find_object, glibc 2.35's: the same floor.
// _dl_find_object below gives it what glibc's would, the object holding an address (its
// PT_LOAD segments) and that object's PT_GNU_EH_FRAME segment, found with dl_iterate_phdr
// (glibc 2.2.5), which is what libgcc itself walks where glibc has no _dl_find_object. It is
// hidden: the unwinder linked into this executable binds to it when the executable is linked,
// and nothing else in the process sees it (a library loaded later, say an NSS module with its
// own libgcc_s, keeps glibc's where glibc has one).
#include <dlfcn.h>
#include <link.h>
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

namespace {

struct ObjectSearch {
  std::uintptr_t address = 0;
  dl_find_object* result = nullptr;
  bool found = false;
};

int look_at_object(dl_phdr_info* info, std::size_t, void* data) {
  auto* search = static_cast<ObjectSearch*>(data);
  const ElfW(Phdr)* eh_frame = nullptr;
  bool holds = false;
  std::uintptr_t low = UINTPTR_MAX;
  std::uintptr_t high = 0;
  for (ElfW(Half) i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& segment = info->dlpi_phdr[i];
    if (segment.p_type == PT_LOAD) {
      const std::uintptr_t start = info->dlpi_addr + segment.p_vaddr;
      const std::uintptr_t end = start + segment.p_memsz;
      low = start < low ? start : low;
      high = end > high ? end : high;
      holds = holds || (search->address >= start && search->address < end);
    } else if (segment.p_type == PT_GNU_EH_FRAME) {
      eh_frame = &segment;
    }
  }
  if (!holds) return 0;  // the next object
  dl_find_object& r = *search->result;
  r.dlfo_flags = 0;
  // The object's addresses come as integers (dl_phdr_info): the pointers are those addresses.
  // NOLINTBEGIN(performance-no-int-to-ptr)
  r.dlfo_map_start = reinterpret_cast<void*>(low);
  r.dlfo_map_end = reinterpret_cast<void*>(high);
  r.dlfo_link_map = nullptr;  // the unwinder reads only the unwind tables
  r.dlfo_eh_frame =
      eh_frame != nullptr ? reinterpret_cast<void*>(info->dlpi_addr + eh_frame->p_vaddr) : nullptr;
  // NOLINTEND(performance-no-int-to-ptr)
  search->found = true;
  return 1;
}

}  // namespace

// 0 and `result` filled when `address` lies in a loaded object, -1 when it does not.
extern "C" [[gnu::visibility("hidden")]] int _dl_find_object(void* address,
                                                            dl_find_object* result) noexcept {
  ObjectSearch search{reinterpret_cast<std::uintptr_t>(address), result, false};
  ::dl_iterate_phdr(look_at_object, &search);
  return search.found ? 0 : -1;
}
