#pragma once
/// A real device's memory as PyTorch or torch_npu recorded it: the memory snapshot pickle that
/// `torch.cuda.memory._dump_snapshot()` / `torch_npu.npu.memory._dump_snapshot()` write (reference:
/// pytorch-artifact-formats.md §2c; what is read and how, docs/snapshots.md).
///
/// Reading streams. The file is read in chunks through the safe pickle opcodes (never importing or
/// calling anything; a class reference is refused) and every block, segment and trace entry dict is
/// turned into its compact struct as soon as the list holding it receives it, so the generic value
/// tree never exists for the whole file. Frames and frame lists are interned: a frame list shared
/// through the pickle memo is one StackId. Errors name the file, the byte offset and the opcode:
/// `snap.pickle: offset 1234: truncated BINUNICODE (needs 4000 bytes, 12 left)`.
///
/// Thread contract: readSnapshot* are reentrant (no shared state); a Snapshot is immutable data.
#include "engine/core/result.h"
#include "engine/memory/caching_allocator.h"
#include "engine/runtime/memory_timeline.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <new>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace engine::snapshot {

/// One Python (or C++) frame of a recorded stack.
struct Frame {
    std::string filename;
    int64_t line = 0;
    std::string name;
    std::string fxNodeOp, fxNodeName, fxOriginalTrace; ///< augment_with_fx_traces=True only
    bool operator==(const Frame& o) const
    {
        return line == o.line && filename == o.filename && name == o.name && fxNodeOp == o.fxNodeOp
            && fxNodeName == o.fxNodeName && fxOriginalTrace == o.fxOriginalTrace;
    }
};

/// Index into Snapshot::stacks. Equal frame lists (by content) have one id.
using StackId = uint32_t;
constexpr StackId kNoStack = UINT32_MAX;

/// "active_pending_free" (the C++ writer) and "active_awaiting_free" (the docstring) are both
/// ActivePendingFree.
enum class BlockState { ActiveAllocated, ActivePendingFree, Inactive };

struct Block {
    uint64_t address = 0, size = 0, requestedSize = 0;
    BlockState state = BlockState::Inactive;
    StackId stack = kNoStack;
};

struct Segment {
    int device = 0;
    uint64_t address = 0, totalSize = 0, allocatedSize = 0, activeSize = 0, requestedSize = 0;
    int64_t stream = 0; ///< the raw stream handle (0: the default stream)
    bool small = false; ///< segment_type "small"
    engine::memory::PoolId pool; ///< segment_pool_id; (0, 0) the default pool
    bool expandable = false;
    StackId stack = kNoStack;
    std::vector<Block> blocks; ///< address order, as the file lists them
};

enum class TraceAction : uint8_t {
    Alloc,
    FreeRequested,
    FreeCompleted,
    SegmentAlloc,
    SegmentFree,
    SegmentMap,
    SegmentUnmap,
    Oom,
    Snapshot,
    Annotate,
    Unknown
};
const char* traceActionName(TraceAction a); ///< "alloc", "free_requested", ...

/// Index into Snapshot::texts (Snapshot::text()); 0 is the empty text. Entries keep an id, not a
/// std::string, so that a trace entry is 64 bytes: a 1 GB snapshot holds about 15 million of them.
using TextId = uint32_t;

struct TraceEntry {
    TraceAction action = TraceAction::Unknown;
    bool hasPool = false; ///< the entry carried pool_id
    StackId stack = kNoStack;
    /// An oom entry has no address but the device's free bytes (PyTorch writes `device_free` in
    /// place of `addr` for it): one word holds either, which keeps an entry at 64 bytes.
    union {
        uint64_t addr = 0;
        uint64_t deviceFree; ///< oom only
    };
    uint64_t size = 0; ///< oom: size = the bytes requested
    int64_t stream = 0;
    int64_t timeUs = 0;
    engine::memory::PoolId pool;
    TextId userMetadata = 0; ///< user_metadata, or an annotate entry's payload
    TextId compileContext = 0; ///< compile_context (the torch.compile region), when recorded
};

/// One device's trace entries, in chunks of 32768 (2 MiB) that never move: it grows without
/// copying (a vector's doubling would hold two copies at its peak) and indexes like a vector. A
/// chunk is 2 MiB aligned and asks for transparent huge pages (memory_snapshot_list.cpp): filling
/// 1 GB of entries page by page was a third of the reader's time in page faults.
class TraceList {
public:
    static constexpr size_t kChunkBits = 15;
    static constexpr size_t kChunk = size_t(1) << kChunkBits;

    TraceList() = default;
    TraceList(const TraceList& o);
    TraceList& operator=(const TraceList& o);
    TraceList(TraceList&&) noexcept = default;
    TraceList& operator=(TraceList&&) noexcept = default;

    size_t size() const { return m_size; }
    bool empty() const { return m_size == 0; }
    const TraceEntry& operator[](size_t i) const { return m_chunks[i >> kChunkBits].get()[i & (kChunk - 1)]; }
    TraceEntry& operator[](size_t i) { return m_chunks[i >> kChunkBits].get()[i & (kChunk - 1)]; }
    const TraceEntry& back() const { return (*this)[m_size - 1]; }
    void push_back(const TraceEntry& e)
    {
        if (m_size % kChunk == 0)
            m_chunks.emplace_back(newChunk());
        new (&m_chunks.back().get()[m_size % kChunk]) TraceEntry(e);
        ++m_size;
    }

    class const_iterator {
    public:
        const_iterator(const TraceList* list, size_t i)
            : m_list(list)
            , m_i(i)
        {
        }
        const TraceEntry& operator*() const { return (*m_list)[m_i]; }
        const TraceEntry* operator->() const { return &(*m_list)[m_i]; }
        const_iterator& operator++()
        {
            ++m_i;
            return *this;
        }
        bool operator!=(const const_iterator& o) const { return m_i != o.m_i; }
        bool operator==(const const_iterator& o) const { return m_i == o.m_i; }

