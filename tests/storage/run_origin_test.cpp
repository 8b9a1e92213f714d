// Where a run came from (schema 5, issue 18): a recording's origin, allocator settings and whether
// its file told the capacity, recorded owners' category, stack and evidence, and events' times,
// written and read back (writeRun and the streaming writer); a v4 project's runs migrated, its
// runs stored with the magic backend "snapshot" becoming recordings.
#include "engine/runtime/memory_timeline.h"
#include "storage/project_db.h"
#include "storage/project_outline.h"
#include "storage/run_store.h"
#include "storage/run_store_text.h"

#include <filesystem>
#include <gtest/gtest.h>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;
using namespace engine::runtime;
using namespace storage;

/// A small recording built by hand: two owners (one with a category, stack and evidence), two
/// events (one with a time, one without).
Simulation recording()
{
    Simulation sim;
    sim.scenarioName = "memory snapshot a.pickle, device 0";
    sim.profile = engine::memory::Profile::Cuda;
    sim.origin.kind = RunOriginKind::Recorded;
    sim.origin.recordedAs = "memory snapshot (torch.cuda.memory._dump_snapshot)";
    sim.origin.allocatorSettings = { { "expandable_segments", "False" }, { "PYTORCH_CUDA_ALLOC_CONF", "''" } };
    OwnerInfo a;
    a.kind = OwnerKind::Recorded;
    a.tensor = "train.py:42 forward";
    a.category = "autotuning";
    a.stack = "triton/runtime/autotuner.py:120 _bench\ntrain.py:42 forward";
    a.evidence = "a frame of triton's autotuner";
    OwnerInfo b;
    b.kind = OwnerKind::Recorded;
    b.tensor = "allocated by trace entry 2";
    sim.owners = { a, b };
    sim.categories = { "autotuning", "unknown" };
    for (int i = 0; i < 2; ++i) {
        Event e;
        e.index = i;
        e.kind = EventKind::MemoryTrace;
        e.summary = "alloc";
        e.timeUs = i == 0 ? 1764000000123456 : -1;
        if (i == 0) // the second event has no split: stored NULL, read back empty
            e.categoryBytes = { 18446744073709551615ull, 0 };
        sim.events.push_back(e);
    }
    return sim;
}

void expectSameOrigin(const RunOrigin& a, const RunOrigin& b)
{
    EXPECT_EQ(a.kind, b.kind);
    EXPECT_EQ(a.recordedAs, b.recordedAs);
    EXPECT_EQ(a.allocatorSettings, b.allocatorSettings);
    EXPECT_EQ(a.capacityKnown, b.capacityKnown);
}

void expectSameRecording(const Simulation& written, const StoredRun& read)
{
    expectSameOrigin(written.origin, read.row.origin);
    expectSameOrigin(written.origin, read.sim.origin);
    EXPECT_EQ(read.row.backend, "") << "a recording has no backend";
    ASSERT_EQ(read.sim.owners.size(), written.owners.size());
    for (size_t i = 0; i < written.owners.size(); ++i) {
        EXPECT_EQ(read.sim.owners[i].category, written.owners[i].category);
        EXPECT_EQ(read.sim.owners[i].stack, written.owners[i].stack);
        EXPECT_EQ(read.sim.owners[i].evidence, written.owners[i].evidence);
        EXPECT_EQ(read.sim.owners[i].tensor, written.owners[i].tensor);
    }
    ASSERT_EQ(read.sim.events.size(), written.events.size());
    for (size_t i = 0; i < written.events.size(); ++i) {
        EXPECT_EQ(read.sim.events[i].timeUs, written.events[i].timeUs) << i;
        EXPECT_EQ(read.sim.events[i].categoryBytes, written.events[i].categoryBytes) << i;
    }
    EXPECT_EQ(read.sim.categories, written.categories);
}

Result<int64_t> writeWhole(Database& db, const Simulation& sim, RunPlace place = {})
{
    auto tx = Transaction::begin(db);
    if (!tx)
        return tx.error();
    WriteContext ctx(db);
    auto id = writeRun(ctx, sim, place, nullptr);
    if (id)
        if (auto c = tx->commit(); !c)
            return c.error();
    return id;
}

