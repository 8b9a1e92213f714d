#pragma once
/// Reader of a TORCH_COMPILE_DEBUG=1 folder as TorchAir writes it (torchair-behavior.md §4.0,
/// docs/fx-formats.md "TORCH_COMPILE_DEBUG folders"):
///   torch_compile_debug/run_<time>-pid_<pid>[-rank_<r>]/torchair/      (npugraph_ex: npugraph_ex/)
///       debug.log
///       model__<id>/dynamo_out_graph.txt                               the graph before AOT autograd
///       model__<id>/forward/NNN_aot_forward_graph[_after_<pass>].txt   one file per pass that ran
///       model__<id>/forward/NNN_aot_forward_original_ge_graph.pbtxt    GE mode: protobuf text
///       model__<id>/forward/output_code.py                             reduce-overhead: the generated module
/// Every directory holding `NNN_*.txt` / `NNN_*.pbtxt` files becomes a group of stages, whatever
/// level of the tree the path names. A stage that cannot be read is kept with its error: one broken
/// dump never hides the others.
///
/// PyTorch 2.x's own layout (Inductor, torch/_inductor/debug.py DebugContext; docs/inductor.md) is
/// read beside it:
///   torch_compile_debug/run_<time>-pid_<pid>/torchdynamo/debug.log
///   torch_compile_debug/run_<time>-pid_<pid>/torchinductor/aot_model___<n>_debug.log
///   torch_compile_debug/run_<time>-pid_<pid>/torchinductor/model__<aot>_<graph>_<nth>.<c>/
///       fx_graph_readable.py      the graph Inductor received (AOT's)          stage 0
///       fx_graph_transformed.py   after Inductor's post-grad passes            stage 1
///       fx_graph_runnable.py      the repro: load_args gives the inputs' metadata
///       output_code.py            the generated module (inductor_code.h)
///       ir_pre_fusion.txt, ir_post_fusion.txt, ...   kept as texts
/// Every `model__...` folder holding one of the four `.py` files becomes a group.
#include "engine/core/result.h"
#include "engine/graph/graph.h"
#include "engine/readers/fx_reader.h"
#include "engine/readers/fx_runnable.h"
#include "engine/readers/inductor_code.h"
#include "engine/readers/torchair_module.h"

#include <optional>
#include <string>
#include <vector>

namespace engine::readers {

/// One dump file of a group.
struct DebugStage {
    enum class Kind {
        FxCode, ///< readable FX code (`NNN_*.txt`, `dynamo_out_graph.txt`): read with readFxFile
        GeGraph, ///< `NNN_*.pbtxt`: GE's graph as protobuf text, not read
    };
    Kind kind = Kind::FxCode;
    int number = -1; ///< NNN; -1 for dynamo_out_graph.txt
    std::string file; ///< file name: "005_aot_forward_graph_after_view_to_reshape.txt"
    std::string path; ///< the file's path (the group's directory joined with `file`)
    /// TorchAir's pass name: the text after `_after_` ("view_to_reshape", "optimize_noop_ops"), else the
    /// name without number and extension ("aot_forward_graph" for stage 000,
    /// "aot_forward_original_ge_graph"); "dynamo_out_graph" for the pre-AOT graph.
    std::string pass;
    /// Our pass (engine/passes) that TorchAir's corresponds to ("remove_noop_ops" for
    /// optimize_noop_ops), empty when none does.
    std::string ourPass;
    bool preAot = false; ///< dynamo_out_graph.txt: Dynamo's graph, node names differ from the AOT stages
    std::optional<Graph> graph; ///< the first graph of the file, when it was read
    std::optional<Error> error; ///< why it was not read (context "file:line:column" or the path)
    std::string note; ///< "not read: GE graph (protobuf text)"
    std::vector<Diagnostic> diagnostics; ///< the reader's warnings for this file

