// The importer: every kind of source, duplicates, failures and cancels that leave the database as it
// was, the worker thread, and a process killed mid-import (the kill test).
#include "engine/ingest/run_log.h"
#include "engine/scenario/decoder_generator.h"
#include "storage/graph_store.h"
#include "storage/importer.h"
#include "storage/project_db.h"
#include "storage/run_store.h"
#include "tests/temp_dir_test.h"

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <nlohmann/json.hpp>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;
using namespace storage;
using Status = SourceResult::Status;

const std::string kData = ACLGI_TEST_DATA_DIR;

class Importer : public TempDirTest {
protected:
    Importer()
        : TempDirTest("import")
    {
    }
    /// A generated decoder big enough that writing it crosses several progress ticks.
    std::string decoder(const std::string& name, int layers) const
    {
        engine::scenario::DecoderSpec spec;
        spec.layers = layers;
        return write(name, engine::scenario::decoderScenarioJson(spec, "{}", { 1, 2 }, 2, name));
    }
};

int64_t count(Database& db, const std::string& sql)
{
    auto s = db.prepare(sql);
    EXPECT_TRUE(s.ok()) << sql;
    if (!s.ok())
        return -1;
    auto row = s->step();
    EXPECT_TRUE(row.ok() && *row) << sql;
    return s->columnInt(0);
}

/// Every row of every table, as text: "exactly as before" means this is unchanged.
std::string dumpAll(Database& db)
{
    std::string out;
    auto tables = db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name");
    std::vector<std::string> names;
    while (*tables->step())
        names.push_back(tables->columnText(0));
    for (const std::string& t : names) {
        auto rows = db.prepare("SELECT * FROM \"" + t + "\"");
        const int columns = rows->columnCount();
        out += "[" + t + "]\n";
        while (*rows->step()) {
            for (int c = 0; c < columns; ++c)
                out += (rows->columnIsNull(c) ? std::string("NULL") : rows->columnText(c)) + "|";
            out += "\n";
        }
    }
    return out;
}

TEST_F(Importer, DetectsEveryKind)
{
    EXPECT_EQ(*detectSourceKind(kData + "/fx/print_readable_simple.py"), SourceKind::FxGraph);
    EXPECT_EQ(*detectSourceKind(kData + "/fx/print_graph_dump.txt"), SourceKind::FxGraph);
    EXPECT_EQ(*detectSourceKind(kData + "/scenarios/decode_basic.json"), SourceKind::Scenario);
    EXPECT_EQ(*detectSourceKind(kData + "/torchair/output_code_static.py"), SourceKind::TorchairModule);
    EXPECT_EQ(*detectSourceKind(kData + "/debug_dir/torch_compile_debug"), SourceKind::DebugDir);
    EXPECT_EQ(*detectSourceKind(kData + "/cache/torchair_cache"), SourceKind::CacheDir);
    auto missing = detectSourceKind(file("nope.py"));
    ASSERT_FALSE(missing.ok());
    EXPECT_NE(missing.error().toString().find("nope.py"), std::string::npos);
    auto binary = detectSourceKind(write("blob.bin", std::string("PK\x03\x04\0\0", 6)));
    ASSERT_FALSE(binary.ok());
    EXPECT_NE(binary.error().message.find("binary"), std::string::npos);
    fs::create_directories(m_dir / "empty");
    EXPECT_FALSE(detectSourceKind(file("empty")).ok());
    EXPECT_FALSE(detectSourceKind(write("empty.py", "")).ok());
}

TEST_F(Importer, ContentHashOfFilesAndFolders)
{
    const std::string a = write("a.txt", "hello");
    EXPECT_EQ(*contentHash(a), "5d41402abc4b2a76b9719d911017c592"); // md5("hello")
    fs::create_directories(m_dir / "d1/sub");
    fs::create_directories(m_dir / "d2/sub");
    std::ofstream(m_dir / "d1/sub/x") << "1";
    std::ofstream(m_dir / "d2/sub/x") << "1";
    EXPECT_EQ(*contentHash(file("d1")), *contentHash(file("d2")));
    std::ofstream(m_dir / "d2/sub/x") << "2"; // appended: "12"
    EXPECT_NE(*contentHash(file("d1")), *contentHash(file("d2")));
    fs::rename(m_dir / "d1/sub/x", m_dir / "d1/sub/y");
    std::ofstream(m_dir / "d2/sub/x", std::ios::trunc) << "1";
    EXPECT_NE(*contentHash(file("d1")), *contentHash(file("d2"))); // same bytes, other name
}

