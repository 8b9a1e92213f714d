#pragma once
/// The memory of a replayed trace as the project stores it (internal to engine/snapshot): a
/// runtime::MemoryState kept up to date from the TraceWalker's changes, one step at a time, so a
/// step's delta costs what the step changed rather than what the device holds. Only the address
/// ranges the walker reports as changed are drawn again; a freed block merges with its free
/// neighbours as the caching allocator merges them. The state is the project's truth: keyframes
/// are copies of it and deltas its changes, so stepping is consistent even where an inconsistent
/// trace makes the drawing differ from a full one (TraceWalker::state).
#include "engine/runtime/memory_timeline.h"
#include "engine/snapshot/trace_walker.h"

#include <functional>
#include <map>
#include <optional>
#include <unordered_map>
#include <vector>

namespace engine::snapshot::detail {

class RenderedMemory {
public:
    /// Starts from the walker's state as it is (call it in TraceWalker::run's `before`).
    /// `newOwner(entry)` is called once per trace entry whose block first enters the state and
    /// returns that owner's id.
    RenderedMemory(const TraceWalker& walker, std::function<memory::OwnerId(int64_t entry)> newOwner);

    /// Draws the ranges the walker changed since the last call again and returns what changed in
    /// the state, as the delta of `event`.
    runtime::MemoryDelta step(std::vector<TraceWalker::Changed>& changed, int event);

    const runtime::MemoryState& state() const { return m_state; }
    size_t size() const { return m_state.segments.size() + m_state.blocks.size(); }
    uint64_t reserved() const { return m_reserved; }
    uint64_t allocated() const { return m_allocated; } ///< active blocks, pending frees included

private:
    using Segment = runtime::MemoryState::Segment;
    using Block = runtime::MemoryState::Block;
    void setSegment(uint64_t address, std::optional<Segment> value);
    void setBlock(uint64_t address, std::optional<Block> value);
    /// Draws the walker's active blocks in [lo, hi) of the segment at `segment` (free gaps between
    /// them), replacing the state's blocks there.
    void draw(uint64_t segment, uint64_t lo, uint64_t hi);
    /// Draws the segments the walker has with their start in [lo, hi), replacing the state's.
    void drawSegments(uint64_t lo, uint64_t hi);
    void redrawBlocks(uint64_t lo, uint64_t hi);
    memory::OwnerId ownerOf(int64_t entry);

    const TraceWalker& m_walker;
    std::function<memory::OwnerId(int64_t)> m_newOwner;
    std::unordered_map<int64_t, memory::OwnerId> m_owners;
    runtime::MemoryState m_state;
    std::map<memory::PoolId, int> m_poolSegments;
    uint64_t m_reserved = 0, m_allocated = 0;
    // This step's first-seen values, to report net changes only.
    std::map<uint64_t, std::optional<Segment>> m_segmentsBefore;
    std::map<uint64_t, std::optional<Block>> m_blocksBefore;
    std::map<memory::PoolId, bool> m_poolsBefore;
};

} // namespace engine::snapshot::detail
