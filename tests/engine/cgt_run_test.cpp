// The cuda_graph_trees runtime as a whole scenario run (engine/runtime/cgt/cgt_run.cpp): actions per
// call, PyTorch's log texts, the pool's memory, and the hazards, on small scenarios read through the
// real reader.
#include "engine/report/hazard_explain.h"
#include "engine/runtime/cgt/cuda_graph_trees.h"
#include "engine/runtime/simulator.h"
#include "engine/scenario/decoder_generator.h"
#include "engine/scenario/scenario.h"
#include "simulator_test_util.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace {

using engine::runtime::CallAction;
using engine::runtime::EventKind;
using engine::runtime::HazardKind;
using engine::runtime::Simulation;
using nlohmann::ordered_json;
using ::testing::HasSubstr;
using ::testing::Not;

ordered_json cudaDecoder(int decodeCalls, bool dynamicDecode = false, std::vector<int> batches = { 1 })
{
    engine::scenario::DecoderSpec spec;
    spec.layers = 2;
    spec.hidden = 256;
    spec.intermediate = 512;
    spec.vocab = 1024;
    spec.maxBatch = 8;
    spec.maxSeq = 64;
    spec.promptLen = 16;
    spec.cuda = true;
    spec.dynamicDecode = dynamicDecode;
    spec.staticBatch = 2;
    return ordered_json::parse(engine::scenario::decoderScenarioJson(spec, "{}", batches, decodeCalls));
}

Simulation runCuda(const ordered_json& j, engine::runtime::SimulationOptions o = {})
{
    o.recordMemory = true;
    return simtest::run(j, o);
}

std::vector<CallAction> actions(const Simulation& sim)
{
    std::vector<CallAction> out;
    for (const auto& c : sim.calls)
        out.push_back(c.action);
    return out;
}

TEST(CgtRun, PromptAndDecodeWarmUpRecordThenReplay)
{
    const Simulation sim = runCuda(cudaDecoder(4));
    ASSERT_TRUE(sim.cuda.has_value());
    EXPECT_EQ(engine::runtime::runtimeName(sim), "cuda_graph_trees");
    // prompt: warm-up; decode: warm-up, record, replay, replay (docs/cuda-graph-trees.md W1, W2).
    EXPECT_EQ(actions(sim),
        (std::vector<CallAction> {
            CallAction::Warmup, CallAction::Warmup, CallAction::Capture, CallAction::Replay, CallAction::Replay }));
    ASSERT_EQ(sim.graphs.size(), 2u);
    EXPECT_EQ(sim.graphs[0].name, "0/0");
    EXPECT_EQ(sim.graphs[1].name, "0/1");
    EXPECT_EQ(sim.graphs[1].captures, 1);
    EXPECT_EQ(sim.graphs[1].replays, 2);
    // §4 I4: input_ids and slot_mapping, int64 [2] each, are copied before every replay: 32 bytes.
    EXPECT_EQ(sim.calls[3].bytesCopied, 32u);
    EXPECT_EQ(sim.calls[3].inputsCopied, 2);
    const std::string log = simtest::logText(sim);
    EXPECT_THAT(log, HasSubstr("Recording cudagraph tree for graph without symints"));
    EXPECT_THAT(log, HasSubstr("[0/0] Running warmup function=partition_0"));
    EXPECT_THAT(log,
        HasSubstr("[0/1] Recording function=partition_0, cuda_graph_id=0, inputs: [0]: Tensor(size=[1024, "
                  "256], stride=(256, 1), dtype=torch.bfloat16, data_ptr=0x"));
    // One private pool (0, 1), holding memory after the warm-ups.
    ASSERT_EQ(sim.pools.size(), 1u);
    EXPECT_EQ(sim.pools[0].pool.str(), "(0, 1)");
    EXPECT_GT(sim.pools[0].peakReserved, 0u);
    EXPECT_TRUE(sim.hazards.empty()) << engine::runtime::hazardKindName(sim.hazards[0].kind);
    EXPECT_TRUE(sim.failure.empty());
}

