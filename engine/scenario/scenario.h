#pragma once
/// A scenario: one run a user wants to understand — TorchAir config, FX graphs, device, and the
/// sequence of calls. Read from JSON (docs/scenario-format.md); every error names the file and the
/// JSON path ("$.calls[3].inputs.arg2_1") and says what was expected.
#include "engine/config/options.h"
#include "engine/core/py_value.h"
#include "engine/core/result.h"
#include "engine/graph/graph.h"
#include "engine/graph/op_table.h"
#include "engine/memory/caching_allocator.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace engine::scenario {

constexpr int kFormatVersion = 1;

struct DeviceSpec {
    memory::Profile profile = memory::Profile::Npu;
    uint64_t capacityBytes = 64ull << 30; ///< Atlas A2 (910B) HBM
    uint64_t l2Bytes = 192ull << 20; ///< Atlas A2 L2 cache
    int cubeCores = 24; ///< stream core limits in force before any call changes them
    int vectorCores = 48;
    double copyBytesPerSecond = 800e9; ///< device-to-device copy rate, for modelled copy times
    /// `per_device`: device index -> its capacity where it differs from capacityBytes.
    std::map<int, uint64_t> capacityOverride;
    uint64_t capacityOf(int device) const
    {
        auto it = capacityOverride.find(device);
        return it == capacityOverride.end() ? capacityBytes : it->second;
    }
};

/// How a call binds one tensor input.
struct Binding {
    enum class Kind {
        Default, ///< not given: the input's "storage" (Node::storage) if it names one; else
                 ///< parameters, buffers, static and mutated inputs keep "<graph>.<input>",
                 ///< other user inputs get a new one
        New, ///< a fresh storage for this call (the caller drops it after the call)
        Named, ///< the storage called `name`; created on first use, same address afterwards
        OutputOf, ///< output `index` returned by call `call` (0-based, after repeats are expanded)
    };
    Kind kind = Kind::Default;
    std::string name;
    int call = -1;
    int index = 0;
};

struct CoreLimit {
    int cube = 0;
    int vector = 0;
};

struct Call {
    std::string graph; ///< Graph::id
    /// cuda_graph_trees only: torch.compiler.cudagraph_mark_step_begin() right before this call.
    bool markStepBegin = false;
    /// cuda_graph_trees only: after this call the program reads the outputs of these calls (0-based,
    /// this one or earlier), e.g. prints them; the simulation says what each read gives.
    std::vector<int> reads;
    SymbolValues symbols;
    std::map<std::string, Binding> inputs; ///< placeholder name -> binding
    /// How long the caller keeps the returned outputs: 0 = dropped before the next call,
    /// N = alive through the next N calls, -1 = until the end of the run.
    int keepOutputs = 0;
    std::optional<CoreLimit> coreLimit; ///< set_stream_limit before this call (persists)
    std::string note;
    std::string sourcePath; ///< "$.calls[3]" (repeats share it)
};

/// `cache_compile`: the run goes through `torchair.inference.cache_compile` (or npugraph_ex's) on one
/// nn.Module method (torchair-behavior.md §5; T/inference/_cache_compiler.py). What is not given and
/// changes a path or a text is printed as unknown and listed in Simulation::assumptions.
struct CacheCompileSpec {
    std::string module = "Model"; ///< the module's class name (cls_name of get_cache_bin)
    std::string method = "forward"; ///< func.__name__
    std::optional<std::string> signature; ///< inspect.signature of the bound method: "(x, kv)"
    std::optional<std::string> moduleRepr; ///< str(module), hashed into the folder name
    bool dynamic = true; ///< cache_compile's `dynamic` (default True)
    std::optional<std::string> cacheDir; ///< `cache_dir`, else $TORCHAIR_CACHE_HOME, else <cwd>/.torchair_cache
    std::optional<std::string> cwd; ///< the process's working directory, for the default cache_dir
    int worldSize = 1; ///< torch.distributed world size (1: not initialised)
    std::optional<int> globalRank;
    std::optional<int> tpRank;
    std::optional<int> ppRank;
    std::vector<std::string> graphs; ///< the graphs Dynamo makes of this method (empty: every graph)
    /// The file already on disk when the run starts (absent: none, so the run compiles and saves).
    struct Existing {
        std::string version; ///< meta.version ("" = the loader's own VERSION)
        bool owned = true; ///< owned by the user running (uid check of _validate_owner_and_permissions)
        int mode = 0600; ///< st_mode & 0o777
        std::string unpickleError; ///< the strict unpickler's exception text when the file is corrupt
        std::string graph; ///< scenario graph it was saved from ("" = the first call's graph)
        std::string date; ///< meta.date as saved ("" = unknown)
    };
    std::optional<Existing> existing;
};

/// Which runtime the scenario's calls go through: TorchAir's aclgraph (reduce-overhead, npugraph_ex;
/// `backend` says which front end) or Inductor's CUDA Graph Trees (torch.compile(mode=
/// "reduce-overhead") on CUDA, docs/cuda-graph-trees.md).
enum class Runtime { Aclgraph, CudaGraphTrees };

/// `log`: the scenario of a run a log tells (scenario/log_scenario.h), instead of `graphs` and `calls`:
/// the graphs are read from `graphs`, the calls and what the log tells of the config from `file`.
/// Paths as written are relative to the scenario file's folder; these are made absolute.
struct LogSource {
    std::string file; ///< the run's log
    std::string graphs; ///< the job's debug folder, generated module, cache file, FX graph or scenario
    std::string run; ///< which process of the log ("" = its only one; "rank 1", "1", "pid 4242")
};

struct Scenario {
    std::string path; ///< file it was read from, for messages
    int version = kFormatVersion;
    std::string name;
    std::string comment; ///< what the scenario demonstrates
    Runtime runtime = Runtime::Aclgraph; ///< `runtime` ("torchair" and "npugraph_ex" also set backend)
    std::optional<config::Backend> backend; ///< absent = config::guessBackend(config)
    /// cuda_graph_trees: `frames`, the Python function (code object) Dynamo compiled each graph from,
    /// by graph id; a graph not listed is compiled from "forward". Graphs of one frame share its
    /// recompile limit (torch._dynamo.config.recompile_limit).
    std::map<std::string, std::string> frames;
    std::vector<std::pair<std::string, PyValue>> config; ///< settings in file order, names as written
    DeviceSpec device;
    std::vector<Graph> graphs;
    std::vector<Call> calls; ///< with `repeat` expanded
    /// `operators`: custom op schemas and user-registered in-placeable ops (null when none given);
    /// the passes see them through PassEnvironment::userOps.
    std::shared_ptr<const UserOps> operators;
    std::optional<CacheCompileSpec> cacheCompile;
    /// Set when the file names a log (`log`): graphs and calls are empty until loadScenarioOrGraph
    /// (scenario/load.h) builds them from it.
    std::optional<LogSource> log;
    /// Warnings from reading FX files that graphs reference ("file:line:col: warning: ...").
    std::vector<std::string> diagnostics;

    const Graph* graph(const std::string& id) const;
};

/// Reads and validates a scenario file. Graph references in calls, placeholder names in bindings,
/// symbol names and OutputOf references are all checked here, so the simulator can trust them.
Result<Scenario> readScenarioFile(const std::string& path);
/// Same, from text; `path` only labels messages.
Result<Scenario> parseScenario(const std::string& text, const std::string& path);

} // namespace engine::scenario
