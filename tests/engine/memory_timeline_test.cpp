// MemoryTimeline against the simulator's own per-event snapshots, on real scenarios; the keyframe
// encoding; diff/apply on random states.
#include "engine/runtime/memory_timeline.h"
#include "tests/engine/memory_test_util.h"

#include <gtest/gtest.h>
#include <random>

using namespace engine::runtime;
using engine::memory::PoolId;

namespace {

/// Every event's rebuilt state equals what the simulator recorded, and its keyframe round trip.
void checkEveryEvent(const memtest::Recorded& r, const std::string& name)
{
    ASSERT_FALSE(r.sim.events.empty()) << name;
    ASSERT_EQ(r.timeline->eventCount(), int(r.sim.events.size())) << name;
    for (const Event& e : r.sim.events) {
        auto state = r.timeline->stateAt(e.index);
        ASSERT_TRUE(state.ok()) << name << " event " << e.index << ": " << state.error().toString();
        const std::string diff = memtest::memoryDifference(state->snapshot(), e.memory);
        ASSERT_EQ(diff, "") << name << " event " << e.index << " (" << eventKindName(e.kind) << ")";
    }
}

MemoryState randomState(std::mt19937& rng)
{
    MemoryState s;
    std::uniform_int_distribution<int> small(0, 5);
    const int pools = small(rng);
    for (int p = 0; p < pools; ++p)
        s.pools.insert(PoolId { 0, uint64_t(small(rng)) });
    uint64_t address = 0x1000;
    for (const PoolId& pool : s.pools) {
        const int segments = small(rng);
        for (int i = 0; i < segments; ++i) {
            address += uint64_t(1 + small(rng)) << 21;
            const uint64_t seg = address;
            const int blocks = 1 + small(rng);
            s.segments[seg] = { pool, small(rng) % 2, small(rng) % 2 == 0, uint64_t(blocks) * 512 };
            for (int b = 0; b < blocks; ++b)
                s.blocks[seg + uint64_t(b) * 512] = { seg, 512, uint64_t(small(rng) * 100), small(rng) % 2 == 0,
                    engine::memory::OwnerId(small(rng)) - 1 };
        }
    }
    return s;
}

} // namespace

TEST(MemoryTimeline, EveryEventOfRealScenariosMatchesTheRecordedSnapshot)
{
    for (const std::string& path : memtest::scenarioFiles()) {
        for (int interval : { 1, 3, 256 }) {
            memtest::Recorded r = memtest::record(path, interval);
            checkEveryEvent(r, path + " interval " + std::to_string(interval));
            EXPECT_EQ(r.timeline->keyframes().front().first, 0);
        }
    }
}

TEST(MemoryTimeline, OutOfMemoryRunMatchesToo)
{
    const std::string path = memtest::scenarioFiles().back();
    memtest::Recorded full = memtest::record(path, 3);
    ASSERT_GT(full.sim.peakDeviceReserved, 0u);
    memtest::Recorded r = memtest::record(path, 3, full.sim.peakDeviceReserved * 3 / 4);
    ASSERT_TRUE(r.sim.outOfMemory);
    checkEveryEvent(r, path + " (out of memory)");
}

