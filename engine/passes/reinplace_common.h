#pragma once
// What the two reinplace passes share (internal): TorchAir's per-node stream check
// (TA/utils.py ReinplaceStreamChecker, get_inplace_op_mutated_input_users) and torch's view test.
#include "engine/graph/graph.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace engine::passes::detail {

/// Stream labels as add_stream_label_to_node_meta left them when the pass started; nodes the pass
/// adds later have none, which makes a check that involves them fail, as in TorchAir.
class StreamChecker {
public:
    /// `fakeResults`: the nodes carry `meta["fake_result"]`, which TorchAir's intermediate reinplace pass
    /// sets on every node (`_FunctionalizationMetadataProp(gm).propagate`) and nothing else does. Without
    /// it get_inplace_op_mutated_input_users counts no outputs, so no getitem users are checked.
    StreamChecker(const Graph& g, bool fakeResults);
    /// _check_reinplace_streams: for each mutated argument index, its users (see collectUsers) plus
    /// the users of the getitem that extracts the matching output must share one label. Appends
    /// TorchAir's DEBUG lines to `log`; on failure `failure` gets the failed line.
    bool checkArgs(
        const Graph& g, int node, const std::vector<int>& indices, std::vector<std::string>& log, std::string* failure);
    /// check_auto_functionalize: the users of one mutated argument.
    bool checkArg(const Graph& g, int node, int arg, std::vector<std::string>& log, std::string* failure);

private:
    bool verify(const Graph& g, int node, const std::vector<int>& users, const std::string& check,
        std::vector<std::string>& log, std::string* failure) const;
    std::map<std::string, std::optional<std::string>> m_labels;
    bool m_fakeResults;
};

/// _collect_single_node_users: the input's users except copy_ nodes; when a copy_ user exists, also
/// the other users of the getitem it copies from, and the copy_'s own users.
std::vector<int> collectUsers(const Graph& g, int input);

/// torch.fx.passes.reinplace._is_view_op: an OpOverload whose first argument is an alias it does not write.
bool isViewOp(const Node& n);
/// META_ONLY_OPS of graph_pass.py: sym_size.int, sym_stride.int, sym_numel, sym_storage_offset.
bool isMetaOnlyOp(const Node& n);

} // namespace engine::passes::detail
