// npu_prefetch analysis: graphs are written as scenario JSON and read through the real reader, as a
// user would write them.
#include "engine/analysis/prefetch.h"
#include "engine/scenario/scenario.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

using namespace engine;
using engine::analysis::analyzePrefetches;
using engine::analysis::PrefetchFinding;
using engine::analysis::PrefetchReport;
using nlohmann::ordered_json;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

namespace {

constexpr uint64_t kWeightBytes = 1024 * 1024 * 4; // w: f32 [1024, 1024]
constexpr uint64_t kL2 = 192ull << 20;

ordered_json tensor(ordered_json shape)
{
    return { { "shape", std::move(shape) }, { "dtype", "f32" } };
}

ordered_json node(const std::string& name, const std::string& target, ordered_json args, ordered_json meta)
{
    return { { "name", name }, { "target", target }, { "args", std::move(args) }, { "meta", std::move(meta) } };
}

ordered_json prefetch(const std::string& name, ordered_json args, ordered_json kwargs = ordered_json::object(),
    const std::string& target = "npu.npu_prefetch.default")
{
    ordered_json n = node(name, target, std::move(args), nullptr);
    if (!kwargs.empty())
        n["kwargs"] = std::move(kwargs);
    return n;
}

/// Parameters w (and w2) [1024, 1024] f32 (4 MiB each), user input x [4, 1024], then `nodes`.
ordered_json graph(ordered_json nodes, ordered_json outputs, bool dynamic = false, ordered_json extraInputs = {})
{
    ordered_json inputs = ordered_json::array({
        { { "name", "w" }, { "kind", "parameter" }, { "shape", { 1024, 1024 } }, { "dtype", "f32" } },
        { { "name", "w2" }, { "kind", "parameter" }, { "shape", { 1024, 1024 } }, { "dtype", "f32" } },
        { { "name", "x" }, { "kind", "user_input" }, { "shape", { 4, 1024 } }, { "dtype", "f32" } },
    });
    for (const auto& i : extraInputs)
        inputs.push_back(i);
    return { { "id", "g" }, { "dynamic", dynamic }, { "inputs", inputs }, { "nodes", std::move(nodes) },
        { "outputs", std::move(outputs) } };
}

Graph parse(const ordered_json& g)
{
    ordered_json s = { { "format", "aclgraph-inspector-scenario" }, { "version", 1 }, { "name", "prefetch" },
        { "graphs", ordered_json::array({ g }) } };
    auto r = scenario::parseScenario(s.dump(), "prefetch.json");
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().toString());
    return r.ok() ? r.value().graphs.at(0) : Graph {};
}

/// The seed's graph-mode example: add = x + 1; prefetch(w, add, ...); abs; neg; mm(neg, w).
ordered_json seedGraph(ordered_json prefetchArgs, ordered_json kwargs = ordered_json::object(),
    const std::string& target = "npu.npu_prefetch.default")
{
    return graph(
        {
            node("add", "aten.add.Tensor", { "x", 1 }, tensor({ 4, 1024 })),
            prefetch("pf", std::move(prefetchArgs), std::move(kwargs), target),
            node("abs", "aten.abs.default", { "add" }, tensor({ 4, 1024 })),
            node("neg", "aten.neg.default", { "abs" }, tensor({ 4, 1024 })),
            node("mm", "aten.mm.default", { "neg", "w" }, tensor({ 4, 1024 })),
        },
        { "mm" });
}

PrefetchFinding only(const PrefetchReport& r)
{
    EXPECT_EQ(r.prefetches.size(), 1u);
    return r.prefetches.empty() ? PrefetchFinding {} : r.prefetches[0];
}

PrefetchFinding analyzeOne(const ordered_json& g, uint64_t l2 = kL2, const SymbolValues& symbols = {})
{
    return only(analyzePrefetches(parse(g), l2, symbols));
}

} // namespace

