// A snapshot's trace streamed as a run (streamSnapshotRun): the bounded replay, which draws again
// only what each step changed, must give at every step exactly the state that the full replay
// (replayTrace, which diffs the whole memory after every entry) gives; with long traces cut into
// windows, the state after each window's last entry. Checked on the fixtures and on random but
// consistent allocator histories, whole and as ring buffers that start mid-life.
#include "engine/core/file_io.h"
#include "engine/snapshot/memory_snapshot.h"
#include "engine/snapshot/snapshot_run.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <map>
#include <random>
#include <set>

using namespace engine::snapshot;
using engine::Result;
using engine::memory::PoolId;
using engine::runtime::MemoryState;

namespace {

constexpr uint64_t kMiB = uint64_t(1) << 20;

Snapshot load(const std::string& name)
{
    auto s = readSnapshotFile(std::string(ACLGI_TEST_DATA_DIR) + "/snapshots/" + name);
    EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().toString());
    return s.ok() ? std::move(s.value()) : Snapshot {};
}

/// A random history of a caching allocator that keeps every rule the replay relies on: blocks are
/// 512-byte multiples carved first-fit from segments of their pool, a free is requested before it
/// completes, a segment is freed only when it holds no active block. The snapshot's segments are
/// its final state; its trace is the last `keep` entries (all of them with keep = 0).
Snapshot randomHistory(unsigned seed, size_t entries, size_t keep)
{
    std::mt19937_64 rng(seed);
    struct Seg {
        PoolId pool;
        uint64_t size;
        std::map<uint64_t, std::pair<uint64_t, BlockState>> blocks; // active ones: size, state
    };
    std::map<uint64_t, Seg> segs;
    uint64_t nextSegment = 0x7F0000000000;
    TraceList trace;
    Snapshot s;
    s.path = "random-" + std::to_string(seed) + ".pickle";
    Frame frame;
    frame.filename = "/work/model.py";
    frame.line = 10;
    frame.name = "forward";
    s.frames.push_back(frame);
    s.stacks.push_back({ 0 });
    const PoolId pools[] = { PoolId { 0, 0 }, PoolId { 1, 0 } };
    auto push = [&](TraceAction a, uint64_t addr, uint64_t size, PoolId pool) {
        TraceEntry e;
        e.action = a;
        e.addr = addr;
        e.size = size;
        e.hasPool = !pool.isDefault();
        e.pool = pool;
        e.stack = trace.size() % 3 ? 0 : kNoStack;
        trace.push_back(e);
    };
    while (trace.size() < entries) {
        const int op = int(rng() % 10);
        std::vector<std::pair<uint64_t, uint64_t>> active; // (segment, block)
        for (auto& [base, seg] : segs)
            for (auto& [addr, b] : seg.blocks)
                active.emplace_back(base, addr);
        if (op < 5 || active.empty()) { // alloc
            const PoolId pool = pools[rng() % 2];
            const uint64_t requested = 1 + rng() % (3 * kMiB);
            const uint64_t size = (requested + 511) / 512 * 512;
            uint64_t at = 0, in = 0;
            for (auto& [base, seg] : segs) {
                if (!(seg.pool == pool))
                    continue;
                uint64_t next = base;
                for (auto& [addr, b] : seg.blocks) {
                    if (addr - next >= size)
                        break;
                    next = addr + b.first;
                }
                if (base + seg.size - next >= size) {
                    at = next;
                    in = base;
                    break;
                }
            }
            if (!in) {
                const uint64_t segSize = std::max<uint64_t>(2 * kMiB, (size + 2 * kMiB - 1) / (2 * kMiB) * (2 * kMiB));
                in = at = nextSegment;
                nextSegment += segSize + 64 * kMiB;
                segs[in] = Seg { pool, segSize, {} };
                push(TraceAction::SegmentAlloc, in, segSize, pool);
            }
            segs[in].blocks[at] = { size, BlockState::ActiveAllocated };
            push(TraceAction::Alloc, at, requested, pool);
        } else if (op < 9) { // free: requested, or completed when requested before
            const auto [base, addr] = active[rng() % active.size()];
            auto& b = segs[base].blocks[addr];
            if (b.second == BlockState::ActiveAllocated) {
                b.second = BlockState::ActivePendingFree;
                push(TraceAction::FreeRequested, addr, b.first, segs[base].pool);
            } else {
                push(TraceAction::FreeCompleted, addr, b.first, segs[base].pool);
                segs[base].blocks.erase(addr);
            }
        } else { // release an empty segment, if any
            for (auto it = segs.begin(); it != segs.end(); ++it)
                if (it->second.blocks.empty()) {
                    push(TraceAction::SegmentFree, it->first, it->second.size, it->second.pool);
                    segs.erase(it);
                    break;
                }
        }
    }
    for (auto& [base, seg] : segs) {
        Segment out;
        out.address = base;
        out.totalSize = seg.size;
        out.pool = seg.pool;
        uint64_t next = base;
        for (auto& [addr, b] : seg.blocks) {
            if (addr > next)
                out.blocks.push_back({ next, addr - next, 0, BlockState::Inactive, kNoStack });
            out.blocks.push_back({ addr, b.first, b.first, b.second, 0 });
            next = addr + b.first;
        }
        if (base + seg.size > next)
            out.blocks.push_back({ next, base + seg.size - next, 0, BlockState::Inactive, kNoStack });
        s.segments.push_back(std::move(out));
    }
    s.deviceTraces.resize(1);
    const size_t from = keep && keep < trace.size() ? trace.size() - keep : 0;
    for (size_t i = from; i < trace.size(); ++i)
        s.deviceTraces[0].push_back(trace[i]);
    return s;
}