TEST(CgtRun, ReplayAddsNoMemoryAndRecordingFreesItsInputBuffers)
{
    const Simulation sim = runCuda(cudaDecoder(4));
    ASSERT_EQ(sim.calls.size(), 5u);
    // Replays allocate nothing (§9): the pool is where the recording left it.
    EXPECT_EQ(sim.calls[4].pools.at(0).totalSize, sim.calls[3].pools.at(0).totalSize);
    EXPECT_EQ(sim.calls[4].pools.at(0).allocatedSize, sim.calls[3].pools.at(0).allocatedSize);
    // §4 I3: the recording copies each non-static input (16 bytes each) into a buffer of the pool,
    // which the capture frees (the real snapshots: freed during _record); outputs are dropped too.
    EXPECT_EQ(sim.calls[2].bytesCopied, 32u);
    EXPECT_EQ(sim.calls[2].pools.at(0).allocatedSize, 0u);
    bool staging = false;
    for (const auto& o : sim.owners)
        staging |= o.kind == engine::runtime::OwnerKind::Staging && o.tensor == "input_ids";
    EXPECT_TRUE(staging);
}

ordered_json movingCache()
{
    ordered_json j = cudaDecoder(8);
    // The serving loop rebinds layer 0's K cache at call 4 and goes back to the old one at call 7.
    for (int c = 4; c <= 8; ++c)
        j["calls"][size_t(c)]["inputs"] = { { "l0_k_cache", c < 7 ? "kv_cache.layer0.k.moved" : "kv_cache.layer0.k" } };
    return j;
}

TEST(CgtRun, StaticInputMovedRerecordsAndTheOldAddressReplaysTheOldRecording)
{
    const Simulation sim = runCuda(movingCache());
    EXPECT_EQ(actions(sim),
        (std::vector<CallAction> { CallAction::Warmup, CallAction::Warmup, CallAction::Capture, CallAction::Replay,
            CallAction::Recapture, CallAction::Replay, CallAction::Replay, CallAction::Replay, CallAction::Replay }));
    EXPECT_EQ(simtest::countHazards(sim, HazardKind::StaticInputMoved), 1);
    // Call 7 replays call 2's recording (§5 R3): its replay event names the recording.
    bool oldReplayed = false;
    for (const auto& e : sim.events)
        oldReplayed
            |= e.call == 7 && e.kind == EventKind::Replay && e.summary.find("recorded by call 2") != std::string::npos;
    EXPECT_TRUE(oldReplayed);
    EXPECT_THAT(simtest::logText(sim),
        HasSubstr("[0/1] Re-recording function=partition_0, reason=static input data pointer changed.\ninput name: "
                  "l0_k_cache. data pointer changed from "));
    const auto x = engine::report::explainHazard(sim, 0);
    EXPECT_EQ(x.title, "Static input moved: the function records again");
}

TEST(CgtRun, DynamicSizesWarnOnceOverTheLimitAndGrowThePool)
{
    // Sizes 512 and 8192 need more than the segments the prompt's warm-up made (§9 M6).
    ordered_json j = cudaDecoder(6, true, { 1, 2, 3, 4, 512, 8192 });
    j["config"] = { { "torch._inductor.config.triton.cudagraph_dynamic_shape_warn_limit", 3 } };
    const Simulation sim = runCuda(j);
    // Sizes 1, 2, 3 fit the limit; size 4 is the 4th distinct size (cudagraph_utils.py:343), warned once.
    int warned = -1, count = 0;
    for (const auto& e : sim.events)
        for (const auto& l : e.log)
            if (l.text.find("We have observed 4 distinct sizes") != std::string::npos) {
                warned = e.call;
                ++count;
            }
    EXPECT_EQ(warned, 4);
    EXPECT_EQ(count, 1);
    EXPECT_THAT(simtest::logText(sim), HasSubstr("Recording cudagraph tree for symint key 3"));
    // Every size is a new function id: each warms up (W4).
    for (size_t c = 1; c < sim.calls.size(); ++c)
        EXPECT_EQ(sim.calls[c].action, CallAction::Warmup) << c;
    ASSERT_EQ(simtest::countHazards(sim, HazardKind::PoolGrowth), 2);
    for (const auto& h : sim.hazards) {
        if (h.kind == HazardKind::PoolGrowth) {
            EXPECT_TRUE(h.key == "512" || h.key == "8192") << h.key;
        }
    }
}