TEST_F(Importer, ImportsEveryKindOnce)
{
    const std::vector<std::pair<std::string, std::string>> sources = {
        { kData + "/fx/print_readable_simple.py", "fx_graph" },
        { kData + "/scenarios/decode_basic.json", "scenario" },
        { kData + "/torchair/output_code_static.py", "torchair_module" },
        { kData + "/debug_dir/torch_compile_debug", "debug_dir" },
        { kData + "/cache/torchair_cache", "torchair_cache" },
    };
    std::vector<std::string> paths;
    for (const auto& s : sources)
        paths.push_back(s.first);
    const std::string db = file("p.aclgi");
    auto results = importPaths(db, paths);
    ASSERT_TRUE(results.ok()) << results.error().toString();
    ASSERT_EQ(results->size(), sources.size());
    for (size_t i = 0; i < sources.size(); ++i) {
        const SourceResult& r = (*results)[i];
        SCOPED_TRACE(r.path);
        EXPECT_EQ(r.status, Status::Imported) << r.message;
        EXPECT_EQ(r.kind, sources[i].second);
        EXPECT_GT(r.sourceId, 0);
        EXPECT_GT(r.graphs, 0);
        EXPECT_GT(r.rows, r.graphs);
    }
    EXPECT_GT((*results)[0].passReports, 0); // the passes ran on the FX graph
    EXPECT_GT((*results)[4].cacheEntries, 0);

    auto project = openProject(db);
    ASSERT_TRUE(project.ok());
    EXPECT_EQ(count(*project, "SELECT count(*) FROM sources"), int64_t(sources.size()));
    // Every graph's nodes are all there, and the stored counts agree with the rows.
    EXPECT_EQ(
        count(*project,
            "SELECT count(*) FROM graphs g WHERE node_count != (SELECT count(*) FROM nodes n WHERE n.graph_id = g.id)"),
        0);
    EXPECT_GT(count(*project, "SELECT count(*) FROM graphs WHERE role = 'stage'"), 1);
    EXPECT_GT(count(*project, "SELECT count(*) FROM cache_entries WHERE graph_id IS NOT NULL"), 0);
    EXPECT_EQ(count(*project, "SELECT count(*) FROM sources WHERE path NOT LIKE '/%'"), 0); // absolute paths

    // Importing again, or the same bytes elsewhere, is recognised.
    fs::copy(kData + "/fx/print_readable_simple.py", file("copy.py"));
    auto again = importPaths(db, { paths[0], file("copy.py"), paths[3] });
    ASSERT_TRUE(again.ok());
    for (const SourceResult& r : *again) {
        EXPECT_EQ(r.status, Status::Duplicate) << r.path;
        EXPECT_NE(r.message.find("already imported as source"), std::string::npos);
    }
    EXPECT_EQ((*again)[1].sourceId, (*results)[0].sourceId);
    EXPECT_EQ(count(*project, "SELECT count(*) FROM sources"), int64_t(sources.size()));
}

// --simulate: a scenario comes with its run, linked to the source, memory at every step included.
TEST_F(Importer, SimulatesScenariosWhenAsked)
{
    const std::string db = file("p.aclgi");
    ImportOptions options;
    options.simulateScenarios = true;
    auto results
        = importPaths(db, { kData + "/scenarios/decode_basic.json", kData + "/fx/print_readable_simple.py" }, options);
    ASSERT_TRUE(results.ok());
    EXPECT_EQ((*results)[0].status, Status::Imported) << (*results)[0].message;
    EXPECT_EQ((*results)[0].runs, 1);
    EXPECT_EQ((*results)[1].runs, 0); // a graph file is not a scenario
    auto project = openProject(db);
    EXPECT_EQ(
        count(*project, "SELECT count(*) FROM runs WHERE source_id = " + std::to_string((*results)[0].sourceId)), 1);
    EXPECT_GT(count(*project, "SELECT events FROM runs"), 0);
    EXPECT_GT(count(*project, "SELECT count(*) FROM run_keyframes"), 0);
}

