#pragma once
/// Reader of `fx_graph_runnable.py`, the repro script Inductor writes beside its other
/// TORCH_COMPILE_DEBUG dumps (torch/_dynamo/repro/after_aot.py save_graph_repro /
/// generate_compiler_repro_string; the input lines come from torch/_dynamo/debug_utils.py
/// InputWriter). It holds the config lines that were in force, a `class Repro(torch.nn.Module)`
/// whose `forward` has no annotations, and `load_args(reader)`, which describes every input:
///   buf0 = reader.storage(None, 1048576, device=device(type='cuda', index=0))
///   reader.tensor(buf0, (1024, 256), is_leaf=True)  # arg0_1
///   reader.symint(4)  # s0
/// The text is read statically, never executed. docs/inductor.md has the details.
#include "engine/core/result.h"
#include "engine/graph/graph.h"
#include "engine/readers/fx_reader.h"

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace engine::readers {

/// One input as load_args describes it, in load_args order (the forward's parameter order).
struct RunnableInput {
    std::string name; ///< the comment after the call: "arg0_1", "s0"
    int line = 0;
    bool symInt = false; ///< `reader.symint(v)`: `value` holds v
    int64_t value = 0;
    /// `reader.tensor`: sizes, strides (contiguous when not given), dtype (float32 when not given,
    /// as InputReader does), the storage's device (cpu when not given), storage_offset.
    TensorMeta meta;
    std::string storage; ///< "buf0"
    uint64_t storageBytes = 0; ///< the storage's nbytes
};

struct FxRunnable {
    std::string path;
    std::vector<RunnableInput> inputs;
    /// `torch._inductor.config.triton.cudagraphs = True` as ("torch._inductor.config.triton.cudagraphs",
    /// "True"), every `torch.<...>.config.<...> = ...` line, in file order.
    std::vector<std::pair<std::string, std::string>> config;
    std::string torchVersion; ///< `# torch version: 2.11.0+cu130`, empty when absent
    std::vector<std::string> forwardParameters; ///< Repro.forward's parameters without `self`
    /// The Repro class with load_args' annotations put into forward's signature (what was read).
    std::string annotatedCode;
    /// readFxCode(annotatedCode): placeholders carry load_args' metadata; the other nodes have none
    /// (the forward's body is not annotated). Unset when it could not be read (see diagnostics).
    std::optional<Graph> graph;
    std::vector<Diagnostic> diagnostics;

    /// The input named `name`, or nullptr.
    const RunnableInput* input(const std::string& name) const;
};

/// Does `head` look like fx_graph_runnable.py (a `class Repro(` and `def load_args(reader)`, or
/// the `torch._dynamo.repro.after_aot` import)?
bool looksLikeFxRunnable(std::string_view head);

/// Reads the text. Errors: no `def load_args(reader)` and no `class Repro` (not this format). A
/// load_args line that is not understood, or a forward that cannot be read, is a diagnostic.
Result<FxRunnable> readFxRunnable(std::string_view text, const std::string& path);

/// Reads the file (regular files only, at most 64 MiB) and calls readFxRunnable.
Result<FxRunnable> readFxRunnableFile(const std::string& path);

} // namespace engine::readers
