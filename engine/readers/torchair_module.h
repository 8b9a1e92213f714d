#pragma once
/// Reader of TorchAir's generated module (torchair-behavior.md §2.1 step 7): the Python file
/// `AclConcreteGraph.codegen()` writes, which TORCH_COMPILE_DEBUG dumps as `forward/output_code.py`
/// and the compile cache keeps as `CompiledFX.py_code`. Read statically, never executed:
///   - `def forward(*args, node_info=[], is_capturing: bool = False)`: the graph after TorchAir's
///     passes, with the replay-update blocks (`if is_capturing:`), event record/wait helpers, user
///     stream scopes and tensor constants TorchAir splices in;
///   - `compile_configs[...] = "..."`: the normalised options;
///   - `AclGraphCacheInfo(...)`: pool, fx_graph_name, user_inputs_mapping, parameter_user_inputs,
///     mutated_user_inputs, unupdated_sym_input_index, userinput_ref_with_output, ...;
///   - `def main()`: `rand_strided(shape, stride, device=..., dtype=...)` per tensor placeholder and
///     the example values of SymInt placeholders (`kernel`'s `assert_size_stride` when main is absent).
/// The result is a graph with classified placeholders and a configuration the simulator accepts.
/// The forward itself carries no tensor annotations: intermediate results get their metadata from
/// an annotated graph of the same nodes when one is given (the last pass dump of a debug folder,
/// the `signature` of a cache file), and are otherwise left without (they take no memory in the
/// simulator; a diagnostic says how many).
#include "engine/config/options.h"
#include "engine/core/py_value.h"
#include "engine/core/result.h"
#include "engine/graph/graph.h"
#include "engine/readers/fx_reader.h"

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace engine::readers {

/// The `AclGraphCacheInfo(...)` literal, field by field (absent fields keep their defaults and are
/// not listed in `fields`).
struct AclGraphCacheInfo {
    std::vector<std::string> fields; ///< keyword names in the order written
    std::optional<std::pair<uint64_t, uint64_t>> pool; ///< a custom pool tuple; none: pool=None
    std::string stream; ///< source text ("torch.npu.Stream()", "None")
    std::string captureErrorMode = "global";
    int64_t numWarmupIters = 0;
    std::string fxGraphName; ///< "graph_1"
    std::vector<std::pair<std::string, int>> userInputsMapping; ///< placeholder name -> input index
    /// (placeholder index, is_sym) pairs, sorted: the inputs the graph key is made of (reference §2.2).
    std::vector<std::pair<int, bool>> unupdatedSymInputIndex;
    std::string updatedOpsParam; ///< source text of the dict
    std::string opsUpdateRulers; ///< source text of the dict
    std::vector<std::string> mutatedUserInputs;
    std::vector<std::string> taggedEventNames;
    std::vector<int> parameterUserInputs;
    std::vector<std::string> userStreamLabel;
    std::map<int, std::vector<int>> userinputRefWithOutput; ///< input index -> output indices
};

struct TorchairModule {
    /// The forward as a graph: placeholders classified from parameter_user_inputs /
    /// user_inputs_mapping / SymInt example values, metadata from main(), `id` = fx_graph_name
    /// (or "forward" when the literal has none), `recordedMutatedInputs` = mutated_user_inputs.
    Graph graph;
    config::Backend backend = config::Backend::TorchAir; ///< from the imports and option names
    /// `compile_configs` as written: (key, value text) in order.
    std::vector<std::pair<std::string, std::string>> compileConfigs;
    /// The same as settings the options parser and scenarios take (names in the backend's
    /// spelling, typed values), plus the custom pool from the cache info.
    std::vector<std::pair<std::string, PyValue>> settings;
    AclGraphCacheInfo cacheInfo;
    bool hasCacheInfo = false;
    std::vector<std::string> tensorConstants; ///< `tensor_constants['<name>']` the forward reads
    bool hasSerializedGraph = false; ///< `serialized_gm = b'...'` present
    /// Nodes with updated parameters at replay (the `if is_capturing:` blocks), by node name.
    std::vector<std::string> updatedNodes;
    /// Intermediate results without tensor metadata (no annotated graph gave it).
    int nodesWithoutMeta = 0;
    std::vector<Diagnostic> diagnostics;
};

/// Does `text` look like TorchAir's generated module (a `def forward(*args` together with
/// `AclGraph(` or `compile_configs`)? Cheap; used to sniff files.
bool looksLikeTorchairModule(std::string_view text);

/// Reads the generated module. `annotated`, if given, is a readable-code graph of the same FX graph
/// (same node names) whose annotations fill in the metadata of the forward's nodes. Errors name
/// `path`, line and column; what can be skipped is a diagnostic.
Result<TorchairModule> readTorchairModule(
    std::string_view text, const std::string& path, const Graph* annotated = nullptr);

/// Reads the file (at most 256 MiB) and calls readTorchairModule.
Result<TorchairModule> readTorchairModuleFile(const std::string& path, const Graph* annotated = nullptr);

} // namespace engine::readers
