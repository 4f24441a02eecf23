#include "model/verdict.hpp"

namespace hsperfguard {

std::string_view to_string(Verdict verdict) {
  switch (verdict) {
    case Verdict::live:
      return "live";
    case Verdict::stale:
      return "stale";
    case Verdict::pid_reused:
      return "pid-reused";
    case Verdict::foreign:
      return "foreign";
    case Verdict::unknown:
      return "unknown";
  }
  return "unknown";
}

}  // namespace hsperfguard