// The stepper draws the graph an event belongs to: a stored run names the imported graph behind each of
// its FX graphs (stage 0, not a pass result of the same name).
TEST_F(Importer, RunKnowsItsImportedGraphs)
{
    const std::string db = file("p.aclgi");
    ImportOptions options;
    options.simulateScenarios = true;
    auto results = importPaths(db, { kData + "/scenarios/decode_basic.json" }, options);
    ASSERT_TRUE(results.ok());
    auto project = openProject(db);
    auto run = readRun(*project, 1);
    ASSERT_TRUE(run.ok()) << run.error().toString();
    ASSERT_FALSE(run->sim.graphs.empty());
    EXPECT_EQ(run->graphIds.size(), run->sim.graphs.size());
    for (const auto& g : run->sim.graphs) {
        ASSERT_TRUE(run->graphIds.count(g.name)) << g.name;
        const int64_t id = run->graphIds.at(g.name);
        EXPECT_EQ(count(*project, "SELECT stage FROM graphs WHERE id = " + std::to_string(id)), 0);
        auto graph = readGraph(*project, id);
        ASSERT_TRUE(graph.ok());
        EXPECT_EQ(graph->id, g.id);
    }
}

// A CUDA run's TORCH_TRACE with --simulate comes with the simulation of that run; its graphs, named by
// compile id ("0/1"), are the trace's groups of the same compile ("0/1/inference"), so the stepper
// can draw them.
TEST_F(Importer, ACudaTraceComesWithItsRunLinkedToItsGraphs)
{
    const std::string db = file("p.aclgi");
    ImportOptions options;
    options.simulateScenarios = true;
    auto results = importPaths(db, { kData + "/real/compile/c_trace.log" }, options);
    ASSERT_TRUE(results.ok());
    EXPECT_EQ((*results)[0].status, Status::Imported) << (*results)[0].message;
    EXPECT_EQ((*results)[0].runs, 1);
    auto project = openProject(db);
    auto run = readRun(*project, 1);
    ASSERT_TRUE(run.ok()) << run.error().toString();
    ASSERT_EQ(run->sim.graphs.size(), 3u);
    for (const auto& g : run->sim.graphs) {
        ASSERT_TRUE(run->graphIds.count(g.name)) << g.name;
        auto graph = readGraph(*project, run->graphIds.at(g.name));
        ASSERT_TRUE(graph.ok());
        EXPECT_EQ(graph->id.rfind(g.id + "/", 0), 0u) << graph->id << " for " << g.id;
    }
}

// A PyTorch log and a TORCH_TRACE of the same program (case d_two_functions; the trace is of another run of
// it, with the same compile ids) in one project: the log's run draws its steps' graphs from the trace, by
// compile id (the log's own source has no graph).
TEST_F(Importer, ALogRunJoinsTheGraphsOfItsJobsTrace)
{
    const std::string dir = std::string(ACLGI_TEST_DATA_DIR) + "/real/";
    const std::string db = file("p.aclgi");
    auto logOnly = importPaths(db, { dir + "logs/d_two_functions.log" });
    ASSERT_TRUE(logOnly.ok());
    auto project = openProject(db);
    ASSERT_TRUE(project.ok());
    auto runs = listRuns(*project);
    ASSERT_TRUE(runs.ok() && runs->size() == 1);
    const int64_t logRun = runs->front().id;
    auto alone = readRun(*project, logRun);
    ASSERT_TRUE(alone.ok());
    EXPECT_TRUE(alone->graphIds.empty()) << "a log alone has no graph to draw";
    auto withTrace = importPaths(db, { dir + "trace/two_functions.log" });
    ASSERT_TRUE(withTrace.ok());
    ASSERT_EQ((*withTrace)[0].status, Status::Imported) << (*withTrace)[0].message;
    auto joined = readRun(*project, logRun);
    ASSERT_TRUE(joined.ok());
    ASSERT_EQ(joined->sim.graphs.size(), 2u); // 0/0 and 0/1
    for (const auto& g : joined->sim.graphs) {
        ASSERT_TRUE(joined->graphIds.count(g.name)) << g.name;
        auto graph = readGraph(*project, joined->graphIds.at(g.name));
        ASSERT_TRUE(graph.ok());
        EXPECT_EQ(graph->id.rfind(g.name + "/", 0), 0u) << graph->id << " for " << g.name;
    }
}

