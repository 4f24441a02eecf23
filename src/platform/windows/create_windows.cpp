// create and repair on Windows: not supported yet. The plan for it (CreateDirectoryW and
// CreateFileW with an explicit protected DACL, without HotSpot's Everyone read-data on files)
// is in POLICY.md; until then every primitive says so instead of pretending.
#include <windows.h>

#include "platform/create.hpp"

namespace hsperfguard::platform {
namespace {

ObservationError not_supported(const std::string& path) {
  return ObservationError{path, "create", ERROR_NOT_SUPPORTED,
                          "not supported on Windows yet (create and repair are Linux-only for now)"};
}

}  // namespace

std::size_t page_size() {
  SYSTEM_INFO info;
  ::GetSystemInfo(&info);
  return info.dwPageSize > 0 ? static_cast<std::size_t>(info.dwPageSize) : 4096;
}

CreateResult make_namespace(const NamespaceRequest& request) {
  CreateResult result;
  result.failure = CreateFailure::failed;
  result.error = not_supported(request.where.temp_dir);
  return result;
}

CreateResult make_backing_file(const BackingFileRequest& request) {
  CreateResult result;
  result.failure = CreateFailure::failed;
  result.error = not_supported(request.where.temp_dir);
  return result;
}

std::vector<RepairOutcomeRecord> execute_repair(const RepairPlan& plan) {
  std::vector<RepairOutcomeRecord> out;
  for (std::size_t i = 0; i < plan.targets.size(); ++i) {
    RepairOutcomeRecord record;
    record.target = i;
    record.outcome = RepairOutcome::failed;
    record.detail = "not-supported";
    record.error = not_supported(plan.targets[i].path);
    out.push_back(std::move(record));
  }
  return out;
}

}  // namespace hsperfguard::platform
