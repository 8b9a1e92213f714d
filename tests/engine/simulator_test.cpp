// The simulated runtime, one behaviour of torchair-behavior.md §2-3 per test.
#include "simulator_test_util.h"

#include "engine/runtime/graph_analysis.h"

#include <gmock/gmock.h>
#include <set>

using engine::runtime::CallAction;
using engine::runtime::HazardKind;
using simtest::call;
using simtest::countHazards;
using simtest::logText;
using simtest::ordered_json;
using simtest::run;
using simtest::scenario;
using simtest::tinyGraph;
using testing::HasSubstr;
using testing::Not;

TEST(PythonHash, MatchesCPythonTupleHash)
{
    // Values printed by CPython 3.11: hash((1, 2, 3)), hash(()), hash((0,)), ...
    EXPECT_EQ(engine::runtime::pythonTupleHash({ 1, 2, 3 }), 529344067295497451LL);
    EXPECT_EQ(engine::runtime::pythonTupleHash({}), 5740354900026072187LL);
    EXPECT_EQ(engine::runtime::pythonTupleHash({ 0 }), -8753497827991233192LL);
    EXPECT_EQ(engine::runtime::pythonTupleHash({ 20615843020800LL, 20615845117952LL }), -6485145620392451605LL);
    EXPECT_EQ(engine::runtime::pythonTupleHash({ -1 }), 8078679518589016365LL);
    EXPECT_EQ(engine::runtime::pythonTupleHash({ (1LL << 61) - 1, 1LL << 62 }), 7204814214171964562LL);
}

TEST(Simulator, FirstCallCapturesThenReplays)
{
    auto sim = run(
        scenario({ { "experimental_config.frozen_parameter", true } }, { tinyGraph() }, { call(4), call(4), call(4) }));
    ASSERT_EQ(sim.calls.size(), 3u);
    EXPECT_EQ(sim.calls[0].action, CallAction::Capture);
    EXPECT_EQ(sim.calls[1].action, CallAction::Replay);
    EXPECT_EQ(sim.calls[2].action, CallAction::Replay);
    EXPECT_EQ(sim.calls[0].key, "[4]");
    ASSERT_EQ(sim.graphs.size(), 1u);
    EXPECT_EQ(sim.graphs[0].name, "graph_1");
    EXPECT_EQ(sim.graphs[0].captures, 1);
    EXPECT_EQ(sim.graphs[0].replays, 3); // the capturing call replays too
    EXPECT_EQ(sim.graphs[0].counters.at("captured_graph_1"), 1);
    const std::string log = logText(sim);
    EXPECT_THAT(log,
        HasSubstr("Success to capture fx_graph graph_1 for graph key{[4]}. Start to run AclGraph{id: 1} "
                  "with the updated node num {0}."));
    EXPECT_THAT(log, HasSubstr("Find captured AclGraph{id: 1} of fx_graph graph_1 with graph key {[4]}."));
    EXPECT_THAT(
        log, HasSubstr("The current AclGraph no needs to be recaptured for fx_graph graph_1 with graph key {[4]}."));
}

TEST(Simulator, KeyAppendsParameterAddressHashUnlessFrozen)
{
    auto sim = run(scenario(ordered_json::object(), { tinyGraph() }, { call(4) }));
    ASSERT_EQ(sim.calls.size(), 1u);
    EXPECT_EQ(sim.calls[0].key.rfind("[4]", 0), 0u);
    EXPECT_GT(sim.calls[0].key.size(), 3u); // "[4]" + str(hash((w.data_ptr(),)))

    auto frozen = run(scenario({ { "frozen_parameter", true } }, { tinyGraph() }, { call(4) }));
    ASSERT_EQ(frozen.calls.size(), 1u);
    EXPECT_EQ(frozen.calls[0].key, "[4]");
}

TEST(Simulator, StaticGraphWithoutParametersKeysNoUpdatedInput)
{
    auto g = tinyGraph("g", false);
    g["inputs"][0]["kind"] = "user_input"; // no parameter: nothing but the constant key
    auto sim = run(scenario(ordered_json::object(), { g }, { { { "graph", "g" } } }));
    ASSERT_EQ(sim.calls.size(), 1u);
    EXPECT_EQ(sim.calls[0].key, "no_updated_input");
}

