// Simulating a stored run again with changed settings (storage/resimulate.h): a sample imported
// with its run, then re-simulated with output cloning on (a new run, its overrides, its memory),
// the same request reused, settings merged on top of the base run's, and the failures that write
// nothing: an invalid value (TorchAir's message), a scenario file that is gone, a cancel.
#include "storage/importer.h"
#include "storage/project_db.h"
#include "storage/resimulate.h"
#include "storage/run_store.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;
using namespace storage;

class Resimulate : public ::testing::Test {
protected:
    void SetUp() override
    {
        m_dir = fs::temp_directory_path()
            / ("aclgi-resim-" + std::to_string(getpid()) + "-"
                + ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(m_dir);
        fs::create_directories(m_dir);
        m_scenario = (m_dir / "held.json").string();
        fs::copy_file(fs::path(ACLGI_SOURCE_DIR) / "resources/samples/07_held_outputs_overwritten.json", m_scenario);
        m_db = (m_dir / "p.aclgi").string();
        ImportOptions options;
        options.simulateScenarios = true;
        auto results = importPaths(m_db, { m_scenario }, options);
        ASSERT_TRUE(results.ok());
        ASSERT_EQ((*results)[0].runs, 1) << (*results)[0].message;
        m_source = (*results)[0].sourceId;
        auto runs = listRuns(db());
        ASSERT_TRUE(runs.ok() && runs->size() == 1);
        m_base = runs->front().id;
    }
    void TearDown() override { fs::remove_all(m_dir); }

    Database& db()
    {
        if (!m_open) {
            auto opened = openProject(m_db);
            EXPECT_TRUE(opened.ok());
            m_open.emplace(std::move(*opened));
        }
        return *m_open;
    }
    size_t runCount()
    {
        auto runs = listRuns(db());
        return runs.ok() ? runs->size() : 0;
    }
    Result<ResimulateResult> run(int64_t base, std::vector<std::string> overrides)
    {
        ResimulateRequest r;
        r.dbPath = m_db;
        r.baseRunId = base;
        r.overrides = std::move(overrides);
        return resimulate(r);
    }

    fs::path m_dir;
    std::string m_scenario, m_db;
    int64_t m_source = 0, m_base = 0;
    std::optional<Database> m_open;
};

TEST_F(Resimulate, NewRunWithOverridesThenReused)
{
    ResimulateRequest request;
    request.dbPath = m_db;
    request.baseRunId = m_base;
    request.overrides = { "debug.aclgraph.enable_output_clone=true" };
    int lastDone = -1, lastTotal = -1;
    request.progress = [&](int done, int total) {
        lastDone = done;
        lastTotal = total;
        return false;
    };
    auto r = resimulate(request);
    ASSERT_TRUE(r.ok()) << r.error().toString();
    EXPECT_FALSE(r->reused);
    EXPECT_NE(r->runId, m_base);
    EXPECT_EQ(lastTotal, 7);
    EXPECT_GE(lastDone, 6);

    auto overrides = readRunOverrides(db(), r->runId);
    ASSERT_TRUE(overrides.ok());
    EXPECT_EQ(*overrides, std::vector<std::string> { "debug.aclgraph.enable_output_clone=True" });
    auto stored = readRun(db(), r->runId);
    ASSERT_TRUE(stored.ok()) << stored.error().toString();
    EXPECT_EQ(stored->row.sourceId, m_source);
    EXPECT_EQ(stored->row.scenarioPath, m_scenario);
    EXPECT_EQ(stored->sim.hazards.size(), 0u); // sample 08's outcome: the outputs are cloned
    EXPECT_NE(stored->configJson.find("\"debug.aclgraph.enable_output_clone\":true"), std::string::npos)
        << stored->configJson;
    auto base = readRun(db(), m_base);
    ASSERT_TRUE(base.ok());
    EXPECT_EQ(base->sim.hazards.size(), 5u);
    auto memory = memoryAt(db(), r->runId, stored->row.events - 1);
    ASSERT_TRUE(memory.ok()) << memory.error().toString();
    EXPECT_FALSE(memory->empty());

    // The same request again, and the same settings typed otherwise: that run, not a new one.
    auto again = run(m_base, { "debug.aclgraph.enable_output_clone=True" });
    ASSERT_TRUE(again.ok());
    EXPECT_TRUE(again->reused);
    EXPECT_EQ(again->runId, r->runId);
    // No override on top of the new run is the new run itself.
    auto itself = run(r->runId, {});
    ASSERT_TRUE(itself.ok());
    EXPECT_TRUE(itself->reused);
    EXPECT_EQ(itself->runId, r->runId);
    EXPECT_EQ(runCount(), 2u);
}

TEST_F(Resimulate, LaterSettingWinsOverTheBaseRuns)
{
    auto cloned = run(m_base, { "clone_output=True", "debug.aclgraph.static_capture_size_limit=4" });
    ASSERT_TRUE(cloned.ok()) << cloned.error().toString();
    // On top of that run: enable_output_clone replaces clone_output (the same option, torchair's name).
    auto back = run(cloned->runId, { "debug.aclgraph.enable_output_clone=False" });
    ASSERT_TRUE(back.ok()) << back.error().toString();
    EXPECT_FALSE(back->reused);
    auto overrides = readRunOverrides(db(), back->runId);
    ASSERT_TRUE(overrides.ok());
    EXPECT_EQ(*overrides,
        (std::vector<std::string> {
            "debug.aclgraph.static_capture_size_limit=4", "debug.aclgraph.enable_output_clone=False" }));
    auto stored = readRun(db(), back->runId);
    ASSERT_TRUE(stored.ok());
    EXPECT_EQ(stored->sim.hazards.size(), 5u);
}

TEST_F(Resimulate, InvalidValueFailsWithTorchairsMessageAndWritesNothing)
{
    auto r = run(m_base, { "debug.aclgraph.static_capture_size_limit='x'" });
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, engine::ErrorCode::InvalidArgument);
    EXPECT_EQ(r.error().message, "Please set integer type, but got <class 'str'>");
    EXPECT_EQ(r.error().context, "debug.aclgraph.static_capture_size_limit");

