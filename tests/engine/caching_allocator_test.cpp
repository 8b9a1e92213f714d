#include "engine/memory/caching_allocator.h"

#include <gtest/gtest.h>
#include <random>

using namespace engine;
using namespace engine::memory;

namespace {

constexpr uint64_t KiB = 1ull << 10;
constexpr uint64_t MiB = 1ull << 20;
const PoolId kDefault {};
const PoolId kPool1 { 0, 1 };
const PoolId kPool2 { 0, 2 };

AllocatorConfig cfg(Profile p)
{
    AllocatorConfig c;
    c.profile = p;
    return c;
}

/// TorchAir's per-segment line without device/stream/pool.
struct Line {
    int blockNum;
    int activateNum;
    uint64_t totalSize;
    uint64_t allocatedSize;
    bool operator==(const Line& o) const
    {
        return blockNum == o.blockNum && activateNum == o.activateNum && totalSize == o.totalSize
            && allocatedSize == o.allocatedSize;
    }
};

std::ostream& operator<<(std::ostream& os, const Line& l)
{
    return os << "{" << l.blockNum << ", " << l.activateNum << ", " << l.totalSize << ", " << l.allocatedSize << "}";
}

std::vector<Line> lines(const CachingAllocator& a, PoolId pool)
{
    std::vector<Line> out;
    for (const auto& s : a.segments(pool))
        out.push_back({ s.blockNum(), s.activeNum(), s.totalSize, s.allocatedSize });
    return out;
}

uint64_t mustAlloc(CachingAllocator& a, PoolId pool, uint64_t bytes, StreamId stream = 0, OwnerId owner = 1)
{
    auto r = a.allocate(pool, stream, bytes, owner);
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().toString());
    return r.ok() ? *r : 0;
}

void mustFree(CachingAllocator& a, uint64_t address)
{
    auto r = a.free(address);
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().toString());
}

/// Structural invariants every operation must keep: contiguous blocks covering the segment, no two free neighbours,
/// consistent totals.
void checkInvariants(const CachingAllocator& a)
{
    uint64_t reserved = 0, allocated = 0, prevEnd = 0;
    for (const auto& s : a.segments()) {
        EXPECT_GT(s.address, prevEnd); // segments never touch
        EXPECT_EQ(s.address % (2 * MiB), 0u);
        prevEnd = s.address + s.totalSize;
        uint64_t at = s.address, alloc = 0, req = 0;
        bool prevFree = false;
        for (const auto& b : s.blocks) {
            EXPECT_EQ(b.address, at);
            EXPECT_FALSE(prevFree && !b.allocated) << "unmerged free neighbours";
            prevFree = !b.allocated;
            if (b.allocated) {
                alloc += b.size;
                req += b.requested;
            }
            at += b.size;
        }
        EXPECT_EQ(at, s.address + s.totalSize);
        EXPECT_EQ(alloc, s.allocatedSize);
        EXPECT_EQ(req, s.requestedSize);
        reserved += s.totalSize;
        allocated += alloc;
    }
    EXPECT_EQ(reserved, a.reservedBytes());
    EXPECT_EQ(allocated, a.allocatedBytes());
    EXPECT_LE(a.reservedBytes(), a.peakReservedBytes());
}

} // namespace

// ---------------------------------------------------------------------------------------------------------------
// Sizes

TEST(CachingAllocatorTest, RoundSizeNpuAddsPadThenRoundsTo512)
{
    CachingAllocator a(cfg(Profile::Npu));
    EXPECT_EQ(a.roundSize(1), 512u);
    EXPECT_EQ(a.roundSize(8), 512u);
    EXPECT_EQ(a.roundSize(480), 512u);
    EXPECT_EQ(a.roundSize(481), 1024u);
    EXPECT_EQ(a.roundSize(4096), 4608u);
    EXPECT_EQ(a.roundSize(1048544), 1048576u);
    EXPECT_EQ(a.roundSize(1048545), 1049088u);
    EXPECT_EQ(a.roundSize(1048577), 1049088u);
    EXPECT_EQ(a.roundSize(12582912), 12583424u);
}

TEST(CachingAllocatorTest, RoundSizeCudaHasNoPad)
{
    CachingAllocator a(cfg(Profile::Cuda));
    EXPECT_EQ(a.roundSize(1), 512u);
    EXPECT_EQ(a.roundSize(512), 512u);
    EXPECT_EQ(a.roundSize(513), 1024u);
    EXPECT_EQ(a.roundSize(4096), 4096u);
    EXPECT_EQ(a.roundSize(1048576), 1048576u);
    EXPECT_EQ(a.roundSize(1048577), 1049088u);
    EXPECT_EQ(a.roundSize(12582912), 12582912u);
}

TEST(CachingAllocatorTest, PadOverrideReplacesProfilePad)
{
    AllocatorConfig c = cfg(Profile::Npu);
    c.padOverride = 0; // Ascend950 with CANN >= 9.1.0
    CachingAllocator a(c);
    EXPECT_EQ(a.roundSize(4096), 4096u);
}

