// A recorded snapshot as a run (snapshot_run.h).
#include "engine/snapshot/snapshot_run.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>

namespace engine::snapshot {

namespace {

/// "512 B", "2.50 KiB", "20.00 MiB".
std::string bytesText(uint64_t bytes)
{
    char buf[48];
    if (bytes < 1024)
        std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(bytes));
    else if (bytes < (1u << 20))
        std::snprintf(buf, sizeof buf, "%.2f KiB", double(bytes) / 1024.0);
    else
        std::snprintf(buf, sizeof buf, "%.2f MiB", double(bytes) / double(1 << 20));
    return buf;
}

std::string hex(uint64_t v)
{
    char buf[24];
    std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
    return buf;
}

/// Device reserved and allocated bytes of a state.
std::pair<uint64_t, uint64_t> totals(const runtime::MemoryState& state)
{
    uint64_t reserved = 0, allocated = 0;
    for (const auto& [address, segment] : state.segments)
        reserved += segment.totalSize;
    for (const auto& [address, block] : state.blocks)
        if (block.allocated)
            allocated += block.size;
    return { reserved, allocated };
}

bool namesNpu(const Snapshot& snapshot)
{
    for (const Frame& f : snapshot.frames)
        if (f.filename.find("torch_npu") != std::string::npos)
            return true;
    for (const auto& [name, value] : snapshot.allocatorSettings)
        if (name.find("NPU") != std::string::npos)
            return true;
    return false;
}

/// One line in words for a trace entry.
std::string entrySummary(const Snapshot& snapshot, const TraceEntry& e, const std::string& graph)
{
    std::string s = traceActionName(e.action);
    switch (e.action) {
    case TraceAction::Oom:
        s += ": " + bytesText(e.size) + " requested, " + bytesText(e.deviceFree) + " free on the device";
        break;
    case TraceAction::Annotate:
    case TraceAction::Snapshot:
    case TraceAction::Unknown:
        break;
    default:
        s += " " + bytesText(e.size) + " at " + hex(e.addr);
        break;
    }
    if (e.hasPool)
        s += " in pool " + e.pool.str();
    if (!graph.empty())
        s += " (" + graph + ")";
    if (e.stream != 0)
        s += ", stream " + hex(uint64_t(e.stream));
    const std::string where = describeStack(snapshot, e.stack);
    if (!where.empty())
        s += " · " + where;
    if (const std::string& note = snapshot.text(e.userMetadata); !note.empty())
        s += " · " + note;
    return s;
}

} // namespace

bool looksLikeSnapshot(std::string_view head)
{
    if (head.size() < 2 || static_cast<unsigned char>(head[0]) != 0x80)
        return false;
    // The top-level dict's `segments` key or a bare list's `segment_type` (as SHORT_BINUNICODE or,
    // protocol 2, BINUNICODE); a TorchAir compiled_module names its classes' module
    // (torchair.inference._cache_compiler) instead.
    return (head.find("segments") != std::string_view::npos || head.find("segment_type") != std::string_view::npos)
        && head.find("_cache_compiler") == std::string_view::npos;
}

std::vector<int> snapshotDevices(const Snapshot& snapshot)
{
    std::set<int> devices;
    for (const Segment& s : snapshot.segments)
        devices.insert(s.device);
    for (size_t d = 0; d < snapshot.deviceTraces.size(); ++d)
        if (!snapshot.deviceTraces[d].empty())
            devices.insert(int(d));
    return { devices.begin(), devices.end() };
}

