// Simulation runs in the project database: real scenarios written with their memory timeline, read
// back field by field, memory at every event rebuilt from keyframes, cancel and corruption.
#include "storage/project_db.h"
#include "storage/run_store.h"
#include "tests/engine/memory_test_util.h"

#include <algorithm>
#include <filesystem>
#include <gtest/gtest.h>

namespace {

using namespace engine::runtime;
using namespace storage;

Database project()
{
    auto db = openProject(":memory:");
    EXPECT_TRUE(db.ok()) << (db.ok() ? "" : db.error().toString());
    return std::move(db.value());
}

/// `write(ctx, place)` (which returns the run's id) in a transaction, committed.
template <typename Write> Result<int64_t> committed(Database& db, Write&& write)
{
    auto tx = Transaction::begin(db);
    if (!tx)
        return tx.error();
    WriteContext ctx(db);
    RunPlace place;
    place.overrides = { "clone_input=False" };
    auto id = write(ctx, place);
    if (!id)
        return id;
    if (auto c = tx->commit(); !c)
        return c.error();
    return id;
}

Result<int64_t> store(Database& db, const memtest::Recorded& r, const MemoryTimeline* memory)
{
    return committed(db, [&](WriteContext& ctx, const RunPlace& place) { return writeRun(ctx, r.sim, place, memory); });
}

int64_t count(Database& db, const std::string& sql)
{
    auto s = db.prepare(sql);
    EXPECT_TRUE(s.ok());
    EXPECT_TRUE(*s->step());
    return s->columnInt(0);
}

#define EXPECT_FIELD(a, b, f) EXPECT_EQ((a).f, (b).f) << #f
void expectSameLog(const std::vector<LogLine>& a, const std::vector<LogLine>& b)
{
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) {
        EXPECT_FIELD(a[i], b[i], level);
        EXPECT_FIELD(a[i], b[i], text);
        EXPECT_FIELD(a[i], b[i], category);
    }
}

/// Paths are stored absolute and normalised.
std::string stored(const std::string& path)
{
    return std::filesystem::absolute(path).lexically_normal().string();
}

