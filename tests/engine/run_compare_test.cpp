// Two runs side by side (report/run_compare.h) on the bundled samples: held outputs overwritten vs
// cloned (config, hazards), a custom pool vs private pools (pools paired by their graphs), a
// recorded memory snapshot vs a simulation (pools paired by order of creation), the text and JSON
// forms; and a stored run's config JSON as form rows (report/run_config.h).
#include "engine/report/run_compare.h"
#include "engine/report/run_config.h"
#include "engine/report/simulation_report.h"
#include "engine/scenario/scenario.h"
#include "engine/snapshot/memory_snapshot.h"
#include "engine/snapshot/snapshot_run.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace {

using namespace engine;
using report::CompareRow;
using report::RunComparison;

runtime::Simulation simulateSample(
    const std::string& file, const std::vector<std::pair<std::string, PyValue>>& set = {})
{
    auto scenario = scenario::readScenarioFile(std::string(ACLGI_SAMPLES_DIR) + "/" + file);
    EXPECT_TRUE(scenario.ok()) << (scenario.ok() ? "" : scenario.error().toString());
    runtime::SimulationOptions options;
    options.overrides = set;
    auto sim = runtime::simulate(*scenario, options);
    EXPECT_TRUE(sim.ok()) << (sim.ok() ? "" : sim.error().toString());
    return sim.ok() ? std::move(sim.value()) : runtime::Simulation {};
}

RunComparison compare(const runtime::Simulation& a, const runtime::Simulation& b)
{
    return report::compareRuns(
        a, b, "A run", "B run", report::runConfigPairs(a.options), report::runConfigPairs(b.options));
}

const CompareRow& row(const RunComparison& c, const std::string& section, const std::string& metric)
{
    for (const CompareRow& r : c.rows)
        if (r.section == section && r.metric == metric)
            return r;
    ADD_FAILURE() << "no row " << section << " / " << metric;
    static const CompareRow none;
    return none;
}

bool hasRow(const RunComparison& c, const std::string& section, const std::string& metric)
{
    for (const CompareRow& r : c.rows)
        if (r.section == section && r.metric == metric)
            return true;
    return false;
}

const char* const kPairedByCreation = "pools paired by order of creation (a recording cannot name TorchAir graphs)";

TEST(RunCompare, HeldOutputsOverwrittenVersusCloned)
{
    const auto overwritten = simulateSample("07_held_outputs_overwritten.json");
    const auto cloned = simulateSample(
        "07_held_outputs_overwritten.json", { { "debug.aclgraph.enable_output_clone", PyValue::boolean(true) } });
    const RunComparison c = compare(overwritten, cloned);
    EXPECT_EQ(c.labelA, "A run");
    EXPECT_EQ(c.labelB, "B run");

    const CompareRow& hazard = row(c, "hazards", "output_overwritten");
    EXPECT_EQ(hazard.a, "5");
    EXPECT_EQ(hazard.b, "0");
    EXPECT_TRUE(hazard.differs);
    EXPECT_EQ(row(c, "hazards", "all").a, "5");
    EXPECT_EQ(row(c, "hazards", "all").b, "0");
    EXPECT_FALSE(hasRow(c, "hazards", "fallback")) << "only kinds one of the runs has";

    const CompareRow& clone = row(c, "config", "debug.aclgraph.enable_output_clone");
    EXPECT_EQ(clone.a, "False");
    EXPECT_EQ(clone.b, "True");
    EXPECT_TRUE(clone.differs);
    const CompareRow& frozen = row(c, "config", "experimental_config.frozen_parameter");
    EXPECT_EQ(frozen.a, "True");
    EXPECT_FALSE(frozen.differs);
    EXPECT_EQ(row(c, "config", "backend").a, "torchair");

    EXPECT_EQ(row(c, "totals", "calls").a, "7");
    EXPECT_FALSE(row(c, "totals", "calls").differs);
    EXPECT_EQ(row(c, "graphs", "graph_2 replays").a, row(c, "graphs", "graph_2 replays").b);
    EXPECT_EQ(row(c, "graphs", "graph_2 scenario id").a, overwritten.graphs.at(1).id);
    EXPECT_EQ(row(c, "graphs", "graph_1 fallback").a, "no");
    uint64_t copied = 0;
    for (const auto& call : overwritten.calls)
        copied += call.bytesCopied;
    ASSERT_GT(copied, 0u);
    ASSERT_LT(copied, 1u << 20);
    EXPECT_EQ(row(c, "totals", "bytes copied").a, std::to_string(copied) + " B"); // under 1 MiB: bytes

    int differing = 0;
    for (const CompareRow& r : c.rows)
        differing += r.differs ? 1 : 0;
    EXPECT_EQ(c.differing, differing);
    EXPECT_GE(c.differing, 3);

    // The same run against itself differs nowhere.
    EXPECT_EQ(compare(overwritten, overwritten).differing, 0);
}

