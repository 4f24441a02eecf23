// The Linux extended-attribute form of a POSIX ACL (system.posix_acl_access and
// system.posix_acl_default), decoded. Pure and portable: observation reads the bytes, this
// parses them, and a fuzz target feeds it anything.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

#include "model/facts.hpp"

namespace hsperfguard {

// A 4-byte version 2 header, then 8-byte {tag u16, perm u16, id u32} entries, little-endian.
// nullopt when malformed (bad version, size, tag, or perms): never half-read.
std::optional<PosixAcl> decode_acl_xattr(std::span<const std::byte> value);

// The minimal ACL that mirrors the permission bits of `mode`.
PosixAcl acl_from_mode_bits(std::uint32_t mode);

}  // namespace hsperfguard
