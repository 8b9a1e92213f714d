#pragma once
/// A recorded memory snapshot as a run of the project (issue 8): one event per trace entry of one
/// device, the device memory after each (the trace replayed backwards from the final segments,
/// replayTrace), each pool with the captured graph it belongs to where the file tells
/// (summarizePools), and each block's owner the stack that allocated it. Stored like a simulated
/// run, a snapshot is stepped in the Runtime view, drawn per pool in the Memory view and compared
/// with a simulated run of the same model in the Compare view.
#include "engine/runtime/memory_timeline.h"
#include "engine/runtime/simulator.h"
#include "engine/snapshot/memory_snapshot.h"

#include <string_view>
#include <vector>

namespace engine::snapshot {

struct SnapshotRun {
    runtime::Simulation sim;
    runtime::MemoryTimeline timeline;
};

/// Whether `head`, the first bytes of a pickle file, begins a memory snapshot rather than some other
/// pickle (a TorchAir compiled_module): the top-level dict's `segments` key, or for the old bare
/// list form a segment dict's `segment_type` key, and no TorchAir cache class. Pass the first few
/// KiB: the keys come first.
bool looksLikeSnapshot(std::string_view head);

/// The devices a snapshot has something for (a segment or a trace entry), ascending.
std::vector<int> snapshotDevices(const Snapshot& snapshot);

/// Device `device` of `snapshot` as a run. A device without a trace is one event: the final state.
/// `sim.scenarioPath` is the snapshot's path, `sim.scenarioName` "memory snapshot <file>, device N".
Result<SnapshotRun> snapshotAsRun(const Snapshot& snapshot, int device);

} // namespace engine::snapshot
