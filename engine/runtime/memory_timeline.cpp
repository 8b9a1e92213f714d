// Device memory as changes plus keyframes (memory_timeline.h), and the keyframes' binary form.
#include "engine/runtime/memory_timeline.h"

#include <algorithm>
#include <cstring>

namespace engine::runtime {

namespace {

// Keyframe layout, all integers little-endian:
//   "ACGM" u8 version
//   u32 pools    { u64 first, u64 second }
//   u32 segments { u64 address, u64 pool.first, u64 pool.second, i32 stream, u8 small, u64 total }
//   u32 blocks   { u64 address, u64 segment, u64 size, u64 requested, u8 allocated, i64 owner }
// in ascending order of pool and address; nothing after the blocks.
constexpr char kMagic[4] = { 'A', 'C', 'G', 'M' };
constexpr uint8_t kVersion = 1;
constexpr size_t kPoolBytes = 16;
constexpr size_t kSegmentBytes = 8 + 16 + 4 + 1 + 8;
constexpr size_t kBlockBytes = 8 + 8 + 8 + 8 + 1 + 8;

void putU64(std::string& out, uint64_t v)
{
    char b[8];
    for (int i = 0; i < 8; ++i)
        b[i] = char((v >> (8 * i)) & 0xff);
    out.append(b, 8);
}

void putU32(std::string& out, uint32_t v)
{
    char b[4];
    for (int i = 0; i < 4; ++i)
        b[i] = char((v >> (8 * i)) & 0xff);
    out.append(b, 4);
}

class Reader {
public:
    explicit Reader(std::string_view bytes)
        : m_bytes(bytes)
    {
    }
    size_t left() const { return m_bytes.size() - m_pos; }
    uint64_t u64() { return take(8); }
    uint32_t u32() { return uint32_t(take(4)); }
    uint8_t u8() { return uint8_t(take(1)); }
    std::string_view raw(size_t n)
    {
        std::string_view v = m_bytes.substr(m_pos, n);
        m_pos += n;
        return v;
    }

private:
    /// The caller checked left() first.
    uint64_t take(int n)
    {
        uint64_t v = 0;
        for (int i = 0; i < n; ++i)
            v |= uint64_t(uint8_t(m_bytes[m_pos + i])) << (8 * i);
        m_pos += n;
        return v;
    }
    std::string_view m_bytes;
    size_t m_pos = 0;
};

Error corrupt(const std::string& what)
{
    return makeError(ErrorCode::ParseError, "memory keyframe: " + what);
}

/// Reads a count and checks that that many records of `size` bytes fit in what is left.
Result<uint32_t> readCount(Reader& r, size_t size, const char* what)
{
    if (r.left() < 4)
        return corrupt(std::string("truncated before the number of ") + what);
    const uint32_t n = r.u32();
    if (uint64_t(n) * size > r.left())
        return corrupt(
            std::to_string(n) + " " + what + " do not fit in the " + std::to_string(r.left()) + " bytes left");
    return n;
}

template <typename Map, typename Value> void setOrErase(Map& map, uint64_t key, const std::optional<Value>& value)
{
    if (value)
        map[key] = *value;
    else
        map.erase(key);
}

/// The changes from `before` to `after` of one address-keyed map, in address order.
template <typename Value>
void diffMaps(const std::map<uint64_t, Value>& before, const std::map<uint64_t, Value>& after,
    std::vector<std::pair<uint64_t, std::optional<Value>>>& out)
{
    auto b = before.begin();
    auto a = after.begin();
    while (b != before.end() || a != after.end()) {
        if (a == after.end() || (b != before.end() && b->first < a->first)) {
            out.emplace_back(b->first, std::nullopt);
            ++b;
        } else if (b == before.end() || a->first < b->first) {
            out.emplace_back(a->first, a->second);
            ++a;
        } else {
            if (!(a->second == b->second))
                out.emplace_back(a->first, a->second);
            ++a;
            ++b;
        }
    }
}

} // namespace

MemoryState MemoryState::fromSegments(const std::vector<memory::SegmentInfo>& segments)
{
    MemoryState state;
    for (const memory::SegmentInfo& s : segments) {
        state.pools.insert(s.pool);
        state.segments.emplace_hint(
            state.segments.end(), s.address, Segment { s.pool, s.stream, s.small, s.totalSize });
        for (const memory::BlockInfo& b : s.blocks)
            state.blocks.emplace_hint(
                state.blocks.end(), b.address, Block { s.address, b.size, b.requested, b.allocated, b.owner });
    }
    return state;
}

MemoryState MemoryState::fromAllocator(const memory::CachingAllocator& allocator)
{
    MemoryState state = fromSegments(allocator.segments());
    for (const memory::PoolId& pool : allocator.pools())
        state.pools.insert(pool);
    return state;
}

MemoryState MemoryState::fromAllocator(const memory::DeviceAllocators& allocators)
{
    MemoryState state = fromSegments(allocators.segments());
    for (const memory::PoolId& pool : allocators.pools())
        state.pools.insert(pool);
    return state;
}

std::vector<PoolSnapshot> MemoryState::snapshot() const
{
    std::vector<PoolSnapshot> out;
    std::map<memory::PoolId, size_t> index;
    for (const memory::PoolId& pool : pools) {
        index.emplace(pool, out.size());
        out.push_back(PoolSnapshot { 0, pool, {}, 0, 0 });
    }
    // Blocks lie inside their segment, so one walk of both maps in address order pairs them up.
    auto block = blocks.begin();
    for (const auto& [address, seg] : segments) {
        auto it = index.find(seg.pool);
        if (it == index.end()) { // a state built by hand without its pool: list the pool anyway
            it = index.emplace(seg.pool, out.size()).first;
            out.push_back(PoolSnapshot { 0, seg.pool, {}, 0, 0 });
        }
        memory::SegmentInfo info;
        info.device = memory::deviceOfAddress(address);
        out[it->second].device = info.device;
        info.pool = seg.pool;
        info.stream = seg.stream;
        info.small = seg.small;
        info.address = address;
        info.totalSize = seg.totalSize;
        while (block != blocks.end() && block->first < address)
            ++block;
        for (; block != blocks.end() && block->second.segment == address; ++block) {
            const Block& b = block->second;
            info.blocks.push_back({ block->first, b.size, b.requested, b.allocated, b.owner });
            if (b.allocated) {
                info.allocatedSize += b.size;
                info.requestedSize += b.requested;
            }
        }
        PoolSnapshot& ps = out[it->second];
        ps.reserved += info.totalSize;
        ps.allocated += info.allocatedSize;
        ps.segments.push_back(std::move(info));
    }
    std::sort(out.begin(), out.end(), [](const PoolSnapshot& a, const PoolSnapshot& b) { return a.pool < b.pool; });
    return out;
}

std::string MemoryState::encode() const
{
    std::string out;
    out.reserve(5 + 12 + pools.size() * kPoolBytes + segments.size() * kSegmentBytes + blocks.size() * kBlockBytes);
    out.append(kMagic, 4);
    out.push_back(char(kVersion));
    putU32(out, uint32_t(pools.size()));
    for (const memory::PoolId& p : pools) {
        putU64(out, p.first);
        putU64(out, p.second);
    }
    putU32(out, uint32_t(segments.size()));
    for (const auto& [address, s] : segments) {
        putU64(out, address);
        putU64(out, s.pool.first);
        putU64(out, s.pool.second);
        putU32(out, uint32_t(s.stream));
        out.push_back(char(s.small ? 1 : 0));
        putU64(out, s.totalSize);
    }
    putU32(out, uint32_t(blocks.size()));
    for (const auto& [address, b] : blocks) {
        putU64(out, address);
        putU64(out, b.segment);
        putU64(out, b.size);
        putU64(out, b.requested);
        out.push_back(char(b.allocated ? 1 : 0));
        putU64(out, uint64_t(b.owner));
    }
    return out;
}

Result<MemoryState> MemoryState::decode(std::string_view bytes)
{
    Reader r(bytes);
    if (r.left() < 5 || r.raw(4) != std::string_view(kMagic, 4))
        return corrupt("not a memory state (bad magic)");
    if (const uint8_t version = r.u8(); version != kVersion)
        return corrupt("unknown version " + std::to_string(version));
    MemoryState state;
    auto pools = readCount(r, kPoolBytes, "pools");
    if (!pools)
        return pools.error();
    for (uint32_t i = 0; i < *pools; ++i) {
        memory::PoolId p;
        p.first = r.u64();
        p.second = r.u64();
        if (!state.pools.empty() && !(*state.pools.rbegin() < p))
            return corrupt("pools out of order");
        state.pools.insert(state.pools.end(), p);
    }
    auto segments = readCount(r, kSegmentBytes, "segments");
    if (!segments)
        return segments.error();
    for (uint32_t i = 0; i < *segments; ++i) {
        const uint64_t address = r.u64();
        Segment s;
        s.pool.first = r.u64();
        s.pool.second = r.u64();
        s.stream = memory::StreamId(int32_t(r.u32()));
        const uint8_t small = r.u8();
        s.totalSize = r.u64();
        if (small > 1)
            return corrupt("segment flag out of range");
        s.small = small == 1;
        if (!state.segments.empty() && state.segments.rbegin()->first >= address)
            return corrupt("segments out of order");
        if (!state.pools.count(s.pool))
            return corrupt("segment of an unlisted pool " + s.pool.str());
        state.segments.emplace_hint(state.segments.end(), address, s);
    }
    auto blocks = readCount(r, kBlockBytes, "blocks");
    if (!blocks)
        return blocks.error();
    for (uint32_t i = 0; i < *blocks; ++i) {
        const uint64_t address = r.u64();
        Block b;
        b.segment = r.u64();
        b.size = r.u64();
        b.requested = r.u64();
        const uint8_t allocated = r.u8();
        b.owner = memory::OwnerId(r.u64());
        if (allocated > 1)
            return corrupt("block flag out of range");
        b.allocated = allocated == 1;
        if (!state.blocks.empty() && state.blocks.rbegin()->first >= address)
            return corrupt("blocks out of order");
        if (!state.segments.count(b.segment))
            return corrupt("block of an unknown segment");
        state.blocks.emplace_hint(state.blocks.end(), address, b);
    }
    if (r.left())
        return corrupt(std::to_string(r.left()) + " bytes after the last block");
    return state;
}

MemoryDelta diffMemory(const MemoryState& before, const MemoryState& after, int event)
{
    MemoryDelta d;
    d.event = event;
    for (const memory::PoolId& p : before.pools)
        if (!after.pools.count(p))
            d.pools.emplace_back(p, false);
    for (const memory::PoolId& p : after.pools)
        if (!before.pools.count(p))
            d.pools.emplace_back(p, true);
    std::sort(d.pools.begin(), d.pools.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    diffMaps(before.segments, after.segments, d.segments);
    diffMaps(before.blocks, after.blocks, d.blocks);
    return d;
}

void applyMemory(MemoryState& state, const MemoryDelta& delta)
{
    for (const auto& [pool, present] : delta.pools)
        if (present)
            state.pools.insert(pool);
        else
            state.pools.erase(pool);
    for (const auto& [address, s] : delta.segments)
        setOrErase(state.segments, address, s);
    for (const auto& [address, b] : delta.blocks)
        setOrErase(state.blocks, address, b);
}

void MemoryTimeline::observe(int event, const std::vector<memory::SegmentInfo>& segments)
{
    observe(event, MemoryState::fromSegments(segments));
}

void MemoryTimeline::observe(int event, const memory::CachingAllocator& allocator)
{
    observe(event, MemoryState::fromAllocator(allocator));
}

void MemoryTimeline::observe(int event, const memory::DeviceAllocators& allocators)
{
    observe(event, MemoryState::fromAllocator(allocators));
}

bool KeyframeRule::due(size_t changes, size_t stateSize, bool poolsChanged)
{
    m_since += changes;
    if (!m_first && !poolsChanged && m_since < std::max(size_t(m_interval), stateSize))
        return false;
    m_first = false;
    m_since = 0;
    return true;
}

void MemoryTimeline::observe(int event, MemoryState state)
{
    MemoryDelta delta = diffMemory(m_current, state, event);
    const bool poolsChanged = !delta.pools.empty();
    const size_t changes = delta.segments.size() + delta.blocks.size();
    if (!delta.empty())
        m_deltas.push_back(std::move(delta));
    m_current = std::move(state);
    if (m_rule.due(changes, m_current.segments.size() + m_current.blocks.size(), poolsChanged))
        m_keyframes.emplace_back(event, m_current);
    m_events = std::max(m_events, event + 1);
}

void MemoryTimeline::append(MemoryDelta delta, const MemoryState* keyframe)
{
    const int event = delta.event;
    if (keyframe) {
        m_current = *keyframe;
        m_keyframes.emplace_back(event, m_current);
    } else {
        applyMemory(m_current, delta);
    }
    if (!delta.empty())
        m_deltas.push_back(std::move(delta));
    m_events = std::max(m_events, event + 1);
}

Result<MemoryState> MemoryTimeline::stateAt(int event) const
{
    if (event < 0 || event >= m_events)
        return makeError(ErrorCode::InvalidArgument,
            "no event " + std::to_string(event) + " in the memory timeline (" + std::to_string(m_events) + " events)");
    auto kf = std::upper_bound(m_keyframes.begin(), m_keyframes.end(), event,
        [](int e, const std::pair<int, MemoryState>& k) { return e < k.first; });
    if (kf == m_keyframes.begin())
        return makeError(ErrorCode::Internal, "no keyframe at or before event " + std::to_string(event));
    --kf;
    MemoryState state = kf->second;
    auto d = std::upper_bound(
        m_deltas.begin(), m_deltas.end(), kf->first, [](int e, const MemoryDelta& delta) { return e < delta.event; });
    for (; d != m_deltas.end() && d->event <= event; ++d)
        applyMemory(state, *d);
    return state;
}

} // namespace engine::runtime
