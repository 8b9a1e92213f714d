#pragma once
/// What `simulate` and the window accept: a scenario JSON, or an FX graph file as PyTorch or
/// TorchAir prints it (readable code, `print(gm.graph)`), which becomes a one-graph scenario.
#include "engine/core/result.h"
#include "engine/scenario/scenario.h"

#include <string>

namespace engine::scenario {

/// Reads `path`: a scenario if its first non-blank character is '{', else an FX graph file. A graph
/// file becomes a scenario with default config and `calls` calls of its first graph with `symbols`
/// (every symbol its sizes use must have a value). The graph's id is the file's base name. TorchAir's
/// generated module (output_code.py) brings its own backend, config (compile_configs and the custom
/// pool) and graph name (fx_graph_name). A TORCH_COMPILE_DEBUG folder (readers/debug_dir.h) gives
/// one graph per forward group (its output_code.py, annotated by the last pass dump; else that
/// dump), named by the group ("model__0/forward"), and each call runs every graph once, in order.
Result<Scenario> loadScenarioOrGraph(const std::string& path, const SymbolValues& symbols = {}, int calls = 2);

} // namespace engine::scenario
