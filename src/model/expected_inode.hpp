// The identity of an inode when it was judged: plans (reap, repair, create) carry it, and
// the platform acts only on an entry that still has it.
#pragma once

#include <cstdint>

#include "model/facts.hpp"

namespace hsperfguard {

// The identity an entry had when it was judged; the executor acts only if it finds it again.
struct ExpectedInode {
  std::uint64_t dev = 0;
  std::uint64_t ino = 0;
  FileKind kind = FileKind::unknown;
  std::uint32_t uid = 0;
  std::uint32_t gid = 0;
  std::uint32_t mode = 0;
  std::uint64_t nlink = 1;
};

ExpectedInode expected_from(const InodeFacts& inode);

}  // namespace hsperfguard
