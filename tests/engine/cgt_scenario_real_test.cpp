// The cuda_graph_trees runtime run as scenarios (engine/runtime/cgt/cgt_run.cpp) against the real
// PyTorch 2.11 cases recorded by this project (tests/data/real/cudagraph_cases_f: truth.json, and
// truth.md for what each program did). Each scenario states the program as its "What ran" line
// says: the graphs (small stand-ins with the same input kinds: static or not, mutated, on the CPU,
// dynamic), the frames, the options, which tensors each call binds, what it keeps and reads. Every
// expectation is read from truth.json: the action of every call, and the warnings PyTorch printed.
#include "engine/runtime/simulator.h"
#include "engine/scenario/scenario.h"

#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

namespace {

using engine::runtime::CallAction;
using engine::runtime::HazardKind;
using engine::runtime::Simulation;
using nlohmann::json;
using nlohmann::ordered_json;

const json& truthCase(const std::string& id)
{
    static const json truth = [] {
        std::ifstream in(std::string(ACLGI_TEST_DATA_DIR) + "/real/cudagraph_cases_f/truth.json");
        return json::parse(in);
    }();
    for (const json& c : truth["cases"])
        if (c["id"] == id)
            return c;
    throw std::runtime_error("no case " + id);
}

ordered_json tensor(const std::string& name, const char* kind, ordered_json shape, const char* dtype = "f32")
{
    return { { "name", name }, { "kind", kind }, { "shape", std::move(shape) }, { "dtype", dtype } };
}

ordered_json node(const std::string& name, const std::string& target, ordered_json args, ordered_json shape,
    const char* dtype = "f32")
{
    return { { "name", name }, { "target", target }, { "args", std::move(args) },
        { "meta", { { "shape", std::move(shape) }, { "dtype", dtype } } } };
}

// part_d/part_f's decoder as Inductor's graph sees it: lm_head weight (a parameter), four K/V caches
// [B, 4, 64, 64] written in place by index_copy_, tokens [B, T] and pos [T] made fresh by every call.
ordered_json decoder(const std::string& id, ordered_json batch, int seq, const char* kvKind = "static_address")
{
    const bool dynamic = batch.is_string();
    ordered_json inputs = ordered_json::array({ tensor("lm_head", "parameter", { 1024, 256 }) });
    ordered_json nodes = ordered_json::array();
    for (int i = 0; i < 4; ++i) {
        const std::string kv = "kv" + std::to_string(i);
        inputs.push_back(tensor(kv, kvKind, { batch, 4, 64, 64 }));
        nodes.push_back(node(kv + "_store", "aten.index_copy_.default", { kv, 2, "pos", kv }, { batch, 4, 64, 64 }));
    }
    inputs.push_back(tensor("tokens", "user_input", { batch, seq }, "i64"));
    inputs.push_back(tensor("pos", "user_input", { seq }, "i64"));
    if (dynamic)
        inputs.push_back({ { "name", "s0" }, { "kind", "symint" }, { "symbol", "s0" } });
    ordered_json rows = dynamic ? ordered_json(batch.get<std::string>() + "*" + std::to_string(seq))
                                : ordered_json(batch.get<int>() * seq);
    nodes.push_back(node("emb", "aten.embedding.default", { "lm_head", "tokens" }, { rows, 256 }));
    nodes.push_back(node("logits", "aten.mm.default", { "emb", "lm_head" }, { rows, 1024 }));
    return { { "id", id }, { "dynamic", dynamic }, { "inputs", inputs }, { "nodes", nodes },
        { "outputs", { "logits" } } };
}

ordered_json kvBinding(const std::string& object)
{
    ordered_json b = ordered_json::object();
    for (int i = 0; i < 4; ++i)
        b["kv" + std::to_string(i)] = "kv." + object + "." + std::to_string(i);
    return b;
}

ordered_json scenario(ordered_json graphs, ordered_json calls, ordered_json config = ordered_json::object())
{
    return { { "format", "aclgraph-inspector-scenario" }, { "version", 1 }, { "name", "real" },
        { "runtime", "cuda_graph_trees" }, { "config", std::move(config) }, { "graphs", std::move(graphs) },
        { "calls", std::move(calls) } };
}

Simulation run(const ordered_json& j)
{
    auto s = engine::scenario::parseScenario(j.dump(), "real.json");
    EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().toString());
    if (!s.ok())
        return {};
    auto sim = engine::runtime::simulate(s.value());
    EXPECT_TRUE(sim.ok()) << (sim.ok() ? "" : sim.error().toString());
    return sim.ok() ? std::move(sim.value()) : Simulation {};
}

