#pragma once
/// Graph-bearing inputs other than a debug folder, as groups of stages (readers::DebugDir), so that
/// `stages`, `simulate`, `passes`, `import` and `report` treat them as they treat a
/// TORCH_COMPILE_DEBUG folder:
/// - a TORCH_TRACE: one group per compile id ("0/0"), its stages the graphs the log holds in the
///   order PyTorch made them: Dynamo's graph (pre-AOT), AOT's graph (aot_inference_graph /
///   aot_forward_graph / aot_backward_graph), Inductor's post-grad graph. The AOT and post-grad
///   graphs' inputs (argN_1) get their kinds from the compile's own evidence: Dynamo's graph's input
///   at the same position (its name tells nn.Module parameters and buffers) and fw_metadata's
///   static_input_indices (static inputs that are neither: torch._dynamo.mark_static_address);
///   each input's Node::inputKindFrom says which.
/// - Inductor's output_code.py: one group, its call() as one stage.
#include "engine/core/result.h"
#include "engine/readers/debug_dir.h"
#include "engine/readers/torch_trace.h"

#include <string>
#include <vector>

namespace engine::ingest {

/// Every compile id of every trace (one per rank) as a group; a graph that does not read is kept
/// as a stage with its error. Group: directory = the log's path, model = compile id ("0/0"; with
/// "rank 1: " before it when several ranks), phase = "inference" / "forward" / "backward".
readers::DebugDir traceGraphGroups(const std::vector<readers::trace::TorchTrace>& traces);

/// Input kinds of an AOT graph from Dynamo's graph of the same compile and static_input_indices.
/// Returns how many inputs got a kind. Only inputs whose kind nothing told before are changed.
int applyTraceInputKinds(Graph& aot, const Graph* dynamo, const std::vector<int>& staticInputIndices,
    const std::string& compileId);

/// Inductor's output_code.py as one group (its call() as the stage).
Result<readers::DebugDir> inductorCodeGroups(const std::string& path);

/// Any input that holds graphs, as groups of stages: a debug folder (readers::readDebugDir), a
/// TORCH_TRACE (traceGraphGroups), Inductor's output_code.py, or one FX graph file (one group named
/// after the file, one stage per graph in it). Other kinds are an error that names the kind.
Result<readers::DebugDir> readStageGroups(const std::string& path);

} // namespace engine::ingest
