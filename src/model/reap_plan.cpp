#include "model/reap_plan.hpp"

namespace hsperfguard {

std::string_view to_string(ReapAction action) {
  switch (action) {
    case ReapAction::remove:
      return "remove";
    case ReapAction::keep:
      return "keep";
    case ReapAction::skip:
      return "skip";
  }
  return "keep";
}

std::string_view to_string(ReapSubject subject) {
  switch (subject) {
    case ReapSubject::namespace_file:
      return "namespace-file";
    case ReapSubject::attach_file:
      return "attach-file";
    case ReapSubject::namespace_dir:
      return "namespace-dir";
  }
  return "namespace-file";
}

PlanCounts Plan::counts() const {
  PlanCounts c;
  for (const auto& item : items) {
    switch (item.action) {
      case ReapAction::remove:
        ++c.remove;
        break;
      case ReapAction::keep:
        ++c.keep;
        break;
      case ReapAction::skip:
        ++c.skip;
        break;
    }
  }
  return c;
}

std::size_t Plan::left_to_a_person() const {
  std::size_t n = 0;
  for (const auto& item : items) {
    if (item.why == kNotPermitted) ++n;
  }
  return n;
}

}  // namespace hsperfguard
