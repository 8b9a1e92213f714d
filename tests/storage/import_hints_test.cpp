// A memory snapshot imported into a project is told with the project's TORCH_TRACE of the same run
// (storage/import_hints.h): the real recording c_ind_static (tests/data/real/compile, PyTorch 2.11
// on one H200) with its own trace c_trace.log, in one import in either order and in two imports;
// with trace/two_functions.log, another run, its compile ids stay unknown and the source says why.
// Expected facts: tests/data/real/cudagraph_cases/truth.md, c_ind_static (compile 0/1 recorded 4
// times, 0/2 once).
#include "storage/importer.h"
#include "storage/project_db.h"
#include "storage/run_store.h"

#include <filesystem>
#include <gtest/gtest.h>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

namespace fs = std::filesystem;
using namespace storage;
using Status = SourceResult::Status;

const std::string kReal = std::string(ACLGI_TEST_DATA_DIR) + "/real";
const std::string kSnapshot = kReal + "/compile/c_ind_static.pickle";
const std::string kTrace = kReal + "/compile/c_trace.log";
const std::string kOtherTrace = kReal + "/trace/two_functions.log";

class ImportHints : public ::testing::Test {
protected:
    void SetUp() override
    {
        m_dir = fs::temp_directory_path()
            / ("aclgi-hints-" + std::to_string(getpid()) + "-"
                + ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(m_dir);
        fs::create_directories(m_dir);
        m_options.runPasses = false; // the owners are the point here, not the graphs' passes
    }
    void TearDown() override { fs::remove_all(m_dir); }
    std::string file(const std::string& name) const { return (m_dir / name).string(); }

    /// Imports `paths` into `db`; every source imported.
    std::vector<SourceResult> import(const std::string& db, const std::vector<std::string>& paths)
    {
        auto results = importPaths(db, paths, m_options);
        EXPECT_TRUE(results.ok()) << results.error().toString();
        if (!results.ok())
            return {};
        EXPECT_EQ(results->size(), paths.size());
        for (const SourceResult& r : *results)
            EXPECT_EQ(r.status, Status::Imported) << r.path << ": " << r.message;
        return std::move(results.value());
    }
    /// The owners of the project's only snapshot run.
    std::vector<engine::runtime::OwnerInfo> snapshotOwners(const std::string& db)
    {
        auto project = openProject(db);
        EXPECT_TRUE(project.ok());
        auto runs = listRuns(*project);
        EXPECT_TRUE(runs.ok());
        if (!runs.ok() || runs->size() != 1u) {
            ADD_FAILURE() << "one run expected";
            return {};
        }
        auto run = readRun(*project, runs->front().id);
        EXPECT_TRUE(run.ok()) << run.error().toString();
        return run.ok() ? run->sim.owners : std::vector<engine::runtime::OwnerInfo> {};
    }

    fs::path m_dir;
    ImportOptions m_options;
};

int countPrefix(const std::vector<engine::runtime::OwnerInfo>& owners, const std::string& prefix)
{
    int n = 0;
    for (const auto& o : owners)
        n += o.graph.rfind(prefix, 0) == 0;
    return n;
}

bool mentions(const std::vector<std::string>& lines, const std::string& text)
{
    for (const std::string& l : lines)
        if (l.find(text) != std::string::npos)
            return true;
    return false;
}

/// The recordings named by compile id, as truth.md has them, and their evidence naming the trace.
void expectNamedByTrace(const std::vector<engine::runtime::OwnerInfo>& owners)
{
    for (int k = 1; k <= 4; ++k)
        EXPECT_GT(countPrefix(owners, "compile 0/1 recording " + std::to_string(k)), 0) << k;
    EXPECT_EQ(countPrefix(owners, "compile 0/1 recording 5"), 0);
    EXPECT_GT(countPrefix(owners, "compile 0/2 recording 1"), 0);
    EXPECT_EQ(countPrefix(owners, "compile 0/2 recording 2"), 0);
    EXPECT_EQ(countPrefix(owners, "compile 0/0 recording "), 0);
    EXPECT_GT(countPrefix(owners, "compile 0/1 warm-up 1"), 0);
    EXPECT_EQ(countPrefix(owners, "graph c"), 0) << "no owner left with only its module hash";
    int recordings = 0;
    for (const auto& o : owners)
        if (o.graph.rfind("compile 0/1 recording", 0) == 0) {
            ++recordings;
            EXPECT_EQ(o.category, "graph tensor");
            EXPECT_NE(o.evidence.find("compile id 0/1 from the inductor_output_code record of"), std::string::npos)
                << o.evidence;
            EXPECT_NE(o.evidence.find("c_trace.log"), std::string::npos) << o.evidence;
            EXPECT_NE(o.evidence.find("CUDAGraphNode.record span"), std::string::npos) << o.evidence;
        }
    EXPECT_GT(recordings, 0);
}

const SourceResult& snapshotResult(const std::vector<SourceResult>& results)
{
    for (const SourceResult& r : results)
        if (r.kind == "memory_snapshot")
            return r;
    static const SourceResult none;
    ADD_FAILURE() << "no snapshot among the results";
    return none;
}

} // namespace