void expectSameRun(const Simulation& a, const Simulation& b)
{
    EXPECT_EQ(stored(a.scenarioPath), b.scenarioPath);
    EXPECT_FIELD(a, b, scenarioName);
    EXPECT_FIELD(a, b, profile);
    EXPECT_FIELD(a, b, capacityBytes);
    EXPECT_FIELD(a, b, options.backend);
    EXPECT_FIELD(a, b, peakDeviceReserved);
    EXPECT_FIELD(a, b, peakDeviceAllocated);
    EXPECT_FIELD(a, b, outOfMemory);
    EXPECT_FIELD(a, b, cancelled);
    EXPECT_FIELD(a, b, callsSimulated);
    EXPECT_FIELD(a, b, warnings);
    expectSameLog(a.log, b.log);
    ASSERT_EQ(a.graphs.size(), b.graphs.size());
    for (size_t i = 0; i < a.graphs.size(); ++i) {
        const GraphRecord &x = a.graphs[i], &y = b.graphs[i];
        SCOPED_TRACE("graph " + x.name);
        EXPECT_FIELD(x, y, name);
        EXPECT_FIELD(x, y, id);
        EXPECT_FIELD(x, y, pool);
        EXPECT_FIELD(x, y, keys);
        EXPECT_FIELD(x, y, allKeys);
        EXPECT_FIELD(x, y, captures);
        EXPECT_FIELD(x, y, recapturesMutatedInput);
        EXPECT_FIELD(x, y, recapturesCoreLimit);
        EXPECT_FIELD(x, y, recapturesForce);
        EXPECT_FIELD(x, y, replays);
        EXPECT_FIELD(x, y, eagerCalls);
        EXPECT_FIELD(x, y, fallbackToEager);
        EXPECT_FIELD(x, y, fallbackCall);
        EXPECT_FIELD(x, y, counters);
    }
    ASSERT_EQ(a.pools.size(), b.pools.size());
    for (size_t i = 0; i < a.pools.size(); ++i) {
        EXPECT_FIELD(a.pools[i], b.pools[i], pool);
        EXPECT_FIELD(a.pools[i], b.pools[i], graphs);
        EXPECT_FIELD(a.pools[i], b.pools[i], custom);
        EXPECT_FIELD(a.pools[i], b.pools[i], peakReserved);
        EXPECT_FIELD(a.pools[i], b.pools[i], peakAllocated);
    }
    ASSERT_EQ(a.calls.size(), b.calls.size());
    for (size_t i = 0; i < a.calls.size(); ++i) {
        const CallRecord &x = a.calls[i], &y = b.calls[i];
        SCOPED_TRACE("call " + std::to_string(i));
        EXPECT_FIELD(x, y, index);
        EXPECT_FIELD(x, y, graph);
        EXPECT_FIELD(x, y, graphId);
        EXPECT_FIELD(x, y, key);
        EXPECT_FIELD(x, y, action);
        EXPECT_FIELD(x, y, recaptureCause);
        EXPECT_FIELD(x, y, inputsCopied);
        EXPECT_FIELD(x, y, bytesCopied);
        EXPECT_FIELD(x, y, outputsRebuilt);
        EXPECT_FIELD(x, y, deviceReserved);
        EXPECT_FIELD(x, y, deviceAllocated);
        EXPECT_FIELD(x, y, firstEvent);
        EXPECT_FIELD(x, y, eventCount);
        ASSERT_EQ(x.pools.size(), y.pools.size());
        for (size_t p = 0; p < x.pools.size(); ++p) {
            const PoolCallState &u = x.pools[p], &v = y.pools[p];
            EXPECT_FIELD(u, v, pool);
            EXPECT_FIELD(u, v, blockNum);
            EXPECT_FIELD(u, v, activateNum);
            EXPECT_FIELD(u, v, totalSize);
            EXPECT_FIELD(u, v, allocatedSize);
            ASSERT_EQ(u.segments.size(), v.segments.size());
            for (size_t s = 0; s < u.segments.size(); ++s) {
                EXPECT_FIELD(u.segments[s], v.segments[s], stream);
                EXPECT_FIELD(u.segments[s], v.segments[s], blockNum);
                EXPECT_FIELD(u.segments[s], v.segments[s], activateNum);
                EXPECT_FIELD(u.segments[s], v.segments[s], totalSize);
                EXPECT_FIELD(u.segments[s], v.segments[s], allocatedSize);
            }
        }
    }
    ASSERT_EQ(a.events.size(), b.events.size());
    for (size_t i = 0; i < a.events.size(); ++i) {
        const Event &x = a.events[i], &y = b.events[i];
        SCOPED_TRACE("event " + std::to_string(i));
        EXPECT_FIELD(x, y, index);
        EXPECT_FIELD(x, y, call);
        EXPECT_FIELD(x, y, kind);
        EXPECT_FIELD(x, y, graph);
        EXPECT_FIELD(x, y, key);
        EXPECT_FIELD(x, y, summary);
        expectSameLog(x.log, y.log);
        ASSERT_EQ(x.inputs.size(), y.inputs.size());
        for (size_t k = 0; k < x.inputs.size(); ++k) {
            EXPECT_FIELD(x.inputs[k], y.inputs[k], input);
            EXPECT_FIELD(x.inputs[k], y.inputs[k], action);
            EXPECT_FIELD(x.inputs[k], y.inputs[k], bytes);
            EXPECT_FIELD(x.inputs[k], y.inputs[k], detail);
        }
        EXPECT_FIELD(x, y, hazard);
        EXPECT_FIELD(x, y, deviceReserved);
        EXPECT_FIELD(x, y, deviceAllocated);
        EXPECT_TRUE(y.memory.empty());
    }
    ASSERT_EQ(a.hazards.size(), b.hazards.size());
    for (size_t i = 0; i < a.hazards.size(); ++i) {
        const Hazard &x = a.hazards[i], &y = b.hazards[i];
        EXPECT_FIELD(x, y, kind);
        EXPECT_FIELD(x, y, call);
        EXPECT_FIELD(x, y, graph);
        EXPECT_FIELD(x, y, key);
        EXPECT_FIELD(x, y, concerns);
        EXPECT_FIELD(x, y, message);
        EXPECT_FIELD(x, y, madeAtCall);
    }
    ASSERT_EQ(a.owners.size(), b.owners.size());
    for (size_t i = 0; i < a.owners.size(); ++i) {
        const OwnerInfo &x = a.owners[i], &y = b.owners[i];
        EXPECT_FIELD(x, y, kind);
        EXPECT_FIELD(x, y, graph);
        EXPECT_FIELD(x, y, key);
        EXPECT_FIELD(x, y, tensor);
        EXPECT_FIELD(x, y, call);
    }
}

