#pragma once
/// A scenario run through Inductor's CUDA Graph Trees (`"runtime": "cuda_graph_trees"`): the call
/// decisions of cgt::Tree (cuda_graph_trees.h) with the Dynamo side around them (compile ids per
/// frame, the recompile limit, cudagraphs skipped at compile time) and the memory of the manager's
/// private pool, as a Simulation whose events, calls, hazards and memory the views and reports show
/// like a TorchAir run's. The rules and their PyTorch source lines: docs/cuda-graph-trees.md; the
/// assumptions: docs/simulator.md, "CUDA Graph Trees".
#include "engine/core/result.h"
#include "engine/runtime/simulator.h"
#include "engine/scenario/scenario.h"

namespace engine::runtime::cgt {

/// Runs a cuda_graph_trees scenario (simulate() calls it for one). Fails only when the options are
/// invalid (PyTorch's text) or a graph cannot be analysed; the rest is inside the Simulation.
Result<Simulation> simulateScenario(const scenario::Scenario& scenario, const SimulationOptions& options);

} // namespace engine::runtime::cgt
