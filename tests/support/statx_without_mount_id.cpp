// Preloaded into the tool (LD_PRELOAD) to give it the statx of Linux 5.6 and 5.7: openat2
// there, but no mount id (STATX_MNT_ID came with 5.8). The call is the C library's, and its
// answer is the kernel's with that bit of stx_mask cleared, so the code that asks for a mount
// id is told that none is known. No kernel a test runs on has this pair; this library is how
// the suite meets it.
#include <dlfcn.h>
#include <sys/stat.h>

extern "C" int statx(int dirfd, const char* path, int flags, unsigned int mask,
                     struct statx* buf) {
  using Statx = int (*)(int, const char*, int, unsigned int, struct statx*);
  static const Statx real = reinterpret_cast<Statx>(::dlsym(RTLD_NEXT, "statx"));
  const int r = real(dirfd, path, flags, mask, buf);
  if (r == 0) buf->stx_mask &= ~static_cast<unsigned int>(STATX_MNT_ID);
  return r;
}
