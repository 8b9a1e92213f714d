#include "engine/passes/pipeline.h"

#include "engine/graph/graph_diff.h"
#include "engine/graph/op_info.h"
#include "engine/runtime/simulator.h"
#include "engine/scenario/scenario.h"

#include <set>

namespace engine::passes {

namespace {

std::set<std::string> graphSymbols(const Graph& g)
{
    std::set<std::string> all;
    auto add = [&all](const SymExpr& e) {
        for (const std::string& s : e.symbols())
            all.insert(s);
    };
    for (const Node& n : g.nodes) {
        for (const TensorMeta& t : n.outputs) {
            for (const SymExpr& e : t.shape)
                add(e);
            for (const SymExpr& e : t.stride)
                add(e);
        }
        add(n.symbol);
        add(n.workspaceBytes);
    }
    return all;
}

// What an op writes: every tensor result of an allocating or in-place op. Views, getitem and size
// queries write nothing, and an empty() only reserves memory.
uint64_t writtenBytes(const Node& n, const SymbolValues& syms, bool& ok)
{
    if (n.op != NodeOp::CallFunction && n.op != NodeOp::CallMethod)
        return 0;
    const OpInfo info = classifyOp(n.target);
    if (info.effect != OpInfo::Effect::Allocates && info.effect != OpInfo::Effect::InPlace)
        return 0;
    if (info.packet.rfind("empty", 0) == 0 || info.packet == "new_empty")
        return 0;
    uint64_t bytes = 0;
    for (const TensorMeta& t : n.outputs) {
        if (!t.onDevice())
            continue;
        auto shape = t.concreteShape(syms);
        if (!shape) {
            ok = false;
            return 0;
        }
        uint64_t numel = 1;
        for (int64_t d : *shape)
            numel *= uint64_t(d);
        bytes += numel * dtypeSize(t.dtype);
    }
    return bytes;
}

void record(PassReport& report, const MemoryMeasurement& before, const MemoryMeasurement& after)
{
    if (!before.measured || !after.measured) {
        report.measured = false;
        report.unmeasured = before.measured ? after.note : before.note;
        report.log.push_back("aclgraph-inspector: memory effect not measured: " + report.unmeasured);
        return;
    }
    report.peakBytesBefore = before.peakBytes;
    report.peakBytesAfter = after.peakBytes;
    report.trafficBytesBefore = before.trafficBytes;
    report.trafficBytesAfter = after.trafficBytes;
}

} // namespace

MemoryMeasurement measureMemory(const Graph& graph, const config::Options& options, const SymbolValues& symbols)
{
    MemoryMeasurement m;
    SymbolValues used;
    for (const std::string& s : graphSymbols(graph)) {
        auto it = symbols.find(s);
        if (it == symbols.end()) {
            m.note = "no value for symbol '" + s + "' (give it with --symbols " + s
                + "=N; a TORCH_TRACE of the same compile gives its hint)";
            return m;
        }
        used.emplace(s, it->second);
    }

    scenario::Scenario sc;
    sc.path = "<passes>";
    sc.name = "pass memory measurement";
    sc.backend = options.backend;
    sc.config.emplace_back(options.optionName("frozen_parameter"), PyValue::boolean(true));
    sc.graphs.push_back(graph);
    if (sc.graphs[0].id.empty())
        sc.graphs[0].id = "graph";
    if (auto ok = sc.graphs[0].finalize(); !ok) {
        m.note = ok.error().toString();
        return m;
    }
    scenario::Call call;
    call.graph = sc.graphs[0].id;
    call.symbols = used;
    call.sourcePath = "$.calls[0]";
    sc.calls.push_back(call);

    runtime::SimulationOptions so;
    so.recordEvents = false;
    auto sim = runtime::simulate(sc, so);
    if (!sim) {
        m.note = sim.error().toString();
        return m;
    }
    if (!sim->sizesUnknown.empty()) {
        m.note = "sizes are unknown (" + sim->sizesUnknown + ")";
        return m;
    }
    if (sim->outOfMemory || sim->graphs.empty()) {
        m.note = "the simulated call did not complete (out of memory)";
        return m;
    }
    for (const runtime::PoolRecord& p : sim->pools)
        if (p.pool == sim->graphs[0].pool)
            m.peakBytes = p.peakAllocated;

    bool ok = true;
    for (const Node& n : graph.nodes)
        m.trafficBytes += writtenBytes(n, used, ok);
    if (!ok) {
        m.note = "a size could not be evaluated";
        return m;
    }
    m.measured = true;
    return m;
}

Result<PipelineResult> runReduceOverheadPasses(
    const Graph& graph, const config::Options& options, const SymbolValues& symbols)
{
    using PassFn = Result<PassReport> (*)(Graph&, const config::Options&);
    // §4.0: _optimize_fx (remove_noop_ops, view_to_reshape), then optimize_graph_without_runtime.
    static const PassFn order[] = { removeNoopOps, viewToReshape, removeCatOps, eliminateDeadCode,
        reinplaceInplaceableOps, reinplaceInputMutatedOps };

    PipelineResult result;
    Graph g = graph;
    if (auto ok = g.finalize(); !ok)
        return ok.error();
    result.stages.push_back(g);
    MemoryMeasurement current = measureMemory(g, options, symbols);
    for (PassFn pass : order) {
        auto report = pass(g, options);
        if (!report)
            return report.error();
        if (report->enabled) {
            MemoryMeasurement after = measureMemory(g, options, symbols);
            record(*report, current, after);
            current = after;
            report->stage = int(result.stages.size());
            result.stages.push_back(g);
        }
        result.passes.push_back(std::move(report.value()));
    }
    if (options.backend == config::Backend::NpugraphEx)
        result.finalLog.push_back(compareText("all npugraph_ex pass", diffGraphs(result.stages.front(), g)));
    return result;
}

} // namespace engine::passes
