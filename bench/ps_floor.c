/* The floor of `hsperfguard ps`: the least a program can do to list the JVMs of a host and of
 * its containers with what ps prints (pid, pid in its namespace, user, main class), with the
 * same care about where it reads (beneath each process's root, no links followed). No
 * diagnosis, no report: the calls, once each.
 *
 *   bench_ps_floor            prints one line per JVM: PID NSPID USER MAIN
 *
 * For every process in /proc: its directory (O_PATH), its exe link (none: a kernel thread),
 * its maps read to the end (a "/libjvm.so"; a "/hsperfdata_" file mapped). For each JVM:
 * stat, status (Uid, NSpid), cmdline, cgroup and the ns/mnt link read; its root opened; beneath that root (openat2, no symlinks,
 * no magic links, no mount crossing) the root's etc/passwd read for the user's name and
 * its tmp opened, beneath which (on the same mount) hsperfdata_<user>/<nspid> is opened,
 * fstat'ed and its first 16 KiB read, where
 * sun.rt.javaCommand is found by name. bench/ps_bench.sh times it beside `hsperfguard ps`.
 * Linux only; run as root to see every user's JVMs. */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* `path` beneath `dirfd`, no symlinks or magic links; `same_mount`: nor a mount crossed. */
static int open_beneath(int dirfd, const char* path, int flags, int same_mount) {
  struct open_how how;
  memset(&how, 0, sizeof how);
  /* openat2 refuses O_PATH with any flag but O_DIRECTORY, O_NOFOLLOW and O_CLOEXEC. */
  how.flags = (unsigned)(flags | O_NOFOLLOW | O_CLOEXEC | ((flags & O_PATH) ? 0 : O_NOCTTY));
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS |
                (same_mount ? RESOLVE_NO_XDEV : 0);
  return (int)syscall(SYS_openat2, dirfd, path, &how, sizeof how);
}

/* The whole of a small file under `dirfd` into buf (NUL-terminated); its length, or -1. */
static ssize_t slurp(int dirfd, const char* name, char* buf, size_t size) {
  const int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return -1;
  size_t got = 0;
  ssize_t n;
  while (got + 1 < size && (n = read(fd, buf + got, size - 1 - got)) > 0) got += (size_t)n;
  close(fd);
  buf[got] = '\0';
  return (ssize_t)got;
}

/* Whether the maps under `dirfd` name libjvm.so, and whether they map a file of an hsperfdata
 * namespace (ps says whether a JVM maps its backing file): read through to the end, as ps must
 * (the backing file's mapping comes after libjvm's), 16 KiB at a time, a match across two reads
 * found by keeping the last bytes of each. */