TEST(PrefetchAnalysis, ClampsMaxSizeLargerThanTheWeight)
{
    PrefetchFinding f = analyzeOne(seedGraph({ "w", "add", 100000000 }));
    EXPECT_EQ(f.node, "pf");
    EXPECT_EQ(f.weight, "w");
    EXPECT_TRUE(f.weightBytesKnown);
    EXPECT_EQ(f.weightBytes, kWeightBytes);
    EXPECT_EQ(f.dependency, "add");
    EXPECT_EQ(f.maxSize, 100000000);
    EXPECT_EQ(f.offset, 0);
    EXPECT_EQ(f.bytesMoved, kWeightBytes);
    EXPECT_TRUE(f.errors.empty());
    EXPECT_THAT(
        f.notes, Contains("max_size 100000000 is larger than the weight (4194304 bytes): clamped, as torch_npu does"));
    EXPECT_THAT(f.notes,
        Contains("in reduce-overhead mode TorchAir has no special handling: the prefetch is captured like any other "
                 "kernel"));
    EXPECT_FALSE(f.exceedsL2);
}

TEST(PrefetchAnalysis, MaxSizeWithinTheWeightIsNotClamped)
{
    PrefetchFinding f = analyzeOne(seedGraph({ "w", "add", 4096 }));
    EXPECT_EQ(f.bytesMoved, 4096u);
    for (const auto& note : f.notes)
        EXPECT_THAT(note, ::testing::Not(HasSubstr("clamped")));
}

TEST(PrefetchAnalysis, OffsetShortensWhatIsLeftToMove)
{
    PrefetchFinding f = analyzeOne(seedGraph({ "w", "add", 100000000, 1048576 }));
    EXPECT_EQ(f.offset, 1048576);
    EXPECT_EQ(f.bytesMoved, kWeightBytes - 1048576);
    EXPECT_TRUE(f.errors.empty());
    EXPECT_THAT(f.notes,
        Contains("max_size 100000000 is larger than the 3145728 bytes of the weight past offset 1048576 (of 4194304 "
                 "bytes): clamped, as torch_npu does"));

    // max_size smaller than the rest: max_size wins.
    EXPECT_EQ(analyzeOne(seedGraph({ "w", "add", 1000, 1048576 })).bytesMoved, 1000u);
    // The last byte of the weight is still inside it.
    EXPECT_EQ(analyzeOne(seedGraph({ "w", "add", 1000, int64_t(kWeightBytes - 1) })).bytesMoved, 1u);
}

TEST(PrefetchAnalysis, WindowCountsCallNodesBetweenDependencyAndConsumerButNotThePrefetch)
{
    PrefetchFinding f = analyzeOne(seedGraph({ "w", "add", 4096 }));
    EXPECT_EQ(f.firstConsumer, "mm");
    EXPECT_EQ(f.windowNodes, 2); // abs, neg; pf itself sits between add and mm but is not counted
    EXPECT_EQ(f.windowKernels, 2);
}

TEST(PrefetchAnalysis, ViewOfTheWeightLeadsToTheConsumerAndCountsAsANodeButNotAKernel)
{
    ordered_json g = graph(
        {
            node("add", "aten.add.Tensor", { "x", 1 }, tensor({ 4, 1024 })),
            node("abs", "aten.abs.default", { "add" }, tensor({ 4, 1024 })),
            prefetch("pf", { "w", "add", 4096 }),
            node("wt", "aten.t.default", { "w" }, tensor({ 1024, 1024 })),
            node("size", "aten.sym_size.int", { "w", 0 }, nullptr),
            node("mm", "aten.mm.default", { "abs", "wt" }, tensor({ 4, 1024 })),
        },
        { "mm" });
    PrefetchFinding f = analyzeOne(g);
    EXPECT_EQ(f.firstConsumer, "mm"); // the view and the size query read no bytes
    EXPECT_EQ(f.windowNodes, 3); // abs, wt, size
    EXPECT_EQ(f.windowKernels, 1); // abs
}

