// Simulating an imported source from the project (storage/simulate_source.h): a graph file, a
// scenario with two graphs and a TORCH_COMPILE_DEBUG folder each give a run whose readRun graphIds
// map TorchAir's graph names to the graphs imported from the same source; what describeSource says
// (symbols, a snapshot not simulatable); the failures that write nothing (a file changed or gone, an
// invalid override, a missing symbol, a cancel).
#include "storage/importer.h"
#include "storage/project_db.h"
#include "storage/resimulate.h"
#include "storage/run_store.h"
#include "storage/simulate_source.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;
using namespace storage;

const fs::path kData = ACLGI_TEST_DATA_DIR;
const fs::path kSource = ACLGI_SOURCE_DIR;

class SimulateSource : public ::testing::Test {
protected:
    void SetUp() override
    {
        m_dir = fs::temp_directory_path()
            / ("aclgi-simsrc-" + std::to_string(getpid()) + "-"
                + ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(m_dir);
        fs::create_directories(m_dir);
        m_db = (m_dir / "p.aclgi").string();
    }
    void TearDown() override { fs::remove_all(m_dir); }

    /// Copies `from` (file or folder) into the test folder and imports it; returns its source id.
    int64_t import(const fs::path& from)
    {
        const fs::path to = m_dir / from.filename();
        fs::copy(from, to, fs::copy_options::recursive);
        ImportOptions options;
        options.runPasses = true;
        auto results = importPaths(m_db, { to.string() }, options);
        EXPECT_TRUE(results.ok());
        if (!results.ok() || results->empty())
            return 0;
        EXPECT_EQ((*results)[0].status, SourceResult::Status::Imported) << (*results)[0].message;
        return (*results)[0].sourceId;
    }
    Database& db()
    {
        if (!m_open) {
            auto opened = openProject(m_db);
            EXPECT_TRUE(opened.ok());
            m_open.emplace(std::move(*opened));
        }
        return *m_open;
    }
    SimulateSourceRequest request(int64_t source)
    {
        SimulateSourceRequest r;
        r.dbPath = m_db;
        r.sourceId = source;
        return r;
    }
    size_t runCount()
    {
        auto runs = listRuns(db());
        return runs.ok() ? runs->size() : 0;
    }
    /// The graphs.id of the stage-0 graph of `source` named `name` (or in group `group`).
    int64_t graphId(int64_t source, const std::string& where)
    {
        auto s = db().prepare("SELECT id FROM graphs WHERE source_id = ? AND " + where + " ORDER BY id LIMIT 1");
        EXPECT_TRUE(s.ok());
        s->bind(1, source);
        auto row = s->step();
        return row.ok() && *row ? s->columnInt(0) : -1;
    }

    fs::path m_dir;
    std::string m_db;
    std::optional<Database> m_open;
};

TEST_F(SimulateSource, GraphFileRunLinksItsGraph)
{
    const int64_t source = import(kData / "fx" / "print_readable_simple.py");
    ASSERT_GT(source, 0);
    auto described = describeSource(db(), source);
    ASSERT_TRUE(described.ok()) << described.error().toString();
    EXPECT_TRUE(described->simulatable) << described->why;
    EXPECT_EQ(described->kind, "fx_graph");
    EXPECT_TRUE(described->symbols.empty());

    auto r = simulateSource(request(source));
    ASSERT_TRUE(r.ok()) << r.error().toString();
    auto run = readRun(db(), r->runId);
    ASSERT_TRUE(run.ok()) << run.error().toString();
    EXPECT_EQ(run->row.sourceId, std::optional<int64_t>(source));
    // The simulator names the graph by the file's base name, the import by the FX graph's name.
    const int64_t imported = graphId(source, "stage = 0");
    ASSERT_GT(imported, 0);
    ASSERT_EQ(run->graphIds.count("graph_1"), 1u);
    EXPECT_EQ(run->graphIds.at("graph_1"), imported);
    EXPECT_EQ(run->sim.callsSimulated, 2);
}

TEST_F(SimulateSource, SymbolsAreListedAndNeeded)
{
    const int64_t source = import(kData / "fx" / "aot_forward_expanded.txt");
    ASSERT_GT(source, 0);
    auto described = describeSource(db(), source);
    ASSERT_TRUE(described.ok());
    ASSERT_TRUE(described->simulatable) << described->why;
    ASSERT_EQ(described->symbols, std::vector<std::string> { "s0" });
    EXPECT_FALSE(described->symbolMeanings.at("s0").empty());

    auto missing = simulateSource(request(source));
    ASSERT_FALSE(missing.ok());
    EXPECT_NE(missing.error().message.find("s0"), std::string::npos) << missing.error().toString();
    EXPECT_EQ(runCount(), 0u);

    auto req = request(source);
    req.symbols["s0"] = 4;
    req.calls = 3;
    auto r = simulateSource(req);
    ASSERT_TRUE(r.ok()) << r.error().toString();
    auto run = readRun(db(), r->runId);
    ASSERT_TRUE(run.ok());
    EXPECT_EQ(run->sim.callsSimulated, 3);
    EXPECT_EQ(run->graphIds.count("graph_1"), 1u);
}

TEST_F(SimulateSource, ScenarioWithTwoGraphsLinksBoth)
{
    const int64_t source = import(kSource / "resources" / "samples" / "01_prompt_and_decode.json");
    ASSERT_GT(source, 0);
    auto req = request(source);
    req.overrides = { "clone_output=True" };
    auto r = simulateSource(req);
    ASSERT_TRUE(r.ok()) << r.error().toString();
    auto run = readRun(db(), r->runId);
    ASSERT_TRUE(run.ok());
    ASSERT_EQ(run->sim.graphs.size(), 2u);
    for (const auto& g : run->sim.graphs) {
        ASSERT_EQ(run->graphIds.count(g.name), 1u) << g.name;
        EXPECT_EQ(run->graphIds.at(g.name), graphId(source, "stage = 0 AND name = '" + g.id + "'")) << g.id;
    }
    EXPECT_NE(run->graphIds.at("graph_1"), run->graphIds.at("graph_2"));
    auto overrides = readRunOverrides(db(), r->runId);
    ASSERT_TRUE(overrides.ok());
    EXPECT_EQ(*overrides, std::vector<std::string> { "clone_output=True" });
}

TEST_F(SimulateSource, DebugFolderLinksEachGroup)
{
    const int64_t source = import(kData / "debug_dir" / "torch_compile_debug");
    ASSERT_GT(source, 0);
    auto r = simulateSource(request(source));
    ASSERT_TRUE(r.ok()) << r.error().toString();
    auto run = readRun(db(), r->runId);
    ASSERT_TRUE(run.ok());
    ASSERT_FALSE(run->sim.graphs.empty());
    for (const auto& g : run->sim.graphs) {
        ASSERT_EQ(run->graphIds.count(g.name), 1u) << g.name << " (" << g.id << ")";
        // The group's graph TorchAir's passes ran on, not its pre-AOT Dynamo dump.
        const int64_t linked = run->graphIds.at(g.name);
        EXPECT_EQ(linked,
            graphId(
                source, "grp = '" + g.id + "' AND EXISTS (SELECT 1 FROM pass_reports p WHERE p.graph_id = graphs.id)"))
            << g.id;
    }
}

TEST_F(SimulateSource, ChangedOrGoneFileIsAnError)
{
    const int64_t source = import(kData / "fx" / "print_readable_simple.py");
    ASSERT_GT(source, 0);
    const fs::path file = m_dir / "print_readable_simple.py";
    {
        std::ofstream append(file, std::ios::app);
        append << "\n# edited\n";
    }
    auto changed = simulateSource(request(source));
    ASSERT_FALSE(changed.ok());
    EXPECT_NE(changed.error().message.find("changed since it was imported"), std::string::npos);
    EXPECT_EQ(changed.error().context, file.string());
    fs::remove(file);
    auto gone = simulateSource(request(source));
    ASSERT_FALSE(gone.ok());
    EXPECT_EQ(gone.error().code, ErrorCode::NotFound);
    EXPECT_EQ(gone.error().context, file.string());
    auto described = describeSource(db(), source);
    ASSERT_TRUE(described.ok());
    EXPECT_FALSE(described->simulatable);
    EXPECT_NE(described->why.find("no longer there"), std::string::npos);
    EXPECT_EQ(runCount(), 0u);
}

TEST_F(SimulateSource, InvalidOverrideAndCancelWriteNothing)
{
    const int64_t source = import(kData / "fx" / "print_readable_simple.py");
    ASSERT_GT(source, 0);
    auto req = request(source);
    req.overrides = { "debug.aclgraph.static_capture_size_limit='x'" };
    auto bad = simulateSource(req);
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().context, "debug.aclgraph.static_capture_size_limit");
    req.overrides = { "no equals sign" };
    EXPECT_FALSE(simulateSource(req).ok());

