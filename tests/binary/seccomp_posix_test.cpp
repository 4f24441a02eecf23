// The fallbacks where openat2 or io_uring is refused, as container runtimes' seccomp profiles
// refuse them: the helper seccomp_refuse (which CI also runs the whole suite under: the stage
// "tests under seccomp" of scripts/test.sh) and a real audit under it, traced. What each run
// should see is decided by the kernel's own answer (refusals_posix.hpp) and the filter asked
// for, never by the tool's probes, so the same tests hold in the plain run and under the
// filter.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "refusals_posix.hpp"
#include "test_support.hpp"

namespace hsperfguard {
namespace {

using nlohmann::json;
using test::ScratchDir;

const std::string kHelper = HSPERFGUARD_SECCOMP_REFUSE;

// What a run under `seccomp_refuse --refuse WHAT --errno CODE` should get from each call: the
// filter's errno for what it refuses, else whatever this process gets (under the CI stage's
// filter, that is already a refusal). 0 means the call works.
struct Filter {
  std::string what;  // openat2, io_uring, both, or "" for no filter of this test's
  int code = 0;
  bool refuses_openat2() const { return what == "openat2" || what == "both"; }
  bool refuses_io_uring() const { return what == "io_uring" || what == "both"; }
  int openat2() const { return refuses_openat2() ? code : test::openat2_refusal(); }
  int io_uring() const { return refuses_io_uring() ? code : test::io_uring_refusal(); }
  std::vector<std::string> prefix() const {
    if (what.empty()) return {};
    return {kHelper, "--errno", code == EPERM ? "EPERM" : "ENOSYS", "--refuse", what, "--"};
  }
  std::string name() const {
    return what.empty() ? "no filter" : what + " refused with " + (code == EPERM ? "EPERM" : "ENOSYS");
  }
};

std::vector<std::string> with_prefix(std::vector<std::string> prefix,
                                     const std::vector<std::string>& argv) {
  prefix.insert(prefix.end(), argv.begin(), argv.end());
  return prefix;
}

// Asks each call directly, in a process of its own, and prints what it got (0 or the errno).
// io_uring_enter and io_uring_register are made on fd -1: they fail even where allowed.
const char* kAskScript = R"PY(
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
openat2, setup, enter, register = (int(a) for a in sys.argv[1:5])
def ask(number, *args):
    ctypes.set_errno(0)
    r = libc.syscall(number, *args)
    if r >= 0:
        os.close(r)
        return 0
    return ctypes.get_errno()
how = ctypes.create_string_buffer(b"\x00\x00\x20\x00\x00\x00\x00\x00" + b"\x00" * 8 + b"\x10" + b"\x00" * 7)  # O_PATH, RESOLVE_IN_ROOT
params = ctypes.create_string_buffer(120)
print("openat2=%d setup=%d enter=%d register=%d" % (
    ask(openat2, -100, b"/", how, 24), ask(setup, 1, params),
    ask(enter, -1, 0, 0, 0, None, 0), ask(register, -1, 0, None, 0)))
fd = os.open("/", os.O_RDONLY | os.O_DIRECTORY)
os.close(fd)
print("openat=0")
)PY";

// What io_uring_enter or io_uring_register on fd -1, as the script below makes them, gets in
// this process: EBADF or EINVAL, or the errno of a filter this run is under.
int io_uring_answer(long number) {
  errno = 0;
  if (number == SYS_io_uring_enter) {
    ::syscall(number, -1, 0, 0, 0, nullptr, 0);
  } else {
    ::syscall(number, -1, 0, nullptr, 0);
  }
  return errno;
}

TEST(SeccompRefuse, RefusesWhatItIsToldWithTheErrnoGivenAndNothingElse) {
  if (!test::have_program("python3")) GTEST_SKIP() << "needs python3 to make the raw calls";
  const std::vector<std::string> ask = {"python3",
                                        "-c",
                                        kAskScript,
                                        std::to_string(SYS_openat2),
                                        std::to_string(SYS_io_uring_setup),
                                        std::to_string(SYS_io_uring_enter),
                                        std::to_string(SYS_io_uring_register)};
  for (const Filter& f : {Filter{"both", EPERM}, Filter{"both", ENOSYS}, Filter{"openat2", EPERM},
                          Filter{"io_uring", ENOSYS}}) {
    const auto r = test::run(with_prefix(f.prefix(), ask));
    ASSERT_EQ(r.exit_code, 0) << f.name() << ": " << r.err;
    // enter and register on fd -1 fail however they are asked; refused, with the filter's errno.
    const int enter = f.refuses_io_uring() ? f.code : io_uring_answer(SYS_io_uring_enter);
    const int reg = f.refuses_io_uring() ? f.code : io_uring_answer(SYS_io_uring_register);
    std::ostringstream want;
    want << "openat2=" << f.openat2() << " setup=" << f.io_uring() << " enter=" << enter
         << " register=" << reg << "\nopenat=0\n";
    EXPECT_EQ(r.out, want.str()) << f.name();
  }
  // Anything it cannot do as asked is exit 125, and the command does not run.
  for (const std::vector<std::string>& bad :
       {std::vector<std::string>{kHelper, "--errno", "EBADF", "--", "true"},
        std::vector<std::string>{kHelper, "--refuse", "openat", "--", "true"},
        std::vector<std::string>{kHelper, "--errno"}, std::vector<std::string>{kHelper}}) {
    const auto r = test::run(bad);
    EXPECT_EQ(r.exit_code, 125) << bad.back() << ": " << r.err;
  }
  EXPECT_EQ(test::run({kHelper, "--", "/nonexistent/program"}).exit_code, 127);
}

// ---- a real audit under each filter, traced ----------------------------------------------------

// The keys of a report that differ between two audits of the same tree.
void drop_times(json& j) {
  if (j.is_object()) {
    for (const char* key : {"started_at", "finished_at", "duration_ms", "free_bytes", "free_inodes"})
      j.erase(key);
    for (auto& [key, value] : j.items()) drop_times(value);
  } else if (j.is_array()) {
    for (auto& value : j) drop_times(value);
  }
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

bool has(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }

// " = -1 EPERM (" or " = -1 ENOSYS (" at the end of a traced call that failed so.
std::string failed_with(int code) {
  return std::string(" = -1 ") + (code == EPERM ? "EPERM" : code == ENOSYS ? "ENOSYS" : "E?") +
         " (";
}

// A foreign root (--root) whose passwd names the owner of a namespace of 20 backing files
// (copies of a real JDK 17 region, named after pids that cannot exist), audited under each
// filter with strace watching openat2, openat and io_uring. Where openat2 is refused, every
// openat2 fails with the filter's errno (the probe), the root is walked component by component
// without following links, each backing file is opened by openat with O_NOFOLLOW, and no ring
// is made (a batch would open files with openat2 inside io_uring, which a seccomp filter does
// not see). Where io_uring alone is refused, each io_uring_setup fails and every file is opened
// by openat2 refusing links and mounts. Where both work, the files are opened through the ring.
// The reports are the same in every case but for the times.
// The openat2 probe's refusal branch runs only where openat2 is refused, so the probe's own
// test (Openat2Probe.SaysWhatTheKernelSays, in beneath_posix_test.cpp) is run again, in the
// system tests' executable beside this one, under the filter: openat2 refused with EPERM
// (Docker's and containerd's profiles) and with ENOSYS (an old kernel, some profiles). There
// the kernel's answer is the refusal, and the probe must say "not available".
TEST(Openat2Probe, SaysRefusedWhereASeccompFilterRefusesOpenat2) {
  char self[4096] = {};
  const ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
  ASSERT_GT(n, 0);
  const std::string self_path(self, static_cast<std::size_t>(n));
  const std::string system_tests =
      self_path.substr(0, self_path.rfind('/') + 1) + "hsperfguard_system_tests";
  for (const Filter& f : {Filter{"openat2", EPERM}, Filter{"openat2", ENOSYS}}) {
    SCOPED_TRACE(f.name());
    const auto r = test::run(with_prefix(
        f.prefix(), {system_tests, "--gtest_filter=Openat2Probe.SaysWhatTheKernelSays",
                     "--gtest_color=no"}));
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("[  PASSED  ] 1 test."), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("SKIPPED"), std::string::npos) << r.out;
  }
}

TEST(Fallbacks, AuditWhereOpenat2OrIoUringIsRefusedTakesTheFallbacksAndReportsTheSame) {
  if (!test::is_root()) GTEST_SKIP() << "needs root (the namespace belongs to another user)";
  if (!test::have_program("strace")) GTEST_SKIP() << "needs strace to see the system calls";
  ScratchDir scratch;
  const std::string root = scratch / "root";
  const std::string ns = root + "/tmp/hsperfdata_app";
  for (const std::string& d : {root, root + "/etc", root + "/tmp", ns}) {
    ASSERT_EQ(::mkdir(d.c_str(), 0755), 0) << d;
  }
  ASSERT_EQ(::chmod((root + "/tmp").c_str(), 01777), 0);
  test::write_file(root + "/etc/passwd", test::to_bytes("root:x:0:0::/root:/bin/sh\n"
                                                        "app:x:4242:4242::/home/app:/bin/sh\n"));
  const auto region = test::read_file(test::source_path("tests/data/jdk17-default.hsperf"));
  std::vector<std::string> names;
  for (int i = 0; i < 20; ++i) {
    names.push_back(std::to_string(3000001 + i));  // beyond any pid_max: never a live JVM
    const std::string file = ns + "/" + names.back();
    test::write_file(file, region);
    ASSERT_EQ(::chown(file.c_str(), 4242, 4242), 0);
    ASSERT_EQ(::chmod(file.c_str(), 0600), 0);
  }
  ASSERT_EQ(::chown(ns.c_str(), 4242, 4242), 0);

  json first;
  for (const Filter& f : {Filter{}, Filter{"both", EPERM}, Filter{"both", ENOSYS},
                          Filter{"io_uring", EPERM}, Filter{"openat2", EPERM}}) {
    SCOPED_TRACE(f.name());
    const std::string trace_file = scratch / "trace";
    const std::string report_file = scratch / "report.json";
    const auto r = test::run(with_prefix(
        f.prefix(),
        {"env", test::traced_asan_options(), "strace", "-f", "-qq", "-o", trace_file, "-e",
         "trace=openat,openat2,io_uring_setup,io_uring_enter", test::tool_path(), "audit", "--root",
         root, "--format", "json", "--output", report_file}));
    ASSERT_EQ(r.exit_code, 0) << r.err;  // its findings (the names are not pids) are low
    const auto bytes = test::read_file(trace_file);
    const std::vector<std::string> trace =
        lines_of(std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
    const auto report_bytes = test::read_file(report_file);
    json report = json::parse(report_bytes.begin(), report_bytes.end());
    EXPECT_EQ(report["summary"]["files"], 20) << report["summary"].dump();
    EXPECT_EQ(report["namespaces"][0]["user"], "app") << "the root's passwd was read";

    int openat2_calls = 0, setups = 0, enters = 0, walked_etc = 0;
    std::vector<std::string> opened_by_openat, opened_by_openat2;
    for (const std::string& l : trace) {
      if (has(l, "openat2(")) {
        ++openat2_calls;
        if (f.openat2() != 0) {
          EXPECT_TRUE(has(l, failed_with(f.openat2()))) << l;
        }
      }
      if (has(l, "io_uring_setup(")) {
        ++setups;
        if (f.io_uring() != 0) {
          EXPECT_TRUE(has(l, failed_with(f.io_uring()))) << l;
        }
      }
      if (has(l, "io_uring_enter(")) ++enters;
      if (has(l, "openat(") && has(l, "\"etc\", ") && has(l, "O_PATH") && has(l, "O_NOFOLLOW")) {
        ++walked_etc;
      }
      for (const std::string& name : names) {
        if (!has(l, "\"" + name + "\", ")) continue;
        if (has(l, "openat2(")) {
          EXPECT_TRUE(has(l, "RESOLVE_NO_XDEV") && has(l, "RESOLVE_NO_SYMLINKS")) << l;
          opened_by_openat2.push_back(name);
        } else if (has(l, "openat(")) {
          EXPECT_TRUE(has(l, "O_NOFOLLOW")) << l;
          opened_by_openat.push_back(name);
        }
      }
    }
    EXPECT_GE(openat2_calls, 1) << "the probe asks at least once";
    if (f.openat2() != 0) {
      EXPECT_EQ(enters, 0) << "a ring was used where openat2 is refused";
      EXPECT_GE(walked_etc, 1) << "the root's etc was not walked to without following links";
      EXPECT_EQ(opened_by_openat, names) << "each file opened once, lstat'ed first";
      EXPECT_TRUE(opened_by_openat2.empty());
    } else if (f.io_uring() != 0) {
      EXPECT_GE(setups, 1) << "io_uring was never asked for";
      EXPECT_EQ(enters, 0);
      EXPECT_EQ(opened_by_openat2, names) << "each file opened once, by openat2";
      EXPECT_TRUE(opened_by_openat.empty());
    } else {
      EXPECT_GE(setups, 1);
      EXPECT_GE(enters, 1) << "the files were not opened through the ring";
      EXPECT_TRUE(opened_by_openat.empty());
      EXPECT_TRUE(opened_by_openat2.empty()) << "opened one at a time where batches work";
    }
    drop_times(report);
    if (first.is_null()) {
      first = std::move(report);
    } else {
      EXPECT_EQ(report, first) << "the report differs from the unfiltered run's";
    }
  }
}

}  // namespace
}  // namespace hsperfguard
