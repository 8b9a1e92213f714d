#include "engine/memory/caching_allocator.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <sstream>
#include <tuple>

namespace engine::memory {

namespace {

constexpr uint64_t kMinBlockSize = 512;
constexpr uint64_t kSmallSize = 1ull << 20;
constexpr uint64_t kSmallBuffer = 2ull << 20;
constexpr uint64_t kMinLargeAlloc = 10ull << 20;
constexpr uint64_t kRoundLarge = 2ull << 20;
// Simulated device addresses: an arbitrary but realistic-looking base; segments are 2 MiB aligned and separated by
// at least one 2 MiB hole so that no two segments ever touch (a block can never be mistaken for a neighbour across
// segments) and no address is ever handed out twice.
constexpr uint64_t kAddressBase = 0x12c000000000ull;
// Each device's range: larger than any device's capacity times the expandable reservations it can make.
constexpr uint64_t kDeviceAddressSpan = 1ull << 44;
constexpr uint64_t kSegmentAlign = 2ull << 20;
// Requests this large cannot be rounded without overflow and can never fit any plausible device.
constexpr uint64_t kMaxRequest = 1ull << 60;

uint64_t roundUp(uint64_t v, uint64_t m)
{
    return (v + m - 1) / m * m;
}

uint64_t floorLog2(uint64_t v)
{
    uint64_t r = 0;
    while (v >>= 1)
        ++r;
    return r;
}

// PyTorch's roundup_power2_next_division, including its use of floor(log2(divisions)) for a count that is not a
// power of two.
uint64_t roundupPower2NextDivision(uint64_t size, uint64_t divisions)
{
    if ((size & (size - 1)) == 0)
        return size;
    uint64_t power2Floor = 1ull << floorLog2(size);
    uint64_t step = power2Floor >> floorLog2(divisions);
    if (!step)
        return power2Floor << 1;
    uint64_t floorSize = size & ~(step - 1);
    return floorSize == size ? size : floorSize + step;
}

// c10's format_size, so OOM messages read like PyTorch's.
std::string formatSize(uint64_t size)
{
    std::ostringstream os;
    os.precision(2);
    os << std::fixed;
    if (size <= 1024)
        os << size << " bytes";
    else if (size <= 1048576)
        os << double(size) / 1024.0 << " KiB";
    else if (size <= 1073741824ull)
        os << double(size) / 1048576.0 << " MiB";
    else
        os << double(size) / 1073741824.0 << " GiB";
    return os.str();
}

std::string hexAddress(uint64_t address)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "0x%" PRIx64, address);
    return buf;
}

} // namespace

uint64_t roundRequest(const AllocatorConfig& config, uint64_t request)
{
    uint64_t s = request + config.pad();
    if (s < kMinBlockSize)
        return kMinBlockSize;
    uint64_t divisions = config.roundupPower2Divisions;
    if (!config.roundupPower2Buckets.empty()) {
        // roundup_power2_divisions(size): the bucket is floor(log2(size)) - 20, clamped to the list.
        uint64_t log = floorLog2(s);
        size_t bucket = log > 20 ? size_t(log - 20) : 0;
        divisions = config.roundupPower2Buckets[std::min(bucket, config.roundupPower2Buckets.size() - 1)];
    }
    if (divisions > 1 && s > kMinBlockSize * divisions)
        return roundupPower2NextDivision(s, divisions);
    return roundUp(s, kMinBlockSize);
}

bool shouldSplit(const AllocatorConfig& config, bool smallPool, uint64_t rounded, uint64_t remaining)
{
    if (smallPool || config.expandableSegments)
        return remaining >= kMinBlockSize;
    return rounded < config.maxSplitSize && remaining > kSmallSize;
}