TEST(Simulator, EachBatchSizeIsAKeyOfOneFxGraph)
{
    auto sim = run(scenario({ { "frozen_parameter", true } }, { tinyGraph() }, { call(1), call(2), call(1), call(2) }));
    ASSERT_EQ(sim.graphs.size(), 1u);
    EXPECT_EQ(sim.graphs[0].allKeys, (std::vector<std::string> { "[1]", "[2]" }));
    EXPECT_EQ(sim.calls[1].action, CallAction::Capture);
    EXPECT_EQ(sim.calls[2].action, CallAction::Replay);
    EXPECT_EQ(sim.graphs[0].counters.at("captured_graph_1"), 2);
}

TEST(Simulator, SymIntUsedOnlyByUpdatableOpIsNotInKey)
{
    auto g = tinyGraph();
    g["inputs"].push_back({ { "name", "s1" }, { "kind", "symint" }, { "symbol", "s1" } });
    g["nodes"].push_back({ { "name", "attn" }, { "target", "npu.npu_fused_infer_attention_score.default" },
        { "args", { "x", "kv", "kv" } }, { "kwargs", { { "actual_seq_lengths", { "s1" } } } },
        { "meta", { { "shape", { "s0", 4 } }, { "dtype", "f32" } } } });
    g["outputs"] = { "out", "attn" };
    auto c0 = call(4);
    c0["symbols"]["s1"] = 10;
    auto c1 = call(4);
    c1["symbols"]["s1"] = 11;
    auto sim = run(scenario({ { "frozen_parameter", true } }, { g }, { c0, c1 }));
    ASSERT_EQ(sim.calls.size(), 2u);
    EXPECT_EQ(sim.calls[0].key, "[4]");
    EXPECT_EQ(sim.calls[1].action, CallAction::Replay);
    const std::string log = logText(sim);
    EXPECT_THAT(log, HasSubstr("with the updated node num {1}."));
    EXPECT_THAT(log, HasSubstr("Replay AclGraph and update input params successfully."));
}

TEST(Simulator, MutatedInputAddressChangeRecaptures)
{
    ordered_json moved = { { "kv", "kv_b" } };
    auto sim = run(scenario({ { "frozen_parameter", true } }, { tinyGraph() },
        { call(4, { { "kv", "kv_a" } }), call(4, { { "kv", "kv_a" } }), call(4, moved) }));
    ASSERT_EQ(sim.calls.size(), 3u);
    EXPECT_EQ(sim.calls[1].action, CallAction::Replay);
    EXPECT_EQ(sim.calls[2].action, CallAction::Recapture);
    EXPECT_EQ(sim.calls[2].recaptureCause, "mutated_input");
    EXPECT_EQ(sim.graphs[0].recapturesMutatedInput, 1);
    EXPECT_EQ(sim.graphs[0].counters.at("recapture_due_to_mutated_input_change_graph_1"), 1);
    EXPECT_EQ(sim.graphs[0].counters.at("captured_graph_1"), 1); // still one key
    EXPECT_THAT(logText(sim),
        HasSubstr("The current AclGraph needs to be recaptured for fx_graph graph_1 with graph key {[4]}."));
}

TEST(Simulator, UserInputAddressChangeIsCopiedNotRecaptured)
{
    auto sim = run(scenario({ { "frozen_parameter", true } }, { tinyGraph() }, { call(4), call(4), call(4) }));
    for (const auto& c : sim.calls) {
        EXPECT_NE(c.action, CallAction::Recapture);
        EXPECT_EQ(c.inputsCopied, 1); // x, into its staging buffer, every call
        EXPECT_EQ(c.bytesCopied, 4u * 4u * 4u);
    }
}

TEST(Simulator, CoreLimitChangeRecaptures)
{
    auto c2 = call(4);
    c2["core_limit"] = { { "cube", 12 }, { "vector", 24 } };
    auto sim = run(scenario({ { "frozen_parameter", true } }, { tinyGraph() }, { call(4), c2, call(4) }));
    ASSERT_EQ(sim.calls.size(), 3u);
    EXPECT_EQ(sim.calls[1].action, CallAction::Recapture);
    EXPECT_EQ(sim.calls[1].recaptureCause, "core_limit");
    EXPECT_EQ(sim.calls[2].action, CallAction::Replay); // the limit persists
    EXPECT_EQ(sim.graphs[0].counters.at("recapture_due_to_global_limit_core_change_graph_1"), 1);
}

