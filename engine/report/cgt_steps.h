#pragma once
/// A CUDA Graph Trees run as the sequence of what a memory snapshot can show of it: its warm-ups and
/// recordings, each of one compiled graph (Dynamo compile id), in order. A simulated run has them
/// from its calls; a recorded one (a real snapshot imported with the TORCH_TRACE of the same run)
/// from its owners' names, "compile 0/1 warm-up 1", "compile 0/1 recording 2"
/// (engine/snapshot/snapshot_story.h), in the order of their first allocation. Replays allocate
/// nothing, so no snapshot shows them: the comparison lines up the steps both sides have and says
/// so (docs/cuda-graph-trees.md §9, docs/snapshots.md).
#include "engine/runtime/simulator.h"

#include <optional>
#include <string>
#include <vector>

namespace engine::report {

struct CgtStep {
    std::string compileId; ///< "0/1"; "unknown" when the recording does not tell it
    std::string action; ///< "warmup" or "record"
    int call = -1; ///< simulated: the call that made it; recorded: -1 (a snapshot has no calls)
    int firstEvent = -1; ///< simulated: the call's first event; recorded: -1 (its memory timeline has it)
};

/// The run's warm-ups and recordings in order (empty for a run with neither, and for a TorchAir run).
std::vector<CgtStep> cgtSteps(const runtime::Simulation& sim);

struct CgtStepRow {
    std::optional<CgtStep> simulated;
    std::optional<CgtStep> recorded;
    bool agree = false; ///< both present, same action and compile id
};

/// The two runs' steps side by side, in order (the k-th of one beside the k-th of the other).
std::vector<CgtStepRow> compareCgtSteps(const runtime::Simulation& simulated, const runtime::Simulation& recorded);

} // namespace engine::report
