// Expandable segments and PYTORCH_CUDA_ALLOC_CONF in the allocator model (the real allocator's
// answers on a whole scripted run are in snapshot_replay_real_test.cpp).
#include "engine/memory/caching_allocator.h"

#include <gtest/gtest.h>

using namespace engine;
using namespace engine::memory;

namespace {

constexpr uint64_t MiB = 1ull << 20;

AllocatorConfig expandable()
{
    AllocatorConfig c;
    c.profile = Profile::Cuda;
    c.expandableSegments = true;
    return c;
}

/// (size, allocated) of each block of each segment, in address order.
std::vector<std::vector<std::pair<uint64_t, bool>>> layout(const CachingAllocator& a)
{
    std::vector<std::vector<std::pair<uint64_t, bool>>> out;
    for (const SegmentInfo& s : a.segments()) {
        out.emplace_back();
        for (const BlockInfo& b : s.blocks)
            out.back().emplace_back(b.size, b.allocated);
    }
    return out;
}

uint64_t mustAlloc(CachingAllocator& a, uint64_t bytes, StreamId stream = 0)
{
    auto r = a.allocate({}, stream, bytes, 1);
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().toString());
    return r.ok() ? *r : 0;
}

} // namespace

TEST(AllocConf, ReadsTheOptionsTheModelUses)
{
    AllocatorConfig c;
    auto r = applyAllocConf(c,
        "expandable_segments:True, max_split_size_mb:64,garbage_collection_threshold:0.6,"
        "roundup_power2_divisions:[1:4,256:8,>:16],large_segment_size_mb:64",
        "PYTORCH_CUDA_ALLOC_CONF");
    ASSERT_TRUE(r.ok()) << r.error().toString();
    EXPECT_TRUE(c.expandableSegments);
    EXPECT_EQ(c.maxSplitSize, 64 * MiB);
    EXPECT_EQ(c.largeSegmentSize, 64 * MiB);
    ASSERT_EQ(c.roundupPower2Buckets.size(), 16u);
    EXPECT_EQ(c.roundupPower2Buckets[0], 4u); // 1 MiB and below
    EXPECT_EQ(c.roundupPower2Buckets[7], 4u); // 128 MiB: the 1 MiB value holds up to 256
    EXPECT_EQ(c.roundupPower2Buckets[8], 8u);
    EXPECT_EQ(c.roundupPower2Buckets[9], 16u);
    EXPECT_EQ(c.roundupPower2Buckets[15], 16u);
    // 1.1 MiB with 4 divisions rounds up to the next quarter between 1 and 2 MiB.
    c.profile = Profile::Cuda;
    EXPECT_EQ(roundRequest(c, 1153434), 1310720u);

    AllocatorConfig plain;
    ASSERT_TRUE(applyAllocConf(plain, "roundup_power2_divisions:4", "x").ok());
    EXPECT_EQ(plain.roundupPower2Divisions, 4u);
    EXPECT_FALSE(plain.expandableSegments);
}

TEST(AllocConf, ErrorsNameTheSettingAndTheItem)
{
    AllocatorConfig c;
    auto r = applyAllocConf(c, "max_split_size_mb:20,expandable_segments:maybe", "PYTORCH_NPU_ALLOC_CONF");
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().message, "PYTORCH_NPU_ALLOC_CONF: 'expandable_segments:maybe': expected True or False");
    EXPECT_FALSE(applyAllocConf(c, "max_split_size_mb", "x").ok());
    EXPECT_FALSE(applyAllocConf(c, "roundup_power2_divisions:[3:4]", "x").ok()); // 3 is no power of two
}

TEST(ExpandableAllocator, OneGrowingSegmentPerStreamAndKind)
{
    CachingAllocator a(expandable());
    const uint64_t l0 = mustAlloc(a, MiB + 1);
    const uint64_t l1 = mustAlloc(a, 3 * MiB);
    EXPECT_EQ(l1, l0 + MiB + 512); // packed behind it in the same 20 MiB page
    mustAlloc(a, 17 * MiB); // does not fit the page's rest: one more page, the same segment
    ASSERT_EQ(a.segments().size(), 1u);
    EXPECT_EQ(a.segments()[0].totalSize, 40 * MiB);
    EXPECT_TRUE(a.segments()[0].expandable);
    EXPECT_EQ(a.reservedBytes(), 40 * MiB);
    mustAlloc(a, 1000); // the small pool: its own segment, 2 MiB pages
    mustAlloc(a, MiB + 1, 1); // another stream: its own segment
    EXPECT_EQ(a.segments().size(), 3u);
    EXPECT_EQ(a.reservedBytes(), 62 * MiB);
}

TEST(ExpandableAllocator, SplitsKeepAnyRemainderOf512Bytes)
{
    // 19 MiB in a 20 MiB page: the 1 MiB rest is split off (a plain 20 MiB segment keeps it whole).
    CachingAllocator a(expandable());
    mustAlloc(a, 19 * MiB);
    EXPECT_EQ(layout(a), (decltype(layout(a)) { { { 19 * MiB, true }, { MiB, false } } }));

    AllocatorConfig plainConfig = expandable();
    plainConfig.expandableSegments = false;
    CachingAllocator plain(plainConfig);
    mustAlloc(plain, 19 * MiB);
    EXPECT_EQ(layout(plain), (decltype(layout(plain)) { { { 20 * MiB, true } } }));
}

TEST(ExpandableAllocator, EmptyCacheUnmapsWholeFreePagesAndTheHoleIsRefilledFirst)
{
    CachingAllocator a(expandable());
    const uint64_t big = mustAlloc(a, 25 * MiB); // two pages
    mustAlloc(a, 10 * MiB); // behind it, in the second page
    ASSERT_TRUE(a.free(big).ok());
    EXPECT_EQ(a.emptyCache(), 20 * MiB); // the first page is free as a whole; the second is not
    EXPECT_EQ(layout(a), (decltype(layout(a)) { { { 5 * MiB, false }, { 10 * MiB, true }, { 5 * MiB, false } } }));
    EXPECT_EQ(a.reservedBytes(), 20 * MiB);
    // The lowest unmapped range that can hold 18 MiB is the hole: mapped again, it joins the rest.
    EXPECT_EQ(mustAlloc(a, 18 * MiB), big);
    EXPECT_EQ(layout(a),
        (decltype(layout(a)) { { { 18 * MiB, true }, { 7 * MiB, false }, { 10 * MiB, true }, { 5 * MiB, false } } }));
    EXPECT_EQ(a.peakReservedBytes(), 40 * MiB);
}

TEST(ExpandableAllocator, OutOfMemoryWhenThePagesDoNotFit)
{
    AllocatorConfig c = expandable();
    c.capacityBytes = 40 * MiB;
    CachingAllocator a(c);
    mustAlloc(a, 30 * MiB);
    auto r = a.allocate({}, 0, 15 * MiB, 1); // needs a third page
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, ErrorCode::OutOfMemory);
    EXPECT_EQ(a.reservedBytes(), 40 * MiB);
}