TEST(RunCompare, SamplesWithDifferentFilesPairGraphsByName)
{
    const RunComparison c
        = compare(simulateSample("07_held_outputs_overwritten.json"), simulateSample("08_held_outputs_cloned.json"));
    EXPECT_EQ(row(c, "hazards", "output_overwritten").a, "5");
    EXPECT_EQ(row(c, "hazards", "output_overwritten").b, "0");
    EXPECT_EQ(row(c, "graphs", "graph_1 captures").a, "1");
    EXPECT_EQ(row(c, "graphs", "graph_1 captures").b, "1");
    EXPECT_FALSE(row(c, "graphs", "graph_1 captures").differs);
}

TEST(RunCompare, CustomPoolFacesThePrivatePoolsItReplaces)
{
    const auto custom = simulateSample("03_custom_pool_shared.json");
    const auto privatePools
        = simulateSample("03_custom_pool_shared.json", { { "aclgraph_config.use_custom_pool", PyValue::none() } });
    ASSERT_EQ(custom.pools.size(), 1u);
    ASSERT_EQ(privatePools.pools.size(), 2u);
    const RunComparison c = compare(custom, privatePools);
    EXPECT_FALSE(hasRow(c, "memory", kPairedByCreation)) << "two simulations pair pools by their graphs";

    const CompareRow& kind = row(c, "memory", "pool of graph_1, graph_2 kind");
    EXPECT_EQ(kind.a, "custom");
    EXPECT_EQ(kind.b, "2 pools, private");
    EXPECT_TRUE(kind.differs);
    const CompareRow& reserved = row(c, "memory", "pool of graph_1, graph_2 peak reserved");
    EXPECT_EQ(reserved.a, report::formatMiB(custom.pools[0].peakReserved));
    EXPECT_EQ(reserved.b, report::formatMiB(privatePools.pools[0].peakReserved + privatePools.pools[1].peakReserved));
    EXPECT_TRUE(reserved.differs);
    EXPECT_EQ(row(c, "memory", "peak device reserved").a, report::formatMiB(custom.peakDeviceReserved));

    const CompareRow& pool = row(c, "config", "aclgraph_config.use_custom_pool");
    EXPECT_EQ(pool.a, "(0, 1)");
    EXPECT_EQ(pool.b, "None");
    // The custom pool forces same-FX reuse off; without it the option is back at its default.
    EXPECT_EQ(row(c, "config", "debug.aclgraph.disable_mempool_reuse_in_same_fx").a, "True");
    EXPECT_EQ(row(c, "config", "debug.aclgraph.disable_mempool_reuse_in_same_fx").b, "False");
}

/// Device 0 of a fixture of tests/data/snapshots/ as a run.
runtime::Simulation recordedFixture(const std::string& name)
{
    auto snapshot = snapshot::readSnapshotFile(std::string(ACLGI_TEST_DATA_DIR) + "/snapshots/" + name);
    EXPECT_TRUE(snapshot.ok()) << (snapshot.ok() ? "" : snapshot.error().toString());
    if (!snapshot.ok())
        return {};
    auto run = snapshot::snapshotAsRun(*snapshot, 0);
    EXPECT_TRUE(run.ok()) << (run.ok() ? "" : run.error().toString());
    return run.ok() ? std::move(run->sim) : runtime::Simulation {};
}

