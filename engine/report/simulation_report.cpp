#include "engine/report/simulation_report.h"

#include "engine/core/json_text.h"

#include <nlohmann/json.hpp>

namespace engine::report {

using nlohmann::ordered_json;
using runtime::LogLevel;

std::string logTag(const runtime::Simulation& sim)
{
    if (sim.cuda)
        return "PYTORCH";
    return sim.options.backend == config::Backend::NpugraphEx ? "NPUGRAPH_EX" : "TORCHAIR";
}

std::string formatLogLine(const runtime::LogLine& line, const std::string& tag, int call)
{
    if (!line.category.empty())
        return line.category + ": " + line.text;
    std::string s = std::string("[") + runtime::logLevelName(line.level) + "] " + tag;
    if (call >= 0)
        s += " call " + std::to_string(call);
    return s + ": " + line.text;
}

std::string formatMiB(uint64_t bytes)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.2f MiB", double(bytes) / (1024.0 * 1024.0));
    return buf;
}

std::string poolKindName(const runtime::PoolRecord& pool, runtime::RunOriginKind origin)
{
    if (pool.pool.isDefault())
        return "default";
    if (origin == runtime::RunOriginKind::Recorded)
        return pool.pool.first == 0 ? "graph pool" : "private pool";
    return pool.custom ? "custom" : "private";
}

std::string capacityText(const runtime::Simulation& sim)
{
    const bool unknown = sim.origin.kind == runtime::RunOriginKind::Recorded && !sim.origin.capacityKnown;
    return unknown ? "not recorded" : formatMiB(sim.capacityBytes);
}

namespace {

/// " on npu:1" in runs on more than one device; nothing in single-device runs, which print as before.
std::string onDevice(const runtime::Simulation& sim, int device)
{
    return sim.multiDevice() ? " on " + memory::deviceName(sim.profile, device) : std::string();
}

} // namespace

std::string simulationText(const runtime::Simulation& sim, LogLevel minLevel)
{
    std::string out;
    const std::string tag = logTag(sim);
    for (const runtime::Event& e : sim.events)
        for (const runtime::LogLine& l : e.log)
            if (int(l.level) >= int(minLevel) || !l.category.empty())
                out += formatLogLine(l, tag, e.call) + "\n";
    if (!sim.hazards.empty()) {
        out += "\nHazards (" + std::to_string(sim.hazards.size()) + "):\n";
        for (const runtime::Hazard& h : sim.hazards)
            out += "  call " + std::to_string(h.call) + " " + runtime::hazardKindName(h.kind) + ": " + h.message + "\n";
    }
    out += "\nSummary: " + std::to_string(sim.callsSimulated) + " calls";
    if (sim.outOfMemory)
        out += ", stopped by out-of-memory";
    if (sim.cancelled)
        out += ", cancelled";
    if (!sim.failure.empty())
        out += ", stopped by an exception at call " + std::to_string(sim.callsSimulated - 1) + ": " + sim.failure;
    out += "\n";
    for (const runtime::GraphRecord& g : sim.graphs) {
        if (sim.cuda) {
            // CUDA Graph Trees: the graph's compile id; its counts in PyTorch's words.
            const auto count = [&g](const char* key) {
                auto it = g.counters.find(key);
                return std::to_string(it == g.counters.end() ? 0 : it->second);
            };
            const int64_t warmups = g.counters.count("warmups") ? g.counters.at("warmups") : 0;
            out += "  [" + g.name + "] ('" + g.id + "'): " + count("warmups") + " warm-ups, " + count("recordings")
                + " recordings (" + count("rerecords") + " re-recorded), " + std::to_string(g.replays) + " replays, "
                + std::to_string(g.eagerCalls - warmups) + " without CUDA graphs"
                + (g.fallbackToEager ? ", over the recompile limit from call " + std::to_string(g.fallbackCall) : "")
                + "\n";
            continue;
        }
        out += "  " + g.name + " ('" + g.id + "', pool " + g.pool.str() + onDevice(sim, g.device)
            + "): " + std::to_string(g.allKeys.size()) + " keys, " + std::to_string(g.captures) + " captures, "
            + std::to_string(g.recapturesMutatedInput + g.recapturesCoreLimit + g.recapturesForce) + " recaptures, "
            + std::to_string(g.replays) + " replays, " + std::to_string(g.eagerCalls) + " eager calls"
            + (g.fallbackToEager ? ", fell back to eager at call " + std::to_string(g.fallbackCall) : "") + "\n";
    }
    // Byte figures that rest on sizes the inputs did not give are not printed as numbers.
    const std::string unknown = runtime::unknownSizesText(sim);
    const bool recorded = sim.origin.kind == runtime::RunOriginKind::Recorded;
    for (const runtime::PoolRecord& p : sim.pools) {
        const std::string kind = poolKindName(p, sim.origin.kind);
        const bool named = recorded ? !p.pool.isDefault() : p.custom;
        out += "  pool " + p.pool.str() + (named ? " (" + kind + ")" : "") + onDevice(sim, p.device) + ": "
            + (unknown.empty()
                    ? "peak reserved " + formatMiB(p.peakReserved) + ", peak allocated " + formatMiB(p.peakAllocated)
                    : std::string("memory unknown"))
            + "\n";
    }
    if (sim.multiDevice()) {
        // Capacity, peaks and OOM are each device's own.
        for (const runtime::DeviceRecord& d : sim.devices)
            out += "  device " + d.name + ": peak reserved "
                + (unknown.empty() ? formatMiB(d.peakReserved) : std::string("unknown")) + " of "
                + formatMiB(d.capacityBytes) + (d.outOfMemory ? ", out of memory" : "") + "\n";
    } else {
        out += "  device: peak reserved "
            + (unknown.empty() ? formatMiB(sim.peakDeviceReserved) : std::string("unknown")) + " of "
            + (recorded && !sim.origin.capacityKnown ? std::string("capacity not recorded")
                                                     : formatMiB(sim.capacityBytes))
            + "\n";
    }
    if (!unknown.empty())
        out += "  sizes: " + unknown + "\n";
    if (!sim.files.empty()) {
        out += "\nFiles the run writes:\n";
        for (const runtime::RunFile& f : sim.files) {
            out += "  " + f.path + " (" + f.what + "): "
                + (f.writtenAtCall < 0 ? std::string("there before the run")
                                       : "written at call " + std::to_string(f.writtenAtCall));
            if (f.removedAtCall >= 0)
                out += ", removed at call " + std::to_string(f.removedAtCall) + " (" + f.why + ")";
            out += "\n";
        }
    }
    if (!sim.assumptions.empty()) {
        out += "\nAssumed (the inputs did not say):\n";
        for (const std::string& a : sim.assumptions)
            out += "  " + a + "\n";
    }
    return out;
}