/// The scenarios with what makes them interesting: at least one recapture, hazard, fallback and OOM.
std::vector<memtest::Recorded> interestingRuns(int interval)
{
    std::vector<memtest::Recorded> runs;
    for (const std::string& path : memtest::scenarioFiles())
        runs.push_back(memtest::record(path, interval));
    const memtest::Recorded& last = runs.back();
    runs.push_back(memtest::record(last.sim.scenarioPath, interval, last.sim.peakDeviceReserved * 3 / 4));
    return runs;
}

} // namespace

TEST(RunStore, RunsReadBackAsTheyWereSimulatedWithMemoryAtEveryEvent)
{
    Database db = project();
    const std::vector<memtest::Recorded> runs = interestingRuns(4);
    bool recapture = false, hazard = false, fallback = false, oom = false;
    std::vector<int64_t> ids;
    for (const memtest::Recorded& r : runs) {
        SCOPED_TRACE(r.sim.scenarioPath);
        auto id = store(db, r, r.timeline.get());
        ASSERT_TRUE(id.ok()) << id.error().toString();
        ids.push_back(*id);
        auto back = readRun(db, *id);
        ASSERT_TRUE(back.ok()) << back.error().toString();
        expectSameRun(r.sim, back->sim);
        EXPECT_NE(back->configJson.find("\"effective\""), std::string::npos);
        // The header alone (the config form's read) says the same as the whole run.
        auto header = readRunHeader(db, *id);
        ASSERT_TRUE(header.ok());
        EXPECT_EQ(header->configJson, back->configJson);
        EXPECT_EQ(header->row.calls, back->row.calls);
        EXPECT_EQ(header->backend, r.sim.options.backend);
        EXPECT_EQ(header->warnings, r.sim.warnings);
        for (const Event& e : r.sim.events) {
            auto memory = memoryAt(db, *id, e.index);
            ASSERT_TRUE(memory.ok()) << memory.error().toString();
            ASSERT_EQ(memtest::memoryDifference(*memory, e.memory), "") << "event " << e.index;
        }
        for (const GraphRecord& g : r.sim.graphs) {
            recapture |= g.recapturesMutatedInput + g.recapturesCoreLimit + g.recapturesForce > 0;
            fallback |= g.fallbackToEager;
        }
        hazard |= !r.sim.hazards.empty();
        oom |= r.sim.outOfMemory;
    }
    EXPECT_TRUE(recapture && hazard && fallback && oom) << recapture << hazard << fallback << oom;

    auto list = listRuns(db);
    ASSERT_TRUE(list.ok()) << list.error().toString();
    ASSERT_EQ(list->size(), runs.size());
    for (size_t i = 0; i < runs.size(); ++i) {
        const RunRow& row = (*list)[i];
        const Simulation& sim = runs[i].sim;
        EXPECT_EQ(row.id, ids[i]);
        EXPECT_FALSE(row.sourceId.has_value());
        EXPECT_EQ(row.scenarioPath, stored(sim.scenarioPath));
        // The CUDA Graph Trees samples (10-13) store their runtime and the CUDA profile.
        EXPECT_EQ(row.backend, sim.cuda ? "cuda_graph_trees" : engine::config::backendName(sim.options.backend));
        EXPECT_EQ(row.profile, sim.cuda ? "cuda" : "npu");
        EXPECT_EQ(row.calls, sim.callsSimulated);
        EXPECT_EQ(row.events, int(sim.events.size()));
        EXPECT_EQ(row.hazards, int(sim.hazards.size()));
        EXPECT_EQ(row.peakReserved, sim.peakDeviceReserved);
        EXPECT_EQ(row.outOfMemory, sim.outOfMemory);
        EXPECT_EQ(row.createdAt.size(), 20u) << row.createdAt;
        int captures = 0;
        for (const GraphRecord& g : sim.graphs)
            captures += g.captures;
        EXPECT_EQ(row.captures, captures);
    }
}

