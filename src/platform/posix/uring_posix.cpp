#include "platform/posix/uring_posix.hpp"

#include <liburing.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

// liburing maps and unmaps a ring's memory with its own system calls, which ThreadSanitizer does
// not see: a ring that one thread unmapped and the next ring, mapped at the same address by
// another thread, look to it like one memory written by both without order. The kernel orders
// them (the second mmap returns after the first munmap); a release when a ring is torn down and
// an acquire when one is made tell the sanitizer so. Nothing of this is built without it.
#if defined(__SANITIZE_THREAD__)
#define HSPERFGUARD_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define HSPERFGUARD_TSAN 1
#endif
#endif
#ifdef HSPERFGUARD_TSAN
#include <sanitizer/tsan_interface.h>
// The sanitizers' hook for a close(2) they do not intercept (g++ ships no header declaring it).
extern "C" void __sanitizer_syscall_pre_impl_close(long fd);
#endif

namespace hsperfguard::platform {

namespace {

#ifdef HSPERFGUARD_TSAN
char ring_memory_handoff;  // the sanitizer's token for "a ring's memory was given back"
void ring_memory_made() { __tsan_acquire(&ring_memory_handoff); }
void ring_memory_given_back() { __tsan_release(&ring_memory_handoff); }
// A descriptor the ring closes is closed by the kernel, unseen: to ThreadSanitizer the number
// stays the old file's, and when another thread opens a file that gets the same number, its
// close looks like a race with this thread's last read of the old one. The hook it gives for
// uninterposed system calls forgets the descriptor, as its close(2) interceptor does.
void ring_closes(int fd) { __sanitizer_syscall_pre_impl_close(fd); }
#else
void ring_memory_made() {}
void ring_memory_given_back() {}
void ring_closes(int) {}
#endif

}  // namespace

struct IoBatch::Ring {
  io_uring ring{};
  bool initialised = false;
  std::vector<int*> targets;  // by user_data: where each queued operation's result goes

  ~Ring() {
    if (!initialised) return;
    ring_memory_given_back();
    io_uring_queue_exit(&ring);
  }
};

namespace {

constexpr int kNeeded[] = {IORING_OP_OPENAT2, IORING_OP_STATX, IORING_OP_FGETXATTR,
                           IORING_OP_CLOSE};

bool supports_everything(io_uring& ring) {
  io_uring_probe* probe = io_uring_get_probe_ring(&ring);
  if (probe == nullptr) return false;
  bool all = true;
  for (const int op : kNeeded) all = all && io_uring_opcode_supported(probe, op) != 0;
  io_uring_free_probe(probe);
  return all;
}

}  // namespace

IoBatch::IoBatch(std::unique_ptr<Ring> ring, unsigned capacity)
    : ring_(std::move(ring)), capacity_(capacity) {
  ring_->targets.resize(capacity);
}

IoBatch::~IoBatch() = default;

std::unique_ptr<IoBatch> IoBatch::create(unsigned capacity) {
  if (capacity == 0) return nullptr;
  auto ring = std::make_unique<Ring>();
  // Completions are collected only in run(): the kernel need not interrupt us to post them
  // (COOP_TASKRUN), and a failing operation does not stop the rest of a submission
  // (SUBMIT_ALL). Kernels before 5.19 know neither: plain flags then.
  for (const unsigned flags : {IORING_SETUP_COOP_TASKRUN | IORING_SETUP_SUBMIT_ALL, 0u}) {
    io_uring_params params{};
    params.flags = flags;
    if (io_uring_queue_init_params(capacity, &ring->ring, &params) == 0) {
      ring_memory_made();
      ring->initialised = true;
      break;
    }
  }
  if (!ring->initialised || !supports_everything(ring->ring)) return nullptr;
  return std::unique_ptr<IoBatch>(new IoBatch(std::move(ring), capacity));
}

template <typename Prep>
void IoBatch::queue(int& result, Prep prep) {
  if (queued_ == capacity_) run();
  result = -ECANCELED;  // until the kernel says otherwise
  io_uring_sqe* sqe = ring_ ? io_uring_get_sqe(&ring_->ring) : nullptr;
  if (sqe == nullptr) return;
  prep(sqe);
  io_uring_sqe_set_data64(sqe, queued_);
  ring_->targets[queued_++] = &result;
}

void IoBatch::openat2(int dirfd, const char* name, const open_how& how, int& result) {
  // open_how is not const in liburing's signature; the kernel only reads it.
  queue(result, [&](io_uring_sqe* sqe) {
    io_uring_prep_openat2(sqe, dirfd, name, const_cast<open_how*>(&how));
  });
}

void IoBatch::statx_fd(int fd, unsigned mask, struct statx& out, int& result) {
  queue(result,
        [&](io_uring_sqe* sqe) { io_uring_prep_statx(sqe, fd, "", AT_EMPTY_PATH, mask, &out); });
}

void IoBatch::fgetxattr(int fd, const char* name, void* value, std::size_t size, int& result) {
  queue(result, [&](io_uring_sqe* sqe) {
    io_uring_prep_fgetxattr(sqe, fd, name, static_cast<char*>(value), static_cast<unsigned>(size));
  });
}

void IoBatch::close(int fd, int& result) {
  ring_closes(fd);
  queue(result, [&](io_uring_sqe* sqe) { io_uring_prep_close(sqe, fd); });
}

void IoBatch::run() {
  const unsigned total = queued_;
  queued_ = 0;
  if (total == 0 || !ring_) return;
  io_uring& ring = ring_->ring;
  unsigned submitted = 0;
  unsigned completed = 0;
  bool refused = false;  // the kernel stopped taking operations: the rest stay -ECANCELED
  while (completed < total) {
    if (!refused && submitted < total) {
      const int n = io_uring_submit_and_wait(&ring, 1);
      if (n >= 0) {
        submitted += static_cast<unsigned>(n);
      } else if (n != -EINTR && n != -EAGAIN && n != -EBUSY) {
        refused = true;
      }
    } else if (completed < submitted) {
      io_uring_cqe* cqe = nullptr;
      const int n = io_uring_wait_cqe(&ring, &cqe);
      if (n < 0 && n != -EINTR && n != -EAGAIN) {
        // Operations the kernel holds write into our buffers and may open fds: returning
        // before they complete could corrupt memory. A kernel that cannot be waited on is
        // beyond what observation can recover from.
        // Whether the message could be written changes nothing: the abort follows.
        static_cast<void>(std::fprintf(stderr,
                                       "hsperfguard: io_uring: cannot wait for completions: %s\n",
                                       std::strerror(-n)));
        std::abort();
      }
    } else {
      break;  // refused, and everything the kernel took has completed
    }
    unsigned head = 0;
    unsigned seen = 0;
    io_uring_cqe* cqe = nullptr;
    io_uring_for_each_cqe(&ring, head, cqe) {
      const auto index = static_cast<std::size_t>(io_uring_cqe_get_data64(cqe));
      if (index < total) *ring_->targets[index] = cqe->res;
      ++seen;
    }
    io_uring_cq_advance(&ring, seen);
    completed += seen;
  }
  // A ring that refused work is not used again: later batches run one system call at a time
  // (their results stay -ECANCELED, which callers treat as "do it yourself").
  if (refused) ring_.reset();
}

}  // namespace hsperfguard::platform