Result<int64_t> writeStreamed(Database& db, const Simulation& sim)
{
    auto tx = Transaction::begin(db);
    if (!tx)
        return tx.error();
    WriteContext ctx(db);
    RunStreamWriter writer(ctx, {});
    Simulation header = sim;
    header.events.clear();
    header.owners.clear();
    if (auto r = writer.begin(header); !r)
        return r.error();
    for (size_t i = 0; i < sim.owners.size(); ++i)
        if (auto r = writer.owner(engine::memory::OwnerId(i), sim.owners[i]); !r)
            return r.error();
    const MemoryState empty;
    for (const Event& e : sim.events)
        if (auto r = writer.step(e, MemoryDelta { e.index, {}, {}, {} }, e.index == 0 ? &empty : nullptr); !r)
            return r.error();
    RunTotals totals;
    totals.events = int(sim.events.size());
    if (auto r = writer.end(totals); !r)
        return r.error();
    if (auto c = tx->commit(); !c)
        return c.error();
    return writer.runId();
}

class RunOriginStore : public ::testing::Test {
protected:
    void SetUp() override
    {
        m_dir = fs::temp_directory_path()
            / ("aclgi-origin-" + std::to_string(getpid()) + "-"
                + ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(m_dir);
        fs::create_directories(m_dir);
    }
    void TearDown() override { fs::remove_all(m_dir); }
    std::string file(const char* name) const { return (m_dir / name).string(); }
    fs::path m_dir;
};

} // namespace

TEST_F(RunOriginStore, RecordingRoundTrips)
{
    for (const std::string& path : { std::string(":memory:"), file("p.aclgi") }) {
        SCOPED_TRACE(path);
        auto db = openProject(path);
        ASSERT_TRUE(db.ok()) << db.error().toString();
        Simulation sim = recording();
        // Told or not, the backend of a recording is never stored.
        RunPlace place;
        place.backend = "torchair";
        auto whole = writeWhole(*db, sim, place);
        ASSERT_TRUE(whole.ok()) << whole.error().toString();
        auto read = readRun(*db, *whole);
        ASSERT_TRUE(read.ok()) << read.error().toString();
        expectSameRecording(sim, *read);

        sim.origin.capacityKnown = true;
        sim.capacityBytes = 80ull << 30;
        auto streamed = writeStreamed(*db, sim);
        ASSERT_TRUE(streamed.ok()) << streamed.error().toString();
        auto again = readRun(*db, *streamed);
        ASSERT_TRUE(again.ok()) << again.error().toString();
        expectSameRecording(sim, *again);
        EXPECT_EQ(again->sim.capacityBytes, 80ull << 30);

        auto nulls = db->prepare("SELECT count(*) FROM run_events WHERE time_us IS NULL");
        ASSERT_TRUE(nulls.ok() && *nulls->step());
        EXPECT_EQ(nulls->columnInt(0), 2) << "one event without a time per run";
        auto header = readRunHeader(*db, *whole);
        ASSERT_TRUE(header.ok()) << header.error().toString();
        EXPECT_EQ(header->row.origin.kind, RunOriginKind::Recorded);
    }
}

TEST_F(RunOriginStore, SimulationKeepsItsBackendAndOrigin)
{
    auto db = openProject(":memory:");
    ASSERT_TRUE(db.ok());
    Simulation sim;
    sim.capacityBytes = 64ull << 30;
    auto id = writeWhole(*db, sim);
    ASSERT_TRUE(id.ok()) << id.error().toString();
    auto read = readRun(*db, *id);
    ASSERT_TRUE(read.ok()) << read.error().toString();
    expectSameOrigin(sim.origin, read->sim.origin);
    EXPECT_EQ(read->row.backend, "torchair");
    auto runs = listRuns(*db);
    ASSERT_TRUE(runs.ok());
    EXPECT_EQ(runs->front().origin.kind, RunOriginKind::Simulated);

    // The outline counts a recording's steps, not calls, recaptures and hazards it cannot have.
    auto recorded = writeWhole(*db, recording());
    ASSERT_TRUE(recorded.ok()) << recorded.error().toString();
    auto outline = readOutline(*db);
    ASSERT_TRUE(outline.ok()) << outline.error().toString();
    const OutlineNode& runNodes = outline->children[3];
    ASSERT_EQ(runNodes.children.size(), 2u);
    EXPECT_EQ(runNodes.children[0].detail, "recorded, 2 steps, peak 0.0 MiB"); // newest first
    EXPECT_EQ(runNodes.children[1].detail.rfind("0 calls, ", 0), 0u) << runNodes.children[1].detail;
}

