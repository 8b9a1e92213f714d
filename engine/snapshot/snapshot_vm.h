#pragma once
/// The streaming pickle machine behind readSnapshot (internal to engine/snapshot). It runs the
/// binary opcodes with CPython's stack, mark and memo rules, like engine/pickle's Reader (whose
/// opcode table, names and integer codecs it shares), but its values are 16-byte handles and it
/// never keeps a value tree: a dict becomes a Block, Segment or TraceEntry the moment a list
/// receives it, a frame dict becomes an interned Frame and a list of frames an interned stack the
/// moment anything receives them. A container is complete when it is received (pickle.py writes
/// every container before the one holding it), so one changed afterwards is an error here.
///
/// Input comes through SnapshotInput: the bytes of a file read in chunks, or a view of bytes
/// already in memory. snapshot_vm.cpp runs the opcodes; snapshot_records.cpp converts the dicts.
#include "engine/snapshot/memory_snapshot.h"

#include <algorithm>
#include <cstdio>
#include <deque>
#include <iterator>
#include <memory>
#include <optional>
#include <unordered_map>

namespace engine::snapshot::detail {

/// A window onto the input: everything at once (a view), or a file refilled in chunks.
class SnapshotInput {
public:
    explicit SnapshotInput(std::string_view bytes)
        : m_window(reinterpret_cast<const unsigned char*>(bytes.data()))
        , m_p(m_window)
        , m_end(m_p + bytes.size())
        , m_total(bytes.size())
    {
    }
    SnapshotInput(std::FILE* file, uint64_t size)
        : m_file(file)
        , m_total(size)
    {
    }
    uint64_t offset() const { return m_base + uint64_t(m_p - m_window); }
    uint64_t total() const { return m_total; }
    uint64_t left() const { return m_total - offset(); }
    /// Makes `n` bytes (at most left()) readable at cur(); false when the file ends early.
    bool ensure(uint64_t n) { return uint64_t(m_end - m_p) >= n || refill(n); }
    const unsigned char* cur() const { return m_p; }
    void advance(uint64_t n) { m_p += n; }

private:
    bool refill(uint64_t n);

    std::FILE* m_file = nullptr;
    std::vector<unsigned char> m_buffer;
    const unsigned char* m_window = nullptr; ///< the first byte of the window, at m_base
    const unsigned char* m_p = nullptr;
    const unsigned char* m_end = nullptr;
    uint64_t m_base = 0;
    uint64_t m_total = 0;
};

enum class VK : uint8_t {
    None,
    Bool,
    Int, ///< bits: an int64
    UInt, ///< bits: a uint64 of at least 2^63 (a 9-byte LONG1)
    BigInt, ///< wider than 64 bits: kept as a mark only
    Float, ///< bits: the double's bits
    Str, ///< ref: an interned string
    Bytes, ///< bytes / bytearray: contents dropped
    Pair, ///< a 2-tuple of non-negative ints (a pool id), ref: into m_pairs
    Frame, ///< ref: into Snapshot::frames
    Stack, ///< ref: a StackId
    Taken, ///< a record a list took (a block, segment or trace entry): not to be used again
    List, ///< ref: a container slot, bits: its generation
    Tuple,
    Dict,
    Set,
};

struct Val {
    VK kind = VK::None;
    uint32_t ref = 0;
    uint64_t bits = 0;
};

/// The pickle memo by index. pickle.py memoizes every container, so most of a snapshot's memo is
/// its trace entries, each taken by its list right after it was filled: nothing can be fetched from
/// such a slot any more but an error. The slots live in chunks of 4096; a chunk whose every slot
/// holds a taken record is freed (reads of it give a shared Taken), which keeps the memo's memory
/// to the frames, strings and containers still alive instead of 16 bytes per trace entry. Indices
/// far beyond the number of entries (a hostile file) go to a sparse map.
class MemoTable {
public:
    /// The value at `index`, or nullptr when nothing was memoized there.
    const Val* find(uint64_t index) const;
    /// Puts `v` at `index`; false when that would make more than `maxEntries` entries.
    bool put(uint64_t index, const Val& v, uint64_t maxEntries);
    /// Replaces the value at `index` (which must exist) with `v`; frees its chunk when the chunk
    /// is now all taken records.
    void replace(uint64_t index, const Val& v);
    uint64_t count() const { return m_count; }

private:
    static constexpr size_t kBits = 12;
    static constexpr size_t kSize = size_t(1) << kBits;
    struct Chunk {
        std::unique_ptr<Val[]> slots; ///< null: freed (all taken) or never used
        uint32_t assigned = 0, taken = 0;
        bool freed = false;
    };
    Val* slot(uint64_t index);
    void account(Chunk& c, const Val& old, const Val& now);

