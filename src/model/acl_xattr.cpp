#include "model/acl_xattr.hpp"

namespace hsperfguard {
namespace {

constexpr std::uint32_t kXattrVersion = 2;

std::uint32_t load_le(std::span<const std::byte> b, std::size_t at, std::size_t width) {
  std::uint32_t v = 0;
  for (std::size_t i = 0; i < width; ++i) {
    v |= static_cast<std::uint32_t>(static_cast<std::uint8_t>(b[at + i])) << (8 * i);
  }
  return v;
}

}  // namespace

PosixAcl acl_from_mode_bits(std::uint32_t mode) {
  PosixAcl acl;
  acl.entries = {
      {AclTag::user_obj, std::nullopt, static_cast<std::uint8_t>((mode >> 6) & 7)},
      {AclTag::group_obj, std::nullopt, static_cast<std::uint8_t>((mode >> 3) & 7)},
      {AclTag::other, std::nullopt, static_cast<std::uint8_t>(mode & 7)},
  };
  return acl;
}

std::optional<PosixAcl> decode_acl_xattr(std::span<const std::byte> value) {
  if (value.size() < 4 || (value.size() - 4) % 8 != 0) return std::nullopt;
  if (load_le(value, 0, 4) != kXattrVersion) return std::nullopt;
  PosixAcl acl;
  acl.entries.reserve((value.size() - 4) / 8);
  for (std::size_t at = 4; at < value.size(); at += 8) {
    const auto tag = load_le(value, at, 2);
    const auto perm = load_le(value, at + 2, 2);
    const auto id = load_le(value, at + 4, 4);
    if (perm > 7) return std::nullopt;
    AclEntry e;
    e.perms = static_cast<std::uint8_t>(perm);
    switch (tag) {  // the kernel's ACL_USER_OBJ .. ACL_OTHER values
      case 0x01:
        e.tag = AclTag::user_obj;
        break;
      case 0x02:
        e.tag = AclTag::user;
        e.qualifier = id;
        break;
      case 0x04:
        e.tag = AclTag::group_obj;
        break;
      case 0x08:
        e.tag = AclTag::group;
        e.qualifier = id;
        break;
      case 0x10:
        e.tag = AclTag::mask;
        break;
      case 0x20:
        e.tag = AclTag::other;
        break;
      default:
        return std::nullopt;
    }
    acl.entries.push_back(e);
  }
  return acl;
}

}  // namespace hsperfguard
