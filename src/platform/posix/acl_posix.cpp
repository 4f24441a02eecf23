#include "platform/posix/acl_posix.hpp"

#include <acl/libacl.h>
#include <sys/acl.h>
#include <sys/xattr.h>

#include <array>
#include <cerrno>
#include <memory>

#include "model/acl_xattr.hpp"
#include "platform/posix/posix_util.hpp"

namespace hsperfguard::platform {
namespace {

constexpr const char* kDefaultXattr = "system.posix_acl_default";

// acl_t and the qualifiers libacl hands out are freed with acl_free.
struct AclFree {
  void operator()(void* p) const { ::acl_free(p); }
};
using AclPtr = std::unique_ptr<std::remove_pointer_t<acl_t>, AclFree>;
using QualifierPtr = std::unique_ptr<void, AclFree>;

bool unsupported(int err) { return err == ENOTSUP || err == EOPNOTSUPP; }

std::optional<AclTag> tag_from_libacl(acl_tag_t tag) {
  switch (tag) {
    case ACL_USER_OBJ:
      return AclTag::user_obj;
    case ACL_USER:
      return AclTag::user;
    case ACL_GROUP_OBJ:
      return AclTag::group_obj;
    case ACL_GROUP:
      return AclTag::group;
    case ACL_MASK:
      return AclTag::mask;
    case ACL_OTHER:
      return AclTag::other;
    default:
      return std::nullopt;
  }
}

// Converts a libacl ACL; nullopt if libacl reports something we cannot represent.
std::optional<PosixAcl> from_libacl(acl_t acl) {
  PosixAcl out;
  acl_entry_t entry = nullptr;
  for (int which = ACL_FIRST_ENTRY; ::acl_get_entry(acl, which, &entry) == 1;
       which = ACL_NEXT_ENTRY) {
    acl_tag_t tag = ACL_UNDEFINED_TAG;
    if (::acl_get_tag_type(entry, &tag) != 0) return std::nullopt;
    const auto neutral = tag_from_libacl(tag);
    if (!neutral) return std::nullopt;
    AclEntry e;
    e.tag = *neutral;
    if (tag == ACL_USER || tag == ACL_GROUP) {
      QualifierPtr id(::acl_get_qualifier(entry));
      if (!id) return std::nullopt;
      e.qualifier = static_cast<std::uint32_t>(*static_cast<id_t*>(id.get()));
    }
    acl_permset_t permset = nullptr;
    if (::acl_get_permset(entry, &permset) != 0) return std::nullopt;
    e.perms = static_cast<std::uint8_t>((::acl_get_perm(permset, ACL_READ) == 1 ? 4 : 0) |
                                        (::acl_get_perm(permset, ACL_WRITE) == 1 ? 2 : 0) |
                                        (::acl_get_perm(permset, ACL_EXECUTE) == 1 ? 1 : 0));
    out.entries.push_back(e);
  }
  return out;
}

}  // namespace

std::optional<PosixAcl> read_access_acl(int fd, std::uint32_t mode, const std::string& path,
                                        std::vector<ObservationError>& errors) {
  // One fgetxattr tells whether an extended ACL exists. Without one, acl_get_fd would
  // fstat and build the ACL from the mode: we already have the mode.
  std::array<char, kAccessAclProbeSize> probe{};
  const ssize_t n = ::fgetxattr(fd, kAccessXattr, probe.data(), probe.size());
  return access_acl_after_probe(fd, n < 0 ? errno : 0, mode, path, errors);
}

std::optional<PosixAcl> access_acl_after_probe(int fd, int probe_error, std::uint32_t mode,
                                               const std::string& path,
                                               std::vector<ObservationError>& errors) {
  if (probe_error == ENODATA) return acl_from_mode_bits(mode);
  if (unsupported(probe_error)) return std::nullopt;
  if (probe_error != 0 && probe_error != ERANGE) {  // ERANGE: it exists, larger than the probe
    errors.push_back(make_error(path, "fgetxattr", probe_error));
    return std::nullopt;
  }
  AclPtr acl(::acl_get_fd(fd));
  if (!acl) {
    const int err = errno;
    if (!unsupported(err)) errors.push_back(make_error(path, "acl_get_fd", err));
    return std::nullopt;
  }
  auto out = from_libacl(acl.get());
  if (!out)
    errors.push_back(ObservationError{path, "acl_get_fd", EINVAL, "unrepresentable ACL entry"});
  return out;
}

std::optional<PosixAcl> read_default_acl(int dir_fd, const std::string& path,
                                         std::vector<ObservationError>& errors) {
  // libacl reads a default ACL only by path; the xattr is read from the fd instead.
  std::vector<std::byte> buffer(4 + 8 * 32);
  for (;;) {
    const ssize_t n = ::fgetxattr(dir_fd, kDefaultXattr, buffer.data(), buffer.size());
    if (n >= 0) {
      buffer.resize(static_cast<std::size_t>(n));
      break;
    }
    const int err = errno;
    if (err == ENODATA || unsupported(err)) return std::nullopt;
    if (err == ERANGE && buffer.size() < std::size_t{65536} * 8) {
      const ssize_t needed = ::fgetxattr(dir_fd, kDefaultXattr, nullptr, 0);
      buffer.resize(needed > 0 ? static_cast<std::size_t>(needed) : buffer.size() * 2);
      continue;
    }
    errors.push_back(make_error(path, "fgetxattr", err));
    return std::nullopt;
  }
  if (buffer.empty()) return std::nullopt;
  auto acl = decode_acl_xattr(buffer);
  if (!acl)
    errors.push_back(
        ObservationError{path, "fgetxattr", EINVAL, "malformed system.posix_acl_default"});
  return acl;
}

std::optional<bool> probe_acl_support(int fd, const std::string& path,
                                      std::vector<ObservationError>& errors) {
  AclPtr acl(::acl_get_fd(fd));
  if (acl) return true;
  const int err = errno;
  if (unsupported(err)) return false;
  errors.push_back(make_error(path, "acl_get_fd", err));
  return std::nullopt;
}

}  // namespace hsperfguard::platform
