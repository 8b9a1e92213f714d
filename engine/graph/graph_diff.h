#pragma once
/// What differs between two versions of an FX graph: the nodes one has and the other lacks, the
/// nodes both have but with different contents, and how often each target occurs. Nodes are matched
/// by name, as TorchAir's `debug_compare_fx_graphs` matches them (a pass that rewrites a node in
/// place keeps its name; one that replaces it gives the new node a fresh name). Used for the
/// TORCH_COMPILE_DEBUG stage dumps (readers/debug_dir.h) and for the summary every one of our passes
/// logs (passes/pass_report.h).
#include "engine/graph/graph.h"

#include <string>
#include <vector>

namespace engine {

/// One aspect of a node that differs, as short texts of each side.
struct FieldChange {
    /// "op" (placeholder / call_function / ...), "target", "args", "kwargs", "meta" (the tensor
    /// annotation, or `Sym(...)`), "input kind".
    std::string field;
    std::string before, after; ///< Python-like texts: "aten.add.Tensor", "(x, y)", "{'dim': 1}", "f32[4, 8][8, 1]npu:0"
    /// "target aten.add.Tensor -> aten.add_.Tensor", "args (x, y) -> (x, z)".
    std::string text() const;
};

/// A node present in both graphs whose contents differ.
struct NodeChange {
    std::string node;
    std::vector<FieldChange> changes; ///< in the order op, target, args, kwargs, meta, input kind
    /// "add: target aten.add.Tensor -> aten.add_.Tensor; args (x, y) -> (x, z)".
    std::string text() const;
};

/// How often a name occurs before and after (a target, or a node kind for the operations table).
struct OpCount {
    std::string name;
    int before = 0, after = 0;
    int diff() const { return after - before; }
};

struct GraphDiff {
    int nodesBefore = 0, nodesAfter = 0; ///< all nodes, placeholders and output included
    std::vector<std::string> removed; ///< names only in the first graph, in its order
    std::vector<std::string> added; ///< names only in the second graph, in its order
    std::vector<NodeChange> changed; ///< names in both with different contents, in the second graph's order
    /// Per target as the IR spells it ("aten.add.Tensor"), only the targets whose count changed, sorted
    /// by name. Placeholders and the output node have no target and are not counted.
    std::vector<OpCount> targetChanges;
    /// TorchAir's "operations statistics" table: every node kind ("call_function", "placeholder", ...),
    /// sorted by name.
    std::vector<OpCount> operations;
    /// TorchAir's "targets statistics" table: every target as `_pretty_print_target` prints it (the
    /// placeholder's own name, "output", "torch.ops.aten.add.Tensor", "operator.getitem"), sorted.
    std::vector<OpCount> targets;

    bool identical() const { return removed.empty() && added.empty() && changed.empty(); }
};

/// An argument as the diff and the passes' messages print it: Python's repr of constants (`1.0`,
/// `'s'`), node references by name, lists in brackets (the IR does not tell tuples from lists).
std::string argText(const Arg& a);

/// Compares `a` (before) with `b` (after). Neither graph needs to be finalized: references are
/// compared by name. What is compared per node: op, target (`torch.ops.` prefix and a missing
/// `.default` overload ignored), args, kwargs (in order), tensor metadata (dtype, sizes, strides,
/// device, storage offset; strides only when both sides print them, since `print_readable()` without
/// strides means "not printed", not "contiguous"), SymInt symbol, and the input kind of placeholders.
/// Not compared: provenance comments, `= None` tails, users, storages, workspaces.
GraphDiff diffGraphs(const Graph& a, const Graph& b);

/// TorchAir's debug_compare_fx_graphs summary (torchair-behavior.md §4.0) for `diff`:
///   After fx graph pass(<passName>) optimization:
///       before <a> nodes, after <b> nodes,
///       removed nodes: ['x', 'y'],
///       added nodes: [],
///       operations statistics:
///        <table>
///
///       targets statistics:
///        <table>
/// The `cost <t>s,` line is left out, as TorchAir leaves it out when the time is 0: a stage dump
/// records no time and our passes are not timed. Where Python iterates a set (table rows), rows are
/// sorted so that the text is reproducible; the node lists are in graph order.
std::string compareText(const std::string& passName, const GraphDiff& diff);

} // namespace engine