// A run log streams into the tables as it is read (engine/ingest/run_log.h): its calls, steps with
// their line numbers and summary are stored as the reader in memory gives them; a cancel halfway
// leaves nothing of it.
TEST_F(Importer, ARunLogIsStreamedIntoARecordedRun)
{
    const std::string log
        = std::string(ACLGI_SOURCE_DIR) + "/resources/samples/logs/09_capture_limit_fallback.torchair.log";
    auto inMemory = engine::ingest::readRunLog(log);
    ASSERT_TRUE(inMemory.ok());
    ASSERT_EQ(inMemory->runs.size(), 1u);
    const auto& expected = inMemory->runs[0].sim;

    const std::string db = file("p.aclgi");
    auto results = importPaths(db, { log });
    ASSERT_TRUE(results.ok());
    ASSERT_EQ((*results)[0].status, Status::Imported) << (*results)[0].message;
    EXPECT_EQ((*results)[0].runs, 1);
    EXPECT_FALSE((*results)[0].diagnostics.empty()); // the simulator's summary lines: foreign, named
    auto project = openProject(db);
    auto run = readRun(*project, 1);
    ASSERT_TRUE(run.ok()) << run.error().toString();
    EXPECT_TRUE(run->row.origin.log);
    EXPECT_EQ(run->row.origin.recordedAs, "TorchAir log");
    ASSERT_EQ(run->sim.calls.size(), expected.calls.size());
    for (size_t i = 0; i < expected.calls.size(); ++i) {
        EXPECT_EQ(run->sim.calls[i].graph, expected.calls[i].graph);
        EXPECT_EQ(run->sim.calls[i].key, expected.calls[i].key);
        EXPECT_EQ(run->sim.calls[i].action, expected.calls[i].action);
        EXPECT_EQ(run->sim.calls[i].pools.size(), expected.calls[i].pools.size());
    }
    ASSERT_EQ(run->sim.events.size(), expected.events.size());
    for (size_t i = 0; i < expected.events.size(); ++i) {
        ASSERT_EQ(run->sim.events[i].log.size(), expected.events[i].log.size());
        for (size_t l = 0; l < expected.events[i].log.size(); ++l)
            EXPECT_EQ(run->sim.events[i].log[l].sourceLine, expected.events[i].log[l].sourceLine);
    }
    EXPECT_EQ(run->sim.hazards.size(), expected.hazards.size());
    EXPECT_EQ(run->sim.graphs.size(), expected.graphs.size());
    // What the log does not tell (schema 7): stored with the run, as the reader listed it.
    EXPECT_FALSE(expected.assumptions.empty());
    EXPECT_EQ(run->sim.assumptions, expected.assumptions);
    EXPECT_EQ(run->row.calls, int64_t(expected.calls.size()));

    const std::string db2 = file("q.aclgi");
    ImportOptions options;
    uint64_t done = 0, total = 1;
    options.progress = [&](const ImportProgress& p) {
        if (p.phase == "reading the log" && p.unit == "bytes") {
            done = p.done;
            total = p.total;
        }
    };
    options.cancelled = [&] { return done > 0 && done * 2 >= total; };
    results = importPaths(db2, { log }, options);
    ASSERT_TRUE(results.ok());
    EXPECT_EQ((*results)[0].status, Status::Cancelled);
    auto second = openProject(db2);
    auto runs = listRuns(*second);
    ASSERT_TRUE(runs.ok());
    EXPECT_TRUE(runs->empty());
}

TEST_F(Importer, FailureLeavesTheDatabaseAsItWas)
{
    const std::string db = file("p.aclgi");
    ASSERT_TRUE(importPaths(db, { kData + "/fx/print_readable_simple.py" }).ok());
    auto project = openProject(db);
    const std::string before = dumpAll(*project);
    auto results = importPaths(db,
        { kData + "/fx/broken_truncated.py", kData + "/scenarios/truncated.json",
            write("junk.json", "{ \"graphs\": [ 1, "), file("missing.py") });
    ASSERT_TRUE(results.ok());
    for (const SourceResult& r : *results) {
        EXPECT_EQ(r.status, Status::Failed) << r.path;
        EXPECT_NE(r.message.find(fs::path(r.path).filename().string()), std::string::npos) << r.message;
        EXPECT_EQ(r.sourceId, 0);
    }
    EXPECT_EQ(dumpAll(*project), before);
}

