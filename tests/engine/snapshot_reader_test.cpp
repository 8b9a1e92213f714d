// The memory snapshot reader (engine/snapshot) on the fixtures of tests/data/snapshots/, made by
// make_snapshot_fixtures.py; manifest.json holds what that script's allocator model says each
// pool's totals and peaks are.
#include "engine/core/file_io.h"
#include "engine/snapshot/memory_snapshot.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

using namespace engine::snapshot;
using engine::memory::PoolId;
using engine::runtime::MemoryState;

namespace {

constexpr uint64_t kMiB = uint64_t(1) << 20;

std::string fixture(const std::string& name)
{
    return std::string(ACLGI_TEST_DATA_DIR) + "/snapshots/" + name;
}

Snapshot load(const std::string& name)
{
    auto s = readSnapshotFile(fixture(name));
    EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().toString());
    return s.ok() ? std::move(s.value()) : Snapshot {};
}

engine::Error loadError(const std::string& name)
{
    auto s = readSnapshotFile(fixture(name));
    EXPECT_FALSE(s.ok()) << name << " was read";
    return s.ok() ? engine::Error {} : s.error();
}

nlohmann::json manifest()
{
    auto text = engine::readTextFile(fixture("manifest.json"), 1 << 20, "manifests");
    return nlohmann::json::parse(text.value());
}

const PoolSummary* findPool(const std::vector<PoolSummary>& pools, PoolId id)
{
    for (const PoolSummary& p : pools)
        if (p.pool == id)
            return &p;
    return nullptr;
}

/// The file's own state of a device, as replayTrace must end: free blocks, active blocks, owners aside.
void expectFinalState(const Snapshot& snap, const TraceTimeline& t, const MemoryState& got)
{
    std::map<uint64_t, MemoryState::Block> blocks;
    size_t segments = 0;
    for (const Segment& s : snap.segments) {
        if (s.device != t.device)
            continue;
        ++segments;
        ASSERT_TRUE(got.segments.count(s.address)) << std::hex << s.address;
        const auto& seg = got.segments.at(s.address);
        EXPECT_EQ(seg.totalSize, s.totalSize);
        EXPECT_EQ(seg.pool, s.pool);
        EXPECT_EQ(t.streams.at(size_t(seg.stream)), s.stream);
        for (const Block& b : s.blocks) {
            ASSERT_TRUE(got.blocks.count(b.address)) << std::hex << b.address;
            const auto& g = got.blocks.at(b.address);
            EXPECT_EQ(g.size, b.size) << std::hex << b.address;
            EXPECT_EQ(g.allocated, b.state != BlockState::Inactive) << std::hex << b.address;
            EXPECT_EQ(g.segment, s.address);
        }
        blocks.insert({ s.address, {} });
    }
    EXPECT_EQ(got.segments.size(), segments);
}

} // namespace

