#pragma once
/// The facts a TORCH_TRACE of the same run adds to a memory snapshot's story
/// (engine/snapshot/snapshot_story.h): which compile id each generated Inductor module is (its
/// inductor_output_code record's filename) and when each CUDA graph was recorded (the runtime
/// CUDAGraphNode.record chromium spans, on the clock of the snapshot's time_us).
#include "engine/readers/torch_trace.h"
#include "engine/snapshot/snapshot_story.h"

#include <cstdint>
#include <string>
#include <vector>

namespace engine::ingest {

/// From one or more trace logs (a TORCH_TRACE folder holds one per rank); `source` names them.
snapshot::SnapshotHints snapshotHints(const std::vector<readers::trace::TorchTrace>& traces);

/// Adds `from` (another trace's hints) to `into`: sources joined with ", ", modules and spans
/// merged, spans kept in begin order.
void mergeHints(snapshot::SnapshotHints& into, const snapshot::SnapshotHints& from);

/// What a snapshot offers to tell whether a trace is of the same run.
struct SnapshotRunMarks {
    std::vector<std::string> modules; ///< generated Inductor modules its frames name (file names), sorted
    int64_t firstUs = 0, lastUs = 0; ///< its trace entries' time_us range; 0, 0 when none has a time
};
SnapshotRunMarks snapshotRunMarks(const snapshot::Snapshot& snapshot);

/// Why `hints` are of the same run as the snapshot: "it names N of the snapshot's M generated
/// modules (c62wrtc....py, ...)" or "its CUDAGraphNode.record spans fall inside the snapshot's
/// time range"; "" when neither holds (another run: its hints must not be used).
std::string sameRunEvidence(const snapshot::SnapshotHints& hints, const SnapshotRunMarks& marks);

} // namespace engine::ingest
