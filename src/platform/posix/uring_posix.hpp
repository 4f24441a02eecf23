// System calls in batches, through io_uring (liburing): observation hands the kernel the
// opens, stats, ACL probes and closes of many backing files in one io_uring_enter
// instead of one system call each (at 100,000 files the entries into the kernel cost more
// than the work done there). Only the operations observation needs, with the same
// arguments and results as the system calls they stand for.
//
// Nothing here decides anything: callers queue operations, run() performs them all, and
// each result arrives where the caller asked, as the system call's return value or -errno.
// Where io_uring is missing or refused (an old kernel, kernel.io_uring_disabled, a seccomp
// filter), create() says so and callers make the same calls one at a time.
#pragma once

#include <linux/openat2.h>
#include <sys/stat.h>

#include <cstddef>
#include <cstdint>
#include <memory>

namespace hsperfguard::platform {

class IoBatch {
 public:
  // A batch of at most `capacity` queued operations (a full queue runs itself), or null
  // when io_uring or one of the operations below is not available here.
  static std::unique_ptr<IoBatch> create(unsigned capacity);
  ~IoBatch();
  IoBatch(const IoBatch&) = delete;
  IoBatch& operator=(const IoBatch&) = delete;

  // Each queues one operation; `result` (and the output buffer) are written by run() and
  // must stay where they are until it returns.
  void openat2(int dirfd, const char* name, const open_how& how, int& result);
  void statx_fd(int fd, unsigned mask, struct statx& out, int& result);  // the fd itself
  void fgetxattr(int fd, const char* name, void* value, std::size_t size, int& result);
  void close(int fd, int& result);

  // Submits what is queued and waits until every operation has completed. An operation the
  // kernel could not be handed (the ring failed) gets -ECANCELED; one it was handed always
  // completes, so an fd it opened always reaches its result.
  void run();

 private:
  struct Ring;
  explicit IoBatch(std::unique_ptr<Ring> ring, unsigned capacity);
  // Queues one operation prepared by `prep` (on an io_uring_sqe); defined where used.
  template <typename Prep>
  void queue(int& result, Prep prep);

  std::unique_ptr<Ring> ring_;
  unsigned capacity_;
  unsigned queued_ = 0;
};

}  // namespace hsperfguard::platform