namespace {

bool parseCount(const std::string& v, uint64_t& out)
{
    if (v.empty() || v.size() > 18 || v.find_first_not_of("0123456789") != std::string::npos)
        return false;
    out = std::stoull(v);
    return true;
}

std::string trimmed(const std::string& s)
{
    size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
    return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

/// `[1:4,256:8,>:16]`: the divisions per power-of-two interval of sizes in MiB (as PyTorch's
/// parseRoundUpPower2Divisions reads them): a value holds from its interval to the next one given,
/// the first also below it, `>` for everything after the last interval given.
bool parseBuckets(const std::string& v, std::vector<unsigned>& out)
{
    const std::string body = v.substr(1, v.size() - 2);
    std::vector<std::pair<size_t, unsigned>> given;
    bool sawRest = false;
    unsigned rest = 0;
    size_t pos = 0;
    while (pos <= body.size()) {
        size_t comma = body.find(',', pos);
        std::string item = trimmed(body.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos));
        pos = comma == std::string::npos ? body.size() + 1 : comma + 1;
        size_t colon = item.find(':');
        uint64_t count = 0, mb = 0;
        if (colon == std::string::npos || !parseCount(trimmed(item.substr(colon + 1)), count) || count > 1024)
            return false;
        std::string key = trimmed(item.substr(0, colon));
        if (key == ">") {
            sawRest = true;
            rest = unsigned(count);
        } else if (parseCount(key, mb) && mb && (mb & (mb - 1)) == 0) {
            given.emplace_back(std::min<size_t>(floorLog2(mb), 15), unsigned(count));
        } else {
            return false;
        }
    }
    std::sort(given.begin(), given.end());
    out.assign(16, given.empty() ? rest : given.front().second);
    for (size_t i = 0; i < given.size(); ++i) {
        size_t end = i + 1 < given.size() ? given[i + 1].first : (sawRest ? given[i].first + 1 : 16);
        for (size_t b = given[i].first; b < end; ++b)
            out[b] = given[i].second;
    }
    if (sawRest && !given.empty())
        for (size_t b = given.back().first + 1; b < 16; ++b)
            out[b] = rest;
    return true;
}

} // namespace

Result<void> applyAllocConf(AllocatorConfig& config, const std::string& text, const std::string& where)
{
    // The options are `key:value` pairs separated by commas; a list value ([...]) holds commas too.
    size_t pos = 0;
    while (pos < text.size()) {
        size_t end = pos;
        int depth = 0;
        while (end < text.size() && (depth || text[end] != ',')) {
            depth += text[end] == '[' ? 1 : text[end] == ']' ? -1 : 0;
            ++end;
        }
        const std::string item = trimmed(text.substr(pos, end - pos));
        pos = end + 1;
        if (item.empty())
            continue;
        const size_t colon = item.find(':');
        const auto bad = [&](const std::string& why) {
            return makeError(ErrorCode::InvalidArgument, where + ": '" + item + "': " + why);
        };
        if (colon == std::string::npos)
            return bad("expected key:value");
        const std::string key = trimmed(item.substr(0, colon)), value = trimmed(item.substr(colon + 1));
        uint64_t n = 0;
        if (key == "max_split_size_mb" || key == "max_non_split_rounding_mb" || key == "large_segment_size_mb") {
            if (!parseCount(value, n) || n > (uint64_t(1) << 40))
                return bad("expected a size in MiB");
            uint64_t& field = key == "max_split_size_mb" ? config.maxSplitSize
                : key == "max_non_split_rounding_mb"     ? config.maxNonSplitRoundingSize
                                                          : config.largeSegmentSize;
            field = n << 20;
        } else if (key == "roundup_power2_divisions") {
            if (value.size() >= 2 && value.front() == '[' && value.back() == ']') {
                if (!parseBuckets(value, config.roundupPower2Buckets))
                    return bad("expected [size_mb:count,...,>:count] with power-of-two sizes");
            } else if (parseCount(value, n) && n <= 1024) {
                config.roundupPower2Divisions = unsigned(n);
                config.roundupPower2Buckets.clear();
            } else {
                return bad("expected a count or a [size_mb:count,...] list");
            }
        } else if (key == "expandable_segments") {
            if (value != "True" && value != "False")
                return bad("expected True or False");
            config.expandableSegments = value == "True";
        }
        // Other keys (garbage_collection_threshold, pinned_*, release_lock_on_cudamalloc, ...) change
        // nothing the model computes.
    }
    return {};
}

std::string PoolId::str() const
{
    return "(" + std::to_string(first) + ", " + std::to_string(second) + ")";
}

const char* profileName(Profile p)
{
    return p == Profile::Npu ? "npu" : "cuda";
}

int SegmentInfo::activeNum() const
{
    return int(std::count_if(blocks.begin(), blocks.end(), [](const BlockInfo& b) { return b.allocated; }));
}

struct CachingAllocator::Impl {
    struct Block {
        uint64_t size = 0;
        uint64_t requested = 0;
        bool allocated = false;
        OwnerId owner = kNoOwner;
    };

    struct Segment {
        PoolId pool;
        StreamId stream = 0;
        bool small = false;
        bool expandable = false;
        uint64_t address = 0;
        uint64_t totalSize = 0;
        uint64_t allocatedSize = 0;
        int allocatedCount = 0;
        std::map<uint64_t, Block> blocks; ///< by address; never empty
        bool isOneFreeBlock() const { return blocks.size() == 1 && !blocks.begin()->second.allocated; }
    };