namespace {

ordered_json poolStateJson(const runtime::PoolCallState& p, bool multiDevice)
{
    ordered_json segs = ordered_json::array();
    for (const auto& s : p.segments)
        segs.push_back({ { "stream", s.stream }, { "block_num", s.blockNum }, { "activate_num", s.activateNum },
            { "total_size", s.totalSize }, { "allocated_size", s.allocatedSize } });
    ordered_json out = { { "id", p.pool.str() } };
    if (multiDevice)
        out["device"] = p.device;
    out.update({ { "block_num", p.blockNum }, { "activate_num", p.activateNum }, { "total_size", p.totalSize },
        { "allocated_size", p.allocatedSize }, { "segments", segs } });
    return out;
}

ordered_json deviceMemoryJson(const std::vector<runtime::DeviceMemory>& devices)
{
    ordered_json out = ordered_json::array();
    for (const runtime::DeviceMemory& d : devices)
        out.push_back({ { "device", d.device }, { "reserved_bytes", d.reserved }, { "allocated_bytes", d.allocated } });
    return out;
}

ordered_json configValue(const config::Options& o)
{
    ordered_json written = ordered_json::array();
    for (const auto& [name, value] : o.written)
        written.push_back({ { "name", name }, { "value", value } });
    ordered_json out = {
        { "written", written },
        { "effective",
            { { o.optionName("frozen_parameter"), o.frozenParameter },
                { o.backend == config::Backend::NpugraphEx ? "use_graph_pool" : "aclgraph_config.use_custom_pool",
                    o.customPool ? ordered_json::array({ o.customPool->first, o.customPool->second })
                                 : ordered_json() },
                { o.optionName("reuse_graph_pool_in_same_fx"),
                    o.backend == config::Backend::NpugraphEx ? o.reuseInSameFx : !o.reuseInSameFx },
                { o.optionName("clone_input"), o.cloneInput }, { o.optionName("clone_output"), o.cloneOutput },
                { o.optionName("capture_limit"), o.captureLimit }, { o.optionName("force_eager"), o.forceEager } } },
        { "notes", o.notes },
    };
    if (o.backend == config::Backend::NpugraphEx)
        out["effective"]["force_recapture"] = o.forceRecapture;
    return out;
}

} // namespace

std::string simulationConfigJson(const config::Options& options, int indent)
{
    return jsonText(configValue(options), indent);
}

