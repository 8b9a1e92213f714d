// A recorded snapshot as a run (snapshot_run.h).
#include "engine/snapshot/snapshot_run.h"

#include "engine/snapshot/rendered_memory.h"
#include "engine/snapshot/snapshot_story.h"
#include "engine/snapshot/trace_walker.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <unordered_map>

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

/// Whether PyTorch wrote the file: a frame in torch's own sources, or allocator settings (which
/// PyTorch's _dump_snapshot records and an older or foreign writer may not).
bool writtenByTorch(const Snapshot& snapshot)
{
    for (const Frame& f : snapshot.frames)
        if (f.filename.find("/torch/") != std::string::npos || f.filename.rfind("torch/", 0) == 0)
            return true;
    return !snapshot.allocatorSettings.empty();
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

/// 1234567 as "1,234,567".
std::string grouped(uint64_t n)
{
    std::string digits = std::to_string(n), out;
    for (size_t i = 0; i < digits.size(); ++i) {
        if (i && (digits.size() - i) % 3 == 0)
            out += ',';
        out += digits[i];
    }
    return out;
}

/// What a step standing for the entries [first, last] of a long trace says: the entries by action,
/// and the first out-of-memory among them in full.
class WindowSummary {
public:
    void add(const TraceEntry& e, size_t i)
    {
        ++m_count[size_t(e.action)];
        if (e.action == TraceAction::Oom && m_oom == SIZE_MAX)
            m_oom = i;
    }
    std::string take(const Snapshot& snapshot, const TraceList& trace, size_t first, size_t last,
        const std::map<memory::PoolId, std::string>& graphOf)
    {
        std::string s = "trace entries " + grouped(first + 1) + "\u2013" + grouped(last + 1) + ":";
        bool any = false;
        for (size_t a = 0; a < kActions; ++a) {
            if (!m_count[a])
                continue;
            s += (any ? ", " : " ") + grouped(m_count[a]) + " " + traceActionName(TraceAction(a));
            any = true;
        }
        if (m_oom != SIZE_MAX) {
            const TraceEntry& e = trace[m_oom];
            auto g = e.hasPool ? graphOf.find(e.pool) : graphOf.end();
            s += " · entry " + grouped(m_oom + 1) + ": "
                + entrySummary(snapshot, e, g != graphOf.end() ? g->second : std::string());
        }
        *this = WindowSummary();
        return s;
    }

private:
    static constexpr size_t kActions = size_t(TraceAction::Unknown) + 1;
    uint64_t m_count[kActions] = {};
    size_t m_oom = SIZE_MAX;
};

/// The run's header: names, profile, and the device's pools with their graphs and peaks.
runtime::Simulation runHeader(const Snapshot& snapshot, int device, const std::vector<PoolSummary>& pools,
    std::map<memory::PoolId, std::string>& graphOf)
{
    runtime::Simulation sim;
    sim.scenarioPath = snapshot.path;
    sim.scenarioName = "memory snapshot " + std::filesystem::path(snapshot.path).filename().string() + ", device "
        + std::to_string(device);
    const bool npu = namesNpu(snapshot);
    sim.profile = npu ? memory::Profile::Npu : memory::Profile::Cuda;
    // A recording, not a simulation: no backend and no TorchAir options (sim.options stays at its
    // defaults and nothing reads it), the allocator's settings as the file gives them. A snapshot
    // does not record the device's capacity (an oom entry's device_free is what was free then, not
    // the capacity), so capacityBytes stays 0 and reports say "not recorded".
    sim.origin.kind = runtime::RunOriginKind::Recorded;
    sim.origin.recordedAs = npu    ? "memory snapshot (torch_npu.npu.memory._dump_snapshot)"
        : writtenByTorch(snapshot) ? "memory snapshot (torch.cuda.memory._dump_snapshot)"
                                   : "memory snapshot (writer unknown: no frame or setting names torch or torch_npu)";
    sim.origin.allocatorSettings = snapshot.allocatorSettings;
    sim.origin.capacityKnown = false;
    sim.capacityBytes = 0;
    sim.warnings = snapshot.warnings;
    for (const PoolSummary& p : pools) {
        if (p.device != device)
            continue;
        runtime::PoolRecord record;
        record.pool = p.pool;
        if (!p.graph.empty())
            record.graphs = { p.graph };
        record.custom = false; // custom is a simulation's user-given pool; a recording's are private or graph pools
        record.peakReserved = p.peakReserved;
        record.peakAllocated = p.peakAllocated;
        sim.pools.push_back(std::move(record));
        graphOf[p.pool] = p.graph;
    }
    return sim;
}

/// Collects a streamed run into memory (snapshotAsRun).
class CollectRun : public runtime::RunSink {
public:
    explicit CollectRun(SnapshotRun& run)
        : m_run(run)
    {
    }
    Result<void> begin(const runtime::Simulation& header) override
    {
        m_run.sim = header;
        return {};
    }
    Result<void> owner(memory::OwnerId id, const runtime::OwnerInfo& owner) override
    {
        if (size_t(id) >= m_run.sim.owners.size())
            m_run.sim.owners.resize(size_t(id) + 1);
        m_run.sim.owners[size_t(id)] = owner;
        return {};
    }
    Result<void> step(
        const runtime::Event& event, const runtime::MemoryDelta& delta, const runtime::MemoryState* keyframe) override
    {
        m_run.sim.events.push_back(event);
        m_run.timeline.append(delta, keyframe);
        return {};
    }
    Result<void> end(const runtime::RunTotals& totals) override
    {
        m_run.sim.peakDeviceReserved = totals.peakReserved;
        m_run.sim.peakDeviceAllocated = totals.peakAllocated;
        m_run.sim.warnings.insert(m_run.sim.warnings.end(), totals.warnings.begin(), totals.warnings.end());
        return {};
    }

private:
    SnapshotRun& m_run;
};

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

Result<void> streamSnapshotRun(
    const Snapshot& snapshot, int device, runtime::RunSink& sink, const SnapshotRunOptions& options)
{
    if (auto known = detail::checkDevice(snapshot, device); !known)
        return known;
    std::vector<PoolSummary> computed;
    std::vector<SnapshotStory> told; // the stories summarizePools tells, when it runs here
    if (!options.pools) {
        auto summarized = summarizePools(snapshot, {}, options.hints, options.story ? nullptr : &told);
        if (!summarized)
            return summarized.error();
        computed = std::move(summarized.value());
    }
    std::map<memory::PoolId, std::string> graphOf;
    runtime::Simulation header = runHeader(snapshot, device, options.pools ? *options.pools : computed, graphOf);
    // Every block's owner is named by the story (snapshot_story.h); its categories index the bytes
    // by category each step carries (Event::categoryBytes), in a fixed order, those present only.
    // Told once per device: given by the caller, told by summarizePools above, or told here.
    SnapshotStory ownStory;
    const SnapshotStory* given = options.story;
    for (const SnapshotStory& t : told)
        if (!given && t.device == device)
            given = &t;
    if (!given)
        if (auto t = tellStory(snapshot, device, options.hints))
            ownStory = std::move(t.value());
    const SnapshotStory& story = given ? *given : ownStory;
    {
        std::set<std::string> present;
        for (const StoryOwner& o : story.owners)
            present.insert(o.category);
        for (const std::string& c : ownerCategoryOrder())
            if (c != "unknown" && present.erase(c))
                header.categories.push_back(c);
        present.erase("unknown");
        header.categories.insert(header.categories.end(), present.begin(), present.end()); // words added later
        header.categories.push_back("unknown"); // blocks from before the trace, entries the story left out
    }
    const auto categoryIndex = [&](const std::string& c) {
        auto it = std::find(header.categories.begin(), header.categories.end(), c);
        return uint8_t(it != header.categories.end() ? it - header.categories.begin() : header.categories.size() - 1);
    };
    const uint8_t unknownCategory = uint8_t(header.categories.size() - 1);
    std::vector<uint8_t> ownerCategory; ///< by owner id
    std::vector<uint64_t> categoryBytes(header.categories.size(), 0);
    std::unordered_map<uint64_t, std::pair<uint8_t, uint64_t>> counted; ///< active block -> (category, size)
    const auto count = [&](uint64_t address, const std::optional<runtime::MemoryState::Block>& b) {
        if (auto it = counted.find(address); it != counted.end()) {
            categoryBytes[it->second.first] -= it->second.second;
            counted.erase(it);
        }
        if (b && b->allocated) {
            const uint8_t c = b->owner != memory::kNoOwner && size_t(b->owner) < ownerCategory.size()
                ? ownerCategory[size_t(b->owner)]
                : unknownCategory;
            categoryBytes[c] += b->size;
            counted.emplace(address, std::make_pair(c, b->size));
        }
    };
    if (auto r = sink.begin(header); !r)
        return r;

    static const TraceList kNone;
    const TraceList& trace
        = size_t(device) < snapshot.deviceTraces.size() ? snapshot.deviceTraces[size_t(device)] : kNone;
    const size_t n = trace.size();
    const size_t maxSteps = std::max<size_t>(1, options.maxSteps);
    const size_t window = n > maxSteps ? (n + maxSteps - 1) / maxSteps : 1; // entries per step

    detail::TraceWalker walker(snapshot, device);
    std::vector<detail::TraceWalker::Changed> changed;
    std::optional<detail::RenderedMemory> memory;
    runtime::KeyframeRule rule;
    runtime::RunTotals totals;
    std::vector<std::pair<memory::OwnerId, runtime::OwnerInfo>> newOwners;
    Result<void> failure;
    // A block's owner: the trace entry that allocated it, numbered as it first enters the state,
    // named by the story.
    const auto ownerInfo = [&](int64_t entry) {
        runtime::OwnerInfo o;
        o.kind = runtime::OwnerKind::Recorded;
        const TraceEntry& e = trace[size_t(entry)];
        const uint32_t id
            = size_t(entry) < story.entryOwner.size() ? story.entryOwner[size_t(entry)] : SnapshotStory::kNone;
        if (id != SnapshotStory::kNone) {
            const StoryOwner& owner = story.owners[id];
            o.graph = owner.name;
            o.category = owner.category;
            o.evidence = owner.evidence;
        } else {
            o.category = "unknown";
            o.evidence = "the story has no owner for trace entry " + grouped(uint64_t(entry) + 1);
        }
        o.stack = stackText(snapshot, e.stack);
        o.tensor = describeStack(snapshot, e.stack);
        if (o.tensor.empty())
            o.tensor = "allocated by trace entry " + grouped(uint64_t(entry) + 1);
        return o;
    };
    memory::OwnerId owners = 0;
    const auto step = [&](std::string summary) -> Result<void> {
        runtime::MemoryDelta delta = memory->step(changed, totals.events);
        for (const auto& [address, block] : delta.blocks)
            count(address, block);
        for (auto& [id, o] : newOwners)
            if (auto r = sink.owner(id, o); !r)
                return r;
        newOwners.clear();
        const bool keyframe
            = rule.due(delta.segments.size() + delta.blocks.size(), memory->size(), !delta.pools.empty());
        runtime::Event e;
        e.index = totals.events;
        e.call = -1;
        e.kind = runtime::EventKind::MemoryTrace;
        // The pool's graph is named in the summary; Event::graph stays empty, as it names an FX
        // graph of the project, which a recorded trace does not know.
        e.summary = std::move(summary);
        if (n > 0) { // the time of the step's last entry (as the after-callback cuts the windows)
            const int64_t t = trace[std::min((size_t(totals.events) + 1) * window, n) - 1].timeUs;
            e.timeUs = t > 0 ? t : -1;
        }
        e.deviceReserved = memory->reserved();
        e.deviceAllocated = memory->allocated();
        e.categoryBytes = categoryBytes;
        totals.peakReserved = std::max(totals.peakReserved, e.deviceReserved);
        totals.peakAllocated = std::max(totals.peakAllocated, e.deviceAllocated);
        ++totals.events;
        return sink.step(e, delta, keyframe ? &memory->state() : nullptr);
    };

    WindowSummary counts;
    size_t windowStart = 0;
    const bool walked = walker.run(
        [&] {
            memory.emplace(walker, [&](int64_t entry) {
                newOwners.emplace_back(owners, ownerInfo(entry));
                ownerCategory.push_back(categoryIndex(newOwners.back().second.category));
                return owners++;
            });
            for (const auto& [address, block] : memory->state().blocks)
                count(address, block);
            walker.recordChanges(&changed);
            if (n == 0) // no trace: one step, the file's final state
                failure = step("the memory as the snapshot was taken (the file has no trace for this device)");
        },
        [&](size_t i) {
            if (!failure.ok())
                return;
            const TraceEntry& e = trace[i];
            totals.peakReserved = std::max(totals.peakReserved, walker.deviceReserved());
            totals.peakAllocated = std::max(totals.peakAllocated, walker.deviceActive());
            if (window == 1) {
                auto g = e.hasPool ? graphOf.find(e.pool) : graphOf.end();
                failure = step(entrySummary(snapshot, e, g != graphOf.end() ? g->second : std::string()));
                return;
            }
            counts.add(e, i);
            if ((i + 1) % window == 0 || i + 1 == n) {
                failure = step(counts.take(snapshot, trace, windowStart, i, graphOf));
                windowStart = i + 1;
            }
        },
        [&](uint64_t done) { return failure.ok() && (!options.progress || options.progress(done, 2 * uint64_t(n))); });
    walker.recordChanges(nullptr);
    if (!failure)
        return failure;
    if (!walked)
        return Error { ErrorCode::Cancelled, "cancelled", snapshot.path };
    if (options.progress)
        options.progress(2 * uint64_t(n), 2 * uint64_t(n));
    totals.warnings = walker.warnings();
    return sink.end(totals);
}

Result<SnapshotRun> snapshotAsRun(const Snapshot& snapshot, int device, const SnapshotRunOptions& options)
{
    SnapshotRun run;
    CollectRun collect(run);
    if (auto r = streamSnapshotRun(snapshot, device, collect, options); !r)
        return r.error();
    return run;
}

} // namespace engine::snapshot
