// The temp dir of this host as its JVMs see it. A JVM decides whether it can publish by what
// its own mount namespace shows; an observer in a mount namespace of its own sees other mount
// flags: a systemd unit's ProtectSystem=strict makes /tmp read-only in the unit's namespace
// alone. Such an observer reads the temp dir's file system through pid 1's root (the mount
// namespace this host's JVMs start in) instead, and judges read-only-ness from there.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "model/facts.hpp"
#include "platform/posix/posix_util.hpp"

namespace hsperfguard::platform {

class JvmView {
 public:
  // The observer's own view (a foreign root's or a container's temp dir).
  JvmView() = default;
  // Opens pid 1's view of `temp_dir` (an absolute path of this host) when the observer's
  // mount namespace is not pid 1's; `own` is the temp dir as the observer opened it, which
  // pid 1's must be (same device and inode). Not active when the namespaces are one (the
  // observer's view is the JVMs'); otherwise `error()` says why pid 1's view is not used
  // (not permitted without CAP_SYS_PTRACE, another directory there, a relative path).
  JvmView(const std::string& temp_dir, const InodeFacts& own);

  // pid 1's view is used.
  bool active() const { return temp_.valid(); }
  // The observer is in another mount namespace than pid 1 and could not use pid 1's view.
  const std::string& error() const { return error_; }

  // The volume of the temp dir (or of a namespace on its mount: `own_read_only` is what the
  // observer saw) with read_only as the JVMs see it and whose view that is.
  void apply(VolumeFacts& volume) const;
  // The volume of namespace `name`, a directory on another mount than the temp dir, as the
  // JVMs see it: pid 1's mount table for the mount pid 1 finds there, when that is the
  // directory `seen` (no mount is asked itself). nullopt when pid 1's view is not active or
  // shows another directory.
  std::optional<VolumeFacts> volume_beneath(const std::string& name, const InodeFacts& seen) const;

 private:
  UniqueFd temp_;                  // pid 1's view of the temp dir, O_PATH
  std::optional<bool> read_only_;  // of the temp dir's mount there
  bool separate_ = false;          // the observer's mount namespace is not pid 1's
  std::string error_;
  std::string mountinfo_;          // pid 1's, read when a namespace on another mount needs it
};

}  // namespace hsperfguard::platform
