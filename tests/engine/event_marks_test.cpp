// The navigator's marks (engine/report/event_marks.h) on the bundled samples, simulated: every
// mark is checked against the kind of the event it points at, and the counts against the run's own
// records (calls, hazards), so a mark on the wrong event or a missing one fails.
#include "engine/report/event_marks.h"
#include "engine/runtime/simulator.h"
#include "engine/scenario/scenario.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <string>

using engine::report::EventMarks;
using engine::report::MarkKind;
using engine::runtime::CallAction;
using engine::runtime::EventKind;
using engine::runtime::Simulation;

namespace {

Simulation simulateSample(const std::string& file)
{
    auto s = engine::scenario::readScenarioFile(std::string(ACLGI_SOURCE_DIR) + "/resources/samples/" + file);
    EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().toString());
    if (!s.ok())
        return {};
    auto sim = engine::runtime::simulate(s.value());
    EXPECT_TRUE(sim.ok());
    return sim.ok() ? std::move(sim.value()) : Simulation {};
}

int countKind(const Simulation& sim, EventKind k)
{
    return int(std::count_if(sim.events.begin(), sim.events.end(), [k](const auto& e) { return e.kind == k; }));
}

void expectAllOfKind(const Simulation& sim, const EventMarks& marks, MarkKind m, EventKind k)
{
    for (int e : marks.of(m))
        EXPECT_EQ(sim.events[size_t(e)].kind, k) << engine::report::markKindName(m) << " at event " << e;
    EXPECT_EQ(marks.count(m), countKind(sim, k)) << engine::report::markKindName(m);
    EXPECT_TRUE(std::is_sorted(marks.of(m).begin(), marks.of(m).end()));
}

} // namespace

TEST(EventMarks, KvCacheMovesMarksItsRecaptures)
{
    const Simulation sim = simulateSample("04_kv_cache_moves.json");
    ASSERT_FALSE(sim.events.empty());
    const EventMarks marks = engine::report::eventMarks(sim);
    expectAllOfKind(sim, marks, MarkKind::Capture, EventKind::Capture);
    expectAllOfKind(sim, marks, MarkKind::Replay, EventKind::Replay);
    expectAllOfKind(sim, marks, MarkKind::Compile, EventKind::Compile);
    expectAllOfKind(sim, marks, MarkKind::InputUpdate, EventKind::InputUpdate);

    // The sample's comment: the K cache moves at calls 3, 5 and 7, each a recapture.
    const int recaptureCalls = int(std::count_if(
        sim.calls.begin(), sim.calls.end(), [](const auto& c) { return c.action == CallAction::Recapture; }));
    EXPECT_EQ(recaptureCalls, 3);
    ASSERT_EQ(marks.count(MarkKind::Recapture), recaptureCalls);
    for (int e : marks.of(MarkKind::Recapture)) {
        EXPECT_EQ(sim.events[size_t(e)].kind, EventKind::Capture);
        EXPECT_EQ(sim.calls[size_t(sim.events[size_t(e)].call)].action, CallAction::Recapture);
        EXPECT_TRUE(std::binary_search(marks.of(MarkKind::Capture).begin(), marks.of(MarkKind::Capture).end(), e));
    }
    EXPECT_LT(marks.count(MarkKind::Recapture), marks.count(MarkKind::Capture)); // the first captures are new keys

    // One call start per call, at the call's first event.
    ASSERT_EQ(marks.count(MarkKind::CallStart), int(sim.calls.size()));
    for (size_t c = 0; c < sim.calls.size(); ++c)
        EXPECT_EQ(marks.of(MarkKind::CallStart)[c], sim.calls[c].firstEvent);

    // next / previous walk the recaptures in order, from anywhere.
    const std::vector<int>& rc = marks.of(MarkKind::Recapture);
    EXPECT_EQ(marks.next(MarkKind::Recapture, -1), rc.front());
    EXPECT_EQ(marks.next(MarkKind::Recapture, rc[0]), rc[1]);
    EXPECT_EQ(marks.next(MarkKind::Recapture, rc[0] + 1), rc[1]);
    EXPECT_EQ(marks.previous(MarkKind::Recapture, rc[1]), rc[0]);
    EXPECT_EQ(marks.previous(MarkKind::Recapture, rc[0]), -1);
    EXPECT_EQ(marks.next(MarkKind::Recapture, rc.back()), -1);
    EXPECT_EQ(marks.countIn(MarkKind::Recapture, rc[0], rc[1]), 2);
    EXPECT_EQ(marks.countIn(MarkKind::Recapture, rc[0] + 1, rc[1] - 1), 0);
}

