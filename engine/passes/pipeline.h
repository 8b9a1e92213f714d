#pragma once
/// TorchAir's reduce-overhead FX passes (torchair-behavior.md §4.0-4.4), run on the engine's graph IR
/// the way TorchAir runs them on an FX GraphModule: remove_noop_ops, view_to_reshape, remove_cat_ops,
/// eliminate_dead_code, reinplace_inplaceable_ops_pass, reinplace_input_mutated_ops. Each pass edits
/// the graph in place, leaves it finalized, and says what it did in a PassReport (docs/passes.md).
#include "engine/config/options.h"
#include "engine/core/result.h"
#include "engine/graph/graph.h"
#include "engine/passes/pass_report.h"

#include <vector>

namespace engine::passes {

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

struct PipelineResult {
    std::vector<Graph> stages; ///< stage 0 = the input, then one per pass that ran
    std::vector<PassReport> passes; ///< all six, in TorchAir's order, disabled ones with enabled = false
    /// npugraph_ex only: its closing debug_compare_fx_graphs, named "all npugraph_ex pass", of the AOT
    /// graph against the final one (torchair-behavior.md §4.0; TorchAir's test_debug_compare_fx_graphs).
    /// Empty for the torchair backend, which prints no such line.
    std::vector<std::string> finalLog;
};

/// Runs the passes in TorchAir's order (§4.0). `symbols` gives values for symbolic sizes when measuring
/// memory (may be empty for static graphs); if a symbol is missing, measurement is skipped, the
/// fields stay 0 and the log says so.
Result<PipelineResult> runReduceOverheadPasses(
    const Graph& graph, const config::Options& options, const SymbolValues& symbols = {});

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