TEST(Simulator, ForceRecaptureIsNpugraphExOnly)
{
    auto sim = run(scenario(
        { { "force_recapture", true }, { "frozen_parameter", true } }, { tinyGraph() }, { call(4), call(4), call(4) }));
    ASSERT_EQ(sim.calls.size(), 3u);
    EXPECT_EQ(sim.options.backend, engine::config::Backend::NpugraphEx);
    EXPECT_EQ(sim.calls[1].action, CallAction::Recapture);
    EXPECT_EQ(sim.calls[1].recaptureCause, "force");
    EXPECT_EQ(sim.graphs[0].counters.at("recapture_due_to_force_recapture_graph_1"), 2);
    EXPECT_THAT(logText(sim), HasSubstr("and count of recaptures caused by force_recapture is 2"));

    auto j = scenario({ { "force_recapture", true } }, { tinyGraph() }, { call(4) });
    j["backend"] = "torchair";
    auto s = engine::scenario::parseScenario(j.dump(), "t.json");
    ASSERT_TRUE(s.ok());
    auto refused = engine::runtime::simulate(s.value());
    ASSERT_FALSE(refused.ok());
    EXPECT_THAT(refused.error().message, HasSubstr("Invalid option 'force_recapture', allowed options: ["));
    EXPECT_THAT(refused.error().context, HasSubstr("t.json"));
}

TEST(Simulator, CaptureLimitFallsBackToEagerForGood)
{
    auto sim = run(scenario({ { "frozen_parameter", true }, { "debug.aclgraph.static_capture_size_limit", 2 } },
        { tinyGraph() }, { call(1), call(2), call(3), call(1), call(2) }));
    ASSERT_EQ(sim.calls.size(), 5u);
    EXPECT_EQ(sim.calls[1].action, CallAction::Capture);
    EXPECT_EQ(sim.calls[2].action, CallAction::Eager);
    EXPECT_EQ(sim.calls[3].action, CallAction::Eager); // even a key that was captured before
    EXPECT_TRUE(sim.graphs[0].fallbackToEager);
    EXPECT_EQ(sim.graphs[0].fallbackCall, 2);
    EXPECT_TRUE(sim.graphs[0].counters.empty()); // popped at reset
    EXPECT_EQ(countHazards(sim, HazardKind::Fallback), 1);
    EXPECT_THAT(logText(sim),
        HasSubstr("The static_capture_size_limit reached when capturing fx_graph graph_1 with graph key [3], we will "
                  "fall back to eager for all subsequent executions."));
    EXPECT_THAT(logText(sim),
        HasSubstr("The current static_capture_size_limit is 2. If recapture are expected, "
                  "consider increasing debug.aclgraph.static_capture_size_limit"));
    // After reset and empty_cache the private pool holds nothing.
    for (const auto& p : sim.calls[4].pools)
        EXPECT_EQ(p.allocatedSize, 0u);
}

TEST(Simulator, CaptureLimitOneFallsBackOnFirstRecapture)
{
    auto sim = run(scenario({ { "frozen_parameter", true }, { "capture_limit", 1 } }, { tinyGraph() },
        { call(4, { { "kv", "a" } }), call(4, { { "kv", "b" } }) }));
    ASSERT_EQ(sim.calls.size(), 2u);
    EXPECT_EQ(sim.calls[1].action, CallAction::Eager);
    // capture_limit is accepted by torchair's options= mapper, so this is the torchair backend and wording.
    EXPECT_THAT(logText(sim), HasSubstr("The static_capture_size_limit reached when capturing fx_graph graph_1"));
}

TEST(Simulator, ForceEagerNeverCaptures)
{
    auto sim = run(scenario({ { "debug.run_eagerly", true } }, { tinyGraph() }, { call(4), call(4) }));
    ASSERT_EQ(sim.calls.size(), 2u);
    EXPECT_EQ(sim.calls[0].action, CallAction::Eager);
    EXPECT_EQ(sim.graphs[0].captures, 0);
    EXPECT_EQ(sim.graphs[0].eagerCalls, 2);
    EXPECT_TRUE(sim.calls[1].pools.empty());
    EXPECT_THAT(
        logText(sim), HasSubstr("When debug.run_eagerly=True is enabled, the graph FALLS BACK to EAGER execution."));
}