TEST(RunStore, MemoryAtNamesTheRunAndEventItCannotGive)
{
    Database db = project();
    const memtest::Recorded r = memtest::record(memtest::scenarioFiles().front(), 4);
    auto withMemory = store(db, r, r.timeline.get());
    auto without = store(db, r, nullptr);
    ASSERT_TRUE(withMemory.ok() && without.ok());
    const int events = int(r.sim.events.size());
    for (int bad : { -1, events, events + 100 }) {
        auto m = memoryAt(db, *withMemory, bad);
        ASSERT_FALSE(m.ok());
        EXPECT_NE(m.error().message.find("run " + std::to_string(*withMemory) + " event " + std::to_string(bad)),
            std::string::npos)
            << m.error().message;
    }
    auto noTimeline = memoryAt(db, *without, 0);
    ASSERT_FALSE(noTimeline.ok());
    EXPECT_NE(noTimeline.error().message.find("without its memory timeline"), std::string::npos);
    EXPECT_EQ(count(db, "SELECT keyframe_interval FROM runs WHERE id = " + std::to_string(*without)), 0);
    EXPECT_EQ(count(db, "SELECT count(*) FROM run_keyframes WHERE run_id = " + std::to_string(*without)), 0);
    auto noRun = memoryAt(db, 999, 0);
    ASSERT_FALSE(noRun.ok());
    EXPECT_NE(noRun.error().message.find("no run 999"), std::string::npos);
    EXPECT_FALSE(readRun(db, 999).ok());
    // The run without a timeline still reads back whole.
    auto back = readRun(db, *without);
    ASSERT_TRUE(back.ok()) << back.error().toString();
    expectSameRun(r.sim, back->sim);
}

TEST(RunStore, CancelMidWriteLeavesNoRows)
{
    Database db = project();
    const memtest::Recorded r = memtest::record(memtest::scenarioFiles().back(), 4);
    {
        auto tx = Transaction::begin(db);
        ASSERT_TRUE(tx.ok());
        WriteContext ctx(db, [](int64_t) { return false; });
        // One run has fewer rows than a tick: keep writing it until the first tick cancels.
        Result<int64_t> id = int64_t(0);
        for (int i = 0; i < 10000 && id.ok(); ++i)
            id = writeRun(ctx, r.sim, {}, r.timeline.get());
        ASSERT_FALSE(id.ok());
        EXPECT_EQ(id.error().code, engine::ErrorCode::Cancelled);
        EXPECT_EQ(ctx.rows(), WriteContext::kRowsPerTick); // stopped at once
        EXPECT_GT(count(db, "SELECT count(*) FROM runs"), 0); // visible inside the transaction
    } // not committed: rolled back
    for (const char* table : { "runs", "run_graphs", "run_pools", "run_calls", "run_events", "run_hazards",
             "run_owners", "run_segment_changes", "run_block_changes", "run_keyframes" })
        EXPECT_EQ(count(db, std::string("SELECT count(*) FROM ") + table), 0) << table;
}

TEST(RunStore, CorruptKeyframeIsAnErrorNotACrash)
{
    Database db = project();
    const memtest::Recorded r = memtest::record(memtest::scenarioFiles().front(), 4);
    auto id = store(db, r, r.timeline.get());
    ASSERT_TRUE(id.ok());
    const std::string run = std::to_string(*id);
    ASSERT_TRUE(db.exec("UPDATE run_keyframes SET state = x'4143474d01ffffff' WHERE run_id = " + run).ok());
    auto m = memoryAt(db, *id, 1);
    ASSERT_FALSE(m.ok());
    EXPECT_NE(m.error().message.find("corrupt"), std::string::npos) << m.error().message;
    ASSERT_TRUE(db.exec("UPDATE run_keyframes SET state = 'garbage' WHERE run_id = " + run).ok());
    EXPECT_FALSE(memoryAt(db, *id, 0).ok());
    ASSERT_TRUE(db.exec("UPDATE run_events SET kind = 'nonsense' WHERE run_id = " + run + " AND idx = 0").ok());
    auto back = readRun(db, *id);
    ASSERT_FALSE(back.ok());
    EXPECT_NE(back.error().message.find("run " + run + ": event 0"), std::string::npos) << back.error().message;
}

