#pragma once
/// A CUDA run's TORCH_TRACE as the scenario of that run (docs/cuda-graph-trees.md §11), so that the
/// run can be simulated and put beside its recording:
/// - runtime cuda_graph_trees; one graph per compile id, named by it ("0/1": the id the simulator
///   gives the same compile, frames taken in the same order);
/// - frames from the compiles' frame ids and co_name;
/// - config: every option of config::cudaOptionTable() whose value in the compiles' dumped configs
///   differs from 2.11's default, torch.compile's `dynamic` as Dynamo's config shows it, `fullgraph`
///   where a compile failed with FailOnRecompileLimitHit;
/// - inputs: kinds as trace_groups.h gives them; a parameter, buffer or static input gets the storage
///   named by its Dynamo input and shape, so compiles that take the same tensor share it;
/// - calls: the ones the user lists (`--call-list FILE`), else the ones the trace implies: each
///   compiled function's first run (cudagraphify.get_container: a graph's later first runs are new
///   sizes) and one call per recording (CUDAGraphNode.record), in time order.
/// Each assumption is a diagnostic "PATH: note: assumed: ..." and each thing the trace cannot tell
/// "PATH: note: unknown: ...", so nothing is guessed silently.
#include "engine/core/result.h"
#include "engine/ingest/trace_run.h"
#include "engine/scenario/scenario.h"

#include <string>
#include <vector>

namespace engine::scenario {

/// Whether the trace recorded a run this product simulates as CUDA Graph Trees: its tensors are on
/// CUDA or its compiled code ran under cudagraphs.
bool isCudaTraceRun(const ingest::TraceRun& run);

/// Turns `s`, which holds the trace's forward graphs as load.cpp reads them (ids "0/1/inference"),
/// into the run's scenario. `dynamoInputs`: per graph id, the placeholder names of the same compile's
/// Dynamo graph ("l_kv_0_"), position by position. `symbols`: the values the user gave, else the
/// ones create_symbol recorded. `rounds`: calls of every graph in order when the trace shows no run
/// and no list is given. `callList`: a JSON file of calls ("" = none), as readCallList reads it.
Result<void> makeTraceRunScenario(Scenario& s, const std::vector<readers::trace::TorchTrace>& traces,
    const ingest::TraceRun& run, const std::map<std::string, std::vector<std::string>>& dynamoInputs,
    const SymbolValues& symbols, int rounds, const std::string& callList);

/// Reads a call list file, a JSON array of calls in the scenario's syntax (docs/scenario-format.md)
/// or an object with "calls", against `s`'s graphs, and makes it s.calls. An input may also be named
/// by one of `aliases` (graph id -> alias -> placeholder name). Errors name the file and the JSON path.
Result<void> readCallList(Scenario& s, const std::string& path,
    const std::map<std::string, std::map<std::string, std::string>>& aliases = {});

} // namespace engine::scenario