// truth.json's action words as the run's call actions ("record" is a first recording or a re-record).
bool sameAction(const std::string& truth, CallAction a)
{
    if (truth == "warmup")
        return a == CallAction::Warmup;
    if (truth == "record" || truth == "warmup+record")
        return a == CallAction::Capture || a == CallAction::Recapture;
    if (truth == "replay")
        return a == CallAction::Replay;
    if (truth.rfind("eager", 0) == 0)
        return a == CallAction::Eager;
    if (truth == "failed")
        return a == CallAction::Raised;
    return false;
}

void expectActions(const std::string& id, const Simulation& sim)
{
    const json& c = truthCase(id);
    ASSERT_EQ(sim.calls.size(), c["calls"].size()) << id;
    for (size_t k = 0; k < sim.calls.size(); ++k)
        EXPECT_TRUE(sameAction(c["calls"][k]["action"], sim.calls[k].action))
            << id << " #" << k << " " << c["calls"][k]["label"].get<std::string>() << ": truth "
            << c["calls"][k]["action"].get<std::string>() << ", simulated "
            << engine::runtime::callActionName(sim.calls[k].action);
}

// The WARNING lines of call k, as the run logged them.
std::vector<std::string> warningsOf(const Simulation& sim, int k)
{
    std::vector<std::string> out;
    for (const auto& e : sim.events)
        if (e.call == k)
            for (const auto& l : e.log)
                if (l.level == engine::runtime::LogLevel::Warning)
                    out.push_back(l.text);
    return out;
}

// Truth's warnings as (call index, text) for texts from PyTorch's cudagraphs and Dynamo loggers (the
// TF32 and requires_grad UserWarnings come from the program, not from the runtime).
std::vector<std::pair<int, std::string>> runtimeWarnings(const json& c)
{
    std::vector<std::pair<int, std::string>> out;
    std::map<std::string, int> firstIndex;
    for (size_t k = c["calls"].size(); k-- > 0;)
        firstIndex[c["calls"][k]["label"].get<std::string>()] = int(k);
    for (const json& w : c["warnings"]) {
        std::string text = w["text"];
        if (text.find("UserWarning") != std::string::npos)
            continue;
        const std::string tag = "[__cudagraphs] ";
        if (text.rfind(tag, 0) == 0)
            text = text.substr(tag.size());
        int call = -1;
        if (w.contains("call") && w["call"].is_string())
            call = firstIndex.at(w["call"].get<std::string>());
        out.emplace_back(call, text);
    }
    return out;
}

// Each runtime warning of the truth is printed by the run (its first line, during the same call
// when truth names the call), and the run prints no other warning.
void expectWarnings(const std::string& id, const Simulation& sim)
{
    const auto truth = runtimeWarnings(truthCase(id));
    std::vector<std::string> all;
    for (size_t k = 0; k < sim.calls.size(); ++k)
        for (const std::string& w : warningsOf(sim, int(k)))
            all.push_back(w);
    EXPECT_EQ(all.size(), truth.size()) << id;
    for (const auto& [call, text] : truth) {
        const std::string firstLine = text.substr(0, text.find(". Found from"));
        const std::string head = firstLine.substr(0, firstLine.find('\n'));
        bool found = false;
        for (const std::string& w : all)
            found |= w.rfind(head, 0) == 0;
        EXPECT_TRUE(found) << id << ": no warning starting '" << head << "'";
    }
}

TEST(CgtScenarioReal, RecompileLimitUnderFullgraphRaisesThenOldShapesReplay)
{
    // torch._dynamo.config.recompile_limit = 3; mk(dynamic=False) (fullgraph); kv A;
    // for T in (1,2,3,4,5,6,2,1): seq{T}_a, seq{T}_b.
    ordered_json graphs = ordered_json::array();
    for (int t = 1; t <= 6; ++t)
        graphs.push_back(decoder("seq" + std::to_string(t), 1, t));
    ordered_json calls = ordered_json::array();
    for (int t : { 1, 2, 3, 4, 5, 6, 2, 1 })
        for (int n = 0; n < 2; ++n)
            calls.push_back({ { "graph", "seq" + std::to_string(t) }, { "inputs", kvBinding("A") } });
    const Simulation sim = run(scenario(
        graphs, calls, { { "fullgraph", true }, { "dynamic", false }, { "torch._dynamo.config.recompile_limit", 3 } }));
    expectActions("d_recompile_limit", sim);
    expectWarnings("d_recompile_limit", sim);
    // Each failed call took its own compile id: [0/3] ... [0/8].
    EXPECT_EQ(warningsOf(sim, 6).at(0).rfind("[0/3] torch._dynamo hit config.recompile_limit (3)", 0), 0u);
    EXPECT_EQ(warningsOf(sim, 11).at(0).rfind("[0/8] torch._dynamo hit config.recompile_limit (3)", 0), 0u);
}

