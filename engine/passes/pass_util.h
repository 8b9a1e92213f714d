#pragma once
// Shared machinery of the FX passes (internal): how TorchAir prints targets and node lists, the stream
// label of every node, which storage every node's result lives in (what FakeTensor storages tell
// TorchAir), graph edits that keep the graph finalized, size arithmetic on symbolic shapes, and the
// wrapper that fills the common report fields (debug_compare_fx_graphs).
#include "engine/config/options.h"
#include "engine/graph/graph.h"
#include "engine/passes/op_schemas.h"
#include "engine/passes/pass_report.h"

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace engine::passes::detail {

// ---- Targets and names as TorchAir's Python prints them ----

std::string targetOf(const Node& n); ///< canonicalTarget(n.target); "" for placeholders and output
bool isCallFunction(const Node& n);
/// A call of a `torch.ops.<ns>.<op>.<overload>` (an OpOverload), not operator.getitem, a Python
/// builtin, a method or a higher-order op.
bool isOpOverload(const Node& n);
bool isGetItem(const Node& n);
bool isCopyInPlace(const Node& n); ///< aten.copy_.default
bool isAutoFunctionalized(const Node& n, bool* v2 = nullptr);
/// str(node.target): "aten.add.Tensor", "<built-in function getitem>", "auto_functionalized".
std::string pyTarget(const Node& n);
/// str(torch.dtype): "torch.float16"; "None" for an unknown dtype.
inline std::string torchDType(DType d)
{
    return torchDTypeName(d);
}
/// Python's repr of a list of FX nodes: "[add, output]".
std::string nodeList(const Graph& g, const std::vector<int>& nodes);
/// The node an argument refers to, or -1 (constants, lists, stale references).
int refOf(const Graph& g, const Arg& a);

Arg strArg(const std::string& s);
Arg boolArg(bool b);

// ---- Schema argument binding ----

/// An op's arguments by schema name (positional first, then keywords), with schema defaults.
class BoundArgs {
public:
    BoundArgs(const Node& n, const OpSchema* schema);
    /// The argument as given, or its default, or nullopt when neither exists.
    std::optional<Arg> get(const std::string& name) const;

private:
    const Node& m_node;
    const OpSchema* m_schema;
};

// ---- Stream labels (add_stream_label_to_node_meta) ----

/// Label of the innermost enclosing `air.scope_enter(['_user_stream_label'], [label])` scope of every
/// node, nullopt outside; scope_enter carries the new label, scope_exit the one it closes.
std::vector<std::optional<std::string>> streamLabels(const Graph& g);
/// verify_nodes_on_same_stream: fewer than two nodes, or one label among them.
bool sameStream(const std::vector<std::optional<std::string>>& labels, const std::vector<int>& nodes);

// ---- Storages (what FakeTensor storages say about aliasing) ----

struct Storages {
    std::vector<std::vector<int>> of; ///< per node, per tensor result: storage id
    std::set<int> inputStorages; ///< storages of placeholders and get_attr nodes
    std::map<int, std::set<int>> nodes; ///< storage -> every node with a result in it (the output node included)
    /// get_node_storage: the storage of a node whose result is exactly one tensor, else -1.
    int single(int node) const;
};
/// Views, getitem, in-place ops (args[0]) and out= ops (the `out` argument) share their source's
/// storage; placeholders, get_attr and allocating ops start new ones. Nodes without metadata have none.
Storages analyzeStorages(const Graph& g);

// ---- Edits (each leaves the graph finalized) ----

/// A name FX would give a new node for `target` ("empty_memory_format", "slice_tensor_1", "copy__default").
std::string freshName(const Graph& g, const std::string& target);
Node callNode(const Graph& g, const std::string& target, std::vector<Arg> args,
    std::vector<std::pair<std::string, Arg>> kwargs = {}, std::vector<TensorMeta> outputs = {});
/// Inserts before node `before` and returns the new node's index.
Result<int> insertNode(Graph& g, int before, Node n);
/// Rewrites references to `from` into `to` in the nodes `which` accepts (by index); all if empty.
Result<void> replaceUses(
    Graph& g, const std::string& from, const std::string& to, const std::function<bool(int)>& which = {});
Result<void> eraseNodes(Graph& g, const std::set<std::string>& names);

// ---- Sizes ----

/// A size an argument stands for: an int, a SymInt placeholder's symbol, or sym_size(x, d).
std::optional<SymExpr> sizeArg(const Graph& g, const Arg& a);
/// `statically_known_true`, approximated by evaluating both sides at a few symbol assignments.
bool provablyEqual(const SymExpr& a, const SymExpr& b);
bool provablyAtLeast(const SymExpr& a, const SymExpr& b);
bool sameShape(const std::vector<SymExpr>& a, const std::vector<SymExpr>& b);
/// same_meta (inductor): size, stride, dtype and device equal.
bool sameMeta(const TensorMeta& a, const TensorMeta& b);
bool sameNumel(const TensorMeta& a, const TensorMeta& b);
/// torch._debug_has_internal_overlap == YES: a dimension of size > 1 with stride 0.
bool hasInternalOverlap(const TensorMeta& t);
/// Two views of one storage may touch a common element (compute_overlapping_tensors).
bool mayOverlap(const TensorMeta& a, const TensorMeta& b);
/// Effective strides and offset at concrete sizes, for comparing view metadata.
struct Layout {
    std::vector<int64_t> shape, stride;
    int64_t offset = 0;
    bool operator==(const Layout& o) const { return shape == o.shape && stride == o.stride && offset == o.offset; }
};
std::optional<Layout> layoutAt(const TensorMeta& t, const SymbolValues& syms);
/// The symbol assignments the "provably" helpers evaluate at.
std::vector<SymbolValues> sampleAssignments(const std::set<std::string>& symbols);

// ---- Software versions ----

/// torch_npu's CannVersionToNum (torch_npu/csrc/core/npu/GetCANNInfo.cpp), the number on which
/// `torch_npu.npu.utils._is_gte_cann_version` compares the installed CANN with a required one:
/// "a.b.RCd", "a.b.c", "a.b.Tg" and "a.b.RCd.alphaf" (its regexes, in that order, `.` matching any
/// character); `recognised` is false for any other text, which gives -100 (older than every version).
int64_t cannVersionNumber(const std::string& version, bool* recognised = nullptr);
/// _is_gte_cann_version(required): cannVersionNumber(current) >= cannVersionNumber(required).
bool cannAtLeast(const std::string& current, const std::string& required);

// ---- Running a pass ----

/// Runs `body` on `g` unless `enabled` is false, then fills the common fields: node counts,
/// removed/added names and the debug_compare_fx_graphs summary line (graph/graph_diff.h).
Result<PassReport> runPass(Graph& g, const std::string& name, const std::string& option, bool enabled,
    const std::function<Result<void>(Graph&, PassReport&)>& body);

} // namespace engine::passes::detail