const runtime::PoolRecord& poolOf(const runtime::Simulation& sim, memory::PoolId id)
{
    for (const runtime::PoolRecord& p : sim.pools)
        if (p.pool == id)
            return p;
    ADD_FAILURE() << "no pool " << id.str();
    static const runtime::PoolRecord none;
    return none;
}

std::vector<std::string> memoryMetrics(const RunComparison& c)
{
    std::vector<std::string> out;
    for (const CompareRow& r : c.rows)
        if (r.section == "memory")
            out.push_back(r.metric);
    return out;
}

TEST(RunCompare, RecordingFacesSimulationByOrderOfCreation)
{
    // graph_pools.pickle: the default pool, (0, 1) of a torch.cuda.graph capture, (0, 2) of a TorchAir
    // aclgraph capture, (0, 3) unexplained, (1, 0) of CUDA graph trees (a capture without a handle).
    const auto recording = recordedFixture("graph_pools.pickle");
    const auto sim = simulateSample("07_held_outputs_overwritten.json");
    ASSERT_EQ(recording.pools.size(), 5u);
    ASSERT_EQ(sim.pools.size(), 2u);
    ASSERT_EQ(sim.pools[0].graphs, std::vector<std::string> { "graph_1" });
    ASSERT_EQ(sim.pools[1].graphs, std::vector<std::string> { "graph_2" });
    EXPECT_EQ(report::runOriginOf(recording), report::RunOrigin::Recorded);
    EXPECT_EQ(report::runOriginOf(sim), report::RunOrigin::Simulated);
    EXPECT_EQ(report::runOriginOf(runtime::Simulation {}), report::RunOrigin::Simulated);

    const auto& cudaGraph = poolOf(recording, { 0, 1 });
    const auto& aclgraph = poolOf(recording, { 0, 2 });
    const auto& trees = poolOf(recording, { 1, 0 });
    ASSERT_EQ(cudaGraph.graphs.size(), 1u);
    ASSERT_EQ(aclgraph.graphs.size(), 1u);
    ASSERT_EQ(trees.graphs.size(), 1u);
    EXPECT_NE(cudaGraph.graphs[0].find("torch.cuda.graph capture"), std::string::npos) << cudaGraph.graphs[0];
    EXPECT_NE(aclgraph.graphs[0].find("TorchAir aclgraph"), std::string::npos) << aclgraph.graphs[0];
    const std::string first = "pool (0, 1) [" + cudaGraph.graphs[0] + "]";
    const std::string second = "pool (0, 2) [" + aclgraph.graphs[0] + "]";
    const std::string fourth = "pool (1, 0) [" + trees.graphs[0] + "]";

    // The recording as A, told by its origin.
    const RunComparison c
        = report::compareRuns(recording, sim, "recording", "simulation", {}, report::runConfigPairs(sim.options));
    EXPECT_EQ(row(c, "config", "origin").a, "recorded: " + recording.origin.recordedAs);
    EXPECT_EQ(row(c, "config", "origin").b, "simulated");
    EXPECT_EQ(row(c, "config", "backend").a, "—") << "a recording has no backend";
    EXPECT_EQ(row(c, "config", "backend").b, "torchair");
    // The recording has no TorchAir config: the simulation's options are stated, not compared.
    const CompareRow& clone = row(c, "config", "debug.aclgraph.enable_output_clone");
    EXPECT_EQ(clone.a, "not recorded");
    EXPECT_EQ(clone.b, "False");
    EXPECT_FALSE(clone.differs);
    for (const CompareRow& r : c.rows)
        EXPECT_TRUE(r.section != "config" || r.metric == "backend" || r.metric == "origin" || !r.differs) << r.metric;
    EXPECT_EQ(row(c, "memory", "device capacity").a, "—") << "the file does not say";
    const CompareRow& note = row(c, "memory", kPairedByCreation);
    EXPECT_EQ(note.a, "recorded");
    EXPECT_EQ(note.b, "simulated");
    EXPECT_FALSE(note.differs);
    // The default pool first (the simulator keeps none), then (0, uid) handles by uid, then (uid, 0).
    const std::vector<std::string> expected = { "peak device reserved", "peak device allocated", "device capacity",
        kPairedByCreation, "pool (0, 0) [default] ~ — peak reserved", "pool (0, 0) [default] ~ — peak allocated",
        first + " ~ graph_1's pool peak reserved", first + " ~ graph_1's pool peak allocated",
        second + " ~ graph_2's pool peak reserved", second + " ~ graph_2's pool peak allocated",
        "pool (0, 3) ~ — peak reserved", "pool (0, 3) ~ — peak allocated", fourth + " ~ — peak reserved",
        fourth + " ~ — peak allocated" };
    EXPECT_EQ(memoryMetrics(c), expected);

    const CompareRow& reserved = row(c, "memory", first + " ~ graph_1's pool peak reserved");
    EXPECT_EQ(reserved.a, report::formatMiB(20u << 20)); // manifest.json
    EXPECT_EQ(reserved.b, report::formatMiB(sim.pools[0].peakReserved));
    EXPECT_EQ(reserved.differs, sim.pools[0].peakReserved != (20u << 20));
    const CompareRow& allocated = row(c, "memory", second + " ~ graph_2's pool peak allocated");
    EXPECT_EQ(allocated.a, report::formatMiB(1049088));
    EXPECT_EQ(allocated.b, report::formatMiB(sim.pools[1].peakAllocated));
    const CompareRow& alone = row(c, "memory", "pool (0, 3) ~ — peak reserved");
    EXPECT_EQ(alone.a, report::formatMiB(20u << 20));
    EXPECT_EQ(alone.b, "—");
    EXPECT_TRUE(alone.differs);
    EXPECT_EQ(row(c, "totals", "calls").a, "0");
    EXPECT_EQ(row(c, "graphs", "graph_1 captures").a, "—");

    // The recording as B: the labels name A's pool first.
    const RunComparison d = report::compareRuns(sim, recording, "simulation", "recording");
    EXPECT_EQ(row(d, "memory", kPairedByCreation).a, "simulated");
    const CompareRow& swapped = row(d, "memory", "graph_1's pool ~ " + first + " peak reserved");
    EXPECT_EQ(swapped.a, reserved.b);
    EXPECT_EQ(swapped.b, reserved.a);
    EXPECT_TRUE(hasRow(d, "memory", "— ~ pool (0, 0) [default] peak allocated"));
    EXPECT_EQ(row(d, "config", "backend").b, "—");

    // Were the recording a simulation, the pools would pair by their graphs as between two simulations.
    runtime::Simulation asSimulated = recording;
    asSimulated.origin = runtime::RunOrigin {};
    const RunComparison e = report::compareRuns(asSimulated, sim, "A", "B");
    EXPECT_FALSE(hasRow(e, "memory", kPairedByCreation));
    EXPECT_TRUE(hasRow(e, "memory", "pool of graph_1 kind"));
    EXPECT_EQ(row(e, "config", "backend").a, "torchair");
}