TEST(PrefetchAnalysis, PlaceholderDependencyAndNoKernelInTheWindow)
{
    ordered_json g = graph(
        {
            prefetch("pf", { "w", "x", 4096 }),
            node("mm", "aten.mm.default", { "x", "w" }, tensor({ 4, 1024 })),
        },
        { "mm" });
    PrefetchFinding f = analyzeOne(g);
    EXPECT_EQ(f.dependency, "x");
    EXPECT_EQ(f.windowNodes, 0);
    EXPECT_EQ(f.windowKernels, 0);
    EXPECT_THAT(f.notes, Contains("no kernel runs between dependency 'x' and 'mm': nothing can hide the prefetch"));
}

TEST(PrefetchAnalysis, MissingDependencyIsTorchAirsGraphModeError)
{
    PrefetchFinding f = analyzeOne(seedGraph({ "w", nullptr, 4096 }));
    EXPECT_THAT(f.errors,
        ElementsAre("torch.ops.npu.npu_prefetch.default ge converter is not implement when dependency is None."));
    EXPECT_EQ(f.dependency, "");
    EXPECT_EQ(f.firstConsumer, "mm");
    EXPECT_EQ(f.windowNodes, -1);
    EXPECT_EQ(f.windowKernels, -1);
    EXPECT_EQ(f.bytesMoved, 4096u); // single-op mode accepts it, and the bytes still move there

    // Leaving the argument out altogether reads as None too.
    EXPECT_THAT(analyzeOne(seedGraph(ordered_json::array({ "w" }), { { "max_size", 4096 } })).errors,
        ElementsAre("torch.ops.npu.npu_prefetch.default ge converter is not implement when dependency is None."));
}

TEST(PrefetchAnalysis, MaxSizeMustBePositive)
{
    for (int64_t maxSize : { int64_t(0), int64_t(-5) }) {
        PrefetchFinding f = analyzeOne(seedGraph({ "w", "add", maxSize }));
        EXPECT_THAT(f.errors, ElementsAre("max_size should be greater than zero, but got " + std::to_string(maxSize)));
        EXPECT_EQ(f.maxSize, maxSize);
        EXPECT_EQ(f.bytesMoved, 0u);
    }
}

TEST(PrefetchAnalysis, NegativeOffsetMessagePrintsMaxSizeAsTorchAirDoes)
{
    PrefetchFinding f = analyzeOne(seedGraph({ "w", "add", 4096, -8 }));
    EXPECT_THAT(f.errors, ElementsAre("offset should be nonnegative, but got 4096"));
    EXPECT_EQ(f.offset, -8);
    EXPECT_EQ(f.bytesMoved, 0u);
    EXPECT_THAT(f.notes, Contains(HasSubstr("prints max_size, not the offset")));
}

TEST(PrefetchAnalysis, ErrorsComeInTorchAirsOrder)
{
    PrefetchFinding f = analyzeOne(seedGraph({ "w", nullptr, 0, -1 }));
    EXPECT_THAT(f.errors,
        ElementsAre("max_size should be greater than zero, but got 0", "offset should be nonnegative, but got 0",
            "torch.ops.npu.npu_prefetch.default ge converter is not implement when dependency is None."));
    EXPECT_THAT(f.notes, Contains("TorchAir raises only the first of these errors"));
}

TEST(PrefetchAnalysis, OffsetOutsideTheWeight)
{
    PrefetchFinding f = analyzeOne(seedGraph({ "w", "add", 4096, int64_t(kWeightBytes) }));
    EXPECT_THAT(f.errors, ElementsAre("offset 4194304 is outside weight w of 4194304 bytes"));
    EXPECT_EQ(f.bytesMoved, 0u);

    f = analyzeOne(seedGraph({ "w", "add", 4096, int64_t(kWeightBytes) + 100 }));
    EXPECT_THAT(f.errors, ElementsAre("offset 4194404 is outside weight w of 4194304 bytes"));
}

