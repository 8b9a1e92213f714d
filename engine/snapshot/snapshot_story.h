#pragma once
/// Who owns the memory of a real snapshot, told from the evidence the file holds (issue 18): each
/// pool of one device named and typed from its pool id and its stacks, each trace allocation
/// mapped to an owner (a CUDA Graph Trees warm-up, recording or static input copy of one compiled
/// function, Triton autotuning buffers, a library workspace, a torch.cuda.graph capture, eager code
/// by the user's frame), and at any step the live bytes split by owner, category and allocation
/// site. The rules, with the PyTorch functions they rest on, are in docs/snapshots.md.
///
/// Every name says where it came from (StoryOwner::evidence); what the file cannot tell is written
/// "unknown (...)" with what would tell it (a TORCH_TRACE of the same run, SnapshotHints).
///
/// Thread contract: free functions on immutable data; reentrant.
#include "engine/snapshot/memory_snapshot.h"

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace engine::snapshot {

/// Optional facts about the same run from other files (a TORCH_TRACE: ingest/snapshot_hints.h).
struct SnapshotHints {
    std::string source; ///< the file they came from, quoted in evidence
    /// A generated Inductor module's file name ("c62wrtc....py", the inductor_output_code record's
    /// filename, folder dropped) -> its compile id ("0/1").
    std::map<std::string, std::string> moduleCompileId;
    /// The same module -> the trace log whose inductor_output_code record named it (quoted in the
    /// owners' evidence when several logs are merged).
    std::map<std::string, std::string> moduleSource;
    /// One CUDAGraphNode.record chromium span: one recording of `compileId`, on the snapshot's
    /// clock (epoch microseconds, as time_us).
    struct Recording {
        std::string compileId;
        int64_t beginUs = 0, endUs = 0;
    };
    std::vector<Recording> recordings; ///< by begin time
    /// Dynamo's compile of each compile id (its "dynamo" chromium span), by begin time.
    std::vector<Recording> compiles;
};

enum class PoolKind {
    Default, ///< (0, 0)
    SharedHandle, ///< (0, N): a user-made id, torch.cuda.graph_pool_handle() / MemPool, given to captures
    CapturePrivate, ///< (N, 0): the private pool a capture made for itself
    CudaGraphTrees, ///< the pool CUDA Graph Trees keeps per device (cudagraph_trees.py frames)
    Unknown, ///< a private pool whose allocations tell nothing more
};
/// StoryOwner::category's words in the order legends, charts and stored runs list them, "unknown"
/// last (Simulation::categories keeps this order; the window colours them).
const std::vector<std::string>& ownerCategoryOrder();

const char* poolKindName(PoolKind k); ///< "default", "graph_pool_handle", "capture's own", ...

/// Who a set of allocations belongs to.
struct StoryOwner {
    std::string name; ///< "compile 0/1 recording 2", "torch.cuda.graph capture at part_a_allocator.py:84"
    /// events.h OwnerInfo::category words: "graph tensor", "warm-up", "static input copy",
    /// "autotuning", "library workspace", "checkpoint restore", "eager", "capture", "compilation"
    /// (made while Dynamo/Inductor compiled, outside any graph), "unknown".
    std::string category;
    memory::PoolId pool; ///< of its first allocation
    std::string module; ///< the generated Inductor module's file name; "" when none
    /// The compiled function's compile id: "0/1"; "unknown (...)" when the module is known but not
    /// its compile id; "" when no compiled code is involved.
    std::string compileId;
    std::string userFrame; ///< the user's frame naming it ("part_a_allocator.py:84 <module>")
    std::string evidence;
    size_t allocs = 0; ///< alloc entries of the trace it owns
    uint64_t allocBytes = 0; ///< their sizes, summed
    size_t firstEntry = 0; ///< its first alloc entry
};

struct StoryPool {
    memory::PoolId pool;
    PoolKind kind = PoolKind::Unknown;
    std::string name; ///< "graph_pool_handle() pool shared by 2 torch.cuda.graph captures (...)"
    std::string evidence;
    /// The name rests on more than the pool id (allocations, capture code or stacks tell whose it is).
    bool told = false;
    std::vector<uint32_t> owners; ///< indices into SnapshotStory::owners, by first allocation
    uint64_t peakAllocated = 0; ///< = PoolSummary::peakAllocated
    /// The state at the peak is the one after this trace entry (kBeforeTrace: before the first).
    size_t peakEntry = 0;
};

struct SnapshotStory {
    static constexpr uint32_t kNone = UINT32_MAX;
    static constexpr size_t kBeforeTrace = SIZE_MAX;
    int device = 0;
    std::vector<StoryPool> pools; ///< by pool id
    std::vector<StoryOwner> owners;
    /// Per trace entry: the owner of an alloc entry (every alloc has one); kNone for other actions.
    std::vector<uint32_t> entryOwner;
    /// The device's peak of allocated bytes (all pools, pending frees excluded) and where it is.
    uint64_t peakAllocated = 0;
    size_t peakEntry = kBeforeTrace;
    std::vector<std::string> notes; ///< what the hints did not match, at most a few

    const StoryPool* pool(memory::PoolId id) const;
};

/// (done, total) work units: two per trace entry (undone, applied), every 4,096; false cancels
/// (ErrorCode::Cancelled). May be empty.
using StoryProgress = std::function<bool(uint64_t done, uint64_t total)>;

/// Tells the story of device `device` (one replay of its trace). `hints` may be null.
Result<SnapshotStory> tellStory(
    const Snapshot& snapshot, int device, const SnapshotHints* hints = nullptr, const StoryProgress& progress = {});

/// One part of a split: a name and the live bytes (blocks) it holds.
struct Share {
    std::string name;
    std::string category; ///< owners only
    uint64_t bytes = 0;
    size_t blocks = 0;
};

/// The live memory after one trace entry, split three ways, largest first.
struct Breakdown {
    size_t entry = SnapshotStory::kBeforeTrace;
    int64_t timeUs = -1; ///< of that entry; -1 unknown
    uint64_t allocated = 0; ///< sum of the live blocks counted (pending frees excluded)
    std::vector<Share> byOwner, byCategory, bySite;
    /// Folded stacks as flame graphs read them: "outermost;...;innermost" -> bytes, largest first.
    std::vector<std::pair<std::string, uint64_t>> folded;
};

/// The state after trace entry `entry` (SnapshotStory::kBeforeTrace: before the first), the pool
/// `pool` only when given. Sites: describeStack of the allocating entry; `topSites` of them kept
/// (the rest summed as "other sites"). Blocks older than the trace are owned by "before the
/// trace (allocated by ...)", with the final block's stack when the file still has it.
Result<Breakdown> breakdownAt(const Snapshot& snapshot, const SnapshotStory& story, size_t entry,
    const memory::PoolId* pool = nullptr, size_t topSites = 10, const StoryProgress& progress = {});

/// The full stack of `stack` as text, innermost first, one "file:line name" per line.
std::string stackText(const Snapshot& snapshot, StackId stack);

} // namespace engine::snapshot
