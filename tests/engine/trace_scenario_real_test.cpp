// A real CUDA run's TORCH_TRACE as the scenario of that run (engine/scenario/trace_scenario.h): the
// graphs, input kinds, config and calls come from the trace alone (or the calls from a list), and
// simulating it must do what the real run did (tests/data/real/cudagraph_cases*/truth.json, checked
// by the people who recorded them against the snapshots and logs).
#include "engine/ingest/snapshot_hints.h"
#include "engine/readers/torch_trace.h"
#include "engine/report/cgt_steps.h"
#include "engine/runtime/simulator.h"
#include "engine/scenario/load.h"
#include "engine/scenario/trace_scenario.h"
#include "engine/snapshot/memory_snapshot.h"
#include "engine/snapshot/snapshot_run.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <nlohmann/json.hpp>

namespace {

using nlohmann::json;
namespace fs = std::filesystem;

const std::string kReal = std::string(ACLGI_TEST_DATA_DIR) + "/real";
const std::string kTraces = ACLGI_REAL_TRACES_DIR; // cudagraph_cases_f/traces.tgz, unpacked at build time

json truthCase(const std::string& file, const std::string& id)
{
    std::ifstream in(kReal + "/" + file);
    const json truth = json::parse(in);
    for (const json& c : truth["cases"])
        if (c["id"] == id)
            return c;
    return {};
}

using Steps = std::vector<std::pair<std::string, std::string>>;

// The truth's warm-ups and recordings, in order, as (compile id, action). The older cudagraphify
// (cudagraph_trees=False) warms up and records in one call: one recording step here, as the
// simulator's capture call is.
Steps truthSteps(const json& c)
{
    Steps out;
    for (const json& x : c["calls"]) {
        const std::string action = x["action"];
        if (action == "warmup" || action == "record")
            out.emplace_back(x["served_by"].get<std::string>(), action);
        else if (action == "warmup+record")
            out.emplace_back(x["served_by"].get<std::string>(), "record");
    }
    return out;
}

Steps stepsOf(const engine::runtime::Simulation& sim)
{
    Steps out;
    for (const auto& s : engine::report::cgtSteps(sim))
        out.emplace_back(s.compileId, s.action);
    return out;
}

bool hasNote(const engine::scenario::Scenario& s, const std::string& text)
{
    for (const std::string& d : s.diagnostics)
        if (d.find(text) != std::string::npos)
            return true;
    return false;
}

const engine::Node* inputAliased(const engine::Graph& g, const std::string& dynamoName)
{
    // The placeholder at the position of Dynamo's input: inputKindFrom names it.
    for (int i : g.placeholders())
        if (g.nodes[size_t(i)].inputKindFrom.find("Dynamo's input " + dynamoName + " ") != std::string::npos
            || g.nodes[size_t(i)].inputKindFrom.find("(Dynamo's " + dynamoName + ")") != std::string::npos)
            return &g.nodes[size_t(i)];
    return nullptr;
}

TEST(TraceScenarioReal, TheTraceOfACudaRunBecomesTheScenarioOfThatRun)
{
    auto s = engine::scenario::loadScenarioOrGraph(kReal + "/compile/c_trace.log");
    ASSERT_TRUE(s.ok()) << s.error().toString();
    EXPECT_EQ(s->runtime, engine::scenario::Runtime::CudaGraphTrees);
    std::vector<std::string> ids;
    for (const auto& g : s->graphs)
        ids.push_back(g.id);
    EXPECT_EQ(ids, (std::vector<std::string> { "0/0", "0/1", "0/2" }));
    // Config: torch.compile(dynamic=False) as Dynamo's config shows it; CUDA graphs ran.
    std::map<std::string, std::string> config;
    for (const auto& [name, value] : s->config)
        config[name] = value.repr();
    EXPECT_EQ(config["dynamic"], "False");
    EXPECT_EQ(config["mode"], "'reduce-overhead'");
    EXPECT_EQ(config.count("fullgraph"), 0u); // not in a trace: said so
    EXPECT_TRUE(hasNote(*s, "note: unknown: torch.compile(fullgraph=)"));
    // Inputs: the K/V caches are mark_static_address inputs, the weights parameters, tokens copied.
    const engine::Graph* decode = s->graph("0/1");
    ASSERT_NE(decode, nullptr);
    const engine::Node* kv = inputAliased(*decode, "l_kv_0_");
    const engine::Node* weight = inputAliased(*decode, "l_self_modules_lm_head_parameters_weight_");
    const engine::Node* tokens = inputAliased(*decode, "l_tokens_");
    ASSERT_TRUE(kv && weight && tokens);
    EXPECT_EQ(kv->inputKind, engine::InputKind::StaticAddress);
    EXPECT_EQ(weight->inputKind, engine::InputKind::Parameter);
    EXPECT_EQ(tokens->inputKind, engine::InputKind::UserInput);
    // One weight tensor for every compile: the same Dynamo name and shape share a storage.
    EXPECT_EQ(weight->storage, "self_modules_lm_head_parameters_weight f32[1024,256]");
    // The calls: each compiled function's first run and each recording, in time order (8); the
    // replays are not in a trace, and that is said.
    EXPECT_EQ(s->calls.size(), 8u);
    EXPECT_TRUE(hasNote(*s, "note: unknown: replays"));
    EXPECT_FALSE(hasNote(*s, "TorchAir's default config"));
    auto sim = engine::runtime::simulate(*s);
    ASSERT_TRUE(sim.ok()) << sim.error().toString();
    EXPECT_EQ(stepsOf(*sim), truthSteps(truthCase("cudagraph_cases/truth.json", "c_ind_static")));
}

TEST(TraceScenarioReal, ItLinesUpWithTheSnapshotOfTheSameRun)
{
    auto s = engine::scenario::loadScenarioOrGraph(kReal + "/compile/c_trace.log");
    ASSERT_TRUE(s.ok());
    auto sim = engine::runtime::simulate(*s);
    ASSERT_TRUE(sim.ok());
    auto snap = engine::snapshot::readSnapshotFile(kReal + "/compile/c_ind_static.pickle");
    auto trace = engine::readers::trace::readTorchTraceDir(kReal + "/compile/c_trace.log");
    ASSERT_TRUE(snap.ok() && trace.ok());
    const engine::snapshot::SnapshotHints hints = engine::ingest::snapshotHints(*trace);
    engine::snapshot::SnapshotRunOptions options;
    options.hints = &hints;
    auto recorded = engine::snapshot::snapshotAsRun(*snap, 0, options);
    ASSERT_TRUE(recorded.ok());
    const auto rows = engine::report::compareCgtSteps(*sim, recorded->sim);
    ASSERT_EQ(rows.size(), 8u);
    for (size_t i = 0; i < rows.size(); ++i)
        EXPECT_TRUE(rows[i].agree) << "step " << i;
}

// The calls as the program made them (truth.json's list: batch, K/V object), given with
// --call-list and bound by Dynamo's names ("kv_0"): every call's action must be the real one,
// replays included, on the real graphs.
TEST(TraceScenarioReal, ListedCallsReproduceEveryCallOfTheRealRun)
{
    const json c = truthCase("cudagraph_cases/truth.json", "c_ind_static");
    ASSERT_FALSE(c.is_null());
    std::map<std::string, std::string> storageOf;
    for (const json& k : c["kv_objects"])
        storageOf[k["name"]] = k["same_addresses_as"].is_string() ? k["same_addresses_as"].get<std::string>()
                                                                  : k["name"].get<std::string>();
    json calls = json::array();
    for (size_t i = 0; i < c["calls"].size(); ++i) {
        const json& x = c["calls"][i];
        json bind = json::object();
        for (int k = 0; k < 4; ++k)
            bind["kv_" + std::to_string(k)]
                = "kv." + storageOf.at(x["kv"].get<std::string>()) + "." + std::to_string(k);
        json call = { { "graph", x["served_by"] }, { "inputs", bind } };
        if (i < 7)
            call["keep_outputs"] = "all"; // the prompt and decode0..5 kept in a list
        calls.push_back(call);
    }
    const std::string list = (fs::temp_directory_path() / "aclgi_c_ind_static_calls.json").string();
    std::ofstream(list) << calls.dump(1);
    auto s = engine::scenario::loadScenarioOrGraph(kReal + "/compile/c_trace.log", {}, 2, true, list);
    std::remove(list.c_str());
    ASSERT_TRUE(s.ok()) << s.error().toString();
    ASSERT_EQ(s->calls.size(), c["calls"].size());
    auto sim = engine::runtime::simulate(*s);
    ASSERT_TRUE(sim.ok()) << sim.error().toString();
    ASSERT_EQ(sim->calls.size(), c["calls"].size());
    for (size_t i = 0; i < sim->calls.size(); ++i) {
        const auto a = sim->calls[i].action;
        const std::string got = a == engine::runtime::CallAction::Warmup ? "warmup"
            : a == engine::runtime::CallAction::Capture || a == engine::runtime::CallAction::Recapture
            ? "record"
            : engine::runtime::callActionName(a);
        EXPECT_EQ(got, c["calls"][i]["action"].get<std::string>())
            << "call " << i << " " << c["calls"][i]["label"].get<std::string>();
    }
}

TEST(TraceScenarioReal, ACallListIsCheckedLikeAScenarioAndNamesTheFileAndPlace)
{
    const std::string list = (fs::temp_directory_path() / "aclgi_bad_calls.json").string();
    auto tryList = [&](const std::string& text) {
        std::ofstream(list) << text;
        auto s = engine::scenario::loadScenarioOrGraph(kReal + "/compile/c_trace.log", {}, 2, true, list);
        std::remove(list.c_str());
        return s.ok() ? std::string("ok") : s.error().toString();
    };
    EXPECT_NE(tryList(R"([{"graph": "0/7"}])").find("$[0].graph"), std::string::npos);
    EXPECT_NE(tryList(R"([{"graph": "0/7"}])").find("unknown graph '0/7'"), std::string::npos);
    EXPECT_NE(tryList(R"([{"graph": "0/1", "inputs": {"nope": "x"}}])").find("has no input 'nope'"), std::string::npos);
    EXPECT_NE(tryList(R"([])").find("the call list is empty"), std::string::npos);
    EXPECT_NE(tryList(R"({"calls": [{"graph": "0/1"}], "x": 1})").find("$.x"), std::string::npos);
    EXPECT_NE(tryList(R"([{"graph": "0/1"})").find(list), std::string::npos); // cut JSON: file and place
    EXPECT_EQ(tryList(R"({"calls": [{"graph": "0/1", "repeat": 3}]})"), "ok");
}

// The team's two other recorded cases with a trace (tests/data/real/trace): two torch.compile wrappers,
// and a dynamic graph over seven sizes with a size coming back.
TEST(TraceScenarioReal, TheTeamsOtherTracesWarmUpAndRecordAsTheTruthSays)
{
    for (const auto& [id, file] : std::vector<std::pair<std::string, std::string>> {
             { "d_two_functions", "two_functions.log" }, { "d_dynamic_warn", "dynamic_warn.log" } }) {
        SCOPED_TRACE(id);
        auto s = engine::scenario::loadScenarioOrGraph(kReal + "/trace/" + file);
        ASSERT_TRUE(s.ok()) << s.error().toString();
        auto sim = engine::runtime::simulate(*s);
        ASSERT_TRUE(sim.ok()) << sim.error().toString();
        EXPECT_EQ(stepsOf(*sim), truthSteps(truthCase("cudagraph_cases/truth.json", id)));
    }
}

// Two ranks' traces in one folder (the rank is in the file name, as TORCH_TRACE names them; the
// team's rank recordings in tests/data are cut before their graphs, so c_trace stands in for each):
// rank 0's run is the scenario, with graphs named as one rank's, the other rank's left out and said so.
TEST(TraceScenarioReal, OfSeveralRanksTheFirstIsTheRun)
{
    const fs::path dir = fs::temp_directory_path() / "aclgi_two_ranks";
    fs::remove_all(dir);
    fs::create_directories(dir);
    for (int rank : { 0, 1 })
        fs::copy_file(kReal + "/compile/c_trace.log",
            dir / ("dedicated_log_torch_trace_rank_" + std::to_string(rank) + "_x.log"));
    auto s = engine::scenario::loadScenarioOrGraph(dir.string());
    fs::remove_all(dir);
    ASSERT_TRUE(s.ok()) << s.error().toString();
    std::vector<std::string> ids;
    for (const auto& g : s->graphs)
        ids.push_back(g.id);
    EXPECT_EQ(ids, (std::vector<std::string> { "0/0", "0/1", "0/2" }));
    EXPECT_TRUE(hasNote(*s, "the run is rank 0's; the 3 graphs of the other ranks are left out"));
    auto sim = engine::runtime::simulate(*s);
    ASSERT_TRUE(sim.ok()) << sim.error().toString();
    EXPECT_EQ(stepsOf(*sim), truthSteps(truthCase("cudagraph_cases/truth.json", "c_ind_static")));
}

// Every real CUDA trace the team recorded: the scenario built from the trace alone does the real
// run's warm-ups and recordings, in order. (The causes of re-recordings are assumed, and said so.)
TEST(TraceScenarioReal, EveryRecordedCaseWarmsUpAndRecordsAsTheRealRunDid)
{
    const std::vector<std::string> cases = { "d_mark_step", "d_rerecord_limit", "d_recompile_limit", "d_cpu_input",
        "f_kv_not_static", "f_mutate_plain_input", "f_dynamic_true", "f_skip_dynamic_graphs", "f_trees_off",
        "f_training", "f_output_alias", "f_param_swap" };
    for (const std::string& id : cases) {
        SCOPED_TRACE(id);
        auto s = engine::scenario::loadScenarioOrGraph(kTraces + "/trace_" + id);
        ASSERT_TRUE(s.ok()) << s.error().toString();
        EXPECT_EQ(s->runtime, engine::scenario::Runtime::CudaGraphTrees);
        auto sim = engine::runtime::simulate(*s);
        ASSERT_TRUE(sim.ok()) << sim.error().toString();
        EXPECT_EQ(stepsOf(*sim), truthSteps(truthCase("cudagraph_cases_f/truth.json", id)));
    }
}

// The steps PyTorch logged (TORCH_LOGS="+cudagraphs"): "[0/1] Running warmup" and "[0/1] Recording
// function" lines, in order. These cases were recorded after the builder was written.
Steps loggedSteps(const std::string& path)
{
    Steps out;
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line)) {
        const size_t tag = line.find("[__cudagraphs] [");
        if (tag == std::string::npos)
            continue;
        const size_t open = tag + std::string("[__cudagraphs] [").size();
        const std::string id = line.substr(open, line.find(']', open) - open);
        if (line.find("] Running warmup", open) != std::string::npos)
            out.emplace_back(id, "warmup");
        else if (line.find("] Recording function", open) != std::string::npos)
            out.emplace_back(id, "record");
    }
    return out;
}