TEST(EventMarks, PeaksAreTheFirstHighestEvents)
{
    const Simulation sim = simulateSample("04_kv_cache_moves.json");
    const EventMarks marks = engine::report::eventMarks(sim);
    ASSERT_EQ(marks.count(MarkKind::PeakReserved), 1);
    ASSERT_EQ(marks.count(MarkKind::PeakAllocated), 1);
    const int pr = marks.of(MarkKind::PeakReserved)[0];
    const int pa = marks.of(MarkKind::PeakAllocated)[0];
    EXPECT_EQ(sim.events[size_t(pr)].deviceReserved, sim.peakDeviceReserved);
    for (int i = 0; i < int(sim.events.size()); ++i) {
        EXPECT_TRUE(i < pr ? sim.events[size_t(i)].deviceReserved < sim.events[size_t(pr)].deviceReserved
                           : sim.events[size_t(i)].deviceReserved <= sim.events[size_t(pr)].deviceReserved);
        EXPECT_TRUE(i < pa ? sim.events[size_t(i)].deviceAllocated < sim.events[size_t(pa)].deviceAllocated
                           : sim.events[size_t(i)].deviceAllocated <= sim.events[size_t(pa)].deviceAllocated);
    }
    // Both peak kinds jump to the peak from either side.
    EXPECT_EQ(marks.next(MarkKind::PeakReserved, -1), pr);
    EXPECT_EQ(marks.previous(MarkKind::PeakReserved, int(sim.events.size())), pr);
}

TEST(EventMarks, FallbackAndEagerAfterTheCaptureLimit)
{
    const Simulation sim = simulateSample("09_capture_limit_fallback.json");
    const EventMarks marks = engine::report::eventMarks(sim);
    expectAllOfKind(sim, marks, MarkKind::Fallback, EventKind::Fallback);
    expectAllOfKind(sim, marks, MarkKind::Eager, EventKind::Eager);
    ASSERT_EQ(marks.count(MarkKind::Fallback), 1);
    EXPECT_GT(marks.count(MarkKind::Eager), 0);
    // Eager calls come after the fallback; nothing is captured after it.
    const int fallback = marks.of(MarkKind::Fallback)[0];
    EXPECT_GT(marks.of(MarkKind::Eager).back(), fallback);
    EXPECT_EQ(marks.next(MarkKind::Capture, fallback), -1);
    EXPECT_EQ(marks.count(MarkKind::Recapture), 0);
    // The fallback is a hazard too, marked at its own event.
    EXPECT_TRUE(std::binary_search(marks.of(MarkKind::Hazard).begin(), marks.of(MarkKind::Hazard).end(), fallback));
}