TEST_F(Importer, CancelMidWriteRollsBackAndStops)
{
    const std::string big = decoder("big.json", 8);
    const std::string db = file("p.aclgi");
    ASSERT_TRUE(importPaths(db, { kData + "/fx/print_readable_simple.py" }).ok());
    auto project = openProject(db);
    const std::string before = dumpAll(*project);

    bool stop = false;
    int64_t rowsSeen = 0;
    ImportOptions options;
    options.progress = [&](const ImportProgress& p) {
        if (p.phase == "writing" && p.rows > 0) {
            rowsSeen = p.rows;
            stop = true; // cancel once the first tick of rows is written
        }
    };
    options.cancelled = [&] { return stop; };
    auto results = importPaths(db, { big, kData + "/torchair/output_code_static.py" }, options);
    ASSERT_TRUE(results.ok());
    EXPECT_GE(rowsSeen, 4096);
    EXPECT_EQ((*results)[0].status, Status::Cancelled);
    EXPECT_EQ((*results)[1].status, Status::Cancelled); // not started
    EXPECT_EQ(dumpAll(*project), before);

    // Without the cancel the same file imports.
    stop = false;
    options.cancelled = {};
    auto ok = importPaths(db, { big }, options);
    ASSERT_TRUE(ok.ok());
    EXPECT_EQ((*ok)[0].status, Status::Imported) << (*ok)[0].message;
}

TEST_F(Importer, JobRunsOffTheCallersThreadAndCancels)
{
    const std::string db = file("p.aclgi");
    const auto caller = std::this_thread::get_id();
    std::atomic<bool> otherThread { false };
    std::atomic<int> done { 0 };
    ImportOptions options;
    options.progress = [&](const ImportProgress& p) {
        otherThread = std::this_thread::get_id() != caller;
        done += p.phase == "done";
    };
    {
        ImportJob job(db, { kData + "/fx/print_readable_simple.py", kData + "/scenarios/decode_basic.json" }, options);
        auto results = job.wait();
        ASSERT_TRUE(results.ok());
        EXPECT_TRUE(job.finished());
        ASSERT_EQ(results->size(), 2u);
        EXPECT_EQ((*results)[1].status, Status::Imported);
    }
    EXPECT_TRUE(otherThread);
    EXPECT_EQ(done, 2);

    // cancel() before the worker gets going: nothing is imported.
    const std::string big = decoder("big.json", 4);
    ImportOptions slow;
    std::atomic<bool> go { false };
    slow.progress = [&](const ImportProgress&) {
        while (!go)
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
    };
    ImportJob job(db, { big }, slow);
    job.cancel();
    go = true;
    auto results = job.wait();
    ASSERT_TRUE(results.ok());
    EXPECT_EQ((*results)[0].status, Status::Cancelled);
    auto project = openProject(db);
    EXPECT_EQ(count(*project, "SELECT count(*) FROM sources"), 2);
}

// The kill test: a child process imports three sources and is killed with SIGKILL in the middle of
// writing the third. The file must open, pass integrity_check, and hold the first two completely.
TEST_F(Importer, KilledMidImportLeavesCompletedImportsIntact)
{
    const std::vector<std::string> paths
        = { kData + "/scenarios/decode_basic.json", kData + "/fx/print_readable_simple.py", decoder("big.json", 8) };
    const std::string db = file("p.aclgi");
    int pipeFd[2];
    ASSERT_EQ(pipe(pipeFd), 0);
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        close(pipeFd[0]);
        ImportOptions options;
        options.progress = [&](const ImportProgress& p) {
            if (p.source == 2 && p.phase == "writing" && p.rows > 0) {
                // Mid-transaction: tell the parent, then wait to be killed.
                const char c = 'w';
                (void)!::write(pipeFd[1], &c, 1);
                for (;;)
                    pause();
            }
        };
        auto results = importPaths(db, paths, options);
        _exit(results.ok() ? 3 : 4); // reaching this is a failure: the parent expects to kill us
    }
    close(pipeFd[1]);
    char c = 0;
    const ssize_t got = read(pipeFd[0], &c, 1);
    close(pipeFd[0]);
    kill(child, SIGKILL);
    int status = 0;
    waitpid(child, &status, 0);
    ASSERT_EQ(got, 1) << "the child finished without reaching the third source's write";
    ASSERT_TRUE(WIFSIGNALED(status));

    auto project = openProject(db);
    ASSERT_TRUE(project.ok()) << project.error().toString();
    auto check = project->prepare("PRAGMA integrity_check");
    ASSERT_TRUE(*check->step());
    EXPECT_EQ(check->columnText(0), "ok");
    EXPECT_EQ(count(*project, "SELECT count(*) FROM sources"), 2);
    EXPECT_EQ(count(*project, "SELECT count(*) FROM graphs WHERE source_id NOT IN (SELECT id FROM sources)"), 0);
    EXPECT_EQ(
        count(*project,
            "SELECT count(*) FROM graphs g WHERE node_count != (SELECT count(*) FROM nodes n WHERE n.graph_id = g.id)"),
        0);
    EXPECT_GT(count(*project, "SELECT count(*) FROM nodes"), 0);
    // And the third imports cleanly afterwards.
    auto retry = importPaths(db, { paths[2] });
    ASSERT_TRUE(retry.ok());
    EXPECT_EQ((*retry)[0].status, Status::Imported) << (*retry)[0].message;
}

} // namespace