TEST(SnapshotReader, SimpleSegmentsBlocksAndStates)
{
    const Snapshot s = load("simple.pickle");
    EXPECT_EQ(s.protocol, 4);
    EXPECT_FALSE(s.bareList);
    ASSERT_EQ(s.segments.size(), 2u);
    const Segment& large = s.segments[0];
    EXPECT_EQ(large.address, 0x7F0000000000u);
    EXPECT_EQ(large.totalSize, 20 * kMiB);
    EXPECT_EQ(large.allocatedSize, 4 * kMiB);
    EXPECT_FALSE(large.small);
    EXPECT_TRUE(large.pool.isDefault());
    ASSERT_EQ(large.blocks.size(), 2u); // the 1000000-byte block was freed and merged back
    EXPECT_EQ(large.blocks[0].state, BlockState::ActiveAllocated);
    EXPECT_EQ(large.blocks[1].address, 0x7F0000000000u + 4 * kMiB);
    EXPECT_EQ(large.blocks[1].size, 16 * kMiB);
    EXPECT_EQ(large.blocks[1].state, BlockState::Inactive);
    const Segment& small = s.segments[1];
    EXPECT_TRUE(small.small);
    ASSERT_EQ(small.blocks.size(), 3u);
    EXPECT_EQ(small.blocks[1].requestedSize, 1000u);
    EXPECT_EQ(small.blocks[1].size, 1024u);
    EXPECT_EQ(small.blocks[1].state, BlockState::ActivePendingFree); // "active_pending_free"
    EXPECT_EQ(small.activeSize, 512u + 1024u);
    EXPECT_EQ(small.allocatedSize, 512u);
    // One frame list, shared through the memo by every segment, block and entry that has one.
    EXPECT_EQ(s.frames.size(), 3u);
    ASSERT_EQ(s.stacks.size(), 1u);
    EXPECT_EQ(large.stack, 0u);
    EXPECT_EQ(large.blocks[0].stack, 0u);
    EXPECT_EQ(large.blocks[1].stack, kNoStack);
    EXPECT_EQ(describeStack(s, 0), "/work/model.py:17 forward");
    ASSERT_EQ(s.deviceTraces.size(), 1u);
    ASSERT_EQ(s.deviceTraces[0].size(), 9u);
    const TraceEntry& first = s.deviceTraces[0][0];
    EXPECT_EQ(first.action, TraceAction::SegmentAlloc);
    EXPECT_EQ(first.addr, 0x7F0000000000u);
    EXPECT_EQ(first.size, 20 * kMiB);
    EXPECT_EQ(first.timeUs, 1007);
    EXPECT_EQ(s.deviceTraces[0][2].action, TraceAction::Alloc);
    EXPECT_EQ(s.deviceTraces[0][2].size, 1000000u);
    EXPECT_EQ(s.deviceTraces[0][3].action, TraceAction::FreeRequested);
    EXPECT_EQ(s.deviceTraces[0][4].action, TraceAction::FreeCompleted);
    const auto setting = [&](const std::string& k) {
        for (const auto& [key, value] : s.allocatorSettings)
            if (key == k)
                return value;
        return std::string("<absent>");
    };
    EXPECT_EQ(setting("PYTORCH_CUDA_ALLOC_CONF"), "expandable_segments:False");
    EXPECT_EQ(setting("max_split_size"), "-1");
    EXPECT_EQ(setting("garbage_collection_threshold"), "0.0");
    EXPECT_EQ(setting("expandable_segments"), "False");
    EXPECT_EQ(setting("roundup_power2_divisions"), "{'1': 0, '2': 0}");
    EXPECT_TRUE(s.warnings.empty());
}

TEST(SnapshotReader, SummariesAndPeaksMatchTheAllocatorModel)
{
    const auto m = manifest();
    int checked = 0;
    for (const auto& [name, expected] : m.items()) {
        if (!expected.contains("pools"))
            continue;
        SCOPED_TRACE(name);
        const Snapshot s = load(name);
        EXPECT_EQ(s.protocol, expected["protocol"].get<int>());
        ASSERT_EQ(s.deviceTraces.size(), 1u);
        EXPECT_EQ(s.deviceTraces[0].size(), expected["trace_entries"].get<size_t>());
        const auto pools = summarizePools(s);
        EXPECT_EQ(pools.size(), expected["pools"].size());
        for (const PoolSummary& p : pools) {
            const std::string key = "(" + std::to_string(p.pool.first) + ", " + std::to_string(p.pool.second) + ")";
            ASSERT_TRUE(expected["pools"].contains(key)) << key;
            const auto& e = expected["pools"][key];
            EXPECT_EQ(p.segments, e["segments"].get<int>()) << key;
            EXPECT_EQ(p.reserved, e["reserved"].get<uint64_t>()) << key;
            EXPECT_EQ(p.allocated, e["allocated"].get<uint64_t>()) << key;
            EXPECT_EQ(p.peakReserved, e["peak_reserved"].get<uint64_t>()) << key;
            EXPECT_EQ(p.peakAllocated, e["peak_allocated"].get<uint64_t>()) << key;
        }
        ++checked;
    }
    EXPECT_EQ(checked, 7);
}

