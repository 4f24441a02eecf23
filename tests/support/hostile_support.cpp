#include "hostile_support.hpp"

#include <regex>
#include <sstream>
#include <utility>
#include <vector>

namespace hsperfguard::hostile {
namespace {
// Common set-up: a temp dir /tmp/t with nobody's namespace holding one stale file (named
// after a pid that has exited), and helpers the scripts use.
const char* kSetUp = R"SH(
mkdir -p /tmp/t/hsperfdata_nobody && chown nobody /tmp/t/hsperfdata_nobody
sleep 0 & wait $!; STALE=$!
: > /tmp/t/hsperfdata_nobody/$STALE && chown nobody /tmp/t/hsperfdata_nobody/$STALE
stale_left() { [ -e /tmp/t/hsperfdata_nobody/$STALE ] && echo yes || echo no; }
kind() { stat -c %F "$1" 2>/dev/null || echo missing; }
# Runs a command and prints rss_kb=<its peak resident set>. Measured by a process that was
# exec'd from the shell: a child's ru_maxrss starts from the memory of the process it was
# spawned from, so the test process's own peak would otherwise count.
peak_rss() { python3 -c '
import resource, subprocess, sys
rc = subprocess.call(sys.argv[1:])
print("rss_kb=%d" % resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
sys.exit(rc)' "$@"; }
)SH";

}  // namespace

bool can_run() { return test::is_root() && test::have_program("unshare"); }

Outcome run_case(const std::string& script) {
  Outcome o;
  o.result = test::run_in_private_mounts(std::string(kSetUp) + script);
  // "a=1 b=two words c=3": each value runs to the next " key=" (keys are [a-z0-9_]).
  static const std::regex key(R"((?:^| )([a-z_][a-z0-9_]*)=)");
  std::istringstream lines(o.result.out);
  std::string line;
  while (std::getline(lines, line)) {
    std::vector<std::pair<std::string, std::size_t>> keys;  // name, where its value starts
    std::vector<std::size_t> starts;                         // where each " key=" begins
    for (auto it = std::sregex_iterator(line.begin(), line.end(), key); it != std::sregex_iterator(); ++it) {
      keys.emplace_back((*it)[1].str(), static_cast<std::size_t>(it->position() + it->length()));
      starts.push_back(static_cast<std::size_t>(it->position()));
    }
    for (std::size_t k = 0; k < keys.size(); ++k) {
      const std::size_t end = k + 1 < keys.size() ? starts[k + 1] : line.size();
      o.values[keys[k].first] = line.substr(keys[k].second, end - keys[k].second);
    }
  }
  return o;
}

std::string in_own_pid_namespace(const std::string& body) {
  return R"SH(
cat > /tmp/inner.sh <<'INNER'
H=/proc/$$/fd/9
PIDS=""
trap 'for p in $PIDS; do kill $p 2>/dev/null; done' EXIT
)SH" + body + R"SH(
INNER
unshare --pid --fork --mount-proc sh /tmp/inner.sh
)SH";
}

}  // namespace hsperfguard::hostile
