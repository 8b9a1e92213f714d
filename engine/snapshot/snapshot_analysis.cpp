// What a read snapshot says: per-pool totals and peaks, what each pool is (named by the story's
// rules, snapshot_story.h; listed in docs/snapshots.md), labels of stacks, and the trace replay.
#include "engine/core/text_codec.h"
#include "engine/snapshot/memory_snapshot.h"
#include "engine/snapshot/snapshot_story.h"
#include "engine/snapshot/trace_walker.h"

#include <algorithm>
#include <map>
#include <set>

namespace engine::snapshot {

namespace {

bool contains(std::string_view s, std::string_view part)
{
    return s.find(part) != std::string_view::npos;
}

/// Frames a reader of the stack does not want first: the unwinder and other C++ frames, the
/// CPython evaluator, and torch's own plumbing (module calls, the allocator, graph capture, Dynamo).
bool isInternal(const Frame& f)
{
    const std::string_view file = f.filename, name = f.name;
    if (file.empty() || file == "??" || name.empty())
        return true;
    for (const char* ext : { ".c", ".cc", ".cpp", ".cxx", ".h", ".hpp", ".cu" })
        if (endsWith(file, ext))
            return true;
    if (contains(name, "::") || name.substr(0, 2) == "Py" || name.substr(0, 3) == "_Py")
        return true;
    static const char* const internal[] = { "torch/nn/modules/module.py", "torch/utils/", "torch/_tensor.py",
        "torch/_ops.py", "torch/cuda/", "torch_npu/npu/", "torch/_dynamo/", "torch/_inductor/cudagraph_trees.py",
        "torch/_functorch/", "torch/autograd/", "torch/overrides.py", "torch/_compile.py", "torch/fx/",
        "torchair/_acl_concrete_graph/", "npugraph_ex/_acl_concrete_graph/", "/contextlib.py", "/threading.py",
        "torch/_prims_common/", "torch/_refs/" };
    for (const char* part : internal)
        if (contains(file, part))
            return true;
    return false;
}

std::string describeFrame(const Frame& f)
{
    std::string s = f.filename + ":" + std::to_string(f.line) + " " + f.name;
    if (!f.fxNodeName.empty())
        s += " [fx: " + f.fxNodeName + "]";
    return s;
}

} // namespace

const char* traceActionName(TraceAction a)
{
    static const char* const names[] = { "alloc", "free_requested", "free_completed", "segment_alloc", "segment_free",
        "segment_map", "segment_unmap", "oom", "snapshot", "annotate", "unknown" };
    return names[int(a)];
}

std::string describeStack(const Snapshot& snapshot, StackId stack)
{
    if (stack >= snapshot.stacks.size() || snapshot.stacks[stack].empty())
        return {};
    const auto& frames = snapshot.stacks[stack];
    for (uint32_t f : frames)
        if (!isInternal(snapshot.frames[f]))
            return describeFrame(snapshot.frames[f]);
    return describeFrame(snapshot.frames[frames.front()]);
}

std::vector<PoolSummary> summarizePools(const Snapshot& snapshot)
{
    auto pools = summarizePools(snapshot, {});
    return pools ? std::move(pools.value()) : std::vector<PoolSummary> {};
}

Result<std::vector<PoolSummary>> summarizePools(
    const Snapshot& snapshot, const std::function<bool(uint64_t done, uint64_t total)>& progress)
{
    return summarizePools(snapshot, progress, nullptr, nullptr);
}

Result<std::vector<PoolSummary>> summarizePools(const Snapshot& snapshot,
    const std::function<bool(uint64_t done, uint64_t total)>& progress, const SnapshotHints* hints,
    std::vector<SnapshotStory>* stories)
{
    // Work units: every trace entry undone and applied again, twice (the replay, then the story's).
    uint64_t total = 0, before = 0;
    for (size_t d = 0; d < snapshot.deviceTraces.size() && d < 65536; ++d)
        total += 4 * uint64_t(snapshot.deviceTraces[d].size()); // the replay, then the story's
    const auto tick = [&](uint64_t done) { return !progress || progress(before + done, total); };
    std::map<std::pair<int, memory::PoolId>, PoolSummary> pools;
    std::set<int> devices;
    for (const Segment& s : snapshot.segments) {
        const auto key = std::make_pair(s.device, s.pool);
        PoolSummary& p = pools[key];
        p.pool = s.pool;
        p.device = s.device;
        ++p.segments;
        p.reserved += s.totalSize;
        p.allocated += s.allocatedSize;
        p.active += s.activeSize;
        p.requested += s.requestedSize;
        devices.insert(s.device);
    }
    for (auto& [key, p] : pools) {
        p.peakReserved = p.reserved;
        p.peakAllocated = p.allocated;
    }
    for (size_t d = 0; d < snapshot.deviceTraces.size() && d < 65536; ++d) {
        const auto& trace = snapshot.deviceTraces[d];
        if (trace.empty())
            continue;
        const int device = int(d);
        detail::TraceWalker walker(snapshot, device);
        const auto observe = [&] {
            for (const auto& [pool, t] : walker.totals()) {
                PoolSummary& p = pools[std::make_pair(device, pool)];
                p.pool = pool;
                p.device = device;
                p.peakReserved = std::max(p.peakReserved, t.reserved);
                p.peakAllocated = std::max(p.peakAllocated, t.allocated);
            }
        };
        const bool walked = walker.run(
            observe, [&](size_t) { observe(); }, tick);
        if (!walked)
            return Error { ErrorCode::Cancelled, "cancelled", snapshot.path };
        before += 2 * uint64_t(trace.size());
        devices.insert(device);
    }
    // What each pool is: the story's names (one more replay per device, counted in the progress).
    for (int device : devices) {
        const size_t entries
            = size_t(device) < snapshot.deviceTraces.size() ? snapshot.deviceTraces[size_t(device)].size() : 0;
        auto story = tellStory(snapshot, device, hints, [&](uint64_t done, uint64_t) { return tick(done); });
        before += 2 * uint64_t(entries);
        if (!story && story.error().code == ErrorCode::Cancelled)
            return story.error();
        if (!story) {
            if (stories) { // an untold story: the runs then name no owner from it, as before
                stories->emplace_back();
                stories->back().device = device;
            }
            continue;
        }
        for (const StoryPool& sp : story->pools) {
            auto it = pools.find(std::make_pair(device, sp.pool));
            if (it == pools.end())
                continue;
            if (!sp.pool.isDefault() && sp.told) // else only its id tells: no graph, the evidence says why
                it->second.graph = sp.name;
            it->second.graphEvidence = sp.evidence;
        }
        if (stories)
            stories->push_back(std::move(story.value()));
    }
    std::vector<PoolSummary> out;
    for (auto& [key, p] : pools)
        out.push_back(std::move(p));
    return out;
}

Result<TraceTimeline> replayTrace(const Snapshot& snapshot, int device)
{
    TraceTimeline t;
    t.device = device;
    if (auto known = detail::checkDevice(snapshot, device); !known)
        return known.error();
    detail::TraceWalker walker(snapshot, device);
    walker.run([&] { t.initial = walker.state(); }, [&](size_t i) { t.timeline.observe(int(i), walker.state()); });
    t.streams = walker.streams();
    t.warnings = walker.warnings();
    return t;
}

} // namespace engine::snapshot
