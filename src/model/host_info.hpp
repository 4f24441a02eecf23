// Who ran the report, where. Filled by platform/host.hpp.
#pragma once

#include <cstdint>
#include <string>

namespace hsperfguard {

struct HostInfo {
  std::string name;
  std::string os;      // "linux", "windows"
  std::string kernel;  // uname release / Windows build
  std::uint32_t euid = 0;
};

}  // namespace hsperfguard
