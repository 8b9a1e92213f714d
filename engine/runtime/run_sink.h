#pragma once
/// A run delivered step by step rather than whole. A long recorded trace (a memory snapshot of
/// millions of entries) is streamed this way straight into the project database
/// (storage::RunStreamWriter), so neither its events nor its memory timeline are ever held in
/// memory at once; engine::snapshot::snapshotAsRun collects the same stream into a Simulation and a
/// MemoryTimeline for the callers that want a run in memory.
///
/// Order of calls: begin, then for every step its owners (those not delivered before) and the step
/// itself, then end. Any call returning an error stops the stream with that error.
#include "engine/core/result.h"
#include "engine/runtime/memory_timeline.h"
#include "engine/runtime/simulator.h"

#include <cstdint>
#include <string>
#include <vector>

namespace engine::runtime {

/// What is known only once every step has been delivered.
struct RunTotals {
    int events = 0;
    /// Device-wide high-water marks over the whole run, also between steps when a step stands for
    /// several recorded entries.
    uint64_t peakReserved = 0, peakAllocated = 0;
    /// Warnings found while streaming, to be added to the header's.
    std::vector<std::string> warnings;
};

class RunSink {
public:
    virtual ~RunSink() = default;
    /// Once, first: the run without events and owners (names, profile, its origin: a recording's
    /// writer, allocator settings and whether the capacity is known; pools with their graphs and
    /// peaks, warnings known before streaming).
    virtual Result<void> begin(const Simulation& header) = 0;
    /// Owner `id` (0, 1, 2, ... in order), before the first delta or keyframe whose blocks name it.
    virtual Result<void> owner(memory::OwnerId id, const OwnerInfo& owner) = 0;
    /// Step `event.index` (0, 1, 2, ... in order; Event::memory is empty), what it changed in the
    /// memory (`delta.event == event.index`; may be empty), and the whole state after it when the
    /// timeline keeps one there (KeyframeRule), else null. The first step always has a keyframe.
    virtual Result<void> step(const Event& event, const MemoryDelta& delta, const MemoryState* keyframe) = 0;
    /// Once, last.
    virtual Result<void> end(const RunTotals& totals) = 0;
};

} // namespace engine::runtime
