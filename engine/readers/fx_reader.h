#pragma once
/// Readers of the FX graph texts PyTorch and TorchAir write (docs/fx-formats.md has the details):
/// the readable Python code (`print_readable()`, TORCH_COMPILE_DEBUG `fx_graph_readable.py`,
/// TorchAir's `NNN_aot_forward_graph*.txt`, TORCH_TRACE graph payloads) and the `print(gm.graph)`
/// dump. They never throw, crash or hang on bad input: what they cannot read becomes a Diagnostic
/// (the line is skipped) or, when the graph would be inconsistent, an Error naming file, line and
/// column.
#include "engine/core/result.h"
#include "engine/graph/graph.h"

#include <string>
#include <string_view>
#include <vector>

namespace engine::readers {

/// A recoverable problem found while reading (an unknown line skipped, an unknown dtype, ...).
/// `line` and `column` are 1-based; column counts bytes.
struct Diagnostic {
    enum class Severity { Warning, Error };
    Severity severity = Severity::Warning;
    std::string file;
    int line = 0;
    int column = 0;
    std::string message;

    /// "file:12:5: warning: message", as compilers print them.
    std::string toString() const;
};

/// What a reader found. Every graph is finalized.
struct FxReadResult {
    /// graphs[0] is the first top-level graph (the forward); the graphs of nested submodule classes
    /// follow in the order their `class` lines appear. Graph ids: a top-level graph is named after
    /// its class ("GraphModule", "<lambda>"; a second top-level class of the same name gets "_1",
    /// ...), a nested one by the dotted path of class names ("GraphModule.cond_true_0",
    /// "GraphModule.cond_true_0.cond_true_0"). The dump form names its graphs "graph", "graph_1", ...
    std::vector<Graph> graphs;
    std::vector<Diagnostic> diagnostics; ///< recoverable problems, in the order they were found
};

/// PyTorch's readable FX code: print_readable(), TORCH_COMPILE_DEBUG fx_graph_readable.py, TorchAir
/// NNN_aot_forward_graph*.txt, TORCH_TRACE graph payloads. `path` labels diagnostics and errors.
Result<FxReadResult> readFxCode(std::string_view text, const std::string& path);

/// The `print(gm.graph)` form:
/// `%name : [num_users=k] = call_function[target=...](args = (...), kwargs = {...})`.
/// This form prints no tensor metadata: every node's `outputs` is empty.
Result<FxReadResult> readFxGraphDump(std::string_view text, const std::string& path);

/// Sniffs which form `text` is in and reads it: TorchAir's generated module (output_code.py /
/// py_code, see torchair_module.h: its forward, inputs classified) when it looks like one, else the
/// dump or the readable code.
Result<FxReadResult> readFxText(std::string_view text, const std::string& path);

/// Reads the file (at most 256 MiB; an unreadable or larger file is an Io error naming the path)
/// and calls readFxText.
Result<FxReadResult> readFxFile(const std::string& path);

} // namespace engine::readers
