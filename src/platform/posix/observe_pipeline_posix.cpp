// The batch pipeline of observe_temp_root on Linux (observe_pipeline_posix.hpp): worker
// threads observe the namespaces of a batch ahead of the consumer, which takes them in order.
#include "platform/posix/observe_pipeline_posix.hpp"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <deque>
#include <exception>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "platform/posix/condition_posix.hpp"

namespace hsperfguard::platform {
namespace {

constexpr unsigned kMaxWorkers = 2;
// How far the workers may observe ahead of the namespace being consumed (judged, written).
constexpr std::size_t kLookahead = 4;

unsigned worker_count(std::size_t work_items) {
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  return static_cast<unsigned>(std::min<std::size_t>({kMaxWorkers, hw, work_items}));
}

// The namespaces of one batch entered by worker threads, shared by an atomic cursor, at most
// kLookahead namespaces ahead of the consumer, which takes them (or their parts) in order on
// the calling thread. A worker runs the stage of each namespace or part it observed, and
// queues at most kQueuedParts parts of one namespace, and parts of the namespaces after the
// one being consumed only while those wait fewer than kQueuedAhead parts in all: a namespace
// of any size, and any number of them, cost a few parts' memory. What a worker throws (out of
// memory, a stage's failure) is rethrown on the calling thread when that namespace's turn
// comes.
class BatchPipeline {
 public:
  BatchPipeline(ListedBatch& batch, std::size_t first_index, const Observer& observer,
                const ObserveOptions& options, TempRootFacts& facts,
                const NamespaceConsumer& consume, const NamespaceStage& stage)
      : batch_(batch),
        first_(first_index),
        observer_(observer),
        options_(options),
        facts_(facts),
        consume_(consume),
        stage_(stage),
        failures_(batch.namespaces.size()),
        ready_(batch.namespaces.size()),
        entered_(batch.namespaces.size(), 0),
        finished_(batch.namespaces.size(), 0),
        skipped_(batch.namespaces.size(), 0) {
    for (const std::size_t n : batch.to_enter) entered_[n] = 1;
  }

  // Consumes every namespace of the batch in order. Returns the position of the first one
  // that was not observed because the run limits were reached, or nullopt when all were.
  std::optional<std::size_t> run(Scratch& main_scratch) {
    start_workers();
    std::optional<std::size_t> stopped_at;
    try {
      for (std::size_t n = 0; n < batch_.namespaces.size(); ++n) {
        if (options_.limits.reached() != nullptr || !consume_namespace(n, main_scratch)) {
          stopped_at = n;
          break;
        }
        batch_.namespaces[n] = NamespaceFacts{};  // its memory went with the consumer
        {
          const std::lock_guard lock(mutex_);
          consumed_ = n + 1;
        }
        changed_.notify_all();
      }
    } catch (...) {
      stop_workers();
      throw;
    }
    stop_workers();
    return stopped_at;
  }

 private:
  // Measured on 100 namespaces of 10,000 stale files (the audit's 1,024-file parts, two
  // workers, two cores): 2 and no bound ahead (what a part of 4,096 files had): 12.3 s, 28 MB;
  // 4 and 4: 9.4 s, 32 MB; 3 and 4: 10.6 s; 4 and 2: 12.6 s; 4 and 0 (no worker stages a
  // later namespace): 16.7 s, 24 MB.
  static constexpr std::size_t kQueuedParts = 4;
  static constexpr std::size_t kQueuedAhead = 4;

  // Under mutex_: whether a worker may queue another staged part of namespace n. The
  // namespace being consumed may always have kQueuedParts waiting (its consumer drains them,
  // so its worker never waits on the others); the later ones share kQueuedAhead parts, so a
  // worker can stage well ahead of the consumer while what waits stays a few parts.
  bool may_queue(std::size_t n) const {
    if (ready_[n].size() >= kQueuedParts) return false;
    if (n <= consumed_) return true;
    std::size_t ahead = 0;
    for (std::size_t m = consumed_ + 1; m < ready_.size() && m < consumed_ + kLookahead; ++m) ahead += ready_[m].size();
    return ahead < kQueuedAhead;
  }

  void start_workers() {
    if (!options_.worker_threads) return;  // consume_namespace enters each itself
    workers_scratch_ = std::vector<Scratch>(worker_count(batch_.to_enter.size()));
    for (auto& scratch : workers_scratch_) {
      try {
        workers_.emplace_back([this, &scratch] { work(scratch); });
      } catch (const std::system_error&) {
        break;
      }
    }
  }

