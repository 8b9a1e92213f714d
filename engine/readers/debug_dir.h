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
#include "engine/core/result.h"
#include "engine/graph/graph.h"
#include "engine/readers/fx_reader.h"
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

/// The stages of one directory: normally `model__<id>/forward` or `model__<id>/backward`.
struct DebugGroup {
    std::string directory; ///< the directory's path
    std::string model; ///< "model__0": the parent directory's name (or the directory's own), empty if neither is one
    std::string phase; ///< "forward", "backward", or the directory's name; empty when it is the model folder itself
    std::string backend = "unknown"; ///< "torchair" / "npugraph_ex" from the path, else "unknown"
    std::optional<int> rank; ///< from `-rank_<r>` in the run folder's name
    std::string run; ///< the run folder's name ("run_2026_..._000000-pid_4242"), empty if the path has none
    /// dynamo_out_graph.txt first (forward groups, when the model folder has one), then by number.
    std::vector<DebugStage> stages;
    std::string outputCode; ///< path of `output_code.py`, empty when absent
    /// readTorchairModuleFile(outputCode, graph of the last readable `.txt` stage), when it succeeded.
    std::optional<TorchairModule> module;
    std::vector<Diagnostic> diagnostics; ///< group-level problems (output_code.py not read, ...)

    /// "model__0/forward"; the model or phase alone when the other is empty.
    std::string label() const;
    /// The last readable stage that is not pre-AOT before index `i` of `stages`; -1 when none.
    int previousReadable(size_t i) const;
};

struct DebugDir {
    std::string path; ///< as given
    std::vector<DebugGroup> groups; ///< sorted by directory path
    std::vector<Diagnostic> diagnostics; ///< walk problems: unreadable directories, limits reached
};

/// Limits that keep a hostile or huge tree harmless.
constexpr int kDebugDirMaxDepth = 8; ///< directory levels below `path`
constexpr size_t kDebugDirMaxEntries = 100000; ///< directory entries looked at in total
constexpr size_t kDebugDirMaxStages = 4096; ///< stage files read in total

/// Reads the run folder, its `torchair` / `npugraph_ex` folder, a `model__<id>` folder or a
/// `forward` / `backward` folder. Symbolic links to directories are not followed; only regular files
/// (or links to them) are read. Errors: `path` missing, not a directory, or no stage file anywhere
/// below it (NotFound, saying what was looked for). Everything else is per group or per stage.
Result<DebugDir> readDebugDir(const std::string& path);

/// Is `fileName` a stage dump: three digits, `_`, anything, `.txt` or `.pbtxt`?
bool isStageFileName(const std::string& fileName);
/// The pass name of a stage file name (see DebugStage::pass).
std::string stagePassName(const std::string& fileName);

} // namespace engine::readers