TEST(CgtScenarioReal, KvNotStaticSkipsCudagraphsForMutatedInputs)
{
    // kv = caches(1, static=False): the four caches are plain inputs written in place.
    ordered_json calls = ordered_json::array();
    for (int k = 0; k < 6; ++k)
        calls.push_back({ { "graph", "decode" }, { "inputs", kvBinding(k < 4 ? "kv" : "kv2") } });
    const Simulation sim = run(scenario({ decoder("decode", 1, 1, "user_input") }, calls, { { "dynamic", false } }));
    expectActions("f_kv_not_static", sim);
    expectWarnings("f_kv_not_static", sim);
    EXPECT_EQ(warningsOf(sim, 0).at(0), "skipping cudagraphs due to mutated inputs (4 instances)");
    EXPECT_TRUE(sim.pools.empty()); // truth: no private pool
}

TEST(CgtScenarioReal, MutatedPlainInputSkipsAndAStaticOneIsCaptured)
{
    // f(x, y): x.add_(1); return (x*y).sum(0); then g(a, b) with a marked static (a second frame).
    auto graph = [](const std::string& id, const char* kind) {
        ordered_json inputs = ordered_json::array({ tensor("x", kind, { 8, 8 }), tensor("y", "user_input", { 8, 8 }) });
        ordered_json nodes = ordered_json::array({ node("x_add", "aten.add_.Tensor", { "x", 1 }, { 8, 8 }),
            node("mul", "aten.mul.Tensor", { "x", "y" }, { 8, 8 }),
            node("out", "aten.sum.dim_IntList", { "mul", { 0 } }, { 8 }) });
        return ordered_json { { "id", id }, { "dynamic", false }, { "inputs", inputs }, { "nodes", nodes },
            { "outputs", { "out" } } };
    };
    ordered_json calls = ordered_json::array();
    for (int k = 0; k < 3; ++k)
        calls.push_back({ { "graph", "f" }, { "inputs", { { "x", "x" }, { "y", "y" } } } });
    for (int k = 0; k < 3; ++k)
        calls.push_back({ { "graph", "g" }, { "inputs", { { "x", "xs" }, { "y", "y" } } } });
    ordered_json j = scenario({ graph("f", "user_input"), graph("g", "static_address") }, calls);
    j["frames"] = { { "f", { "f" } }, { "<lambda>", { "g" } } };
    const Simulation sim = run(j);
    expectActions("f_mutate_plain_input", sim);
    expectWarnings("f_mutate_plain_input", sim);
    EXPECT_EQ(sim.graphs.at(1).name, "1/0");
}

TEST(CgtScenarioReal, CpuInputIsPartitionedAndTheNextWarmupCheckpoints)
{
    // m2 = torch.compile(lambda x, y: (x * 2 + y.to(x.device)).sum()), y on the CPU, called three
    // times (r kept until the next call rebinds it, the last r to the end); then the decoder.
    ordered_json cpu = { { "id", "lambda" }, { "dynamic", false },
        { "inputs",
            ordered_json::array({ tensor("x", "user_input", { 16 }),
                { { "name", "y" }, { "kind", "user_input" }, { "shape", { 16 } }, { "dtype", "f32" },
                    { "device", "cpu" } } }) },
        { "nodes",
            ordered_json::array({ node("x2", "aten.mul.Tensor", { "x", 2 }, { 16 }),
                node("y_dev", "aten._to_copy.default", { "y" }, { 16 }),
                node("add", "aten.add.Tensor", { "x2", "y_dev" }, { 16 }),
                node("out", "aten.sum.default", { "add" }, ordered_json::array()) }) },
        { "outputs", { "out" } } };
    ordered_json calls = ordered_json::array();
    for (int k = 0; k < 3; ++k)
        calls.push_back({ { "graph", "lambda" }, { "keep_outputs", k < 2 ? ordered_json(1) : ordered_json("all") } });
    for (int k = 0; k < 3; ++k)
        calls.push_back({ { "graph", "decode" }, { "inputs", kvBinding("A") } });
    ordered_json j = scenario({ cpu, decoder("decode", 1, 1) }, calls);
    j["frames"] = { { "<lambda>", { "lambda" } }, { "forward", { "decode" } } };
    const Simulation sim = run(j);
    expectActions("d_cpu_input", sim);
    expectWarnings("d_cpu_input", sim);
    // decode0 warms up after the lambda's replay: an allocator checkpoint first (truth: log 142).
    bool checkpoint = false;
    for (const auto& e : sim.events)
        checkpoint |= e.call == 3 && e.kind == engine::runtime::EventKind::Rollback;
    EXPECT_TRUE(checkpoint);
}