TEST(CachingAllocatorTest, RoundupPower2Divisions)
{
    AllocatorConfig c = cfg(Profile::Cuda);
    c.roundupPower2Divisions = 4;
    CachingAllocator a(c);
    EXPECT_EQ(a.roundSize(1100000), 1310720u); // 1 MiB + one quarter step
    EXPECT_EQ(a.roundSize(1048576), 1048576u); // exact power of two kept
    EXPECT_EQ(a.roundSize(1310720), 1310720u); // exact step kept
    EXPECT_EQ(a.roundSize(2048), 2048u); // not above 512 * divisions: plain 512 rounding
    EXPECT_EQ(a.roundSize(1500), 1536u);

    c.roundupPower2Divisions = 8;
    CachingAllocator a8(c);
    EXPECT_EQ(a8.roundSize(5000000), 5242880u); // 4 MiB + 2 * 512 KiB

    c.roundupPower2Divisions = 6; // PyTorch uses floor(log2(6)) = 2, i.e. quarters
    CachingAllocator a6(c);
    EXPECT_EQ(a6.roundSize(1100000), 1310720u);

    c.roundupPower2Divisions = 1; // off
    CachingAllocator a1(c);
    EXPECT_EQ(a1.roundSize(1100000), 1100288u);

    AllocatorConfig n = cfg(Profile::Npu);
    n.roundupPower2Divisions = 4;
    CachingAllocator an(n);
    EXPECT_EQ(an.roundSize(1048544), 1048576u); // pad applied before the division rounding
    EXPECT_EQ(an.roundSize(1048545), 1310720u);
}

TEST(CachingAllocatorTest, AllocationSize)
{
    CachingAllocator a;
    EXPECT_EQ(a.allocationSize(512), 2 * MiB);
    EXPECT_EQ(a.allocationSize(MiB), 2 * MiB);
    EXPECT_EQ(a.allocationSize(MiB + 512), 20 * MiB);
    EXPECT_EQ(a.allocationSize(10 * MiB - 512), 20 * MiB);
    EXPECT_EQ(a.allocationSize(10 * MiB), 10 * MiB);
    EXPECT_EQ(a.allocationSize(12583424), 14680064u);
    EXPECT_EQ(a.allocationSize(12582912), 12582912u);

    AllocatorConfig c;
    c.largeSegmentSize = 64 * MiB;
    CachingAllocator b(c);
    EXPECT_EQ(b.allocationSize(5 * MiB), 64 * MiB);
    EXPECT_EQ(b.allocationSize(MiB), 2 * MiB);
    EXPECT_EQ(b.allocationSize(11 * MiB), 12 * MiB);
}

TEST(CachingAllocatorTest, NpuSmallLargeBoundary)
{
    CachingAllocator a(cfg(Profile::Npu));
    mustAlloc(a, kDefault, 1048544);
    mustAlloc(a, kDefault, 1048545);
    auto segs = a.segments();
    ASSERT_EQ(segs.size(), 2u);
    EXPECT_TRUE(segs[0].small);
    EXPECT_EQ(segs[0].totalSize, 2 * MiB);
    EXPECT_EQ(segs[0].blocks[0].size, 1048576u);
    EXPECT_FALSE(segs[1].small);
    EXPECT_EQ(segs[1].totalSize, 20 * MiB);
    EXPECT_EQ(segs[1].blocks[0].size, 1049088u);
}

TEST(CachingAllocatorTest, CudaSmallLargeBoundary)
{
    CachingAllocator a(cfg(Profile::Cuda));
    mustAlloc(a, kDefault, 1048576);
    mustAlloc(a, kDefault, 1048577);
    auto segs = a.segments();
    ASSERT_EQ(segs.size(), 2u);
    EXPECT_TRUE(segs[0].small);
    EXPECT_FALSE(segs[1].small);
}

// ---------------------------------------------------------------------------------------------------------------
// Block pools, best fit, split, merge

TEST(CachingAllocatorTest, SmallAndLargePoolsNeverServeEachOther)
{
    CachingAllocator a(cfg(Profile::Cuda));
    uint64_t small = mustAlloc(a, kDefault, 512);
    mustFree(a, small); // a free 2 MiB small segment
    uint64_t large = mustAlloc(a, kDefault, 1536 * KiB); // would fit in 2 MiB, but is large
    EXPECT_NE(a.blockAt(large)->address, small);
    EXPECT_EQ(a.segments().size(), 2u);
    mustFree(a, large); // a free 20 MiB large segment
    uint64_t small2 = mustAlloc(a, kDefault, 4096);
    EXPECT_EQ(small2, small);
    mustFree(a, small2);
    uint64_t small3 = mustAlloc(a, kDefault, MiB); // the small segment is cached; still no large block used
    EXPECT_EQ(small3, small);
    uint64_t small4 = mustAlloc(a, kDefault, MiB); // small segment has 1 MiB left
    EXPECT_EQ(small4, small + MiB);
    uint64_t small5 = mustAlloc(a, kDefault, 512); // small pool exhausted: new small segment, not the free 20 MiB
    auto seg = a.segments();
    ASSERT_EQ(seg.size(), 3u);
    EXPECT_EQ(seg[2].address, small5);
    EXPECT_TRUE(seg[2].small);
    checkInvariants(a);
}

TEST(CachingAllocatorTest, BestFitSmallestThenLowestAddress)
{
    CachingAllocator a(cfg(Profile::Cuda));
    uint64_t x1 = mustAlloc(a, kDefault, 64 * KiB);
    mustAlloc(a, kDefault, 512);
    uint64_t x2 = mustAlloc(a, kDefault, 32 * KiB);
    mustAlloc(a, kDefault, 512);
    uint64_t x3 = mustAlloc(a, kDefault, 32 * KiB);
    mustAlloc(a, kDefault, 512);
    mustFree(a, x3);
    mustFree(a, x1);
    mustFree(a, x2);
    // Free holes: 64 KiB @x1, 32 KiB @x2, 32 KiB @x3, and the segment's tail.
    EXPECT_EQ(mustAlloc(a, kDefault, 16 * KiB), x2); // smallest fit, tie to the lowest address
    EXPECT_EQ(mustAlloc(a, kDefault, 32 * KiB), x3); // x2's remainder (16 KiB) is too small
    EXPECT_EQ(mustAlloc(a, kDefault, 40 * KiB), x1);
    EXPECT_EQ(mustAlloc(a, kDefault, 16 * KiB), x2 + 16 * KiB);
    checkInvariants(a);
}

