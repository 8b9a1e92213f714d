// Pools and recordings named from the evidence, and the peak explained (issue 18), on the real
// snapshots under tests/data/real/. Expected facts come from the recording scripts
// (/work/shared/real/scripts/part_a_allocator.py, lines quoted below) and
// tests/data/real/cudagraph_cases/truth.md, not from the tool's output.
#include "engine/ingest/snapshot_hints.h"
#include "engine/readers/torch_trace.h"
#include "engine/snapshot/memory_snapshot.h"
#include "engine/snapshot/snapshot_run.h"
#include "engine/snapshot/snapshot_story.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <map>
#include <string>

using namespace engine::snapshot;

namespace {

const std::string kReal = std::string(ACLGI_TEST_DATA_DIR) + "/real";

Snapshot load(const std::string& rel)
{
    auto s = readSnapshotFile(kReal + "/" + rel);
    EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().toString());
    return s.ok() ? std::move(s.value()) : Snapshot {};
}

SnapshotHints hintsOf(const std::string& rel)
{
    auto t = engine::readers::trace::readTorchTraceDir(kReal + "/" + rel);
    EXPECT_TRUE(t.ok());
    return t.ok() ? engine::ingest::snapshotHints(*t) : SnapshotHints {};
}

std::vector<const StoryOwner*> ownersOf(
    const SnapshotStory& s, engine::memory::PoolId pool, const std::string& category)
{
    std::vector<const StoryOwner*> out;
    if (const StoryPool* p = s.pool(pool))
        for (uint32_t id : p->owners)
            if (category.empty() || s.owners[id].category == category)
                out.push_back(&s.owners[id]);
    return out;
}

bool hasOwner(const SnapshotStory& s, const std::string& name)
{
    for (const StoryOwner& o : s.owners)
        if (o.name == name)
            return true;
    return false;
}

int countPrefix(const SnapshotStory& s, const std::string& prefix)
{
    int n = 0;
    for (const StoryOwner& o : s.owners)
        n += o.name.rfind(prefix, 0) == 0;
    return n;
}

/// Every alloc entry has an owner; each pool's owners at the pool's peak sum to summarizePools' peak.
void checkTotals(const Snapshot& snap, const SnapshotStory& story)
{
    const auto& trace = snap.deviceTraces[size_t(story.device)];
    for (size_t i = 0; i < trace.size(); ++i) {
        if (trace[i].action == TraceAction::Alloc) {
            ASSERT_NE(story.entryOwner[i], SnapshotStory::kNone) << "alloc entry " << i + 1;
        }
    }
    for (const PoolSummary& p : summarizePools(snap)) {
        if (p.device != story.device)
            continue;
        const StoryPool* sp = story.pool(p.pool);
        ASSERT_NE(sp, nullptr) << p.pool.str();
        EXPECT_EQ(sp->peakAllocated, p.peakAllocated) << p.pool.str();
        auto b = breakdownAt(snap, story, sp->peakEntry, &p.pool);
        ASSERT_TRUE(b.ok());
        uint64_t sum = 0;
        for (const Share& s : b->byOwner)
            sum += s.bytes;
        EXPECT_EQ(sum, p.peakAllocated) << p.pool.str();
        EXPECT_EQ(b->allocated, p.peakAllocated) << p.pool.str();
    }
}

} // namespace

