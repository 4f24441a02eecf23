// Helpers for tests: a private scratch directory, running the binary, small JVMs.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <string>
#include <vector>

namespace hsperfguard::test {

// A fresh directory under the system temp dir, removed (recursively) on destruction.
class ScratchDir {
 public:
  ScratchDir();
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::string& path() const { return path_; }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
  long max_rss_kb = 0;  // POSIX: the largest resident set of the process and what it waited for
};

// Runs argv (no shell), captures stdout and stderr.
CommandResult run(const std::vector<std::string>& argv);
// The hsperfguard binary under test, as this platform names it (under wine the build host's
// Unix path is mapped to drive Z:). On POSIX, HSPERFGUARD_TEST_BINARY in the environment names
// another build's binary: scripts/sanitize.sh runs the Release build's binary tests against its
// sanitized binary, so that it need not compile them a second time.
std::string tool_path();
// Whether the binary under test carries a sanitizer (built so, or HSPERFGUARD_TEST_SANITIZED set
// beside HSPERFGUARD_TEST_BINARY): its shadow memory makes a bound on peak memory meaningless.
bool tool_sanitized();
// Runs the hsperfguard binary under test.
CommandResult run_tool(std::vector<std::string> args);

std::vector<std::byte> read_file(const std::string& path);
void write_file(const std::string& path, const std::vector<std::byte>& bytes);
std::vector<std::byte> to_bytes(const std::string& s);

// A file of the source tree.
std::string source_path(const std::string& relative);
#ifndef _WIN32
// `document` (JSON text) validated against the schema file `schema` of the source tree
// (for example "schemas/ps.schema.json") by tests/support/validate_json.py. POSIX only: under wine a
// Unix program's exit code does not reach the Windows parent, so a Windows build could not
// tell a valid document from an invalid one. The JSON is rendered by the same platform-neutral
// code on both, so the Linux suite's validation covers it.
::testing::AssertionResult schema_valid(const std::string& document, const std::string& schema);
// A shell command that turns the version 2 audit report in `file` into version 1's findings in
// place (schemas/report-2-to-1.jq), for a test that reads each finding's texts as a consumer of
// version 1 did.
std::string report_v1_in_place(const std::string& file);
#endif

bool is_root();
bool have_program(const std::string& name);

#ifndef _WIN32
// The environment entry (for `env`) that lets a sanitizer build of the tool run under strace:
// LeakSanitizer ptraces the process at exit, which a traced process refuses.
std::string traced_asan_options();

// Peak resident memory (KiB) of `hsperfguard args...`, its output thrown away, and its exit
// status in `exit_code`; -1 when it could not be measured. Measured by a python3 that ran it: a
// child's ru_maxrss starts from the memory of the process it was forked from, so a child of
// the test process would count the test's own peak.
long peak_rss_kib(const std::vector<std::string>& args, int* exit_code);

// Runs `script` with sh, as root, in a private mount namespace whose /tmp, /run and /dev are
// fresh tmpfs mounts (/dev with null, zero, full and the fd links), so that whatever the tool
// does to those paths never reaches the host. $H is the binary under test (reachable even
// when the build tree is under the host's /tmp). The script's exit code is the result's.
CommandResult run_in_private_mounts(const std::string& script);

// The capabilities of a systemd unit file's CapabilityBoundingSet= lines, as setpriv names
// them ("setuid", "dac_read_search", ...), in order.
std::vector<std::string> unit_capabilities(const std::string& unit_file);
// setpriv's --bounding-set for `caps`, less `without`: "-all,+setuid,...".
std::string bounding_set(const std::vector<std::string>& caps, const std::string& without = "");
#endif

}  // namespace hsperfguard::test
