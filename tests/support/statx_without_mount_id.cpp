// Preloaded into the tool (LD_PRELOAD) to give it the statx of Linux 5.6 and 5.7: openat2
// there, but no mount id (STATX_MNT_ID came with 5.8). The call is the C library's, and its
// answer is the kernel's with that bit of stx_mask cleared, so the code that asks for a mount
// id is told that none is known. With HSPERFGUARD_TEST_NO_FILE_HANDLES=1 in the environment,
// name_to_handle_at fails too (EOPNOTSUPP, as on a file system that exports no handles), the
// other source of a mount id. No kernel a test runs on has these; this library is how the
// suite meets them.
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

extern "C" int statx(int dirfd, const char* path, int flags, unsigned int mask,
                     struct statx* buf) {
  using Statx = int (*)(int, const char*, int, unsigned int, struct statx*);
  static const Statx real = reinterpret_cast<Statx>(::dlsym(RTLD_NEXT, "statx"));
  const int r = real(dirfd, path, flags, mask, buf);
  if (r == 0) buf->stx_mask &= ~static_cast<unsigned int>(STATX_MNT_ID);
  return r;
}

extern "C" int name_to_handle_at(int dirfd, const char* path, struct file_handle* handle,
                                 int* mount_id, int flags) {
  using NameToHandle = int (*)(int, const char*, struct file_handle*, int*, int);
  static const NameToHandle real =
      reinterpret_cast<NameToHandle>(::dlsym(RTLD_NEXT, "name_to_handle_at"));
  const char* off = std::getenv("HSPERFGUARD_TEST_NO_FILE_HANDLES");
  if (off != nullptr && std::strcmp(off, "1") == 0) {
    errno = EOPNOTSUPP;
    return -1;
  }
  return real(dirfd, path, handle, mount_id, flags);
}
