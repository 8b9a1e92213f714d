#include "engine/report/event_marks.h"

#include <algorithm>

namespace engine::report {

using runtime::EventKind;

namespace {
struct KindNames {
    const char* name;
    const char* label;
};
constexpr KindNames kNames[kMarkKinds] = {
    { "capture", "Capture" },
    { "recapture", "Recapture" },
    { "replay", "Replay" },
    { "input_update", "Input update" },
    { "compile", "Compile" },
    { "hazard", "Hazard" },
    { "fallback", "Fallback" },
    { "out_of_memory", "Out of memory" },
    { "eager", "Eager" },
    { "call_start", "Call start" },
    { "peak_reserved", "Peak reserved" },
    { "peak_allocated", "Peak allocated" },
};

/// A recorded step that holds an out-of-memory entry: a single entry's summary begins with the
/// action's name; a window's summary quotes its first oom entry in full after "entry N: ".
bool recordedOom(const std::string& summary)
{
    return summary.rfind("oom", 0) == 0 || summary.find(": oom:") != std::string::npos;
}
/// The event each of the run's hazards is shown at, added to `out` (sorted, each event once). The
/// simulator finds most hazards while a call captures, replays or runs eagerly and records them on
/// the call (Hazard::call, Hazard::graph), not on an event of their own: such a hazard is marked at
/// that call's capture, replay or eager event of its graph, as the graph view's focus matches them
/// (runtime/event_focus.cpp). An event that names its hazard (Event::hazard: a fallback, an OOM)
/// is that hazard's; a hazard of a call without such an event falls back to the call's first event.
void addHazards(const runtime::Simulation& sim, std::vector<int>& out)
{
    std::vector<int> at(sim.hazards.size(), -1);
    for (int i = 0; i < int(sim.events.size()); ++i) {
        const int h = sim.events[size_t(i)].hazard;
        if (h >= 0 && size_t(h) < at.size() && at[size_t(h)] < 0)
            at[size_t(h)] = i;
    }
    for (size_t h = 0; h < at.size(); ++h) {
        const runtime::Hazard& hz = sim.hazards[h];
        if (at[h] >= 0 || hz.call < 0 || size_t(hz.call) >= sim.calls.size())
            continue;
        const runtime::CallRecord& call = sim.calls[size_t(hz.call)];
        const int end = std::min(int(sim.events.size()), call.firstEvent + call.eventCount);
        for (int i = call.firstEvent; i < end && at[h] < 0; ++i) {
            const runtime::Event& e = sim.events[size_t(i)];
            const bool runs = e.kind == EventKind::Capture || e.kind == EventKind::Replay || e.kind == EventKind::Eager;
            if (runs && e.graph == hz.graph)
                at[h] = i;
        }
        if (at[h] < 0 && call.firstEvent < int(sim.events.size()))
            at[h] = call.firstEvent;
    }
    for (int e : at)
        if (e >= 0)
            out.push_back(e);
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
}
} // namespace

const char* markKindName(MarkKind k)
{
    return kNames[size_t(k)].name;
}
const char* markKindLabel(MarkKind k)
{
    return kNames[size_t(k)].label;
}

const std::array<MarkKind, kMarkKinds>& allMarkKinds()
{
    static const std::array<MarkKind, kMarkKinds> kinds = [] {
        std::array<MarkKind, kMarkKinds> a {};
        for (int i = 0; i < kMarkKinds; ++i)
            a[size_t(i)] = MarkKind(i);
        return a;
    }();
    return kinds;
}

int EventMarks::next(MarkKind k, int from) const
{
    const std::vector<int>& v = of(k);
    const auto it = std::upper_bound(v.begin(), v.end(), from);
    return it == v.end() ? -1 : *it;
}

int EventMarks::previous(MarkKind k, int from) const
{
    const std::vector<int>& v = of(k);
    const auto it = std::lower_bound(v.begin(), v.end(), from);
    return it == v.begin() ? -1 : *(it - 1);
}

int EventMarks::countIn(MarkKind k, int first, int last) const
{
    if (last < first)
        return 0;
    const std::vector<int>& v = of(k);
    return int(std::upper_bound(v.begin(), v.end(), last) - std::lower_bound(v.begin(), v.end(), first));
}

EventMarks eventMarks(const runtime::Simulation& sim)
{
    EventMarks marks;
    auto add = [&](MarkKind k, int event) { marks.events[size_t(k)].push_back(event); };
    const bool recorded = sim.origin.kind == runtime::RunOriginKind::Recorded;
    int peakReserved = -1, peakAllocated = -1;
    int lastCall = -1;
    for (int i = 0; i < int(sim.events.size()); ++i) {
        const runtime::Event& e = sim.events[size_t(i)];
        if (peakReserved < 0 || e.deviceReserved > sim.events[size_t(peakReserved)].deviceReserved)
            peakReserved = i;
        if (peakAllocated < 0 || e.deviceAllocated > sim.events[size_t(peakAllocated)].deviceAllocated)
            peakAllocated = i;
        if (e.call >= 0 && e.call != lastCall) {
            add(MarkKind::CallStart, i);
            lastCall = e.call;
        }
        switch (e.kind) {
        case EventKind::Capture: {
            add(MarkKind::Capture, i);
            const bool recapture = e.call >= 0 && size_t(e.call) < sim.calls.size()
                && sim.calls[size_t(e.call)].action == runtime::CallAction::Recapture;
            if (recapture)
                add(MarkKind::Recapture, i);
            break;
        }
        case EventKind::Replay:
            add(MarkKind::Replay, i);
            break;
        case EventKind::InputUpdate:
            add(MarkKind::InputUpdate, i);
            break;
        case EventKind::Compile:
            add(MarkKind::Compile, i);
            break;
        case EventKind::Hazard:
            add(MarkKind::Hazard, i);
            break;
        case EventKind::Fallback:
            add(MarkKind::Fallback, i);
            break;
        case EventKind::OutOfMemory:
            add(MarkKind::OutOfMemory, i);
            break;
        case EventKind::Eager:
            add(MarkKind::Eager, i);
            break;
        case EventKind::MemoryTrace:
            if (recorded && recordedOom(e.summary))
                add(MarkKind::OutOfMemory, i);
            break;
        case EventKind::KeyLookup:
        case EventKind::Rollback:
        case EventKind::Outputs:
            break;
        }
    }
    addHazards(sim, marks.events[size_t(MarkKind::Hazard)]);
    if (peakReserved >= 0)
        add(MarkKind::PeakReserved, peakReserved);
    if (peakAllocated >= 0)
        add(MarkKind::PeakAllocated, peakAllocated);
    return marks;
}

} // namespace engine::report
