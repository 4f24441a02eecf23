// The rule families' vocabulary (checks/evidence.hpp): findings, evidence and message text.
#include "checks/evidence.hpp"

#include <cstdio>
#include <utility>

#include "model/rule_catalog.hpp"
#include "model/text_escape.hpp"

namespace hsperfguard::checks {

Finding make_finding(std::string_view rule, std::string path, std::string message,
                     nlohmann::json evidence) {
  Finding finding;
  finding.rule = std::string(rule);
  finding.path = std::move(path);
  finding.message = std::move(message);
  finding.evidence = std::move(evidence);
  // A rule id missing from the catalogue keeps the default severity and no remediation;
  // the catalogue tests make sure every id the checks emit is there.
  if (const RuleInfo* info = find_rule(rule)) {
    finding.severity = info->severity;
    finding.remediation = remediation_for(*info, finding.path);
  }
  return finding;
}


void put_mode(nlohmann::json& evidence, std::uint32_t mode, std::string_view prefix) {
  const std::string key = std::string(prefix) + "mode";
  evidence[key] = octal_mode(mode);
  evidence[key + "_numeric"] = mode & 07777u;
}


std::string_view describe(FileKind kind) {
  switch (kind) {
    case FileKind::regular:
      return "a regular file";
    case FileKind::directory:
      return "a directory";
    case FileKind::symlink:
      return "a symbolic link";
    case FileKind::fifo:
      return "a FIFO";
    case FileKind::socket:
      return "a socket";
    case FileKind::char_device:
      return "a character device";
    case FileKind::block_device:
      return "a block device";
    case FileKind::unknown:
      return "of an unknown kind";
  }
  return "of an unknown kind";  // GCOVR_EXCL_LINE: after a switch over every enumerator
}

std::string printable(std::string_view raw) { return escape_non_utf8(raw); }

nlohmann::json inode_json(const InodeFacts& inode) {
  nlohmann::json out = {{"kind", to_string(inode.kind)}};
  put_mode(out, inode.mode);
  out["uid"] = inode.uid;
  out["gid"] = inode.gid;
  out["nlink"] = inode.nlink;
  out["size"] = inode.size;
  out["dev"] = inode.dev;
  out["ino"] = inode.ino;
  if (inode.windows_attributes) out["windows_attributes"] = *inode.windows_attributes;
  return out;
}

nlohmann::json errors_json(const std::vector<ObservationError>& errors) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& e : errors) {
    out.push_back({{"path", printable(e.path)},
                   {"op", printable(e.op)},
                   {"code", e.code},
                   {"message", printable(e.message)}});
  }
  return out;
}

nlohmann::json volume_json(const VolumeFacts& volume) {
  char magic[24];  // "0x" and at most 16 digits: never truncated
  static_cast<void>(std::snprintf(magic, sizeof magic, "0x%llx",
                                  static_cast<unsigned long long>(volume.fs_magic)));
  nlohmann::json out = {{"fs_type", printable(volume.fs_type)},
                        {"fs_magic", magic},
                        {"fs_magic_numeric", volume.fs_magic},
                        {"network", volume.network},
                        {"unc_path", volume.unc_path}};
  out["acl_support"] = volume.acl_support ? nlohmann::json(*volume.acl_support) : nlohmann::json();
  out["compressed"] = volume.compressed ? nlohmann::json(*volume.compressed) : nlohmann::json();
  if (volume.mount_id) out["mount_id"] = *volume.mount_id;
  return out;
}

std::string fs_name(const VolumeFacts& volume) {
  return volume.fs_type.empty() ? "unknown" : printable(volume.fs_type);
}

std::string hex(std::uint32_t value) {
  char text[11];  // "0x" and eight digits: never truncated
  static_cast<void>(std::snprintf(text, sizeof text, "0x%08x", static_cast<unsigned>(value)));
  return text;
}

}  // namespace hsperfguard::checks