// A memory snapshot (tests/data/snapshots, made by make_snapshot_fixtures.py) is imported as a run per
// device: one event per trace entry, the memory after the last one is the file's own final state
// pool by pool (manifest.json, written by the same script), and the private pools keep the captured
// graph the frames name. A compiled_module, also a pickle, is still a cache entry; a truncated
// snapshot is refused, naming the file and the offset, and nothing is written.
TEST_F(Importer, ImportsAMemorySnapshotAsARunPerDevice)
{
    const std::string dir = kData + "/snapshots/";
    ASSERT_EQ(detectSourceKind(dir + "graph_pools.pickle").value(), SourceKind::MemorySnapshot);
    ASSERT_EQ(detectSourceKind(dir + "bare_list.pickle").value(), SourceKind::MemorySnapshot);
    std::ifstream manifestFile(dir + "manifest.json");
    const auto manifest = nlohmann::json::parse(manifestFile);
    const auto& expected = manifest.at("graph_pools.pickle");

    const std::string db = file("p.aclgi");
    auto results = importPaths(db, { dir + "graph_pools.pickle" });
    ASSERT_TRUE(results.ok());
    ASSERT_EQ((*results)[0].status, Status::Imported) << (*results)[0].message;
    EXPECT_EQ((*results)[0].kind, "memory_snapshot");
    EXPECT_EQ((*results)[0].runs, 1);
    auto project = openProject(db);
    auto runs = listRuns(*project);
    ASSERT_TRUE(runs.ok());
    ASSERT_EQ(runs->size(), 1u);
    const RunRow& row = runs->front();
    EXPECT_EQ(row.backend, "") << "a recording has no backend";
    EXPECT_EQ(row.origin.kind, engine::runtime::RunOriginKind::Recorded);
    EXPECT_NE(row.origin.recordedAs.find("memory snapshot"), std::string::npos) << row.origin.recordedAs;
    EXPECT_FALSE(row.origin.capacityKnown);
    EXPECT_EQ(row.calls, 0);
    EXPECT_EQ(row.events, expected.at("trace_entries").get<int>());
    auto run = readRun(*project, row.id);
    ASSERT_TRUE(run.ok()) << run.error().toString();
    EXPECT_EQ(run->sim.origin.kind, engine::runtime::RunOriginKind::Recorded);
    for (const auto& e : run->sim.events)
        EXPECT_EQ(e.kind, engine::runtime::EventKind::MemoryTrace);

    auto last = memoryAt(*project, row.id, row.events - 1);
    ASSERT_TRUE(last.ok()) << last.error().toString();
    std::map<std::string, std::pair<uint64_t, uint64_t>> pools; // reserved, allocated
    for (const auto& p : *last)
        if (p.reserved > 0)
            pools[p.pool.str()] = { p.reserved, p.allocated };
    ASSERT_EQ(pools.size(), expected.at("pools").size());
    for (const auto& [pool, facts] : expected.at("pools").items()) {
        ASSERT_TRUE(pools.count(pool)) << pool;
        EXPECT_EQ(pools[pool].first, facts.at("reserved").get<uint64_t>()) << pool;
        EXPECT_EQ(pools[pool].second, facts.at("allocated").get<uint64_t>()) << pool;
    }
    int attributed = 0;
    for (const auto& p : run->sim.pools) {
        if (p.graphs.empty())
            continue;
        ++attributed;
        EXPECT_FALSE(p.pool.isDefault()) << "the default pool belongs to no captured graph";
        // Named by the capture kind its frames show (docs/snapshots.md, "Pools and owners").
        EXPECT_TRUE(p.graphs[0].find("capture") != std::string::npos
            || p.graphs[0].find("CUDA Graph Trees pool") != std::string::npos)
            << p.graphs[0];
        EXPECT_EQ(p.graphs[0].find("N/A"), std::string::npos) << p.graphs[0];
    }
    EXPECT_GE(attributed, 2);

    // Another pickle is no snapshot; a cut snapshot writes nothing.
    auto module = detectSourceKind(kData
        + "/cache/torchair_cache/Model_dynamic_aclgraphcache_a007f6e6dc2040589dddfbe1c0a1a354/decode/compiled_module");
    ASSERT_TRUE(module.ok());
    EXPECT_EQ(*module, SourceKind::CacheFile);
    const std::string before = dumpAll(*project);
    auto cut = importPaths(db, { dir + "truncated.pickle" });
    ASSERT_TRUE(cut.ok());
    EXPECT_EQ((*cut)[0].status, Status::Failed);
    EXPECT_NE((*cut)[0].message.find("truncated.pickle: offset "), std::string::npos) << (*cut)[0].message;
    EXPECT_EQ(dumpAll(*project), before);
}

