#pragma once
/// What `simulate` and the window accept: a scenario JSON, or an FX graph file as PyTorch or
/// TorchAir prints it (readable code, `print(gm.graph)`), which becomes a one-graph scenario.
#include "engine/core/result.h"
#include "engine/readers/torch_trace.h"
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
/// `requireSymbols` false (passes, import): a symbol with no value is no error; its calls lack it,
/// a note says which figures need it, and they stay unknown (never 0).
/// A TORCH_TRACE of a CUDA run (scenario/trace_scenario.h) becomes the scenario of that run: the
/// cuda_graph_trees runtime, its config, and the calls the trace implies (`calls` rounds of every
/// graph only when it shows no run). `callList` (a JSON file, "" = none): the calls, as
/// readCallList reads them, instead of the ones made here.
Result<Scenario> loadScenarioOrGraph(const std::string& path, const SymbolValues& symbols = {}, int calls = 2,
    bool requireSymbols = true, const std::string& callList = "");

/// The same for a TORCH_TRACE already read (`traces`, from `path`): what loadScenarioOrGraph gives for
/// it, without reading it again (the importer has it in memory).
Result<Scenario> loadTraceScenario(const std::vector<readers::trace::TorchTrace>& traces, const std::string& path,
    const SymbolValues& symbols = {}, int calls = 2, bool requireSymbols = true, const std::string& callList = "");

/// The scenario's diagnostics that are notes of what was assumed or is unknown ("PATH: note: assumed:
/// ...", as trace_scenario.h and log_scenario.h write them), for the run's Simulation::assumptions, so
/// a stored run keeps what its scenario had to assume.
std::vector<std::string> assumptionNotes(const Scenario& s);

/// Sets input kinds the user gave (`--input-kind SEL=KIND`, repeatable): SEL is a comma list of
/// input names, positions (`#3`), position ranges (`#2-26`) or `*` (every tensor input whose kind
/// nothing told); KIND is parameter, buffer, static_address or user_input. Applies to every graph of
/// the scenario that has the inputs named; each set input's inputKindFrom says "--input-kind". Error
/// (naming the option) for a bad spec, an unknown kind, or a name no graph has.
Result<void> applyInputKinds(Scenario& s, const std::vector<std::string>& specs);
/// The same on one graph (returns how many inputs it set; names it lacks are not an error here).
Result<int> applyInputKinds(Graph& g, const std::vector<std::string>& specs);
/// Whether `spec` is a well-formed `SEL=KIND` (what the commands check before reading any file):
/// the same error applyInputKinds gives for it, or ok. Whether SEL's names exist is not checked.
Result<void> checkInputKindSpec(const std::string& spec);

} // namespace engine::scenario
