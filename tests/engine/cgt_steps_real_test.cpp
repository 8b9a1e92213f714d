// A real CUDA Graph Trees run beside its simulation (engine/report/cgt_steps.h): the real PyTorch 2.11
// snapshot of tests/data/real/compile (c_ind_static.pickle, with the TORCH_TRACE of the same run for
// the compile ids) read as a recorded run, and the same program as a cuda_graph_trees scenario, built
// from what the program did (truth.json's calls: shapes, K/V objects, kept outputs). Their warm-ups
// and recordings must line up with each other and with truth.json's.
#include "engine/ingest/snapshot_hints.h"
#include "engine/readers/torch_trace.h"
#include "engine/report/cgt_steps.h"
#include "engine/report/run_compare.h"
#include "engine/runtime/simulator.h"
#include "engine/scenario/scenario.h"
#include "engine/snapshot/memory_snapshot.h"
#include "engine/snapshot/snapshot_run.h"
#include "engine/snapshot/snapshot_story.h"

#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <nlohmann/json.hpp>

namespace {

using nlohmann::json;
using nlohmann::ordered_json;

const std::string kReal = std::string(ACLGI_TEST_DATA_DIR) + "/real";

json truthCase(const std::string& id)
{
    std::ifstream in(kReal + "/cudagraph_cases/truth.json");
    const json truth = json::parse(in);
    for (const json& c : truth["cases"])
        if (c["id"] == id)
            return c;
    return {};
}

// truth.json's warm-ups and recordings, in order, as (compile id, action).
std::vector<std::pair<std::string, std::string>> truthSteps(const json& c)
{
    std::vector<std::pair<std::string, std::string>> out;
    for (const json& x : c["calls"]) {
        const std::string action = x["action"];
        if (action == "warmup" || action == "record")
            out.emplace_back(x["served_by"].get<std::string>(), action);
    }
    return out;
}

std::vector<std::pair<std::string, std::string>> pairs(const std::vector<engine::report::CgtStep>& steps)
{
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& s : steps)
        out.emplace_back(s.compileId, s.action);
    return out;
}

engine::runtime::Simulation recordedRun()
{
    auto snap = engine::snapshot::readSnapshotFile(kReal + "/compile/c_ind_static.pickle");
    EXPECT_TRUE(snap.ok());
    auto trace = engine::readers::trace::readTorchTraceDir(kReal + "/compile/c_trace.log");
    EXPECT_TRUE(trace.ok());
    if (!snap.ok() || !trace.ok())
        return {};
    const engine::snapshot::SnapshotHints hints = engine::ingest::snapshotHints(*trace);
    engine::snapshot::SnapshotRunOptions options;
    options.hints = &hints;
    auto run = engine::snapshot::snapshotAsRun(*snap, 0, options);
    EXPECT_TRUE(run.ok()) << (run.ok() ? "" : run.error().toString());
    return run.ok() ? std::move(run->sim) : engine::runtime::Simulation {};
}

// The program of c_ind_static as a scenario: TinyDecoder's graph (lm_head weight, four static K/V
// caches [B, 4, 64, 64] written in place, fresh tokens [B, T] and pos [T]) per compile id, the
// calls as truth.json lists them, the K/V objects as named storages (F got D's addresses: D's
// storages), the outputs of the first seven calls kept.
ordered_json scenarioOf(const json& c)
{
    auto graph = [](const std::string& id, int batch, int seq) {
        auto t = [](const std::string& name, const char* kind, ordered_json shape, const char* dtype = "f32") {
            return ordered_json { { "name", name }, { "kind", kind }, { "shape", shape }, { "dtype", dtype } };
        };
        ordered_json inputs = ordered_json::array({ t("lm_head", "parameter", { 1024, 256 }) });
        ordered_json nodes = ordered_json::array();
        for (int i = 0; i < 4; ++i) {
            const std::string kv = "kv" + std::to_string(i);
            inputs.push_back(t(kv, "static_address", { batch, 4, 64, 64 }));
            nodes.push_back(
                { { "name", kv + "_store" }, { "target", "aten.index_copy_.default" }, { "args", { kv, 2, "pos", kv } },
                    { "meta", { { "shape", { batch, 4, 64, 64 } }, { "dtype", "f32" } } } });
        }
        inputs.push_back(t("tokens", "user_input", { batch, seq }, "i64"));
        inputs.push_back(t("pos", "user_input", { seq }, "i64"));
        nodes.push_back(
            { { "name", "emb" }, { "target", "aten.embedding.default" }, { "args", { "lm_head", "tokens" } },
                { "meta", { { "shape", { batch * seq, 256 } }, { "dtype", "f32" } } } });
        nodes.push_back({ { "name", "logits" }, { "target", "aten.mm.default" }, { "args", { "emb", "lm_head" } },
            { "meta", { { "shape", { batch * seq, 1024 } }, { "dtype", "f32" } } } });
        return ordered_json { { "id", id }, { "dynamic", false }, { "inputs", inputs }, { "nodes", nodes },
            { "outputs", { "logits" } } };
    };
    std::map<std::string, std::string> storageOf;
    for (const json& k : c["kv_objects"])
        storageOf[k["name"]] = k["same_addresses_as"].is_string() ? k["same_addresses_as"].get<std::string>()
                                                                  : k["name"].get<std::string>();
    ordered_json graphs = ordered_json::array();
    std::map<std::string, bool> made;
    ordered_json calls = ordered_json::array();
    for (size_t i = 0; i < c["calls"].size(); ++i) {
        const json& x = c["calls"][i];
        const std::string id = x["served_by"];
        if (!made[id]) {
            made[id] = true;
            graphs.push_back(graph(id, x["batch"].get<int>(), x["seq"].get<int>()));
        }
        ordered_json bind = ordered_json::object();
        for (int k = 0; k < 4; ++k)
            bind["kv" + std::to_string(k)] = "kv." + storageOf.at(x["kv"].get<std::string>()) + "." + std::to_string(k);
        ordered_json call = { { "graph", id }, { "inputs", bind } };
        if (i < 7)
            call["keep_outputs"] = "all"; // prompt and decode0..5 kept in a list
        calls.push_back(call);
    }
    return { { "format", "aclgraph-inspector-scenario" }, { "version", 1 }, { "name", "c_ind_static" },
        { "runtime", "cuda_graph_trees" }, { "config", { { "fullgraph", true }, { "dynamic", false } } },
        { "graphs", graphs }, { "calls", calls } };
}