    /// One entry per free block. Ordering by (pool, kind, stream) first makes each BlockPool a contiguous range,
    /// and (size, address) inside it gives best fit with ties to the lowest address from one lower_bound.
    struct FreeEntry {
        PoolId pool;
        bool small;
        StreamId stream;
        uint64_t size;
        uint64_t address;
        bool operator<(const FreeEntry& o) const
        {
            if (pool != o.pool)
                return pool < o.pool;
            return std::tie(small, stream, size, address) < std::tie(o.small, o.stream, o.size, o.address);
        }
        bool sameBlockPool(const FreeEntry& o) const
        {
            return pool == o.pool && small == o.small && stream == o.stream;
        }
    };

    struct Pool {
        int useCount = 0; ///< 0 for the default pool and for freeable private pools
        std::set<uint64_t> segments; ///< head addresses
    };

    std::map<uint64_t, std::unique_ptr<Segment>> segments; ///< by head address
    std::set<FreeEntry> freeBlocks;
    std::map<PoolId, Pool> pools; ///< always holds the default pool
    uint64_t nextAddress = kAddressBase; ///< set from AllocatorConfig::device by the constructor
    uint64_t reserved = 0;
    uint64_t allocated = 0;
    uint64_t peakReserved = 0;
    uint64_t peakAllocated = 0;
    const AllocatorConfig* config = nullptr;

    /// One ExpandableSegment: a virtual range reserved once per (pool, kind, stream) and mapped page by
    /// page; its mapped ranges are the Segments (expandable) that lie in [base, base + span).
    struct Expandable {
        uint64_t base = 0, span = 0, page = 0;
    };
    std::map<std::tuple<PoolId, bool, StreamId>, Expandable> expandables;

    void insertFree(const Segment& s, uint64_t address, uint64_t size)
    {
        freeBlocks.insert({ s.pool, s.small, s.stream, size, address });
    }
    void eraseFree(const Segment& s, uint64_t address, uint64_t size)
    {
        freeBlocks.erase({ s.pool, s.small, s.stream, size, address });
    }

    Segment* segmentContaining(uint64_t address) const
    {
        auto it = segments.upper_bound(address);
        if (it == segments.begin())
            return nullptr;
        --it;
        Segment* s = it->second.get();
        return address < s->address + s->totalSize ? s : nullptr;
    }

    /// A segment registered at `address` with no blocks yet; reserved bytes are the caller's.
    Segment& addShell(PoolId pool, StreamId stream, bool small, bool expandable, uint64_t address, uint64_t size)
    {
        auto seg = std::make_unique<Segment>();
        seg->pool = pool;
        seg->stream = stream;
        seg->small = small;
        seg->expandable = expandable;
        seg->address = address;
        seg->totalSize = size;
        Segment& ref = *seg;
        pools[pool].segments.insert(address);
        segments.emplace(address, std::move(seg));
        return ref;
    }

    void addReserved(uint64_t size)
    {
        reserved += size;
        peakReserved = std::max(peakReserved, reserved);
    }

    Segment& createSegment(PoolId pool, StreamId stream, bool small, uint64_t size)
    {
        Segment& ref = addShell(pool, stream, small, false, nextAddress, size);
        ref.blocks.emplace(ref.address, Block { size, 0, false, kNoOwner });
        nextAddress = roundUp(ref.address + size, kSegmentAlign) + kSegmentAlign;
        addReserved(size);
        insertFree(ref, ref.address, size);
        return ref;
    }

    /// `right` (which starts where `left` ends) joins `left`; the free blocks where they meet merge.
    Segment& mergeInto(Segment& left, Segment& right)
    {
        const uint64_t rightHead = right.address;
        left.totalSize += right.totalSize;
        left.allocatedSize += right.allocatedSize;
        left.allocatedCount += right.allocatedCount;
        auto last = std::prev(left.blocks.end());
        auto first = right.blocks.begin();
        if (!last->second.allocated && !first->second.allocated) {
            eraseFree(left, last->first, last->second.size);
            eraseFree(right, first->first, first->second.size);
            last->second.size += first->second.size;
            insertFree(left, last->first, last->second.size);
            right.blocks.erase(first);
        }
        left.blocks.insert(right.blocks.begin(), right.blocks.end()); // free entries stay: same block pool
        pools[right.pool].segments.erase(rightHead);
        segments.erase(rightHead); // destroys right
        return left;
    }

    /// map_block: [address, address + size) of `e` becomes mapped, one free block merged with the
    /// mapped neighbours of the same ExpandableSegment (a snapshot lists one segment per mapped range).
    Segment& mapRange(PoolId pool, StreamId stream, bool small, uint64_t address, uint64_t size)
    {
        Segment* cur = &addShell(pool, stream, small, true, address, size);
        cur->blocks.emplace(address, Block { size, 0, false, kNoOwner });
        insertFree(*cur, address, size);
        addReserved(size);
        const auto same = [&](const Segment& o) {
            return o.expandable && o.pool == pool && o.stream == stream && o.small == small;
        };
        if (Segment* left = address ? segmentContaining(address - 1) : nullptr;
            left && same(*left) && left->address + left->totalSize == address)
            cur = &mergeInto(*left, *cur);
        auto right = segments.find(cur->address + cur->totalSize);
        if (right != segments.end() && same(*right->second))
            mergeInto(*cur, *right->second);
        return *cur;
    }