TEST(CgtRun, HeldOutputsReadSilentlyOverwrittenOrRaising)
{
    ordered_json j = cudaDecoder(4);
    // Call 1 (a warm-up) keeps its logits and reads them after call 2: freed by the new generation.
    j["calls"][2]["reads"] = { 1 };
    // Call 3 (a replay) keeps its logits and reads them after call 4: silently call 4's values.
    j["calls"][4]["reads"] = { 3 };
    const Simulation sim = runCuda(j);
    ASSERT_EQ(simtest::countHazards(sim, HazardKind::OverwrittenError), 1);
    ASSERT_EQ(simtest::countHazards(sim, HazardKind::OutputOverwritten), 1);
    std::string error;
    for (const auto& h : sim.hazards)
        if (h.kind == HazardKind::OverwrittenError)
            error = h.message;
    EXPECT_THAT(error,
        HasSubstr("Error: accessing tensor output of CUDAGraphs that has been overwritten by a "
                  "subsequent run. Stack trace: [Could not find stack trace]. To prevent overwriting"));
    // The RuntimeError goes to the program; PyTorch logs nothing (real f_output_alias).
    EXPECT_THAT(simtest::logText(sim), Not(HasSubstr("accessing tensor output")));
}

TEST(CgtRun, KeptWarmupOutputIsReportedWhenTheNextCallFreesIt)
{
    ordered_json j = cudaDecoder(3);
    j["calls"][1]["keep_outputs"] = 2;
    const Simulation sim = runCuda(j);
    ASSERT_EQ(simtest::countHazards(sim, HazardKind::OverwrittenError), 1);
    EXPECT_EQ(sim.hazards[0].call, 2);
    EXPECT_EQ(sim.hazards[0].madeAtCall, 1);
    // The explanation quotes PyTorch's error whole, without the message's closing quote.
    const auto x = engine::report::explainHazard(sim, 0);
    ASSERT_EQ(x.quotes.size(), 1u);
    EXPECT_EQ(x.quotes[0], "RuntimeError: " + engine::runtime::cgt::overwrittenErrorText(""));
}

TEST(CgtRun, RecompileLimitRunsEagerOrRaisesUnderFullgraph)
{
    ordered_json j = cudaDecoder(3);
    j["config"] = { { "torch._dynamo.config.recompile_limit", 1 } };
    const Simulation eager = runCuda(j);
    EXPECT_EQ(simtest::countHazards(eager, HazardKind::RecompileLimit), 1);
    // Every attempt over the limit takes the frame's next compile id and warns (real d_recompile_limit).
    const std::string log = simtest::logText(eager);
    EXPECT_THAT(log, HasSubstr("[0/1] torch._dynamo hit config.recompile_limit (1)\n   function: 'forward'"));
    EXPECT_THAT(log, HasSubstr("[0/3] torch._dynamo hit config.recompile_limit (1)"));
    EXPECT_EQ(actions(eager),
        (std::vector<CallAction> { CallAction::Warmup, CallAction::Eager, CallAction::Eager, CallAction::Eager }));
    EXPECT_TRUE(eager.failure.empty());

    j["config"]["fullgraph"] = true;
    const Simulation raised = runCuda(j);
    EXPECT_EQ(actions(raised),
        (std::vector<CallAction> { CallAction::Warmup, CallAction::Raised, CallAction::Raised, CallAction::Raised }));
    ASSERT_EQ(simtest::countHazards(raised, HazardKind::CallRaised), 3);
    EXPECT_THAT(raised.hazards.back().message,
        HasSubstr("raises torch._dynamo.exc.FailOnRecompileLimitHit: recompile_limit reached with fullgraph=True."));
    EXPECT_TRUE(raised.failure.empty());
}

TEST(CgtRun, MutatedNonStaticInputSkipsCudagraphs)
{
    ordered_json g = simtest::tinyGraph("g", false);
    ordered_json j = simtest::scenario(
        ordered_json::object(), { g }, { { { "graph", "g" } }, { { "graph", "g" } }, { { "graph", "g" } } });
    j["runtime"] = "cuda_graph_trees";
    const Simulation sim = runCuda(j);
    // kv is a user input updated in place: neither static nor a pool output (§7 K1).
    EXPECT_EQ(actions(sim), (std::vector<CallAction> { CallAction::Eager, CallAction::Eager, CallAction::Eager }));
    EXPECT_THAT(simtest::logText(sim), HasSubstr("skipping cudagraphs due to mutated inputs (1 instances)"));
    EXPECT_EQ(simtest::countHazards(sim, HazardKind::CudagraphsSkipped), 1);
    // Marked static, it is captured.
    j["graphs"][0]["inputs"][1]["kind"] = "static_address";
    const Simulation fixed = runCuda(j);
    EXPECT_EQ(
        actions(fixed), (std::vector<CallAction> { CallAction::Warmup, CallAction::Capture, CallAction::Replay }));
}

