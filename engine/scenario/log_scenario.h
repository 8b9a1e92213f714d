#pragma once
/// The user's own run as a scenario (issue 23, docs/run-logs.md "A log as a scenario"): a TorchAir /
/// npugraph_ex log of a job, with the graphs of the same job (its TORCH_COMPILE_DEBUG folder, TorchAir's
/// generated module, a cache's compiled_module, an FX graph file or a scenario), becomes the scenario
/// of that run, so that simulating it gives the calls the log shows and the Config form's what-if
/// answers "what if I had set this option on my own run". From the log:
/// - the calls, in order, each of the graph the log names (graph_<N>, matched to the source's graphs
///   by id, else by order of first call);
/// - per call the graph key's values as the symbols the key is made of (TorchAir's
///   unupdated_sym_input_index, read off the graph as TorchAir reads it), other symbols carried from
///   the graph's call before;
/// - a recapture for a moved mutated input: the graph's mutated user inputs at new addresses; a new
///   parameter-address hash in the key: its parameters at new addresses; a recapture for a changed
///   core limit: a set_stream_limit before the call;
/// - outputs the log shows alive at the key's next call: kept by the caller until then;
/// - options the log tells: the capture limit (from its fallback warning), frozen_parameter (keys with
///   or without the parameter hash), mempool reuse in one FX graph, force_recapture, the backend.
/// Everything assumed is a diagnostic "LOG: note: assumed: ..." and everything the log cannot tell
/// "LOG: note: unknown: ...", so nothing is guessed silently.
#include "engine/core/result.h"
#include "engine/ingest/run_log.h"
#include "engine/scenario/scenario.h"

#include <string>

namespace engine::scenario {

/// Turns `s`, which holds the job's graphs (its own calls are dropped; their first symbol values per
/// graph serve as defaults, said so), into the scenario of `run`, read from `logPath`. `symbols`: values
/// the user gave, used where the log gives none. Errors: a CUDA (PyTorch) run, which takes the
/// TORCH_TRACE scenario instead (scenario/trace_scenario.h); a run with no call of any graph of `s`.
Result<void> makeLogRunScenario(
    Scenario& s, const ingest::LogRun& run, const std::string& logPath, const SymbolValues& symbols = {});

/// Reads the log at `logPath` and the graphs at `graphsPath` (anything loadScenarioOrGraph reads) and
/// makes the scenario of the log's run `runLabel`: "" when the log holds one run, else its label
/// ("rank 1", "pid 4242"; "1" for "rank 1"). Errors name the file: no such run (listing the runs), a log
/// of several runs without `runLabel`, the graphs' own errors.
Result<Scenario> loadLogScenario(const std::string& logPath, const std::string& graphsPath,
    const std::string& runLabel = "", const SymbolValues& symbols = {});

/// The text of a scenario file that names the log (`log`, scenario.h LogSource): what
/// `simulate LOG --graphs SRC --save-scenario FILE` (or `--db`) writes, so the run can be simulated again
/// (the Config form's what-if reads it again). Paths are written as given.
std::string logScenarioFileText(const LogSource& source, const std::string& name);

} // namespace engine::scenario