    /// unmap_block: the pages [lo, hi), which lie inside one free block of `s`, go back to the driver;
    /// what stays mapped on either side becomes its own segment.
    void unmapRange(Segment& s, uint64_t lo, uint64_t hi)
    {
        const Segment attrs { s.pool, s.stream, s.small, true, 0, 0, 0, 0, {} };
        const uint64_t head = s.address, end = s.address + s.totalSize;
        std::map<uint64_t, Block> blocks = std::move(s.blocks);
        auto hole = std::prev(blocks.upper_bound(lo));
        const uint64_t holeLo = hole->first, holeHi = hole->first + hole->second.size;
        eraseFree(attrs, holeLo, hole->second.size);
        blocks.erase(hole);
        pools[attrs.pool].segments.erase(head);
        segments.erase(head); // destroys s
        reserved -= hi - lo;
        const auto rebuild = [&](uint64_t from, uint64_t to, uint64_t freeLo, uint64_t freeHi) {
            if (from >= to)
                return;
            Segment& part = addShell(attrs.pool, attrs.stream, attrs.small, true, from, to - from);
            for (auto it = blocks.lower_bound(from); it != blocks.end() && it->first < to; ++it) {
                part.blocks.insert(*it);
                if (it->second.allocated) {
                    part.allocatedSize += it->second.size;
                    ++part.allocatedCount;
                }
            }
            if (freeLo < freeHi) {
                part.blocks.emplace(freeLo, Block { freeHi - freeLo, 0, false, kNoOwner });
                insertFree(part, freeLo, freeHi - freeLo);
            }
        };
        rebuild(head, lo, holeLo, lo);
        rebuild(hi, end, hi, holeHi);
    }

    /// find_expandable_block and try_allocate_expandable_block: the lowest unmapped range of the
    /// stream's ExpandableSegment that can hold `n` with the free block just before it (and, past a
    /// mapped range that is wholly free, the next unmapped range), mapped in whole pages. Returns
    /// the ranges to map and where the block will start; no ranges when the reservation is full.
    struct Growth {
        uint64_t start = 0, bytes = 0;
        std::vector<std::pair<uint64_t, uint64_t>> maps;
    };
    Growth planGrowth(const Expandable& e, uint64_t n) const
    {
        std::vector<const Segment*> mapped;
        for (auto it = segments.lower_bound(e.base); it != segments.end() && it->first < e.base + e.span; ++it)
            mapped.push_back(it->second.get());
        for (size_t g = 0; g <= mapped.size(); ++g) {
            uint64_t lo = g ? mapped[g - 1]->address + mapped[g - 1]->totalSize : e.base;
            uint64_t hi = g < mapped.size() ? mapped[g]->address : e.base + e.span;
            if (lo >= hi)
                continue;
            Growth p;
            p.start = lo;
            uint64_t have = 0;
            if (g) {
                auto last = std::prev(mapped[g - 1]->blocks.end());
                if (!last->second.allocated) {
                    p.start = last->first;
                    have = last->second.size;
                }
            }
            for (size_t k = g; have < n;) {
                const uint64_t want = std::min(roundUp(n - have, e.page), hi - lo);
                p.maps.emplace_back(lo, want);
                p.bytes += want;
                have += want;
                if (have >= n || k >= mapped.size())
                    break;
                const auto first = mapped[k]->blocks.begin();
                if (first->second.allocated)
                    break;
                have += first->second.size;
                if (first->second.size != mapped[k]->totalSize)
                    break;
                lo = mapped[k]->address + mapped[k]->totalSize;
                ++k;
                hi = k < mapped.size() ? mapped[k]->address : e.base + e.span;
                if (lo >= hi)
                    break;
            }
            if (have >= n)
                return p;
        }
        return {};
    }

    Expandable& expandableFor(PoolId pool, bool small, StreamId stream)
    {
        auto [it, made] = expandables.try_emplace(std::make_tuple(pool, small, stream));
        if (made) {
            // ExpandableSegment reserves address space for 1 1/8 of the device's memory, in pages of 2 MiB
            // (small pool) or the large segment size.
            Expandable& e = it->second;
            e.page = small ? kSmallBuffer : config->largeSegmentSize;
            const uint64_t capacity = std::min(config->capacityBytes, kMaxRequest);
            e.span = roundUp(capacity + capacity / 8, e.page);
            e.base = nextAddress;
            nextAddress = roundUp(e.base + e.span, kSegmentAlign) + kSegmentAlign;
        }
        return it->second;
    }

