#pragma once
/// The options of the CUDA Graph Trees runtime (torch.compile(mode="reduce-overhead") on CUDA), as
/// PyTorch 2.11 spells them: torch.compile's own arguments (`mode`, `dynamic`, `fullgraph`), Inductor's
/// config (`torch._inductor.config.triton.cudagraph_*`, also written the short way torch.compile's
/// `options=` dict takes them, `triton.cudagraph_*`) and Dynamo's (`torch._dynamo.config.*`). Parsing
/// checks names and values as PyTorch does and fails with PyTorch's own texts where PyTorch checks
/// (docs/cuda-graph-trees.md §10 lists every option, its default and its source line).
#include "engine/core/py_value.h"
#include "engine/core/result.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace engine::config {

/// One option PyTorch takes for this runtime.
struct CudaOptionSpec {
    std::string name; ///< canonical: "mode", "dynamic", "torch._inductor.config.triton.cudagraph_trees", ...
    /// Other spellings accepted for the same option ("triton.cudagraph_trees" as torch.compile's
    /// options= takes it; "torch._dynamo.config.cache_size_limit" for recompile_limit).
    std::vector<std::string> aliases;
    std::string type; ///< "bool", "int", "optional_int", "optional_bool", "choice", "int_tuples", "str"
    PyValue defaultValue; ///< PyTorch 2.11's default
    std::vector<PyValue> choices; ///< for "choice"
    std::string effect; ///< one line for tooltips and docs
    std::string source; ///< where PyTorch defines it ("torch/_inductor/config.py", ...)
    bool modelled = true; ///< false: accepted and shown, but it changes nothing the simulator models
};
const std::vector<CudaOptionSpec>& cudaOptionTable();
/// The spec for a name in any accepted spelling; null when PyTorch has no such option here.
const CudaOptionSpec* findCudaOption(const std::string& name);

/// Effective configuration of the CUDA Graph Trees runtime after defaults and PyTorch's own
/// interactions (mode "reduce-overhead" or "max-autotune" turns triton.cudagraphs on).
struct CudaOptions {
    std::string mode = "reduce-overhead"; ///< torch.compile(mode=)
    std::optional<bool> dynamic; ///< torch.compile(dynamic=): None (automatic), True, False
    bool fullgraph = false; ///< torch.compile(fullgraph=)
    bool cudagraphs = true; ///< triton.cudagraphs after the mode's setting and any explicit one
    bool cudagraphTrees = true; ///< triton.cudagraph_trees
    bool skipDynamicGraphs = false; ///< triton.cudagraph_skip_dynamic_graphs
    std::optional<std::vector<std::vector<int64_t>>> captureSizes; ///< triton.cudagraph_capture_sizes
    std::optional<int64_t> dynamicShapeWarnLimit = 8; ///< triton.cudagraph_dynamic_shape_warn_limit
    int64_t unexpectedRerecordLimit = 128; ///< triton.cudagraph_unexpected_rerecord_limit
    bool supportInputMutation = true; ///< triton.cudagraph_support_input_mutation
    bool forceCudagraphsWarmup = false; ///< triton.force_cudagraphs_warmup
    bool skipCudagraphWarmup = false; ///< triton.skip_cudagraph_warmup
    bool cudagraphOrError = false; ///< triton.cudagraph_or_error
    /// graph_partition (True in 2.11): cudagraph-unsafe ops (CPU ops, device copies, .item()) are split
    /// into partitions of their own instead of skipping cudagraphs for the whole graph (§7).
    bool graphPartition = true;
    bool inlineInbuiltNnModules = true; ///< torch._dynamo.config.inline_inbuilt_nn_modules
    int64_t recompileLimit = 8; ///< torch._dynamo.config.recompile_limit (alias cache_size_limit)
    int64_t accumulatedRecompileLimit = 256; ///< torch._dynamo.config.accumulated_recompile_limit
    bool failOnRecompileLimitHit = false; ///< torch._dynamo.config.fail_on_recompile_limit_hit
    bool automaticDynamicShapes = true; ///< torch._dynamo.config.automatic_dynamic_shapes
    /// TORCH_LOGS: "+cudagraphs" puts the cudagraphs logger at DEBUG (re-record reasons logged).
    std::string torchLogs;
    bool debugCudagraphsLogging() const; ///< torchLogs names +cudagraphs

    /// Each setting as the user wrote it, in order: (name as written, value repr), for reports.
    std::vector<std::pair<std::string, std::string>> written;
    /// Warnings PyTorch prints for this configuration, "<Category>: <exact text>", in PyTorch's order.
    std::vector<std::string> warnings;
    /// Where a written option is accepted but not modelled, or behaves surprisingly.
    std::vector<std::string> notes;
};

/// Parses settings in order (names in any accepted spelling). The first invalid one fails with
/// PyTorch's own exception text ("RuntimeError: Unrecognized mode=...", "AttributeError:
/// torch._inductor.config.triton.nope does not exist", ...) prefixed by the setting's name where
/// PyTorch's text does not name it; where PyTorch would not check (a config value of the wrong type),
/// fails with this product's text saying what PyTorch would do with it.
Result<CudaOptions> parseCudaOptions(const std::vector<std::pair<std::string, PyValue>>& settings);

} // namespace engine::config
