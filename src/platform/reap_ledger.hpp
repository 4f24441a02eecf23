// The platform-neutral half of executing a reap plan (execute_plan in platform/*/reap_*.cpp):
// one record per removal, in plan order; settling a record (serialised, with the on_action
// callback); the write-ahead hand-off to the journal; stopping on a signal or the deadline;
// the work of a root (each namespace's items, its attach files) shared between acting threads.
// The platforms open, compare, lock and unlink; the ledger only keeps the books.
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "platform/reap.hpp"

namespace hsperfguard::platform {

class ExecutionLedger {
 public:
  // The items of one namespace (its files, then its directory), in plan order.
  struct Batch {
    std::optional<std::size_t> ns;  // Plan::namespaces index
    std::vector<std::size_t> items;
  };
  // A namespace's files come in batches of at most kFilesPerBatch, so that the acting threads
  // share a namespace as they share namespaces (a reap in parts acts on one namespace's part
  // at a time); its directory comes in a batch of `then`, once every file batch is done.
  struct RootWork {
    std::vector<Batch> namespaces;
    std::vector<Batch> then;          // the namespaces' directories, after all of `namespaces`
    std::vector<std::size_t> attach;  // attach files of the temp dir itself
  };
  static constexpr std::size_t kFilesPerBatch = 256;
  // Hands out the next batch to an acting thread; null when all are taken.
  using NextBatch = std::function<const Batch*()>;

  ExecutionLedger(const Plan& plan, const ExecuteOptions& options, ExecutionResult& result);
  ExecutionLedger(const ExecutionLedger&) = delete;
  ExecutionLedger& operator=(const ExecutionLedger&) = delete;

  // Makes a not_attempted record per removal, calls `run_root` for each root with removals,
  // then says why the records never reached were not attempted (not-reached, deadline,
  // interrupted, journal-failed).
  void run(const std::function<void(const RootPlan&, const RootWork&)>& run_root);

  // Runs `worker` on up to options.max_threads threads (this one included); each worker takes
  // batches from its NextBatch until there are none left: every batch of work.namespaces, then,
  // once all of those are done, every batch of work.then.
  void share(const RootWork& work, const std::function<void(const NextBatch&)>& worker) const;

  void settle(std::size_t item, ReapOutcome outcome, const char* detail,
              std::optional<ObservationError> error = std::nullopt);
  // Called when an item passed every check, right before its unlink: false (the journal
  // could not take it) halts the run, and the item is not attempted.
  bool write_ahead(std::size_t item);
  // Every removal of the root fails with `e` (its temp dir is not what was judged).
  void fail_root(const RootPlan& root, const ObservationError& e, const char* detail);
  void record_error(const ObservationError& e);
  // True once the run must stop (a signal, the deadline, a journal failure).
  bool halted();

  const Plan& plan() const { return plan_; }

 private:
  void settle_locked(std::size_t item, ReapOutcome outcome, const char* detail,
                     std::optional<ObservationError> error);
  void halt(const char* why);

  static constexpr std::size_t kNoSlot = static_cast<std::size_t>(-1);
  const Plan& plan_;
  const ExecuteOptions& options_;
  ExecutionResult& result_;
  std::vector<std::size_t> slot_of_;
  std::mutex callback_mutex_;
  std::mutex halt_mutex_;
  std::atomic<bool> stopped_{false};
  std::string halted_reason_;
};

}  // namespace hsperfguard::platform