// part_a_allocator.py: `with torch.cuda.graph(g1, pool=shared):` (line 83) `y1 = f1(static_x)` (84);
// `with torch.cuda.graph(g2, pool=shared):` (86) `y2 = f2(y1)` (87); `with torch.cuda.graph(g3):`
// (89) `y3 = f3(static_x)` (90). shared = torch.cuda.graph_pool_handle() is pool (0, 1); g3's own
// pool is (1, 0) (the README of shared/real).
TEST(SnapshotStory, TorchCudaGraphPoolsNamedAfterTheirCaptures)
{
    const Snapshot snap = load("snapshots/a_default.pickle");
    auto story = tellStory(snap, 0);
    ASSERT_TRUE(story.ok());
    const StoryPool* shared = story->pool({ 0, 1 });
    ASSERT_NE(shared, nullptr);
    EXPECT_EQ(shared->kind, PoolKind::SharedHandle);
    EXPECT_NE(shared->name.find("graph_pool_handle"), std::string::npos) << shared->name;
    EXPECT_NE(shared->name.find("shared by 2 torch.cuda.graph captures"), std::string::npos) << shared->name;
    const auto captures = ownersOf(*story, { 0, 1 }, "capture");
    ASSERT_EQ(captures.size(), 2u);
    EXPECT_EQ(captures[0]->userFrame.rfind("part_a_allocator.py:84 ", 0), 0u) << captures[0]->userFrame;
    EXPECT_EQ(captures[1]->userFrame.rfind("part_a_allocator.py:87 ", 0), 0u) << captures[1]->userFrame;
    EXPECT_EQ(captures[0]->name, "torch.cuda.graph capture at part_a_allocator.py:84");

    const StoryPool* own = story->pool({ 1, 0 });
    ASSERT_NE(own, nullptr);
    EXPECT_EQ(own->kind, PoolKind::CapturePrivate);
    const auto g3 = ownersOf(*story, { 1, 0 }, "capture");
    ASSERT_EQ(g3.size(), 1u);
    EXPECT_EQ(g3[0]->userFrame.rfind("part_a_allocator.py:90 ", 0), 0u) << g3[0]->userFrame;
    EXPECT_NE(own->name.find("part_a_allocator.py:90"), std::string::npos) << own->name;

    const StoryPool* def = story->pool({ 0, 0 });
    ASSERT_NE(def, nullptr);
    EXPECT_EQ(def->kind, PoolKind::Default);
    for (const StoryOwner* o : ownersOf(*story, { 0, 0 }, "")) {
        // capture_begin's own 8-byte allocations land in the default pool (entries 165-166)
        if (o->category != "eager") {
            EXPECT_EQ(o->name, "torch.cuda.graph capture_begin at part_a_allocator.py:83");
        }
    }
    checkTotals(snap, *story);

    // summarizePools names them by the same rules: no "compile context N/A".
    for (const PoolSummary& p : summarizePools(snap)) {
        EXPECT_EQ(p.graph.find("compile context"), std::string::npos) << p.graph;
        if (p.pool == engine::memory::PoolId { 0, 1 }) {
            EXPECT_EQ(p.graph, shared->name);
        }
    }
}

// truth.md, c_ind_static: compile 0/0 warm-up (prompt); 0/1 warm-up (decode0) then recorded by
// decode1, kv_moved0_decode0, kv_moved1_decode0, kv_moved2_decode0 (4 recordings); 0/2 warm-up
// (b2_decode0), recorded once (b2_decode1). The trace's inductor_output_code records name 0/1's
// module c62wrtc32trn3jhwvqgrkz2awodbo674l2jyaz7ebfxrom66n7z6.py.
TEST(SnapshotStory, CudaGraphTreesPoolSplitWithTrace)
{
    const Snapshot snap = load("compile/c_ind_static.pickle");
    const SnapshotHints hints = hintsOf("compile/c_trace.log");
    EXPECT_EQ(hints.moduleCompileId.at("c62wrtc32trn3jhwvqgrkz2awodbo674l2jyaz7ebfxrom66n7z6.py"), "0/1");
    EXPECT_EQ(hints.moduleCompileId.size(), 3u); // 0/0, 0/1, 0/2
    EXPECT_EQ(hints.recordings.size(), 5u); // decode1, b2_decode1, kv_moved0..2_decode0
    auto story = tellStory(snap, 0, &hints);
    ASSERT_TRUE(story.ok());
    const StoryPool* pool = story->pool({ 0, 1 });
    ASSERT_NE(pool, nullptr);
    EXPECT_EQ(pool->kind, PoolKind::CudaGraphTrees);
    EXPECT_EQ(pool->name.find("compile_fx.py"), std::string::npos) << pool->name;
    EXPECT_EQ(pool->name.find("utils.py"), std::string::npos) << pool->name;
    EXPECT_NE(pool->name.find("common.py"), std::string::npos) << pool->name; // the user's model file

    for (int k = 1; k <= 4; ++k)
        EXPECT_TRUE(hasOwner(*story, "compile 0/1 recording " + std::to_string(k))) << k;
    EXPECT_EQ(countPrefix(*story, "compile 0/1 recording "), 4);
    EXPECT_EQ(countPrefix(*story, "compile 0/2 recording "), 1);
    EXPECT_EQ(countPrefix(*story, "compile 0/0 recording "), 0);
    for (const char* w : { "compile 0/0 warm-up 1", "compile 0/1 warm-up 1", "compile 0/2 warm-up 1" })
        EXPECT_TRUE(hasOwner(*story, w)) << w;
    EXPECT_EQ(countPrefix(*story, "compile 0/1 warm-up "), 1);
    EXPECT_TRUE(hasOwner(*story, "compile 0/1 static input copies"));
    EXPECT_FALSE(ownersOf(*story, { 0, 1 }, "autotuning").empty());
    EXPECT_FALSE(ownersOf(*story, { 0, 1 }, "library workspace").empty());
    for (const StoryOwner& o : story->owners)
        if (o.name.rfind("compile 0/1 recording", 0) == 0) {
            EXPECT_EQ(o.compileId, "0/1");
            EXPECT_EQ(o.category, "graph tensor");
            EXPECT_NE(o.evidence.find("CUDAGraphNode.record"), std::string::npos) << o.evidence;
        }

    // The pool's peak: Triton's 60 MiB L2-flush buffer and cuBLAS' 32 MiB workspace.
    auto b = breakdownAt(snap, *story, pool->peakEntry, &pool->pool);
    ASSERT_TRUE(b.ok());
    std::map<std::string, uint64_t> byCategory;
    for (const Share& s : b->byCategory)
        byCategory[s.name] = s.bytes;
    EXPECT_GE(byCategory["autotuning"], uint64_t(62914560));
    EXPECT_EQ(byCategory["library workspace"], uint64_t(33554432));
    checkTotals(snap, *story);

    // The device's peak explained: sites and folded stacks cover the same bytes.
    auto d = breakdownAt(snap, *story, story->peakEntry);
    ASSERT_TRUE(d.ok());
    EXPECT_EQ(d->allocated, story->peakAllocated);
    uint64_t sites = 0, folded = 0;
    for (const Share& s : d->bySite)
        sites += s.bytes;
    for (const auto& [stack, bytes] : d->folded)
        folded += bytes;
    EXPECT_EQ(sites, d->allocated);
    EXPECT_EQ(folded, d->allocated);
    EXPECT_LE(d->bySite.size(), 11u);
}