namespace {

ordered_json cudaConfigValue(const config::CudaOptions& o)
{
    ordered_json written = ordered_json::array();
    for (const auto& [name, value] : o.written)
        written.push_back({ { "name", name }, { "value", value } });
    ordered_json sizes;
    if (o.captureSizes) {
        sizes = ordered_json::array();
        for (const auto& key : *o.captureSizes)
            sizes.push_back(key);
    }
    const std::string ind = "torch._inductor.config.";
    const std::string dyn = "torch._dynamo.config.";
    ordered_json effective = { { "mode", o.mode }, { "dynamic", o.dynamic ? ordered_json(*o.dynamic) : ordered_json() },
        { "fullgraph", o.fullgraph }, { ind + "triton.cudagraphs", o.cudagraphs },
        { ind + "triton.cudagraph_trees", o.cudagraphTrees },
        { ind + "triton.cudagraph_skip_dynamic_graphs", o.skipDynamicGraphs },
        { ind + "triton.cudagraph_capture_sizes", sizes },
        { ind + "triton.cudagraph_dynamic_shape_warn_limit",
            o.dynamicShapeWarnLimit ? ordered_json(*o.dynamicShapeWarnLimit) : ordered_json() },
        { ind + "triton.cudagraph_unexpected_rerecord_limit", o.unexpectedRerecordLimit },
        { ind + "triton.cudagraph_support_input_mutation", o.supportInputMutation },
        { ind + "triton.force_cudagraphs_warmup", o.forceCudagraphsWarmup },
        { ind + "triton.skip_cudagraph_warmup", o.skipCudagraphWarmup },
        { ind + "triton.cudagraph_or_error", o.cudagraphOrError }, { ind + "graph_partition", o.graphPartition },
        { dyn + "inline_inbuilt_nn_modules", o.inlineInbuiltNnModules }, { dyn + "recompile_limit", o.recompileLimit },
        { dyn + "accumulated_recompile_limit", o.accumulatedRecompileLimit },
        { dyn + "fail_on_recompile_limit_hit", o.failOnRecompileLimitHit },
        { dyn + "automatic_dynamic_shapes", o.automaticDynamicShapes }, { "TORCH_LOGS", o.torchLogs } };
    return { { "written", written }, { "effective", effective }, { "notes", o.notes } };
}

} // namespace

std::string cudaConfigJson(const config::CudaOptions& options, int indent)
{
    return jsonText(cudaConfigValue(options), indent);
}

std::string simulationConfigJson(const runtime::Simulation& sim, int indent)
{
    return sim.cuda ? cudaConfigJson(*sim.cuda, indent) : simulationConfigJson(sim.options, indent);
}