TEST(SnapshotReader, PrivatePoolsAreTiedToTheirCapturedGraphs)
{
    const Snapshot s = load("graph_pools.pickle");
    const auto pools = summarizePools(s);
    ASSERT_EQ(pools.size(), 5u);
    EXPECT_TRUE(pools[0].pool.isDefault()); // sorted: the default pool first
    EXPECT_EQ(pools[0].graph, "");
    const PoolSummary* cuda = findPool(pools, PoolId { 0, 1 });
    ASSERT_TRUE(cuda);
    // Named by the story's rules (snapshot_story.h, docs/snapshots.md "Pools and owners"): the pool id
    // says what kind of pool, the capture code and the user's frames say whose.
    EXPECT_EQ(cuda->graph, "graph_pool_handle() pool of 1 torch.cuda.graph capture (train.py:42)");
    EXPECT_NE(cuda->graphEvidence.find("graphs.py:188 capture_begin"), std::string::npos) << cuda->graphEvidence;
    const PoolSummary* trees = findPool(pools, PoolId { 1, 0 });
    ASSERT_TRUE(trees);
    EXPECT_EQ(trees->graph, "CUDA Graph Trees pool of serve.py:12: graph cabc");
    EXPECT_NE(trees->graphEvidence.find("compile_context of its entries: [0/0] forward"), std::string::npos)
        << trees->graphEvidence;
    EXPECT_NE(trees->graphEvidence.find("FX nodes in its frames: mm_1"), std::string::npos) << trees->graphEvidence;
    const PoolSummary* acl = findPool(pools, PoolId { 0, 2 });
    ASSERT_TRUE(acl);
    EXPECT_EQ(acl->graph, "graph_pool_handle() pool of 1 TorchAir aclgraph capture (npu_model.py:77)");
    const PoolSummary* unknown = findPool(pools, PoolId { 0, 3 });
    ASSERT_TRUE(unknown);
    EXPECT_EQ(unknown->graph, ""); // only the pool id tells: the evidence says so
    EXPECT_NE(unknown->graphEvidence.find("no allocation of the trace is in it"), std::string::npos)
        << unknown->graphEvidence;
    // Stacks: the unwinder and the capture code are skipped, an FX node is named.
    const Segment& cudaSeg = s.segments[1];
    ASSERT_EQ(cudaSeg.pool, (PoolId { 0, 1 }));
    EXPECT_EQ(cudaSeg.stream, 94000000000001);
    EXPECT_EQ(describeStack(s, cudaSeg.stack), "/work/train.py:42 capture_step");
    const Segment& treeSeg = s.segments[2];
    ASSERT_EQ(treeSeg.pool, (PoolId { 1, 0 }));
    EXPECT_EQ(describeStack(s, treeSeg.stack), "/tmp/torchinductor_user/ab/cabc.py:88 call [fx: mm_1]");
    const Frame& fx = s.frames[s.stacks[treeSeg.stack][0]];
    EXPECT_EQ(fx.fxNodeOp, "call_function");
    EXPECT_EQ(fx.fxOriginalTrace, "x @ w");
    EXPECT_EQ(s.text(s.deviceTraces[0][8].compileContext), "[0/0] forward");
    EXPECT_EQ(s.deviceTraces[0][7].compileContext, 0u);
    EXPECT_TRUE(s.deviceTraces[0][2].hasPool);
    EXPECT_EQ(s.deviceTraces[0][2].pool, (PoolId { 0, 1 }));
}

TEST(SnapshotReader, RingBufferReplayStartsMidLife)
{
    const Snapshot s = load("ring_buffer.pickle");
    ASSERT_EQ(s.deviceTraces[0].size(), 8u);
    EXPECT_EQ(s.deviceTraces[0][0].action, TraceAction::FreeRequested); // its alloc is before the window
    auto t = replayTrace(s, 0);
    ASSERT_TRUE(t.ok()) << t.error().toString();
    EXPECT_TRUE(t->warnings.empty()) << t->warnings.front();
    // Before the window: both segments, three live blocks made before it (no owner).
    const MemoryState& before = t->initial;
    EXPECT_EQ(before.segments.size(), 2u);
    const uint64_t base = 0x7F2000000000;
    ASSERT_TRUE(before.blocks.count(base + 3 * kMiB));
    EXPECT_TRUE(before.blocks.at(base + 3 * kMiB).allocated);
    EXPECT_EQ(before.blocks.at(base + 3 * kMiB).size, 5 * kMiB);
    EXPECT_EQ(before.blocks.at(base + 3 * kMiB).owner, engine::memory::kNoOwner);
    ASSERT_TRUE(before.blocks.count(base + 64 * kMiB));
    EXPECT_TRUE(before.blocks.at(base + 64 * kMiB).allocated);
    EXPECT_EQ(t->timeline.eventCount(), 8);
    // After entry 4 (segment_free) one segment is left; after entry 5 the new block is owned by it.
    auto afterFree = t->timeline.stateAt(4);
    ASSERT_TRUE(afterFree.ok());
    EXPECT_EQ(afterFree->segments.size(), 1u);
    auto afterAlloc = t->timeline.stateAt(5);
    ASSERT_TRUE(afterAlloc.ok());
    ASSERT_TRUE(afterAlloc->blocks.count(base + 3 * kMiB));
    EXPECT_EQ(afterAlloc->blocks.at(base + 3 * kMiB).owner, 5);
    EXPECT_EQ(afterAlloc->blocks.at(base + 3 * kMiB).size, 2 * kMiB);
    auto last = t->timeline.stateAt(7);
    ASSERT_TRUE(last.ok());
    expectFinalState(s, *t, *last);
}