    void releaseSegment(Segment& s)
    {
        uint64_t head = s.address;
        eraseFree(s, head, s.totalSize);
        reserved -= s.totalSize;
        pools[s.pool].segments.erase(head);
        segments.erase(head); // destroys s
    }

    /// Hands out the front `n` bytes of the free block at `it`, splitting off the remainder when should_split
    /// (§1.6) says so; otherwise the whole block is allocated and counts in allocated bytes.
    uint64_t allocateFrom(Segment& s, std::map<uint64_t, Block>::iterator it, uint64_t n, uint64_t requested,
        OwnerId owner)
    {
        Block& b = it->second;
        eraseFree(s, it->first, b.size);
        uint64_t remainder = b.size - n;
        bool split = shouldSplit(*config, s.small, n, remainder);
        if (split) {
            b.size = n;
            s.blocks.emplace_hint(std::next(it), it->first + n, Block { remainder, 0, false, kNoOwner });
            insertFree(s, it->first + n, remainder);
        }
        b.allocated = true;
        b.requested = requested;
        b.owner = owner;
        s.allocatedSize += b.size;
        ++s.allocatedCount;
        allocated += b.size;
        peakAllocated = std::max(peakAllocated, allocated);
        return it->first;
    }

    void freeBlock(Segment& s, std::map<uint64_t, Block>::iterator it)
    {
        Block& b = it->second;
        b.allocated = false;
        b.requested = 0;
        b.owner = kNoOwner;
        s.allocatedSize -= b.size;
        --s.allocatedCount;
        allocated -= b.size;
        if (it != s.blocks.begin()) {
            auto prev = std::prev(it);
            if (!prev->second.allocated) {
                eraseFree(s, prev->first, prev->second.size);
                prev->second.size += b.size;
                s.blocks.erase(it);
                it = prev;
            }
        }
        auto next = std::next(it);
        if (next != s.blocks.end() && !next->second.allocated) {
            eraseFree(s, next->first, next->second.size);
            it->second.size += next->second.size;
            s.blocks.erase(next);
        }
        insertFree(s, it->first, it->second.size);
    }

    /// Frees every allocated block of `s` at once; the result equals freeing them one by one with merging.
    void freeWholeSegment(Segment& s, std::vector<uint64_t>& freedAddresses)
    {
        for (auto& [address, b] : s.blocks) {
            if (b.allocated)
                freedAddresses.push_back(address);
            else
                eraseFree(s, address, b.size);
        }
        allocated -= s.allocatedSize;
        s.allocatedSize = 0;
        s.allocatedCount = 0;
        s.blocks.clear();
        s.blocks.emplace(s.address, Block { s.totalSize, 0, false, kNoOwner });
        insertFree(s, s.address, s.totalSize);
    }

    SegmentInfo info(const Segment& s) const
    {
        SegmentInfo info;
        info.device = config->device;
        info.pool = s.pool;
        info.stream = s.stream;
        info.small = s.small;
        info.expandable = s.expandable;
        info.address = s.address;
        info.totalSize = s.totalSize;
        info.allocatedSize = s.allocatedSize;
        info.blocks.reserve(s.blocks.size());
        for (auto& [address, b] : s.blocks) {
            info.blocks.push_back({ address, b.size, b.requested, b.allocated, b.owner });
            if (b.allocated)
                info.requestedSize += b.requested;
        }
        return info;
    }

    static bool isFreeable(const std::pair<const PoolId, Pool>& p)
    {
        return !p.first.isDefault() && !p.second.useCount;
    }
};

CachingAllocator::CachingAllocator(AllocatorConfig config)
    : m_config(std::move(config))
    , m_impl(std::make_unique<Impl>())
{
    m_impl->pools[PoolId {}];
    m_impl->config = &m_config;
    m_impl->nextAddress = deviceAddressBase(m_config.device);
}

uint64_t deviceAddressBase(int device)
{
    return kAddressBase + uint64_t(std::max(device, 0)) * kDeviceAddressSpan;
}

int deviceOfAddress(uint64_t address)
{
    return address < kAddressBase ? 0 : int((address - kAddressBase) / kDeviceAddressSpan);
}

std::string deviceName(Profile profile, int device)
{
    return std::string(profile == Profile::Cuda ? "cuda:" : "npu:") + std::to_string(device);
}

CachingAllocator::~CachingAllocator() = default;

uint64_t CachingAllocator::roundSize(uint64_t request) const
{
    return roundRequest(m_config, request);
}

uint64_t CachingAllocator::allocationSize(uint64_t rounded) const
{
    if (rounded <= kSmallSize)
        return kSmallBuffer;
    if (rounded < kMinLargeAlloc)
        return m_config.largeSegmentSize;
    return roundUp(rounded, kRoundLarge);
}

