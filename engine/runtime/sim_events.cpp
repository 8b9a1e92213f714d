// The simulator's event stream, log, peaks and hazard records, and the names printed for enums.
#include "engine/runtime/simulator_impl.h"
#include "engine/runtime/torchair_text.h"

#include <algorithm>

namespace engine::runtime {

const char* logLevelName(LogLevel l)
{
    switch (l) {
    case LogLevel::Debug:
        return "DEBUG";
    case LogLevel::Info:
        return "INFO";
    case LogLevel::Warning:
        return "WARNING";
    case LogLevel::Error:
        return "ERROR";
    }
    return "?";
}

const char* eventKindName(EventKind k)
{
    static const char* names[] = { "compile", "key_lookup", "rollback", "capture", "input_update", "replay", "outputs",
        "eager", "fallback", "hazard", "out_of_memory", "memory_trace" };
    return names[int(k)];
}

const char* runOriginKindName(RunOriginKind k)
{
    return k == RunOriginKind::Recorded ? "recorded" : "simulated";
}

const char* ownerKindName(OwnerKind k)
{
    static const char* names[] = { "parameter", "mutated_input", "user_input", "staging", "intermediate", "workspace",
        "output", "eager", "recorded" };
    return names[int(k)];
}

const char* hazardKindName(HazardKind k)
{
    static const char* names[]
        = { "output_overwritten", "user_input_overwritten", "stale_parameter", "stale_checkpoint", "recapture_storm",
              "fallback", "out_of_memory", "cross_device_input", "overwritten_error", "static_input_moved",
              "cudagraphs_skipped", "pool_growth", "recompile_limit", "call_raised", "recompile_per_call" };
    return names[int(k)];
}

const char* callActionName(CallAction a)
{
    static const char* names[] = { "capture", "recapture", "replay", "eager", "warmup", "raised" };
    return names[int(a)];
}

std::string runtimeName(const Simulation& sim)
{
    if (sim.origin.kind == RunOriginKind::Recorded)
        return {};
    return sim.cuda ? "cuda_graph_trees" : config::backendName(sim.options.backend);
}

std::vector<PoolCallState> poolCallStates(const memory::CachingAllocator& a, int device)
{
    std::vector<PoolCallState> out;
    for (const memory::PoolId& pool : a.pools()) {
        if (pool.isDefault())
            continue;
        PoolCallState ps;
        ps.device = device;
        ps.pool = pool;
        for (const auto& seg : a.segments(pool)) {
            PoolCallState::Segment s { seg.stream, seg.blockNum(), seg.activeNum(), seg.totalSize, seg.allocatedSize };
            ps.blockNum += s.blockNum;
            ps.activateNum += s.activateNum;
            ps.totalSize += s.totalSize;
            ps.allocatedSize += s.allocatedSize;
            ps.segments.push_back(s);
        }
        out.push_back(std::move(ps));
    }
    return out;
}

std::vector<PoolSnapshot> poolSnapshots(const memory::DeviceAllocators& devices)
{
    std::vector<PoolSnapshot> out;
    for (int device : devices.devices())
        for (const memory::PoolId& pool : devices.find(device)->pools()) {
            PoolSnapshot ps;
            ps.device = device;
            ps.pool = pool;
            ps.segments = devices.find(device)->segments(pool);
            for (const auto& s : ps.segments) {
                ps.reserved += s.totalSize;
                ps.allocated += s.allocatedSize;
            }
            out.push_back(std::move(ps));
        }
    return out;
}

namespace detail {

void Simulator::recordCall(CallRecord& rec)
{
    for (int device : m_devices.devices())
        for (PoolCallState& ps : poolCallStates(alloc(device), device)) {
            updatePeaks(device, ps.pool);
            rec.pools.push_back(std::move(ps));
        }
    rec.deviceReserved = m_devices.reservedBytes();
    rec.deviceAllocated = m_devices.allocatedBytes();
    rec.devices = deviceTotals();
    rec.eventCount = int(m_sim.events.size()) - rec.firstEvent;
    m_sim.calls.push_back(std::move(rec));
}

void Simulator::beginEvent(EventKind kind, const RtGraph* g, const std::string& key, std::string summary)
{
    if (!logging())
        return;
    Event e;
    e.index = int(m_sim.events.size());
    e.call = m_call;
    e.kind = kind;
    e.graph = g ? g->name : std::string();
    e.key = key;
    e.summary = std::move(summary);
    m_sim.events.push_back(std::move(e));
    m_eventOpen = true;
}

void Simulator::logConfigWarning(const std::string& entry)
{
    const auto colon = entry.find(": ");
    const std::string category = colon == std::string::npos ? std::string() : entry.substr(0, colon);
    const std::string text = colon == std::string::npos ? entry : entry.substr(colon + 2);
    if (category == "WARNING" || category.empty())
        log(LogLevel::Warning, text);
    else
        log(LogLevel::Warning, text, category);
}

void Simulator::log(LogLevel level, const std::string& line, const std::string& category)
{
    if (!category.empty()) {
        // Python shows a UserWarning once per process (default warning filter).
        if (!m_warnedOnce.insert(line).second)
            return;
        m_sim.warnings.push_back(line);
    } else if (level == LogLevel::Warning) {
        m_sim.warnings.push_back(line);
    }
    if (!logging())
        return;
    LogLine l { level, line, category };
    m_sim.log.push_back(l);
    if (!m_sim.events.empty())
        m_sim.events.back().log.push_back(std::move(l));
}

std::string Simulator::memState() const
{
    return text::memState(m_devices.segments());
}

std::vector<DeviceMemory> Simulator::deviceTotals() const
{
    std::vector<DeviceMemory> out;
    if (!m_multiDevice)
        return out;
    for (int device : m_runDevices) {
        const memory::CachingAllocator* a = m_devices.find(device);
        out.push_back({ device, a ? a->reservedBytes() : 0, a ? a->allocatedBytes() : 0 });
    }
    return out;
}

void Simulator::finishEvent()
{
    if (!logging() || m_sim.events.empty())
        return;
    Event& e = m_sim.events.back();
    e.deviceReserved = m_devices.reservedBytes();
    e.deviceAllocated = m_devices.allocatedBytes();
    e.devices = deviceTotals();
    if (m_options.recordMemory)
        e.memory = poolSnapshots(m_devices);
    if (m_options.observeMemory)
        m_options.observeMemory(e, m_devices);
    m_eventOpen = false;
}

void Simulator::updatePeaks(int device, memory::PoolId pool)
{
    // Peaks are each device's own: capacity, and so OOM, is per device.
    const memory::CachingAllocator& a = alloc(device);
    DeviceRecord& d = m_deviceRecords[device];
    d.peakReserved = std::max(d.peakReserved, a.reservedBytes());
    d.peakAllocated = std::max(d.peakAllocated, a.allocatedBytes());
    m_sim.peakDeviceReserved = std::max(m_sim.peakDeviceReserved, d.peakReserved);
    m_sim.peakDeviceAllocated = std::max(m_sim.peakDeviceAllocated, d.peakAllocated);
    auto it = m_poolRecord.find({ device, pool });
    if (it == m_poolRecord.end())
        return;
    const memory::PoolTotals t = a.totals(pool);
    PoolRecord& p = m_sim.pools[it->second];
    p.peakReserved = std::max(p.peakReserved, t.reserved);
    p.peakAllocated = std::max(p.peakAllocated, t.allocated);
}

int Simulator::addHazard(HazardKind kind, const std::string& graph, const std::string& key, std::string concerns,
    std::string message, int madeAtCall)
{
    Hazard h;
    h.kind = kind;
    h.call = m_call;
    h.graph = graph;
    h.key = key;
    h.concerns = std::move(concerns);
    h.message = std::move(message);
    h.madeAtCall = madeAtCall;
    m_sim.hazards.push_back(std::move(h));
    return int(m_sim.hazards.size()) - 1;
}

} // namespace detail

} // namespace engine::runtime