TEST(CachingAllocatorTest, StreamsNeverShareBlocks)
{
    CachingAllocator a(cfg(Profile::Npu));
    uint64_t s1 = mustAlloc(a, kDefault, 4096, /*stream*/ 1);
    mustFree(a, s1);
    uint64_t s2 = mustAlloc(a, kDefault, 4096, /*stream*/ 2);
    EXPECT_NE(s2, s1);
    auto segs = a.segments();
    ASSERT_EQ(segs.size(), 2u);
    EXPECT_EQ(segs[0].stream, 1);
    EXPECT_EQ(segs[1].stream, 2);
    EXPECT_EQ(mustAlloc(a, kDefault, 4096, 1), s1);
    EXPECT_EQ(a.segments().size(), 2u);
}

TEST(CachingAllocatorTest, PoolsNeverShareBlocks)
{
    CachingAllocator a(cfg(Profile::Npu));
    a.increfPool(kPool1);
    uint64_t d = mustAlloc(a, kDefault, 4096);
    mustFree(a, d);
    uint64_t p = mustAlloc(a, kPool1, 4096);
    EXPECT_NE(p, d);
    EXPECT_EQ(a.segments(kDefault).size(), 1u);
    EXPECT_EQ(a.segments(kPool1).size(), 1u);
    EXPECT_EQ(a.segments(kPool1)[0].pool, kPool1);
}

TEST(CachingAllocatorTest, SmallSplitNeedsRemainderOf512)
{
    CachingAllocator b(cfg(Profile::Cuda));
    mustAlloc(b, kDefault, MiB);
    mustAlloc(b, kDefault, MiB - 512); // remainder exactly 512: split
    EXPECT_EQ(lines(b, kDefault), (std::vector<Line> { { 3, 2, 2 * MiB, 2 * MiB - 512 } }));
    mustAlloc(b, kDefault, 512); // remainder 0: exactly the last block
    EXPECT_EQ(lines(b, kDefault), (std::vector<Line> { { 3, 3, 2 * MiB, 2 * MiB } }));
}

TEST(CachingAllocatorTest, LargeSplitNeedsRemainderAboveOneMiB)
{
    CachingAllocator a(cfg(Profile::Cuda));
    mustAlloc(a, kDefault, 19 * MiB); // 20 MiB segment, remainder exactly 1 MiB: whole block handed out
    EXPECT_EQ(lines(a, kDefault), (std::vector<Line> { { 1, 1, 20 * MiB, 20 * MiB } }));
    EXPECT_EQ(a.segments()[0].requestedSize, 19 * MiB);
    EXPECT_EQ(a.allocatedBytes(), 20 * MiB);

    CachingAllocator b(cfg(Profile::Cuda));
    mustAlloc(b, kDefault, 19 * MiB - 512); // remainder 1 MiB + 512: split
    EXPECT_EQ(lines(b, kDefault), (std::vector<Line> { { 2, 1, 20 * MiB, 19 * MiB - 512 } }));
}

TEST(CachingAllocatorTest, MaxSplitSizeRules)
{
    AllocatorConfig c = cfg(Profile::Cuda);
    c.maxSplitSize = 8 * MiB;
    CachingAllocator a(c);
    uint64_t big = mustAlloc(a, kDefault, 12 * MiB);
    mustFree(a, big);
    // n < max_split_size refuses a cached block >= max_split_size.
    uint64_t mid = mustAlloc(a, kDefault, 2 * MiB);
    EXPECT_NE(mid, big);
    EXPECT_EQ(a.segments().size(), 2u);
    // n >= max_split_size takes a block < n + 20 MiB and never splits it.
    uint64_t ten = mustAlloc(a, kDefault, 10 * MiB);
    EXPECT_EQ(ten, big);
    EXPECT_EQ(a.blockAt(ten)->size, 12 * MiB);
    mustFree(a, ten);

    c.maxNonSplitRoundingSize = MiB;
    CachingAllocator b(c);
    uint64_t b12 = mustAlloc(b, kDefault, 12 * MiB);
    mustFree(b, b12);
    uint64_t b10 = mustAlloc(b, kDefault, 10 * MiB); // 12 MiB >= 10 + 1 MiB: refused
    EXPECT_NE(b10, b12);
    EXPECT_EQ(b.blockAt(b10)->size, 10 * MiB);
    uint64_t b11 = mustAlloc(b, kDefault, 11 * MiB + 512); // 12 MiB < 11 MiB + 512 + 1 MiB: taken whole
    EXPECT_EQ(b11, b12);
    EXPECT_EQ(b.blockAt(b11)->size, 12 * MiB);
}