void CachingAllocator::increfPool(PoolId pool)
{
    if (pool.isDefault())
        return;
    // PyTorch asserts that a pool being incref'ed is not freeable; the simulator instead revives it, which is what a
    // new capture into a handle whose old graphs were all reset means to a user.
    ++m_impl->pools[pool].useCount;
}

void CachingAllocator::releasePool(PoolId pool)
{
    // Releasing the default pool, an unknown pool or one already freeable is a caller slip PyTorch would assert on;
    // here it changes nothing.
    auto it = m_impl->pools.find(pool);
    if (pool.isDefault() || it == m_impl->pools.end() || !it->second.useCount)
        return;
    --it->second.useCount;
}

int CachingAllocator::poolUseCount(PoolId pool) const
{
    auto it = m_impl->pools.find(pool);
    return it == m_impl->pools.end() ? 0 : it->second.useCount;
}

Result<uint64_t> CachingAllocator::allocate(PoolId pool, StreamId stream, uint64_t bytes, OwnerId owner)
{
    Impl& d = *m_impl;
    if (!bytes)
        return makeError(ErrorCode::InvalidArgument, "allocate: zero-byte requests never reach the allocator");
    // Only a pool that a live capture (or MemPool) holds receives allocations in PyTorch: get_pool routes to private
    // pools through allocation_scopes_, which exist only between beginAllocateToPool and endAllocateToPool. So a pool
    // that was never incref'ed, or is freeable, is a simulator bug rather than something to create silently.
    auto poolIt = d.pools.find(pool);
    if (!pool.isDefault() && (poolIt == d.pools.end() || !poolIt->second.useCount))
        return makeError(ErrorCode::Internal,
            "allocate: private pool " + pool.str() + " is not in use (never incref'ed, or released)");

    const char* device = m_config.profile == Profile::Npu ? "NPU" : "GPU";
    const char* api = m_config.profile == Profile::Npu ? "NPU" : "CUDA";
    // Modelled on the pre-2.2 PyTorch / torch_npu text, whose "Tried to allocate" is the segment size:
    //   "NPU out of memory. Tried to allocate 20.00 MiB (NPU 0; 64.00 GiB total capacity; 63.98 GiB already
    //    allocated; 10.00 MiB free; 63.99 GiB reserved in total by PyTorch)"
    // CUDA reads "CUDA out of memory. ... (GPU 0; ...)". The index is this allocator's device.
    auto oom = [&](uint64_t tried) {
        uint64_t cap = m_config.capacityBytes;
        uint64_t freeBytes = cap > d.reserved ? cap - d.reserved : 0;
        return makeError(ErrorCode::OutOfMemory,
            std::string(api) + " out of memory. Tried to allocate " + formatSize(tried) + " (" + device + " "
                + std::to_string(m_config.device) + "; " + formatSize(cap) + " total capacity; "
                + formatSize(d.allocated) + " already allocated; " + formatSize(freeBytes) + " free; "
                + formatSize(d.reserved) + " reserved in total by PyTorch)");
    };
    if (bytes >= kMaxRequest)
        return oom(bytes);

    uint64_t n = roundSize(bytes);
    bool small = n <= kSmallSize;
    uint64_t maxSplit = m_config.maxSplitSize;

    Impl::FreeEntry key { pool, small, stream, n, 0 };
    auto it = d.freeBlocks.lower_bound(key);
    if (it != d.freeBlocks.end() && it->sameBlockPool(key)) {
        uint64_t b = it->size;
        // get_free_block's max_split_size rules (§1.5) reject the best fit without looking further.
        bool refused = (n < maxSplit && b >= maxSplit) || (n >= maxSplit && b >= n + m_config.maxNonSplitRoundingSize);
        if (!refused) {
            Impl::Segment* s = d.segmentContaining(it->address);
            return d.allocateFrom(*s, s->blocks.find(it->address), n, bytes, owner);
        }
    }

    if (m_config.expandableSegments) {
        const Impl::Expandable& e = d.expandableFor(pool, small, stream);
        Impl::Growth grow = d.planGrowth(e, n);
        if (grow.maps.empty() || d.reserved + grow.bytes > m_config.capacityBytes) {
            emptyCache();
            grow = d.planGrowth(e, n);
        }
        if (grow.maps.empty() || d.reserved + grow.bytes > m_config.capacityBytes)
            return oom(grow.maps.empty() ? n : grow.bytes);
        for (auto [address, size] : grow.maps)
            d.mapRange(pool, stream, small, address, size);
        Impl::Segment* s = d.segmentContaining(grow.start);
        return d.allocateFrom(*s, s->blocks.find(grow.start), n, bytes, owner);
    }

    uint64_t segmentSize = allocationSize(n);
    // PyTorch frees cached blocks and retries once before reporting OOM; private pools in use are untouched by it.
    if (d.reserved + segmentSize > m_config.capacityBytes)
        emptyCache();
    if (d.reserved + segmentSize > m_config.capacityBytes)
        return oom(segmentSize);
    Impl::Segment& s = d.createSegment(pool, stream, small, segmentSize);
    return d.allocateFrom(s, s.blocks.begin(), n, bytes, owner);
}