TEST(CgtScenarioReal, DynamicTrueFailsToExplainAMovedCacheUnderDebugLogging)
{
    // mk(dynamic=True); for b in (2,3,4,3,2,5): kv = caches(b) (a fresh static object per turn),
    // batch{b}_a/_b/_c; TORCH_LOGS with +cudagraphs (the case's log has the DEBUG lines).
    ordered_json calls = ordered_json::array();
    int turn = 0;
    for (int b : { 2, 3, 4, 3, 2, 5 }) {
        for (int n = 0; n < 3; ++n)
            calls.push_back({ { "graph", "decode" }, { "symbols", { { "s0", b } } },
                { "inputs", kvBinding("turn" + std::to_string(turn)) } });
        ++turn;
    }
    const Simulation sim = run(scenario({ decoder("decode", "s0", 1) }, calls,
        { { "dynamic", true },
            { "TORCH_LOGS", "recompiles,graph_breaks,perf_hints,+cudagraphs,cudagraph_static_inputs" } }));
    expectActions("f_dynamic_true", sim);
    expectWarnings("f_dynamic_true", sim);
    int raised = 0;
    for (const auto& h : sim.hazards)
        raised += h.kind == HazardKind::CallRaised
            && h.message.find("AssertionError: length mismatch between inputs, recorded_data_ptr, and placeholders")
                != std::string::npos;
    EXPECT_EQ(raised, 6);
}

TEST(CgtScenarioReal, SkipDynamicGraphsRunsEverythingWithoutCudagraphsSilently)
{
    ordered_json calls = ordered_json::array();
    int turn = 0;
    for (int b : { 2, 3, 2 }) {
        for (int n = 0; n < 2; ++n)
            calls.push_back({ { "graph", "decode" }, { "symbols", { { "s0", b } } },
                { "inputs", kvBinding("turn" + std::to_string(turn)) } });
        ++turn;
    }
    const Simulation sim = run(scenario({ decoder("decode", "s0", 1) }, calls,
        { { "dynamic", true }, { "torch._inductor.config.triton.cudagraph_skip_dynamic_graphs", true } }));
    expectActions("f_skip_dynamic_graphs", sim);
    expectWarnings("f_skip_dynamic_graphs", sim);
    EXPECT_TRUE(sim.pools.empty()); // truth: no private pool
}

TEST(CgtScenarioReal, TreesOffRecordsInTheFirstCallAndAssertsOnMovedStatics)
{
    // cudagraph_trees = False; decode0..3 kept in ys; read ys[1] after decode3; kv2; decode_newkv0..1.
    ordered_json calls = ordered_json::array();
    for (int k = 0; k < 4; ++k)
        calls.push_back({ { "graph", "decode" }, { "inputs", kvBinding("kv") }, { "keep_outputs", "all" } });
    calls[3]["reads"] = { 1 };
    for (int k = 0; k < 2; ++k)
        calls.push_back({ { "graph", "decode" }, { "inputs", kvBinding("kv2") } });
    const Simulation sim = run(scenario({ decoder("decode", 1, 1) }, calls,
        { { "dynamic", false }, { "torch._inductor.config.triton.cudagraph_trees", false } }));
    expectActions("f_trees_off", sim);
    expectWarnings("f_trees_off", sim);
    // The read of ys[1] is not an error: the same static output tensor, now decode3's values.
    ASSERT_EQ(truthCase("f_trees_off")["reads"].size(), 1u);
    EXPECT_TRUE(truthCase("f_trees_off")["reads"][0]["ok"].get<bool>());
    ASSERT_EQ(sim.pools.size(), 1u); // no tree manager; the graph's own pool (truth: 2 MiB in (1, 0))
    EXPECT_EQ(sim.pools[0].pool.str(), "(1, 0)");
    int overwritten = 0;
    for (const auto& h : sim.hazards)
        overwritten += h.kind == HazardKind::OutputOverwritten && h.concerns == "call 1";
    EXPECT_EQ(overwritten, 1);
}