TEST(CachingAllocatorTest, FreeMergesWithBothNeighbours)
{
    CachingAllocator a(cfg(Profile::Npu));
    uint64_t x = mustAlloc(a, kDefault, 1000);
    uint64_t y = mustAlloc(a, kDefault, 1000);
    uint64_t z = mustAlloc(a, kDefault, 1000);
    EXPECT_EQ(lines(a, kDefault), (std::vector<Line> { { 4, 3, 2 * MiB, 3 * 1536 } }));
    mustFree(a, x);
    EXPECT_EQ(a.segments()[0].blockNum(), 4);
    mustFree(a, z); // merges with the tail
    EXPECT_EQ(a.segments()[0].blockNum(), 3);
    mustFree(a, y); // merges with both
    EXPECT_EQ(lines(a, kDefault), (std::vector<Line> { { 1, 0, 2 * MiB, 0 } }));
    EXPECT_EQ(a.reservedBytes(), 2 * MiB); // nothing goes back to the device on free
    checkInvariants(a);
}

TEST(CachingAllocatorTest, FreeAndSetOwnerErrors)
{
    CachingAllocator a;
    uint64_t x = mustAlloc(a, kDefault, 4096, 0, 7);
    EXPECT_FALSE(a.free(x + 512).ok()); // inside a block
    EXPECT_FALSE(a.free(0x1234).ok()); // nowhere
    EXPECT_EQ(a.blockAt(x)->owner, 7);
    EXPECT_TRUE(a.setOwner(x, 9).ok());
    EXPECT_EQ(a.blockAt(x)->owner, 9);
    EXPECT_EQ(a.blockAt(x)->requested, 4096u);
    mustFree(a, x);
    auto again = a.free(x);
    ASSERT_FALSE(again.ok());
    EXPECT_EQ(again.error().code, ErrorCode::NotFound);
    EXPECT_FALSE(a.setOwner(x, 1).ok());
    EXPECT_FALSE(a.allocate(kDefault, 0, 0, 1).ok());
}

TEST(CachingAllocatorTest, BlockAtFindsContainingBlock)
{
    CachingAllocator a(cfg(Profile::Cuda));
    uint64_t x = mustAlloc(a, kDefault, 4096);
    auto inside = a.blockAt(x + 100);
    ASSERT_TRUE(inside);
    EXPECT_EQ(inside->address, x);
    EXPECT_TRUE(inside->allocated);
    auto tail = a.blockAt(x + 4096 + 10);
    ASSERT_TRUE(tail);
    EXPECT_EQ(tail->address, x + 4096);
    EXPECT_FALSE(tail->allocated);
    EXPECT_FALSE(a.blockAt(x + 2 * MiB)); // just past the segment
    EXPECT_FALSE(a.blockAt(x - 1));
}

TEST(CachingAllocatorTest, SegmentAddressesAlignedIncreasingNeverReused)
{
    CachingAllocator a(cfg(Profile::Cuda));
    uint64_t s1 = mustAlloc(a, kDefault, 512);
    uint64_t s2 = mustAlloc(a, kDefault, 3 * MiB);
    uint64_t s3 = mustAlloc(a, kDefault, 11 * MiB, /*stream*/ 1); // another stream: s2's remainder is not usable
    EXPECT_EQ(s1 % (2 * MiB), 0u);
    EXPECT_GE(s2, s1 + 2 * MiB + 1);
    EXPECT_GT(s3, s2 + 20 * MiB);
    mustFree(a, s1);
    mustFree(a, s2);
    mustFree(a, s3);
    EXPECT_EQ(a.emptyCache(), 2 * MiB + 20 * MiB + 12 * MiB);
    uint64_t s4 = mustAlloc(a, kDefault, 512);
    EXPECT_GT(s4, s3 + 12 * MiB);
    checkInvariants(a);
}

// ---------------------------------------------------------------------------------------------------------------
// Worked example (reference §5), in a fresh private pool

namespace {

struct Example {
    uint64_t a = 8, b = 4096, c = 1048577, d = 12582912;
};

CachingAllocator& capture(CachingAllocator& al)
{
    al.increfPool(kPool1);
    return al;
}

} // namespace

TEST(CachingAllocatorTest, WorkedExampleScenarioA)
{
    Example e;
    for (Profile p : { Profile::Npu, Profile::Cuda }) {
        CachingAllocator al(cfg(p));
        capture(al);
        mustAlloc(al, kPool1, e.a);
        uint64_t b = mustAlloc(al, kPool1, e.b);
        mustAlloc(al, kPool1, e.c);
        mustFree(al, b);
        mustAlloc(al, kPool1, e.d);
        auto l = lines(al, kPool1);
        if (p == Profile::Npu) {
            EXPECT_EQ(l, (std::vector<Line> { { 2, 1, 2097152, 512 }, { 3, 2, 20971520, 13632512 } }));
            EXPECT_EQ(al.segments(kPool1)[1].blocks[2].size, 7339008u);
        } else {
            EXPECT_EQ(l, (std::vector<Line> { { 2, 1, 2097152, 512 }, { 3, 2, 20971520, 13632000 } }));
            EXPECT_EQ(al.segments(kPool1)[1].blocks[2].size, 7339520u);
        }
        EXPECT_TRUE(al.segments(kDefault).empty());
        checkInvariants(al);
    }
}

