#pragma once
/// The facts a TORCH_TRACE of the same run adds to a memory snapshot's story
/// (engine/snapshot/snapshot_story.h): which compile id each generated Inductor module is (its
/// inductor_output_code record's filename) and when each CUDA graph was recorded (the runtime
/// CUDAGraphNode.record chromium spans, on the clock of the snapshot's time_us).
#include "engine/readers/torch_trace.h"
#include "engine/snapshot/snapshot_story.h"

#include <vector>

namespace engine::ingest {

/// From one or more trace logs (a TORCH_TRACE folder holds one per rank); `source` names them.
snapshot::SnapshotHints snapshotHints(const std::vector<readers::trace::TorchTrace>& traces);

} // namespace engine::ingest
