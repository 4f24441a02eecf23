// The batch pipeline of observe_temp_root on Linux (observe_posix.cpp): the namespaces of one
// batch of the temp dir's listing entered by worker threads a few ahead of the consumer, each
// staged on the worker that observed it and handed to the consumer in name order.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "model/facts.hpp"
#include "platform/observe.hpp"
#include "platform/posix/observe_namespace_posix.hpp"

namespace hsperfguard::platform {

// One batch of the temp dir's entries, listed: the namespaces (lstat'ed; which of them are
// directories on the temp dir's mount, to be entered) in name order. Attach files go straight
// into the temp root's facts.
struct ListedBatch {
  std::vector<NamespaceFacts> namespaces;
  std::vector<std::size_t> to_enter;
};

// Consumes every namespace of `batch` in order, the namespaces to enter observed by worker
// threads (by the calling thread where options.worker_threads is off or none could start),
// each staged by `stage` and handed to `consume`; `first_index` is the index, among the temp
// dir's namespaces, of the batch's first. Returns the position of the first one that was not
// observed because the run limits were reached, or nullopt when all were. What a worker
// throws is rethrown here when its namespace's turn comes.
std::optional<std::size_t> run_batch_pipeline(ListedBatch& batch, std::size_t first_index,
                                              const Observer& observer,
                                              const ObserveOptions& options, TempRootFacts& facts,
                                              const NamespaceConsumer& consume,
                                              const NamespaceStage& stage, Scratch& main_scratch);

}  // namespace hsperfguard::platform
