#pragma once
/// A recorded memory snapshot as a run of the project (issue 8): one event per trace entry of one
/// device, the device memory after each (the trace replayed backwards from the final segments,
/// replayTrace), each pool with the captured graph it belongs to where the file tells
/// (summarizePools), and each block's owner the stack that allocated it. Stored like a simulated
/// run, a snapshot is stepped in the Runtime view, drawn per pool in the Memory view and compared
/// with a simulated run of the same model in the Compare view.
#include "engine/runtime/memory_timeline.h"
#include "engine/runtime/run_sink.h"
#include "engine/runtime/simulator.h"
#include "engine/snapshot/memory_snapshot.h"

#include <functional>
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

struct SnapshotHints; // snapshot_story.h

struct SnapshotRunOptions {
    /// At most this many steps. A longer trace is cut into windows of equal numbers of consecutive
    /// entries, one step each: its memory is the state after the window's last entry, its summary
    /// counts the window's entries by action, and the run's peaks still see every entry.
    size_t maxSteps = 100000;
    /// (done, total) work units of the replay, every few thousand entries; false cancels (the stream
    /// stops with ErrorCode::Cancelled).
    std::function<bool(uint64_t done, uint64_t total)> progress;
    /// summarizePools(snapshot), when the caller has it already (one per device of the file).
    const std::vector<PoolSummary>* pools = nullptr;
    /// Facts from a TORCH_TRACE of the same run for the owners' names (snapshot_story.h); may be null.
    const SnapshotHints* hints = nullptr;
    /// The device's story when the caller told it already (summarizePools' `stories`, with these
    /// hints): not told again. Null: told here.
    const SnapshotStory* story = nullptr;
};

/// Device `device` of `snapshot` as a run, delivered step by step to `sink`: the header (pools with
/// their captured graph and peaks), then per step its new owners, the event and the memory's
/// changes with a keyframe where KeyframeRule keeps one, then the totals. A device without a trace
/// is one step: the final state. The header's `scenarioPath` is the snapshot's path, its
/// `scenarioName` "memory snapshot <file>, device N". Memory held beyond the snapshot itself: the
/// replay's state and one window's changes, whatever the trace's length.
Result<void> streamSnapshotRun(
    const Snapshot& snapshot, int device, runtime::RunSink& sink, const SnapshotRunOptions& options = {});

/// The same stream collected into memory.
Result<SnapshotRun> snapshotAsRun(const Snapshot& snapshot, int device, const SnapshotRunOptions& options = {});

} // namespace engine::snapshot
