#include "engine/snapshot/trace_walker.h"

#include <algorithm>
#include <cstdlib>

namespace engine::snapshot::detail {

namespace {

constexpr uint64_t kSmallSegment = uint64_t(2) << 20; ///< kSmallBuffer: only small pools use 2 MiB segments
constexpr uint64_t kSmallSize = uint64_t(1) << 20; ///< kSmallSize: larger rounded sizes use the large pool

/// The allocator settings that decide block sizes, from the file's allocator_settings (values as
/// the reader renders them: `-1`, `True`, `{'1': 0, '2': 4, ...}`); what is absent keeps PyTorch's
/// default. NPU files (torch_npu's settings name PYTORCH_NPU_ALLOC_CONF) pad each request by 32 bytes.
memory::AllocatorConfig settingsRules(const Snapshot& snapshot)
{
    memory::AllocatorConfig c;
    c.profile = memory::Profile::Cuda;
    for (const auto& [name, value] : snapshot.allocatorSettings) {
        if (name.find("NPU") != std::string::npos)
            c.profile = memory::Profile::Npu;
        if (name == "max_split_size") {
            char* end = nullptr;
            const long long v = std::strtoll(value.c_str(), &end, 10);
            if (end != value.c_str() && v > 0) // -1: SIZE_MAX as int64, unlimited
                c.maxSplitSize = uint64_t(v);
        } else if (name == "expandable_segments") {
            c.expandableSegments = value == "True" || value == "true" || value == "1";
        } else if (name == "roundup_power2_divisions") {
            // One count per power-of-two interval of MiB: {'1': d0, '2': d1, ...}, in key order.
            std::vector<std::pair<uint64_t, unsigned>> buckets;
            for (size_t pos = 0; (pos = value.find('\'', pos)) != std::string::npos;) {
                const size_t close = value.find('\'', pos + 1);
                const size_t colon = close == std::string::npos ? close : value.find(':', close);
                if (colon == std::string::npos)
                    break;
                buckets.emplace_back(std::strtoull(value.c_str() + pos + 1, nullptr, 10),
                    unsigned(std::strtoul(value.c_str() + colon + 1, nullptr, 10)));
                pos = colon;
            }
            std::sort(buckets.begin(), buckets.end());
            c.roundupPower2Buckets.clear();
            for (const auto& b : buckets)
                c.roundupPower2Buckets.push_back(b.second);
            if (c.roundupPower2Buckets.empty()) // a plain count
                c.roundupPower2Divisions = unsigned(std::strtoul(value.c_str(), nullptr, 10));
        }
    }
    return c;
}

void subtract(uint64_t& total, uint64_t n)
{
    total = total >= n ? total - n : 0;
}

std::string hex(uint64_t v)
{
    static const char digits[] = "0123456789abcdef";
    std::string s;
    do {
        s.insert(s.begin(), digits[v & 15]);
        v >>= 4;
    } while (v);
    return "0x" + s;
}

} // namespace

Result<void> checkDevice(const Snapshot& snapshot, int device)
{
    bool known = device >= 0 && size_t(device) < snapshot.deviceTraces.size();
    for (const Segment& s : snapshot.segments)
        known = known || s.device == device;
    if (!known)
        return makeError(ErrorCode::NotFound,
            "device " + std::to_string(device) + " has neither segments nor a trace in the snapshot", snapshot.path);
    return {};
}

TraceWalker::TraceWalker(const Snapshot& snapshot, int device)
    : m_rules(settingsRules(snapshot))
{
    if (device >= 0 && size_t(device) < snapshot.deviceTraces.size())
        m_trace = &snapshot.deviceTraces[size_t(device)];
    for (const Segment& s : snapshot.segments) {
        if (s.device != device)
            continue;
        streamIndex(s.stream);
        addSeg(s.address, Seg { s.pool, s.stream, s.small, s.expandable, s.totalSize });
        for (const Block& b : s.blocks)
            if (b.state != BlockState::Inactive)
                addLive(b.address,
                    Live {
                        b.size, b.requestedSize, b.state == BlockState::ActivePendingFree, memory::kNoOwner, s.pool });
    }
    if (m_trace)
        for (const TraceEntry& e : *m_trace)
            streamIndex(e.stream);
}

int TraceWalker::streamOf(int64_t handle) const
{
    return int(std::find(m_streams.begin(), m_streams.end(), handle) - m_streams.begin());
}

TraceWalker::Live TraceWalker::madeBy(const TraceEntry& e) const
{
    uint64_t base = 0;
    const Seg* seg = segmentOf(e.addr, &base);
    const uint64_t n = memory::roundRequest(m_rules, e.size);
    Live l { n, e.size, false, memory::kNoOwner, seg ? seg->pool : (e.hasPool ? e.pool : memory::PoolId {}) };
    if (!seg)
        return l;
    // The free block the allocator took starts here and runs to the next active block or the end
    // of the segment (an expandable segment's mapped range: its unmapped rest is not free memory).
    uint64_t end = base + seg->size;
    if (auto next = m_live.upper_bound(e.addr); next != m_live.end() && next->first < end)
        end = next->first;
    if (end - e.addr > n && !memory::shouldSplit(m_rules, n <= kSmallSize || seg->expandable, n, end - e.addr - n))
        l.size = end - e.addr;
    return l;
}

void TraceWalker::changed(uint64_t lo, uint64_t size, bool segments)
{
    if (m_changed)
        m_changed->push_back({ lo, size > ~lo ? ~uint64_t(0) : lo + size, segments });
}

int TraceWalker::streamIndex(int64_t handle)
{
    auto it = std::find(m_streams.begin(), m_streams.end(), handle);
    if (it != m_streams.end())
        return int(it - m_streams.begin());
    m_streams.push_back(handle);
    return int(m_streams.size() - 1);
}

void TraceWalker::warn(size_t i, const std::string& what)
{
    if (m_warnings.size() < 100)
        m_warnings.push_back("trace entry " + std::to_string(i) + ": " + what);
}

const TraceWalker::Seg* TraceWalker::segmentOf(uint64_t addr, uint64_t* base) const
{
    auto it = m_segs.upper_bound(addr);
    if (it == m_segs.begin())
        return nullptr;
    --it;
    if (addr - it->first >= it->second.size)
        return nullptr;
    if (base)
        *base = it->first;
    return &it->second;
}

void TraceWalker::addSeg(uint64_t addr, const Seg& s)
{
    removeSeg(addr, nullptr); // a segment made where one is: an inconsistent trace; the new one stands
    m_segs[addr] = s;
    m_totals[s.pool].reserved += s.size;
    m_deviceReserved += s.size;
    changed(addr, s.size, true);
}

bool TraceWalker::removeSeg(uint64_t addr, Seg* removed)
{
    auto it = m_segs.find(addr);
    if (it == m_segs.end())
        return false;
    subtract(m_totals[it->second.pool].reserved, it->second.size);
    subtract(m_deviceReserved, it->second.size);
    changed(addr, it->second.size, true);
    if (removed)
        *removed = it->second;
    m_segs.erase(it);
    return true;
}

void TraceWalker::addLive(uint64_t addr, const Live& l)
{
    removeLive(addr, nullptr);
    m_live[addr] = l;
    if (!l.pending)
        m_totals[l.pool].allocated += l.size;
    m_deviceActive += l.size;
    changed(addr, l.size, false);
}

bool TraceWalker::removeLive(uint64_t addr, Live* removed)
{
    auto it = m_live.find(addr);
    if (it == m_live.end())
        return false;
    if (!it->second.pending)
        subtract(m_totals[it->second.pool].allocated, it->second.size);
    subtract(m_deviceActive, it->second.size);
    changed(addr, it->second.size, false);
    if (removed)
        *removed = it->second;
    m_live.erase(it);
    return true;
}

void TraceWalker::setPending(uint64_t addr, bool pending, size_t i)
{
    auto it = m_live.find(addr);
    if (it == m_live.end()) {
        warn(i, "free of " + hex(addr) + ", which is not an active block there");
        return;
    }
    if (it->second.pending == pending)
        return;
    it->second.pending = pending;
    if (pending)
        subtract(m_totals[it->second.pool].allocated, it->second.size);
    else
        m_totals[it->second.pool].allocated += it->second.size;
}

void TraceWalker::cutBefore(uint64_t addr)
{
    auto it = m_live.lower_bound(addr);
    if (it == m_live.begin())
        return;
    --it;
    Live& l = it->second;
    if (it->first + l.size <= addr || addr - it->first < l.requested)
        return; // no overlap, or one the request itself covers: an inconsistent trace, left as it is
    const uint64_t cut = it->first + l.size - addr;
    ++m_cuts;
    changed(addr, cut, false);
    l.size -= cut;
    if (!l.pending)
        subtract(m_totals[l.pool].allocated, cut);
    subtract(m_deviceActive, cut);
}

void TraceWalker::map(uint64_t addr, uint64_t size, const Seg& like)
{
    Seg s = like;
    s.size = size;
    s.expandable = true;
    uint64_t base = addr;
    auto same = [&](const Seg& o) { return o.expandable && o.pool == s.pool && o.stream == s.stream; };
    auto left = m_segs.lower_bound(addr);
    if (left != m_segs.begin()) {
        --left;
        if (left->first + left->second.size == addr && same(left->second)) { // neighbours merge
            base = left->first;
            s.size += left->second.size;
            removeSeg(base, nullptr);
        }
    }
    auto right = m_segs.find(addr + size);
    if (right != m_segs.end() && same(right->second)) {
        s.size += right->second.size;
        removeSeg(addr + size, nullptr);
    }
    addSeg(base, s);
}

bool TraceWalker::unmap(uint64_t addr, uint64_t size, Seg* removed)
{
    uint64_t base = 0;
    const Seg* found = segmentOf(addr, &base);
    if (!found || addr + size > base + found->size)
        return false;
    const Seg s = *found;
    if (removed)
        *removed = s;
    removeSeg(base, nullptr);
    if (base < addr) {
        Seg head = s;
        head.size = addr - base;
        addSeg(base, head);
    }
    if (addr + size < base + s.size) {
        Seg tail = s;
        tail.size = base + s.size - (addr + size);
        addSeg(addr + size, tail);
    }
    return true;
}

void TraceWalker::undo(size_t i)
{
    const TraceEntry& e = (*m_trace)[i];
    // What a segment entry tells of its segment's kind: small pools use 2 MiB segments, and an
    // expandable segment of the small pool maps 2 MiB pages where the large one maps whole large
    // segments (20 MiB by default), so a mapped range that is no multiple of those is small.
    const bool mapping = e.action == TraceAction::SegmentMap || e.action == TraceAction::SegmentUnmap;
    const bool small = mapping ? e.size % m_rules.largeSegmentSize != 0 : e.size == kSmallSegment;
    Seg fromEntry { e.hasPool ? e.pool : memory::PoolId {}, e.stream, small, mapping, e.size };
    switch (e.action) {
    case TraceAction::Alloc: {
        Live l;
        if (!removeLive(e.addr, &l)) {
            warn(i, "alloc of " + hex(e.addr) + ", which is not an active block after it");
            break; // madeBy(e) when applied
        }
        if (l.known) // a block of the file: the forward pass keeps its real size
            m_allocs[i] = l;
        break;
    }
    case TraceAction::FreeRequested:
        setPending(e.addr, false, i);
        break;
    case TraceAction::FreeCompleted: {
        // Before it the block was active, pending since its free_requested (undone next, if in the window).
        const Seg* seg = segmentOf(e.addr);
        if (!seg)
            warn(i, "free of " + hex(e.addr) + ", which lies in no segment");
        if (m_live.count(e.addr))
            warn(i, "free of " + hex(e.addr) + ", which is still active after it");
        addLive(e.addr,
            Live { memory::roundRequest(m_rules, e.size), e.size, true, memory::kNoOwner,
                seg ? seg->pool : fromEntry.pool, false });
        break;
    }
    case TraceAction::SegmentAlloc: {
        Seg s;
        if (!removeSeg(e.addr, &s)) {
            warn(i, "segment_alloc of " + hex(e.addr) + ", which is no segment after it");
            s = fromEntry;
        }
        m_segInfo[i] = s;
        break;
    }
    case TraceAction::SegmentFree:
        if (segmentOf(e.addr))
            warn(i, "segment_free of " + hex(e.addr) + ", which is still a segment after it");
        addSeg(e.addr, fromEntry);
        m_segInfo[i] = fromEntry;
        break;
    case TraceAction::SegmentMap: {
        Seg s = fromEntry;
        if (!unmap(e.addr, e.size, &s))
            warn(i, "segment_map of " + hex(e.addr) + ", which is not mapped after it");
        m_segInfo[i] = s;
        break;
    }
    case TraceAction::SegmentUnmap: {
        Seg like = fromEntry;
        if (!e.hasPool) // the neighbour it was cut from tells the pool and stream
            if (const Seg* n = segmentOf(e.addr == 0 ? 0 : e.addr - 1))
                like = *n;
        map(e.addr, e.size, like);
        m_segInfo[i] = like;
        break;
    }
    default:
        break;
    }
}

void TraceWalker::apply(size_t i)
{
    const TraceEntry& e = (*m_trace)[i];
    switch (e.action) {
    case TraceAction::Alloc: {
        auto known = m_allocs.find(i);
        cutBefore(e.addr);
        Live l = known != m_allocs.end() ? known->second : madeBy(e);
        l.owner = int64_t(i);
        l.pending = false;
        addLive(e.addr, l);
        break;
    }
    case TraceAction::FreeRequested:
        if (auto it = m_live.find(e.addr); it != m_live.end() && !it->second.pending)
            setPending(e.addr, true, i);
        break;
    case TraceAction::FreeCompleted:
        removeLive(e.addr, nullptr);
        break;
    case TraceAction::SegmentAlloc:
        addSeg(e.addr, m_segInfo[i]);
        break;
    case TraceAction::SegmentFree:
        removeSeg(e.addr, nullptr);
        break;
    case TraceAction::SegmentMap:
        map(e.addr, e.size, m_segInfo[i]);
        break;
    case TraceAction::SegmentUnmap:
        unmap(e.addr, e.size, nullptr);
        break;
    default:
        break;
    }
}

bool TraceWalker::run(const std::function<void()>& before, const std::function<void(size_t)>& after,
    const std::function<bool(uint64_t done)>& tick)
{
    constexpr size_t kTick = 4096;
    const size_t n = m_trace ? m_trace->size() : 0;
    std::vector<Changed>* record = m_changed;
    m_changed = nullptr; // undoing changes nothing the caller sees
    for (size_t i = n; i-- > 0;) {
        undo(i);
        if (tick && (n - i) % kTick == 0 && !tick(n - i))
            return false;
    }
    m_changed = record;
    if (before)
        before();
    for (size_t i = 0; i < n; ++i) {
        apply(i);
        if (after)
            after(i);
        if (tick && (i + 1) % kTick == 0 && !tick(n + i + 1))
            return false;
    }
    return true;
}

runtime::MemoryState TraceWalker::state() const
{
    runtime::MemoryState st;
    const auto index = [&](int64_t handle) { return streamOf(handle); };
    for (const auto& [segAddr, s] : m_segs) {
        const uint64_t addr = segAddr; // a lambda cannot capture a structured binding in C++17
        st.pools.insert(s.pool);
        st.segments[addr] = runtime::MemoryState::Segment { s.pool, index(s.stream), s.small, s.size };
        uint64_t next = addr;
        const uint64_t end = addr + s.size;
        const auto gap = [&](uint64_t upTo) {
            if (upTo > next)
                st.blocks[next] = runtime::MemoryState::Block { addr, upTo - next, 0, false, memory::kNoOwner };
        };
        for (auto it = m_live.lower_bound(addr); it != m_live.end() && it->first < end; ++it) {
            if (it->first < next) // overlaps the previous block: an inconsistent trace; keep the first
                continue;
            gap(it->first);
            const uint64_t size = std::min(it->second.size, end - it->first);
            st.blocks[it->first]
                = runtime::MemoryState::Block { addr, size, it->second.requested, true, it->second.owner };
            next = it->first + size;
        }
        gap(end);
    }
    return st;
}

} // namespace engine::snapshot::detail
