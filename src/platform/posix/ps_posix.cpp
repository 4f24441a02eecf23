// observe_jvm_processes on Linux: one pass over /proc (alone, or the container scan's). Each
// process costs one read of its maps (libjvm or not); only JVMs are read further (stat,
// status, ns/mnt, cgroup, cmdline) and have their root's /tmp and user resolved, beneath
// that root.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <map>
#include <memory>
#include <tuple>

#include "model/jvm_options.hpp"
#include "model/perfdata.hpp"
#include "model/procfs_parse.hpp"
#include "platform/files.hpp"
#include "platform/posix/beneath_posix.hpp"
#include "platform/posix/containers_posix.hpp"
#include "platform/posix/posix_util.hpp"
#include "platform/posix/procfs_posix.hpp"
#include "platform/ps.hpp"
#include "platform/users.hpp"

namespace hsperfguard::platform {
namespace {

constexpr int kPathDir = O_PATH | O_DIRECTORY | O_CLOEXEC;
constexpr std::size_t kMaxErrors = 8;

struct RootInfo {
  std::optional<std::uint64_t> tmp_dev, tmp_ino;
  std::unique_ptr<UserDatabase> users;
};

// A deleted backing file, read through the JVM's mapping (root only): what jps can no
// longer show, its main class, version and start, and whether the name is really gone.
void read_deleted_region(std::int32_t pid, JvmProcessFacts& jvm) {
  auto mapped = read_mapped_backing_file(pid, perfdata::kMaxRegionSize);
  if (!mapped || mapped->read.error) return;
  jvm.backing_file_deleted = mapped->deleted;
  const auto region = perfdata::parse_region(mapped->read.bytes);
  if (!region.valid()) return;
  if (const auto* e = region.find("sun.rt.javaCommand"); e && e->is_string()) jvm.region_main = e->string_value;
  if (const auto* e = region.find("java.property.java.vm.version"); e && e->is_string()) {
    jvm.region_vm_version = e->string_value;
  }
  if (const auto* e = region.find("sun.rt.createVmBeginTime"); e && !e->is_string()) jvm.region_begin_ms = e->long_value;
}

// What one JVM is: read once its maps were found to map libjvm.
class JvmObserver {
 public:
  JvmObserver() {
    own_known_ = ::stat("/", &own_) == 0;
    std::string mnt;
    if (readlink_at(AT_FDCWD, "/proc/self/ns/mnt", mnt) == 0) own_mnt_ = std::move(mnt);
  }

  // `pid` maps libjvm (`maps`, just read and parsed): its facts join `out`, unless it exited.
  void observe(std::int32_t pid, MapsReading& maps, std::vector<JvmProcessFacts>& out) {
    const std::string dir = "/proc/" + std::to_string(pid);
    std::optional<procfs::BackingMapping> backing = std::move(maps.summary.backing);
    const bool j9vm = maps.summary.j9vm;  // read before `maps` is moved from

    ProcessRecord record = reader_.read(pid, maps);
    if (record.facts.existence == ProcessFacts::Existence::gone) return;
    JvmProcessFacts& jvm = out.emplace_back();
    jvm.maps_backing_file = record.maps_hsperfdata;
    jvm.mapped_files = std::move(record.mapped);
    jvm.process = std::move(record.facts);
    jvm.process.maps_libjvm = true;
    jvm.in_own_mount_namespace = !own_mnt_.empty() && jvm.process.mount_namespace == own_mnt_;
    if (j9vm) jvm.vm = VmKind::openj9;
    jvm.process.cgroup = reader_.read_cgroup(pid);
    jvm.command_line = reader_.read_cmdline(pid);
    if (backing) {
      jvm.mapped_backing_file = std::move(backing->path);
      jvm.backing_file_mapping = std::move(backing->range);
      jvm.backing_file_deleted = backing->deleted;
      if (backing->deleted) read_deleted_region(pid, jvm);
    }
    // Its options, from its command line and environment: where it was told to publish
    // (-XX:AltTempDir, for every JVM) and, when blind, whether it was told not to.
    const auto cmdline = reader_.read_raw(pid, "cmdline");
    const auto environ_text = reader_.read_raw(pid, "environ");
    jvm.environment_read = environ_text.has_value();
    if (cmdline) {
      jvm.alt_temp_dir = alt_temp_dir_option(*cmdline, environ_text.value_or(""));
      if (!backing && jvm.maps_backing_file == false)
        jvm.perf_data = perf_data_option(*cmdline, environ_text.value_or(""));
    }

    UniqueFd root(::open((dir + "/root").c_str(), kPathDir));
    struct stat st {};
    if (!root.valid() || ::fstat(root.get(), &st) != 0) return;
    auto [it, inserted] = roots_.try_emplace({jvm.process.mount_namespace.value_or(""),
                                              static_cast<std::uint64_t>(st.st_dev),
                                              static_cast<std::uint64_t>(st.st_ino)});
    RootInfo& info = it->second;
    if (inserted) {
      UniqueFd tmp = open_beneath(root.get(), "tmp", kPathDir, nullptr);
      struct stat tst {};
      if (tmp.valid() && ::fstat(tmp.get(), &tst) == 0) {
        info.tmp_dev = static_cast<std::uint64_t>(tst.st_dev);
        info.tmp_ino = static_cast<std::uint64_t>(tst.st_ino);
      }
      // Our own root's users come from the host's name service (LDAP, SSSD users included).
      const bool own_root = own_known_ && own_.st_dev == st.st_dev && own_.st_ino == st.st_ino &&
                            !own_mnt_.empty() && jvm.process.mount_namespace == own_mnt_;
      info.users = own_root ? host_user_database() : root_user_database_at(root.get(), dir + "/root");
    }
    jvm.temp_dir_dev = info.tmp_dev;
    jvm.temp_dir_ino = info.tmp_ino;
    // -XX:AltTempDir moves its namespace out of /tmp: the directory it names, beneath its own
    // root (links refused, as for /tmp), is where HotSpot puts it. One that does not resolve to
    // a directory leaves /tmp: what HotSpot then does is not known here.
    if (jvm.alt_temp_dir && jvm.alt_temp_dir->absolute()) {
      UniqueFd alt = open_beneath(root.get(), jvm.alt_temp_dir->path, kPathDir, nullptr);
      struct stat ast {};
      if (alt.valid() && ::fstat(alt.get(), &ast) == 0 && S_ISDIR(ast.st_mode)) {
        jvm.temp_dir_dev = static_cast<std::uint64_t>(ast.st_dev);
        jvm.temp_dir_ino = static_cast<std::uint64_t>(ast.st_ino);
      }
    }
    const auto uid = jvm.process.effective_uid ? jvm.process.effective_uid : jvm.process.real_uid;
    if (uid && info.users) {
      jvm.user = info.users->find_name(*uid);
      // No name, and the database answered: the uid has no entry. A database that could not
      // be read says nothing about it.
      jvm.no_user_entry = !jvm.user && !info.users->failed();
    }
  }