TEST_F(ImportHints, TraceAndSnapshotInOneImportEitherOrder)
{
    for (const bool snapshotFirst : { true, false }) {
        SCOPED_TRACE(snapshotFirst ? "snapshot first" : "trace first");
        const std::string db = file(snapshotFirst ? "a.aclgi" : "b.aclgi");
        const auto results
            = import(db, snapshotFirst ? std::vector { kSnapshot, kTrace } : std::vector { kTrace, kSnapshot });
        ASSERT_EQ(results.size(), 2u);
        // The results keep the order of the paths given.
        EXPECT_EQ(results[0].kind, snapshotFirst ? "memory_snapshot" : "torch_trace");
        const SourceResult& snap = snapshotResult(results);
        EXPECT_TRUE(mentions(snap.diagnostics, "owners named with the hints of TORCH_TRACE source"));
        EXPECT_FALSE(mentions(snap.diagnostics, "compile ids unknown"));
        expectNamedByTrace(snapshotOwners(db));
        // The graph pool is named with the compile ids too, not the modules' hashes.
        auto project = openProject(db);
        ASSERT_TRUE(project.ok());
        auto runs = listRuns(*project);
        ASSERT_TRUE(runs.ok() && runs->size() == 1u);
        auto run = readRun(*project, runs->front().id);
        ASSERT_TRUE(run.ok());
        bool named = false;
        for (const auto& p : run->sim.pools)
            if (p.pool == engine::memory::PoolId { 0, 1 }) {
                ASSERT_EQ(p.graphs.size(), 1u);
                EXPECT_NE(p.graphs[0].find("compile 0/1"), std::string::npos) << p.graphs[0];
                EXPECT_EQ(p.graphs[0].find("graph c"), std::string::npos) << p.graphs[0];
                named = true;
            }
        EXPECT_TRUE(named);
    }
}

TEST_F(ImportHints, SnapshotImportedAfterItsTraceReadsTheTraceAgain)
{
    const std::string db = file("p.aclgi");
    import(db, { kTrace });
    const auto results = import(db, { kSnapshot });
    ASSERT_EQ(results.size(), 1u);
    EXPECT_TRUE(mentions(results[0].diagnostics, "c_trace.log"));
    expectNamedByTrace(snapshotOwners(db));
}

TEST_F(ImportHints, TraceOfAnotherRunIsNotUsed)
{
    const std::string db = file("p.aclgi");
    const auto results = import(db, { kOtherTrace, kSnapshot });
    const SourceResult& snap = snapshotResult(results);
    EXPECT_TRUE(mentions(snap.diagnostics, "no TORCH_TRACE of this run in the project: compile ids unknown"))
        << (snap.diagnostics.empty() ? std::string() : snap.diagnostics.back());
    EXPECT_FALSE(mentions(snap.diagnostics, "owners named with the hints"));
    const auto owners = snapshotOwners(db);
    EXPECT_EQ(countPrefix(owners, "compile 0/"), 0);
    EXPECT_GT(countPrefix(owners, "graph c"), 0);
    for (const auto& o : owners)
        EXPECT_EQ(o.evidence.find("two_functions.log"), std::string::npos) << o.evidence;

    // With its own trace imported too, only that one is used.
    const auto again = import(file("q.aclgi"), { kSnapshot, kOtherTrace, kTrace });
    const SourceResult& told = snapshotResult(again);
    EXPECT_TRUE(mentions(told.diagnostics, "c_trace.log"));
    EXPECT_FALSE(mentions(told.diagnostics, "two_functions.log"));
    expectNamedByTrace(snapshotOwners(file("q.aclgi")));
}

TEST_F(ImportHints, ATraceNoLongerOnDiskIsNamed)
{
    const std::string db = file("p.aclgi");
    const std::string copy = file("c_trace.log");
    fs::copy_file(kTrace, copy);
    import(db, { copy });
    fs::remove(copy);
    const auto results = import(db, { kSnapshot });
    ASSERT_EQ(results.size(), 1u);
    EXPECT_TRUE(mentions(results[0].diagnostics, "is no longer on disk"));
    EXPECT_TRUE(mentions(results[0].diagnostics, "no TORCH_TRACE of this run in the project: compile ids unknown"));
    EXPECT_EQ(countPrefix(snapshotOwners(db), "compile 0/"), 0);
}
