// observe_jvm_processes on Linux: one pass over /proc. Each process costs one read of its
// maps (libjvm or not); only JVMs are read further (stat, status, ns/mnt, cgroup, cmdline)
// and have their root's /tmp and user resolved, beneath that root.
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
#include "platform/files.hpp"
#include "platform/posix/beneath_posix.hpp"
#include "platform/posix/posix_util.hpp"
#include "platform/posix/procfs_posix.hpp"
#include "platform/ps.hpp"
#include "platform/users.hpp"
#include "model/procfs_parse.hpp"

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

}  // namespace

std::vector<JvmProcessFacts> observe_jvm_processes(std::vector<ObservationError>& errors) {
  std::vector<JvmProcessFacts> out;
  int err = 0;
  std::vector<std::int32_t> pids = list_pids("/proc", &err);
  if (err != 0) errors.push_back(make_error("/proc", "getdents64", err));
  std::sort(pids.begin(), pids.end());
  const std::int32_t self = static_cast<std::int32_t>(::getpid());

  ProcReader reader;
  std::string maps;
  std::size_t noted = 0;
  // Views by mount namespace and (dev, ino) of the root directory: each one's /tmp and
  // passwd are read once. The same root directory in another mount namespace may have
  // another /tmp mounted on it.
  std::map<std::tuple<std::string, std::uint64_t, std::uint64_t>, RootInfo> roots;
  // Our own root's users come from the host's name service (LDAP, SSSD users included).
  struct stat own {};
  const bool own_known = ::stat("/", &own) == 0;
  char own_mnt_buf[256];
  const ssize_t own_mnt_len = ::readlink("/proc/self/ns/mnt", own_mnt_buf, sizeof own_mnt_buf);
  const std::string own_mnt =
      own_mnt_len > 0 ? std::string(own_mnt_buf, static_cast<std::size_t>(own_mnt_len)) : "";
  for (const std::int32_t pid : pids) {
    if (pid == self) continue;
    const std::string dir = "/proc/" + std::to_string(pid);
    const int e = read_proc_file(AT_FDCWD, (dir + "/maps").c_str(), maps);
    if (e != 0) {
      if (e != ENOENT && e != ESRCH && noted++ < kMaxErrors) {
        errors.push_back(make_error(dir + "/maps", "read", e));
      }
      continue;
    }
    const procfs::MapsSummary summary = procfs::parse_maps(maps);
    if (!summary.libjvm) continue;
    std::optional<procfs::BackingMapping> backing = summary.backing;
    std::string backing_path = backing ? std::string(backing->path) : std::string();
    std::string backing_range = backing ? std::string(backing->range) : std::string();

    ProcessRecord record = reader.read(pid);
    if (record.facts.existence == ProcessFacts::Existence::gone) continue;
    JvmProcessFacts& jvm = out.emplace_back();
    jvm.maps_backing_file = record.maps_hsperfdata;
    jvm.process = std::move(record.facts);
    jvm.process.maps_libjvm = true;
    jvm.process.cgroup = reader.read_cgroup(pid);
    jvm.command_line = reader.read_cmdline(pid);
    if (backing) {
      jvm.mapped_backing_file = std::move(backing_path);
      jvm.backing_file_mapping = std::move(backing_range);
      jvm.backing_file_deleted = backing->deleted;
      if (backing->deleted) read_deleted_region(pid, jvm);
    } else if (jvm.maps_backing_file == false) {
      // Blind: was it told to be? Its options, from its command line and environment.
      const auto cmdline = reader.read_raw(pid, "cmdline");
      const auto environ_text = reader.read_raw(pid, "environ");
      jvm.environment_read = environ_text.has_value();
      if (cmdline) jvm.perf_data = perf_data_option(*cmdline, environ_text.value_or(""));
    }

    UniqueFd root(::open((dir + "/root").c_str(), kPathDir));
    struct stat st {};
    if (!root.valid() || ::fstat(root.get(), &st) != 0) continue;
    auto [it, inserted] = roots.try_emplace({jvm.process.mount_namespace.value_or(""),
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
      const bool own_root = own_known && own.st_dev == st.st_dev && own.st_ino == st.st_ino &&
                            !own_mnt.empty() && jvm.process.mount_namespace == own_mnt;
      info.users = own_root ? host_user_database() : root_user_database_at(root.get(), dir + "/root");
    }
    jvm.temp_dir_dev = info.tmp_dev;
    jvm.temp_dir_ino = info.tmp_ino;
    const auto uid = jvm.process.effective_uid ? jvm.process.effective_uid : jvm.process.real_uid;
    if (uid && info.users) jvm.user = info.users->find_name(*uid);
  }
  return out;
}

}  // namespace hsperfguard::platform