TEST(SnapshotReader, ReplayEndsAtTheFileStateForEveryFixture)
{
    for (const char* name : { "simple.pickle", "graph_pools.pickle", "big_address.pickle", "expandable.pickle" }) {
        SCOPED_TRACE(name);
        const Snapshot s = load(name);
        auto t = replayTrace(s, 0);
        ASSERT_TRUE(t.ok());
        EXPECT_TRUE(t->warnings.empty()) << t->warnings.front();
        auto last = t->timeline.stateAt(t->timeline.eventCount() - 1);
        ASSERT_TRUE(last.ok());
        expectFinalState(s, *t, *last);
        EXPECT_TRUE(t->initial.segments.empty()); // these traces start with the process
    }
    EXPECT_FALSE(replayTrace(load("simple.pickle"), 3).ok());
}

TEST(SnapshotReader, NineByteIntegersAndTheAwaitingFreeSpelling)
{
    const Snapshot s = load("big_address.pickle");
    ASSERT_EQ(s.segments.size(), 1u);
    EXPECT_EQ(s.segments[0].address, 0x80007F3000000000u);
    ASSERT_EQ(s.segments[0].blocks.size(), 3u);
    EXPECT_EQ(s.segments[0].blocks[1].address, 0x80007F3000000000u + 4096);
    EXPECT_EQ(s.segments[0].blocks[1].state, BlockState::ActivePendingFree); // "active_awaiting_free"
    EXPECT_EQ(s.deviceTraces[0][1].addr, 0x80007F3000000000u);
}

TEST(SnapshotReader, ExpandableSegmentsOomAndAnnotations)
{
    const Snapshot s = load("expandable.pickle");
    ASSERT_EQ(s.segments.size(), 1u);
    EXPECT_TRUE(s.segments[0].expandable);
    const auto& trace = s.deviceTraces[0];
    ASSERT_EQ(trace.size(), 9u);
    EXPECT_EQ(trace[0].action, TraceAction::SegmentMap);
    EXPECT_EQ(trace[2].action, TraceAction::SegmentMap);
    EXPECT_EQ(trace[6].action, TraceAction::SegmentUnmap);
    EXPECT_EQ(trace[7].action, TraceAction::Oom);
    EXPECT_EQ(trace[7].size, 80 * 1024 * kMiB);
    EXPECT_EQ(trace[7].deviceFree, 123 * kMiB);
    EXPECT_EQ(trace[8].action, TraceAction::Annotate);
    EXPECT_EQ(s.text(trace[8].userMetadata), "step 3 begins");
    EXPECT_EQ(trace[7].userMetadata, 0u);
    EXPECT_EQ(sizeof(TraceEntry), 64u); // what the memory bound of a 1 GB snapshot rests on
    EXPECT_EQ(trace[8].stack, kNoStack);
    auto t = replayTrace(s, 0);
    ASSERT_TRUE(t.ok());
    auto grown = t->timeline.stateAt(2); // the second mapping merged into one 40 MiB segment
    ASSERT_TRUE(grown.ok());
    ASSERT_EQ(grown->segments.size(), 1u);
    EXPECT_EQ(grown->segments.begin()->second.totalSize, 40 * kMiB);
}

TEST(SnapshotReader, ProtocolsTwoAndFiveReadAsFour)
{
    const Snapshot four = load("simple.pickle");
    for (const char* name : { "protocol2.pickle", "protocol5.pickle" }) {
        SCOPED_TRACE(name);
        const Snapshot s = load(name);
        EXPECT_EQ(s.protocol, name[8] - '0');
        ASSERT_EQ(s.segments.size(), four.segments.size());
        for (size_t k = 0; k < s.segments.size(); ++k) {
            EXPECT_EQ(s.segments[k].address, four.segments[k].address);
            ASSERT_EQ(s.segments[k].blocks.size(), four.segments[k].blocks.size());
            for (size_t j = 0; j < s.segments[k].blocks.size(); ++j) {
                EXPECT_EQ(s.segments[k].blocks[j].size, four.segments[k].blocks[j].size);
                EXPECT_EQ(s.segments[k].blocks[j].state, four.segments[k].blocks[j].state);
            }
        }
        ASSERT_EQ(s.deviceTraces[0].size(), four.deviceTraces[0].size());
        EXPECT_EQ(s.frames, four.frames);
        EXPECT_EQ(s.stacks, four.stacks);
    }
}

