// The run's front-end as the executors take it: --frontend resolved once,
// before loading, from the front-end registry (partitioners/frontends.txt) by
// the program above the kernel (rundb/frontends.cpp, ResolvedFrontend), and
// passed down. The kernel decides on these fields, never on a front-end's
// name: it is given the front-ends' properties, not their names (the name
// travels only to be reported).
//
// Thread safety: a plain value, filled before the run and only read during it.
#pragma once

#include <cstdint>
#include <string>

#include "engine/exec/thread_reorder.h"  // ThreadAssignFn

namespace ccb {

struct FrontendSpec {
  // The registry's executor field.
  enum class Executor : uint8_t {
    kOnline,  // engine/exec/online_executor.h: each worker replays its own buffer
    kBundle,  // engine/exec/bundle_executor.h: a front-end plans each batch
  };
  // How an online worker picks its next request (the online front-ends, which
  // the online executor builds itself).
  enum class OnlineOrder : uint8_t {
    kBuffer,         // its buffer in order, cycling (no front-end)
    kTsDefer,        // TsDEFER's pick from its buffer (TSKD[CC], engine/exec/tsdefer.h, cfg.tsdefer)
    kThreadReorder,  // Ding et al.'s thread-aware batches over all buffers (engine/exec/thread_reorder.h)
  };

  // Where a front-end's input partitioning (BundlePlan::input_partition_ns)
  // counts (--partition_time, rundb/frontends.cpp).
  enum class PartitionTime : uint8_t {
    kOutside,  // computed outside the measured interval, as the TSKD paper measures (§4: the
               // partitioner's plan initialises the buffers; §6: TSgen's overhead as a ratio to it)
    kInside,   // inside it, serially on the coordinator (and charged by the sim's analysis model)
  };

  std::string name;  // --frontend as given, for reports and messages only (the bundle executor's "frontend" object)
  Executor executor = Executor::kOnline;
  OnlineOrder online_order = OnlineOrder::kBuffer;  // with kOnline
  ThreadAssignFn thread_assign = nullptr;  // with kThreadReorder: the thread-aware policy (the program's)
  uint32_t batch_size = 0;                 // with kBundle: transactions per batch (--batch_size)
  PartitionTime partition_time = PartitionTime::kOutside;  // with kBundle
  // The registry's owner-threads field: whether a protocol that keeps owner
  // threads in the online executor (HasLockService, engine/txn/protocol.h)
  // runs with this front-end (the program refuses the pair otherwise).
  bool owner_threads = true;
};

}  // namespace ccb
