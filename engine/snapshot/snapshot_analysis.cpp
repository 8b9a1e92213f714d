// What a read snapshot says: per-pool totals and peaks, which captured graph a private pool
// belongs to (the rules are listed in docs/snapshots.md), labels of stacks, and the trace replay.
#include "engine/core/text_codec.h"
#include "engine/snapshot/memory_snapshot.h"
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

/// A frame of graph-capture code: what kind of capture it is (empty when it is none).
struct CaptureMarker {
    const char* file;
    std::vector<const char*> names; ///< empty: any function of the file
    const char* kind;
};

const std::vector<CaptureMarker>& captureMarkers()
{
    static const std::vector<CaptureMarker> markers = {
        { "torch/cuda/graphs.py", { "capture_begin", "__enter__", "make_graphed_callables" }, "torch.cuda.graph" },
        { "torch/_inductor/cudagraph_trees.py", {}, "CUDA Graph Trees" },
        { "torch_npu/npu/graphs.py", { "capture_begin", "__enter__", "make_graphed_callables" },
            "torch_npu.npu.graph" },
        { "torch_npu/npu/_graph_tree.py", {}, "NPU graph trees" },
        { "torchair/_acl_concrete_graph/", { "capture", "compile_for_graph_key", "compile", "__call__" },
            "TorchAir aclgraph" },
        { "npugraph_ex/_acl_concrete_graph/", { "capture", "compile_for_graph_key", "compile", "__call__" },
            "npugraph_ex aclgraph" },
    };
    return markers;
}

const CaptureMarker* markerOf(const Frame& f)
{
    for (const CaptureMarker& m : captureMarkers()) {
        if (!contains(f.filename, m.file))
            continue;
        if (m.names.empty())
            return &m;
        for (const char* n : m.names)
            if (f.name == n)
                return &m;
    }
    return nullptr;
}

std::string joinFew(const std::map<std::string, int>& counts, size_t most)
{
    std::vector<std::pair<int, std::string>> order;
    for (const auto& [s, n] : counts)
        order.emplace_back(-n, s);
    std::sort(order.begin(), order.end());
    std::string out;
    for (size_t k = 0; k < order.size() && k < most; ++k)
        out += (k ? ", " : "") + order[k].second;
    if (order.size() > most)
        out += " and " + std::to_string(order.size() - most) + " more";
    return out;
}

/// What the file says about one pool: its stacks and the context strings of its trace entries.
struct PoolEvidence {
    std::set<StackId> stacks;
    std::map<std::string, int> compileContexts, userMetadata;
};

void attribute(const Snapshot& snap, PoolSummary& p, const PoolEvidence& ev)
{
    if (p.pool.isDefault()) {
        p.graphEvidence = "the default pool (0, 0): allocations outside any capture";
        return;
    }
    std::map<std::string, int> kinds, callers, fxNodes;
    std::string example;
    for (StackId id : ev.stacks) {
        if (id >= snap.stacks.size())
            continue;
        const auto& frames = snap.stacks[id];
        for (size_t k = 0; k < frames.size(); ++k) {
            const Frame& f = snap.frames[frames[k]];
            if (!f.fxNodeName.empty())
                ++fxNodes[f.fxNodeName];
            const CaptureMarker* m = markerOf(f);
            if (!m)
                continue;
            ++kinds[m->kind];
            if (example.empty())
                example = f.filename + ":" + std::to_string(f.line) + " " + f.name;
            for (size_t j = k + 1; j < frames.size(); ++j) // the first useful caller, outwards
                if (!isInternal(snap.frames[frames[j]]) && !markerOf(snap.frames[frames[j]])) {
                    ++callers[describeFrame(snap.frames[frames[j]])];
                    break;
                }
            break;
        }
    }
    std::vector<std::string> why;
    if (!kinds.empty()) {
        p.graph = joinFew(kinds, 2) + " capture";
        if (!callers.empty())
            p.graph += " from " + joinFew(callers, 2);
        int matched = 0;
        for (const auto& [kind, n] : kinds)
            matched += n;
        why.push_back(std::to_string(matched) + " of the " + std::to_string(ev.stacks.size())
            + " stacks tied to this pool run capture code (" + example + ")");
    }
    if (!ev.compileContexts.empty()) {
        const std::string ctx = joinFew(ev.compileContexts, 3);
        p.graph += (p.graph.empty() ? "compile context " : " [compile context ") + ctx + (kinds.empty() ? "" : "]");
        why.push_back("compile_context of the pool's trace entries: " + ctx);
    }
    if (p.graph.empty() && !ev.userMetadata.empty()) {
        p.graph = "user metadata " + joinFew(ev.userMetadata, 2);
        why.push_back("user_metadata of the pool's trace entries");
    }
    if (!fxNodes.empty())
        why.push_back("FX nodes in its frames: " + joinFew(fxNodes, 4));
    for (size_t k = 0; k < why.size(); ++k)
        p.graphEvidence += (k ? "; " : "") + why[k];
    if (p.graphEvidence.empty())
        p.graphEvidence = "a private pool; no capture frames, compile_context or user_metadata recorded for it";
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
    // Work units: every trace entry undone and applied again, over all devices.
    uint64_t total = 0, before = 0;
    for (size_t d = 0; d < snapshot.deviceTraces.size() && d < 65536; ++d)
        total += 2 * uint64_t(snapshot.deviceTraces[d].size());
    const auto tick = [&](uint64_t done) { return !progress || progress(before + done, total); };
    std::map<std::pair<int, memory::PoolId>, PoolSummary> pools;
    std::map<std::pair<int, memory::PoolId>, PoolEvidence> evidence;
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
        auto& ev = evidence[key];
        if (s.stack != kNoStack)
            ev.stacks.insert(s.stack);
        for (const Block& b : s.blocks)
            if (b.stack != kNoStack)
                ev.stacks.insert(b.stack);
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
        // Entries are tied to a pool by their pool_id, else by the segment their address lies in.
        const auto poolAt = [&](size_t i, const TraceEntry& e) -> std::optional<memory::PoolId> {
            if (e.hasPool)
                return e.pool;
            auto it = walker.segments().upper_bound(e.addr);
            if (it == walker.segments().begin())
                return std::nullopt;
            --it;
            if (e.addr - it->first >= it->second.size)
                return std::nullopt;
            (void)i;
            return it->second.pool;
        };
        const bool walked = walker.run(
            observe,
            [&](size_t i) {
                observe();
                const TraceEntry& e = trace[i];
                if (const auto pool = poolAt(i, e)) {
                    auto& ev = evidence[std::make_pair(device, *pool)];
                    if (e.stack != kNoStack)
                        ev.stacks.insert(e.stack);
                    if (e.compileContext)
                        ++ev.compileContexts[snapshot.text(e.compileContext)];
                    if (e.userMetadata)
                        ++ev.userMetadata[snapshot.text(e.userMetadata)];
                }
            },
            tick);
        if (!walked)
            return Error { ErrorCode::Cancelled, "cancelled", snapshot.path };
        before += 2 * uint64_t(trace.size());
    }
    std::vector<PoolSummary> out;
    for (auto& [key, p] : pools) {
        attribute(snapshot, p, evidence[key]);
        out.push_back(std::move(p));
    }
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