    private:
        const TraceList* m_list;
        size_t m_i;
    };
    const_iterator begin() const { return { this, 0 }; }
    const_iterator end() const { return { this, m_size }; }

private:
    struct FreeChunk {
        void operator()(TraceEntry* p) const;
    };
    using Chunk = std::unique_ptr<TraceEntry, FreeChunk>;
    static Chunk newChunk();
    std::vector<Chunk> m_chunks;
    size_t m_size = 0;
};

struct Snapshot {
    std::string path;
    int protocol = 0; ///< the pickle protocol
    std::vector<Segment> segments;
    std::vector<TraceList> deviceTraces; ///< index: the device ordinal
    std::vector<Frame> frames; ///< distinct frames
    std::vector<std::vector<uint32_t>> stacks; ///< StackId -> frame indices, innermost first
    std::vector<std::pair<std::string, std::string>> allocatorSettings; ///< values as Python repr-ish text
    std::vector<std::string> texts { std::string() }; ///< TraceEntry's TextIds; texts[0] is ""
    std::vector<std::string> warnings;
    bool bareList = false; ///< the old form: the file holds only the segment list

    const std::string& text(TextId id) const { return id < texts.size() ? texts[id] : texts[0]; }
};

struct ReadOptions {
    uint64_t maxBytes = uint64_t(64) << 30; ///< larger files are refused
    /// Called about every 16 MiB with (bytes read, total); returning false cancels the read (an
    /// Error with ErrorCode::Cancelled, message "cancelled"). May be empty.
    std::function<bool(uint64_t done, uint64_t total)> progress;
};

/// Reads the file in chunks (its bytes are never held whole).
Result<Snapshot> readSnapshotFile(const std::string& path, const ReadOptions& options = {});
/// The same from bytes already in memory; `path` names them in errors.
Result<Snapshot> readSnapshot(std::string_view bytes, const std::string& path, const ReadOptions& options = {});

/// "file:line name" of the first frame of `stack` that is not the unwinder, the CPython
/// evaluator or a torch-internal helper (the allocator, the memory recorder, module call
/// plumbing), with " [fx: NODE]" when that frame names an FX node; "" for kNoStack.
std::string describeStack(const Snapshot& snapshot, StackId stack);

/// One pool of one device.
struct PoolSummary {
    engine::memory::PoolId pool;
    int device = 0;
    int segments = 0;
    uint64_t reserved = 0, allocated = 0, active = 0, requested = 0; ///< final, from the segments
    /// High-water marks over the trace replay (replayTrace); equal to the final values when the
    /// device has no trace or the pool never appears in it.
    uint64_t peakReserved = 0, peakAllocated = 0;
    std::string graph; ///< which captured graph the pool belongs to, where the file tells; else ""
    std::string graphEvidence; ///< why (docs/snapshots.md lists the rules)
};

/// Per (device, pool), sorted by device then pool id: default pool first.
std::vector<PoolSummary> summarizePools(const Snapshot& snapshot);
/// The same with progress: (done, total) work units, four per trace entry of every device (the
/// replay and the story's, snapshot_story.h, each undoing and applying it), every few thousand
/// entries; false cancels (ErrorCode::Cancelled).
Result<std::vector<PoolSummary>> summarizePools(
    const Snapshot& snapshot, const std::function<bool(uint64_t done, uint64_t total)>& progress);
struct SnapshotHints;
struct SnapshotStory;
/// The same, the pools named with `hints` (a TORCH_TRACE of the same run, snapshot_story.h; may be
/// null); when `stories` is given, the story told for each device goes there (ascending device) so
/// that a caller streaming the runs (SnapshotRunOptions::story) does not tell it again.
Result<std::vector<PoolSummary>> summarizePools(const Snapshot& snapshot,
    const std::function<bool(uint64_t done, uint64_t total)>& progress, const SnapshotHints* hints,
    std::vector<SnapshotStory>* stories);

/// The memory of one device over its trace.
///
/// Event i of `timeline` is the state *after* trace entry i (so eventCount() == entries); the state
/// before the first entry is `initial`. The last event equals the final segments of the file for
/// that device (the file's state is authoritative). States are rebuilt backwards from the final
/// segments, undoing one entry at a time, because the trace is a ring buffer that may start
/// mid-life: a free whose alloc is not in the window was allocated before the window, and a segment
/// freed in the window existed before it. Block owners are the index of the trace entry that
/// allocated the block, or kNoOwner when that was before the window. A MemoryState block is
/// `allocated` when it is active (allocated or pending free); the free blocks of a segment are its
/// gaps between active blocks. Blocks made and freed inside the window are sized by the allocator's
/// split rule under the file's allocator_settings (docs/snapshots.md). Cost: each event diffs
/// the whole state, O(entries x blocks); fine for traces of up to about 10^5 entries. It is the
/// plain statement of the replay, which the tests hold the bounded one (streamSnapshotRun in
/// snapshot_run.h: what the import and the report use) against.
struct TraceTimeline {
    int device = 0;
    engine::runtime::MemoryState initial; ///< before the first entry
    engine::runtime::MemoryTimeline timeline;
    /// MemoryState's stream ids index this: the raw handles, the final segments' first, then the
    /// trace's, each once in order of appearance.
    std::vector<int64_t> streams;
    std::vector<std::string> warnings; ///< entries that disagree with the state, at most 100
};
Result<TraceTimeline> replayTrace(const Snapshot& snapshot, int device);

} // namespace engine::snapshot