    req.overrides.clear();
    req.progress = [](int, int) { return true; };
    auto cancelled = simulateSource(req);
    ASSERT_FALSE(cancelled.ok());
    EXPECT_EQ(cancelled.error().code, ErrorCode::Cancelled);
    EXPECT_EQ(runCount(), 0u);
}

TEST_F(SimulateSource, SnapshotIsNotSimulatable)
{
    const int64_t source = import(kData / "snapshots" / "bare_list.pickle");
    ASSERT_GT(source, 0);
    auto described = describeSource(db(), source);
    ASSERT_TRUE(described.ok());
    EXPECT_FALSE(described->simulatable);
    EXPECT_EQ(described->kind, "memory_snapshot");
    EXPECT_NE(described->why.find("recording"), std::string::npos);
    const size_t before = runCount();
    EXPECT_FALSE(simulateSource(request(source)).ok());
    EXPECT_EQ(runCount(), before);
}

TEST_F(SimulateSource, SourceOfGraphAndUnknownIds)
{
    const int64_t source = import(kData / "fx" / "print_readable_simple.py");
    ASSERT_GT(source, 0);
    auto of = sourceOfGraph(db(), graphId(source, "stage = 0"));
    ASSERT_TRUE(of.ok());
    EXPECT_EQ(*of, source);
    EXPECT_EQ(sourceOfGraph(db(), 999999).error().code, ErrorCode::NotFound);
    EXPECT_EQ(sourceOfCacheEntry(db(), 999999).error().code, ErrorCode::NotFound);
    EXPECT_EQ(describeSource(db(), 999999).error().code, ErrorCode::NotFound);
    EXPECT_EQ(describeCacheEntry(db(), 999999).error().code, ErrorCode::NotFound);
}