Result<void> CachingAllocator::free(uint64_t address)
{
    Impl::Segment* s = m_impl->segmentContaining(address);
    auto it = s ? s->blocks.find(address) : std::map<uint64_t, Impl::Block>::iterator {};
    if (!s || it == s->blocks.end() || !it->second.allocated)
        return makeError(ErrorCode::NotFound, "free: no allocated block starts at " + hexAddress(address));
    m_impl->freeBlock(*s, it);
    return {};
}

Result<void> CachingAllocator::setOwner(uint64_t address, OwnerId owner)
{
    Impl::Segment* s = m_impl->segmentContaining(address);
    auto it = s ? s->blocks.find(address) : std::map<uint64_t, Impl::Block>::iterator {};
    if (!s || it == s->blocks.end() || !it->second.allocated)
        return makeError(ErrorCode::NotFound, "setOwner: no allocated block starts at " + hexAddress(address));
    it->second.owner = owner;
    return {};
}

std::optional<BlockInfo> CachingAllocator::blockAt(uint64_t address) const
{
    Impl::Segment* s = m_impl->segmentContaining(address);
    if (!s)
        return std::nullopt;
    auto it = std::prev(s->blocks.upper_bound(address));
    const Impl::Block& b = it->second;
    return BlockInfo { it->first, b.size, b.requested, b.allocated, b.owner };
}

PoolCheckpoint CachingAllocator::checkpoint(PoolId pool) const
{
    PoolCheckpoint state;
    state.pool = pool;
    auto poolIt = m_impl->pools.find(pool);
    if (poolIt == m_impl->pools.end())
        return state;
    for (uint64_t head : poolIt->second.segments) {
        const Impl::Segment& s = *m_impl->segments.at(head);
        PoolCheckpoint::Segment seg;
        seg.address = s.address;
        seg.small = s.small;
        seg.blocks.reserve(s.blocks.size());
        for (auto& [address, b] : s.blocks)
            seg.blocks.emplace_back(b.size, b.allocated);
        state.segments.push_back(std::move(seg));
    }
    return state;
}

Result<RestoreResult> CachingAllocator::restore(const PoolCheckpoint& state)
{
    Impl& d = *m_impl;
    // Validate everything first so that a failed restore leaves the allocator untouched (PyTorch checks segment by
    // segment after already freeing the pool; a simulator that reports the error should not also corrupt state).
    std::set<uint64_t> seen;
    for (const auto& rec : state.segments) {
        auto it = d.segments.find(rec.address);
        if (it == d.segments.end())
            return makeError(ErrorCode::Internal, "setCheckpointPoolState: could not find " + hexAddress(rec.address));
        const Impl::Segment& s = *it->second;
        if (s.pool != state.pool || s.small != rec.small)
            return makeError(ErrorCode::Internal,
                "setCheckpointPoolState: segment " + hexAddress(rec.address) + " does not belong to the "
                    + (rec.small ? "small" : "large") + " pool " + state.pool.str());
        if (!seen.insert(rec.address).second)
            return makeError(ErrorCode::InvalidArgument,
                "setCheckpointPoolState: segment " + hexAddress(rec.address) + " recorded twice");
        uint64_t sum = 0;
        for (auto& [size, allocated] : rec.blocks) {
            if (!size || size > s.totalSize)
                return makeError(ErrorCode::InvalidArgument,
                    "setCheckpointPoolState: bad block size in segment " + hexAddress(rec.address));
            sum += size;
        }
        if (sum != s.totalSize)
            return makeError(ErrorCode::InvalidArgument,
                "setCheckpointPoolState: recorded blocks of segment " + hexAddress(rec.address) + " sum to "
                    + std::to_string(sum) + " bytes, the segment has " + std::to_string(s.totalSize));
    }

    RestoreResult result;
    std::vector<uint64_t> freed;
    auto poolIt = d.pools.find(state.pool);
    if (poolIt != d.pools.end()) {
        for (uint64_t head : poolIt->second.segments) {
            Impl::Segment& s = *d.segments.at(head);
            if (s.allocatedCount)
                d.freeWholeSegment(s, freed);
        }
    }

    for (const auto& rec : state.segments) {
        Impl::Segment& s = *d.segments.at(rec.address);
        d.eraseFree(s, s.address, s.totalSize);
        s.blocks.clear();
        uint64_t address = s.address;
        size_t i = 0;
        while (i < rec.blocks.size()) {
            auto [size, allocated] = rec.blocks[i++];
            if (allocated) {
                s.blocks.emplace_hint(s.blocks.end(), address, Impl::Block { size, size, true, kNoOwner });
                s.allocatedSize += size;
                ++s.allocatedCount;
                d.allocated += size;
                result.created.push_back(address);
            } else {
                // PyTorch re-allocates every recorded block and then frees the unallocated ones, so adjacent free
                // blocks in a checkpoint come back merged.
                while (i < rec.blocks.size() && !rec.blocks[i].second)
                    size += rec.blocks[i++].first;
                s.blocks.emplace_hint(s.blocks.end(), address, Impl::Block { size, 0, false, kNoOwner });
                d.insertFree(s, address, size);
            }
            address += size;
        }
    }

    std::set<uint64_t> created(result.created.begin(), result.created.end());
    for (uint64_t address : freed)
        if (!created.count(address))
            result.freed.push_back(address);
    return result;
}

