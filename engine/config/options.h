#pragma once
/// TorchAir's reduce-overhead options, under both spellings users write them: torchair's dotted
/// CompilerConfig paths (`debug.aclgraph.clone_input`) and npugraph_ex's flat names (`clone_input`).
/// Parsing validates values exactly as TorchAir's OptionValue classes do and fails with TorchAir's
/// own messages (reference torchair-behavior.md §1.1-1.3), then normalises to `Options`, the
/// runtime semantics the simulator uses.
#include "engine/core/py_value.h"
#include "engine/core/result.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace engine::config {

/// Which front end compiled the model. It decides option spellings, defaults, log wording
/// (`static_capture_size_limit` vs `capture_limit`) and a few behaviours (`force_recapture` exists
/// only in npugraph_ex).
enum class Backend { TorchAir, NpugraphEx };
const char* backendName(Backend b); ///< "torchair" / "npugraph_ex"

/// One option of the table in reference §1.2.
struct OptionSpec {
    std::string torchairName; ///< dotted path, empty if torchair has none
    std::string npugraphExName; ///< flat name, empty if npugraph_ex has none
    std::string type; ///< "bool", "int", "pool", "choice", "str", "dict", "intlist", "path", "callable"
    PyValue torchairDefault;
    PyValue npugraphExDefault;
    /// The values a "choice" option accepts in each spelling (TorchAir's optional list); empty for
    /// other types and for a spelling the backend lacks.
    std::vector<PyValue> torchairChoices;
    std::vector<PyValue> npugraphExChoices;
    bool inverted = false; ///< the npugraph_ex name means the opposite (reuse_graph_pool_in_same_fx)
    bool inCacheKey = false; ///< part of the compile-cache md5 (§5.1)
    bool acceptedByTorchairOptions = true; ///< npugraph_ex name accepted by torchair's options= mapper
    std::string effect; ///< one line for tooltips and docs
};
const std::vector<OptionSpec>& optionTable();

/// Effective configuration, after defaults, inversion and TorchAir's own interactions
/// (a custom pool forces no same-FX reuse).
struct Options {
    Backend backend = Backend::TorchAir;
    std::string mode = "reduce-overhead";
    bool frozenParameter = false;
    std::optional<std::pair<uint64_t, uint64_t>> customPool; ///< use_custom_pool / use_graph_pool
    bool reuseInSameFx = true; ///< !disable_mempool_reuse_in_same_fx / reuse_graph_pool_in_same_fx
    bool cloneInput = true;
    bool cloneOutput = false; ///< enable_output_clone / clone_output
    int64_t captureLimit = 64; ///< static_capture_size_limit / capture_limit
    bool forceEager = false; ///< debug.run_eagerly / force_eager
    bool forceRecapture = false; ///< npugraph_ex only
    bool removeNoopOps = true;
    bool patternFusionPass = true;
    bool removeCatOps = true;
    bool reinplaceInplaceableOps = true; ///< !disable_reinplace_inplaceable_ops_pass / inplace_pass
    bool reinplaceInputMutatedOps = true; ///< !disable_reinplace_input_mutated_ops_pass / input_inplace_pass
    bool deadlockCheck = false;
    std::string captureErrorMode = "global";
    /// experimental_config.aclgraph._aclnn_static_shape_kernel / static_kernel_compile, and the filter
    /// force_eager applies to it: the symbol-value tuple's entry `staticKernelSymIndex` must be in
    /// `staticKernelSymRange` when one is given (torchair-behavior.md §1.4).
    bool staticKernel = false;
    std::optional<std::vector<int64_t>> staticKernelSymRange;
    int64_t staticKernelSymIndex = 0;
    /// debug.graph_dump.type / .path (torchair only; "" when not set): with "py" every FX graph's compile
    /// writes its dynamo_original_graph_<N> and dynamo_optimized_graph_<N> files.
    std::string graphDumpType;
    std::string graphDumpPath;

    /// Each setting as the user wrote it, in order: (name as written, value repr), for reports.
    std::vector<std::pair<std::string, std::string>> written;
    /// Compile-time warnings TorchAir prints for this configuration (frozen_parameter, run_eagerly,
    /// reduce-overhead deprecation, ...), in the order TorchAir prints them. Each is "<Category>: <exact text>",
    /// Category being the Python warning class (UserWarning, DeprecationWarning) or WARNING for a logger warning.
    std::vector<std::string> warnings;
    /// Notes where a written value behaves surprisingly (npugraph_ex's integer 0 for a bool option).
    std::vector<std::string> notes;

    /// Name of an option in this backend's spelling, e.g. optionName("clone_output") gives
    /// "debug.aclgraph.enable_output_clone" for torchair. Takes the npugraph_ex name.
    std::string optionName(const std::string& npugraphExName) const;
};

/// Parses settings in order. A name may be given in either spelling; for Backend::TorchAir an
/// npugraph_ex name goes through torchair's `options=` mapper (§1.2 last paragraph), for
/// Backend::NpugraphEx a torchair dotted name is rejected as npugraph_ex rejects it. The first
/// invalid setting fails with TorchAir's exact message (ValueError/TypeError text).
Result<Options> parseOptions(Backend backend, const std::vector<std::pair<std::string, PyValue>>& settings);

/// Picks the backend a scenario means when it does not say: `mode` == "npugraph_ex" given with
/// npugraph_ex-only names, or any npugraph_ex-only option (`force_recapture`, `capture_error_mode`,
/// `deadlock_check`), means NpugraphEx; everything else TorchAir.
Backend guessBackend(const std::vector<std::pair<std::string, PyValue>>& settings);

} // namespace engine::config