    std::vector<Chunk> m_chunks;
    std::unordered_map<uint64_t, Val> m_sparse;
    uint64_t m_count = 0;
};

/// Records a list received, by type.
struct TypedRecords {
    TraceList traces;
    std::vector<Block> blocks;
    std::vector<bool> blockHasAddress; ///< legacy blocks carry no address; the segment tiles them
    std::vector<Segment> segments;
    /// Index in the list of the first trace entry, block and segment it received (UINT64_MAX:
    /// none), for the error when a list holds records of the wrong kind.
    uint64_t firstTrace = UINT64_MAX, firstBlock = UINT64_MAX, firstSegment = UINT64_MAX;
    uint64_t count() const { return traces.size() + blocks.size() + segments.size(); }
};

struct Container {
    VK kind = VK::List;
    bool live = false;
    bool closed = false; ///< received by something: read-only from now on
    /// A frame dict or frame list becomes a Frame or Stack, but the slot stays: the stack may still
    /// hold it where a parent that has not received it yet was being filled when a later sibling
    /// met it through the memo (a segment's frames, shared by its blocks).
    bool converted = false;
    Val as;
    uint64_t gen = 0;
    uint64_t memoIndex = UINT64_MAX; ///< where it was last memoized, to swap in its conversion
    std::vector<Val> items; ///< Dict: key, value, key, value, ...
    std::unique_ptr<TypedRecords> records;
    /// List: index of the first item that is not a record (the records left `items`), for the
    /// error that names it; UINT64_MAX while there is none.
    uint64_t firstOther = UINT64_MAX;
};

/// Dict keys and values the conversion looks for, interned first so that string id == enum value.
enum KnownStr : uint32_t {
    K_segments,
    K_device_traces,
    K_allocator_settings,
    K_device,
    K_address,
    K_total_size,
    K_allocated_size,
    K_active_size,
    K_requested_size,
    K_stream,
    K_segment_type,
    K_segment_pool_id,
    K_is_expandable,
    K_frames,
    K_blocks,
    K_size,
    K_state,
    K_history,
    K_addr,
    K_real_size,
    K_filename,
    K_line,
    K_name,
    K_fx_node_op,
    K_fx_node_name,
    K_fx_original_trace,
    K_action,
    K_time_us,
    K_pool_id,
    K_device_free,
    K_user_metadata,
    K_compile_context,
    K_small,
    K_large,
    K_active_allocated,
    K_active_pending_free,
    K_active_awaiting_free,
    K_inactive,
    K_alloc,
    K_free_requested,
    K_free_completed,
    K_segment_alloc,
    K_segment_free,
    K_segment_map,
    K_segment_unmap,
    K_oom,
    K_snapshot,
    K_annotate,
    K_Count
};
/// The text of a KnownStr ("segments", ...).
const char* knownString(uint32_t key);

class SnapshotVm {
public:
    SnapshotVm(SnapshotInput& in, const std::string& path, const ReadOptions& options);
    Result<Snapshot> run();

private:
    // snapshot_vm.cpp: input, stack, memo, containers.
    bool fail(std::string message);
    bool need(uint64_t n);
    bool readFixed(int n, uint64_t& v);
    bool readView(uint64_t n, std::string_view& s);
    bool skipBytes(uint64_t n);
    bool step();
    bool push(const Val& v);
    bool pop(Val& v);
    bool popMark(size_t& mark);
    bool pushString(std::string_view s, bool checkUtf8);
    bool intern(std::string_view s, uint32_t& id); ///< the id of `s` in m_strings, added when new
    bool pushLong(std::string_view le);
    bool newContainer(VK kind, uint32_t& slot);
    bool pushNew(VK kind);
    Container* container(const Val& v);
    bool openTarget(VK wanted, size_t below, Container*& target);
    bool addItems(VK wanted, size_t mark);
    bool collapse(VK kind, size_t from);
    bool memoPut(uint64_t index);
    bool memoGet(uint64_t index);
    void release(uint32_t slot, const Val& replacement);
    void memoReplace(uint32_t slot, const Val& replacement);
    bool refuse(const std::string& what);
    /// Like fail(), at a place named by its pickle path ("$.segments[0]") instead of the offset.
    bool failAt(const std::string& place, std::string message);