 private:
  ProcReader reader_;
  // Views by mount namespace and (dev, ino) of the root directory: each one's /tmp and
  // passwd are read once. The same root directory in another mount namespace may have
  // another /tmp mounted on it.
  std::map<std::tuple<std::string, std::uint64_t, std::uint64_t>, RootInfo> roots_;
  struct stat own_ {};
  bool own_known_ = false;
  std::string own_mnt_;
};

// Every process's maps, read through `dirfd` (its /proc directory) a chunk at a time (at most
// kMaxMapsBytes of each) and handed to `observer` when they map libjvm. The first few failures
// other than "exited" go into `errors`, the first few maps read only in part (whether the
// process is a JVM is then not known) into `partial`.
class MapsPass {
 public:
  MapsPass(std::vector<JvmProcessFacts>& out, std::vector<ObservationError>& errors,
           std::vector<ObservationError>& partial, const RunLimits& limits)
      : out_(out),
        errors_(errors),
        partial_(partial),
        limits_(limits),
        self_(static_cast<std::int32_t>(::getpid())) {}

  // `dirfd`: the process's /proc directory, or -1 to name it by its path. False when the
  // process has no address space (a kernel thread, a zombie) or has exited (see ProcessVisitor).
  bool visit(std::int32_t pid, int dirfd) {
    if (pid == self_ || limits_.reached() != nullptr) return true;
    if (dirfd >= 0 && readlink_at(dirfd, "exe", exe_) == ENOENT) {
      return false;  // no address space (a kernel thread, a zombie) or exited: nothing maps libjvm
    }
    const std::string path = "/proc/" + std::to_string(pid) + "/maps";
    MapsReading maps =
        read_maps(dirfd >= 0 ? dirfd : AT_FDCWD, dirfd >= 0 ? "maps" : path.c_str(), buffer_, &limits_);
    if (maps.error != 0) {
      if (!vanished(maps.error) && noted_++ < kMaxErrors) {
        errors_.push_back(make_error(path, "read", maps.error));
      }
      return true;
    }
    if (maps.summary.libjvm) {
      observer_.observe(pid, maps, out_);
    } else if (!maps.summary.paths_complete() && partial_noted_++ < kMaxErrors) {
      ObservationError e = partial_maps_error(path, maps);
      e.message += "; whether it maps libjvm.so is not known";
      partial_.push_back(std::move(e));
    }
    return true;
  }

 private:
  std::vector<JvmProcessFacts>& out_;
  std::vector<ObservationError>& errors_;
  std::vector<ObservationError>& partial_;
  const RunLimits& limits_;
  const std::int32_t self_;
  JvmObserver observer_;
  std::vector<char> buffer_;
  std::string exe_;
  std::size_t noted_ = 0;
  std::size_t partial_noted_ = 0;
};

}  // namespace

std::vector<JvmProcessFacts> observe_jvm_processes(std::vector<ObservationError>& errors,
                                                   const RunLimits& limits,
                                                   std::vector<ObservationError>* partial) {
  std::vector<JvmProcessFacts> out;
  int err = 0;
  std::vector<std::int32_t> pids = list_pids("/proc", &err);
  if (err != 0) errors.push_back(make_error("/proc", "getdents64", err));
  std::sort(pids.begin(), pids.end());
  MapsPass pass(out, errors, partial != nullptr ? *partial : errors, limits);
  for (const std::int32_t& pid : pids) {  // a reference: &pid - pids.data() counts those before
    if (const char* why = limits.reached()) {
      (partial != nullptr ? *partial : errors)
          .push_back(ObservationError{"/proc", "scan", EINTR,
                                      std::string("stopped (") + why + "): the maps of " +
                                          std::to_string(&pid - pids.data()) + " of " +
                                          std::to_string(pids.size()) +
                                          " processes looked at for libjvm.so"});
      break;
    }
    pass.visit(pid, -1);
  }
  return out;
}

HostProcesses scan_host_processes(const ContainerScanOptions& options,
                                  std::vector<ObservationError>& errors) {
  HostProcesses host;
  MapsPass pass(host.jvms, errors, errors, options.limits);
  host.containers = scan_container_temp_dirs(
      options, [&pass](std::int32_t pid, int dirfd) { return pass.visit(pid, dirfd); });
  return host;
}

}  // namespace hsperfguard::platform
