#include "platform/reap_ledger.hpp"

#include <algorithm>
#include <system_error>
#include <thread>

#include "platform/host.hpp"

namespace hsperfguard::platform {

ExecutionLedger::ExecutionLedger(const Plan& plan, const ExecuteOptions& options, ExecutionResult& result)
    : plan_(plan), options_(options), result_(result) {}

void ExecutionLedger::run(const std::function<void(const RootPlan&, const RootWork&)>& run_root) {
  slot_of_.assign(plan_.items.size(), kNoSlot);
  const auto first = plan_.items.begin() + static_cast<std::ptrdiff_t>(std::min(options_.first_item, plan_.items.size()));
  result_.actions.reserve(static_cast<std::size_t>(std::count_if(
      first, plan_.items.end(), [](const PlanItem& item) { return item.action == ReapAction::remove; })));
  for (std::size_t i = options_.first_item; i < plan_.items.size(); ++i) {
    if (plan_.items[i].action != ReapAction::remove) continue;
    slot_of_[i] = result_.actions.size();
    ReapActionRecord& r = result_.actions.emplace_back();
    r.item = i;
    r.outcome = ReapOutcome::not_attempted;
  }
  if (result_.actions.empty()) return;

  for (const RootPlan& root : plan_.roots) {
    RootWork work;
    for (std::size_t i = options_.first_item; i < plan_.items.size(); ++i) {
      const PlanItem& item = plan_.items[i];
      if (item.root != root.root || item.action != ReapAction::remove) continue;
      if (item.subject == ReapSubject::attach_file) {
        work.attach.push_back(i);
      } else if (item.subject == ReapSubject::namespace_dir) {
        work.then.push_back(Batch{item.ns, {i}});
      } else if (work.namespaces.empty() || work.namespaces.back().ns != item.ns ||
                 work.namespaces.back().items.size() >= kFilesPerBatch) {
        work.namespaces.push_back(Batch{item.ns, {i}});
      } else {
        work.namespaces.back().items.push_back(i);
      }
    }
    if (!work.namespaces.empty() || !work.then.empty() || !work.attach.empty()) run_root(root, work);
  }
  if (halted_reason_ == "deadline") result_.deadline_reached = true;
  if (halted_reason_ == "interrupted") result_.interrupted = true;
  for (auto& r : result_.actions) {
    if (r.outcome == ReapOutcome::not_attempted && r.detail.empty()) {
      r.detail = halted_reason_.empty() ? "not-reached" : halted_reason_;
    }
  }
}

void ExecutionLedger::share(const RootWork& work, const std::function<void(const NextBatch&)>& worker) const {
  for (const std::vector<Batch>* batches : {&work.namespaces, &work.then}) {
    std::atomic<std::size_t> next{0};
    const NextBatch take = [&]() -> const Batch* {
      const std::size_t b = next.fetch_add(1, std::memory_order_relaxed);
      return b < batches->size() ? &(*batches)[b] : nullptr;
    };
    const unsigned threads = static_cast<unsigned>(
        std::min<std::size_t>({std::max(1u, options_.max_threads), batches->size(),
                               std::max(1u, std::thread::hardware_concurrency())}));
    std::vector<std::thread> helpers;
    for (unsigned t = 1; t < threads; ++t) {
      try {
        helpers.emplace_back([&] { worker(take); });
      } catch (const std::system_error&) {
        break;  // no thread: this one does all the work
      }
    }
    worker(take);
    for (auto& t : helpers) t.join();
  }
}

void ExecutionLedger::settle(std::size_t item, ReapOutcome outcome, const char* detail,
                             std::optional<ObservationError> error) {
  std::lock_guard<std::mutex> lock(callback_mutex_);
  settle_locked(item, outcome, detail, std::move(error));
}

void ExecutionLedger::settle_locked(std::size_t item, ReapOutcome outcome, const char* detail,
                                    std::optional<ObservationError> error) {
  if (slot_of_[item] == kNoSlot) return;
  ReapActionRecord& r = result_.actions[slot_of_[item]];
  r.outcome = outcome;
  r.detail = detail;
  r.error = std::move(error);
  r.at_ms = now_epoch_ms();
  if (options_.on_action && outcome != ReapOutcome::not_attempted) options_.on_action(plan_.items[item], r);
}

bool ExecutionLedger::write_ahead(std::size_t item) {
  if (!options_.before_unlink) return true;
  std::lock_guard<std::mutex> lock(callback_mutex_);
  if (options_.before_unlink(plan_.items[item])) return true;
  halt("journal-failed");
  settle_locked(item, ReapOutcome::not_attempted, "journal-failed", std::nullopt);
  return false;
}

void ExecutionLedger::fail_root(const RootPlan& root, const ObservationError& e, const char* detail) {
  record_error(e);
  for (std::size_t i = options_.first_item; i < plan_.items.size(); ++i) {
    if (plan_.items[i].root == root.root && plan_.items[i].action == ReapAction::remove) {
      settle(i, ReapOutcome::failed, detail, e);
    }
  }
}

void ExecutionLedger::record_error(const ObservationError& e) {
  std::lock_guard<std::mutex> lock(callback_mutex_);
  result_.errors.push_back(e);
}

bool ExecutionLedger::halted() {
  if (stopped_.load(std::memory_order_relaxed)) return true;
  if (options_.stop != nullptr && options_.stop->load(std::memory_order_relaxed)) {
    halt("interrupted");
    return true;
  }
  if (options_.deadline && std::chrono::steady_clock::now() >= *options_.deadline) {
    halt("deadline");
    return true;
  }
  return false;
}

void ExecutionLedger::halt(const char* why) {
  std::lock_guard<std::mutex> lock(halt_mutex_);
  if (!stopped_.exchange(true)) halted_reason_ = why;
}

}  // namespace hsperfguard::platform
