// What the reaper's removal protocol costs the kernel, made one system call at a time and
// batched through io_uring, against the two calls per file of `find -delete`: the measurement
// behind keeping the executor's calls one at a time (see "Benchmarks" in the README).
//
//   bench_reap_protocol --dir DIR [--namespaces N] [--files M] [--threads T] [--batch K]
//                       [--runs R] [--modes find,protocol,uring[,stat,read]]
//   bench_reap_protocol --tree TREE [--threads T] [--runs R] [--modes stat,read]
//   bench_reap_protocol --tree TREE [--threads T] --runs 1 --modes find|protocol|uring
//
// With --tree, the modes that remove nothing run on an existing tree (the one an audit was
// just timed on: bench/peers.py puts the audit beside its floor that way), nothing generated;
// one mode that removes runs once on it, emptying it (bench/peers.py puts the reaper beside
// the protocol's floor on a tree made as the reaper's is).
//
// Every run of every mode gets a fresh tree from bench_gen_tree (next to this program) in
// DIR/tree; the modes are rotated each round. Each mode walks the namespaces with T threads
// (shared by an atomic cursor, as the executor shares them), lists each namespace and lstat's
// every entry (the plan's facts), then removes every file:
// - find:     unlinkat by name (what `find -delete` does after its fstatat);
// - protocol: the executor's seven steps for each file in turn: open (O_NOFOLLOW|O_NONBLOCK),
//             statx of the fd, flock (LOCK_EX|LOCK_NB), statx of the name, unlinkat, statx of
//             the fd, close;
// - uring:    the same steps in the same order for each file, each step queued for K files
//             and handed to the kernel at once (openat2 beneath without links or mounts, the
//             statx, unlinkat and close as io_uring operations; flock has none, so it stays a
//             system call per file).
// Two more modes remove nothing and put the audit's floor beside find's (`find -printf` makes
// one fstatat per file): stat (list, lstat every entry) and read (list, lstat, then for each
// file what the audit's observation asks of the kernel: openat2 beneath, statx of the fd, the
// access ACL probe, a read of the first 16 KiB, close; one system call each).
// A mode that leaves a file behind or sees a step fail makes the program fail: a figure is
// printed only for work that was done. Prints, per mode, the median wall time, its range and
// the CPU (user + system) of the median run, and each mode's ratio to find. Run as root (the
// trees have several owners).
#include <dirent.h>
#include <fcntl.h>
#include <liburing.h>
#include <linux/openat2.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace {

[[noreturn]] void die(const std::string& what, int err = errno) {
  std::fprintf(stderr, "bench_reap_protocol: %s: %s\n", what.c_str(), std::strerror(err));
  std::exit(1);
}

constexpr unsigned kStatxMask = STATX_BASIC_STATS | STATX_MNT_ID;
constexpr int kFileFlags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;

struct Entry {
  std::string name;
  int fd = -1;
  int opened = 0, stat_fd = 0, locked = 0, stat_name = 0, unlinked = 0, stat_after = 0, closed = 0;
  struct statx held {
  }, named{}, after{};
};

// Counts what went wrong in a run; any count fails the program.
std::atomic<long> failures{0};

std::vector<Entry> list(int dirfd) {
  const int copy = ::dup(dirfd);
  DIR* d = copy >= 0 ? ::fdopendir(copy) : nullptr;
  if (d == nullptr) die("fdopendir");
  std::vector<Entry> out;
  while (const dirent* e = ::readdir(d)) {
    if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) continue;
    out.push_back(Entry{e->d_name});
  }
  ::closedir(d);
  for (const Entry& e : out) {  // the plan's facts: one lstat per entry
    struct stat st {};
    if (::fstatat(dirfd, e.name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) ++failures;
  }
  return out;
}

void remove_find(int dirfd, std::vector<Entry>& entries) {
  for (Entry& e : entries) {
    if (::unlinkat(dirfd, e.name.c_str(), 0) != 0) ++failures;
  }
}

