#pragma once
/// What the graph view draws: a graph's nodes grouped by where they come from (module path,
/// layer index, source location), repeated layers folded into one expandable group, and, for a
/// given set of expanded groups, the items and edges that are visible. Pure data: the GUI lays it
/// out with Graphviz (gui/graph/) and never walks the Graph itself to decide what to show.
///
/// Large graphs stay small on screen: an 80-layer decoder shows as its embedding, one folded
/// "layers 0-79 (x80)" group and its head until the user expands something.
#include "engine/graph/graph.h"

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace engine::view {

/// How a node is coloured (issue 6: parameter, static, mutated input, user input, intermediate,
/// output).
enum class NodeRole { Parameter, Static, MutatedInput, UserInput, SymInt, Intermediate, Output };
const char* nodeRoleName(
    NodeRole r); ///< "parameter", "static", "mutated_input", "user_input", "sym_int", "intermediate", "output"
/// Parameter and Buffer placeholders are Parameter; StaticAddress is Static; a user input the
/// graph mutates (Graph::mutatedInputs) is MutatedInput; the output node is Output.
NodeRole nodeRole(const Graph& graph, int node, const std::set<std::string>& mutatedInputs);

/// A group of nodes. Groups nest: a "layers" group holds one "layer" group per repetition.
struct NodeGroup {
    int id = 0; ///< index into Grouping::groups
    int parent = -1; ///< -1: top level
    /// "layers" (a run of repeated layers), "layer" (one of them), "module" (a module path or
    /// source function shared by consecutive nodes).
    std::string kind;
    std::string label; ///< "layers 0-79 (x80)", "layer 3", "self_attn"
    std::vector<int> children; ///< child groups, in node order
    std::vector<int> nodes; ///< nodes directly in this group (not in a child), in graph order
    int firstNode = 0, lastNode = 0; ///< range of node indices covered (inclusive)
    int repeat = 0; ///< "layers": how many layers
    int layerIndex = -1; ///< "layer": its index as the names or the order give it
};

struct Grouping {
    std::vector<NodeGroup> groups;
    std::vector<int> groupOf; ///< per node: innermost group, -1 when top level
    std::vector<int> roots; ///< top-level groups, in node order
    /// How the layers were found ("node names: layers_<n>", "repeated op sequence of 37 ops x 80",
    /// "none"), for the status bar and the tests. Names can give several stacks of layers (one
    /// "layers" group each): "node names: encoder_layers_<n>, decoder_layers_<n>".
    std::string method;
};

/// Groups the nodes of `graph` (finalized). Never fails: a graph with nothing to group has no groups.
Grouping groupNodes(const Graph& graph);

struct ViewItem {
    enum class Kind { Node, Group };
    Kind kind = Kind::Node;
    int index = 0; ///< node index or group id
    std::string label; ///< node: its name; group: the group's label
    /// node: its target ("aten.mm.default"); a placeholder: its input kind ("parameter"); the output
    /// node: "output"; group: "37 nodes"
    std::string detail;
    NodeRole role = NodeRole::Intermediate; ///< nodes only
    int members = 1; ///< nodes inside (1 for a node)
    bool rewritten = false; ///< a pass rewrote the node (or a node inside the group)
};

struct ViewEdge {
    int from = 0, to = 0; ///< indices into ViewGraph::items
    int count = 1; ///< node-level edges it stands for
};

struct ViewGraph {
    std::vector<ViewItem> items;
    std::vector<ViewEdge> edges; ///< no self-edges, no duplicates (parallel edges merged into count)
    std::vector<int> itemOfNode; ///< per node: the visible item that shows it
    /// A digest of items and edges: equal views have equal keys (the layout cache's key).
    std::string key;
};

/// The visible view of `graph` when exactly the groups in `expanded` are open (a group is visible
/// only when its parent is expanded or it is top level). `rewrittenNodes` marks nodes a pass
/// rewrote, by name.
ViewGraph buildView(const Graph& graph, const Grouping& grouping, const std::set<int>& expanded,
    const std::set<std::string>& rewrittenNodes = {});

} // namespace engine::view
