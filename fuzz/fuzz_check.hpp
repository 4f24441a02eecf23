// Invariant checks for the fuzz targets. assert() vanishes under NDEBUG (release and
// RelWithDebInfo builds), and a broken invariant must stop libFuzzer and the corpus replay
// alike, so a failed check prints what failed and aborts.
#pragma once

#include <cstdio>
#include <cstdlib>

namespace hsperfguard::fuzz {

[[noreturn]] inline void check_failed(const char* condition, const char* file, int line) {
  std::fprintf(stderr, "%s:%d: fuzz invariant violated: %s\n", file, line, condition);
  std::abort();
}

}  // namespace hsperfguard::fuzz

#define FUZZ_CHECK(condition)         \
  ((condition) ? static_cast<void>(0) \
               : ::hsperfguard::fuzz::check_failed(#condition, __FILE__, __LINE__))