TEST(PrefetchAnalysis, ExceedsASmallL2)
{
    PrefetchFinding f = analyzeOne(seedGraph({ "w", "add", 100000000 }), 1 << 20);
    EXPECT_TRUE(f.exceedsL2);
    EXPECT_THAT(f.notes, Contains("moves 4194304 bytes, more than the L2 cache holds (1048576 bytes)"));
    EXPECT_FALSE(f.overlapExceedsL2); // alone: nothing overlaps it

    EXPECT_FALSE(analyzeOne(seedGraph({ "w", "add", 1 << 20 }), 1 << 20).exceedsL2); // equal fits
}

TEST(PrefetchAnalysis, OverlappingPrefetchesTogetherExceedL2)
{
    // Both start after add and are read by mm1/mm2, so both weights sit in L2 at once: 8 MiB in 6 MiB.
    ordered_json g = graph(
        {
            node("add", "aten.add.Tensor", { "x", 1 }, tensor({ 4, 1024 })),
            prefetch("pf1", { "w", "add", 100000000 }),
            prefetch("pf2", { "w2", "add", 100000000 }),
            node("abs", "aten.abs.default", { "add" }, tensor({ 4, 1024 })),
            node("mm1", "aten.mm.default", { "abs", "w" }, tensor({ 4, 1024 })),
            node("mm2", "aten.mm.default", { "mm1", "w2" }, tensor({ 4, 1024 })),
        },
        { "mm2" });
    PrefetchReport r = analyzePrefetches(parse(g), 6 << 20);
    ASSERT_EQ(r.prefetches.size(), 2u);
    for (const auto& f : r.prefetches) {
        EXPECT_FALSE(f.exceedsL2) << f.node;
        EXPECT_EQ(f.overlapBytes, 2 * kWeightBytes) << f.node;
        EXPECT_TRUE(f.overlapExceedsL2) << f.node;
    }
    EXPECT_THAT(r.prefetches[0].overlapsWith, ElementsAre("pf2"));
    EXPECT_THAT(r.prefetches[1].overlapsWith, ElementsAre("pf1"));
    EXPECT_EQ(r.prefetches[0].windowNodes, 2); // pf2, abs: another prefetch is a call node of the window
    EXPECT_EQ(r.prefetches[1].windowNodes, 3); // pf1, abs, mm1
    EXPECT_EQ(r.peakOverlapBytes, 2 * kWeightBytes);
    EXPECT_THAT(r.prefetches[0].notes,
        Contains("prefetches live at the same time as pf2 hold up to 8388608 bytes together, more than the L2 cache "
                 "holds (6291456 bytes)"));
    EXPECT_FALSE(analyzePrefetches(parse(g), 8 << 20).prefetches[0].overlapExceedsL2);
}

TEST(PrefetchAnalysis, ChainedPrefetchesDoNotOverlap)
{
    // pf2 starts only after mm1 has read w: the two weights are never in L2 together.
    ordered_json g = graph(
        {
            node("add", "aten.add.Tensor", { "x", 1 }, tensor({ 4, 1024 })),
            prefetch("pf1", { "w", "add", 100000000 }),
            node("mm1", "aten.mm.default", { "add", "w" }, tensor({ 4, 1024 })),
            prefetch("pf2", { "w2", "mm1", 100000000 }),
            node("abs", "aten.abs.default", { "mm1" }, tensor({ 4, 1024 })),
            node("mm2", "aten.mm.default", { "abs", "w2" }, tensor({ 4, 1024 })),
        },
        { "mm2" });
    PrefetchReport r = analyzePrefetches(parse(g), 6 << 20);
    ASSERT_EQ(r.prefetches.size(), 2u);
    for (const auto& f : r.prefetches) {
        EXPECT_TRUE(f.overlapsWith.empty()) << f.node;
        EXPECT_EQ(f.overlapBytes, kWeightBytes) << f.node;
        EXPECT_FALSE(f.overlapExceedsL2) << f.node;
    }
}