TEST(Simulator, CloneInputOffCopiesOnlyWhenAddressChangesIntoFirstTensor)
{
    ordered_json cfg = { { "debug.aclgraph.clone_input", false }, { "frozen_parameter", true } };
    auto sim = run(scenario(cfg, { tinyGraph() },
        { call(4, { { "x", "x_first" } }), call(4, { { "x", "x_first" } }), call(4, { { "x", "x_other" } }) }));
    ASSERT_EQ(sim.calls.size(), 3u);
    EXPECT_EQ(sim.calls[0].inputsCopied, 0);
    EXPECT_EQ(sim.calls[1].inputsCopied, 0); // same pointer: no copy
    EXPECT_EQ(sim.calls[2].inputsCopied, 1); // into x_first
    ASSERT_EQ(countHazards(sim, HazardKind::UserInputOverwritten), 1);
    EXPECT_THAT(sim.hazards[0].message, HasSubstr("x_first"));
}

TEST(Simulator, CloneInputOffWithFreshTensorsIsNotAHazard)
{
    // The first call's tensor is only held by TorchAir: nobody sees it overwritten.
    auto sim = run(
        scenario({ { "clone_input", false }, { "frozen_parameter", true } }, { tinyGraph() }, { call(4), call(4) }));
    ASSERT_EQ(sim.calls.size(), 2u);
    EXPECT_EQ(sim.calls[1].inputsCopied, 1);
    EXPECT_EQ(countHazards(sim, HazardKind::UserInputOverwritten), 0);
}

TEST(Simulator, MutatedInputsAndParametersAreNeverCopied)
{
    auto sim = run(scenario({ { "frozen_parameter", true } }, { tinyGraph() }, { call(4), call(4) }));
    ASSERT_FALSE(sim.events.empty());
    bool sawUpdate = false;
    for (const auto& e : sim.events) {
        if (e.kind != engine::runtime::EventKind::InputUpdate)
            continue;
        sawUpdate = true;
        for (const auto& a : e.inputs) {
            if (a.input == "kv") {
                EXPECT_EQ(a.action, "in_place");
            }
            if (a.input == "w") {
                EXPECT_EQ(a.action, "parameter");
            }
            if (a.input == "kv" || a.input == "w") {
                EXPECT_EQ(a.bytes, 0u);
            }
        }
    }
    EXPECT_TRUE(sawUpdate);
}

TEST(Simulator, FrozenParameterThatMovesReadsStaleWeights)
{
    auto sim = run(scenario({ { "frozen_parameter", true } }, { tinyGraph() },
        { call(4, { { "w", "w_v1" } }), call(4, { { "w", "w_v2" } }) }));
    ASSERT_EQ(sim.calls.size(), 2u);
    EXPECT_EQ(sim.calls[1].action, CallAction::Replay);
    EXPECT_EQ(countHazards(sim, HazardKind::StaleParameter), 1);

    auto unfrozen = run(scenario(
        ordered_json::object(), { tinyGraph() }, { call(4, { { "w", "w_v1" } }), call(4, { { "w", "w_v2" } }) }));
    ASSERT_EQ(unfrozen.calls.size(), 2u);
    EXPECT_EQ(unfrozen.calls[1].action, CallAction::Capture); // a new key, not a recapture
    EXPECT_NE(unfrozen.calls[0].key, unfrozen.calls[1].key);
    EXPECT_EQ(countHazards(unfrozen, HazardKind::StaleParameter), 0);
}

TEST(Simulator, HeldOutputOfOneKeyIsOverwrittenByItsNextReplay)
{
    auto sim = run(scenario({ { "frozen_parameter", true } }, { tinyGraph() }, { call(4, {}, 1), call(4), call(4) }));
    ASSERT_EQ(countHazards(sim, HazardKind::OutputOverwritten), 1);
    EXPECT_EQ(sim.hazards[0].call, 1);
    EXPECT_EQ(sim.hazards[0].madeAtCall, 0);
    EXPECT_THAT(sim.hazards[0].message, HasSubstr("(out)"));
}

TEST(Simulator, CloneOutputRemovesTheOverwriteHazard)
{
    auto sim = run(scenario({ { "frozen_parameter", true }, { "debug.aclgraph.enable_output_clone", true } },
        { tinyGraph() }, { call(4, {}, 1), call(4), call(4) }));
    EXPECT_EQ(countHazards(sim, HazardKind::OutputOverwritten), 0);
}

TEST(Simulator, HeldOutputOfAnotherKeyIsStaleAfterRollback)
{
    // Key [1]'s output is held while key [2] is captured into the same (rolled back) memory.
    auto sim = run(scenario({ { "frozen_parameter", true } }, { tinyGraph() }, { call(1, {}, 2), call(2), call(2) }));
    EXPECT_EQ(countHazards(sim, HazardKind::OutputOverwritten), 1);
    EXPECT_EQ(countHazards(sim, HazardKind::StaleCheckpoint), 0);
}

