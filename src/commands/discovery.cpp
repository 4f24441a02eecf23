#include "commands/discovery.hpp"

#include <iterator>
#include <utility>

#include "commands/environment.hpp"

namespace hsperfguard {

void add_further_temp_dirs(Environment& env, const DiscoverOptions& options, std::vector<RootSpec>& specs,
                           const std::vector<JvmProcessFacts>& jvms, const std::optional<std::string>& user) {
  std::vector<RootSpec> further = alt_temp_dir_roots(options, specs, jvms);
  // Asked only where it is wanted: observing them opens directories.
  if (host_view(options)) {
    std::vector<RootSpec> accounts =
        account_temp_dir_roots(options, specs, env.account_temp_dirs(options.host_temp_dir, jvms), user);
    further.insert(further.end(), std::make_move_iterator(accounts.begin()), std::make_move_iterator(accounts.end()));
  }
  const auto after_host = specs.empty() ? specs.end() : std::next(specs.begin());
  specs.insert(after_host, std::make_move_iterator(further.begin()), std::make_move_iterator(further.end()));
}

DiscoverOptions discover_options(Environment& env, std::optional<std::string> tmpdir,
                                 std::optional<std::string> root, bool containers,
                                 std::optional<std::int32_t> container_pid,
                                 const std::optional<std::string>& user) {
  DiscoverOptions discover;
  discover.tmpdir = std::move(tmpdir);
  discover.root = std::move(root);
  discover.host_temp_dir = env.default_temp_dir();
  const bool as_root = env.host().euid == 0;
  discover.containers = containers && as_root;
  discover.container_pid = container_pid;
  // The default run looks into every container: not root, they are not looked at, and the
  // run says so. A run named to one temp dir (--tmpdir, --root, --container) has none to scan.
  discover.containers_need_root =
      containers && !as_root && !discover.tmpdir && !discover.root && !container_pid && !user;
  return discover;
}

std::optional<std::string> container_pid_problem(Environment& env, std::optional<std::int32_t> container_pid) {
  if (!container_pid) return std::nullopt;
  // A pid no process has names no container: a mistyped option, like a --tmpdir that does
  // not exist, not a run that could not look (a process we may not signal still exists).
  if (env.observe_process(*container_pid).existence != ProcessFacts::Existence::gone) return std::nullopt;
  return "--container " + std::to_string(*container_pid) + ": no such process";
}

std::optional<RootSchedule::Turn> RootSchedule::next() {
  current_.reset();
  if (run_.reached() != nullptr) return std::nullopt;
  if (next_ < count_) {
    const std::size_t index = next_++;
    current_ = index;
    // The roots not yet begun, and those waiting for their second turn.
    return Turn{index, index == 0 ? run_ : run_.share(count_ - index + deferred_.size())};
  }
  second_pass_ = true;
  if (next_deferred_ >= deferred_.size()) return std::nullopt;
  const std::size_t left = deferred_.size() - next_deferred_;
  current_ = deferred_[next_deferred_++];
  return Turn{*current_, run_.share(left)};
}

bool RootSchedule::again() {
  if (!current_ || *current_ == 0 || second_pass_ || run_.reached() != nullptr) return false;
  deferred_.push_back(*current_);
  return true;
}

}  // namespace hsperfguard