// Version 5 replaces the magic backend "snapshot" by runs.origin: a v4 project's snapshot run
// becomes a recording without a backend (its writer and settings were not kept, its capacity not
// known), a simulation stays one; owners gain empty category/stack/evidence, events a NULL time.
TEST_F(RunOriginStore, MigratesVersion4Runs)
{
    const std::string path = file("v4.aclgi");
    {
        auto v4 = openProject(path, {}, 4);
        ASSERT_TRUE(v4.ok()) << v4.error().toString();
        ASSERT_TRUE(
            v4->exec("INSERT INTO runs(id, scenario_name, created_at, backend, profile, capacity_bytes, events) "
                     "VALUES (1, 'memory snapshot a.pickle, device 0', 't', 'snapshot', 'cuda', 0, 1),"
                     " (2, 'sample', 't', 'npugraph_ex', 'npu', 68719476736, 1);"
                     "INSERT INTO run_owners(run_id, owner, kind, tensor) VALUES (1, 0, 'recorded', 'train.py:1');"
                     "INSERT INTO run_events(run_id, idx, call, kind, summary) VALUES (1, 0, -1, 'memory_trace', 'a'),"
                     " (2, 0, 0, 'capture', 'c');")
                .ok());
    }
    auto db = openProject(path);
    ASSERT_TRUE(db.ok()) << db.error().toString();
    EXPECT_EQ(*db->userVersion(), kSchemaVersion);
    auto recorded = readRun(*db, 1);
    ASSERT_TRUE(recorded.ok()) << recorded.error().toString();
    EXPECT_EQ(recorded->row.backend, "");
    EXPECT_EQ(recorded->sim.origin.kind, RunOriginKind::Recorded);
    EXPECT_NE(recorded->sim.origin.recordedAs.find("memory snapshot"), std::string::npos);
    EXPECT_TRUE(recorded->sim.origin.allocatorSettings.empty());
    EXPECT_FALSE(recorded->sim.origin.capacityKnown);
    ASSERT_EQ(recorded->sim.owners.size(), 1u);
    EXPECT_EQ(recorded->sim.owners[0].tensor, "train.py:1");
    EXPECT_EQ(recorded->sim.owners[0].category, "");
    ASSERT_EQ(recorded->sim.events.size(), 1u);
    EXPECT_EQ(recorded->sim.events[0].timeUs, -1);

    auto simulated = readRun(*db, 2);
    ASSERT_TRUE(simulated.ok()) << simulated.error().toString();
    EXPECT_EQ(simulated->row.backend, "npugraph_ex");
    EXPECT_EQ(simulated->sim.origin.kind, RunOriginKind::Simulated);
    EXPECT_EQ(simulated->sim.capacityBytes, 68719476736u);
    auto known = db->prepare("SELECT origin, capacity_known, allocator_settings FROM runs WHERE id = 2");
    ASSERT_TRUE(known.ok() && *known->step());
    EXPECT_EQ(known->columnText(0), "simulated");
    EXPECT_EQ(known->columnInt(1), 1);
    EXPECT_EQ(known->columnText(2), "[]");
    EXPECT_EQ(*db->quickCheck(), "");
}

TEST(RunStoreText, NumbersRoundTripAndMalformedListsAreRefused)
{
    std::vector<uint64_t> out;
    EXPECT_TRUE(runtext::readNumbers(runtext::numbersText({ 0, 7, 18446744073709551615ull }), out));
    EXPECT_EQ(out, (std::vector<uint64_t> { 0, 7, 18446744073709551615ull }));
    EXPECT_TRUE(runtext::readNumbers("", out));
    EXPECT_TRUE(out.empty());
    for (const char* bad : { "1,", ",1", "1,,2", "1 2", "-1", "18446744073709551616", "1,x" }) {
        EXPECT_FALSE(runtext::readNumbers(bad, out)) << bad;
        EXPECT_TRUE(out.empty()) << bad;
    }
}