TEST(TraceScenarioReal, CasesRecordedAfterTheBuilderWarmUpAndRecordAsLogged)
{
    const std::map<std::string, Steps> expected = {
        { "g_buffer_swap", { { "0/0", "warmup" }, { "0/0", "record" }, { "0/0", "record" } } },
        { "g_graph_break", { { "0/0", "warmup" }, { "1/0", "warmup" }, { "0/0", "record" }, { "1/0", "record" } } },
        { "g_auto_dynamic",
            { { "0/0", "warmup" }, { "0/0", "record" }, { "0/1", "warmup" }, { "0/1", "warmup" }, { "0/1", "record" },
                { "0/1", "warmup" }, { "0/1", "record" }, { "0/1", "warmup" } } },
        { "g_two_models", { { "0/0", "warmup" }, { "0/1", "warmup" }, { "0/0", "record" }, { "0/1", "record" } } },
        { "g_feedback", { { "0/0", "warmup" } } },
    };
    for (const auto& [id, steps] : expected) {
        SCOPED_TRACE(id);
        // The table above is what the log says (read by a person); the parse must agree with it.
        EXPECT_EQ(loggedSteps(kReal + "/cudagraph_cases_g/" + id + ".log"), steps);
        auto s = engine::scenario::loadScenarioOrGraph(kTraces + "/trace_" + id);
        ASSERT_TRUE(s.ok()) << s.error().toString();
        auto sim = engine::runtime::simulate(*s);
        ASSERT_TRUE(sim.ok()) << sim.error().toString();
        EXPECT_EQ(stepsOf(*sim), steps);
    }
    // The graph break restarted Dynamo's analysis: the graph is attempt 1 ("0/0_1"), which the runtime
    // spans and the simulator call 0/0.
    auto brk = engine::scenario::loadScenarioOrGraph(kTraces + "/trace_g_graph_break");
    ASSERT_TRUE(brk.ok());
    ASSERT_TRUE(brk->graph("0/0") && brk->graph("1/0"));
    EXPECT_NE(brk->frames.at("0/0"), brk->frames.at("1/0")); // forward and the resume function
}