namespace {

/// The largest owner id a step names (in its changes or its keyframe), or -1.
int64_t lastOwnerNamed(const MemoryDelta& delta, const MemoryState* keyframe)
{
    int64_t last = -1;
    for (const auto& [address, block] : delta.blocks)
        if (block)
            last = std::max(last, block->owner);
    if (keyframe)
        for (const auto& [address, block] : keyframe->blocks)
            last = std::max(last, block.owner);
    return last;
}

/// Delivers `r` to `sink` as a RunSink stream would: the header (no events, owners or peaks, and
/// all but the last warning), each owner just before the first step naming it, every event with its
/// changes and keyframe, then the totals with the last warning. `events` (when >= 0) stops after
/// that many steps, without end().
Result<void> streamRecorded(RunSink& sink, const memtest::Recorded& r, int events = -1)
{
    Simulation header = r.sim;
    header.events.clear();
    header.owners.clear();
    header.peakDeviceReserved = header.peakDeviceAllocated = 0;
    RunTotals totals;
    if (!header.warnings.empty()) {
        totals.warnings = { header.warnings.back() };
        header.warnings.pop_back();
    }
    if (auto b = sink.begin(header); !b)
        return b;
    const auto& deltas = r.timeline->deltas();
    const auto& keyframes = r.timeline->keyframes();
    size_t d = 0, k = 0;
    int64_t owners = 0;
    auto ownersUpTo = [&](int64_t last) -> Result<void> {
        for (; owners <= last && owners < int64_t(r.sim.owners.size()); ++owners)
            if (auto o = sink.owner(owners, r.sim.owners[size_t(owners)]); !o)
                return o;
        return {};
    };
    for (const Event& full : r.sim.events) {
        if (events >= 0 && full.index >= events)
            return {};
        Event e = full;
        e.memory.clear();
        MemoryDelta delta;
        delta.event = e.index;
        if (d < deltas.size() && deltas[d].event == e.index)
            delta = deltas[d++];
        const MemoryState* keyframe = nullptr;
        if (k < keyframes.size() && keyframes[k].first == e.index)
            keyframe = &keyframes[k++].second;
        if (auto o = ownersUpTo(lastOwnerNamed(delta, keyframe)); !o)
            return o;
        if (auto s = sink.step(e, delta, keyframe); !s)
            return s;
    }
    if (auto o = ownersUpTo(int64_t(r.sim.owners.size()) - 1); !o)
        return o;
    totals.events = int(r.sim.events.size());
    totals.peakReserved = r.sim.peakDeviceReserved;
    totals.peakAllocated = r.sim.peakDeviceAllocated;
    return sink.end(totals);
}

Result<int64_t> storeStreamed(Database& db, const memtest::Recorded& r)
{
    return committed(db, [&](WriteContext& ctx, const RunPlace& place) -> Result<int64_t> {
        RunStreamWriter writer(ctx, place);
        if (auto s = streamRecorded(writer, r); !s)
            return s.error();
        EXPECT_TRUE(writer.ended());
        return writer.runId();
    });
}

/// The rows `sql` (whose one parameter is the run id) gives, from column `first` on, as text.
std::string rowsOf(Database& db, const std::string& sql, int64_t run, int first = 1)
{
    auto s = db.prepare(sql);
    EXPECT_TRUE(s.ok()) << sql;
    s->bind(1, run);
    std::string out;
    while (*s->step()) {
        for (int c = first; c < s->columnCount(); ++c)
            out += (s->columnIsNull(c) ? std::string("NULL") : s->columnBlob(c)) + "|";
        out += "\n";
    }
    return out;
}

} // namespace