TEST(CachingAllocatorTest, WorkedExampleScenarioB)
{
    Example e;
    for (Profile p : { Profile::Npu, Profile::Cuda }) {
        CachingAllocator al(cfg(p));
        capture(al);
        mustAlloc(al, kPool1, e.a);
        mustAlloc(al, kPool1, e.b);
        uint64_t c = mustAlloc(al, kPool1, e.c);
        mustFree(al, c);
        mustAlloc(al, kPool1, e.d);
        auto l = lines(al, kPool1);
        if (p == Profile::Npu) {
            EXPECT_EQ(l, (std::vector<Line> { { 3, 2, 2097152, 5120 }, { 2, 1, 20971520, 12583424 } }));
            EXPECT_EQ(al.segments(kPool1)[1].blocks[1].size, 8388096u);
        } else {
            EXPECT_EQ(l, (std::vector<Line> { { 3, 2, 2097152, 4608 }, { 2, 1, 20971520, 12582912 } }));
            EXPECT_EQ(al.segments(kPool1)[1].blocks[1].size, 8388608u);
        }
        checkInvariants(al);
    }
}

TEST(CachingAllocatorTest, WorkedExampleScenarioC)
{
    Example e;
    for (Profile p : { Profile::Npu, Profile::Cuda }) {
        CachingAllocator al(cfg(p));
        capture(al);
        mustAlloc(al, kPool1, e.a);
        uint64_t b = mustAlloc(al, kPool1, e.b);
        mustFree(al, b);
        mustAlloc(al, kPool1, e.d);
        mustAlloc(al, kPool1, e.c);
        auto l = lines(al, kPool1);
        if (p == Profile::Npu)
            EXPECT_EQ(l, (std::vector<Line> { { 2, 1, 2097152, 512 }, { 2, 2, 14680064, 14680064 } }));
        else
            EXPECT_EQ(l,
                (std::vector<Line> {
                    { 2, 1, 2097152, 512 }, { 1, 1, 12582912, 12582912 }, { 2, 1, 20971520, 1049088 } }));
        checkInvariants(al);
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Checkpoint and rollback (reference §3)

TEST(CachingAllocatorTest, CheckpointRecordsSegmentsInAddressOrder)
{
    CachingAllocator al(cfg(Profile::Npu));
    capture(al);
    EXPECT_TRUE(al.checkpoint(kPool1).segments.empty());
    uint64_t x = mustAlloc(al, kPool1, 8);
    uint64_t y = mustAlloc(al, kPool1, 1048577);
    PoolCheckpoint cp = al.checkpoint(kPool1);
    EXPECT_EQ(cp.pool, kPool1);
    ASSERT_EQ(cp.segments.size(), 2u);
    EXPECT_EQ(cp.segments[0].address, x);
    EXPECT_TRUE(cp.segments[0].small);
    EXPECT_EQ(
        cp.segments[0].blocks, (std::vector<std::pair<uint64_t, bool>> { { 512, true }, { 2097152 - 512, false } }));
    EXPECT_EQ(cp.segments[1].address, y);
    EXPECT_FALSE(cp.segments[1].small);
    EXPECT_EQ(cp.segments[1].blocks,
        (std::vector<std::pair<uint64_t, bool>> { { 1049088, true }, { 20971520 - 1049088, false } }));
    EXPECT_TRUE(al.checkpoint(kPool2).segments.empty());
}

TEST(CachingAllocatorTest, RollbackToEmptyCheckpoint)
{
    Example e;
    CachingAllocator al(cfg(Profile::Npu));
    capture(al);
    PoolCheckpoint original = al.checkpoint(kPool1);
    // Scenario C, plus a block on the default pool that the rollback must not touch.
    uint64_t keep = mustAlloc(al, kDefault, 4096);
    uint64_t a = mustAlloc(al, kPool1, e.a);
    uint64_t b = mustAlloc(al, kPool1, e.b);
    mustFree(al, b);
    uint64_t d = mustAlloc(al, kPool1, e.d);
    uint64_t c = mustAlloc(al, kPool1, e.c);
    uint64_t reserved = al.reservedBytes();

    auto r = al.restore(original);
    ASSERT_TRUE(r.ok()) << r.error().toString();
    EXPECT_EQ(lines(al, kPool1), (std::vector<Line> { { 1, 0, 2097152, 0 }, { 1, 0, 14680064, 0 } }));
    EXPECT_EQ(r->freed, (std::vector<uint64_t> { a, d, c }));
    EXPECT_TRUE(r->created.empty());
    EXPECT_EQ(al.reservedBytes(), reserved);
    EXPECT_EQ(al.allocatedBytes(), 4608u);
    EXPECT_TRUE(al.blockAt(keep)->allocated);
    EXPECT_EQ(al.totals(kPool1).activeBlocks, 0);
    checkInvariants(al);
    // The freed memory serves the next capture.
    EXPECT_EQ(mustAlloc(al, kPool1, e.d), d);
}

TEST(CachingAllocatorTest, RollbackToPostCaptureCheckpoint)
{
    Example e;
    CachingAllocator al(cfg(Profile::Npu));
    capture(al);
    uint64_t a = mustAlloc(al, kPool1, e.a, 0, 10);
    uint64_t b = mustAlloc(al, kPool1, e.b, 0, 11);
    uint64_t c = mustAlloc(al, kPool1, e.c, 0, 12);
    mustFree(al, b);
    uint64_t d = mustAlloc(al, kPool1, e.d, 0, 13); // Scenario A
    PoolCheckpoint after = al.checkpoint(kPool1);
    auto expected = lines(al, kPool1);

    // Another capture reshapes the pool and adds a segment.
    mustFree(al, a);
    mustFree(al, c);
    uint64_t x = mustAlloc(al, kPool1, 3 * MiB, 0, 20);
    uint64_t y = mustAlloc(al, kPool1, 40 * MiB, 0, 21);
    uint64_t z = mustAlloc(al, kPool1, 100, 0, 22);
    ASSERT_EQ(al.segments(kPool1).size(), 3u);

    auto r = al.restore(after);
    ASSERT_TRUE(r.ok()) << r.error().toString();
    auto now = lines(al, kPool1);
    ASSERT_EQ(now.size(), 3u);
    EXPECT_EQ(std::vector<Line>(now.begin(), now.begin() + 2), expected);
    EXPECT_EQ(now[2], (Line { 1, 0, 42 * MiB, 0 })); // the newer segment stays, fully free
    EXPECT_EQ(r->created, (std::vector<uint64_t> { a, c, d }));
    // z reused a's address and d was live throughout: both come back allocated, so only x (inside a recorded
    // segment, at an address that is now free) and y (newer segment) count as freed.
    EXPECT_EQ(z, a);
    EXPECT_EQ(r->freed, (std::vector<uint64_t> { x, y }));

    auto pool = al.segments(kPool1);
    for (const auto& s : pool)
        for (const auto& blk : s.blocks)
            if (blk.allocated) {
                EXPECT_EQ(blk.owner, kNoOwner);
                EXPECT_EQ(blk.requested, blk.size);
            }
    EXPECT_EQ(pool[0].requestedSize, 512u);
    EXPECT_EQ(al.checkpoint(kPool1).segments[0].blocks, after.segments[0].blocks);
    EXPECT_EQ(al.checkpoint(kPool1).segments[1].blocks, after.segments[1].blocks);
    checkInvariants(al);

    // Ownerless blocks can be claimed and freed like any other.
    EXPECT_TRUE(al.setOwner(c, 5).ok());
    mustFree(al, c);
    mustFree(al, a);
    mustFree(al, d);
    EXPECT_EQ(al.totals(kPool1).activeBlocks, 0);
}

TEST(CachingAllocatorTest, RollbackCoalescesAdjacentFreeRecordedBlocks)
{
    CachingAllocator al(cfg(Profile::Cuda));
    capture(al);
    uint64_t s = mustAlloc(al, kPool1, 4096);
    PoolCheckpoint cp;
    cp.pool = kPool1;
    cp.segments.push_back(
        { s, true, { { 4096, false }, { 4096, false }, { 4096, true }, { 2 * MiB - 3 * 4096, false } } });
    auto r = al.restore(cp);
    ASSERT_TRUE(r.ok()) << r.error().toString();
    EXPECT_EQ(lines(al, kPool1), (std::vector<Line> { { 3, 1, 2 * MiB, 4096 } }));
    EXPECT_EQ(r->created, (std::vector<uint64_t> { s + 8192 }));
    EXPECT_EQ(r->freed, (std::vector<uint64_t> { s }));
    checkInvariants(al);
}

TEST(CachingAllocatorTest, RestoreFailsWhenSegmentVanished)
{
    CachingAllocator al(cfg(Profile::Npu));
    capture(al);
    uint64_t x = mustAlloc(al, kPool1, 8);
    PoolCheckpoint cp = al.checkpoint(kPool1);
    mustFree(al, x);
    al.releasePool(kPool1);
    EXPECT_EQ(al.emptyCache(), 2 * MiB);
    capture(al);
    uint64_t y = mustAlloc(al, kPool1, 8); // a new segment at a new address
    EXPECT_NE(y, x);

    auto r = al.restore(cp);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, ErrorCode::Internal);
    char want[64];
    std::snprintf(want, sizeof want, "could not find 0x%llx", static_cast<unsigned long long>(x));
    EXPECT_NE(r.error().message.find(want), std::string::npos) << r.error().message;
    // Nothing changed.
    EXPECT_TRUE(al.blockAt(y)->allocated);
    EXPECT_EQ(al.totals(kPool1).activeBlocks, 1);
}

TEST(CachingAllocatorTest, RestoreRejectsInconsistentCheckpoint)
{
    CachingAllocator al(cfg(Profile::Cuda));
    capture(al);
    al.increfPool(kPool2);
    uint64_t x = mustAlloc(al, kPool1, 4096);
    uint64_t other = mustAlloc(al, kPool2, 4096);
    PoolCheckpoint cp = al.checkpoint(kPool1);
    cp.segments[0].blocks.back().first -= 512; // no longer sums to the segment size
    EXPECT_FALSE(al.restore(cp).ok());
    PoolCheckpoint wrongPool = al.checkpoint(kPool2);
    wrongPool.pool = kPool1;
    EXPECT_FALSE(al.restore(wrongPool).ok());
    EXPECT_TRUE(al.blockAt(x)->allocated);
    EXPECT_TRUE(al.blockAt(other)->allocated);
}

// ---------------------------------------------------------------------------------------------------------------
// Private pools, emptyCache

TEST(CachingAllocatorTest, PoolUseCounts)
{
    CachingAllocator al;
    EXPECT_EQ(al.poolUseCount(kPool1), 0);
    EXPECT_TRUE(al.pools().empty());
    al.increfPool(kPool1);
    al.increfPool(kPool1);
    EXPECT_EQ(al.poolUseCount(kPool1), 2);
    EXPECT_EQ(al.pools(), (std::vector<PoolId> { kPool1 }));
    al.releasePool(kPool1);
    EXPECT_EQ(al.poolUseCount(kPool1), 1);
    al.releasePool(kPool1);
    EXPECT_EQ(al.poolUseCount(kPool1), 0);
    al.releasePool(kPool1); // no underflow
    EXPECT_EQ(al.poolUseCount(kPool1), 0);
    EXPECT_TRUE(al.pools().empty());
    mustAlloc(al, kDefault, 8);
    EXPECT_EQ(al.pools(), (std::vector<PoolId> { kDefault }));
    EXPECT_EQ(kPool1.str(), "(0, 1)");
    EXPECT_STREQ(profileName(Profile::Npu), "npu");
    EXPECT_STREQ(profileName(Profile::Cuda), "cuda");
}

TEST(CachingAllocatorTest, AllocatingIntoPoolNotInUseIsAnError)
{
    CachingAllocator al;
    auto never = al.allocate(kPool1, 0, 8, 1);
    ASSERT_FALSE(never.ok());
    EXPECT_EQ(never.error().code, ErrorCode::Internal);
    al.increfPool(kPool1);
    EXPECT_TRUE(al.allocate(kPool1, 0, 8, 1).ok());
    al.releasePool(kPool1);
    EXPECT_FALSE(al.allocate(kPool1, 0, 8, 1).ok()); // freeable
    al.increfPool(kPool1); // revived
    EXPECT_EQ(al.poolUseCount(kPool1), 1);
    EXPECT_TRUE(al.allocate(kPool1, 0, 8, 1).ok());
}

TEST(CachingAllocatorTest, EmptyCacheReleasesOnlyDefaultAndFreeablePools)
{
    CachingAllocator al(cfg(Profile::Npu));
    al.increfPool(kPool1);
    al.increfPool(kPool2);
    uint64_t dFree = mustAlloc(al, kDefault, 8);
    uint64_t dLive = mustAlloc(al, kDefault, 2 * MiB); // large segment with a live block
    mustAlloc(al, kDefault, 100, /*stream*/ 3); // small segment, split and live
    mustFree(al, dFree);
    uint64_t p1 = mustAlloc(al, kPool1, 8);
    mustFree(al, p1); // cached free segment of a pool in use
    uint64_t p2Free = mustAlloc(al, kPool2, 8);
    uint64_t p2Live = mustAlloc(al, kPool2, 3 * MiB);
    mustFree(al, p2Free);
    al.releasePool(kPool2); // freeable
    uint64_t before = al.reservedBytes();

    EXPECT_EQ(al.emptyCache(), 2 * MiB + 2 * MiB); // default's free small segment, pool2's free small segment
    EXPECT_EQ(al.reservedBytes(), before - 4 * MiB);
    EXPECT_FALSE(al.blockAt(dFree));
    EXPECT_TRUE(al.blockAt(dLive)->allocated);
    EXPECT_EQ(lines(al, kPool1), (std::vector<Line> { { 1, 0, 2 * MiB, 0 } })); // in use: untouched
    EXPECT_EQ(lines(al, kPool2), (std::vector<Line> { { 2, 1, 20 * MiB, 3 * MiB + 512 } }));
    EXPECT_EQ(al.pools(), (std::vector<PoolId> { kDefault, kPool1, kPool2 }));

    mustFree(al, p2Live);
    EXPECT_EQ(al.emptyCache(), 20 * MiB);
    EXPECT_EQ(al.pools(), (std::vector<PoolId> { kDefault, kPool1 }));
    EXPECT_TRUE(al.segments(kPool2).empty());

    al.releasePool(kPool1);
    EXPECT_EQ(al.emptyCache(), 2 * MiB);
    EXPECT_EQ(al.pools(), (std::vector<PoolId> { kDefault }));
    EXPECT_EQ(al.emptyCache(), 0u);
    checkInvariants(al);
}

TEST(CachingAllocatorTest, TotalsPerPool)
{
    CachingAllocator al(cfg(Profile::Cuda));
    capture(al);
    mustAlloc(al, kPool1, 4096);
    mustAlloc(al, kPool1, 2 * MiB);
    mustAlloc(al, kDefault, 4096);
    PoolTotals t = al.totals(kPool1);
    EXPECT_EQ(t.reserved, 22 * MiB);
    EXPECT_EQ(t.allocated, 2 * MiB + 4096);
    EXPECT_EQ(t.segments, 2);
    EXPECT_EQ(t.blocks, 4);
    EXPECT_EQ(t.activeBlocks, 2);
    EXPECT_EQ(al.totals(kPool2).segments, 0);
    EXPECT_EQ(al.reservedBytes(), 24 * MiB);
    EXPECT_EQ(al.allocatedBytes(), 2 * MiB + 8192);
}

// ---------------------------------------------------------------------------------------------------------------
// Capacity and peak

TEST(CachingAllocatorTest, OutOfMemoryMessage)
{
    AllocatorConfig c = cfg(Profile::Npu);
    c.capacityBytes = 30 * MiB;
    CachingAllocator al(c);
    mustAlloc(al, kDefault, 12 * MiB); // 12 MiB + pad: 14 MiB segment
    mustAlloc(al, kDefault, 4096); // 2 MiB segment
    auto r = al.allocate(kDefault, 0, 3 * MiB, 1); // the 14 MiB segment's 2 MiB tail is too small: new 20 MiB
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, ErrorCode::OutOfMemory);
    EXPECT_EQ(r.error().message,
        "NPU out of memory. Tried to allocate 20.00 MiB (NPU 0; 30.00 MiB total capacity; 12.00 MiB already "
        "allocated; 14.00 MiB free; 16.00 MiB reserved in total by PyTorch)");
    EXPECT_EQ(al.reservedBytes(), 16 * MiB);
    checkInvariants(al);

    c.profile = Profile::Cuda;
    c.capacityBytes = 64ull << 30;
    CachingAllocator cu(c);
    auto huge = cu.allocate(kDefault, 0, 65ull << 30, 1);
    ASSERT_FALSE(huge.ok());
    EXPECT_EQ(huge.error().message,
        "CUDA out of memory. Tried to allocate 65.00 GiB (GPU 0; 64.00 GiB total capacity; 0 bytes already "
        "allocated; 64.00 GiB free; 0 bytes reserved in total by PyTorch)");
    EXPECT_EQ(cu.allocate(kDefault, 0, UINT64_MAX, 1).error().code, ErrorCode::OutOfMemory);
}