static int maps_libjvm(int dirfd, int* maps_backing) {
  *maps_backing = 0;
  const int fd = openat(dirfd, "maps", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  static char buf[16384 + 16];
  static const char jvm[] = "/libjvm.so", backing[] = "/hsperfdata_";
  const size_t keep = sizeof backing - 2;
  size_t carried = 0;
  int found = 0;
  ssize_t n;
  while ((n = read(fd, buf + carried, 16384)) > 0) {
    const size_t have = carried + (size_t)n;
    found = found || memmem(buf, have, jvm, sizeof jvm - 1) != NULL;
    *maps_backing = *maps_backing || memmem(buf, have, backing, sizeof backing - 1) != NULL;
    carried = have < keep ? have : keep;
    memmove(buf, buf + have - carried, carried);
  }
  close(fd);
  return found;
}

static long field(const char* text, const char* name) {
  const char* at = strstr(text, name);
  return at != NULL ? strtol(at + strlen(name), NULL, 10) : -1;
}

/* The last number of the NSpid line: the pid in the process's own namespace. */
static long ns_pid(const char* status) {
  const char* at = strstr(status, "\nNSpid:");
  if (at == NULL) return -1;
  const char* end = strchr(at + 1, '\n');
  long pid = -1;
  for (const char* p = at + 7; p != NULL && *p != '\0' && (end == NULL || p < end);) {
    char* next;
    const long v = strtol(p, &next, 10);
    if (next == p) break;
    pid = v;
    p = next;
  }
  return pid;
}

/* The name of `uid` in the passwd file beneath `root`, into name. */
static void user_name(int root, long uid, char* name, size_t size) {
  snprintf(name, size, "%ld", uid);
  const int fd = open_beneath(root, "etc/passwd", O_RDONLY | O_NONBLOCK, 0);
  if (fd < 0) return;
  static char text[1 << 16];
  size_t got = 0;
  ssize_t n;
  while (got + 1 < sizeof text && (n = read(fd, text + got, sizeof text - 1 - got)) > 0) got += (size_t)n;
  close(fd);
  text[got] = '\0';
  for (char* line = text; line != NULL && *line != '\0';) {
    char* next = strchr(line, '\n');
    if (next != NULL) *next++ = '\0';
    char* first = strchr(line, ':');
    char* second = first != NULL ? strchr(first + 1, ':') : NULL;
    if (second != NULL && strtol(second + 1, NULL, 10) == uid) {
      const size_t len = (size_t)(first - line) < size - 1 ? (size_t)(first - line) : size - 1;
      memcpy(name, line, len);
      name[len] = '\0';
      return;
    }
    line = next;
  }
}

static void main_class(int root, const char* user, long nspid, char* out, size_t size) {
  snprintf(out, size, "-");
  /* The root's /tmp (often a mount of its own), then the namespace and the file beneath it,
   * on the same mount. */
  const int tmp = open_beneath(root, "tmp", O_PATH | O_DIRECTORY, 0);
  if (tmp < 0) return;
  char path[512];
  snprintf(path, sizeof path, "hsperfdata_%s/%ld", user, nspid);
  const int fd = open_beneath(tmp, path, O_RDONLY | O_NONBLOCK, 1);
  close(tmp);
  if (fd < 0) return;
  struct stat st;
  static char region[16384];
  ssize_t n = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? pread(fd, region, sizeof region, 0) : -1;
  close(fd);
  if (n <= 0) return;
  static const char name[] = "sun.rt.javaCommand";
  const char* at = memmem(region, (size_t)n, name, sizeof name);  /* with its NUL */
  if (at == NULL) return;
  /* The entry's header is 20 bytes before its name; its data_offset (bytes 16-19) is from the
   * header's start. */
  const char* header = at - 20;
  if (header < region) return;
  int data_offset;
  memcpy(&data_offset, header + 16, sizeof data_offset);
  if (data_offset <= 0 || header + data_offset >= region + n) return;
  snprintf(out, size, "%.*s", (int)(region + n - (header + data_offset)), header + data_offset);
}

int main(void) {
  DIR* proc = opendir("/proc");
  if (proc == NULL) {
    perror("bench_ps_floor: /proc");
    return 1;
  }
  static char status[8192], text[65536];
  struct dirent* e;
  while ((e = readdir(proc)) != NULL) {
    if (e->d_name[0] < '1' || e->d_name[0] > '9') continue;
    const int pidfd = openat(dirfd(proc), e->d_name, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (pidfd < 0) continue;
    char exe[4096];
    int maps_backing = 0;
    if (readlinkat(pidfd, "exe", exe, sizeof exe) < 0 || !maps_libjvm(pidfd, &maps_backing)) {
      close(pidfd);
      continue;
    }
    slurp(pidfd, "stat", text, sizeof text);
    slurp(pidfd, "cmdline", text, sizeof text);
    slurp(pidfd, "cgroup", text, sizeof text);
    readlinkat(pidfd, "ns/mnt", exe, sizeof exe);
    if (slurp(pidfd, "status", status, sizeof status) < 0) {
      close(pidfd);
      continue;
    }
    const long uid = field(status, "\nUid:");
    const long nspid = ns_pid(status);
    const int root = openat(pidfd, "root", O_PATH | O_DIRECTORY | O_CLOEXEC);
    char user[256], main_name[1024];
    snprintf(main_name, sizeof main_name, "-");
    snprintf(user, sizeof user, "%ld", uid);
    if (root >= 0) {
      user_name(root, uid, user, sizeof user);
      main_class(root, user, nspid, main_name, sizeof main_name);
      close(root);
    }
    printf("%s %ld %s %s%s\n", e->d_name, nspid, user, main_name, maps_backing ? "" : " (maps no backing file)");
    close(pidfd);
  }
  closedir(proc);
  return 0;
}
