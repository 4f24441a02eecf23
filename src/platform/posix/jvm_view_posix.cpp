#include "platform/posix/jvm_view_posix.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/vfs.h>

#include <cerrno>
#include <cstring>

#include "model/procfs_parse.hpp"
#include "platform/posix/procfs_posix.hpp"
#include "platform/posix/safe_path_posix.hpp"
#include "platform/posix/stat_posix.hpp"

namespace hsperfguard::platform {

JvmView::JvmView(const std::string& temp_dir, const InodeFacts& own) {
  const OwnMounts ours = OwnMounts::read("/proc");
  if (!ours.mount_namespace) return;  // no /proc to tell: the observer's view stands
  std::string init_ns, buffer;
  const int err = read_mount_namespace(AT_FDCWD, "/proc/1/", ours, init_ns, buffer, nullptr);
  if (err == 0 && init_ns == *ours.mount_namespace) return;
  if (err != 0) {
    // pid 1's link refused (no CAP_SYS_PTRACE): its mountinfo, which anyone may read, tells
    // a namespace of our own by other mounts at its root; unread, ours stands, as always.
    if (buffer.empty() || procfs::root_mount_ids(buffer) == ours.root_mounts) return;
    separate_ = true;
    error_ = std::string("readlink /proc/1/ns/mnt: ") + std::strerror(err);
    return;
  }
  separate_ = true;
  if (!temp_dir.starts_with('/')) {
    error_ = "the temp dir is a relative path, which pid 1's root cannot resolve";
    return;
  }
  ObservationError e;
  const UniqueFd root = open_system_root("/proc/1/root", true, e);
  if (!root.valid()) {
    error_ = "open /proc/1/root: " + e.message;
    return;
  }
  std::optional<WalkedPath> held = hold_temp_dir(root.get(), temp_dir, e);
  if (!held) {
    error_ = "open " + temp_dir + " beneath /proc/1/root: " + e.message;
    return;
  }
  if (held->st.st_dev != own.dev || held->st.st_ino != own.ino) {
    error_ = "pid 1 sees another directory at " + temp_dir;
    return;
  }
  struct statfs sfs {};
  if (::fstatfs(held->fd.get(), &sfs) != 0) {
    error_ = std::string("fstatfs beneath /proc/1/root: ") + std::strerror(errno);
    return;
  }
  read_only_ = (sfs.f_flags & ST_RDONLY) != 0;
  temp_ = std::move(held->fd);
  if (read_proc_file(AT_FDCWD, "/proc/1/mountinfo", mountinfo_) != 0) mountinfo_.clear();
}

void JvmView::apply(VolumeFacts& volume) const {
  if (!separate_) return;
  if (!active()) {
    volume.read_only_seen_by = "observer";
    volume.read_only_view_error = error_;
    return;
  }
  volume.read_only_seen_by = "pid 1";
  if (volume.read_only != read_only_) volume.read_only_to_observer = volume.read_only;
  volume.read_only = read_only_;
}

std::optional<VolumeFacts> JvmView::volume_beneath(const std::string& name, const InodeFacts& seen) const {
  if (!active() || mountinfo_.empty()) return std::nullopt;
  Stat st;
  if (stat_at(temp_.get(), name.c_str(), AT_SYMLINK_NOFOLLOW, st) != 0) return std::nullopt;
  if (st.inode.dev != seen.dev || st.inode.ino != seen.ino || !st.mount_id) return std::nullopt;
  const auto mount = procfs::find_mount(mountinfo_, *st.mount_id);
  if (!mount) return std::nullopt;
  VolumeFacts v;
  v.fs_type = std::string(mount->fs_type);
  v.mount_id = mount->mount_id;
  v.read_only = mount->read_only;
  v.read_only_seen_by = "pid 1";
  return v;
}

}  // namespace hsperfguard::platform