TEST(SnapshotReader, BareListWithLegacyHistoryBlocks)
{
    const Snapshot s = load("bare_list.pickle");
    EXPECT_TRUE(s.bareList);
    EXPECT_TRUE(s.deviceTraces.empty());
    ASSERT_EQ(s.segments.size(), 2u);
    const Segment& small = s.segments[1];
    ASSERT_EQ(small.blocks.size(), 3u);
    EXPECT_EQ(small.blocks[0].address, small.address); // tiled from the segment's address
    EXPECT_EQ(small.blocks[1].address, small.address + 512);
    EXPECT_EQ(small.blocks[2].address, small.address + 1536);
    EXPECT_EQ(small.blocks[1].requestedSize, 1000u); // history's real_size
    EXPECT_EQ(small.blocks[1].stack, 0u);
    const auto pools = summarizePools(s);
    ASSERT_EQ(pools.size(), 1u);
    EXPECT_EQ(pools[0].peakReserved, pools[0].reserved); // no trace: the peaks are the final state
}

TEST(SnapshotReader, BadFilesNameTheFileOffsetAndOpcode)
{
    const auto truncated = loadError("truncated.pickle");
    EXPECT_EQ(truncated.context.rfind(fixture("truncated.pickle") + ": offset ", 0), 0u) << truncated.context;
    EXPECT_EQ(truncated.message.rfind("truncated", 0), 0u) << truncated.message;
    const auto corrupt = loadError("corrupt.pickle");
    const int at = manifest()["corrupt.pickle"]["offset"].get<int>();
    EXPECT_GE(at, 300);
    EXPECT_EQ(corrupt.context, fixture("corrupt.pickle") + ": offset " + std::to_string(at));
    EXPECT_NE(corrupt.message.find("unknown opcode 0xff"), std::string::npos) << corrupt.message;
    const auto global = loadError("class_reference.pickle");
    EXPECT_NE(global.message.find("STACK_GLOBAL refused"), std::string::npos) << global.message;
    const auto wide = loadError("wide_int.pickle");
    EXPECT_NE(wide.message.find("'address' is an integer that does not fit 64 bits"), std::string::npos)
        << wide.message;
    const auto missing = loadError("no_such.pickle");
    EXPECT_EQ(missing.code, engine::ErrorCode::Io);
}

TEST(SnapshotReader, EveryPrefixOfAFileIsAnErrorNotACrash)
{
    auto bytes = engine::readTextFile(fixture("graph_pools.pickle"), 1 << 20, "pickles");
    ASSERT_TRUE(bytes.ok());
    for (size_t n = 0; n < bytes->size(); ++n) {
        auto s = readSnapshot(std::string_view(*bytes).substr(0, n), "cut.pickle");
        ASSERT_FALSE(s.ok()) << n;
        EXPECT_EQ(s.error().context.rfind(n ? "cut.pickle: offset " : "cut.pickle", 0), 0u) << s.error().context;
    }
    auto whole = readSnapshot(*bytes, "whole.pickle");
    ASSERT_TRUE(whole.ok());
    EXPECT_EQ(whole->segments.size(), load("graph_pools.pickle").segments.size());
}

TEST(SnapshotReader, ProgressReportsAndCancels)
{
    std::vector<std::pair<uint64_t, uint64_t>> calls;
    ReadOptions options;
    options.progress = [&](uint64_t done, uint64_t total) {
        calls.emplace_back(done, total);
        return true;
    };
    ASSERT_TRUE(readSnapshotFile(fixture("simple.pickle"), options).ok());
    ASSERT_FALSE(calls.empty());
    EXPECT_EQ(calls.back().first, calls.back().second);
    options.progress = [](uint64_t, uint64_t) { return false; };
    auto cancelled = readSnapshotFile(fixture("simple.pickle"), options);
    ASSERT_FALSE(cancelled.ok());
    EXPECT_EQ(cancelled.error().code, engine::ErrorCode::Cancelled);
    EXPECT_EQ(cancelled.error().message, "cancelled");
    ReadOptions small;
    small.maxBytes = 100;
    EXPECT_FALSE(readSnapshotFile(fixture("simple.pickle"), small).ok());
}