TEST(CgtStepsReal, RecordedSnapshotShowsTheRealWarmupsAndRecordings)
{
    const json c = truthCase("c_ind_static");
    ASSERT_FALSE(c.is_null());
    const engine::runtime::Simulation recorded = recordedRun();
    ASSERT_EQ(recorded.origin.kind, engine::runtime::RunOriginKind::Recorded);
    // 0/0 warm-up (prompt); 0/1 warm-up and recording (decode0, decode1); 0/2 warm-up and recording
    // (batch 2); then 0/1 recorded three more times as the K/V caches moved.
    EXPECT_EQ(pairs(engine::report::cgtSteps(recorded)), truthSteps(c));
}

TEST(CgtStepsReal, SimulationOfTheSameProgramLinesUpWithTheRecording)
{
    const json c = truthCase("c_ind_static");
    auto s = engine::scenario::parseScenario(scenarioOf(c).dump(), "c_ind_static.json");
    ASSERT_TRUE(s.ok()) << s.error().toString();
    auto sim = engine::runtime::simulate(*s);
    ASSERT_TRUE(sim.ok()) << sim.error().toString();
    EXPECT_EQ(pairs(engine::report::cgtSteps(*sim)), truthSteps(c));
    const engine::runtime::Simulation recorded = recordedRun();
    const auto rows = engine::report::compareCgtSteps(*sim, recorded);
    ASSERT_EQ(rows.size(), truthSteps(c).size());
    for (size_t i = 0; i < rows.size(); ++i) {
        EXPECT_TRUE(rows[i].agree) << "step " << i;
        ASSERT_TRUE(rows[i].simulated.has_value());
        EXPECT_GE(rows[i].simulated->call, 0);
    }
    // The run comparison (Compare view, `report --compare`) has them as a section: no step differs.
    const auto cmp = engine::report::compareRuns(*sim, recorded, "simulated", "recorded", {}, {});
    int steps = 0, differing = 0;
    for (const auto& r : cmp.rows)
        if (r.section == "CUDA graph steps") {
            ++steps;
            differing += r.differs;
        }
    EXPECT_EQ(steps, 8);
    EXPECT_EQ(differing, 0);
    // The comparison can fail: a run without the re-records lines up only partly.
    json fewer = c;
    for (json& x : fewer["calls"])
        x["kv"] = x["kv"] == "B" ? "B" : "A";
    auto s2 = engine::scenario::parseScenario(scenarioOf(fewer).dump(), "c_ind_static.json");
    ASSERT_TRUE(s2.ok());
    auto sim2 = engine::runtime::simulate(*s2);
    ASSERT_TRUE(sim2.ok());
    const auto rows2 = engine::report::compareCgtSteps(*sim2, recorded);
    int agree = 0;
    for (const auto& r : rows2)
        agree += r.agree;
    EXPECT_EQ(agree, 5); // the first five; the three re-records are the recording's alone
    EXPECT_EQ(rows2.size(), 8u);
}

} // namespace