void remove_protocol(int dirfd, std::vector<Entry>& entries) {
  for (Entry& e : entries) {
    const int fd = ::openat(dirfd, e.name.c_str(), kFileFlags);
    if (fd < 0) {
      ++failures;
      continue;
    }
    struct statx s {};
    bool ok =
        ::statx(fd, "", AT_EMPTY_PATH, kStatxMask, &s) == 0 && ::flock(fd, LOCK_EX | LOCK_NB) == 0;
    const ino_t held = s.stx_ino;
    ok = ok &&
         ::statx(dirfd, e.name.c_str(), AT_SYMLINK_NOFOLLOW | AT_STATX_DONT_SYNC, kStatxMask, &s) ==
             0 &&
         s.stx_ino == held && ::unlinkat(dirfd, e.name.c_str(), 0) == 0 &&
         ::statx(fd, "", AT_EMPTY_PATH, STATX_BASIC_STATS, &s) == 0 && s.stx_nlink == 0;
    if (!ok) ++failures;
    ::close(fd);
  }
}

// The io_uring variant: each step for a batch of files, then the next step.
class Ring {
 public:
  explicit Ring(unsigned entries) {
    io_uring_params params{};
    params.flags = IORING_SETUP_COOP_TASKRUN | IORING_SETUP_SUBMIT_ALL;
    if (const int err = io_uring_queue_init_params(entries, &ring_, &params); err != 0) {
      die("io_uring_queue_init", -err);
    }
    targets_.resize(entries);
  }
  ~Ring() { io_uring_queue_exit(&ring_); }
  Ring(const Ring&) = delete;
  Ring& operator=(const Ring&) = delete;

  io_uring_sqe* next(int& result) {
    io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
    if (sqe == nullptr) die("io_uring_get_sqe", EBUSY);
    io_uring_sqe_set_data64(sqe, queued_);
    targets_[queued_++] = &result;
    return sqe;
  }

  void run() {
    const unsigned total = queued_;
    queued_ = 0;
    if (total == 0) return;
    if (const int n = io_uring_submit_and_wait(&ring_, total); n < 0) die("io_uring_submit", -n);
    unsigned done = 0;
    while (done < total) {
      io_uring_cqe* cqe = nullptr;
      if (const int n = io_uring_wait_cqe(&ring_, &cqe); n < 0) die("io_uring_wait_cqe", -n);
      unsigned head = 0;
      unsigned seen = 0;
      io_uring_for_each_cqe(&ring_, head, cqe) {
        *targets_[io_uring_cqe_get_data64(cqe)] = cqe->res;
        ++seen;
      }
      io_uring_cq_advance(&ring_, seen);
      done += seen;
    }
  }

 private:
  io_uring ring_{};
  std::vector<int*> targets_;
  unsigned queued_ = 0;
};

void remove_uring(Ring& ring, int dirfd, std::vector<Entry>& entries, std::size_t batch) {
  open_how how{};
  how.flags = kFileFlags;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV;
  for (std::size_t begin = 0; begin < entries.size(); begin += batch) {
    const auto first = entries.begin() + static_cast<std::ptrdiff_t>(begin);
    const auto last =
        entries.begin() + static_cast<std::ptrdiff_t>(std::min(entries.size(), begin + batch));
    for (auto e = first; e != last; ++e)
      io_uring_prep_openat2(ring.next(e->opened), dirfd, e->name.c_str(), &how);
    ring.run();
    for (auto e = first; e != last; ++e) {
      e->fd = e->opened;
      if (e->fd >= 0)
        io_uring_prep_statx(ring.next(e->stat_fd), e->fd, "", AT_EMPTY_PATH, kStatxMask, &e->held);
    }
    ring.run();
    for (auto e = first; e != last; ++e) {
      e->locked = e->fd >= 0 && e->stat_fd == 0 ? ::flock(e->fd, LOCK_EX | LOCK_NB) : -1;
      if (e->locked == 0) {
        io_uring_prep_statx(ring.next(e->stat_name), dirfd, e->name.c_str(),
                            AT_SYMLINK_NOFOLLOW | AT_STATX_DONT_SYNC, kStatxMask, &e->named);
      }
    }
    ring.run();
    for (auto e = first; e != last; ++e) {
      if (e->locked == 0 && e->stat_name == 0 && e->named.stx_ino == e->held.stx_ino) {
        io_uring_prep_unlinkat(ring.next(e->unlinked), dirfd, e->name.c_str(), 0);
      } else {
        e->unlinked = -1;
      }
    }
    ring.run();
    for (auto e = first; e != last; ++e) {
      if (e->unlinked == 0)
        io_uring_prep_statx(ring.next(e->stat_after), e->fd, "", AT_EMPTY_PATH, STATX_BASIC_STATS,
                            &e->after);
    }
    ring.run();
    for (auto e = first; e != last; ++e) {
      if (e->unlinked != 0 || e->stat_after != 0 || e->after.stx_nlink != 0) ++failures;
      if (e->fd >= 0) io_uring_prep_close(ring.next(e->closed), e->fd);
    }
    ring.run();
  }
}