TEST(MemoryTimeline, KeyframesByVolumeOfChangesAndWherePoolsChange)
{
    memtest::Recorded r = memtest::record(memtest::scenarioFiles().front(), 3);
    const auto& kfs = r.timeline->keyframes();
    ASSERT_FALSE(kfs.empty());
    EXPECT_EQ(kfs.front().first, 0);
    const auto keyframeAt
        = [&](int e) { return std::any_of(kfs.begin(), kfs.end(), [e](const auto& k) { return k.first == e; }); };
    // Between keyframes the changes add up to less than the state's size (and at least 3, the
    // interval): a step is never rebuilt from more changes than a keyframe would hold.
    size_t since = 0;
    auto delta = r.timeline->deltas().begin();
    for (int e = 0; e < r.timeline->eventCount(); ++e) {
        size_t changes = 0;
        for (; delta != r.timeline->deltas().end() && delta->event == e; ++delta)
            changes += delta->segments.size() + delta->blocks.size();
        since += changes;
        if (keyframeAt(e)) {
            since = 0;
            continue;
        }
        auto state = r.timeline->stateAt(e);
        ASSERT_TRUE(state.ok());
        EXPECT_LT(since, std::max<size_t>(3, state->segments.size() + state->blocks.size())) << "event " << e;
    }
    EXPECT_LT(kfs.size(), size_t(r.timeline->eventCount())) << "the rule keeps fewer keyframes than events";
    for (const MemoryDelta& d : r.timeline->deltas()) {
        EXPECT_FALSE(d.empty());
        if (!d.pools.empty()) {
            EXPECT_TRUE(keyframeAt(d.event)) << "pool change at " << d.event << " without a keyframe";
        }
    }
    EXPECT_FALSE(r.timeline->stateAt(-1).ok());
    EXPECT_FALSE(r.timeline->stateAt(r.timeline->eventCount()).ok());
    EXPECT_TRUE(r.timeline->stateAt(r.timeline->eventCount() - 1).ok());
}

TEST(MemoryTimeline, EmptyTimelineHasNoState)
{
    MemoryTimeline t(4);
    EXPECT_FALSE(t.stateAt(0).ok());
    t.observe(0, std::vector<engine::memory::SegmentInfo> {});
    ASSERT_TRUE(t.stateAt(0).ok());
    EXPECT_TRUE(t.stateAt(0)->snapshot().empty());
    EXPECT_TRUE(t.deltas().empty());
}

TEST(MemoryState, EncodeDecodeRoundTrip)
{
    memtest::Recorded r = memtest::record(memtest::scenarioFiles().front(), 8);
    int nonEmpty = 0;
    for (const auto& [event, state] : r.timeline->keyframes()) {
        auto back = MemoryState::decode(state.encode());
        ASSERT_TRUE(back.ok()) << back.error().toString();
        EXPECT_TRUE(*back == state) << "keyframe " << event;
        nonEmpty += !state.blocks.empty();
    }
    EXPECT_GT(nonEmpty, 0);
    std::mt19937 rng(7);
    for (int i = 0; i < 50; ++i) {
        const MemoryState s = randomState(rng);
        auto back = MemoryState::decode(s.encode());
        ASSERT_TRUE(back.ok()) << back.error().toString();
        EXPECT_TRUE(*back == s);
    }
}

TEST(MemoryState, DecodeRejectsTruncatedAndGarbageBytes)
{
    std::mt19937 rng(11);
    MemoryState s;
    while (s.blocks.empty())
        s = randomState(rng);
    const std::string bytes = s.encode();
    for (size_t n = 0; n < bytes.size(); ++n)
        EXPECT_FALSE(MemoryState::decode(std::string_view(bytes).substr(0, n)).ok()) << "prefix of " << n;
    EXPECT_FALSE(MemoryState::decode(bytes + "x").ok());
    EXPECT_FALSE(MemoryState::decode("").ok());
    EXPECT_FALSE(MemoryState::decode("ACGM\x01\xff\xff\xff\xff").ok());
    std::uniform_int_distribution<int> byte(0, 255);
    for (int i = 0; i < 2000; ++i) {
        std::string g = i % 2 ? bytes : std::string("ACGM\x01", 5) + std::string(size_t(byte(rng)), '\0');
        for (int k = 0; k < 4; ++k)
            g[size_t(byte(rng)) % g.size()] = char(byte(rng));
        auto d = MemoryState::decode(g); // must not crash; a valid result must re-encode to the input
        if (d.ok()) {
            EXPECT_EQ(d->encode(), g);
        }
    }
}

TEST(MemoryState, ApplyOfDiffGivesTheSecondState)
{
    std::mt19937 rng(3);
    for (int i = 0; i < 200; ++i) {
        const MemoryState a = randomState(rng);
        const MemoryState b = randomState(rng);
        MemoryState x = a;
        applyMemory(x, diffMemory(a, b, i));
        EXPECT_TRUE(x == b) << i;
        EXPECT_TRUE(diffMemory(b, b, i).empty());
    }
}