TEST(Simulator, ReuseRebuildsOutputsWithMoreThanOneKey)
{
    auto sim = run(scenario({ { "frozen_parameter", true } }, { tinyGraph() }, { call(1), call(2), call(2) }));
    ASSERT_EQ(sim.calls.size(), 3u);
    EXPECT_EQ(sim.calls[0].outputsRebuilt, 0); // one key: retained outputs
    EXPECT_EQ(sim.calls[1].outputsRebuilt, 1);
    EXPECT_EQ(sim.calls[2].outputsRebuilt, 1);
    const std::string log = logText(sim);
    EXPECT_THAT(log,
        HasSubstr("When mempool reuse is enabled in fx_graph graph_1 for graph key{[1]} and there is "
                  "only one graph meta captured, all the outputs are retained."));
    EXPECT_THAT(log, HasSubstr("After setting to original memory state for fx_graph graph_1 with graph key{[2]}."));
    EXPECT_THAT(log, HasSubstr("After reconstructing fx_graph graph_1 outputs for graph key{[2]}"));
    int overwrite = 0; // the overwrite warning, once per process
    for (const auto& w : sim.warnings)
        if (w.find("Because acl graph fixes memory addresses") == 0) {
            ++overwrite;
            EXPECT_THAT(w, HasSubstr("2. Enable debug option by setting debug.aclgraph.enable_output_clone=True."));
        }
    EXPECT_EQ(overwrite, 1);
}

TEST(Simulator, ReuseRollsBackSoKeysShareMemory)
{
    // 1 MiB rows: large-pool blocks. With reuse, key [8] is captured over key [4]'s freed memory.
    const int width = 262144;
    auto on = run(scenario({ { "frozen_parameter", true } }, { tinyGraph("g", true, width) }, { call(4), call(8) }));
    auto off
        = run(scenario({ { "frozen_parameter", true }, { "debug.aclgraph.disable_mempool_reuse_in_same_fx", true } },
            { tinyGraph("g", true, width) }, { call(4), call(8) }));
    ASSERT_EQ(on.calls.size(), 2u);
    ASSERT_EQ(off.calls.size(), 2u);
    ASSERT_EQ(on.calls[1].pools.size(), 1u);
    ASSERT_EQ(off.calls[1].pools.size(), 1u);
    // Reuse on: only key [8]'s rebuilt output is allocated after the call (8 MiB + 32 rounded to 512).
    EXPECT_EQ(on.calls[1].pools[0].allocatedSize, 8389120u);
    // Reuse off: key [4]'s retained output stays allocated next to key [8]'s.
    EXPECT_EQ(off.calls[1].pools[0].allocatedSize, 4194816u + 8389120u);
    EXPECT_THAT(logText(off),
        HasSubstr("When config.debug.aclgraph.disable_mempool_reuse_in_same_fx is True, no mempool "
                  "reuse in fx_graph graph_1 for graph key{[8]}, all the outputs are retained."));
}

TEST(Simulator, AfterCaptureMemoryStateLine)
{
    // Staging x (512), mm (512, freed after relu), out (512): one 2 MiB small segment.
    auto sim = run(scenario({ { "frozen_parameter", true } }, { tinyGraph() }, { call(4) }));
    EXPECT_THAT(logText(sim),
        HasSubstr("{'pool_id': (0, 2)}, {'block_num': 4}, {'activate_num': 2}, {'total_size': 2097152}, "
                  "{'allocated_size': 1024})"));
    ASSERT_EQ(sim.calls.size(), 1u);
    ASSERT_EQ(sim.calls[0].pools.size(), 1u);
    // After the call the staging buffer is back in the pool, merged with mm's block.
    EXPECT_EQ(sim.calls[0].pools[0].blockNum, 3);
    EXPECT_EQ(sim.calls[0].pools[0].activateNum, 1);
    EXPECT_EQ(sim.calls[0].pools[0].allocatedSize, 512u);
}

TEST(Simulator, CustomPoolIsSharedAndDisablesSameFxReuse)
{
    auto sim = run(scenario({ { "aclgraph_config.use_custom_pool", { 0, 1 } }, { "frozen_parameter", true } },
        { tinyGraph("a"), tinyGraph("b") }, { call(4, {}, 0, "a"), call(4, {}, 0, "b"), call(8, {}, 0, "a") }));
    ASSERT_EQ(sim.pools.size(), 1u);
    EXPECT_EQ(sim.pools[0].pool.str(), "(0, 1)");
    EXPECT_TRUE(sim.pools[0].custom);
    EXPECT_EQ(sim.pools[0].graphs, (std::vector<std::string> { "graph_1", "graph_2" }));
    EXPECT_FALSE(sim.options.reuseInSameFx);
    EXPECT_EQ(sim.calls[2].outputsRebuilt, 0);
}

