#include "engine/passes/pipeline.h"

#include "engine/graph/graph_diff.h"
#include "engine/graph/op_info.h"
#include "engine/passes/pass_util.h"
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

namespace {

// The user's pass (post_grad_custom_pre_pass / _post_pass, npu_fx_compiler.py _optimize_fx): its result is
// TorchAir's dump of it, so the comparison debug_compare_fx_graphs prints is a real one.
Result<PassReport> runUserPass(Graph& g, const PassEnvironment& env, const std::string& name)
{
    const Graph& dumped = env.userPassResults.at(name);
    return detail::runPass(g, name, name, true, [&](Graph& graph, PassReport& r) -> Result<void> {
        const std::string id = graph.id;
        graph = dumped;
        graph.id = id;
        r.log.push_back("aclgraph-inspector: " + name + " is the user's function; its result is TorchAir's dump NNN_"
            + debugFileName(name));
        return {};
    });
}

} // namespace

const std::vector<PipelinePass>& pipelinePasses()
{
    using config::Options;
    auto always = [](const Options&, const PassEnvironment&) { return true; };
    auto plain = [](Result<PassReport> (*fn)(Graph&, const Options&)) {
        return [fn](Graph& g, const Options& o, const PassEnvironment&) { return fn(g, o); };
    };
    // §4.0: _optimize_fx (npu_fx_compiler.py), then optimize_graph_without_runtime (fx2acl_converter.py).
    // The order is TorchAir's test_torch_compile_acl_debug_dump list of dump files.
    // The user's passes are the user's code: they run when a TORCH_COMPILE_DEBUG folder shows their result
    // (PassEnvironment::userPassResults). A callable cannot be written as a scenario value, and TorchAir
    // leaves them out of compile_configs, so nothing else can say that one was set.
    auto userRan = [](const char* name) {
        return [name](const Options&, const PassEnvironment& env) { return env.userPassResults.count(name) > 0; };
    };
    auto user = [](const char* name) {
        return [name](Graph& g, const Options&, const PassEnvironment& env) { return runUserPass(g, env, name); };
    };
    static const std::vector<PipelinePass> passes = {
        { "post_grad_custom_pre_pass", userRan("post_grad_custom_pre_pass"), user("post_grad_custom_pre_pass") },
        { "remove_noop_ops", always, plain(removeNoopOps) },
        { "recover_view_inplace_pattern", always, recoverViewInplacePattern },
        { "apply_pattern_passes", always, plain(applyPatternPasses) },
        { "view_to_reshape", always, plain(viewToReshape) },
        { "post_grad_custom_post_pass", userRan("post_grad_custom_post_pass"), user("post_grad_custom_post_pass") },
        { "remove_cat_ops", always, plain(removeCatOps) },
        { "apply_event_closure_with_multi_stream", always, plain(applyEventClosureWithMultiStream) },
        { "apply_event_record", always, plain(applyEventRecord) },
        { "eliminate_dead_code", always, plain(eliminateDeadCode) },
        { "reinplace_inplaceable_ops_pass", always, plain(reinplaceInplaceableOps) },
        { "reinplace_input_mutated_ops", always, plain(reinplaceInputMutatedOps) },
        { "decompose_auto_functionalized", always, plain(decomposeAutoFunctionalized) },
        { "eliminate_self_copy",
            [](const Options& o, const PassEnvironment&) { return o.backend == config::Backend::NpugraphEx; },
            plain(eliminateSelfCopy) },
        { "replace_dynamic_workspace_ops", always, plain(replaceDynamicWorkspaceOps) },
        { "replace_core_limit_nodes", always, replaceCoreLimitNodes },
        { "resolve_default_stream_markers", always, plain(resolveDefaultStreamMarkers) },
    };
    return passes;
}

const PassReport* findPass(const PipelineResult& result, const std::string& name)
{
    for (const PassReport& p : result.passes)
        if (p.name == name)
            return &p;
    return nullptr;
}

Result<PipelineResult> runReduceOverheadPasses(
    const Graph& graph, const config::Options& options, const SymbolValues& symbols, const PassEnvironment& env)
{
    const UserOpsScope userOps(env.userOps.get());
    PipelineResult result;
    Graph g = graph;
    if (auto ok = g.finalize(); !ok)
        return ok.error();
    result.stages.push_back(g);
    MemoryMeasurement current = measureMemory(g, options, symbols);
    for (const PipelinePass& pass : pipelinePasses()) {
        if (!pass.exists(options, env))
            continue;
        auto report = pass.run(g, options, env);
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
