#pragma once
/// Replaying one device's trace (internal to engine/snapshot): the final segments of the file are
/// the truth, the trace is undone from its last entry to its first to find the state before the
/// window (a ring buffer may start mid-life), then applied forward entry by entry. What undoing
/// forgets (the size of a block, the pool of a segment) is kept per entry for the forward pass, so
/// the forward pass ends exactly at the file's state when the trace agrees with it.
///
/// Blocks: only active ones (allocated or pending free) are tracked; the free blocks of a segment
/// are its gaps, as the caching allocator merges free neighbours.
///
/// Block sizes follow the allocator's split rule (docs/snapshots.md, "Replaying the trace"): an
/// alloc in the forward pass takes the gap that starts at its address, and the block is the whole
/// gap when should_split would not cut it (a large block keeping 1 MiB or less, a request of
/// max_split_size or more), else the request rounded as round_size rounds it, under the file's
/// allocator_settings. Blocks still active at the end keep the file's real size.
#include "engine/snapshot/memory_snapshot.h"

#include <functional>
#include <map>
#include <unordered_map>

namespace engine::snapshot::detail {

/// NotFound unless the snapshot has a segment or a trace for `device`.
Result<void> checkDevice(const Snapshot& snapshot, int device);

class TraceWalker {
public:
    struct Seg {
        memory::PoolId pool;
        int64_t stream = 0;
        bool small = false;
        bool expandable = false;
        uint64_t size = 0;
    };
    struct Live {
        uint64_t size = 0, requested = 0;
        bool pending = false; ///< free requested, not completed
        int64_t owner = memory::kNoOwner; ///< the alloc entry's index; kNoOwner before the window
        memory::PoolId pool; ///< of its segment when it was made (the totals are per pool)
        /// The size is the file's (a block of the final segments). False for a block whose free
        /// the trace shows while undoing: its size is guessed from the request until the forward
        /// pass makes it by the split rule.
        bool known = true;
    };
    struct Totals {
        uint64_t reserved = 0, allocated = 0; ///< allocated: not pending
    };

    /// An address range [lo, hi) the forward pass changed: a block made or freed there
    /// (`segments` false), or a segment made, removed, grown or cut there (true: its whole extent,
    /// before and after).
    struct Changed {
        uint64_t lo = 0, hi = 0;
        bool segments = false;
    };

    TraceWalker(const Snapshot& snapshot, int device);

    /// Undoes the trace, then calls `after(i)` after applying each entry i (the walker's state is
    /// the state after entry i). `before()` is called once with the state before the first entry.
    /// `tick(done)`, when given, is called every 4,096 entries undone or applied (done counts both
    /// passes, up to twice the entries); false stops the walk, and run() returns false.
    bool run(const std::function<void()>& before, const std::function<void(size_t)>& after,
        const std::function<bool(uint64_t done)>& tick = {});
    /// From now on, append every range the forward pass changes to `into` (null: stop).
    void recordChanges(std::vector<Changed>* into) { m_changed = into; }
    /// Device-wide: bytes of every segment, and of every active block (pending frees included).
    uint64_t deviceReserved() const { return m_deviceReserved; }
    uint64_t deviceActive() const { return m_deviceActive; }

    const std::map<uint64_t, Seg>& segments() const { return m_segs; }
    const std::map<uint64_t, Live>& live() const { return m_live; }
    /// The stream index of a raw handle (its position in streams()).
    int streamOf(int64_t handle) const;
    const std::map<memory::PoolId, Totals>& totals() const { return m_totals; }
    const std::vector<std::string>& warnings() const { return m_warnings; }
    /// How many blocks the forward pass had to cut back (cutBefore): allocs the split rule, as read
    /// from the file's settings, did not foresee. 0 for a whole trace of PyTorch's own allocator.
    size_t ruleDisagreements() const { return m_cuts; }
    /// The state as the simulator's MemoryState; streams as indices into streams().
    runtime::MemoryState state() const;
    const std::vector<int64_t>& streams() const { return m_streams; }

private:
    void undo(size_t i);
    void apply(size_t i);
    void addSeg(uint64_t addr, const Seg& s);
    bool removeSeg(uint64_t addr, Seg* removed);
    void addLive(uint64_t addr, const Live& l);
    bool removeLive(uint64_t addr, Live* removed);
    void setPending(uint64_t addr, bool pending, size_t i);
    /// [addr, addr+size) mapped (true) or unmapped (false) in an expandable segment.
    void map(uint64_t addr, uint64_t size, const Seg& like);
    bool unmap(uint64_t addr, uint64_t size, Seg* removed);
    const Seg* segmentOf(uint64_t addr, uint64_t* base = nullptr) const;
    /// The block an alloc entry makes when nothing else is known of it, in the current state: the
    /// gap at its address, cut or not as should_split says (see above), in the pool of the segment.
    Live madeBy(const TraceEntry& e) const;
    /// An alloc at `addr` inside an active block that madeBy left whole: the allocator that wrote
    /// the file split where the rule (as read) would not (another version, another device's
    /// allocator, a trace that began mid-life), so the block ends at `addr`.
    void cutBefore(uint64_t addr);
    void changed(uint64_t lo, uint64_t size, bool segments);
    void warn(size_t i, const std::string& what);
    int streamIndex(int64_t handle);

    const TraceList* m_trace = nullptr;
    memory::AllocatorConfig m_rules; ///< the file's allocator_settings: rounding and should_split
    std::map<uint64_t, Seg> m_segs;
    std::map<uint64_t, Live> m_live;
    std::map<memory::PoolId, Totals> m_totals;
    /// Per alloc entry whose block is still active at the end: that block as the file tells it
    /// (real size, requested size, pool). Every other alloc is madeBy in the forward pass.
    std::unordered_map<size_t, Live> m_allocs;
    std::unordered_map<size_t, Seg> m_segInfo; ///< per segment entry: the segment it made or removed
    std::vector<std::string> m_warnings;
    std::vector<int64_t> m_streams;
    std::vector<Changed>* m_changed = nullptr;
    uint64_t m_deviceReserved = 0, m_deviceActive = 0;
    size_t m_cuts = 0;
};

} // namespace engine::snapshot::detail