TEST(PrefetchAnalysis, KwargsForm)
{
    PrefetchFinding f = analyzeOne(seedGraph(
        ordered_json::array({ "w" }), { { "dependency", "add" }, { "max_size", 100000000 }, { "offset", 8 } }));
    EXPECT_EQ(f.weight, "w");
    EXPECT_EQ(f.dependency, "add");
    EXPECT_EQ(f.maxSize, 100000000);
    EXPECT_EQ(f.offset, 8);
    EXPECT_EQ(f.bytesMoved, kWeightBytes - 8);
    EXPECT_TRUE(f.errors.empty());
    EXPECT_EQ(f.windowNodes, 2);

    // Everything by name, the weight as `self` (the schema's name).
    f = analyzeOne(seedGraph(ordered_json::array(), { { "self", "w" }, { "dependency", "add" }, { "max_size", 64 } }));
    EXPECT_EQ(f.weight, "w");
    EXPECT_EQ(f.bytesMoved, 64u);
}

TEST(PrefetchAnalysis, OtherSpellingsOfTheTarget)
{
    for (const char* target : { "torch.ops.npu.npu_prefetch.default", "torch_npu.npu_prefetch" }) {
        PrefetchFinding f = analyzeOne(seedGraph({ "w", "add", 4096 }, ordered_json::object(), target));
        EXPECT_EQ(f.node, "pf") << target;
        EXPECT_EQ(f.bytesMoved, 4096u) << target;
    }
    // A graph without a prefetch reports nothing.
    ordered_json g = graph({ node("mm", "aten.mm.default", { "x", "w" }, tensor({ 4, 1024 })) }, { "mm" });
    EXPECT_TRUE(analyzePrefetches(parse(g), kL2).prefetches.empty());
}

TEST(PrefetchAnalysis, NoLaterConsumer)
{
    ordered_json g = graph(
        {
            node("mm", "aten.mm.default", { "x", "w" }, tensor({ 4, 1024 })),
            prefetch("pf", { "w", "mm", 4096 }),
            node("abs", "aten.abs.default", { "mm" }, tensor({ 4, 1024 })),
        },
        { "abs" });
    PrefetchReport r = analyzePrefetches(parse(g), kL2);
    PrefetchFinding f = only(r);
    EXPECT_EQ(f.firstConsumer, "");
    EXPECT_EQ(f.windowNodes, -1);
    EXPECT_EQ(f.bytesMoved, 4096u);
    EXPECT_THAT(
        f.notes, Contains("nothing after the prefetch reads 'w': the prefetched bytes are not used in this graph"));
    ASSERT_EQ(r.edges.size(), 2u);
    EXPECT_EQ(r.edges[1].from, "pf");
    EXPECT_EQ(r.edges[1].to, "w");
    EXPECT_EQ(r.edges[1].kind, "prefetches");
}

TEST(PrefetchAnalysis, EdgesList)
{
    ordered_json g = graph(
        {
            node("add", "aten.add.Tensor", { "x", 1 }, tensor({ 4, 1024 })),
            prefetch("pf1", { "w", "add", 4096 }),
            prefetch("pf2", { "w2", nullptr, 4096 }),
            node("mm1", "aten.mm.default", { "add", "w" }, tensor({ 4, 1024 })),
            node("mm2", "aten.mm.default", { "mm1", "w2" }, tensor({ 4, 1024 })),
        },
        { "mm2" });
    PrefetchReport r = analyzePrefetches(parse(g), kL2);
    EXPECT_EQ(r.l2Bytes, kL2);
    std::vector<std::string> edges;
    for (const auto& e : r.edges)
        edges.push_back(e.kind + ": " + e.from + " -> " + e.to);
    EXPECT_THAT(edges, ElementsAre("dependency: add -> pf1", "prefetches: pf1 -> mm1", "prefetches: pf2 -> mm2"));
}