TEST(Simulator, EachFxGraphGetsItsOwnPool)
{
    auto sim = run(scenario({ { "frozen_parameter", true } }, { tinyGraph("a"), tinyGraph("b") },
        { call(4, {}, 0, "a"), call(4, {}, 0, "b") }));
    ASSERT_EQ(sim.pools.size(), 2u);
    EXPECT_EQ(sim.pools[0].pool.str(), "(0, 2)"); // (0, 1) went to the throw-away AclGraph
    EXPECT_EQ(sim.pools[1].pool.str(), "(0, 4)");
    EXPECT_EQ(sim.graphs[1].name, "graph_2");
}

TEST(Simulator, RecaptureStormIsReported)
{
    auto sim = run(scenario({ { "frozen_parameter", true } }, { tinyGraph() },
        { call(4, { { "kv", "a" } }), call(4, { { "kv", "b" } }), call(4, { { "kv", "c" } }),
            call(4, { { "kv", "d" } }) }));
    EXPECT_EQ(sim.graphs[0].recapturesMutatedInput, 3);
    EXPECT_EQ(countHazards(sim, HazardKind::RecaptureStorm), 1);
}

TEST(Simulator, OutOfMemoryStopsTheRun)
{
    auto j
        = scenario({ { "frozen_parameter", true } }, { tinyGraph("g", true, 262144) }, { call(4), call(8), call(16) });
    j["device"] = { { "capacity_bytes", 40 << 20 } };
    auto sim = run(j);
    EXPECT_TRUE(sim.outOfMemory);
    EXPECT_LT(sim.callsSimulated, 3 + 1);
    EXPECT_EQ(countHazards(sim, HazardKind::OutOfMemory), 1);
    EXPECT_THAT(sim.hazards.back().message, HasSubstr("NPU out of memory"));
}

TEST(Simulator, InvalidOptionGivesTorchAirsMessageWithFile)
{
    auto j = scenario({ { "debug.aclgraph.clone_input", "yes" } }, { tinyGraph() }, { call(4) });
    auto s = engine::scenario::parseScenario(j.dump(), "bad.json");
    ASSERT_TRUE(s.ok());
    auto sim = engine::runtime::simulate(s.value());
    ASSERT_FALSE(sim.ok());
    EXPECT_EQ(sim.error().message,
        "Value 'yes' (type: <class 'str'>) not in optional list [True, False] (type: <class 'bool'>).");
    EXPECT_THAT(sim.error().context, HasSubstr("bad.json: $.config"));
}

TEST(Simulator, NpugraphExWordingInLogs)
{
    auto sim = run(scenario({ { "capture_limit", 1 }, { "frozen_parameter", true }, { "mode", "npugraph_ex" },
                                { "reuse_graph_pool_in_same_fx", false } },
        { tinyGraph() }, { call(4), call(8) }));
    EXPECT_EQ(sim.options.backend, engine::config::Backend::NpugraphEx);
    const std::string log = logText(sim);
    EXPECT_THAT(
        log, HasSubstr("When config.reuse_graph_pool_in_same_fx is False, no mempool reuse in fx_graph graph_1"));
    EXPECT_THAT(log, HasSubstr("consider increasing capture_limit to an appropriate value."));
}

TEST(Simulator, CudaProfileHasNoPad)
{
    // 1 MiB rows, batch 4: the retained output is exactly 4 MiB on CUDA, 4 MiB + 512 on the NPU.
    auto j = scenario({ { "frozen_parameter", true } }, { tinyGraph("g", true, 262144) }, { call(4) });
    j["device"] = { { "profile", "cuda" } };
    auto cuda = run(j);
    auto npu = run(scenario({ { "frozen_parameter", true } }, { tinyGraph("g", true, 262144) }, { call(4) }));
    ASSERT_EQ(cuda.calls.size(), 1u);
    ASSERT_EQ(npu.calls.size(), 1u);
    EXPECT_EQ(cuda.calls[0].pools.at(0).allocatedSize, 4194304u);
    EXPECT_EQ(npu.calls[0].pools.at(0).allocatedSize, 4194816u);
}