    bool readable() const { return graph.has_value(); }
};

/// A file shown as text, not read: its path and size; readDebugText reads it when asked.
struct DebugText {
    std::string name; ///< file name: "ir_post_fusion.txt", "debug.log"
    std::string path;
    uint64_t bytes = 0; ///< the size when the folder was read
};

/// Which tool wrote a group's folder.
enum class DebugLayout {
    TorchAir, ///< `torchair/model__<id>/forward/NNN_*.txt`
    Inductor, ///< PyTorch's `torchinductor/model__<aot>_<graph>_<nth>.<c>/`
};

/// The stages of one directory: normally `model__<id>/forward` or `model__<id>/backward` (TorchAir),
/// or `model__0_inference_0.0` (Inductor).
struct DebugGroup {
    DebugLayout layout = DebugLayout::TorchAir;
    std::string directory; ///< the directory's path
    /// TorchAir: "model__0", the parent directory's name (or the directory's own), empty if neither is
    /// one. Inductor: "model__<aot>" from the folder's name ("model__1" for model__1_inference_1.1).
    std::string model;
    /// TorchAir: "forward", "backward", or the directory's name; empty when it is the model folder
    /// itself. Inductor: the graph name in the folder's name: "inference", "forward", "backward".
    std::string phase;
    std::string backend = "unknown"; ///< "torchair" / "npugraph_ex" from the path, "inductor", else "unknown"
    std::optional<int> rank; ///< from `-rank_<r>` in the run folder's name
    std::string run; ///< the run folder's name ("run_2026_..._000000-pid_4242"), empty if the path has none
    /// dynamo_out_graph.txt first (forward groups, when the model folder has one), then by number.
    std::vector<DebugStage> stages;
    std::string outputCode; ///< path of `output_code.py`, empty when absent
    /// readTorchairModuleFile(outputCode, graph of the last readable `.txt` stage), when it succeeded
    /// and the file is TorchAir's module (told from Inductor's by content: looksLikeInductorOutputCode).
    std::optional<TorchairModule> module;
    /// readInductorOutputCodeFile(outputCode), when the file is Inductor's generated module.
    std::optional<inductor::OutputCode> inductorCode;

    // Inductor's folder name, `model__<aot>_<graph>_<nth>.<c>` (torch/_functorch/aot_autograd
    // get_aot_graph_name + DebugContext.create_debug_dir): -1 when not an Inductor group.
    int aotId = -1; ///< AOT autograd's aot_id (also in output_code.py's `# AOT ID: ['<aot>_<graph>']`)
    int nthGraph = -1; ///< AOT's process-wide count of graphs compiled so far
    int debugCounter = -1; ///< DebugContext's process-wide counter after the '.' (not a compile id)
    std::string runnablePath; ///< `fx_graph_runnable.py`, empty when absent
    /// readFxRunnableFile(runnablePath), when it succeeded: the inputs' metadata that the stages lack
    /// (fx_graph_readable.py prints no devices or strides) is taken from it.
    std::optional<FxRunnable> runnable;
    std::vector<DebugText> texts; ///< the folder's other regular files (ir_pre_fusion.txt, ...), by name
    std::vector<Diagnostic> diagnostics; ///< group-level problems (output_code.py not read, ...)

    /// "model__0/forward"; the model or phase alone when the other is empty.
    std::string label() const;
    /// The last readable stage that is not pre-AOT before index `i` of `stages`; -1 when none.
    int previousReadable(size_t i) const;
};

struct DebugDir {
    std::string path; ///< as given
    std::vector<DebugGroup> groups; ///< sorted by directory path, both layouts together
    /// `torchdynamo/debug.log` and `torchinductor/aot_*_debug.log` files found, by path.
    std::vector<DebugText> logs;
    std::vector<Diagnostic> diagnostics; ///< walk problems: unreadable directories, limits reached
};

/// Limits that keep a hostile or huge tree harmless.
constexpr int kDebugDirMaxDepth = 8; ///< directory levels below `path`
constexpr size_t kDebugDirMaxEntries = 100000; ///< directory entries looked at in total
constexpr size_t kDebugDirMaxStages = 4096; ///< stage files read in total

/// Reads the run folder, its `torchair` / `npugraph_ex` / `torchinductor` folder, a `model__<id>`
/// folder, a `forward` / `backward` folder or one Inductor `model__<aot>_<graph>_<nth>.<c>` folder.
/// Symbolic links to directories are not followed; only regular files (or links to them) are read.
/// Errors: `path` missing, not a directory, or neither layout's files anywhere below it (NotFound,
/// saying what was looked for in both). Everything else is per group or per stage.
Result<DebugDir> readDebugDir(const std::string& path);

/// At most this many bytes of a DebugText are read by default.
constexpr uint64_t kDebugTextMaxBytes = 16ull << 20;

/// What readDebugText read.
struct DebugTextContent {
    std::string text;
    bool truncated = false; ///< the file is longer than what was read
};

/// Reads up to `maxBytes` of the text's file (a regular file only: a FIFO or device is an error, not
/// a wait). Errors: Io naming the path.
Result<DebugTextContent> readDebugText(const DebugText& text, uint64_t maxBytes = kDebugTextMaxBytes);

/// Is `name` an Inductor debug folder name, `model__<aot>_<graph>_<nth>.<c>`? Fills the parts when
/// the pointers are given.
bool parseInductorFolderName(const std::string& name, int* aotId = nullptr, std::string* graph = nullptr,
    int* nth = nullptr, int* counter = nullptr);

/// Is `fileName` a stage dump: three digits, `_`, anything, `.txt` or `.pbtxt`?
bool isStageFileName(const std::string& fileName);
/// The pass name of a stage file name (see DebugStage::pass).
std::string stagePassName(const std::string& fileName);

} // namespace engine::readers
