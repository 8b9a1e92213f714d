// Hazards explained on runs read back from the project database (storage::readRun rebuilds no options,
// only the backend): samples 07 (overwritten outputs), 09 (fallback) and 04 (recapture storm) stored
// and read again explain as the simulation itself does, in the stored backend's spelling, and each
// hazard is shown by the same event.
#include "engine/report/hazard_explain.h"
#include "engine/scenario/load.h"
#include "storage/project_db.h"
#include "storage/run_store.h"

#include <gtest/gtest.h>

namespace {

using engine::runtime::Simulation;

struct RoundTrip {
    Simulation simulated;
    storage::StoredRun stored;
};

/// Simulates the sample (as npugraph_ex when `backend` says so), writes the run and reads it back.
RoundTrip roundTrip(const std::string& name, const std::string& backend = {})
{
    RoundTrip out;
    auto scenario = engine::scenario::loadScenarioOrGraph(ACLGI_SOURCE_DIR "/resources/samples/" + name);
    EXPECT_TRUE(scenario.ok()) << (scenario.ok() ? "" : scenario.error().toString());
    if (!scenario.ok())
        return out;
    if (backend == "npugraph_ex") {
        // npugraph_ex refuses torchair's dotted names: the samples' one setting in its own spelling.
        scenario->backend = engine::config::Backend::NpugraphEx;
        scenario->config = { { "frozen_parameter", engine::PyValue::boolean(true) } };
    }
    auto sim = engine::runtime::simulate(*scenario);
    EXPECT_TRUE(sim.ok()) << (sim.ok() ? "" : sim.error().toString());
    if (!sim.ok())
        return out;
    out.simulated = std::move(*sim);
    auto db = storage::openProject(":memory:");
    EXPECT_TRUE(db.ok());
    if (!db.ok())
        return out;
    auto tx = storage::Transaction::begin(*db);
    EXPECT_TRUE(tx.ok());
    storage::WriteContext ctx(*db);
    auto id = storage::writeRun(ctx, out.simulated, storage::RunPlace {}, nullptr);
    EXPECT_TRUE(id.ok()) << (id.ok() ? "" : id.error().toString());
    EXPECT_TRUE(tx->commit().ok());
    auto run = storage::readRun(*db, *id);
    EXPECT_TRUE(run.ok()) << (run.ok() ? "" : run.error().toString());
    if (run.ok())
        out.stored = std::move(*run);
    return out;
}

/// Every hazard explains the same from the store as from the simulation, and is shown by the same event.
void expectSameExplanations(const RoundTrip& r)
{
    const Simulation& a = r.simulated;
    const Simulation& b = r.stored.sim;
    ASSERT_EQ(a.hazards.size(), b.hazards.size());
    ASSERT_FALSE(a.hazards.empty());
    for (int h = 0; h < int(a.hazards.size()); ++h) {
        const auto x = engine::report::explainHazard(a, h);
        const auto y = engine::report::explainHazard(b, h);
        EXPECT_EQ(x.title, y.title) << h;
        EXPECT_EQ(x.what, y.what) << h;
        EXPECT_EQ(x.why, y.why) << h;
        EXPECT_EQ(x.avoid, y.avoid) << h;
        EXPECT_EQ(x.quotes, y.quotes) << h;
        EXPECT_EQ(x.quotesFrom, y.quotesFrom) << h;
        EXPECT_EQ(engine::report::hazardEvent(a, h), engine::report::hazardEvent(b, h)) << h;
    }
}

std::string joined(const std::vector<std::string>& lines)
{
    std::string s;
    for (const std::string& l : lines)
        s += l + "\n";
    return s;
}

} // namespace

TEST(HazardExplainStored, HeldOutputsExplainAfterTheRoundTrip)
{
    const RoundTrip r = roundTrip("07_held_outputs_overwritten.json");
    ASSERT_EQ(r.stored.sim.hazards.size(), 5u);
    expectSameExplanations(r);
    const auto x = engine::report::explainHazard(r.stored.sim, 2);
    EXPECT_NE(
        x.what.find("returned by call 3 (graph_2 key {no_updated_input}), when call 4 replayed"), std::string::npos)
        << x.what;
    EXPECT_NE(joined(x.avoid).find("debug.aclgraph.enable_output_clone=True"), std::string::npos);
}

TEST(HazardExplainStored, FallbackQuotesTheStoredWarning)
{
    const RoundTrip r = roundTrip("09_capture_limit_fallback.json");
    expectSameExplanations(r);
    const auto x = engine::report::explainHazard(r.stored.sim, 0);
    // The stored run's options are defaults (capture_limit 64): the limit comes from the hazard itself.
    EXPECT_NE(x.what.find("static_capture_size_limit=2 at call 3"), std::string::npos) << x.what;
    ASSERT_EQ(x.quotes.size(), 1u);
    EXPECT_NE(x.quotes[0].find("The current static_capture_size_limit is 2."), std::string::npos);
}

TEST(HazardExplainStored, StoredBackendKeepsItsSpelling)
{
    const RoundTrip r = roundTrip("04_kv_cache_moves.json", "npugraph_ex");
    ASSERT_EQ(r.stored.row.backend, "npugraph_ex");
    expectSameExplanations(r);
    const auto x = engine::report::explainHazard(r.stored.sim, 0);
    EXPECT_EQ(x.title, "Recapture storm: a graph keeps being captured again");
    EXPECT_NE(joined(x.avoid).find("raise capture_limit"), std::string::npos) << joined(x.avoid);
    EXPECT_EQ(joined(x.avoid).find("static_capture_size_limit"), std::string::npos);
}
