// Simulation runs in the project database: real scenarios written with their memory timeline, read
// back field by field, memory at every event rebuilt from keyframes, cancel and corruption.
#include "storage/project_db.h"
#include "storage/run_store.h"
#include "tests/engine/memory_test_util.h"

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

Result<int64_t> store(Database& db, const memtest::Recorded& r, const MemoryTimeline* memory)
{
    auto tx = Transaction::begin(db);
    if (!tx)
        return tx.error();
    WriteContext ctx(db);
    RunPlace place;
    place.overrides = { "clone_input=False" };
    auto id = writeRun(ctx, r.sim, place, memory);
    if (!id)
        return id;
    if (auto c = tx->commit(); !c)
        return c.error();
    return id;
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
        EXPECT_EQ(row.backend, engine::config::backendName(sim.options.backend));
        EXPECT_EQ(row.profile, "npu");
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
