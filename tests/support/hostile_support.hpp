// The harness of the hostile-input tests (hostile_*_posix_test.cpp): a case is a shell script
// run as root in a private mount namespace with its own /tmp, /run and /dev
// (test::run_in_private_mounts), after a common set-up; the script prints key=value lines and
// the test asserts on them.
#pragma once

#include <map>
#include <string>

#include "test_support.hpp"

namespace hsperfguard::hostile {

struct Outcome {
  test::CommandResult result;
  std::map<std::string, std::string> values;  // the script's key=value lines (the last wins)
  std::string at(const std::string& key) const {
    const auto it = values.find(key);
    return it == values.end() ? "<not printed>" : it->second;
  }
};

// Root and unshare: what every case needs.
bool can_run();

// Runs `script` after the common set-up: a temp dir /tmp/t with nobody's namespace holding
// one stale file ($STALE, named after a pid that has exited), $H the binary, and the shell
// functions stale_left, kind PATH and peak_rss COMMAND... (prints rss_kb=).
Outcome run_case(const std::string& script);

// A script for run_case that runs `body` in a pid namespace of its own with its own /proc (so
// that the container scan sees only the case's processes): $H is the binary there, and every
// pid the body adds to $PIDS is killed when it ends.
std::string in_own_pid_namespace(const std::string& body);

}  // namespace hsperfguard::hostile

#define SKIP_UNLESS_ROOT() \
  if (!::hsperfguard::hostile::can_run()) \
  GTEST_SKIP() << "needs root and unshare (runs in a private mount namespace)"
