// The stored memory of a replayed trace, drawn again only where it changed (rendered_memory.h).
#include "engine/snapshot/rendered_memory.h"

#include <algorithm>

namespace engine::snapshot::detail {

RenderedMemory::RenderedMemory(const TraceWalker& walker, std::function<memory::OwnerId(int64_t entry)> newOwner)
    : m_walker(walker)
    , m_newOwner(std::move(newOwner))
{
    runtime::MemoryState start = walker.state();
    for (const auto& [address, segment] : start.segments)
        setSegment(address, segment);
    for (auto& [address, block] : start.blocks) {
        block.owner = ownerOf(block.owner);
        setBlock(address, block);
    }
    m_segmentsBefore.clear();
    m_blocksBefore.clear();
    m_poolsBefore.clear();
}

memory::OwnerId RenderedMemory::ownerOf(int64_t entry)
{
    if (entry == memory::kNoOwner)
        return memory::kNoOwner;
    auto [it, added] = m_owners.try_emplace(entry, memory::kNoOwner);
    if (added)
        it->second = m_newOwner(entry);
    return it->second;
}

namespace {

/// Sets or erases `address` in `map`; records its value before the step the first time it changes.
/// Returns the value it replaced, or nothing when the value is the same.
template <typename T>
std::optional<std::optional<T>> put(std::map<uint64_t, T>& map, std::map<uint64_t, std::optional<T>>& before,
    uint64_t address, const std::optional<T>& value)
{
    auto it = map.find(address);
    std::optional<T> old;
    if (it != map.end())
        old = it->second;
    if (old == value)
        return std::nullopt;
    before.try_emplace(address, old);
    if (!value)
        map.erase(it);
    else if (it != map.end())
        it->second = *value;
    else
        map.emplace(address, *value);
    return old;
}

} // namespace

void RenderedMemory::setSegment(uint64_t address, std::optional<Segment> value)
{
    const auto old = put(m_state.segments, m_segmentsBefore, address, value);
    if (!old)
        return;
    if (const std::optional<Segment>& was = *old) {
        m_reserved -= was->totalSize;
        auto count = m_poolSegments.find(was->pool);
        if (count != m_poolSegments.end() && --count->second == 0) {
            m_poolsBefore.try_emplace(was->pool, true);
            m_poolSegments.erase(count);
            m_state.pools.erase(was->pool);
        }
    }
    if (value) {
        m_reserved += value->totalSize;
        if (m_poolSegments[value->pool]++ == 0) {
            m_poolsBefore.try_emplace(value->pool, false);
            m_state.pools.insert(value->pool);
        }
    }
}

void RenderedMemory::setBlock(uint64_t address, std::optional<Block> value)
{
    const auto old = put(m_state.blocks, m_blocksBefore, address, value);
    if (!old)
        return;
    if (*old && (*old)->allocated)
        m_allocated -= (*old)->size;
    if (value && value->allocated)
        m_allocated += value->size;
}

void RenderedMemory::draw(uint64_t segment, uint64_t lo, uint64_t hi)
{
    // The walker's active blocks from lo, as TraceWalker::state draws a whole segment: a block that
    // overlaps the one before it is left out, free gaps between them are free blocks.
    std::vector<std::pair<uint64_t, Block>> fresh;
    uint64_t next = lo;
    const auto gap = [&](uint64_t upTo) {
        if (upTo > next)
            fresh.emplace_back(next, Block { segment, upTo - next, 0, false, memory::kNoOwner });
    };
    const auto& live = m_walker.live();
    for (auto it = live.lower_bound(lo); it != live.end() && it->first < hi; ++it) {
        if (it->first < next)
            continue;
        gap(it->first);
        const uint64_t size = std::min(it->second.size, hi - it->first);
        fresh.emplace_back(it->first, Block { segment, size, it->second.requested, true, ownerOf(it->second.owner) });
        next = it->first + size;
    }
    gap(hi);
    std::vector<uint64_t> stale;
    for (auto it = m_state.blocks.lower_bound(lo); it != m_state.blocks.end() && it->first < hi; ++it)
        stale.push_back(it->first);
    size_t f = 0;
    for (uint64_t address : stale) {
        while (f < fresh.size() && fresh[f].first < address)
            ++f;
        if (f == fresh.size() || fresh[f].first != address)
            setBlock(address, std::nullopt);
    }
    for (const auto& [address, block] : fresh)
        setBlock(address, block);
}

void RenderedMemory::drawSegments(uint64_t lo, uint64_t hi)
{
    std::vector<uint64_t> gone;
    for (auto it = m_state.segments.lower_bound(lo); it != m_state.segments.end() && it->first < hi; ++it)
        gone.push_back(it->first);
    for (uint64_t base : gone) {
        const uint64_t end = base + m_state.segments.at(base).totalSize;
        std::vector<uint64_t> blocks;
        for (auto b = m_state.blocks.lower_bound(base); b != m_state.blocks.end() && b->first < end; ++b)
            if (b->second.segment == base)
                blocks.push_back(b->first);
        for (uint64_t address : blocks)
            setBlock(address, std::nullopt);
        setSegment(base, std::nullopt);
    }
    const auto& segments = m_walker.segments();
    for (auto it = segments.lower_bound(lo); it != segments.end() && it->first < hi; ++it) {
        const TraceWalker::Seg& s = it->second;
        setSegment(it->first, Segment { s.pool, m_walker.streamOf(s.stream), s.small, s.size });
        draw(it->first, it->first, it->first + s.size);
    }
}

void RenderedMemory::redrawBlocks(uint64_t lo, uint64_t hi)
{
    // Every segment of the state that [lo, hi) touches.
    auto seg = m_state.segments.upper_bound(lo);
    if (seg != m_state.segments.begin() && std::prev(seg)->first + std::prev(seg)->second.totalSize > lo)
        --seg;
    for (; seg != m_state.segments.end() && seg->first < hi; ++seg) {
        const uint64_t base = seg->first, end = base + seg->second.totalSize;
        const uint64_t from = std::max(lo, base), to = std::min(hi, end);
        if (to <= from)
            continue;
        // Widen to the blocks holding the ends, and to a free neighbour on each side: a block freed
        // there merges with it.
        uint64_t l = from, h = to;
        auto b = m_state.blocks.upper_bound(from);
        if (b != m_state.blocks.begin() && std::prev(b)->first >= base) {
            --b;
            l = b->first;
            if (b != m_state.blocks.begin()) {
                auto before = std::prev(b);
                if (before->first >= base && before->second.segment == base && !before->second.allocated)
                    l = before->first;
            }
        }
        auto e = m_state.blocks.upper_bound(to - 1);
        if (e != m_state.blocks.begin() && std::prev(e)->first >= base) {
            --e;
            h = std::max(h, e->first + e->second.size);
            auto after = m_state.blocks.find(h);
            if (after != m_state.blocks.end() && after->second.segment == base && !after->second.allocated)
                h = after->first + after->second.size;
        }
        draw(base, l, std::min(h, end));
    }
}

runtime::MemoryDelta RenderedMemory::step(std::vector<TraceWalker::Changed>& changed, int event)
{
    // Coalesced ranges: segments first (drawn whole), then blocks.
    std::sort(changed.begin(), changed.end(), [](const TraceWalker::Changed& a, const TraceWalker::Changed& b) {
        return a.segments != b.segments ? a.segments : a.lo < b.lo;
    });
    for (size_t i = 0; i < changed.size();) {
        uint64_t lo = changed[i].lo, hi = changed[i].hi;
        const bool segments = changed[i].segments;
        size_t j = i + 1;
        for (; j < changed.size() && changed[j].segments == segments && changed[j].lo <= hi; ++j)
            hi = std::max(hi, changed[j].hi);
        if (segments)
            drawSegments(lo, hi);
        else
            redrawBlocks(lo, hi);
        i = j;
    }
    changed.clear();

    runtime::MemoryDelta d;
    d.event = event;
    for (const auto& [pool, was] : m_poolsBefore)
        if (bool(m_state.pools.count(pool)) != was)
            d.pools.emplace_back(pool, !was);
    for (const auto& [address, was] : m_segmentsBefore) {
        auto it = m_state.segments.find(address);
        std::optional<Segment> now;
        if (it != m_state.segments.end())
            now = it->second;
        if (!(now == was))
            d.segments.emplace_back(address, now);
    }
    for (const auto& [address, was] : m_blocksBefore) {
        auto it = m_state.blocks.find(address);
        std::optional<Block> now;
        if (it != m_state.blocks.end())
            now = it->second;
        if (!(now == was))
            d.blocks.emplace_back(address, now);
    }
    m_poolsBefore.clear();
    m_segmentsBefore.clear();
    m_blocksBefore.clear();
    return d;
}

} // namespace engine::snapshot::detail