/// Streamed and full states are equal, owners aside; each streamed owner stands for one
/// allocating entry throughout (`owners`: streamed id -> the entry the full replay names).
void expectSameState(
    const MemoryState& streamed, const MemoryState& full, std::map<int64_t, int64_t>& owners, const std::string& where)
{
    EXPECT_EQ(streamed.pools, full.pools) << where;
    EXPECT_EQ(streamed.segments, full.segments) << where;
    if (streamed.blocks.size() != full.blocks.size()) {
        ADD_FAILURE() << where << ": " << streamed.blocks.size() << " blocks against " << full.blocks.size();
        return;
    }
    for (auto a = streamed.blocks.begin(), b = full.blocks.begin(); a != streamed.blocks.end(); ++a, ++b) {
        if (a->first != b->first) {
            ADD_FAILURE() << where << std::hex << ": block 0x" << a->first << " against 0x" << b->first;
            return;
        }
        MemoryState::Block x = a->second, y = b->second;
        EXPECT_EQ(x.owner == engine::memory::kNoOwner, y.owner == engine::memory::kNoOwner) << where;
        if (x.owner != engine::memory::kNoOwner) {
            auto [it, added] = owners.emplace(x.owner, y.owner);
            EXPECT_EQ(it->second, y.owner) << where << ": owner " << x.owner << " names two entries";
        }
        x.owner = y.owner = 0;
        EXPECT_TRUE(x == y) << where << std::hex << " block 0x" << a->first;
    }
}