// The audit's calls for each file (observation batches some through io_uring; here each is a
// system call, the cheaper way on this kernel for the reaper's calls).
void read_files(int dirfd, std::vector<Entry>& entries) {
  open_how how{};
  how.flags = kFileFlags;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV;
  std::vector<char> buffer(16 * 1024);
  char acl[256];
  for (Entry& e : entries) {
    const int fd =
        static_cast<int>(::syscall(SYS_openat2, dirfd, e.name.c_str(), &how, sizeof how));
    if (fd < 0) {
      ++failures;
      continue;
    }
    struct statx s {};
    const bool ok =
        ::statx(fd, "", AT_EMPTY_PATH, kStatxMask, &s) == 0 &&
        (::fgetxattr(fd, "system.posix_acl_access", acl, sizeof acl) >= 0 || errno == ENODATA) &&
        ::pread(fd, buffer.data(), buffer.size(), 0) > 0;
    if (!ok) ++failures;
    ::close(fd);
  }
}

struct Timing {
  double wall = 0, cpu = 0;
};

double cpu_seconds() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  auto s = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
  };
  return s(usage.ru_utime) + s(usage.ru_stime);
}

Timing run_mode(const std::string& mode, const std::string& tree, unsigned threads,
                std::size_t batch) {
  const int top = ::open(tree.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (top < 0) die("open " + tree);
  std::vector<std::string> namespaces;
  {
    const int copy = ::dup(top);
    DIR* d = copy >= 0 ? ::fdopendir(copy) : nullptr;
    if (d == nullptr) die("fdopendir " + tree);
    while (const dirent* e = ::readdir(d)) {
      if (std::strncmp(e->d_name, "hsperfdata_", 11) == 0) namespaces.emplace_back(e->d_name);
    }
    ::closedir(d);
  }
  std::atomic<std::size_t> cursor{0};
  const double cpu_before = cpu_seconds();
  const auto started = std::chrono::steady_clock::now();
  auto worker = [&] {
    std::unique_ptr<Ring> ring;
    if (mode == "uring") ring = std::make_unique<Ring>(static_cast<unsigned>(batch));
    for (std::size_t i; (i = cursor++) < namespaces.size();) {
      const int dirfd =
          ::openat(top, namespaces[i].c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (dirfd < 0) die("openat " + namespaces[i]);
      std::vector<Entry> entries = list(dirfd);
      if (mode == "stat") {
        // listed and lstat'ed: nothing more
      } else if (mode == "read") {
        read_files(dirfd, entries);
      } else if (mode == "find") {
        remove_find(dirfd, entries);
      } else if (mode == "protocol") {
        remove_protocol(dirfd, entries);
      } else {
        remove_uring(*ring, dirfd, entries, batch);
      }
      ::close(dirfd);
    }
  };
  std::vector<std::thread> helpers;
  for (unsigned t = 1; t < threads; ++t) helpers.emplace_back(worker);
  worker();
  for (auto& h : helpers) h.join();
  Timing timing;
  timing.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  timing.cpu = cpu_seconds() - cpu_before;
  // Every namespace must be empty now (after a mode that removes).
  for (const auto& ns : namespaces) {
    if (mode == "stat" || mode == "read") break;
    if (::unlinkat(top, ns.c_str(), AT_REMOVEDIR) != 0) die(mode + " left files in " + ns);
  }
  ::close(top);
  return timing;
}

std::string self_dir() {
  std::string self(4096, '\0');
  const ssize_t n = ::readlink("/proc/self/exe", self.data(), self.size());
  if (n <= 0) die("readlink /proc/self/exe");
  self.resize(static_cast<std::size_t>(n));
  return self.substr(0, self.rfind('/'));
}

}  // namespace

int main(int argc, char** argv) {
  std::string dir;
  std::string given_tree;
  std::string namespaces = "100";
  std::string files = "1000";
  unsigned threads = 2;
  std::size_t batch = 64;
  int runs = 3;
  std::vector<std::string> modes{"find", "protocol", "uring"};
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const std::string value = argv[i + 1];
    if (flag == "--dir") {
      dir = value;
    } else if (flag == "--tree") {
      given_tree = value;
    } else if (flag == "--namespaces") {
      namespaces = std::to_string(std::stoul(value));
    } else if (flag == "--files") {
      files = std::to_string(std::stoul(value));
    } else if (flag == "--threads") {
      threads = static_cast<unsigned>(std::max(1ul, std::stoul(value)));
    } else if (flag == "--batch") {
      batch = std::clamp<std::size_t>(std::stoul(value), 1, 4096);
    } else if (flag == "--runs") {
      runs = std::max(1, std::stoi(value));
    } else if (flag == "--modes") {
      modes.clear();
      for (std::size_t at = 0; at <= value.size();) {
        const auto comma = std::min(value.find(',', at), value.size());
        modes.push_back(value.substr(at, comma - at));
        at = comma + 1;
      }
    } else {
      dir.clear();
      given_tree.clear();
      break;
    }
  }
  const bool read_only = std::all_of(modes.begin(), modes.end(),
                                     [](const std::string& m) { return m == "stat" || m == "read"; });
  const bool known = std::all_of(modes.begin(), modes.end(), [](const std::string& m) {
    return m == "find" || m == "protocol" || m == "uring" || m == "stat" || m == "read";
  });
  if (dir.empty() == given_tree.empty() || !known || argc % 2 == 0 ||
      (!given_tree.empty() && !read_only && (runs != 1 || modes.size() != 1))) {
    std::fprintf(stderr,
                 "usage: bench_reap_protocol --dir DIR [--namespaces N] [--files M] [--threads T] "
                 "[--batch K] [--runs R] [--modes find,protocol,uring[,stat,read]]\n"
                 "       bench_reap_protocol --tree TREE [--threads T] [--runs R] [--modes stat,read]\n"
                 "       bench_reap_protocol --tree TREE [--threads T] --runs 1 --modes find|protocol|uring\n");
    return 2;
  }
  const std::string tree = given_tree.empty() ? dir + "/tree" : given_tree;
  const std::string generate = "rm -rf '" + tree + "' && '" + self_dir() +
                               "/bench_gen_tree' --out '" + tree + "' --namespaces " + namespaces +
                               " --files " + files + " >/dev/null";
  if (given_tree.empty()) {
    std::printf(
        "%s namespaces x %s files, %u thread(s), io_uring batches of %zu, %d run(s) per mode\n",
        namespaces.c_str(), files.c_str(), threads, batch, runs);
  } else {
    std::printf("the tree %s, %u thread(s), %d run(s) per mode\n", tree.c_str(), threads, runs);
  }
  std::vector<std::vector<Timing>> timings(modes.size());
  for (int round = 0; round < runs; ++round) {
    for (std::size_t k = 0; k < modes.size(); ++k) {
      const std::size_t m = (k + static_cast<std::size_t>(round)) % modes.size();
      if (given_tree.empty()) {
        if (std::system(generate.c_str()) != 0) die("bench_gen_tree", EIO);
        ::sleep(1);
      }
      timings[m].push_back(run_mode(modes[m], tree, threads, batch));
      if (failures != 0)
        die(modes[m] + ": " + std::to_string(failures.load()) + " file(s) not handled as asked",
            EIO);
    }
  }
  if (given_tree.empty() && std::system(("rm -rf '" + tree + "'").c_str()) != 0) {
    die("rm -rf " + tree, EIO);
  }
  std::vector<Timing> medians;
  double find_median = 0;
  double stat_median = 0;
  for (std::size_t m = 0; m < modes.size(); ++m) {
    auto& t = timings[m];
    std::sort(t.begin(), t.end(), [](const Timing& a, const Timing& b) { return a.wall < b.wall; });
    medians.push_back(t[t.size() / 2]);
    if (modes[m] == "find") find_median = medians.back().wall;
    if (modes[m] == "stat") stat_median = medians.back().wall;
  }
  std::printf("\n%-10s %9s %9s %9s %10s %8s %8s\n", "mode", "median s", "min s", "max s", "cpu s",
              "vs find", "vs stat");
  for (std::size_t m = 0; m < modes.size(); ++m) {
    std::printf("%-10s %9.3f %9.3f %9.3f %10.3f", modes[m].c_str(), medians[m].wall,
                timings[m].front().wall, timings[m].back().wall, medians[m].cpu);
    if (find_median > 0) {
      std::printf(" %7.2fx", medians[m].wall / find_median);
    } else {
      std::printf(" %8s", "");
    }
    if (stat_median > 0) std::printf(" %7.2fx", medians[m].wall / stat_median);
    std::printf("\n");
  }
  return 0;
}