namespace {
// Interim: the whole run built in memory, then delivered (replaced by the bounded replay).
Result<SnapshotRun> collectRun(const Snapshot& snapshot, int device)
{
    auto replay = replayTrace(snapshot, device);
    if (!replay)
        return replay.error();
    SnapshotRun run;
    runtime::Simulation& sim = run.sim;
    sim.scenarioPath = snapshot.path;
    sim.scenarioName = "memory snapshot " + std::filesystem::path(snapshot.path).filename().string() + ", device "
        + std::to_string(device);
    sim.profile = namesNpu(snapshot) ? memory::Profile::Npu : memory::Profile::Cuda;
    sim.capacityBytes = 0; // the file does not say
    sim.warnings = snapshot.warnings;
    for (const std::string& w : replay->warnings)
        sim.warnings.push_back(w);

    std::map<memory::PoolId, std::string> graphOf;
    for (const PoolSummary& p : summarizePools(snapshot)) {
        if (p.device != device)
            continue;
        runtime::PoolRecord record;
        record.pool = p.pool;
        if (!p.graph.empty())
            record.graphs = { p.graph };
        record.custom = !p.pool.isDefault();
        record.peakReserved = p.peakReserved;
        record.peakAllocated = p.peakAllocated;
        sim.pools.push_back(std::move(record));
        graphOf[p.pool] = p.graph;
    }

    static const TraceList kNone;
    const TraceList& trace
        = size_t(device) < snapshot.deviceTraces.size() ? snapshot.deviceTraces[size_t(device)] : kNone;
    // Owners: the trace entry that allocated a block (replayTrace's owner ids).
    sim.owners.resize(trace.size());
    for (size_t i = 0; i < trace.size(); ++i) {
        runtime::OwnerInfo& o = sim.owners[i];
        o.kind = runtime::OwnerKind::Recorded;
        const TraceEntry& e = trace[i];
        o.graph = e.hasPool ? graphOf[e.pool] : std::string();
        o.tensor = describeStack(snapshot, e.stack);
        if (o.tensor.empty())
            o.tensor = "allocated by trace entry " + std::to_string(i + 1);
    }

    auto addEvent = [&](int index, std::string summary, std::string graph, uint64_t reserved, uint64_t allocated) {
        runtime::Event e;
        e.index = index;
        e.call = -1;
        e.kind = runtime::EventKind::MemoryTrace;
        e.graph = std::move(graph);
        e.summary = std::move(summary);
        e.deviceReserved = reserved;
        e.deviceAllocated = allocated;
        sim.peakDeviceReserved = std::max(sim.peakDeviceReserved, e.deviceReserved);
        sim.peakDeviceAllocated = std::max(sim.peakDeviceAllocated, e.deviceAllocated);
        sim.events.push_back(std::move(e));
    };
    if (trace.empty()) {
        // No trace: one step, the file's final state.
        auto final = replay->timeline.eventCount() > 0 ? replay->timeline.stateAt(replay->timeline.eventCount() - 1)
                                                       : Result<runtime::MemoryState>(replay->initial);
        if (!final)
            return final.error();
        const auto [reserved, allocated] = totals(*final);
        addEvent(
            0, "the memory as the snapshot was taken (the file has no trace for this device)", {}, reserved, allocated);
        run.timeline.observe(0, std::move(final.value()));
        return run;
    }
    // Walk the changes once from the state before the trace, keeping the totals as they change.
    runtime::MemoryState state = replay->initial;
    auto [reserved, allocated] = totals(state);
    const auto& deltas = replay->timeline.deltas();
    size_t next = 0;
    for (size_t i = 0; i < trace.size(); ++i) {
        for (; next < deltas.size() && deltas[next].event == int(i); ++next) {
            const runtime::MemoryDelta& d = deltas[next];
            for (const auto& [address, segment] : d.segments) {
                if (auto it = state.segments.find(address); it != state.segments.end())
                    reserved -= it->second.totalSize;
                if (segment)
                    reserved += segment->totalSize;
            }
            for (const auto& [address, block] : d.blocks) {
                if (auto it = state.blocks.find(address); it != state.blocks.end() && it->second.allocated)
                    allocated -= it->second.size;
                if (block && block->allocated)
                    allocated += block->size;
            }
            runtime::applyMemory(state, d);
        }
        const TraceEntry& e = trace[i];
        const std::string graph = e.hasPool ? graphOf[e.pool] : std::string();
        // The pool's graph is named in the summary; Event::graph stays empty, as it names an FX
        // graph of the project, which a recorded trace does not know.
        addEvent(int(i), entrySummary(snapshot, e, graph), {}, reserved, allocated);
    }
    run.timeline = std::move(replay->timeline);
    return run;
}

} // namespace

Result<void> streamSnapshotRun(
    const Snapshot& snapshot, int device, runtime::RunSink& sink, const SnapshotRunOptions& options)
{
    (void)options;
    auto run = collectRun(snapshot, device);
    if (!run)
        return run.error();
    runtime::Simulation header = run->sim;
    header.events.clear();
    header.owners.clear();
    if (auto r = sink.begin(header); !r)
        return r;
    for (size_t i = 0; i < run->sim.owners.size(); ++i)
        if (auto r = sink.owner(memory::OwnerId(i), run->sim.owners[i]); !r)
            return r;
    const auto& deltas = run->timeline.deltas();
    const auto& keyframes = run->timeline.keyframes();
    size_t d = 0, k = 0;
    for (const runtime::Event& e : run->sim.events) {
        runtime::MemoryDelta delta;
        delta.event = e.index;
        if (d < deltas.size() && deltas[d].event == e.index)
            delta = deltas[d++];
        const runtime::MemoryState* key = nullptr;
        if (k < keyframes.size() && keyframes[k].first == e.index)
            key = &keyframes[k++].second;
        if (auto r = sink.step(e, delta, key); !r)
            return r;
    }
    runtime::RunTotals totals;
    totals.events = int(run->sim.events.size());
    totals.peakReserved = run->sim.peakDeviceReserved;
    totals.peakAllocated = run->sim.peakDeviceAllocated;
    return sink.end(totals);
}

Result<SnapshotRun> snapshotAsRun(const Snapshot& snapshot, int device, const SnapshotRunOptions& options)
{
    (void)options;
    return collectRun(snapshot, device);
}

} // namespace engine::snapshot