TEST(RunCompare, RecordingFacesASharedCustomPoolWithAllItsPrivatePools)
{
    const auto recording = recordedFixture("graph_pools.pickle");
    const auto custom = simulateSample("03_custom_pool_shared.json");
    ASSERT_EQ(custom.pools.size(), 1u);
    ASSERT_TRUE(custom.pools[0].custom);
    const RunComparison c = report::compareRuns(custom, recording, "custom", "recording");
    std::string recorded;
    uint64_t reserved = 0;
    for (const runtime::PoolRecord& p : recording.pools) {
        if (p.pool.isDefault())
            continue;
        recorded += std::string(recorded.empty() ? "" : ", ") + "pool " + p.pool.str()
            + (p.graphs.empty() ? "" : " [" + p.graphs[0] + "]");
        reserved += p.peakReserved;
    }
    const CompareRow& r = row(c, "memory", "custom pool of graph_1, graph_2 ~ " + recorded + " peak reserved");
    EXPECT_EQ(r.a, report::formatMiB(custom.pools[0].peakReserved));
    EXPECT_EQ(r.b, report::formatMiB(reserved)); // the recorded pools' peaks summed
    EXPECT_TRUE(hasRow(c, "memory", "— ~ pool (0, 0) [default] peak reserved"));
    EXPECT_EQ(memoryMetrics(c).size(), 3u + 1u + 2u + 2u);
}

