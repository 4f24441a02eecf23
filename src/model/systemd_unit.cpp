// The systemd service of a process, from its cgroup path or its PrivateTmp= directory's name
// (model/systemd_unit.hpp).
#include "model/systemd_unit.hpp"

namespace hsperfguard {

std::optional<std::string> systemd_service_of_cgroup(std::string_view cgroup) {
  constexpr std::string_view kSuffix = ".service";
  std::optional<std::string> service;
  std::size_t at = 0;
  while (at <= cgroup.size()) {
    std::size_t end = cgroup.find('/', at);
    if (end == std::string_view::npos) end = cgroup.size();
    const std::string_view component = cgroup.substr(at, end - at);
    // A bare ".service" names nothing.
    if (component.size() > kSuffix.size() && component.ends_with(kSuffix)) {
      service = std::string(component);
    }
    at = end + 1;
  }
  return service;
}

std::optional<std::string> systemd_unit_of_private_dir(std::string_view name) {
  constexpr std::size_t kBootIdDigits = 32;
  if (!name.starts_with(kSystemdPrivatePrefix)) return std::nullopt;
  std::string_view rest = name.substr(kSystemdPrivatePrefix.size());
  if (rest.size() < kBootIdDigits + 1) return std::nullopt;
  for (std::size_t i = 0; i < kBootIdDigits; ++i) {
    const char c = rest[i];
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return std::nullopt;
  }
  if (rest[kBootIdDigits] != '-') return std::nullopt;
  rest.remove_prefix(kBootIdDigits + 1);
  // The random suffix systemd appends (mkdtemp's) holds no '-'; the unit may.
  const std::size_t dash = rest.rfind('-');
  if (dash == std::string_view::npos || dash == 0 || dash + 1 == rest.size()) return std::nullopt;
  return std::string(rest.substr(0, dash));
}

}  // namespace hsperfguard