uint64_t CachingAllocator::emptyCache()
{
    Impl& d = *m_impl;
    uint64_t released = 0;
    for (auto poolIt = d.pools.begin(); poolIt != d.pools.end();) {
        bool freeable = Impl::isFreeable(*poolIt);
        if (!poolIt->first.isDefault() && !freeable) {
            ++poolIt;
            continue;
        }
        std::vector<Impl::Segment*> victims;
        std::vector<std::pair<uint64_t, uint64_t>> unmaps; ///< page ranges of expandable segments
        for (uint64_t head : poolIt->second.segments) {
            Impl::Segment* s = d.segments.at(head).get();
            if (!s->expandable) {
                if (s->isOneFreeBlock())
                    victims.push_back(s);
                continue;
            }
            // release_blocks unmaps the whole pages inside each free block of an expandable segment.
            const Impl::Expandable& e = d.expandables.at(std::make_tuple(s->pool, s->small, s->stream));
            for (auto& [address, b] : s->blocks) {
                const uint64_t lo = e.base + roundUp(address - e.base, e.page);
                const uint64_t hi = e.base + (address + b.size - e.base) / e.page * e.page;
                if (!b.allocated && lo < hi)
                    unmaps.emplace_back(lo, hi);
            }
        }
        for (Impl::Segment* s : victims) {
            released += s->totalSize;
            d.releaseSegment(*s);
        }
        for (auto [lo, hi] : unmaps) {
            released += hi - lo;
            d.unmapRange(*d.segmentContaining(lo), lo, hi);
        }
        if (freeable && poolIt->second.segments.empty())
            poolIt = d.pools.erase(poolIt);
        else
            ++poolIt;
    }
    return released;
}

std::vector<SegmentInfo> CachingAllocator::segments() const
{
    std::vector<SegmentInfo> out;
    out.reserve(m_impl->segments.size());
    for (auto& [head, s] : m_impl->segments)
        out.push_back(m_impl->info(*s));
    return out;
}

std::vector<SegmentInfo> CachingAllocator::segments(PoolId pool) const
{
    std::vector<SegmentInfo> out;
    auto poolIt = m_impl->pools.find(pool);
    if (poolIt == m_impl->pools.end())
        return out;
    for (uint64_t head : poolIt->second.segments)
        out.push_back(m_impl->info(*m_impl->segments.at(head)));
    return out;
}

PoolTotals CachingAllocator::totals(PoolId pool) const
{
    PoolTotals t;
    auto poolIt = m_impl->pools.find(pool);
    if (poolIt == m_impl->pools.end())
        return t;
    for (uint64_t head : poolIt->second.segments) {
        const Impl::Segment& s = *m_impl->segments.at(head);
        t.reserved += s.totalSize;
        t.allocated += s.allocatedSize;
        ++t.segments;
        t.blocks += int(s.blocks.size());
        t.activeBlocks += s.allocatedCount;
    }
    return t;
}

std::vector<PoolId> CachingAllocator::pools() const
{
    std::vector<PoolId> out;
    for (auto& [id, p] : m_impl->pools)
        if (!p.segments.empty() || p.useCount)
            out.push_back(id);
    return out;
}

uint64_t CachingAllocator::reservedBytes() const
{
    return m_impl->reserved;
}
uint64_t CachingAllocator::allocatedBytes() const
{
    return m_impl->allocated;
}
uint64_t CachingAllocator::peakReservedBytes() const
{
    return m_impl->peakReserved;
}
uint64_t CachingAllocator::peakAllocatedBytes() const
{
    return m_impl->peakAllocated;
}
void CachingAllocator::resetPeak()
{
    m_impl->peakReserved = m_impl->reserved;
    m_impl->peakAllocated = m_impl->allocated;
}

} // namespace engine::memory