std::string simulationJson(const runtime::Simulation& sim, int indent)
{
    const config::Options& o = sim.options;
    ordered_json j;
    j["format"] = "aclgraph-inspector-simulation";
    j["version"] = 1;
    j["scenario"] = { { "path", sim.scenarioPath }, { "name", sim.scenarioName } };
    // A recording has no backend and no TorchAir config: null, and "origin" says what it has.
    const bool recorded = sim.origin.kind == runtime::RunOriginKind::Recorded;
    ordered_json origin = { { "kind", runtime::runOriginKindName(sim.origin.kind) } };
    if (recorded) {
        ordered_json settings = ordered_json::array();
        for (const auto& [name, value] : sim.origin.allocatorSettings)
            settings.push_back({ { "name", name }, { "value", value } });
        origin["recorded_as"] = sim.origin.recordedAs;
        origin["allocator_settings"] = settings;
        origin["capacity_known"] = sim.origin.capacityKnown;
    }
    j["origin"] = origin;
    j["backend"] = recorded ? ordered_json() : ordered_json(runtime::runtimeName(sim));
    j["config"] = recorded ? ordered_json() : sim.cuda ? cudaConfigValue(*sim.cuda) : configValue(o);
    j["device"] = { { "profile", memory::profileName(sim.profile) },
        { "capacity_bytes",
            recorded && !sim.origin.capacityKnown ? ordered_json() : ordered_json(sim.capacityBytes) } };

    // Runs on more than one device say which device each graph, pool and call figure is on; single-device
    // runs print exactly what they printed before devices were modelled.
    const bool multi = sim.multiDevice();
    if (multi) {
        ordered_json devices = ordered_json::array();
        for (const runtime::DeviceRecord& d : sim.devices)
            devices.push_back({ { "index", d.index }, { "name", d.name }, { "capacity_bytes", d.capacityBytes },
                { "peak_reserved_bytes", sim.sizesUnknown.empty() ? ordered_json(d.peakReserved) : ordered_json() },
                { "peak_allocated_bytes", sim.sizesUnknown.empty() ? ordered_json(d.peakAllocated) : ordered_json() },
                { "out_of_memory", d.outOfMemory } });
        j["devices"] = devices;
    }

    ordered_json graphs = ordered_json::array();
    for (const runtime::GraphRecord& g : sim.graphs) {
        graphs.push_back({ { "name", g.name }, { "id", g.id }, { "pool", g.pool.str() }, { "keys", g.allKeys },
            { "captured_keys", g.keys }, { "captures", g.captures },
            { "recaptures",
                { { "mutated_input", g.recapturesMutatedInput }, { "core_limit", g.recapturesCoreLimit },
                    { "force", g.recapturesForce } } },
            { "replays", g.replays }, { "eager_calls", g.eagerCalls }, { "fallback_to_eager", g.fallbackToEager },
            { "fallback_call", g.fallbackCall >= 0 ? ordered_json(g.fallbackCall) : ordered_json() },
            { "counters", g.counters } });
        if (multi)
            graphs.back()["device"] = g.device;
    }
    j["graphs"] = graphs;

    ordered_json pools = ordered_json::array();
    for (const runtime::PoolRecord& p : sim.pools) {
        pools.push_back({ { "id", p.pool.str() }, { "kind", poolKindName(p, sim.origin.kind) }, { "graphs", p.graphs },
            { "custom", p.custom }, { "peak_reserved_bytes", p.peakReserved },
            { "peak_allocated_bytes", p.peakAllocated } });
        if (multi)
            pools.back()["device"] = p.device;
    }
    j["pools"] = pools;

    ordered_json calls = ordered_json::array();
    for (const runtime::CallRecord& c : sim.calls) {
        ordered_json ps = ordered_json::array();
        for (const auto& p : c.pools)
            ps.push_back(poolStateJson(p, multi));
        ordered_json call = { { "index", c.index }, { "graph", c.graph }, { "graph_id", c.graphId }, { "key", c.key },
            { "action", runtime::callActionName(c.action) } };
        if (!c.recaptureCause.empty())
            call["recapture_cause"] = c.recaptureCause;
        call["inputs_copied"] = c.inputsCopied;
        call["bytes_copied"] = c.bytesCopied;
        call["outputs_rebuilt"] = c.outputsRebuilt;
        call["pools"] = ps;
        call["device_reserved_bytes"] = c.deviceReserved;
        call["device_allocated_bytes"] = c.deviceAllocated;
        if (multi)
            call["devices"] = deviceMemoryJson(c.devices);
        calls.push_back(std::move(call));
    }
    j["calls"] = calls;

    ordered_json hazards = ordered_json::array();
    for (const runtime::Hazard& h : sim.hazards) {
        ordered_json hz = { { "kind", runtime::hazardKindName(h.kind) }, { "call", h.call }, { "graph", h.graph },
            { "key", h.key }, { "concerns", h.concerns }, { "message", h.message } };
        if (h.madeAtCall >= 0)
            hz["made_at_call"] = h.madeAtCall;
        hazards.push_back(std::move(hz));
    }
    j["hazards"] = hazards;
    j["warnings"] = sim.warnings;
    ordered_json log = ordered_json::array();
    for (const runtime::Event& e : sim.events)
        for (const runtime::LogLine& l : e.log)
            log.push_back(formatLogLine(l, logTag(sim), e.call));
    j["log"] = log;
    // null, not 0, where the sizes are unknown; "sizes_unknown" says why.
    const bool sized = sim.sizesUnknown.empty();
    j["peak_device_reserved_bytes"] = sized ? ordered_json(sim.peakDeviceReserved) : ordered_json();
    j["peak_device_allocated_bytes"] = sized ? ordered_json(sim.peakDeviceAllocated) : ordered_json();
    if (!sized)
        j["sizes_unknown"] = sim.sizesUnknown;
    j["assumptions"] = sim.assumptions;
    ordered_json files = ordered_json::array();
    for (const runtime::RunFile& f : sim.files) {
        ordered_json x = { { "path", f.path }, { "what", f.what },
            { "written_at_call", f.writtenAtCall < 0 ? ordered_json() : ordered_json(f.writtenAtCall) },
            { "removed_at_call", f.removedAtCall < 0 ? ordered_json() : ordered_json(f.removedAtCall) } };
        if (!f.why.empty())
            x["why"] = f.why;
        files.push_back(std::move(x));
    }
    j["files"] = files;
    j["failure"] = sim.failure.empty() ? ordered_json() : ordered_json(sim.failure);
    j["out_of_memory"] = sim.outOfMemory;
    j["calls_simulated"] = sim.callsSimulated;
    return jsonText(j, indent);
}

} // namespace engine::report