// A run delivered step by step (RunStreamWriter, what a memory snapshot's import uses) is stored
// row for row as writeRun stores the whole run: it reads back the same, and its memory at every
// event is the simulator's.
TEST(RunStore, StreamedRunsReadBackAsTheWholeRunWritten)
{
    Database db = project();
    std::vector<memtest::Recorded> runs = interestingRuns(KeyframeRule().interval());
    runs.push_back(memtest::record(memtest::scenarioFiles().front(), 4)); // keyframes often
    runs.back().sim.warnings.push_back("a warning found while streaming");
    for (const memtest::Recorded& r : runs) {
        SCOPED_TRACE(r.sim.scenarioPath);
        auto whole = store(db, r, r.timeline.get());
        auto streamed = storeStreamed(db, r);
        ASSERT_TRUE(whole.ok() && streamed.ok()) << (streamed.ok() ? "" : streamed.error().toString());
        auto back = readRun(db, *streamed);
        ASSERT_TRUE(back.ok()) << back.error().toString();
        expectSameRun(r.sim, back->sim);
        auto header = readRunHeader(db, *streamed);
        ASSERT_TRUE(header.ok());
        EXPECT_EQ(header->warnings, r.sim.warnings);
        for (const Event& e : r.sim.events) {
            auto memory = memoryAt(db, *streamed, e.index);
            ASSERT_TRUE(memory.ok()) << memory.error().toString();
            ASSERT_EQ(memtest::memoryDifference(*memory, e.memory), "") << "event " << e.index;
        }
        for (const char* table : { "run_graphs", "run_pools", "run_calls", "run_events", "run_input_sets",
                 "run_hazards", "run_owners", "run_segment_changes", "run_block_changes", "run_keyframes" }) {
            const std::string sql = std::string("SELECT * FROM ") + table + " WHERE run_id = ? ORDER BY 2, 3";
            EXPECT_EQ(rowsOf(db, sql, *streamed), rowsOf(db, sql, *whole)) << table;
        }
        // The runs row, but for its id and time, and the keyframe interval (KeyframeRule's).
        const std::string run = "SELECT source_id, scenario_path, scenario_name, backend, profile, capacity_bytes, "
                                "config, overrides, calls, events, captures, recaptures, replays, eager_calls, "
                                "hazards, peak_reserved, peak_allocated, out_of_memory, cancelled, warnings "
                                "FROM runs WHERE id = ?";
        EXPECT_EQ(rowsOf(db, run, *streamed, 0), rowsOf(db, run, *whole, 0));
        EXPECT_EQ(count(db, "SELECT keyframe_interval FROM runs WHERE id = " + std::to_string(*streamed)),
            KeyframeRule().interval());
    }
}

// A stream stopped by a cancel (a WriteContext tick) or by an error (a step out of order) inside the
// caller's transaction leaves no row once the transaction rolls back; calls out of order are errors.
TEST(RunStore, StreamStoppedMidRunLeavesNoRowsAfterRollback)
{
    Database db = project();
    const memtest::Recorded r = memtest::record(memtest::scenarioFiles().back(), 4);
    auto noRows = [&db] {
        for (const char* table : { "runs", "run_graphs", "run_pools", "run_calls", "run_events", "run_input_sets",
                 "run_hazards", "run_owners", "run_segment_changes", "run_block_changes", "run_keyframes" })
            EXPECT_EQ(count(db, std::string("SELECT count(*) FROM ") + table), 0) << table;
    };
    {
        auto tx = Transaction::begin(db);
        ASSERT_TRUE(tx.ok());
        WriteContext ctx(db, [](int64_t) { return false; });
        Result<void> streamed;
        for (int i = 0; i < 10000 && streamed.ok(); ++i) {
            RunStreamWriter writer(ctx, {});
            streamed = streamRecorded(writer, r);
        }
        ASSERT_FALSE(streamed.ok());
        EXPECT_EQ(streamed.error().code, engine::ErrorCode::Cancelled);
        EXPECT_EQ(ctx.rows(), WriteContext::kRowsPerTick); // stopped at once
        EXPECT_GT(count(db, "SELECT count(*) FROM run_events"), 0); // visible inside the transaction
    }
    noRows();
    {
        auto tx = Transaction::begin(db);
        ASSERT_TRUE(tx.ok());
        WriteContext ctx(db);
        RunStreamWriter writer(ctx, {});
        ASSERT_TRUE(streamRecorded(writer, r, 3).ok());
        EXPECT_GT(writer.runId(), 0);
        Event skipped = r.sim.events.at(5);
        skipped.memory.clear();
        MemoryDelta delta;
        delta.event = skipped.index;
        auto bad = writer.step(skipped, delta, nullptr);
        ASSERT_FALSE(bad.ok());
        EXPECT_EQ(bad.error().code, engine::ErrorCode::InvalidArgument);
        EXPECT_NE(bad.error().message.find("event 5"), std::string::npos) << bad.error().message;
        EXPECT_FALSE(writer.end(RunTotals {}).ok()); // 0 events in the totals, 3 streamed
        EXPECT_FALSE(writer.owner(999, {}).ok());
        EXPECT_EQ(count(db, "SELECT count(*) FROM run_events"), 3);
    }
    noRows();
    WriteContext ctx(db);
    RunStreamWriter early(ctx, {});
    EXPECT_FALSE(early.step(Event {}, MemoryDelta {}, nullptr).ok()); // before begin
    EXPECT_EQ(early.runId(), 0);
    noRows();
}
