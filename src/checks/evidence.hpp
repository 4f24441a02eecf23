// Shared vocabulary of the rule families: how a finding is made (make_finding, with the
// catalogue's severity and remediation) and how observed values are written into its
// evidence and message. Pure; every string that may hold raw file-name bytes is escaped
// here, so evidence and messages are always valid UTF-8 (Finding.path stays raw).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/facts.hpp"
#include "model/finding.hpp"

namespace hsperfguard::checks {

// Builds a finding with the catalogue's default severity and remediation for `rule`.
Finding make_finding(std::string_view rule, std::string path, std::string message,
                     nlohmann::json evidence = nlohmann::json::object());

// Adds "<prefix>mode" (octal string) and "<prefix>mode_numeric" to `evidence`.
void put_mode(nlohmann::json& evidence, std::uint32_t mode, std::string_view prefix = "");

// Whether the facts are of a POSIX system (the mode, owner and ACL rules judge only those).
inline bool posix(const TempRootFacts& root) { return root.platform == Platform::posix; }

// "0x%08x": an attribute word or an access mask.
std::string hex(std::uint32_t value);

// "a directory", "a FIFO", ... for messages.
std::string_view describe(FileKind kind);

// Raw bytes of a name or path, made printable (valid UTF-8 unchanged, other bytes \xNN).
std::string printable(std::string_view raw);

// The inode a rule should judge: what the opened descriptor says (that is the object we
// verified) when there is one, else the lstat result. Null when neither was observed.
// `opened` is a namespace's std::optional or a file's Boxed observation.
template <typename Opened>
const InodeFacts* judged_inode(const Opened& opened, const std::optional<InodeFacts>& lstat) {
  if (opened) return &*opened;
  if (lstat) return &*lstat;
  return nullptr;
}
// "fstat" or "lstat": which observation `judged_inode` picked.
template <typename Opened>
std::string_view inode_source(const Opened& opened) {
  return opened ? "fstat" : "lstat";
}

template <typename Opened>
bool is_symlink(const Opened& opened, const std::optional<InodeFacts>& lstat) {
  return (lstat && lstat->kind == FileKind::symlink) ||
         (opened && opened->kind == FileKind::symlink);
}
// True when both observations exist and name different (dev, ino).
template <typename Opened>
bool identities_differ(const Opened& opened, const std::optional<InodeFacts>& lstat) {
  return opened && lstat && (opened->dev != lstat->dev || opened->ino != lstat->ino);
}

// kind, mode, uid, gid, nlink, size, dev, ino of one observation.
nlohmann::json inode_json(const InodeFacts& inode);
nlohmann::json errors_json(const std::vector<ObservationError>& errors);
nlohmann::json volume_json(const VolumeFacts& volume);
// The volume's file-system type for messages ("unknown" when it was not read).
std::string fs_name(const VolumeFacts& volume);

}  // namespace hsperfguard::checks