TEST(CachingAllocatorTest, OutOfMemoryReleasesCachedSegmentsAndRetries)
{
    AllocatorConfig c = cfg(Profile::Cuda);
    c.capacityBytes = 24 * MiB;
    CachingAllocator al(c);
    al.increfPool(kPool1);
    al.increfPool(kPool2);
    uint64_t small = mustAlloc(al, kDefault, 512);
    mustFree(al, small); // default pool, cached
    uint64_t mine = mustAlloc(al, kPool1, 512);
    mustFree(al, mine); // private pool in use, cached: must survive
    uint64_t gone = mustAlloc(al, kPool2, 512);
    mustFree(al, gone);
    al.releasePool(kPool2); // freeable, cached
    EXPECT_EQ(al.reservedBytes(), 6 * MiB);
    uint64_t big = mustAlloc(al, kDefault, 2 * MiB); // 20 MiB segment: 26 > 24, fits after releasing 4 MiB
    EXPECT_NE(big, 0u);
    EXPECT_EQ(al.reservedBytes(), 22 * MiB);
    EXPECT_FALSE(al.blockAt(small));
    EXPECT_FALSE(al.blockAt(gone));
    EXPECT_TRUE(al.blockAt(mine));
    EXPECT_EQ(al.pools(), (std::vector<PoolId> { kDefault, kPool1 }));
    // Still no room for a second 20 MiB segment: the in-use pool's free segment is not given up.
    auto r = al.allocate(kDefault, 1, 2 * MiB, 1);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, ErrorCode::OutOfMemory);
    EXPECT_TRUE(al.blockAt(mine));
}