namespace {

/// A memory snapshot pickle (protocol 4) of one device with no segment left and a trace of `pairs`
/// allocations and frees in one 20 MiB segment: enough entries that writing its run crosses
/// progress ticks of rows.
std::string tracePickle(int pairs)
{
    std::string out = "\x80\x04";
    auto text = [&out](const std::string& s) {
        out += '\x8c';
        out += char(s.size());
        out += s;
    };
    auto number = [&out](uint32_t v) {
        out += 'J';
        for (int i = 0; i < 4; ++i)
            out += char((v >> (8 * i)) & 0xff);
    };
    auto entry = [&](const char* action, uint32_t addr, uint32_t size) {
        out += "}(";
        text("action");
        text(action);
        text("addr");
        number(addr);
        text("size");
        number(size);
        text("stream");
        number(0);
        out += 'u';
    };
    const uint32_t segment = 0x10000000, mib = 1 << 20;
    out += "}(";
    text("segments");
    out += ']';
    text("device_traces");
    out += "](](";
    entry("segment_alloc", segment, 20 * mib);
    for (int i = 0; i < pairs; ++i) {
        const uint32_t addr = segment + uint32_t(i % 16) * mib;
        entry("alloc", addr, mib);
        entry("free_requested", addr, mib);
        entry("free_completed", addr, mib);
    }
    entry("segment_free", segment, 20 * mib);
    out += "ee"; // the trace into the device list, the device list ends
    out += "u."; // the dict's items; STOP
    return out;
}

} // namespace

