#pragma once
/// What TorchAir works out about an FX graph once, at compile time (torchair-behavior.md §2.1):
/// which placeholders are parameters, user inputs, mutated or aliased by outputs; which inputs
/// enter the graph key (unupdated_sym_input_index); which nodes are updatable at replay; and, for
/// the memory model, which storage every node's result lives in and after which node it dies.
#include "engine/core/result.h"
#include "engine/graph/graph.h"

#include <climits>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace engine::runtime {

struct GraphAnalysis {
    std::vector<int> placeholders; ///< node indices, in placeholder order (position = TorchAir input index)
    std::vector<int> parameterInputs; ///< positions of parameter/buffer/static inputs (parameter_user_inputs)
    std::vector<int> userInputs; ///< positions of tensor user inputs, in order (user_inputs_mapping)
    std::set<std::string> mutatedUserInputs; ///< names, derived as TorchAir derives them
    std::map<int, std::vector<int>> aliasInputs; ///< input position -> output positions aliasing it

    struct KeyEntry {
        int index = 0; ///< placeholder position
        bool isSym = false; ///< SymInt value (true) or the tensor's whole shape (false)
        bool operator<(const KeyEntry& o) const { return index != o.index ? index < o.index : isSym < o.isSym; }
        bool operator==(const KeyEntry& o) const { return index == o.index && isSym == o.isSym; }
    };
    std::vector<KeyEntry> keyEntries; ///< unupdated_sym_input_index, sorted
    int updatedNodeCount = 0; ///< updatable ops whose parameter lists carry a SymInt placeholder

    /// Storage plan. A storage is either an input (placeholder) or a result some node allocates;
    /// views, in-place ops and getitem reuse their source's storage.
    struct Storage {
        int node = -1; ///< node that creates it
        int output = 0; ///< which result of that node
        int inputPosition = -1; ///< >= 0 for placeholders
        int liveUntil = -1; ///< index of the last node that needs it; INT_MAX if the graph returns it
    };
    std::vector<Storage> storages;
    std::vector<std::vector<int>> nodeStorages; ///< per node, per tensor result: storage id
    std::vector<std::vector<int>> freeAfter; ///< per node: intermediate storages that die after it
    std::vector<int> outputs; ///< per graph output position: storage id, or -1 for a non-tensor
    std::vector<std::string> outputNames; ///< per graph output: the node name (or "None")
};

/// Analyses a finalized graph. Fails only on graphs TorchAir itself would refuse.
Result<GraphAnalysis> analyzeGraph(const Graph& graph);

} // namespace engine::runtime