TEST(CgtScenarioReal, OutputAliasReadOfARecordingRaisesAndOfTheLastReplayDoesNot)
{
    // f(x): return x[1:], x * 2; four calls with a fresh x each, b kept in held; read held[1] and
    // held[3] after the last call.
    ordered_json g = { { "id", "f" }, { "dynamic", false },
        { "inputs", ordered_json::array({ tensor("x", "user_input", { 8 }) }) },
        { "nodes",
            ordered_json::array({ node("view", "aten.slice.Tensor", { "x", 0, 1 }, { 7 }),
                node("mul", "aten.mul.Tensor", { "x", 2 }, { 8 }) }) },
        { "outputs", { "view", "mul" } } };
    ordered_json calls = ordered_json::array();
    for (int k = 0; k < 4; ++k)
        calls.push_back({ { "graph", "f" }, { "keep_outputs", "all" } });
    calls[3]["reads"] = { 1, 3 };
    const Simulation sim = run(scenario({ g }, calls));
    expectActions("f_output_alias", sim);
    expectWarnings("f_output_alias", sim);
    const json& reads = truthCase("f_output_alias")["reads"];
    ASSERT_EQ(reads.size(), 2u);
    EXPECT_FALSE(reads[0]["ok"].get<bool>());
    EXPECT_TRUE(reads[1]["ok"].get<bool>());
    int errors = 0, silent = 0;
    for (const auto& h : sim.hazards) {
        errors += h.kind == HazardKind::OverwrittenError && h.concerns == "call 1";
        silent += h.kind == HazardKind::OutputOverwritten && h.concerns == "call 3";
    }
    EXPECT_EQ(errors, 1);
    EXPECT_EQ(silent, 0);
}

TEST(CgtScenarioReal, ParameterSwapRerecordsAndCopyKeepsTheAddress)
{
    // decode0..2; m.lm_head.weight = nn.Parameter(clone) (a new storage): after_swap0..2;
    // weight.copy_(...) (same storage): after_copy0..1. The Re-recording line (DEBUG) is printed
    // again at every later call, against the first recording.
    ordered_json calls = ordered_json::array();
    for (int k = 0; k < 8; ++k)
        calls.push_back({ { "graph", "decode" }, { "inputs", [&] {
                                                      ordered_json b = kvBinding("A");
                                                      b["lm_head"]
                                                          = k < 3 ? "lm_head.weight" : "lm_head.weight.swapped";
                                                      return b;
                                                  }() } });
    const Simulation sim = run(scenario({ decoder("decode", 1, 1) }, calls, { { "dynamic", false } }));
    expectActions("f_param_swap", sim);
    for (int k = 3; k < 8; ++k) {
        int lines = 0;
        for (const auto& e : sim.events)
            if (e.call == k)
                for (const auto& l : e.log)
                    lines
                        += l.text.find("Re-recording function=partition_0, reason=static input data pointer changed.\n"
                                       "input name: lm_head.")
                        != std::string::npos;
        EXPECT_EQ(lines, 1) << "call " << k;
    }
}

TEST(CgtScenarioReal, MarkStepBeginRecordsAChildInTheSameGeneration)
{
    // decode0..3 kept in ys, read decode2 after decode3; mark_step_begin; decode4 kept, read decode3;
    // decode5 without it, read decode4.
    ordered_json calls = ordered_json::array();
    for (int k = 0; k < 6; ++k)
        calls.push_back({ { "graph", "decode" }, { "inputs", kvBinding("A") } });
    for (int k = 0; k < 5; ++k)
        calls[size_t(k)]["keep_outputs"] = "all";
    calls[3]["reads"] = { 2 };
    calls[4]["mark_step_begin"] = true;
    calls[4]["reads"] = { 3 };
    calls[5]["reads"] = { 4 };
    const Simulation sim = run(scenario({ decoder("decode", 1, 1) }, calls, { { "dynamic", false } }));
    expectActions("d_mark_step", sim);
    expectWarnings("d_mark_step", sim);
}

} // namespace