// A memory snapshot is read with progress in bytes, then replayed into the project in the write
// transaction with progress in trace entries, at most once per percent. A cancel in the middle of
// writing its run (or while reading) leaves the project as it was; without one it imports.
TEST_F(Importer, CancelledSnapshotImportLeavesTheProjectAsItWas)
{
    const int pairs = 1500;
    const std::string snapshot = write("trace.pickle", tracePickle(pairs));
    ASSERT_EQ(detectSourceKind(snapshot).value(), SourceKind::MemorySnapshot);
    const uint64_t entries = 3 * pairs + 2;
    const std::string db = file("p.aclgi");
    ASSERT_TRUE(importPaths(db, { kData + "/fx/print_readable_simple.py" }).ok());
    auto project = openProject(db);
    const std::string before = dumpAll(*project);

    std::vector<ImportProgress> reports;
    bool writing = false;
    int askedWhileWriting = 0;
    ImportOptions options;
    options.progress = [&](const ImportProgress& p) {
        reports.push_back(p);
        writing = p.phase == "writing";
    };
    // The first two questions while writing come before the run's first row (the replay's progress
    // starting, the checkpoint before the device); the next from inside it (a tick of rows, or the
    // replay's progress).
    options.cancelled = [&] { return writing && ++askedWhileWriting >= 3; };
    auto cancelled = importPaths(db, { snapshot }, options);
    ASSERT_TRUE(cancelled.ok());
    EXPECT_EQ((*cancelled)[0].status, Status::Cancelled) << (*cancelled)[0].message;
    EXPECT_EQ((*cancelled)[0].runs, 0);
    EXPECT_EQ(askedWhileWriting, 3);
    EXPECT_EQ(dumpAll(*project), before);

    // Cancelled while reading the file: nothing written either.
    options.cancelled = [&] { return !reports.empty() && reports.back().unit == "bytes"; };
    auto whileReading = importPaths(db, { snapshot }, options);
    ASSERT_TRUE(whileReading.ok());
    EXPECT_EQ((*whileReading)[0].status, Status::Cancelled);
    EXPECT_EQ(dumpAll(*project), before);

    reports.clear();
    options.cancelled = {};
    auto imported = importPaths(db, { snapshot }, options);
    ASSERT_TRUE(imported.ok());
    const SourceResult& r = (*imported)[0];
    ASSERT_EQ(r.status, Status::Imported) << r.message;
    EXPECT_EQ(r.runs, 1);
    EXPECT_GT(r.rows, 4096);
    EXPECT_EQ(count(*project, "SELECT count(*) FROM runs r JOIN sources s ON r.source_id = s.id"), 1);
    EXPECT_EQ(count(*project, "SELECT events FROM runs"), int64_t(entries));
    EXPECT_EQ(count(*project, "SELECT count(*) FROM run_events"), int64_t(entries));

    std::map<std::string, int> perUnit;
    for (const ImportProgress& p : reports) {
        ++perUnit[p.unit];
        if (p.unit.empty()) {
            EXPECT_EQ(p.total, 0u);
            continue;
        }
        EXPECT_LE(p.done, p.total);
        if (p.unit == "bytes") {
            EXPECT_TRUE(p.phase == "reading" || p.phase == "hashing") << p.phase;
            EXPECT_EQ(p.total, fs::file_size(snapshot));
        } else {
            EXPECT_EQ(p.unit, "entries");
            ++perUnit[p.phase];
            if (p.phase == "summarizing") {
                // summarizePools replays the trace twice (pool peaks, then the story's per-pool
                // peaks), each undoing then applying every entry.
                EXPECT_EQ(p.total, 4 * entries);
            } else {
                EXPECT_EQ(p.phase, "writing");
                EXPECT_EQ(p.total, entries);
            }
        }
    }
    EXPECT_GE(perUnit["summarizing"], 1);
    EXPECT_GE(perUnit["bytes"], 1);
    EXPECT_LE(perUnit["bytes"], 101);
    EXPECT_GE(perUnit["entries"], 2); // the start and the end at least
    EXPECT_LE(perUnit["entries"] - perUnit["summarizing"], 101);
    EXPECT_LE(perUnit["summarizing"], 101);
    EXPECT_LE(perUnit[""], 6); // hashing, reading, summarizing, writing, done: rows ride along
    EXPECT_EQ(reports.back().phase, "done");
    const ImportProgress& last = reports[reports.size() - 2];
    EXPECT_EQ(last.done, entries);
    EXPECT_EQ(progressWords(last).phase, "replaying");
    EXPECT_EQ(progressWords(last).amount, "100%");
}

// What a status line says of a progress report.
TEST(ImportProgressWords, PhaseAndAmount)
{
    ImportProgress p;
    p.phase = "reading";
    p.unit = "bytes";
    p.done = 312ull << 20;
    p.total = 1006ull << 20;
    EXPECT_EQ(progressWords(p).phase, "reading");
    EXPECT_EQ(progressWords(p).amount, "312/1006 MiB");
    p.done = 512;
    p.total = 1377;
    EXPECT_EQ(progressWords(p).amount, "1/1 KiB");
    p.phase = "writing";
    p.unit = "entries";
    p.done = 45;
    p.total = 100;
    p.rows = 5000;
    EXPECT_EQ(progressWords(p).phase, "replaying");
    EXPECT_EQ(progressWords(p).amount, "45%");
    p.phase = "summarizing"; // the replay for the pools' peaks, before writing
    EXPECT_EQ(progressWords(p).phase, "summarizing");
    p.phase = "writing";
    p.unit.clear();
    p.done = p.total = 0;
    p.rows = 120000;
    EXPECT_EQ(progressWords(p).phase, "writing");
    EXPECT_EQ(progressWords(p).amount, "120,000 rows");
    p.rows = 0;
    EXPECT_EQ(progressWords(p).amount, "");
}
