#pragma once
/// The events of a run worth jumping to, by kind (issue 21): captures, recaptures, replays, input
/// updates, compiles, hazards, fallbacks, out-of-memory, eager calls, call starts and the two memory
/// peaks. The stepper's navigator goes to the next or previous one of a kind; the slider and the
/// memory chart draw them as ticks.
///
/// Simulated runs have every kind their events carry. Recorded runs (RunOriginKind::Recorded, one
/// EventKind::MemoryTrace event per trace entry or window of entries) have no calls, captures or
/// hazards: their marks are the two peaks and the out-of-memory entries, told by the event's
/// summary (an entry's summary starts with "oom"; a window's names its first oom as ": oom:").
/// Segment allocs and frees are not marked: a window's summary only counts them, so the step that
/// holds one is not reliably known.
///
/// Thread contract: an EventMarks is built in one call and immutable afterwards.
#include "engine/runtime/simulator.h"

#include <array>
#include <vector>

namespace engine::report {

enum class MarkKind {
    Capture, ///< every Capture event (new keys and recaptures)
    Recapture, ///< the Capture events of calls whose CallRecord::action is Recapture
    Replay,
    InputUpdate,
    Compile,
    Hazard, ///< where each of Simulation::hazards is shown (see addHazards in the .cpp), each event once
    Fallback,
    OutOfMemory,
    Eager,
    CallStart, ///< the first event of each call
    PeakReserved, ///< the event of the highest deviceReserved (the first if tied)
    PeakAllocated, ///< the event of the highest deviceAllocated (the first if tied)
};
constexpr int kMarkKinds = int(MarkKind::PeakAllocated) + 1;

const char* markKindName(MarkKind k); ///< "capture", "recapture", ..., "peak_reserved"
const char* markKindLabel(MarkKind k); ///< "Capture", "Recapture", ..., "Peak reserved": for combos and tooltips
/// Every kind, in the order above (the order combos list them).
const std::array<MarkKind, kMarkKinds>& allMarkKinds();

/// Sorted, 0-based event indices per kind.
struct EventMarks {
    std::array<std::vector<int>, kMarkKinds> events;

    const std::vector<int>& of(MarkKind k) const { return events[size_t(k)]; }
    int count(MarkKind k) const { return int(of(k).size()); }
    /// The first event of kind `k` after `from`, -1 when none (binary search).
    int next(MarkKind k, int from) const;
    /// The last event of kind `k` before `from`, -1 when none.
    int previous(MarkKind k, int from) const;
    /// How many events of kind `k` lie in [first, last].
    int countIn(MarkKind k, int first, int last) const;
};

/// The marks of `sim`'s events: one pass over them, O(events).
EventMarks eventMarks(const engine::runtime::Simulation& sim);

} // namespace engine::report
