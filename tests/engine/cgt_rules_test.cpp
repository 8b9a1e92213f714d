// Rules of the CUDA Graph Trees call model (docs/cuda-graph-trees.md) that the real runs in
// cgt_real_test.cpp do not exercise.
#include "engine/runtime/cgt/cuda_graph_trees.h"

using namespace engine::runtime::cgt;

namespace {

// One call of graph `graph` with a static K/V tensor at `kv` and two non-static inputs (24 bytes).
Call call(const std::string& label, uint64_t kv, const std::string& graph = "0/0", std::vector<int64_t> sizes = {})
{
    Call c;
    c.label = label;
    c.function = "cm";
    c.graph = graph;
    c.dynamicGraph = !sizes.empty();
    c.sizes = std::move(sizes);
    c.inputs = { { "tokens", 0x100, 16, false, "" }, { "pos", 0x200, 8, false, "" }, { "kv[0]", kv, 4096, true, "" } };
    return c;
}

std::vector<std::string> actions(const std::vector<CallResult>& results)
{
    std::vector<std::string> out;
    for (const CallResult& r : results)
        out.push_back(actionName(r.action));
    return out;
}

using Names = std::vector<std::string>;

TEST(CgtRules, WarmupRecordReplayAndBytesCopied)
{
    std::vector<Call> calls = { call("a", 1), call("b", 1), call("c", 1), call("d", 1) };
    calls[3].inputs[0].address = 0x999; // a non-static input at a new address is copied, not re-recorded (I4)
    calls[0].holdsOutput = true; // freed and poisoned when b's new generation ends a's warm-up path
    const std::vector<CallResult> r = simulateCalls(calls, Options {});
    EXPECT_EQ(actions(r), (Names { "warmup", "record", "replay", "replay" }));
    EXPECT_EQ(r[0].bytesCopied, 0u);
    EXPECT_EQ(r[1].bytesCopied, 0u);
    EXPECT_EQ(r[2].bytesCopied, 24u);
    EXPECT_EQ(r[3].bytesCopied, 24u);
    EXPECT_EQ(r[2].replays, "b");
    EXPECT_TRUE(r[1].newGeneration);
    EXPECT_NE(r[1].why.find("freed and poisoned the held outputs"), std::string::npos) << r[1].why;
}

TEST(CgtRules, StaticInputMoveRecordsASiblingAndTheOldAddressReplaysTheOldOne)
{
    const std::vector<CallResult> r = simulateCalls(
        { call("a", 1), call("b", 1), call("c", 2), call("d", 2), call("e", 1), call("f", 3) }, Options {});
    EXPECT_EQ(actions(r), (Names { "warmup", "record", "record", "replay", "replay", "record" }));
    EXPECT_EQ(r[3].replays, "c");
    EXPECT_EQ(r[4].replays, "b");
    EXPECT_NE(r[2].why.find("static input kv[0] moved"), std::string::npos) << r[2].why;
}

TEST(CgtRules, MarkStepBeginKeepsTheGenerationForLaterCallsWithoutIt)
{
    std::vector<Call> calls = { call("a", 1), call("b", 1), call("c", 1), call("d", 1) };
    for (int i = 0; i < 3; ++i)
        calls[i].markStepBegin = true;
    calls[2].holdsOutput = true;
    // S3/S6: the mark-step counter is the generation now; d is in c's generation with c's output
    // alive, so it cannot leave c's replay path and records a child (W7).
    std::vector<CallResult> r = simulateCalls(calls, Options {});
    EXPECT_EQ(actions(r), (Names { "warmup", "record", "replay", "record" }));
    EXPECT_TRUE(r[2].newGeneration);
    EXPECT_FALSE(r[3].newGeneration);
    EXPECT_NE(r[3].why.find("as a child"), std::string::npos) << r[3].why;
    // The output dead: the path ends without a new generation and d replays (L6).
    calls[2].holdsOutput = false;
    r = simulateCalls(calls, Options {});
    EXPECT_EQ(actions(r), (Names { "warmup", "record", "replay", "replay" }));
    // Without mark_step_begin every call is a new generation: replay too.
    for (Call& c : calls)
        c.markStepBegin = false;
    calls[2].holdsOutput = true;
    r = simulateCalls(calls, Options {});
    EXPECT_EQ(actions(r), (Names { "warmup", "record", "replay", "replay" }));
    EXPECT_TRUE(r[3].newGeneration);
}

TEST(CgtRules, RerecordLimitAppliesOnlyWithoutInlinedModules)
{
    const std::vector<Call> calls = { call("a", 1), call("b", 1), call("c", 2), call("d", 3), call("e", 1) };
    Options options;
    options.unexpected_rerecord_limit = 1;
    // R7: with inline_inbuilt_nn_modules (default) the limit never applies.
    EXPECT_EQ(actions(simulateCalls(calls, options)), (Names { "warmup", "record", "record", "record", "replay" }));
    options.inline_inbuilt_nn_modules = false;
    const std::vector<CallResult> r = simulateCalls(calls, options);
    // c: num_rerecord[None][0] = 1, not > 1: records. d: 2 > 1: eager with the skip message. e: the
    // step-2 early exit keeps (None, function 0) eager even though b's recording would match.
    EXPECT_EQ(actions(r), (Names { "warmup", "record", "record", "eager", "eager" }));
    ASSERT_EQ(r[3].warnings.size(), 1u);
    EXPECT_EQ(r[3].warnings[0].rfind("skipping cudagraph due to function 0 exceeding max re-recording limit (=1) on "
                                     "cudagraph node None due to static input data pointer changed.\n",
                  0),
        0u)
        << r[3].warnings[0];
    EXPECT_NE(r[3].warnings[0].find("input name: kv[0]. data pointer changed from 2 to 3."), std::string::npos);
    EXPECT_TRUE(r[4].warnings.empty());
    options.unexpected_rerecord_limit = 128;
    EXPECT_EQ(actions(simulateCalls(calls, options)), (Names { "warmup", "record", "record", "record", "replay" }));
}

std::vector<Call> sizesCalls(int n)
{
    std::vector<Call> calls;
    for (int64_t s = 1; s <= n; ++s)
        calls.push_back(call("s" + std::to_string(s), static_cast<uint64_t>(s), "0/1", { s }));
    return calls;
}

size_t warningCount(const std::vector<CallResult>& results)
{
    size_t n = 0;
    for (const CallResult& r : results)
        n += r.warnings.size();
    return n;
}

TEST(CgtRules, DynamicShapeWarningOncePerGraphAndItsLimit)
{
    const std::vector<Call> calls = sizesCalls(10);
    Options options; // default 8: warns at the 9th distinct size, once
    std::vector<CallResult> r = simulateCalls(calls, options);
    EXPECT_EQ(warningCount(r), 1u);
    ASSERT_EQ(r[8].warnings.size(), 1u);
    EXPECT_NE(r[8].warnings[0].find("We have observed 9 distinct sizes."), std::string::npos);
    EXPECT_EQ(actions(r)[8], "warmup");
    options.dynamic_shape_warn_limit = std::nullopt; // None
    EXPECT_EQ(warningCount(simulateCalls(calls, options)), 0u);
    options.dynamic_shape_warn_limit = 0; // falsy
    EXPECT_EQ(warningCount(simulateCalls(calls, options)), 0u);
    options.dynamic_shape_warn_limit = -1; // truthy in Python: 1 > -1 warns at the first size
    r = simulateCalls(calls, options);
    EXPECT_EQ(warningCount(r), 1u);
    EXPECT_EQ(r[0].warnings.size(), 1u);
    // A size seen before is a cache hit: no new function, no warm-up.
    std::vector<Call> again = { call("x", 1, "0/1", { 2 }), call("y", 1, "0/1", { 2 }), call("z", 1, "0/1", { 3 }),
        call("w", 1, "0/1", { 2 }) };
    EXPECT_EQ(actions(simulateCalls(again, Options {})), (Names { "warmup", "record", "warmup", "replay" }));
}

TEST(CgtRules, ReadsOfHeldOutputs)
{
    std::vector<Call> calls
        = { call("w", 1), call("r", 1), call("p1", 1), call("p2", 1), call("o", 1, "0/2"), call("q", 1, "0/2") };
    calls[0].readsAfter = { "w" }; // right after its own warm-up: fine
    calls[1].readsAfter = { "w" }; // after the next generation ended the warm-up path
    calls[2].readsAfter = { "r" }; // the recording's output, freed by p1
    calls[3].readsAfter = { "p1", "p2" }; // p1 silently holds p2's values
    calls[5].readsAfter = { "p2" }; // o warmed up under p2's replay path; q ended it (L3)
    calls[2].outputStackTrace = "  File \"m.py\", line 3, in forward\n    return x\n";
    const std::vector<CallResult> r = simulateCalls(calls, Options {});
    EXPECT_EQ(actions(r), (Names { "warmup", "record", "replay", "replay", "warmup", "record" }));
    ASSERT_EQ(r[0].reads.size(), 1u);
    EXPECT_EQ(r[0].reads[0].status, ReadResult::Status::Ok);
    ASSERT_EQ(r[1].reads.size(), 1u);
    EXPECT_EQ(r[1].reads[0].status, ReadResult::Status::Error);
    EXPECT_EQ(r[1].reads[0].text,
        "Error: accessing tensor output of CUDAGraphs that has been overwritten by a subsequent run. Stack trace: "
        "[Could not find stack trace]. To prevent overwriting, clone the tensor outside of torch.compile() or call "
        "torch.compiler.cudagraph_mark_step_begin() before each model invocation.");
    ASSERT_EQ(r[2].reads.size(), 1u);
    EXPECT_EQ(r[2].reads[0].status, ReadResult::Status::Error);
    EXPECT_EQ(r[2].reads[0].text, overwrittenErrorText("[Could not find stack trace]"));
    ASSERT_EQ(r[3].reads.size(), 2u);
    EXPECT_EQ(r[3].reads[0].status, ReadResult::Status::OverwrittenSilently);
    EXPECT_EQ(r[3].reads[0].overwrittenBy, "p2");
    EXPECT_EQ(r[3].reads[1].status, ReadResult::Status::Ok);
    ASSERT_EQ(r[5].reads.size(), 1u);
    EXPECT_EQ(r[5].reads[0].status, ReadResult::Status::Error);
    EXPECT_EQ(overwrittenErrorText(calls[2].outputStackTrace),
        "Error: accessing tensor output of CUDAGraphs that has been overwritten by a subsequent run. Stack trace: "
        "File \"m.py\", line 3, in forward\n    return x. To prevent overwriting, clone the tensor outside of "
        "torch.compile() or call torch.compiler.cudagraph_mark_step_begin() before each model invocation.");
}

TEST(CgtRules, SkipDynamicGraphsAndCaptureSizesRunWithoutCudagraphs)
{
    Options options;
    options.skip_dynamic_graphs = true;
    // With graph_partition (2.11's default) the graph is one non-cudagraphable partition, silently
    // (real f_skip_dynamic_graphs: no "skipping cudagraphs" line); without it compile_fx logs K5.
    std::vector<CallResult> r = simulateCalls(sizesCalls(3), options);
    EXPECT_EQ(actions(r), (Names { "eager", "eager", "eager" }));
    EXPECT_EQ(warningCount(r), 0u);
    options.graph_partition = false;
    r = simulateCalls(sizesCalls(3), options);
    EXPECT_EQ(actions(r), (Names { "eager", "eager", "eager" }));
    ASSERT_EQ(r[0].warnings.size(), 1u);
    EXPECT_EQ(r[0].warnings[0],
        "skipping cudagraphs due to graph with symbolic shapes inputs and "
        "config.triton.cudagraph_skip_dynamic_graphs=True.");
    EXPECT_EQ(warningCount(r), 1u);
    options = Options {};
    options.capture_sizes = std::vector<std::vector<int64_t>> { { 2 } };
    std::vector<Call> calls = sizesCalls(3);
    calls.push_back(call("s2b", 2, "0/1", { 2 }));
    EXPECT_EQ(actions(simulateCalls(calls, options)), (Names { "eager", "warmup", "eager", "record" }));
}

TEST(CgtRules, DebugLoggingReRecordOfADynamicGraphFails)
{
    const std::vector<Call> calls = { call("a", 1, "0/1", { 2 }), call("b", 1, "0/1", { 2 }),
        call("c", 2, "0/1", { 2 }), call("d", 1, "0/1", { 2 }) };
    Options options;
    EXPECT_EQ(actions(simulateCalls(calls, options)), (Names { "warmup", "record", "record", "replay" }));
    options.debug_cudagraphs_logging = true;
    const std::vector<CallResult> r = simulateCalls(calls, options);
    EXPECT_EQ(actions(r), (Names { "warmup", "record", "error", "replay" }));
    ASSERT_EQ(r[2].warnings.size(), 1u);
    EXPECT_EQ(r[2].warnings[0], "AssertionError: length mismatch between inputs, recorded_data_ptr, and placeholders");
}

TEST(CgtRules, StaticMoveWithoutRerecordingRaises)
{
    Options options;
    options.inline_inbuilt_nn_modules = false;
    options.support_input_mutation = false; // I5: rerecord_if_static_inputs_change false
    const std::vector<CallResult> r = simulateCalls({ call("a", 1), call("b", 1), call("c", 2) }, options);
    EXPECT_EQ(actions(r), (Names { "warmup", "record", "error" }));
    ASSERT_EQ(r[2].warnings.size(), 1u);
    EXPECT_EQ(r[2].warnings[0].rfind("RuntimeError: static input data pointer changed.\n", 0), 0u);
}

} // namespace

