// The snapshot replay and the allocator model against the real CUDA caching allocator (PyTorch
// 2.11, one H200): tests/data/real/snapshots/a_{default,expandable}.{pickle,jsonl}, made by
// ../shared/real/scripts/part_a_allocator.py. The .jsonl logs every alloc and free the script did
// (name, nbytes, data_ptr) and, after each phase, a `stats` line with memory_stats() and the
// segments of memory_snapshot(): the allocator's own answers, which both must reproduce exactly.
#include "engine/memory/caching_allocator.h"
#include "engine/snapshot/memory_snapshot.h"
#include "engine/snapshot/trace_walker.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <map>
#include <ostream>
#include <optional>
#include <set>
#include <sstream>
#include <tuple>

using namespace engine;
using namespace engine::snapshot;
using nlohmann::json;

namespace {

std::string dataPath(const std::string& name)
{
    return std::string(ACLGI_TEST_DATA_DIR) + "/real/snapshots/" + name;
}

std::vector<json> readLog(const std::string& name)
{
    std::vector<json> lines;
    std::ifstream in(dataPath(name));
    EXPECT_TRUE(in) << dataPath(name);
    for (std::string line; std::getline(in, line);)
        if (!line.empty())
            lines.push_back(json::parse(line));
    return lines;
}

/// A segment as memory_snapshot() lists it: its blocks as (size, active) in address order.
struct SegView {
    uint64_t address = 0, total = 0;
    memory::PoolId pool;
    bool small = false;
    std::vector<std::pair<uint64_t, bool>> blocks;
    bool operator==(const SegView& o) const
    {
        return address == o.address && total == o.total && pool == o.pool && small == o.small && blocks == o.blocks;
    }
    bool operator<(const SegView& o) const // for comparing without addresses (the model's are its own)
    {
        return std::tie(pool, small, total, blocks) < std::tie(o.pool, o.small, o.total, o.blocks);
    }
};

std::ostream& operator<<(std::ostream& os, const SegView& s)
{
    os << "\n  segment 0x" << std::hex << s.address << std::dec << " " << s.total << " " << s.pool.str()
       << (s.small ? " small" : " large") << ":";
    for (const auto& [size, active] : s.blocks)
        os << " " << size << (active ? "A" : "-");
    return os;
}

std::vector<SegView> realSegments(const json& stats)
{
    std::vector<SegView> out;
    for (const json& s : stats.at("segments")) {
        SegView v;
        v.address = s.at("address").get<uint64_t>();
        v.total = s.at("total_size").get<uint64_t>();
        v.pool = { s.at("pool").at(0).get<uint64_t>(), s.at("pool").at(1).get<uint64_t>() };
        v.small = s.at("type").get<std::string>() == "small";
        for (const json& b : s.at("blocks"))
            v.blocks.emplace_back(b.at(0).get<uint64_t>(), b.at(1).get<std::string>() != "inactive");
        out.push_back(std::move(v));
    }
    std::sort(out.begin(), out.end(), [](const SegView& a, const SegView& b) { return a.address < b.address; });
    return out;
}

/// The replay's state: its segments with their active blocks and the gaps between them (free).
std::vector<SegView> replaySegments(const detail::TraceWalker& w)
{
    std::vector<SegView> out;
    for (const auto& [address, seg] : w.segments()) {
        SegView v { address, seg.size, seg.pool, seg.small, {} };
        uint64_t at = address;
        for (auto it = w.live().lower_bound(address); it != w.live().end() && it->first < address + seg.size; ++it) {
            if (it->first > at)
                v.blocks.emplace_back(it->first - at, false);
            v.blocks.emplace_back(it->second.size, true);
            at = it->first + it->second.size;
        }
        if (at < address + seg.size)
            v.blocks.emplace_back(address + seg.size - at, false);
        out.push_back(std::move(v));
    }
    return out;
}

uint64_t stat(const json& stats, const char* key)
{
    return stats.at("stats").at(key).get<uint64_t>();
}

/// Where each `stats` line of the log falls in the trace. memory_snapshot() records a `snapshot`
/// trace entry (CUDACachingAllocator.cpp's snapshot() calls record_trace with SNAPSHOT), so the
/// k-th stats line is the state after the k-th snapshot entry. The test also holds this against the
/// logged operations, matched to trace entries by address in order (an alloc to the next `alloc`
/// entry with its ptr and nbytes, a free to the next `free_requested` of its ptr): every operation
/// before the stats line comes before its snapshot entry, every one after it after; and between the
/// last matched entry and the snapshot entry lie only the allocator's own follow-ups
/// (free_completed of that free, segment_free / segment_unmap of empty_cache) and the previous
/// snapshot entry (no operation between two stats lines: empty_cache's releases follow it).
std::vector<size_t> phasePoints(const TraceList& trace, const std::vector<json>& log)
{
    std::vector<size_t> snapshots;
    for (size_t i = 0; i < trace.size(); ++i)
        if (trace[i].action == TraceAction::Snapshot)
            snapshots.push_back(i);
    size_t phases = size_t(std::count_if(
        log.begin(), log.end(), [](const json& l) { return l.at("step") == "stats"; }));
    EXPECT_EQ(snapshots.size(), phases) << "one snapshot trace entry per stats line";

    size_t cursor = 0, phase = 0;
    std::optional<size_t> lastMatched;
    bool unlogged = false; // the phase ran code whose allocations the log does not list (captures)
    for (const json& l : log) {
        const std::string step = l.at("step").get<std::string>();
        if (step == "captured" || step == "replayed")
            unlogged = true;
        if (step == "alloc" || step == "free") {
            const uint64_t ptr = l.at("ptr").get<uint64_t>();
            const TraceAction want = step == "alloc" ? TraceAction::Alloc : TraceAction::FreeRequested;
            size_t i = cursor;
            while (i < trace.size()
                && !(trace[i].action == want && trace[i].addr == ptr
                    && (step == "free" || trace[i].size == l.at("nbytes").get<uint64_t>())))
                ++i;
            EXPECT_LT(i, trace.size()) << step << " " << l.at("name") << " has no trace entry";
            if (phase < snapshots.size()) {
                EXPECT_LT(i, snapshots[phase]) << l.at("name") << " falls after its phase's snapshot entry";
            }
            if (phase > 0 && phase - 1 < snapshots.size()) {
                EXPECT_GT(i, snapshots[phase - 1]) << l.at("name") << " falls before the previous phase";
            }
            cursor = i + 1;
            lastMatched = i;
        } else if (step == "stats" && phase < snapshots.size()) {
            for (size_t i = lastMatched ? *lastMatched + 1 : 0; !unlogged && i < snapshots[phase]; ++i) {
                const TraceAction a = trace[i].action;
                EXPECT_TRUE(a == TraceAction::FreeCompleted || a == TraceAction::SegmentFree
                    || a == TraceAction::SegmentUnmap || a == TraceAction::Snapshot || !lastMatched)
                    << "trace entry " << i << " (" << traceActionName(a) << ") lies between the last logged "
                    << "operation and the stats line " << l.at("label");
            }
            ++phase;
            unlogged = false;
        }
    }
    return snapshots;
}

class RealReplay : public ::testing::TestWithParam<const char*> {};

TEST_P(RealReplay, EveryPhaseEqualsTheRealAllocatorBlockByBlock)
{
    const std::string tag = GetParam();
    auto snap = readSnapshotFile(dataPath(tag + ".pickle"));
    ASSERT_TRUE(snap.ok()) << snap.error().toString();
    ASSERT_FALSE(snap->deviceTraces.empty());
    const std::vector<json> log = readLog(tag + ".jsonl");
    std::vector<json> stats;
    for (const json& l : log)
        if (l.at("step") == "stats")
            stats.push_back(l);
    ASSERT_EQ(stats.size(), 9u) << "small filled, best fit, large filled, large best fit, side stream, "
                                   "all freed, empty_cache, after captures, g3 deleted";
    const std::vector<size_t> points = phasePoints(snap->deviceTraces[0], log);
    ASSERT_EQ(points.size(), stats.size());

    detail::TraceWalker walker(*snap, 0);
    uint64_t peakReserved = 0, peakAllocated = 0;
    size_t phase = 0, compared = 0;
    const auto observe = [&] {
        uint64_t allocated = 0;
        for (const auto& [pool, t] : walker.totals())
            allocated += t.allocated;
        peakReserved = std::max(peakReserved, walker.deviceReserved());
        peakAllocated = std::max(peakAllocated, allocated);
        return allocated;
    };
    ASSERT_TRUE(walker.run([&] { observe(); },
        [&](size_t i) {
            const uint64_t allocated = observe();
            if (phase >= points.size() || i != points[phase])
                return;
            const json& s = stats[phase++];
            SCOPED_TRACE(tag + ": " + s.at("label").get<std::string>());
            EXPECT_EQ(replaySegments(walker), realSegments(s));
            EXPECT_EQ(walker.deviceReserved(), stat(s, "reserved_bytes.all.current"));
            EXPECT_EQ(allocated, stat(s, "allocated_bytes.all.current"));
            EXPECT_EQ(allocated, snap->deviceTraces[0][i].size) << "the snapshot entry's allocated bytes";
            ++compared;
        }));
    EXPECT_EQ(compared, stats.size());
    EXPECT_TRUE(walker.warnings().empty()) << walker.warnings().front();
    // The trace covers the whole process, so its high-water marks are the allocator's own.
    EXPECT_EQ(peakReserved, stat(stats.back(), "reserved_bytes.all.peak"));
    EXPECT_EQ(peakAllocated, stat(stats.back(), "allocated_bytes.all.peak"));
}

INSTANTIATE_TEST_SUITE_P(Snapshot, RealReplay, ::testing::Values("a_default", "a_expandable"));

/// Every real recording at hand, the compiled decoder with CUDA Graph Trees included: the split
/// rule foresees every alloc (no block is ever cut back for a later one inside it), the trace
/// agrees with the state throughout, and no two active blocks overlap at any step.
TEST(SnapshotReplayReal, TheSplitRuleForeseesEveryAllocOfRealRecordings)
{
    for (const char* name : { "snapshots/a_default.pickle", "snapshots/a_expandable.pickle",
             "compile/c_ind_static.pickle", "cudagraph_cases/d_two_functions.pickle" }) {
        SCOPED_TRACE(name);
        auto snap = readSnapshotFile(std::string(ACLGI_TEST_DATA_DIR) + "/real/" + name);
        ASSERT_TRUE(snap.ok()) << snap.error().toString();
        detail::TraceWalker walker(*snap, 0);
        size_t overlaps = 0;
        ASSERT_TRUE(walker.run({}, [&](size_t) {
            uint64_t end = 0;
            for (const auto& [address, l] : walker.live()) {
                overlaps += address < end;
                end = address + l.size;
            }
        }));
        EXPECT_GT(snap->deviceTraces.at(0).size(), 200u);
        EXPECT_EQ(walker.ruleDisagreements(), 0u);
        EXPECT_EQ(overlaps, 0u);
        EXPECT_TRUE(walker.warnings().empty()) << walker.warnings().front();
    }
}

/// The scripted sequence (the logged allocs and frees in order, sizes from nbytes, the side stream
/// as stream 1, empty_cache before its stats line) through the allocator model with the CUDA
/// profile and the run's PYTORCH_CUDA_ALLOC_CONF: at each phase up to empty_cache, the same reserved
/// and allocated bytes and the same segments (compared without addresses, which are the model's).
class RealAllocatorModel : public ::testing::TestWithParam<const char*> {};

TEST_P(RealAllocatorModel, ScriptedPhasesEqualTheRealAllocator)
{
    const std::string tag = GetParam();
    const std::vector<json> log = readLog(tag + ".jsonl");
    ASSERT_FALSE(log.empty());
    memory::AllocatorConfig config;
    config.profile = memory::Profile::Cuda;
    config.capacityBytes = uint64_t(141) << 30; // the H200 the data came from
    const json& env = log.front();
    ASSERT_EQ(env.at("step"), "env");
    auto parsed = memory::applyAllocConf(config, env.at("alloc_conf").get<std::string>(), "alloc_conf");
    ASSERT_TRUE(parsed.ok()) << parsed.error().toString();
    EXPECT_EQ(config.expandableSegments, tag == "a_expandable");

    memory::CachingAllocator model(config);
    std::map<std::string, uint64_t> address; // name -> the model's address
    int phases = 0;
    for (const json& l : log) {
        const std::string step = l.at("step").get<std::string>();
        if (step == "alloc") {
            const bool side = l.at("stream").is_string();
            auto a = model.allocate({}, side ? 1 : 0, l.at("nbytes").get<uint64_t>(), memory::OwnerId(address.size()));
            ASSERT_TRUE(a.ok()) << a.error().toString();
            address[l.at("name").get<std::string>()] = *a;
        } else if (step == "free") {
            ASSERT_TRUE(model.free(address.at(l.at("name").get<std::string>())).ok());
        } else if (step == "stats") {
            const std::string label = l.at("label").get<std::string>();
            if (label == "after captures")
                break; // the captures' private pools are not scripted here
            if (label == "after empty_cache")
                model.emptyCache();
            SCOPED_TRACE(tag + ": " + label);
            std::vector<SegView> mine;
            for (const memory::SegmentInfo& s : model.segments()) {
                SegView v { 0, s.totalSize, s.pool, s.small, {} };
                for (const memory::BlockInfo& b : s.blocks)
                    v.blocks.emplace_back(b.size, b.allocated);
                mine.push_back(std::move(v));
            }
            std::vector<SegView> real = realSegments(l);
            for (SegView& v : real)
                v.address = 0;
            std::sort(mine.begin(), mine.end());
            std::sort(real.begin(), real.end());
            EXPECT_EQ(mine, real);
            EXPECT_EQ(model.reservedBytes(), stat(l, "reserved_bytes.all.current"));
            EXPECT_EQ(model.allocatedBytes(), stat(l, "allocated_bytes.all.current"));
            EXPECT_EQ(model.peakReservedBytes(), stat(l, "reserved_bytes.all.peak"));
            EXPECT_EQ(model.peakAllocatedBytes(), stat(l, "allocated_bytes.all.peak"));
            ++phases;
        }
    }
    EXPECT_EQ(phases, 7);
}

INSTANTIATE_TEST_SUITE_P(Allocator, RealAllocatorModel, ::testing::Values("a_default", "a_expandable"));

std::vector<SegView> withoutAddresses(std::vector<SegView> v)
{
    for (SegView& s : v)
        s.address = 0;
    std::sort(v.begin(), v.end());
    return v;
}

/// The model and the replay on the same history, the whole trace: the captures included. Each
/// alloc entry goes to the model in the pool the replay finds its block in and on its stream; a
/// free_requested frees (nothing records streams here, so the block is free at once); a run of
/// segment_free / segment_unmap entries is one empty_cache (torch.cuda.graph calls it before each
/// capture, the script once). At every snapshot entry both hold the same segments and bytes.
TEST_P(RealAllocatorModel, WholeTraceAgreesWithTheReplay)
{
    const std::string tag = GetParam();
    auto snap = readSnapshotFile(dataPath(tag + ".pickle"));
    ASSERT_TRUE(snap.ok()) << snap.error().toString();
    memory::AllocatorConfig config;
    config.profile = memory::Profile::Cuda;
    config.capacityBytes = uint64_t(141) << 30;
    config.expandableSegments = tag == "a_expandable";
    memory::CachingAllocator model(config);
    const TraceList& trace = snap->deviceTraces.at(0);

    std::vector<json> stats;
    for (const json& l : readLog(tag + ".jsonl"))
        if (l.at("step") == "stats")
            stats.push_back(l);
    ASSERT_EQ(stats.size(), 9u);

    detail::TraceWalker walker(*snap, 0);
    std::map<uint64_t, uint64_t> address; // the trace's address -> the model's
    std::set<memory::PoolId> held;
    int compared = 0;
    bool releasing = false;
    ASSERT_TRUE(walker.run({}, [&](size_t i) {
        const TraceEntry& e = trace[i];
        const bool release = e.action == TraceAction::SegmentFree || e.action == TraceAction::SegmentUnmap;
        if (release && !releasing)
            model.emptyCache();
        releasing = release;
        if (e.action == TraceAction::Alloc) {
            const memory::PoolId pool = walker.live().at(e.addr).pool;
            if (!pool.isDefault() && held.insert(pool).second)
                model.increfPool(pool);
            auto a = model.allocate(pool, walker.streamOf(e.stream), e.size, memory::OwnerId(i));
            ASSERT_TRUE(a.ok()) << "entry " << i << ": " << a.error().toString();
            address[e.addr] = *a;
        } else if (e.action == TraceAction::FreeRequested) {
            ASSERT_TRUE(address.count(e.addr)) << "entry " << i;
            ASSERT_TRUE(model.free(address[e.addr]).ok()) << "entry " << i;
            address.erase(e.addr);
        } else if (e.action == TraceAction::Snapshot) {
            SCOPED_TRACE(tag + ": snapshot entry " + std::to_string(i));
            std::vector<SegView> mine;
            for (const memory::SegmentInfo& s : model.segments()) {
                SegView v { 0, s.totalSize, s.pool, s.small, {} };
                for (const memory::BlockInfo& b : s.blocks)
                    v.blocks.emplace_back(b.size, b.allocated);
                mine.push_back(std::move(v));
            }
            EXPECT_EQ(withoutAddresses(mine), withoutAddresses(replaySegments(walker)));
            EXPECT_EQ(model.reservedBytes(), walker.deviceReserved());
            // And the allocator's own numbers (after the captures: 98.6 MB by default, 115.3 MB
            // with expandable segments, whose private pools map 20 MiB pages for their 32 MiB).
            if (size_t(compared) < stats.size()) {
                EXPECT_EQ(model.reservedBytes(), stat(stats[size_t(compared)], "reserved_bytes.all.current"));
                EXPECT_EQ(model.allocatedBytes(), stat(stats[size_t(compared)], "allocated_bytes.all.current"));
            }
            ++compared;
        }
    }));
    EXPECT_EQ(compared, 9);
}

} // namespace
