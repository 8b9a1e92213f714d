#pragma once
/// A model of torch_npu's (and PyTorch CUDA's) caching allocator as described in
/// ../shared/reference/npu-caching-allocator.md: request rounding with the NPU's 32-byte pad, small
/// and large block pools, segment sizes, best-fit search per stream, splitting, merging on free,
/// private pools for graph capture with use counts, checkpoint and rollback, and empty_cache.
/// Addresses are simulated: segments are placed at increasing 2 MiB-aligned addresses from a fixed
/// base and never move. With expandable segments (expandableSegments), each (pool, kind, stream)
/// reserves one virtual range that is mapped page by page; its mapped ranges are the segments, as in
/// a snapshot. Not thread-safe; one allocator models one device (AllocatorConfig::device), as
/// torch_npu keeps one DeviceCachingAllocator per device; each device's addresses lie in their own
/// range (deviceAddressBase), so an address names its device, as a unified virtual address does.
#include "engine/core/result.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace engine::memory {

/// A pool id as torch prints it: `(0, 0)` is the default pool, graph_pool_handle() gives `(0, uid)`.
struct PoolId {
    uint64_t first = 0;
    uint64_t second = 0;
    bool isDefault() const { return first == 0 && second == 0; }
    bool operator<(const PoolId& o) const { return first != o.first ? first < o.first : second < o.second; }
    bool operator==(const PoolId& o) const { return first == o.first && second == o.second; }
    bool operator!=(const PoolId& o) const { return !(*this == o); }
    std::string str() const; ///< "(0, 1)"
};

enum class Profile { Npu, Cuda };
const char* profileName(Profile p); ///< "npu" / "cuda"

struct AllocatorConfig {
    Profile profile = Profile::Npu;
    uint64_t capacityBytes = 64ull << 30; ///< device memory; a new segment beyond it is an OOM
    uint64_t maxSplitSize = UINT64_MAX; ///< max_split_size_mb (default unlimited)
    uint64_t maxNonSplitRoundingSize = 20ull << 20;
    uint64_t largeSegmentSize = 20ull << 20; ///< segment for 1 MiB < n < 10 MiB
    unsigned roundupPower2Divisions = 0; ///< one value for every bucket; 0/1 = off
    /// Per size bucket (bucket i: [2^i, 2^(i+1)) MiB, bucket 0 also everything below; the last takes
    /// every larger size), as `roundup_power2_divisions:[1:4,>:8]` or a snapshot's settings give
    /// them; when not empty it replaces roundupPower2Divisions.
    std::vector<unsigned> roundupPower2Buckets;
    /// expandable_segments:True: one growing virtual segment per (pool, stream, pool kind), mapped
    /// in pages of 2 MiB (small) or largeSegmentSize (large), and splits that need only 512 bytes.
    bool expandableSegments = false;
    /// The device index this allocator models: its addresses start at deviceAddressBase(device) and
    /// its OOM text names it ("NPU 1; ...").
    int device = 0;
    /// Pad per request: 32 on NPU, 0 on CUDA. Derived from the profile unless set.
    std::optional<uint64_t> padOverride;
    uint64_t pad() const { return padOverride ? *padOverride : (profile == Profile::Npu ? 32 : 0); }
};

/// First simulated address of device `device`'s memory: device 0 starts at the historical base, each
/// further device 16 TiB higher, so no two devices ever share an address.
uint64_t deviceAddressBase(int device);
/// The device whose address range holds `address` (0 below device 0's base).
int deviceOfAddress(uint64_t address);
/// "npu:1" / "cuda:1": the device as str(torch.device) prints it.
std::string deviceName(Profile profile, int device);

/// Reads the options of PYTORCH_CUDA_ALLOC_CONF / PYTORCH_NPU_ALLOC_CONF (`key:value,...`) that
/// the model knows: max_split_size_mb, max_non_split_rounding_mb, roundup_power2_divisions (a
/// count, or a `[size_mb:count,...,>:count]` list), expandable_segments, large_segment_size_mb;
/// keys the model has no use for (garbage_collection_threshold, pinned_*, ...) are accepted and
/// ignored. `where` names the text in errors ("PYTORCH_CUDA_ALLOC_CONF").
Result<void> applyAllocConf(AllocatorConfig& config, const std::string& text, const std::string& where);

/// round_size (reference §1.2) under `config`: pad, minimum 512, power-of-two divisions, 512 multiple.
uint64_t roundRequest(const AllocatorConfig& config, uint64_t request);
/// should_split (§1.6): whether a free block keeping `remaining` bytes after a `rounded` request is
/// cut. `smallPool`: the small block pool (rounded <= 1 MiB).
bool shouldSplit(const AllocatorConfig& config, bool smallPool, uint64_t rounded, uint64_t remaining);

/// Opaque id of whoever owns an allocated block (the simulator maps it to a tensor). kNoOwner marks
/// a block re-created by a rollback that nobody claimed (TorchAir's "ownerless" blocks).
using OwnerId = int64_t;
constexpr OwnerId kNoOwner = -1;
using StreamId = int;

