#pragma once
/// Writer of the Python module TorchAir generates for an FX graph after its passes
/// (`AclConcreteGraph.codegen()`, torchair-behavior.md §2.1 step 7 and §5.2): the text the compile
/// cache keeps as `py_code` and TORCH_COMPILE_DEBUG dumps as `output_code.py`. It follows
/// python/torchair/_acl_concrete_graph/fx2acl_converter.py (and npugraph_ex's copy of it) section by
/// section: imports, closure-var globals, tensor constants, `def forward(*args, node_info=[], ...)`,
/// `compile_configs[...]`, `AclGraph(...)`, `AclGraphCacheInfo(...)`, the stream / event helpers,
/// `kernel` with its first-call `assert_size_stride` lines, and `main()`.
///
/// readTorchairModule(writeTorchairModule(g, spec)) gives back the graph (nodes, targets, args,
/// input kinds, the inputs' metadata through main()) and the same compile_configs; intermediate
/// results carry no metadata (TorchAir prints none). What the writer cannot know is written in
/// TorchAir's form with a value marked as a placeholder, and listed in the comment at the top of the
/// file (`placeholders` in the result).
#include "engine/config/options.h"
#include "engine/core/py_value.h"
#include "engine/core/result.h"
#include "engine/graph/graph.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace engine::readers {

struct ModuleSpec {
    config::Backend backend = config::Backend::TorchAir;
    /// The options as the user wrote them (either spelling); compile_configs is TorchAir's
    /// normalize_config of them.
    std::vector<std::pair<std::string, PyValue>> settings;
    /// `fx_graph_name`: "graph_<N>", N being TorchAir's process-wide count of compiled FX graphs.
    /// Empty: the graph's id when it has that form, else "graph_1" marked as a placeholder.
    std::string fxGraphName;
    /// `mutated_user_inputs`, which TorchAir computes on the graph before its passes; unset: derived
    /// from the graph written (Graph::mutatedInputs()).
    std::optional<std::vector<std::string>> mutatedUserInputs;
};

struct WrittenModule {
    std::string text;
    /// What is written in TorchAir's form but with a value we do not know, one line each (also in the
    /// file's header comment).
    std::vector<std::string> placeholders;
};

/// The generated module of `graph` (finalized, after the passes). Fails on invalid settings (with
/// TorchAir's message) or a graph TorchAir would refuse.
Result<WrittenModule> writeTorchairModule(const Graph& graph, const ModuleSpec& spec);

} // namespace engine::readers
