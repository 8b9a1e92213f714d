#pragma once
/// TorchAir's reduce-overhead FX passes (torchair-behavior.md §4.0-4.6), run on the engine's graph IR
/// the way TorchAir runs them on an FX GraphModule, in TorchAir's order (npu_fx_compiler.py
/// `_optimize_fx`, then fx2acl_converter.py `optimize_graph_without_runtime`). Each pass edits the
/// graph in place, leaves it finalized, and says what it did in a PassReport (docs/passes.md).
#include "engine/config/options.h"
#include "engine/core/result.h"
#include "engine/graph/graph.h"
#include "engine/graph/op_table.h"
#include "engine/passes/pass_report.h"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace engine::passes {

/// What TorchAir's passes depend on besides its options: the software stack they run on.
struct PassEnvironment {
    /// The CANN version ("8.3.RC1", "9.0.0"); empty when unknown. recover_view_inplace_pattern runs
    /// only on CANN >= 8.3.RC1 and replace_core_limit_nodes keeps the static kernel only on >= 9.0.0:
    /// with the version unknown they behave as on a current CANN and their log says so.
    std::string cann;
    /// Custom op schemas and user-registered in-placeable ops (a scenario's `operators`); installed
    /// (UserOpsScope) for the length of runReduceOverheadPasses.
    std::shared_ptr<const UserOps> userOps;
    /// The graphs the user's own passes (post_grad_custom_pre_pass / post_grad_custom_post_pass) left,
    /// as TorchAir dumped them (`NNN_aot_forward_graph_after_post_grad_custom_pre_pass.txt`): the
    /// pipeline runs such a pass as that graph, so its effect is known; without one it is not run.
    std::map<std::string, Graph> userPassResults;
};

/// Inductor's remove_noop_ops (§4.3), switched by remove_noop_ops.
Result<PassReport> removeNoopOps(Graph& graph, const config::Options& options);
/// aten.view.default -> aten.reshape.default (always on).
Result<PassReport> viewToReshape(Graph& graph, const config::Options& options);
/// optimize_cat_with_out_tensor (§4.4), switched by remove_cat_ops.
Result<PassReport> removeCatOps(Graph& graph, const config::Options& options);
/// FX Graph.eliminate_dead_code (always on).
Result<PassReport> eliminateDeadCode(Graph& graph, const config::Options& options);
/// _reinplace_inplaceable_ops_pass (§4.1), switched by inplace_pass /
/// debug.aclgraph.disable_reinplace_inplaceable_ops_pass.
Result<PassReport> reinplaceInplaceableOps(Graph& graph, const config::Options& options);
/// _reinplace_input_mutated_ops (§4.2), switched by input_inplace_pass /
/// debug.aclgraph.disable_reinplace_input_mutated_ops_pass.
Result<PassReport> reinplaceInputMutatedOps(Graph& graph, const config::Options& options);

/// recover_view_inplace_pattern (patterns/_recover_view_inplace_pattern.py, §4.5, always on):
/// input -> view -> {scatter_update, npu_scatter_nd_update, npu_quant_scatter} -> view -> copy_(input)
/// becomes the in-place op. CANN >= 8.3.RC1 only.
Result<PassReport> recoverViewInplacePattern(Graph& graph, const config::Options& options, const PassEnvironment& env);
/// _apply_pattern_passes (patterns/, §4.5), switched by pattern_fusion_pass: the registered fusions.
Result<PassReport> applyPatternPasses(Graph& graph, const config::Options& options);
/// apply_event_closure_with_multi_stream (graph_pass.py, §4.6, always on): event record/wait around
/// user-stream scopes.
Result<PassReport> applyEventClosureWithMultiStream(Graph& graph, const config::Options& options);
/// apply_event_record (graph_pass.py, §4.6, always on): air.record after producers used by air.wait.
Result<PassReport> applyEventRecord(Graph& graph, const config::Options& options);
/// inductor's decompose_auto_functionalized (§4.2), after reinplace_input_mutated_ops when that runs.
Result<PassReport> decomposeAutoFunctionalized(Graph& graph, const config::Options& options);
/// eliminate_self_copy (npugraph_ex graph_pass.py, npugraph_ex only): copy_(x, x) without users goes.
Result<PassReport> eliminateSelfCopy(Graph& graph, const config::Options& options);
/// replace_dynamic_workspace_ops (acl_graph.py, §4.6, always on): FIA ops -> static workspace + .out.
Result<PassReport> replaceDynamicWorkspaceOps(Graph& graph, const config::Options& options);
/// replace_core_limit_nodes (graph_pass.py, §4.6, always on): limit_core_num scopes -> stream limit
/// calls; with the static kernel on and CANN < 9.0.0 the static kernel is switched off (its warning).
Result<PassReport> replaceCoreLimitNodes(Graph& graph, const config::Options& options, const PassEnvironment& env);
/// resolve_default_stream_markers (graph_pass.py, §4.6, always on).
Result<PassReport> resolveDefaultStreamMarkers(Graph& graph, const config::Options& options);

/// One pass of the pipeline, in TorchAir's order.
struct PipelinePass {
    std::string name; ///< PassReport::name
    /// Whether the run has it at all (eliminate_self_copy is npugraph_ex's only; the user's passes exist
    /// when PassEnvironment::userPassResults has their result); one it does not have is left out of
    /// PipelineResult::passes.
    std::function<bool(const config::Options&, const PassEnvironment&)> exists;
    std::function<Result<PassReport>(Graph&, const config::Options&, const PassEnvironment&)> run;
};
/// Every pass TorchAir runs in reduce-overhead mode, in its order (§4.0).
const std::vector<PipelinePass>& pipelinePasses();

struct PipelineResult {
    std::vector<Graph> stages; ///< stage 0 = the input, then one per pass that ran
    /// every pass of the backend, in TorchAir's order, disabled ones with enabled = false
    std::vector<PassReport> passes;
    /// npugraph_ex only: its closing debug_compare_fx_graphs, named "all npugraph_ex pass", of the AOT
    /// graph against the final one (torchair-behavior.md §4.0; TorchAir's test_debug_compare_fx_graphs).
    /// Empty for the torchair backend, which prints no such line.
    std::vector<std::string> finalLog;
};

/// Runs the passes in TorchAir's order (§4.0). `symbols` gives values for symbolic sizes when measuring
/// memory (may be empty for static graphs); if a symbol is missing, measurement is skipped, the
/// fields stay 0 and the log says so.
Result<PipelineResult> runReduceOverheadPasses(const Graph& graph, const config::Options& options,
    const SymbolValues& symbols = {}, const PassEnvironment& env = {});
/// The report of the pass named `name` in `result`, or nullptr.
const PassReport* findPass(const PipelineResult& result, const std::string& name);

/// The memory effect of one call of `graph`, as PassReport reports it before and after a pass.
struct MemoryMeasurement {
    bool measured = false;
    uint64_t peakBytes = 0; ///< peak allocated bytes of the graph's private pool during the capture
    uint64_t trafficBytes = 0; ///< bytes written by the graph's ops (estimate)
    std::string note; ///< why it was not measured
};
/// Simulates one call of `graph` (frozen_parameter on, default device, the backend of `options`).
MemoryMeasurement measureMemory(const Graph& graph, const config::Options& options, const SymbolValues& symbols);

} // namespace engine::passes