TEST(RunCompare, RecordedPoolsInIdOrderExtraSimulatedPoolsAlone)
{
    // Hand-built: the recording lists its pools out of order; the simulation created three.
    runtime::Simulation recording, sim;
    recording.origin.kind = runtime::RunOriginKind::Recorded;
    recording.events.emplace_back().kind = runtime::EventKind::MemoryTrace;
    for (uint64_t uid : { 4, 2 }) {
        runtime::PoolRecord p;
        p.pool = { 0, uid };
        p.peakReserved = uid << 20;
        recording.pools.push_back(p);
    }
    for (int g = 1; g <= 3; ++g) {
        runtime::PoolRecord p;
        p.pool = { 0, uint64_t(2 * g) };
        p.graphs = { "graph_" + std::to_string(g) };
        p.peakReserved = uint64_t(g) << 21;
        sim.pools.push_back(p);
    }
    const RunComparison c = report::compareRuns(recording, sim, "recording", "simulation");
    EXPECT_EQ(row(c, "memory", "pool (0, 2) ~ graph_1's pool peak reserved").a, report::formatMiB(2u << 20));
    EXPECT_FALSE(row(c, "memory", "pool (0, 2) ~ graph_1's pool peak reserved").differs);
    EXPECT_EQ(row(c, "memory", "pool (0, 4) ~ graph_2's pool peak reserved").b, report::formatMiB(4u << 20));
    const CompareRow& extra = row(c, "memory", "— ~ graph_3's pool peak reserved");
    EXPECT_EQ(extra.a, "—");
    EXPECT_EQ(extra.b, report::formatMiB(6u << 20));
}

TEST(RunCompare, TextAndJson)
{
    const auto a = simulateSample("07_held_outputs_overwritten.json");
    const auto b = simulateSample("08_held_outputs_cloned.json");
    const RunComparison c = compare(a, b);

    const std::string text = report::comparisonText(c);
    EXPECT_EQ(text.rfind("A: A run\nB: B run\n\n", 0), 0u) << text;
    EXPECT_NE(text.find(std::to_string(c.differing) + " of " + std::to_string(c.rows.size()) + " rows differ"),
        std::string::npos);
    // Aligned: every row's A value starts in the column of the header's "A".
    const size_t header = text.find("section");
    const size_t headerEnd = text.find('\n', header);
    const size_t aColumn = text.substr(header, headerEnd - header).find("  A  ") + 2;
    const std::string overwrittenLine = text.substr(text.find("hazards  output_overwritten"));
    EXPECT_EQ(overwrittenLine.substr(aColumn, 1), "5") << overwrittenLine;
    EXPECT_EQ(overwrittenLine.substr(0, overwrittenLine.find('\n')).back(), '*');

    const auto j = nlohmann::json::parse(report::comparisonJson(c));
    EXPECT_EQ(j["format"], "aclgraph-inspector-comparison");
    EXPECT_EQ(j["a"], "A run");
    EXPECT_EQ(j["differing"], c.differing);
    ASSERT_EQ(j["rows"].size(), c.rows.size());
    EXPECT_EQ(j["rows"][0]["section"], "config");
    EXPECT_EQ(j["rows"][0]["metric"], "origin");
    EXPECT_EQ(j["rows"][1]["metric"], "backend");
}

