#pragma once
/// A run's configuration as the config form and the run comparison show it. A stored run keeps its
/// config as the JSON of simulationConfigJson ({"written": [...], "effective": {...}}), whose
/// "effective" object holds only the options the simulator reads; the other options are valued from
/// the settings as written, else from the backend's default.
#include "engine/config/options.h"
#include "engine/runtime/simulator.h"

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace engine::report {

/// One row of config::optionTable() under a run's backend.
struct RunOption {
    size_t spec = 0; ///< index in config::optionTable()
    std::string name; ///< in the backend's spelling; empty when the backend has no such option
    std::string value; ///< Python repr of the effective value; empty when `name` is
    std::string defaultValue; ///< Python repr of the backend's default
    /// The run says what the value was: the option is in "effective" or was written.
    bool set = false;
    /// A CUDA Graph Trees run's option: `spec` indexes config::cudaOptionTable() and `name` is its
    /// canonical name (PyTorch's module path, or mode / dynamic / fullgraph / TORCH_LOGS).
    bool cuda = false;
    bool isDefault() const { return value == defaultValue; }
};

/// Every option of the table, in table order, valued from `configJson` ("effective" first, then
/// the last written setting of the option in either spelling, inverted for an inverted npugraph_ex
/// name given to torchair, then the default; `mode` unwritten is the aclgraph mode the simulator
/// runs, 'reduce-overhead' or 'npugraph_ex'). A malformed `configJson` gives the defaults.
std::vector<RunOption> runOptions(config::Backend backend, const std::string& configJson);

/// Every option of config::cudaOptionTable() for a CUDA Graph Trees run, valued from its config
/// (cudaConfigJson): "effective" first, then the last written setting in any spelling, then PyTorch's
/// default (mode unwritten is 'reduce-overhead', what the simulator runs).
std::vector<RunOption> cudaRunOptions(const std::string& configJson);
/// The options of a run, whatever runtime it went through (cudaRunOptions when sim.cuda is set).
std::vector<RunOption> runOptions(const runtime::Simulation& sim, const std::string& configJson);
/// The `set` options of runOptions(sim, configJson) as (name, value) pairs.
std::vector<std::pair<std::string, std::string>> runConfigPairs(
    const runtime::Simulation& sim, const std::string& configJson);

/// The `set` options of runOptions as (name, value) pairs in table order: what compareRuns takes.
std::vector<std::pair<std::string, std::string>> runConfigPairs(config::Backend backend, const std::string& configJson);
/// The same for the Options of a Simulation made in this process.
std::vector<std::pair<std::string, std::string>> runConfigPairs(const config::Options& options);

} // namespace engine::report