TEST(CgtRun, CpuTensorSkipsCudagraphsOnlyWithoutGraphPartition)
{
    ordered_json g = simtest::tinyGraph("g", false);
    g["nodes"][2]["meta"]["device"] = "cpu";
    g["inputs"][1]["kind"] = "static_address";
    ordered_json j = simtest::scenario(ordered_json::object(), { g }, { { { "graph", "g" } }, { { "graph", "g" } } });
    j["runtime"] = "cuda_graph_trees";
    // With graph_partition (the default) the CPU op gets a partition of its own and the rest is
    // captured (real d_cpu_input); without it the whole graph is skipped (§7 K2).
    EXPECT_EQ(actions(runCuda(j)), (std::vector<CallAction> { CallAction::Warmup, CallAction::Capture }));
    j["config"] = { { "torch._inductor.config.graph_partition", false } };
    const Simulation sim = runCuda(j);
    EXPECT_EQ(actions(sim), (std::vector<CallAction> { CallAction::Eager, CallAction::Eager }));
    EXPECT_THAT(simtest::logText(sim), HasSubstr("skipping cudagraphs due to cpu device (out)"));
    EXPECT_EQ(simtest::countHazards(sim, HazardKind::CudagraphsSkipped), 1);
}

TEST(CgtRun, MarkStepBeginOnceKeepsOneGenerationForTheCallsAfterIt)
{
    // The program keeps every output. By default each call is a new generation: call 2 records,
    // then replays (§1 S6). With cudagraph_mark_step_begin() only before call 1, the generation is
    // mark_step_counter from then on and never advances: the path stays a warm-up path (§3 step 3).
    ordered_json j = cudaDecoder(4);
    for (size_t c = 0; c < j["calls"].size(); ++c)
        j["calls"][c]["keep_outputs"] = "all";
    EXPECT_EQ(actions(runCuda(j)),
        (std::vector<CallAction> {
            CallAction::Warmup, CallAction::Warmup, CallAction::Capture, CallAction::Replay, CallAction::Replay }));
    j["calls"][1]["mark_step_begin"] = true;
    EXPECT_EQ(actions(runCuda(j)),
        (std::vector<CallAction> {
            CallAction::Warmup, CallAction::Warmup, CallAction::Warmup, CallAction::Warmup, CallAction::Warmup }));
}

TEST(CgtRun, ScenarioRuntimeKeyIsChecked)
{
    ordered_json j = cudaDecoder(1);
    j["backend"] = "torchair";
    auto bad = engine::scenario::parseScenario(j.dump(), "t.json");
    ASSERT_FALSE(bad.ok());
    EXPECT_THAT(bad.error().toString(), HasSubstr("contradicts"));
    j.erase("backend");
    j["runtime"] = "cuda";
    bad = engine::scenario::parseScenario(j.dump(), "t.json");
    ASSERT_FALSE(bad.ok());
    EXPECT_THAT(bad.error().toString(), HasSubstr("expected \"torchair\", \"npugraph_ex\" or \"cuda_graph_trees\""));
    ordered_json t = cudaDecoder(1);
    t.erase("runtime");
    t["calls"][1]["reads"] = { 0 };
    bad = engine::scenario::parseScenario(t.dump(), "t.json");
    ASSERT_FALSE(bad.ok());
    EXPECT_THAT(bad.error().toString(), HasSubstr("reads applies to the cuda_graph_trees runtime only"));
    ordered_json late = cudaDecoder(2);
    late["calls"][1]["reads"] = { 2 };
    bad = engine::scenario::parseScenario(late.dump(), "t.json");
    ASSERT_FALSE(bad.ok());
    EXPECT_THAT(bad.error().toString(), HasSubstr("has not run yet"));
}

TEST(CgtRun, InvalidOptionFailsWithPyTorchsText)
{
    ordered_json j = cudaDecoder(1);
    j["config"] = { { "mode", "fast" } };
    auto s = engine::scenario::parseScenario(j.dump(), "t.json");
    ASSERT_TRUE(s.ok());
    auto sim = engine::runtime::simulate(s.value());
    ASSERT_FALSE(sim.ok());
    EXPECT_THAT(sim.error().toString(), HasSubstr("Unrecognized mode=fast"));
}

} // namespace
