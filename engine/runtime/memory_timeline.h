#pragma once
/// Device memory over a simulation, kept as changes: after each event, the segments and blocks that
/// appeared, changed or went away, plus a full state now and then (KeyframeRule) so any step is
/// rebuilt by applying a bounded number of changes to the nearest earlier keyframe. The simulator
/// feeds it through SimulationOptions::observeMemory; the project database stores exactly these
/// changes and keyframes (storage/run_store.h).
///
/// The allocator also lists pools that hold no segment (a private pool right after compile, held by
/// its use count), and Event::memory shows them as empty pools. MemoryState keeps that list
/// (`pools`), and the timeline writes a keyframe at every event whose list changed, so the stored
/// segment and block changes never have to say anything about pools.
#include "engine/core/result.h"
#include "engine/memory/caching_allocator.h"
#include "engine/memory/device_allocators.h"
#include "engine/runtime/events.h"

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace engine::runtime {

/// Every segment and block of the device at one instant, keyed by address.
struct MemoryState {
    struct Segment {
        memory::PoolId pool;
        memory::StreamId stream = 0;
        bool small = false;
        uint64_t totalSize = 0;
        bool operator==(const Segment& o) const
        {
            return pool == o.pool && stream == o.stream && small == o.small && totalSize == o.totalSize;
        }
    };
    struct Block {
        uint64_t segment = 0; ///< address of the segment holding it
        uint64_t size = 0;
        uint64_t requested = 0;
        bool allocated = false;
        memory::OwnerId owner = memory::kNoOwner;
        bool operator==(const Block& o) const
        {
            return segment == o.segment && size == o.size && requested == o.requested && allocated == o.allocated
                && owner == o.owner;
        }
    };
    /// Every pool the allocator lists (CachingAllocator::pools()): those with segments and those held
    /// by a use count without any.
    std::set<memory::PoolId> pools;
    std::map<uint64_t, Segment> segments;
    std::map<uint64_t, Block> blocks;

    /// The pools are those of the segments (fromAllocator also knows the empty held ones).
    static MemoryState fromSegments(const std::vector<memory::SegmentInfo>& segments);
    static MemoryState fromAllocator(const memory::CachingAllocator& allocator);
    /// Every device's segments and pools: the devices' address ranges never overlap
    /// (memory::deviceAddressBase), so one state holds them all and an address tells its device.
    static MemoryState fromAllocator(const memory::DeviceAllocators& allocators);
    /// Per pool (sorted by pool id), segments in address order with their blocks and totals: what
    /// Event::memory holds when SimulationOptions::recordMemory is on.
    std::vector<PoolSnapshot> snapshot() const;
    bool operator==(const MemoryState& o) const
    {
        return pools == o.pools && segments == o.segments && blocks == o.blocks;
    }

    /// A compact binary form for keyframes; decode() rejects anything it did not write.
    std::string encode() const;
    static Result<MemoryState> decode(std::string_view bytes);
};

/// What changed at one event: a segment or block with no value went away; a pool with `false` left
/// the allocator's list, with `true` joined it.
struct MemoryDelta {
    int event = 0;
    std::vector<std::pair<memory::PoolId, bool>> pools;
    std::vector<std::pair<uint64_t, std::optional<MemoryState::Segment>>> segments;
    std::vector<std::pair<uint64_t, std::optional<MemoryState::Block>>> blocks;
    bool empty() const { return pools.empty() && segments.empty() && blocks.empty(); }
};

/// The changes that turn `before` into `after`, in address order.
MemoryDelta diffMemory(const MemoryState& before, const MemoryState& after, int event);
void applyMemory(MemoryState& state, const MemoryDelta& delta);

/// When a timeline keeps a full state (a keyframe) after an event: at the first event, at every
/// event that changed the list of pools, and once the changes since the last keyframe add up to as
/// many as the state itself holds, and at least `interval`. So a step is rebuilt by decoding one
/// state and applying at most about as many changes again, however large the state; and the
/// keyframes together hold no more entries than the changes do, however long the run.
class KeyframeRule {
public:
    explicit KeyframeRule(int interval = 256)
        : m_interval(interval > 0 ? interval : 256)
    {
    }
    int interval() const { return m_interval; }
    /// After an event that made `changes` segment and block changes and `poolsChanged`, leaving a
    /// state of `stateSize` segments and blocks: whether to keep it whole. Counts from there.
    bool due(size_t changes, size_t stateSize, bool poolsChanged);

private:
    int m_interval;
    bool m_first = true;
    size_t m_since = 0; ///< changes since the last keyframe
};

class MemoryTimeline {
public:
    explicit MemoryTimeline(int keyframeInterval = 256)
        : m_rule(keyframeInterval)
    {
    }
    /// Records the state after event `event` (events come in order, 0, 1, 2, ...).
    void observe(int event, const std::vector<memory::SegmentInfo>& segments);
    /// The same from the allocator itself, empty held pools included: what observeMemory passes.
    void observe(int event, const memory::CachingAllocator& allocator);
    void observe(int event, const memory::DeviceAllocators& allocators);
    /// The same from a state already built.
    void observe(int event, MemoryState state);
    /// Event `delta.event` (the next one) as its changes, and its whole state when the caller kept
    /// one there (a RunSink step); without one, the state is rebuilt from the changes.
    void append(MemoryDelta delta, const MemoryState* keyframe);

    int keyframeInterval() const { return m_rule.interval(); }
    int eventCount() const { return m_events; }
    /// One per event that changed something, in event order.
    const std::vector<MemoryDelta>& deltas() const { return m_deltas; }
    /// (event, state after it) where KeyframeRule keeps one, in event order.
    const std::vector<std::pair<int, MemoryState>>& keyframes() const { return m_keyframes; }
    /// The state after `event`, rebuilt from the nearest keyframe.
    Result<MemoryState> stateAt(int event) const;

private:
    KeyframeRule m_rule;
    int m_events = 0;
    MemoryState m_current;
    std::vector<MemoryDelta> m_deltas;
    std::vector<std::pair<int, MemoryState>> m_keyframes;
};

} // namespace engine::runtime
