// POSIX ACLs of open files, as neutral facts.
//
// Conventions (what the rules can rely on):
// - access ACL: on a file system with ACLs it is always present; with no extended ACL it is
//   the three entries the mode bits imply (what acl_get_fd returns). nullopt: the file
//   system has no ACL support (ENOTSUP), or reading failed (then an error is recorded).
// - default ACL (directories): present only when one is set; nullopt when none is set, when
//   ACLs are unsupported, or when reading failed (then an error is recorded).
// Everything works on an fd: a path is never reopened.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "model/facts.hpp"

namespace hsperfguard::platform {

// `mode` is the fstat mode of `fd` (used when there is no extended ACL, saving a syscall).
std::optional<PosixAcl> read_access_acl(int fd, std::uint32_t mode, const std::string& path,
                                        std::vector<ObservationError>& errors);

// read_access_acl in two halves, for callers that make the probe themselves (batched): the
// probe is fgetxattr(fd, kAccessXattr, buffer, kAccessAclProbeSize); `probe_error` is its
// errno, 0 when it succeeded. Only a file with an extended ACL costs more system calls.
inline constexpr const char* kAccessXattr = "system.posix_acl_access";
inline constexpr std::size_t kAccessAclProbeSize = 4;
std::optional<PosixAcl> access_acl_after_probe(int fd, int probe_error, std::uint32_t mode,
                                               const std::string& path,
                                               std::vector<ObservationError>& errors);

std::optional<PosixAcl> read_default_acl(int dir_fd, const std::string& path,
                                         std::vector<ObservationError>& errors);

// Whether the file system of `fd` supports POSIX ACLs: acl_get_fd succeeds (true) or fails
// with ENOTSUP (false); nullopt (and an error) for any other failure.
std::optional<bool> probe_acl_support(int fd, const std::string& path,
                                      std::vector<ObservationError>& errors);

}  // namespace hsperfguard::platform