TEST(Simulator, EventsCarryMemoryWithOwnersWhenAsked)
{
    engine::runtime::SimulationOptions o;
    o.recordMemory = true;
    auto sim = run(scenario({ { "frozen_parameter", true } }, { tinyGraph() }, { call(4), call(4) }), o);
    const engine::runtime::Event* capture = nullptr;
    for (const auto& e : sim.events)
        if (e.kind == engine::runtime::EventKind::Capture)
            capture = &e;
    ASSERT_NE(capture, nullptr);
    std::set<std::string> kinds;
    for (const auto& pool : capture->memory)
        for (const auto& seg : pool.segments)
            for (const auto& b : seg.blocks)
                if (b.allocated && b.owner >= 0) {
                    ASSERT_LT(size_t(b.owner), sim.owners.size());
                    kinds.insert(engine::runtime::ownerKindName(sim.owners[size_t(b.owner)].kind));
                }
    // After the capture event: the staging copy of x is released, the retained output stays; the
    // default pool holds the weight and the KV cache.
    EXPECT_TRUE(kinds.count("output"));
    EXPECT_TRUE(kinds.count("parameter"));
    EXPECT_TRUE(kinds.count("mutated_input"));
    EXPECT_FALSE(kinds.count("staging"));
    EXPECT_GT(capture->deviceReserved, 0u);
    // Without the option no snapshot is kept.
    auto lean = run(scenario({ { "frozen_parameter", true } }, { tinyGraph() }, { call(4) }));
    for (const auto& e : lean.events)
        EXPECT_TRUE(e.memory.empty());
}

TEST(Simulator, OutputOfBindingKeepsTheTensorAlive)
{
    // Call 1 feeds call 0's output back as x (like a decode loop feeding the last token). The
    // caller did not ask to keep it, but binding it keeps it alive until call 1.
    ordered_json c1 = call(4, { { "x", { { "output_of", 0 }, { "index", 0 } } } });
    auto sim
        = run(scenario({ { "frozen_parameter", true }, { "clone_input", false } }, { tinyGraph() }, { call(4), c1 }));
    ASSERT_EQ(sim.calls.size(), 2u);
    EXPECT_EQ(sim.calls[1].inputsCopied, 1); // a different address than the captured x: copied into x
}

TEST(GraphAnalysis, OutVariantWritesItsOutArgument)
{
    // mm.out(x, w, out=buf) writes buf: the result shares buf's storage, not x's.
    auto g = tinyGraph();
    g["nodes"] = ordered_json::array({
        { { "name", "buf" }, { "target", "aten.empty.memory_format" },
            { "args", ordered_json::array({ ordered_json::array({ "s0", 4 }) }) },
            { "meta", { { "shape", { "s0", 4 } }, { "dtype", "f32" } } } },
        { { "name", "mm_out" }, { "target", "aten.mm.out" }, { "args", { "x", "w" } }, { "kwargs", { { "out", "buf" } } },
            { "meta", { { "shape", { "s0", 4 } }, { "dtype", "f32" } } } },
    });
    g["outputs"] = { "mm_out" };
    auto s = engine::scenario::parseScenario(scenario({ { "frozen_parameter", true } }, { g }, { call(4) }).dump(), "t");
    ASSERT_TRUE(s.ok()) << s.error().toString();
    auto a = engine::runtime::analyzeGraph(s->graphs[0]);
    ASSERT_TRUE(a.ok());
    const auto& graph = s->graphs[0];
    EXPECT_EQ(a->nodeStorages[size_t(graph.find("mm_out"))], a->nodeStorages[size_t(graph.find("buf"))]);
    EXPECT_TRUE(a->aliasInputs.empty()); // not an alias of input x
}