// g_feedback: each call's output fed back as the next call's input. The second call raised PyTorch's
// overwritten error (the warm-up's output was freed when the call began a new generation); listed as
// calls, the simulation raises it at the same call, with PyTorch's text to the character.
TEST(TraceScenarioReal, AWarmupOutputFedBackRaisesAsItDidForReal)
{
    std::ifstream log(kReal + "/cudagraph_cases_g/g_feedback.log");
    std::string line, real;
    while (std::getline(log, line)) {
        if (line.rfind("RuntimeError: Error: accessing tensor output", 0) == 0) {
            real = line;
            if (std::getline(log, line))
                real += "\n" + line;
            break;
        }
    }
    ASSERT_FALSE(real.empty());
    const std::string list = (fs::temp_directory_path() / "aclgi_g_feedback_calls.json").string();
    std::ofstream(list) << R"([{"graph": "0/0"}, {"graph": "0/0", "inputs": {"x": {"output_of": 0}}}])";
    auto s = engine::scenario::loadScenarioOrGraph(kTraces + "/trace_g_feedback", {}, 2, true, list);
    std::remove(list.c_str());
    ASSERT_TRUE(s.ok()) << s.error().toString();
    auto sim = engine::runtime::simulate(*s);
    ASSERT_TRUE(sim.ok()) << sim.error().toString();
    ASSERT_EQ(sim->calls.size(), 2u);
    EXPECT_EQ(sim->calls[0].action, engine::runtime::CallAction::Warmup);
    EXPECT_EQ(sim->calls[1].action, engine::runtime::CallAction::Raised);
    bool quoted = false;
    for (const auto& h : sim->hazards)
        quoted |= h.kind == engine::runtime::HazardKind::CallRaised && h.call == 1
            && h.message.find(real) != std::string::npos;
    EXPECT_TRUE(quoted) << real;
}

