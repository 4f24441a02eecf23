// A condition variable for the platform's threads that the oldest libstdc++ we ship to has.
//
// std::condition_variable::wait(unique_lock&) is the one function of libstdc++ 12 that our
// binary needed at a symbol version GCC 11's libstdc++ lacks (GLIBCXX_3.4.30: GCC 12 made it
// noexcept and versioned it anew), so dnf refused the package on RHEL 9 and Amazon Linux 2023
// (packaging/floor.txt). Waiting with a deadline on steady_clock is inline in libstdc++ (it
// calls pthread_cond_clockwait, GLIBC_2.30, which ThreadSanitizer intercepts as it does
// pthread_cond_wait); the deadline only bounds one wait, the predicate decides.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>

namespace hsperfguard::platform {

class Condition {
 public:
  // Waits until ready() holds, `lock` held whenever ready() is called.
  template <typename Ready>
  void wait(std::unique_lock<std::mutex>& lock, Ready ready) {
    while (!ready()) changed_.wait_until(lock, std::chrono::steady_clock::now() + kLongestWait);
  }
  void notify_all() noexcept { changed_.notify_all(); }

 private:
  static constexpr std::chrono::hours kLongestWait{1};
  std::condition_variable changed_;
};

}  // namespace hsperfguard::platform