namespace {

// §4 I2, §5 R1 (1): f's output fed to g within one generation is a pool-managed input of g's child
// recording: not copied at replay, and a different address records a new sibling.
TEST(CgtRules, PoolManagedInputIsCheckedFirstAndNotCopied)
{
    std::vector<Call> calls;
    for (int step = 0; step < 4; ++step) {
        Call f = call("f" + std::to_string(step), 1, "0/0");
        f.markStepBegin = true;
        f.holdsOutput = true;
        Call g = call("g" + std::to_string(step), 1, "1/0");
        g.function = "g";
        g.inputs.push_back({ "x", step == 3 ? 0x7000u : 0x5000u, 64, false, f.label });
        calls.push_back(f);
        calls.push_back(g);
    }
    const std::vector<CallResult> r = simulateCalls(calls, Options {});
    EXPECT_EQ(actions(r), (Names { "warmup", "warmup", "record", "record", "replay", "replay", "replay", "record" }));
    EXPECT_NE(r[3].why.find("as a child"), std::string::npos) << r[3].why;
    EXPECT_EQ(r[5].replays, "g1");
    EXPECT_EQ(r[5].bytesCopied, 24u); // tokens + pos; x is managed
    EXPECT_NE(r[7].why.find("pool-managed input moved since g1"), std::string::npos) << r[7].why;
}

} // namespace
