#pragma once
/// What one of TorchAir's reduce-overhead FX passes did to a graph (torchair-behavior.md §4): which
/// nodes it rewrote, removed or added, which it looked at and left alone (and why, in TorchAir's own
/// DEBUG words where it has them), the DEBUG lines it prints, and the memory effect measured by
/// simulating one call of the graph before and after the pass.
#include <cstdint>
#include <string>
#include <vector>

namespace engine::passes {

/// A node whose target the pass changed in place (add -> add_), or replaced by a new node that does
/// the same work differently (mm -> mm.out writing into a slice of the cat buffer).
struct NodeRewrite {
    std::string node; ///< the node's name in the graph before the pass
    std::string before; ///< its target before ("aten.add.Tensor")
    std::string after; ///< its target after ("aten.add_.Tensor")
};

/// A node the pass considered and left as it was.
struct NodeSkip {
    std::string node;
    std::string reason; ///< TorchAir's own DEBUG text where it has one, else ours in the same spirit
};

/// One pass, as it ran (or did not) on one graph.
struct PassReport {
    /// TorchAir's pass name: "remove_noop_ops", "view_to_reshape", "eliminate_dead_code",
    /// "reinplace_inplaceable_ops_pass", "reinplace_input_mutated_ops", "remove_cat_ops".
    std::string name;
    /// The option that switches it, in the backend's spelling (Options::optionName), empty if always on.
    std::string option;
    bool enabled = true;
    std::vector<NodeRewrite> rewritten;
    std::vector<NodeSkip> skipped; ///< every node considered and not rewritten, with the reason
    std::vector<std::string> removed, added; ///< node names, in graph order
    /// TorchAir's DEBUG lines for this pass (exact texts, §4.1-4.4), ending with the
    /// debug_compare_fx_graphs summary "After fx graph pass(<name>) optimization: ...". Lines that are
    /// ours and not TorchAir's start with "aclgraph-inspector: ".
    std::vector<std::string> log;
    int nodesBefore = 0, nodesAfter = 0;
    /// Memory effect of one call of the graph (see docs/passes.md): the graph pool's peak allocated
    /// bytes, and the bytes the graph's ops write (an estimate). 0 when not measured (see log).
    uint64_t peakBytesBefore = 0, peakBytesAfter = 0;
    uint64_t trafficBytesBefore = 0, trafficBytesAfter = 0;
    /// False when the memory effect could not be measured (no tensor metadata, a symbol without a
    /// value, ...): the byte figures above are then 0 and mean nothing; `unmeasured` says why.
    bool measured = true;
    std::string unmeasured;
    /// Index into PipelineResult::stages of the graph after this pass; -1 when it did not run.
    int stage = -1;
};

/// The pass name debug_compare_fx_graphs prints and the debug dump file is named after
/// ("optimize_noop_ops" for remove_noop_ops; the others print their own name).
std::string torchairPassName(const std::string& name);
/// The file TORCH_COMPILE_DEBUG=1 writes after the pass, without its NNN_ prefix
/// ("aot_forward_graph_after_optimize_noop_ops.txt"), §4.0.
std::string debugFileName(const std::string& name);

} // namespace engine::passes