struct BlockInfo {
    uint64_t address = 0;
    uint64_t size = 0; ///< rounded (and padded) size, or the whole unsplit block
    uint64_t requested = 0; ///< the caller's request (block size after a rollback)
    bool allocated = false;
    OwnerId owner = kNoOwner;
};

struct SegmentInfo {
    int device = 0; ///< the allocator's device (AllocatorConfig::device)
    PoolId pool;
    StreamId stream = 0;
    bool small = false; ///< small (<= 1 MiB) or large block pool
    bool expandable = false; ///< a mapped range of an expandable segment (expandableSegments)
    uint64_t address = 0;
    uint64_t totalSize = 0;
    uint64_t allocatedSize = 0; ///< sum of allocated block sizes
    uint64_t requestedSize = 0;
    std::vector<BlockInfo> blocks; ///< address order
    int blockNum() const { return int(blocks.size()); }
    int activeNum() const; ///< allocated blocks (TorchAir's activate_num)
};

/// What getCheckpointState records for one pool (reference §3.1): per segment, head address,
/// small/large, and each block's size and allocated flag.
struct PoolCheckpoint {
    struct Segment {
        uint64_t address = 0;
        bool small = false;
        std::vector<std::pair<uint64_t, bool>> blocks; ///< (size, allocated) in address order
    };
    PoolId pool;
    std::vector<Segment> segments;
};

struct RestoreResult {
    std::vector<uint64_t> freed; ///< addresses of blocks freed in step 1 that were not re-created
    std::vector<uint64_t> created; ///< addresses re-allocated to match the checkpoint (owner kNoOwner)
};

struct PoolTotals {
    uint64_t reserved = 0;
    uint64_t allocated = 0;
    int segments = 0;
    int blocks = 0;
    int activeBlocks = 0;
};

class CachingAllocator {
public:
    explicit CachingAllocator(AllocatorConfig config = {});
    ~CachingAllocator();
    CachingAllocator(const CachingAllocator&) = delete;
    CachingAllocator& operator=(const CachingAllocator&) = delete;

    const AllocatorConfig& config() const { return m_config; }

    /// round_size (reference §1.2): pad, minimum 512, optional power-of-two divisions, multiple of 512.
    uint64_t roundSize(uint64_t request) const;
    /// Segment size get_allocation_size would pick for a rounded size (§1.4).
    uint64_t allocationSize(uint64_t rounded) const;

    /// Creates the private pool (use count 1) or increments its use count (beginAllocateToPool).
    void increfPool(PoolId pool);
    /// Decrements the use count (NPUGraph::reset); at 0 the pool is freeable and its free segments
    /// go at the next emptyCache().
    void releasePool(PoolId pool);
    int poolUseCount(PoolId pool) const; ///< 0 when unknown or freeable

    /// Allocates `bytes` (> 0) for `owner` from `pool` on `stream`. Fails with ErrorCode::OutOfMemory
    /// and a PyTorch-like message when a new segment would take the device past its capacity.
    Result<uint64_t> allocate(PoolId pool, StreamId stream, uint64_t bytes, OwnerId owner);
    /// Frees the allocated block that starts at `address` and merges it with free neighbours.
    /// Returns an error if no allocated block starts there.
    Result<void> free(uint64_t address);
    /// Sets the owner of the allocated block that starts at `address`.
    Result<void> setOwner(uint64_t address, OwnerId owner);
    /// The block containing `address` (allocated or not), if any.
    std::optional<BlockInfo> blockAt(uint64_t address) const;

    PoolCheckpoint checkpoint(PoolId pool) const;
    /// setCheckpointPoolState (reference §3.2): frees every allocated block of the pool, re-cuts the
    /// recorded segments and re-allocates the blocks allocated in the checkpoint (owner kNoOwner);
    /// segments created later stay, fully free. Fails if a recorded segment no longer exists.
    Result<RestoreResult> restore(const PoolCheckpoint& state);

    /// empty_cache (§1.9): releases every unsplit free segment of the default pool and of freeable
    /// private pools; erases a freeable pool once it has no segment. Returns the bytes released.
    uint64_t emptyCache();

    /// Segments in address order, all pools or one.
    std::vector<SegmentInfo> segments() const;
    std::vector<SegmentInfo> segments(PoolId pool) const;
    PoolTotals totals(PoolId pool) const;
    std::vector<PoolId> pools() const; ///< every pool that has segments or a use count, sorted
    uint64_t reservedBytes() const; ///< all pools, the device total
    uint64_t allocatedBytes() const;
    uint64_t peakReservedBytes() const;
    uint64_t peakAllocatedBytes() const;
    void resetPeak();

    struct Impl;

private:
    AllocatorConfig m_config;
    std::unique_ptr<Impl> m_impl;
};

} // namespace engine::memory