    auto choice = run(m_base, { "debug.aclgraph.clone_input=maybe" });
    ASSERT_FALSE(choice.ok());
    EXPECT_EQ(choice.error().message,
        "Value 'maybe' (type: <class 'str'>) not in optional list [True, False] (type: <class 'bool'>).");

    auto malformed = run(m_base, { "debug.aclgraph.clone_input" });
    ASSERT_FALSE(malformed.ok());
    EXPECT_EQ(malformed.error().message, "expects NAME=VALUE, got 'debug.aclgraph.clone_input'");
    EXPECT_EQ(runCount(), 1u);
}

TEST_F(Resimulate, ScenarioGoneIsNamed)
{
    fs::remove(m_scenario);
    auto r = run(m_base, { "debug.aclgraph.enable_output_clone=True" });
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, engine::ErrorCode::NotFound);
    EXPECT_NE(r.error().toString().find(m_scenario), std::string::npos) << r.error().toString();
    EXPECT_EQ(runCount(), 1u);

    auto noRun = run(999, {});
    ASSERT_FALSE(noRun.ok());
    EXPECT_EQ(noRun.error().message, "no run 999 in the project");
}

TEST_F(Resimulate, CancelWritesNothing)
{
    ResimulateRequest request;
    request.dbPath = m_db;
    request.baseRunId = m_base;
    request.overrides = { "debug.aclgraph.enable_output_clone=True" };
    request.progress = [](int done, int) { return done >= 2; };
    auto r = resimulate(request);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, engine::ErrorCode::Cancelled);
    EXPECT_EQ(runCount(), 1u);
}

} // namespace

/// The user's own run (a scenario file that names a log and the job's graphs, as `simulate LOG --graphs
/// SRC --db` writes it): imported and simulated, its what-if of a higher capture limit is a new run
/// without the log's fallback.
TEST(ResimulateLog, TheWhatIfOfALogsRunLiftsItsCaptureLimit)
{
    const fs::path dir = fs::temp_directory_path() / ("aclgi-resim-log-" + std::to_string(getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    const fs::path samples = fs::path(ACLGI_SOURCE_DIR) / "resources/samples";
    const std::string file = (dir / "run.json").string();
    {
        std::ofstream f(file);
        f << R"({"format": "aclgraph-inspector-scenario", "version": 1, "name": "my run", "log": {"file": ")"
          << (samples / "logs/09_capture_limit_fallback.torchair.log").string() << R"(", "graphs": ")"
          << (samples / "09_capture_limit_fallback.json").string() << "\"}}";
    }
    const std::string db = (dir / "p.aclgi").string();
    ImportOptions options;
    options.simulateScenarios = true;
    auto results = importPaths(db, { file }, options);
    ASSERT_TRUE(results.ok()) << results.error().toString();
    ASSERT_EQ((*results)[0].runs, 1) << (*results)[0].message;
    auto opened = openProject(db);
    ASSERT_TRUE(opened.ok());
    auto runs = listRuns(*opened);
    ASSERT_TRUE(runs.ok() && runs->size() == 1);
    auto base = readRun(*opened, runs->front().id);
    ASSERT_TRUE(base.ok());
    ASSERT_EQ(base->sim.hazards.size(), 1u); // the log's fallback at call 3, limit 2 from its warning
    EXPECT_EQ(base->sim.hazards[0].call, 3);
    // What the scenario took from the log and what it assumed are stored with the run (schema 7).
    std::string assumed;
    for (const std::string& a : base->sim.assumptions)
        assumed += a + "\n";
    EXPECT_NE(assumed.find("note: assumed: the caller drops each call's outputs"), std::string::npos) << assumed;
    EXPECT_NE(assumed.find("note: unknown: calls after a fallback to eager print nothing"), std::string::npos)
        << assumed;

    ResimulateRequest r;
    r.dbPath = db;
    r.baseRunId = runs->front().id;
    r.overrides = { "debug.aclgraph.static_capture_size_limit=64" };
    auto lifted = resimulate(r);
    ASSERT_TRUE(lifted.ok()) << lifted.error().toString();
    auto stored = readRun(*opened, lifted->runId);
    ASSERT_TRUE(stored.ok());
    EXPECT_TRUE(stored->sim.hazards.empty());
    EXPECT_EQ(stored->row.scenarioPath, file);
    fs::remove_all(dir);
}
