// libFuzzer target: the system.posix_acl_access / _default extended attribute of a file in a
// namespace, whose owner (or a file system image) decides its bytes.
//
// Beyond "no crash, leak, UB": decode_acl_xattr accepts exactly a version 2 header and whole
// 8-byte entries with known tags and permissions up to 7; what it accepts re-encodes to the
// same bytes (the qualifier of entries that have none excepted, which the kernel ignores);
// the ACL evaluation (effective permissions, grants to others) stays within the permissions
// the entries hold.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "checks/acl.hpp"
#include "fuzz_check.hpp"
#include "model/acl_xattr.hpp"

namespace hsperfguard {
namespace {

std::uint32_t load_le(const std::uint8_t* b, std::size_t width) {
  std::uint32_t v = 0;
  for (std::size_t i = 0; i < width; ++i) v |= static_cast<std::uint32_t>(b[i]) << (8 * i);
  return v;
}

std::uint32_t tag_code(AclTag tag) {
  switch (tag) {
    case AclTag::user_obj:
      return 0x01;
    case AclTag::user:
      return 0x02;
    case AclTag::group_obj:
      return 0x04;
    case AclTag::group:
      return 0x08;
    case AclTag::mask:
      return 0x10;
    case AclTag::other:
      return 0x20;
  }
  return 0;
}

bool known_tag(std::uint32_t code) {
  return code == 0x01 || code == 0x02 || code == 0x04 || code == 0x08 || code == 0x10 ||
         code == 0x20;
}

}  // namespace
}  // namespace hsperfguard

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace hsperfguard;
  const auto bytes = std::as_bytes(std::span(data, size));
  const auto acl = decode_acl_xattr(bytes);

  // What a well-formed value is, restated.
  bool well_formed = size >= 4 && (size - 4) % 8 == 0 && load_le(data, 4) == 2;
  for (std::size_t at = 4; well_formed && at < size; at += 8) {
    well_formed = known_tag(load_le(data + at, 2)) && load_le(data + at + 2, 2) <= 7;
  }
  FUZZ_CHECK(acl.has_value() == well_formed);
  if (!acl) return 0;

  FUZZ_CHECK(acl->entries.size() == (size - 4) / 8);
  for (std::size_t i = 0; i < acl->entries.size(); ++i) {
    const AclEntry& e = acl->entries[i];
    const std::uint8_t* raw = data + 4 + 8 * i;
    FUZZ_CHECK(tag_code(e.tag) == load_le(raw, 2));
    FUZZ_CHECK(e.perms == load_le(raw + 2, 2));
    const bool named = e.tag == AclTag::user || e.tag == AclTag::group;
    FUZZ_CHECK(e.qualifier.has_value() == named);
    if (named) FUZZ_CHECK(*e.qualifier == load_le(raw + 4, 4));

    const std::uint8_t effective = checks::acl::effective_perms(*acl, e);
    FUZZ_CHECK((effective & ~e.perms & checks::acl::kAll) == 0);
  }
  const auto owner = acl->entries.empty() || !acl->entries.front().qualifier
                         ? std::optional<std::uint32_t>{}
                         : acl->entries.front().qualifier;
  for (const auto& grant : checks::acl::grants_to_others(*acl, checks::acl::kAll, owner)) {
    FUZZ_CHECK(grant.effective != 0);
    FUZZ_CHECK(grant.entry.tag != AclTag::user_obj && grant.entry.tag != AclTag::mask);
  }
  (void)checks::acl::acl_json(*acl).dump();
  return 0;
}