/// Streams device 0 with at most `maxSteps` steps and checks every step against the full replay.
SnapshotRun checkAgainstFullReplay(
    const Snapshot& s, int device, size_t maxSteps, const TraceTimeline* oracle = nullptr)
{
    SnapshotRunOptions options;
    options.maxSteps = maxSteps;
    auto run = snapshotAsRun(s, device, options);
    EXPECT_TRUE(run.ok()) << (run.ok() ? "" : run.error().toString());
    auto replayed = oracle ? Result<TraceTimeline>(TraceTimeline()) : replayTrace(s, device);
    EXPECT_TRUE(replayed.ok());
    if (!run.ok() || !replayed.ok())
        return SnapshotRun();
    const TraceTimeline* full = oracle ? oracle : &replayed.value();
    const size_t n = size_t(full->timeline.eventCount());
    const size_t window = n > maxSteps ? (n + maxSteps - 1) / maxSteps : 1;
    const size_t steps = n == 0 ? 1 : (n + window - 1) / window;
    EXPECT_EQ(run->sim.events.size(), steps);
    EXPECT_EQ(run->timeline.eventCount(), int(steps));
    std::map<int64_t, int64_t> owners;
    uint64_t peakReserved = 0, peakAllocated = 0;
    const auto totals = [](const MemoryState& st) {
        uint64_t reserved = 0, allocated = 0;
        for (const auto& [a, seg] : st.segments)
            reserved += seg.totalSize;
        for (const auto& [a, b] : st.blocks)
            allocated += b.allocated ? b.size : 0;
        return std::make_pair(reserved, allocated);
    };
    if (n == 0) { // no trace: one step, the file's state
        auto got = run->timeline.stateAt(0);
        EXPECT_TRUE(got.ok() && got->segments == full->initial.segments) << s.path;
    }
    // The full replay's states in order (its deltas applied one by one), against each step's end.
    MemoryState want = full->initial;
    auto delta = full->timeline.deltas().begin();
    for (size_t i = 0; i < n; ++i) {
        for (; delta != full->timeline.deltas().end() && delta->event == int(i); ++delta)
            engine::runtime::applyMemory(want, *delta);
        const auto [reserved, allocated] = totals(want);
        peakReserved = std::max(peakReserved, reserved);
        peakAllocated = std::max(peakAllocated, allocated);
        if ((i + 1) % window != 0 && i + 1 != n)
            continue;
        const size_t step = i / window;
        const std::string where = s.path + " step " + std::to_string(step);
        auto got = run->timeline.stateAt(int(step));
        if (!got.ok()) {
            ADD_FAILURE() << where << ": " << got.error().toString();
            continue;
        }
        expectSameState(*got, want, owners, where);
        EXPECT_EQ(run->sim.events[step].deviceReserved, reserved) << where;
        EXPECT_EQ(run->sim.events[step].deviceAllocated, allocated) << where;
    }
    if (n > 0) { // the peaks see every entry, also those inside a window
        EXPECT_EQ(run->sim.peakDeviceReserved, peakReserved) << s.path;
        EXPECT_EQ(run->sim.peakDeviceAllocated, peakAllocated) << s.path;
    }
    // Owners are numbered as they first appear, once each.
    std::set<int64_t> entries;
    for (const auto& [id, entry] : owners) {
        EXPECT_LT(size_t(id), run->sim.owners.size());
        EXPECT_TRUE(entries.insert(entry).second) << "entry " << entry << " has two owners";
    }
    return std::move(run.value());
}

} // namespace

TEST(SnapshotStream, EveryFixtureStepByStepAsTheFullReplay)
{
    for (const char* name : { "simple.pickle", "graph_pools.pickle", "big_address.pickle", "expandable.pickle",
             "ring_buffer.pickle", "bare_list.pickle", "protocol2.pickle" }) {
        SCOPED_TRACE(name);
        const Snapshot s = load(name);
        for (int device : snapshotDevices(s)) {
            checkAgainstFullReplay(s, device, 100000);
            checkAgainstFullReplay(s, device, 2); // windows of several entries
        }
    }
}