// Sizes: the values create_symbol recorded, unless the user gives them (--symbols), as for any graph.
TEST(TraceScenarioReal, GivenSymbolValuesWinOverTheRecordedOnes)
{
    auto hinted = engine::scenario::loadScenarioOrGraph(kTraces + "/trace_f_dynamic_true");
    auto given = engine::scenario::loadScenarioOrGraph(kTraces + "/trace_f_dynamic_true", { { "s52", 7 } });
    ASSERT_TRUE(hinted.ok() && given.ok());
    ASSERT_FALSE(hinted->calls.empty() || given->calls.empty());
    EXPECT_EQ(hinted->calls[0].symbols.at("s52"), 2); // batch 2, the first size the program called
    EXPECT_EQ(given->calls[0].symbols.at("s52"), 7);
}

TEST(TraceScenarioReal, WhatTheTraceShowsDecidesTheConfigAndWhatItCannotIsSaid)
{
    auto limit = engine::scenario::loadScenarioOrGraph(kTraces + "/trace_d_rerecord_limit");
    ASSERT_TRUE(limit.ok());
    bool rerecord = false;
    for (const auto& [name, value] : limit->config)
        rerecord |= name == "torch._inductor.config.triton.cudagraph_unexpected_rerecord_limit" && value.repr() == "3";
    EXPECT_TRUE(rerecord);
    auto fullgraph = engine::scenario::loadScenarioOrGraph(kTraces + "/trace_d_recompile_limit");
    ASSERT_TRUE(fullgraph.ok());
    bool raised = false;
    for (const auto& [name, value] : fullgraph->config)
        raised |= name == "fullgraph" && value.repr() == "True";
    EXPECT_TRUE(raised); // FailOnRecompileLimitHit with fail_on_recompile_limit_hit False: fullgraph
    EXPECT_TRUE(hasNote(*fullgraph, "compile 0/3 left no graph (it failed: FailOnRecompileLimitHit)"));
    auto off = engine::scenario::loadScenarioOrGraph(kTraces + "/trace_f_trees_off");
    ASSERT_TRUE(off.ok());
    EXPECT_TRUE(hasNote(*off, "no CUDA graph activity"));
    EXPECT_TRUE(hasNote(*off, "torch._inductor.config.triton.cudagraph_trees = False"));
    auto dynamic = engine::scenario::loadScenarioOrGraph(kTraces + "/trace_f_dynamic_true");
    ASSERT_TRUE(dynamic.ok());
    EXPECT_TRUE(hasNote(*dynamic, "is a new size"));
    auto training = engine::scenario::loadScenarioOrGraph(kTraces + "/trace_f_training");
    ASSERT_TRUE(training.ok());
    EXPECT_TRUE(hasNote(*training, "backward graphs' runs"));
}

// A TorchAir (NPU) trace is not a CUDA run: it keeps the aclgraph runtime.
TEST(TraceScenarioReal, OnlyACudaRunBecomesACudaScenario)
{
    engine::ingest::TraceRun run;
    EXPECT_FALSE(engine::scenario::isCudaTraceRun(run));
    run.cudaDevice = true;
    EXPECT_TRUE(engine::scenario::isCudaTraceRun(run));
    run.cudaDevice = false;
    run.cudagraphs = true;
    EXPECT_TRUE(engine::scenario::isCudaTraceRun(run));
}

} // namespace