    // snapshot_records.cpp: dicts into records.
    /// `v` moves into `list` (nullptr: into a dict, a tuple, or the top): a record dict goes into
    /// the list's TypedRecords and `v` becomes Taken; a frame dict becomes a Frame, a list of
    /// frames a Stack; anything else is closed.
    bool receive(Val& v, Container* list);
    /// `v`, or what the container it names became.
    Val resolved(const Val& v);
    void convert(uint32_t slot, const Val& as);
    void sweepConverted();
    uint32_t recordKind(const Container& dict) const;
    bool toFrame(Container& dict, Val& out);
    bool toStack(Container& list, Val& out);
    bool toBlock(Container& dict, Block& b, bool& hasAddress);
    bool toSegment(Container& dict, Segment& s);
    bool toTrace(Container& dict, TraceEntry& e);
    bool stackOf(const Val& v, StackId& stack, const char* record);
    bool u64(const Val& v, uint64_t& out, uint32_t key, const char* record);
    bool i64(const Val& v, int64_t& out, uint32_t key, const char* record);
    bool str(const Val& v, std::string& out, uint32_t key, const char* record);
    bool text(const Val& v, TextId& out);
    bool pool(const Val& v, memory::PoolId& out, uint32_t key, const char* record);
    bool finishRoot(const Val& root);
    bool takeTraces(Container& list, TraceList& out, const std::string& place);
    /// Checks that the records of `list` (at pickle path `place`) are all of kind `want`
    /// (K_blocks: segments, K_state: blocks, K_action: trace entries) and takes nothing.
    bool checkRecordList(const Container& list, uint32_t want, const std::string& place);
    /// "a list", "an int", "a dict without the keys of a segment", ... for the type errors.
    std::string kindName(const Val& v);
    std::string render(const Val& v, int depth) const;
    void warnOnce(const std::string& what);

    SnapshotInput& m_in;
    const std::string& m_path;
    const ReadOptions& m_options;
    uint64_t m_opOffset = 0;
    uint8_t m_op = 0;
    uint64_t m_nextProgress = 0;
    std::optional<Error> m_error;

    Snapshot m_snap;
    std::vector<Val> m_stack;
    std::vector<size_t> m_marks;
    MemoTable m_memo;
    std::vector<Container> m_slots;
    std::vector<uint32_t> m_freeSlots;
    std::vector<uint32_t> m_converted; ///< converted containers not yet freed (sweepConverted)
    size_t m_sweepAt = 4096;

    std::deque<std::string> m_strings;
    std::unordered_map<std::string_view, uint32_t> m_stringIds;
    std::vector<memory::PoolId> m_pairs;
    std::unordered_map<std::string, uint32_t> m_pairIds;
    /// A frame by content: its six texts' string ids and its line (toFrame), hashed by FrameKeyHash.
    struct FrameKey {
        uint32_t texts[5] = {};
        int64_t line = 0;
        bool operator==(const FrameKey& o) const
        {
            return line == o.line && std::equal(std::begin(texts), std::end(texts), std::begin(o.texts));
        }
    };
    struct FrameKeyHash {
        size_t operator()(const FrameKey& k) const
        {
            uint64_t h = uint64_t(k.line) * 0x9E3779B97F4A7C15ull;
            for (uint32_t t : k.texts)
                h = (h ^ t) * 0x100000001B3ull;
            return size_t(h ^ (h >> 29));
        }
    };
    std::unordered_map<FrameKey, uint32_t, FrameKeyHash> m_frameIds;
    std::unordered_map<std::string, StackId> m_stackIds;
    std::unordered_map<std::string, int> m_warned;
    std::unordered_map<uint32_t, TextId> m_textIds; ///< string id -> Snapshot::texts
};

} // namespace engine::snapshot::detail