TEST(PrefetchAnalysis, SymbolicWeightSizeUsesTheSymbols)
{
    ordered_json sym = { { "name", "s0" }, { "kind", "symint" }, { "symbol", "s0" } };
    ordered_json wd = { { "name", "wd" }, { "kind", "parameter" }, { "shape", { "s0", 1024 } }, { "dtype", "f32" } };
    ordered_json g = graph(
        {
            node("add", "aten.add.Tensor", { "x", 1 }, tensor({ 4, 1024 })),
            prefetch("pf", { "wd", "add", 100000000 }),
            node("mm", "aten.mm.default", { "add", "wd" }, tensor({ 4, 1024 })),
        },
        { "mm" }, true, { wd, sym });
    PrefetchFinding f = analyzeOne(g, kL2, { { "s0", 8 } });
    EXPECT_TRUE(f.weightBytesKnown);
    EXPECT_EQ(f.weightBytes, 8u * 1024 * 4);
    EXPECT_EQ(f.bytesMoved, 8u * 1024 * 4);

    // Without a value for s0 the size is unknown: nothing is clamped and max_size is an upper bound.
    f = analyzeOne(g);
    EXPECT_FALSE(f.weightBytesKnown);
    EXPECT_EQ(f.bytesMoved, 100000000u);
    EXPECT_THAT(f.notes, Contains(HasSubstr("the size of weight 'wd' is unknown")));
}

TEST(PrefetchAnalysis, NonConstantMaxSizeAndOffset)
{
    ordered_json sym = { { "name", "n" }, { "kind", "symint" }, { "symbol", "s1" } };
    ordered_json g = graph(
        {
            node("add", "aten.add.Tensor", { "x", 1 }, tensor({ 4, 1024 })),
            prefetch("pf", { "w", "add", "n", 2.5 }),
            node("mm", "aten.mm.default", { "add", "w" }, tensor({ 4, 1024 })),
        },
        { "mm" }, true, { sym });
    PrefetchFinding f = analyzeOne(g, kL2, { { "s1", 512 } });
    EXPECT_THAT(f.errors,
        ElementsAre("max_size must be a constant int, but got s1 (npu_prefetch's schema takes int, not SymInt)",
            "offset must be a constant int, but got 2.5 (npu_prefetch's schema takes int, not SymInt)"));
    EXPECT_THAT(f.notes, Contains("max_size s1 is 512 with the given symbols"));
    EXPECT_EQ(f.maxSize, 512);
    EXPECT_EQ(f.bytesMoved, 512u);
}

TEST(PrefetchAnalysis, PrefetchOfAViewIsConsumedThroughItsBaseButNotASiblingView)
{
    ordered_json g = graph(
        {
            node("add", "aten.add.Tensor", { "x", 1 }, tensor({ 4, 1024 })),
            node("top", "aten.slice.Tensor", { "w", 0, 0, 512 }, tensor({ 512, 1024 })),
            node("bottom", "aten.slice.Tensor", { "w", 0, 512, 1024 }, tensor({ 512, 1024 })),
            prefetch("pf", { "top", "add", 100000000 }),
            node("sum", "aten.sum.default", { "bottom" }, tensor(ordered_json::array())),
            node("mm", "aten.mm.default", { "add", "w" }, tensor({ 4, 1024 })),
        },
        { "mm", "sum" });
    PrefetchFinding f = analyzeOne(g);
    EXPECT_EQ(f.weight, "top");
    EXPECT_EQ(f.weightBytes, kWeightBytes / 2);
    EXPECT_EQ(f.bytesMoved, kWeightBytes / 2);
    EXPECT_EQ(f.firstConsumer, "mm"); // sum reads the other half of w
    EXPECT_EQ(f.windowNodes, 3); // top, bottom, sum
    EXPECT_EQ(f.windowKernels, 1); // sum
}
