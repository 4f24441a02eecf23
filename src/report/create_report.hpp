// The create report as JSON ("schema": "hsperfguard-create/1", schemas/create.schema.json):
// what was made or verified (the namespace, the backing file), the findings that refused it or
// that it keeps below the threshold, and the exit status with its reason. The text is written
// by the command as it goes (commands/create_command.cpp); both come from one CreateRecord.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "model/facts.hpp"
#include "model/finding.hpp"
#include "model/host_info.hpp"

namespace hsperfguard {

// A finding as create states it: its repair advice beside it (decide/create.hpp).
struct CreateFinding {
  Finding finding;
  std::string advice;    // "repair fixes it: ..." / "repair leaves it: ..."; "" on the temp dir
  bool blocking = false; // at or above the threshold: it refused the run (or failed what was made)
};

struct CreateRecord {
  std::string user;
  std::string profile;
  std::optional<std::string> policy_file;  // the policy file applied on the profile, if any
  std::int64_t generated_at_ms = 0;
  // The namespace: its path, and once made or verified "created", "changed" or "verified".
  std::string namespace_path;
  std::optional<std::string> namespace_action;
  std::optional<std::uint32_t> mode_before;  // "changed": the mode it had
  std::optional<std::uint32_t> mode;         // as made or verified (POSIX)
  std::optional<std::uint32_t> uid;
  std::optional<std::string> owner_sid;      // Windows
  std::optional<std::string> backing_file;   // --pid: its path, once made
  std::optional<std::size_t> backing_file_size;
  std::optional<std::uint32_t> backing_file_mode;
  std::vector<std::string> notes;
  std::vector<CreateFinding> findings;
  std::vector<ObservationError> errors;
  int exit_code = 0;
  std::string exit_reason;  // when not 0
};

nlohmann::json create_report_json(const CreateRecord& record, const HostInfo& host);

}  // namespace hsperfguard