TEST(SnapshotStory, CudaGraphTreesPoolSplitWithoutTrace)
{
    const Snapshot snap = load("compile/c_ind_static.pickle");
    auto story = tellStory(snap, 0);
    ASSERT_TRUE(story.ok());
    EXPECT_EQ(countPrefix(*story, "graph c62wrtc32trn recording "), 4);
    EXPECT_EQ(countPrefix(*story, "graph c62wrtc32trn warm-up "), 1);
    // 0/2's module (the trace's inductor_output_code record for 0/2) is recorded once
    EXPECT_EQ(countPrefix(*story, "graph cwrpjhwejcuz recording "), 1);
    for (const StoryOwner& o : story->owners) {
        if (!o.module.empty()) {
            EXPECT_EQ(o.compileId, "unknown (no TORCH_TRACE of this run)") << o.name;
        }
    }
    checkTotals(snap, *story);
}

// truth.md, d_two_functions: 0/0 warm-up (prompt0), recorded by prompt1; 0/1 warm-up (decode0),
// recorded by decode1; nothing re-recorded.
TEST(SnapshotStory, TwoFunctionsOneRecordingEach)
{
    const Snapshot snap = load("cudagraph_cases/d_two_functions.pickle");
    const SnapshotHints hints = hintsOf("trace/two_functions.log");
    auto story = tellStory(snap, 0, &hints);
    ASSERT_TRUE(story.ok());
    EXPECT_TRUE(hasOwner(*story, "compile 0/0 warm-up 1"));
    EXPECT_TRUE(hasOwner(*story, "compile 0/1 warm-up 1"));
    EXPECT_EQ(countPrefix(*story, "compile 0/0 recording "), 1);
    EXPECT_EQ(countPrefix(*story, "compile 0/1 recording "), 1);
    checkTotals(snap, *story);
}

// A recorded run's owners carry the story: name, category, stack and evidence; events their time.
TEST(SnapshotStory, RecordedRunOwners)
{
    const Snapshot snap = load("snapshots/a_default.pickle");
    auto run = snapshotAsRun(snap, 0);
    ASSERT_TRUE(run.ok());
    bool capture = false;
    for (const auto& o : run->sim.owners) {
        EXPECT_FALSE(o.category.empty());
        EXPECT_FALSE(o.evidence.empty());
        capture = capture || o.graph == "torch.cuda.graph capture at part_a_allocator.py:84";
    }
    EXPECT_TRUE(capture);
    ASSERT_FALSE(run->sim.events.empty());
    EXPECT_EQ(run->sim.events.back().timeUs, snap.deviceTraces[0].back().timeUs);
}