// force_eager with the static kernel (AclGraph.run_eagerly_compile, torchair-behavior.md §1.4, in the
// shape of TorchAir's test_aclgraph_run_eagerly_with_static_kernel_compilation*): one compile per new
// tuple of the key's SymInt values; with a value range, a tuple whose entry at the sym index is not in
// it (or an index past the tuple) is skipped, and said so.
TEST(Simulator, StaticKernelUnderForceEagerCompilesPerNewSymbolTuple)
{
    const std::string start = "Start to compile static shape kernel for fx graph graph_1, all symbol input indices and "
                              "values are ";
    auto plain = run(
        scenario({ { "debug.run_eagerly", true }, { "experimental_config.aclgraph._aclnn_static_shape_kernel", true } },
            { tinyGraph() }, { call(6), call(6), call(7) }));
    const std::string log = logText(plain);
    EXPECT_THAT(log, HasSubstr(start + "{3: 6}."));
    EXPECT_THAT(log, HasSubstr(start + "{3: 7}."));
    EXPECT_EQ(log.find(start + "{3: 6}."), log.rfind(start + "{3: 6}.")); // the same tuple again: no compile

    auto ranged = run(
        scenario({ { "debug.run_eagerly", true }, { "experimental_config.aclgraph._aclnn_static_shape_kernel", true },
                     { "experimental_config.aclgraph._aclnn_static_shape_kernel_sym_value_range", { 5, 6 } } },
            { tinyGraph() }, { call(5), call(6), call(7) }));
    const std::string ranges = logText(ranged);
    EXPECT_THAT(ranges, HasSubstr(start + "{3: 5}."));
    EXPECT_THAT(ranges, HasSubstr(start + "{3: 6}."));
    EXPECT_THAT(ranges,
        HasSubstr("Skip compile static shape kernel for fx graph graph_1, all symbol input indices and values are "
                  "{3: 7}. The specified sym index is 0 and the specified sym value range is [5, 6]."));

    auto index = run(
        scenario({ { "debug.run_eagerly", true }, { "experimental_config.aclgraph._aclnn_static_shape_kernel", true },
                     { "experimental_config.aclgraph._aclnn_static_shape_kernel_sym_value_range", { 5, 6 } },
                     { "experimental_config.aclgraph._aclnn_static_shape_kernel_sym_index", 2 } },
            { tinyGraph() }, { call(5) }));
    EXPECT_THAT(logText(index),
        HasSubstr("{3: 5}. The specified sym index is 2 and the specified sym value range is "
                  "[5, 6]."));

    // Without force_eager the kernel is compiled at the first capture, with no such line.
    auto captured = run(scenario({ { "experimental_config.aclgraph._aclnn_static_shape_kernel", true } },
        { tinyGraph() }, { call(5), call(6) }));
    EXPECT_THAT(logText(captured), testing::Not(HasSubstr("static shape kernel for fx graph")));
}

// debug_time's [npugraph_ex overhead] DEBUG lines (acl_graph.py, both backends): per call the key
// function (named by what enters the key), then process_input (its modelled copies are its cost), then
// the updated-params function after the replay; nothing of it under force_eager, which never builds a key.
TEST(Simulator, OverheadPhasesPerCall)
{
    const std::string key = "The operation of [npugraph_ex overhead] generate graph_key phase (function name: ";
    const std::string input = "The operation of [npugraph_ex overhead] process input phase (function name: "
                              "process_input) cost ";
    const std::string params = "The operation of [npugraph_ex overhead] get updated params phase (function name: func) "
                               "cost ?s.";
    // tinyGraph has a parameter: without frozen_parameter the key hashes its address too.
    auto sim = run(scenario(ordered_json::object(), { tinyGraph() }, { call(4), call(4) }));
    const std::string log = logText(sim);
    EXPECT_THAT(log, HasSubstr(key + "gen_input_key_with_parameter_addr) cost ?s."));
    size_t count = 0;
    for (size_t at = log.find(params); at != std::string::npos; at = log.find(params, at + 1))
        ++count;
    EXPECT_EQ(count, 2u); // one per call: the first call replays right after its capture
    // Order within a call: key, then the input update, then the replay's parameters.
    const size_t k = log.find(key), i = log.find(input), p = log.find(params);
    ASSERT_NE(i, std::string::npos);
    EXPECT_LT(k, i);
    EXPECT_LT(i, p);
    // The input update's cost is the modelled copy time, printed as debug_time prints it (%.10f).
    EXPECT_THAT(log.substr(i + input.size(), 14), testing::MatchesRegex("[0-9]\\.[0-9]{10}s\\."));

    auto frozen = run(scenario({ { "frozen_parameter", true } }, { tinyGraph() }, { call(4) }));
    EXPECT_THAT(logText(frozen), HasSubstr(key + "gen_unupdated_sym_input_key) cost ?s."));
    auto fixed = run(scenario(
        { { "frozen_parameter", true } }, { tinyGraph("g", false) }, ordered_json::array({ { { "graph", "g" } } })));
    EXPECT_THAT(logText(fixed), HasSubstr(key + "empty_input_key) cost ?s."));

    auto eager = run(scenario({ { "debug.run_eagerly", true } }, { tinyGraph() }, { call(4) }));
    EXPECT_THAT(logText(eager), Not(HasSubstr("[npugraph_ex overhead]")));
}