  void stop_workers() {
    {
      const std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    changed_.notify_all();
    for (auto& t : workers_) t.join();
    workers_.clear();
  }

  // A worker: takes the next namespace to enter, once it is near enough to the consumer.
  void work(Scratch& scratch) {
    for (;;) {
      const std::size_t i = next_.fetch_add(1, std::memory_order_relaxed);
      if (i >= batch_.to_enter.size()) break;
      const std::size_t n = batch_.to_enter[i];
      {
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [&] { return stopping_ || n < consumed_ + kLookahead; });
        if (stopping_) break;
        if (options_.limits.reached() != nullptr) {
          skipped_[n] = finished_[n] = 1;
          lock.unlock();
          changed_.notify_all();
          continue;
        }
      }
      enter_for_consumer(n, scratch);
    }
  }

  // On a worker: stage each part, then queue it for the consumer.
  void enter_for_consumer(std::size_t n, Scratch& scratch) {
    const auto queue = [&](NamespaceFacts&& part, bool last) {
      if (stage_) stage_(facts_, first_ + n, part);
      std::unique_lock lock(mutex_);
      changed_.wait(lock, [&] { return stopping_ || may_queue(n); });
      if (stopping_) return false;
      ready_[n].emplace_back(std::move(part), last);
      if (last) finished_[n] = 1;
      lock.unlock();
      changed_.notify_all();
      return true;
    };
    try {
      observer_.enter_namespace(std::move(batch_.namespaces[n]), scratch, queue);
    } catch (...) {
      const std::lock_guard lock(mutex_);
      failures_[n] = std::current_exception();
      finished_[n] = 1;
    }
    changed_.notify_all();
  }

  // On the calling thread: namespace n, staged and consumed. false: it was not entered
  // because the run limits were reached.
  bool consume_namespace(std::size_t n, Scratch& main_scratch) {
    NamespaceFacts& ns = batch_.namespaces[n];
    if (entered_[n] == 0) {
      if (stage_) stage_(facts_, first_ + n, ns);
      consume_(facts_, std::move(ns));
      return true;
    }
    if (workers_.empty()) {
      // No thread could start: observed, staged and consumed here, part by part.
      observer_.enter_namespace(std::move(ns), main_scratch, [&](NamespaceFacts&& part, bool) {
        if (stage_) stage_(facts_, first_ + n, part);
        consume_(facts_, std::move(part));
        return true;
      });
      return true;
    }
    for (;;) {
      NamespaceFacts part;
      bool last = false;
      {
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [&] { return !ready_[n].empty() || finished_[n] != 0; });
        if (ready_[n].empty()) {
          if (failures_[n]) std::rethrow_exception(failures_[n]);
          return skipped_[n] == 0;  // every part was consumed
        }
        part = std::move(ready_[n].front().first);
        last = ready_[n].front().second;
        ready_[n].pop_front();
      }
      changed_.notify_all();
      consume_(facts_, std::move(part));
      if (last) return true;
    }
  }

  ListedBatch& batch_;
  const std::size_t first_;  // the index, among the temp dir's namespaces, of the batch's first
  const Observer& observer_;
  const ObserveOptions& options_;
  TempRootFacts& facts_;
  const NamespaceConsumer& consume_;
  const NamespaceStage& stage_;
  std::vector<std::exception_ptr> failures_;
  // Parts staged and waiting for the consumer, each with whether it is its namespace's last
  // (the stage may have emptied the part's facts).
  std::vector<std::deque<std::pair<NamespaceFacts, bool>>> ready_;
  std::vector<char> entered_, finished_;
  std::vector<char> skipped_;  // not entered: the run limits were reached
  std::mutex mutex_;
  Condition changed_;
  std::size_t consumed_ = 0;
  bool stopping_ = false;
  std::atomic<std::size_t> next_{0};
  std::vector<Scratch> workers_scratch_;
  std::vector<std::thread> workers_;
};

}  // namespace

std::optional<std::size_t> run_batch_pipeline(ListedBatch& batch, std::size_t first_index,
                                              const Observer& observer,
                                              const ObserveOptions& options, TempRootFacts& facts,
                                              const NamespaceConsumer& consume,
                                              const NamespaceStage& stage, Scratch& main_scratch) {
  return BatchPipeline(batch, first_index, observer, options, facts, consume, stage)
      .run(main_scratch);
}

}  // namespace hsperfguard::platform