// A compile-cache entry is described by its own compiled_module file, under its cache's source, with
// the symbols its graph needs; simulating it gives a run like a graph file's.
TEST_F(SimulateSource, CacheEntryIsItsCompiledModule)
{
    const int64_t source = import(kData / "cache" / "torchair_cache");
    ASSERT_GT(source, 0);
    auto rows = db().prepare("SELECT id, path FROM cache_entries WHERE source_id = ? ORDER BY id");
    ASSERT_TRUE(rows.ok());
    rows->bind(1, source);
    int entries = 0;
    for (auto row = rows->step(); row.ok() && *row; row = rows->step()) {
        ++entries;
        const int64_t entry = rows->columnInt(0);
        const std::string path = rows->columnText(1);
        auto described = describeCacheEntry(db(), entry);
        ASSERT_TRUE(described.ok()) << described.error().toString();
        EXPECT_EQ(described->cacheEntryId, entry);
        EXPECT_EQ(described->sourceId, source);
        EXPECT_EQ(described->path, path);
        EXPECT_EQ(fs::path(path).filename(), "compiled_module");
        EXPECT_EQ(*sourceOfCacheEntry(db(), entry), source);
        EXPECT_TRUE(described->simulatable || !described->why.empty()) << path;
    }
    EXPECT_GT(entries, 0);
}

} // namespace