// The recorded run's bytes by category (the chart's layers): after every step they add up to the
// step's allocated bytes, and at the graph pool's peak (entry 209, the 60 MiB L2-flush buffer of
// Triton's benchmarking beside the 32 MiB cuBLAS workspace) they hold both. Also in windows of
// several entries, and with a trace starting mid-life (blocks older than it count as unknown).
TEST(SnapshotStory, CategoryBytesAddUpToTheAllocatedBytesOfEveryStep)
{
    for (const char* file : { "compile/c_ind_static.pickle", "snapshots/a_default.pickle" })
        for (size_t maxSteps : { size_t(100000), size_t(97) }) {
            const Snapshot snap = load(file);
            SnapshotRunOptions options;
            options.maxSteps = maxSteps;
            auto run = snapshotAsRun(snap, 0, options);
            ASSERT_TRUE(run.ok()) << file;
            ASSERT_FALSE(run->sim.categories.empty());
            EXPECT_EQ(run->sim.categories.back(), "unknown");
            for (const auto& e : run->sim.events) {
                ASSERT_EQ(e.categoryBytes.size(), run->sim.categories.size()) << file << " event " << e.index;
                uint64_t sum = 0;
                for (uint64_t b : e.categoryBytes)
                    sum += b;
                ASSERT_EQ(sum, e.deviceAllocated) << file << " event " << e.index;
            }
        }
    const Snapshot snap = load("compile/c_ind_static.pickle");
    auto run = snapshotAsRun(snap, 0);
    ASSERT_TRUE(run.ok());
    const auto at = [&](const std::string& category, size_t event) -> uint64_t {
        const auto& c = run->sim.categories;
        auto it = std::find(c.begin(), c.end(), category);
        return it == c.end() ? 0 : run->sim.events[event].categoryBytes[size_t(it - c.begin())];
    };
    EXPECT_GE(at("autotuning", 209), uint64_t(62914560));
    EXPECT_EQ(at("library workspace", 209), uint64_t(33554432));
}

// ring_buffer.pickle (tests/data/snapshots, make_snapshot_fixtures.py): the trace starts mid-life; the
// 3 MiB block at the segment's start is live at the end with a /work/model.py:17 stack and no alloc
// entry, the others are freed in the window without their alloc.
TEST(SnapshotStory, BlocksOlderThanTheTrace)
{
    auto snap = readSnapshotFile(std::string(ACLGI_TEST_DATA_DIR) + "/snapshots/ring_buffer.pickle");
    ASSERT_TRUE(snap.ok());
    auto story = tellStory(*snap, 0);
    ASSERT_TRUE(story.ok());
    auto b = breakdownAt(*snap, *story, SnapshotStory::kBeforeTrace);
    ASSERT_TRUE(b.ok());
    ASSERT_FALSE(b->byOwner.empty());
    bool named = false;
    for (const Share& s : b->byOwner) {
        EXPECT_EQ(s.category, "before the trace") << s.name;
        named = named || (s.name == "before the trace (allocated by /work/model.py:17 forward)" && s.bytes == 3u << 20);
    }
    EXPECT_TRUE(named);
    ASSERT_EQ(b->byCategory.size(), 1u);
    EXPECT_EQ(b->byCategory[0].bytes, b->allocated);
    EXPECT_FALSE(breakdownAt(*snap, *story, snap->deviceTraces[0].size()).ok()); // beyond the trace
}

// Which trace is of the snapshot's run (storage/import_hints.h uses it): c_trace.log names all three
// generated modules of c_ind_static; without its module records its CUDAGraphNode.record spans still
// fall inside the snapshot's time range; two_functions.log, another run, matches neither way. Merged
// hints keep which log named each module.
TEST(SnapshotStory, SameRunEvidence)
{
    const Snapshot snap = load("compile/c_ind_static.pickle");
    const engine::ingest::SnapshotRunMarks marks = engine::ingest::snapshotRunMarks(snap);
    EXPECT_EQ(marks.modules.size(), 3u);
    EXPECT_GT(marks.firstUs, 0);
    EXPECT_LT(marks.firstUs, marks.lastUs);
    const SnapshotHints own = hintsOf("compile/c_trace.log");
    EXPECT_NE(engine::ingest::sameRunEvidence(own, marks).find("name 3 of the snapshot's 3 generated modules"),
        std::string::npos);
    SnapshotHints spansOnly = own;
    spansOnly.moduleCompileId.clear();
    EXPECT_NE(engine::ingest::sameRunEvidence(spansOnly, marks).find("CUDAGraphNode.record spans (5 of 5)"),
        std::string::npos)
        << engine::ingest::sameRunEvidence(spansOnly, marks);
    const SnapshotHints other = hintsOf("trace/two_functions.log");
    EXPECT_EQ(engine::ingest::sameRunEvidence(other, marks), "");

    SnapshotHints merged = other;
    engine::ingest::mergeHints(merged, own);
    EXPECT_EQ(merged.recordings.size(), other.recordings.size() + own.recordings.size());
    EXPECT_TRUE(std::is_sorted(merged.recordings.begin(), merged.recordings.end(),
        [](const auto& a, const auto& b) { return a.beginUs < b.beginUs; }));
    const std::string module = "c62wrtc32trn3jhwvqgrkz2awodbo674l2jyaz7ebfxrom66n7z6.py";
    EXPECT_EQ(merged.moduleCompileId.at(module), "0/1");
    EXPECT_NE(merged.moduleSource.at(module).find("c_trace.log"), std::string::npos);
    EXPECT_NE(merged.source.find("two_functions.log, "), std::string::npos) << merged.source;
}