TEST(EventMarks, HazardsOfHeldOutputs)
{
    const Simulation sim = simulateSample("07_held_outputs_overwritten.json");
    const EventMarks marks = engine::report::eventMarks(sim);
    // Each overwritten output is found during a later call's replay: the hazard is marked at that
    // replay, which is of the hazard's call and graph.
    ASSERT_FALSE(sim.hazards.empty());
    EXPECT_GT(marks.count(MarkKind::Hazard), 0);
    EXPECT_LE(marks.count(MarkKind::Hazard), int(sim.hazards.size()));
    for (int e : marks.of(MarkKind::Hazard)) {
        const auto& ev = sim.events[size_t(e)];
        EXPECT_EQ(ev.kind, EventKind::Replay) << "event " << e;
        const bool ofAHazard = std::any_of(sim.hazards.begin(), sim.hazards.end(),
            [&](const auto& h) { return h.call == ev.call && h.graph == ev.graph; });
        EXPECT_TRUE(ofAHazard) << "event " << e;
    }
    for (const auto& h : sim.hazards) { // and every hazard has its mark
        const bool marked = std::any_of(marks.of(MarkKind::Hazard).begin(), marks.of(MarkKind::Hazard).end(),
            [&](int e) { return sim.events[size_t(e)].call == h.call; });
        EXPECT_TRUE(marked) << h.message;
    }
    EXPECT_EQ(marks.count(MarkKind::Fallback), 0);
    EXPECT_EQ(marks.count(MarkKind::OutOfMemory), 0);
}

// A recording: MemoryTrace steps only. Peaks and the oom steps (one entry, or a window that quotes
// its oom entry) are marked; nothing else.
TEST(EventMarks, RecordedRunHasPeaksAndOutOfMemory)
{
    Simulation sim;
    sim.origin.kind = engine::runtime::RunOriginKind::Recorded;
    const int n = 100000;
    sim.events.resize(size_t(n));
    for (int i = 0; i < n; ++i) {
        auto& e = sim.events[size_t(i)];
        e.index = i;
        e.kind = EventKind::MemoryTrace;
        e.deviceReserved = uint64_t(i % 1000) * 4096;
        e.deviceAllocated = uint64_t((i * 7) % 5003);
        e.summary = "alloc 1.0 MiB at 0x7f00";
    }
    sim.events[500].deviceReserved = 1u << 30;
    sim.events[700].deviceReserved = 1u << 30; // tied: the first wins
    sim.events[60000].deviceAllocated = 1u << 20;
    sim.events[123].summary = "oom: 2.0 GiB requested, 1.0 GiB free on the device";
    sim.events[98765].summary = "trace entries 1–10: 9 alloc, 1 oom · entry 7: oom: 2.0 GiB requested";
    sim.events[4000].summary = "free_completed 1.0 MiB at 0x7f00 · zoom_kernel"; // not an oom
    const EventMarks marks = engine::report::eventMarks(sim);
    EXPECT_EQ(marks.of(MarkKind::PeakReserved), std::vector<int>({ 500 }));
    EXPECT_EQ(marks.of(MarkKind::PeakAllocated), std::vector<int>({ 60000 }));
    EXPECT_EQ(marks.of(MarkKind::OutOfMemory), std::vector<int>({ 123, 98765 }));
    EXPECT_EQ(marks.count(MarkKind::Capture), 0);
    EXPECT_EQ(marks.count(MarkKind::CallStart), 0);
    EXPECT_EQ(marks.next(MarkKind::OutOfMemory, 123), 98765);
    EXPECT_EQ(marks.previous(MarkKind::OutOfMemory, 123), -1);
}

TEST(EventMarks, NamesAndLabels)
{
    EXPECT_STREQ(engine::report::markKindName(MarkKind::Recapture), "recapture");
    EXPECT_STREQ(engine::report::markKindLabel(MarkKind::InputUpdate), "Input update");
    EXPECT_STREQ(engine::report::markKindLabel(MarkKind::PeakReserved), "Peak reserved");
    EXPECT_EQ(engine::report::allMarkKinds().back(), MarkKind::PeakAllocated);
    const EventMarks empty = engine::report::eventMarks(Simulation {});
    for (MarkKind k : engine::report::allMarkKinds())
        EXPECT_EQ(empty.count(k), 0);
    EXPECT_EQ(empty.next(MarkKind::Capture, 0), -1);
}
