// System tests of the container scan's pass over /proc (platform/posix/containers_posix.cpp)
// against this host's real process table.
#include <gtest/gtest.h>
#include <sched.h>
#include <sys/prctl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "model/roots.hpp"
#include "platform/containers.hpp"
#include "platform/posix/containers_posix.hpp"
#include "test_support.hpp"

namespace hsperfguard::platform {
namespace {

// A stop that comes after three processes were looked at is said with that count: the
// message counts the processes before the stop, not an address difference of a copy.
TEST(ContainerScanStop, SaysHowManyProcessesWereLookedAtBeforeTheStop) {
  std::atomic<bool> stop{false};
  ContainerScanOptions options;
  options.limits.stop = &stop;
  std::vector<std::int32_t> visited;
  const ContainerScan scan = scan_container_temp_dirs(options, [&](std::int32_t pid, int) {
    visited.push_back(pid);
    if (visited.size() == 3) stop = true;
    return false;  // no container is looked for through it: the count is what is tested
  });
  // The lowest pids (init and the first kernel threads) never exit: the first three listed
  // are the three visited.
  ASSERT_EQ(visited.size(), 3u);
  ASSERT_FALSE(scan.errors.empty());
  const std::string& message = scan.errors.back().message;
  EXPECT_NE(message.find("stopped (interrupted): containers of 3 of "), std::string::npos) << message;
  EXPECT_NE(message.find(" processes looked at"), std::string::npos) << message;
  EXPECT_FALSE(scan.placements_complete);
}

// A process of our pid namespace in a mount namespace of its own (as systemd's PrivateTmp=
// makes one): what makes the scan look among the host temp dir's systemd-private-* dirs.
class OwnMountNamespaceChild {
 public:
  OwnMountNamespaceChild() {
    const pid_t parent = ::getpid();
    pid_ = ::fork();
    if (pid_ == 0) {
      // Dies with the test, whatever ends it: a mount namespace left seeing /tmp would be
      // counted by every later audit.
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent || ::unshare(CLONE_NEWNS) != 0) ::_exit(1);
      for (;;) ::pause();
    }
  }
  ~OwnMountNamespaceChild() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  OwnMountNamespaceChild(const OwnMountNamespaceChild&) = delete;
  OwnMountNamespaceChild& operator=(const OwnMountNamespaceChild&) = delete;
  // Waits (up to 5 s) until its mount namespace is not ours.
  bool ready() const {
    if (pid_ <= 0) return false;
    const std::string mine = link_text("/proc/self/ns/mnt");
    for (int i = 0; i < 250; ++i) {
      const std::string theirs = link_text("/proc/" + std::to_string(pid_) + "/ns/mnt");
      if (!theirs.empty() && theirs != mine) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  }

 private:
  static std::string link_text(const std::string& path) {
    char buf[256];
    const ssize_t n = ::readlink(path.c_str(), buf, sizeof buf);
    return n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : std::string();
  }
  pid_t pid_ = -1;
};

// The host temp dir is opened without following a link: where it is a link to a directory
// holding a root-owned systemd-private-*/tmp, no private tmp is found through it, and the
// open's failure is said (ENOTDIR: Linux answers a link opened O_DIRECTORY | O_NOFOLLOW so). The directory itself, named as it is, is found (the control).
TEST(ContainerScanPrivateTmps, AHostTempDirThatIsALinkIsNotFollowed) {
  if (!test::is_root()) GTEST_SKIP() << "needs root: a root-owned systemd-private-* dir";
  test::ScratchDir scratch;
  const std::string real = scratch / "real";
  const std::string name =
      "systemd-private-0123456789abcdef0123456789abcdef-tomcat.service-Ab12C3";
  ASSERT_EQ(::mkdir(real.c_str(), 0755), 0);
  ASSERT_EQ(::mkdir((real + "/" + name).c_str(), 0700), 0);
  ASSERT_EQ(::mkdir((real + "/" + name + "/tmp").c_str(), 01777), 0);
  ASSERT_EQ(::symlink(real.c_str(), (scratch / "link").c_str()), 0);
  OwnMountNamespaceChild child;
  ASSERT_TRUE(child.ready()) << "no process in a mount namespace of its own";

  ContainerScanOptions options;
  options.host_temp_dir = real;
  const ContainerScan direct = scan_container_temp_dirs(options);
  ASSERT_EQ(direct.systemd_private_tmps.size(), 1u);
  EXPECT_EQ(direct.systemd_private_tmps[0].name, name);

  options.host_temp_dir = scratch / "link";
  const ContainerScan linked = scan_container_temp_dirs(options);
  EXPECT_TRUE(linked.systemd_private_tmps.empty());
  bool said = false;
  for (const ObservationError& e : linked.errors) {
    said = said || (e.path == options.host_temp_dir && e.op == "open" &&
                    (e.code == ENOTDIR || e.code == ELOOP));
  }
  EXPECT_TRUE(said || linked.errors.size() >= 8) << "the link's open not said";
}

}  // namespace
}  // namespace hsperfguard::platform