TEST(CachingAllocatorTest, PeakReserved)
{
    CachingAllocator al(cfg(Profile::Cuda));
    uint64_t x = mustAlloc(al, kDefault, 11 * MiB); // 12 MiB
    uint64_t y = mustAlloc(al, kDefault, 512); // 2 MiB
    EXPECT_EQ(al.peakReservedBytes(), 14 * MiB);
    mustFree(al, x);
    mustFree(al, y);
    al.emptyCache();
    EXPECT_EQ(al.reservedBytes(), 0u);
    EXPECT_EQ(al.peakReservedBytes(), 14 * MiB);
    mustAlloc(al, kDefault, 512);
    EXPECT_EQ(al.peakReservedBytes(), 14 * MiB);
    al.resetPeak();
    EXPECT_EQ(al.peakReservedBytes(), 2 * MiB);
    mustAlloc(al, kDefault, 3 * MiB);
    EXPECT_EQ(al.peakReservedBytes(), 22 * MiB);
}

// ---------------------------------------------------------------------------------------------------------------
// Randomised consistency (and a smoke test of O(log n) behaviour)

TEST(CachingAllocatorTest, RandomOperationsKeepInvariants)
{
    std::mt19937_64 rng(12345);
    CachingAllocator al(cfg(Profile::Npu));
    al.increfPool(kPool1);
    std::vector<uint64_t> live;
    PoolCheckpoint cp = al.checkpoint(kPool1);
    const uint64_t sizes[] = { 8, 512, 4096, 100000, 1048544, 1048545, 3 * MiB, 12 * MiB, 30 * MiB };
    for (int i = 0; i < 60000; ++i) {
        unsigned op = rng() % 100;
        if (live.size() > 300 && op < 50)
            op += 50; // keep the live set bounded so the device never fills
        if (op < 50 || live.empty()) {
            PoolId pool = rng() % 2 ? kPool1 : kDefault;
            uint64_t bytes = sizes[rng() % 9] + rng() % 2048;
            auto r = al.allocate(pool, StreamId(rng() % 2), bytes, i);
            ASSERT_TRUE(r.ok()) << r.error().toString();
            live.push_back(*r);
        } else if (op < 97) {
            size_t k = rng() % live.size();
            ASSERT_TRUE(al.free(live[k]).ok());
            live[k] = live.back();
            live.pop_back();
        } else if (op < 99) {
            auto r = al.restore(cp);
            ASSERT_TRUE(r.ok()) << r.error().toString();
            std::set<uint64_t> freed(r->freed.begin(), r->freed.end());
            live.erase(
                std::remove_if(live.begin(), live.end(), [&](uint64_t a) { return freed.count(a); }), live.end());
            for (uint64_t a : r->created)
                if (std::find(live.begin(), live.end(), a) == live.end())
                    live.push_back(a);
            cp = al.checkpoint(kPool1);
        } else {
            al.emptyCache();
        }
        if (i % 5000 == 0)
            checkInvariants(al);
    }
    checkInvariants(al);
    for (uint64_t a : live)
        ASSERT_TRUE(al.free(a).ok());
    EXPECT_EQ(al.allocatedBytes(), 0u);
    for (const auto& s : al.segments())
        EXPECT_EQ(s.blockNum(), 1);
}