TEST(RunCompare, RealRecordingsConfigIsItsAllocatorSettings)
{
    // A snapshot PyTorch 2.11 wrote (tests/data/real/snapshots/README.md): a recording by its origin,
    // whose config column holds the allocator's settings and never TorchAir's options.
    auto snapshot = snapshot::readSnapshotFile(std::string(ACLGI_TEST_DATA_DIR) + "/real/snapshots/a_default.pickle");
    ASSERT_TRUE(snapshot.ok()) << snapshot.error().toString();
    ASSERT_FALSE(snapshot->allocatorSettings.empty());
    auto run = snapshot::snapshotAsRun(*snapshot, 0);
    ASSERT_TRUE(run.ok()) << run.error().toString();
    const runtime::Simulation& recording = run->sim;
    EXPECT_EQ(report::runOriginOf(recording), report::RunOrigin::Recorded);
    EXPECT_EQ(recording.origin.recordedAs, "memory snapshot (torch.cuda.memory._dump_snapshot)");
    EXPECT_EQ(recording.origin.allocatorSettings, snapshot->allocatorSettings);
    EXPECT_FALSE(recording.origin.capacityKnown);
    for (const runtime::PoolRecord& p : recording.pools)
        EXPECT_FALSE(p.custom) << p.pool.str();

    const auto sim = simulateSample("07_held_outputs_overwritten.json");
    const RunComparison c
        = report::compareRuns(sim, recording, "simulation", "recording", report::runConfigPairs(sim.options), {});
    const auto& [name, value] = snapshot->allocatorSettings.front();
    const CompareRow& setting = row(c, "config", name);
    EXPECT_EQ(setting.a, "not simulated");
    EXPECT_EQ(setting.b, value);
    EXPECT_FALSE(setting.differs);
    EXPECT_EQ(row(c, "config", "debug.aclgraph.enable_output_clone").b, "not recorded");
    EXPECT_EQ(row(c, "memory", "device capacity").b, "—");
    for (const CompareRow& r : c.rows)
        EXPECT_EQ(r.b.find("custom"), std::string::npos) << r.metric;

    // Two recordings: their allocator settings compared by name.
    const RunComparison same = report::compareRuns(recording, recording, "A", "B");
    EXPECT_EQ(row(same, "config", name).a, value);
    EXPECT_FALSE(row(same, "config", name).differs);
}

TEST(RunConfig, StoredConfigJsonAsFormRows)
{
    auto options = config::parseOptions(config::Backend::TorchAir,
        { { "aclgraph_config.use_custom_pool", PyValue::tuple({ PyValue::integer(0), PyValue::integer(1) }) },
            { "inplace_pass", PyValue::boolean(false) }, { "remove_cat_ops", PyValue::boolean(false) } });
    ASSERT_TRUE(options.ok()) << options.error().toString();
    const auto rows = report::runOptions(config::Backend::TorchAir, report::simulationConfigJson(*options));
    ASSERT_EQ(rows.size(), config::optionTable().size());
    auto named = [&](const std::string& name) {
        for (const auto& r : rows)
            if (r.name == name)
                return r;
        ADD_FAILURE() << name;
        return report::RunOption {};
    };
    EXPECT_EQ(named("aclgraph_config.use_custom_pool").value, "(0, 1)");
    EXPECT_FALSE(named("aclgraph_config.use_custom_pool").isDefault());
    // Effective, not written: the custom pool turned same-FX reuse off.
    EXPECT_EQ(named("debug.aclgraph.disable_mempool_reuse_in_same_fx").value, "True");
    // Written as the inverted npugraph_ex name through torchair's options= mapper.
    EXPECT_EQ(named("debug.aclgraph.disable_reinplace_inplaceable_ops_pass").value, "True");
    EXPECT_TRUE(named("debug.aclgraph.disable_reinplace_inplaceable_ops_pass").set);
    EXPECT_EQ(named("debug.aclgraph.remove_cat_ops").value, "False");
    const auto clone = named("debug.aclgraph.clone_input");
    EXPECT_EQ(clone.value, "True");
    EXPECT_TRUE(clone.isDefault());
    const auto noop = named("experimental_config.remove_noop_ops");
    EXPECT_FALSE(noop.set);
    EXPECT_EQ(noop.value, "True");
    const auto mode = named("mode");
    EXPECT_EQ(mode.value, "'reduce-overhead'"); // what the simulator runs, not torchair's default
    EXPECT_EQ(mode.defaultValue, "'max-autotune'");
    // force_recapture is npugraph_ex's alone.
    for (const auto& r : rows) {
        if (config::optionTable()[r.spec].npugraphExName == "force_recapture") {
            EXPECT_TRUE(r.name.empty() && r.value.empty());
        }
    }

    const auto npu = report::runOptions(config::Backend::NpugraphEx, "not json");
    for (const auto& r : npu) {
        if (r.name == "reuse_graph_pool_in_same_fx") {
            EXPECT_EQ(r.value, "True");
        }
    }
}

} // namespace