TEST(SnapshotStream, RandomHistoriesWholeAndMidLife)
{
    for (unsigned seed = 1; seed <= 4; ++seed) {
        SCOPED_TRACE("seed " + std::to_string(seed));
        const Snapshot whole = randomHistory(seed, 1500, 0);
        auto full = replayTrace(whole, 0);
        ASSERT_TRUE(full.ok());
        EXPECT_TRUE(full->warnings.empty()) << full->warnings.front(); // the history is consistent
        EXPECT_TRUE(full->initial.segments.empty());
        const SnapshotRun run = checkAgainstFullReplay(whole, 0, 100000, &*full);
        EXPECT_LT(run.timeline.keyframes().size(), run.sim.events.size() / 4) << "keyframes are kept by volume";
        checkAgainstFullReplay(whole, 0, 37, &*full);
        const Snapshot ring = randomHistory(seed, 1500, 700); // starts mid-life
        auto ringFull = replayTrace(ring, 0);
        ASSERT_TRUE(ringFull.ok());
        EXPECT_TRUE(ringFull->warnings.empty()) << ringFull->warnings.front();
        EXPECT_FALSE(ringFull->initial.segments.empty());
        checkAgainstFullReplay(ring, 0, 100000, &*ringFull);
        checkAgainstFullReplay(ring, 0, 50, &*ringFull);
    }
}

TEST(SnapshotStream, WindowsSayWhatTheyHoldAndOwnersStayFew)
{
    const Snapshot s = randomHistory(11, 4000, 0);
    SnapshotRunOptions options;
    options.maxSteps = 40; // 100 entries a step
    auto run = snapshotAsRun(s, 0, options);
    ASSERT_TRUE(run.ok());
    ASSERT_EQ(run->sim.events.size(), 40u);
    EXPECT_EQ(run->sim.events[0].summary.rfind("trace entries 1\u2013100: ", 0), 0u) << run->sim.events[0].summary;
    EXPECT_NE(run->sim.events[1].summary.find(" alloc"), std::string::npos);
    // Only blocks alive at some step's end have an owner, not every alloc of the trace.
    size_t allocs = 0;
    for (const TraceEntry& e : s.deviceTraces[0])
        allocs += e.action == TraceAction::Alloc;
    EXPECT_LT(run->sim.owners.size(), allocs);
    for (const auto& o : run->sim.owners)
        EXPECT_EQ(o.kind, engine::runtime::OwnerKind::Recorded);
}

TEST(SnapshotStream, ProgressCancelsAndSinkErrorsStop)
{
    const Snapshot s = randomHistory(3, 9000, 0);
    SnapshotRunOptions options;
    uint64_t last = 0, total = 0;
    options.progress = [&](uint64_t done, uint64_t all) {
        EXPECT_GE(done, last);
        last = done;
        total = all;
        return true;
    };
    ASSERT_TRUE(snapshotAsRun(s, 0, options).ok());
    EXPECT_EQ(total, 2 * s.deviceTraces[0].size());
    EXPECT_EQ(last, total);
    options.progress = [](uint64_t done, uint64_t all) { return done < all / 2; };
    auto cancelled = snapshotAsRun(s, 0, options);
    ASSERT_FALSE(cancelled.ok());
    EXPECT_EQ(cancelled.error().code, engine::ErrorCode::Cancelled);

    struct Failing : engine::runtime::RunSink {
        int steps = 0;
        engine::Result<void> begin(const engine::runtime::Simulation&) override { return {}; }
        engine::Result<void> owner(engine::memory::OwnerId, const engine::runtime::OwnerInfo&) override { return {}; }
        engine::Result<void> step(const engine::runtime::Event&, const engine::runtime::MemoryDelta&,
            const engine::runtime::MemoryState*) override
        {
            if (++steps == 5)
                return engine::Error { engine::ErrorCode::Io, "disk full", "x" };
            return {};
        }
        engine::Result<void> end(const engine::runtime::RunTotals&) override
        {
            ADD_FAILURE() << "end after a failed step";
            return {};
        }
    } failing;
    auto r = streamSnapshotRun(s, 0, failing);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().message, "disk full");
    EXPECT_EQ(failing.steps, 5);
    EXPECT_FALSE(streamSnapshotRun(s, 4, failing).ok()); // no such device
}
