#pragma once
/// The graph IR: one FX graph as PyTorch/AOT autograd hands it to TorchAir. Nodes are kept in
/// FX order (placeholders first, `output` last); references between nodes are indices into
/// `Graph::nodes`. A Graph is built by a reader, then `finalize()` resolves names and computes users.
#include "engine/core/result.h"
#include "engine/graph/sym_expr.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace engine {

enum class DType { F32, F16, BF16, F64, I64, I32, I16, I8, U8, Bool, C64, C128, F8E4M3, F8E5M2, Unknown };

/// Bytes per element (1 for bool, 0 for Unknown).
uint64_t dtypeSize(DType t);
/// Accepts the spellings users meet: "float32", "torch.float32", "f32", "fp32", "float16", "half",
/// "f16", "bfloat16", "bf16", "int64", "i64", "long", "int32", "int", "i32", "bool", "b8", "uint8", "u8", ...
DType parseDType(const std::string& text);
/// Canonical short name as PyTorch annotations print it: "f32", "f16", "bf16", "i64", "b8", ...
std::string dtypeShortName(DType t);
/// As torch prints the dtype: "torch.float32", "torch.bfloat16", ...; "None" for Unknown.
std::string torchDTypeName(DType t);

struct TensorMeta {
    std::vector<SymExpr> shape;
    std::vector<SymExpr> stride; ///< empty means contiguous
    DType dtype = DType::F32;
    std::string device = "npu:0";
    int64_t storageOffset = 0;

    bool isSymbolic() const; ///< some size is not a constant
    /// Bytes of the storage this tensor needs: itemsize * (storageOffset + 1 + sum((size-1)*stride)),
    /// 0 when any size is 0.
    Result<uint64_t> storageBytes(const SymbolValues& syms) const;
    Result<std::vector<int64_t>> concreteShape(const SymbolValues& syms) const;
    bool onDevice() const { return device.rfind("cpu", 0) != 0; }
};

/// What a placeholder is, as TorchAir's parse_input classifies it (reference §2.1 step 5).
/// Parameter, Buffer and StaticAddress all go to `parameter_user_inputs`.
enum class InputKind { Parameter, Buffer, StaticAddress, UserInput, SymInt };
const char* inputKindName(InputKind k);

/// An argument of a node: a constant, a reference to another node, or a list of arguments.
struct Arg {
    enum class Kind { None, NodeRef, Int, Float, Bool, Str, List };
    Kind kind = Kind::None;
    int64_t i = 0;
    double f = 0.0;
    bool b = false;
    std::string s; ///< Str value, or the referenced node's name for NodeRef
    int node = -1; ///< NodeRef: index into Graph::nodes, set by finalize()
    std::vector<Arg> items; ///< List

    static Arg ref(std::string name);
    static Arg integer(int64_t v);
    static Arg list(std::vector<Arg> v);
};

/// CallModule: `self.linear(x)` in FX code (call_module); target is the submodule path ("linear", "layers.0").
enum class NodeOp { Placeholder, CallFunction, CallMethod, GetAttr, Output, CallModule };
/// FX's spelling of the op: "placeholder", "call_function", "call_method", "get_attr", "output",
/// "call_module".
const char* nodeOpName(NodeOp op);

struct Node {
    std::string name;
    NodeOp op = NodeOp::CallFunction;
    /// "aten.mm.default", "aten.copy_.default", "npu.npu_fused_infer_attention_score.default",
    /// "operator.getitem"; for placeholders and output, empty.
    std::string target;
    std::vector<Arg> args;
    std::vector<std::pair<std::string, Arg>> kwargs;
    /// Tensor results: one for an ordinary op, several for a multi-output op (getitem picks one),
    /// none for a SymInt or non-tensor result. Placeholders of tensor kind have exactly one.
    std::vector<TensorMeta> outputs;
    InputKind inputKind = InputKind::UserInput; ///< placeholders only
    /// What told `inputKind`, in words ("Dynamo's name l_self_modules_..._parameters_...",
    /// "TORCH_TRACE static_input_indices", "--input-kind"); empty when nothing did and UserInput is
    /// only the default (see Graph::inputKindsUnknown()).
    std::string inputKindFrom;
    SymExpr symbol; ///< SymInt placeholders: the symbol they carry ("s0")
    SymExpr workspaceBytes; ///< aclnn workspace the op allocates and frees during capture (0 = none)
    std::string provenance; ///< "# File: ..." line or module path, when known
    /// Placeholders: the storage a call binds when it gives no binding of its own (the scenario's
    /// "storage": weights and caches shared by several FX graphs). Empty: see scenario::Binding.
    std::string storage;
    /// `node.meta` entries one pass leaves for a later pass of the same pipeline; no reader fills them
    /// and no writer prints them. "only_clone_these_tensors": set by reinplace_input_mutated_ops on
    /// auto_functionalized nodes (a list of base indices for v2, of argument names for v1), read by
    /// decompose_auto_functionalized (docs/passes.md).
    std::map<std::string, Arg> passMeta;
    std::vector<int> users; ///< computed by finalize(): nodes whose args mention this node
    /// Names the printed "= None" tail frees after this node (readers of FX code only).
    std::vector<std::string> freedAfter;
};

/// One FX graph.
struct Graph {
    std::string id; ///< how the scenario names it ("decode")
    std::string comment;
    bool dynamic = false; ///< compiled with dynamic=True (symbolic sizes allowed)
    std::vector<Node> nodes;
    /// TorchAir's own `mutated_user_inputs`, when a reader found them recorded (the generated
    /// module's AclGraphCacheInfo, computed on the graph before the passes): mutatedInputs() then
    /// returns these instead of deriving them from this graph.
    std::optional<std::vector<std::string>> recordedMutatedInputs;
    /// Set by a reader whose form prints no tensor metadata (print(gm.graph), unannotated code): why
    /// sizes are unknown and what would give them. Empty when the file had metadata.
    std::string metadataMissing;

    /// Tensor placeholders with no metadata (and, when `metadataMissing` is set, the whole graph has
    /// none): their sizes, and every figure that needs them, are unknown.
    std::vector<std::string> inputsWithoutMetadata() const;
    /// Tensor placeholders whose kind nothing told (inputKindFrom empty, kind UserInput): with an ATen
    /// graph's argN_1 inputs these include the weights, which are then staged on every replay.
    std::vector<std::string> inputKindsUnknown() const;

    /// Resolves NodeRef names to indices, computes users, and checks the shape of the graph:
    /// unique names, placeholders first, exactly one output node, references to earlier nodes only.
    Result<void> finalize();
    int find(const std::string& name) const; ///< -1 if absent
    std::vector<int> placeholders() const; ///< in placeholder order (TorchAir's input index)
    int outputNode() const;
    /// Placeholder names TorchAir treats as mutated (reference §2.1 step 3): those appearing as
    /// args[0] of a node whose op name ends with `_` (copy_, add_, index_put_, ...), or as a mutated
    /// argument of a known multi-inplace op. `recordedMutatedInputs` wins when set.
    std::vector<std::string> mutatedInputs() const;

private:
    /// finalize()'s index of node names: open addressing with linear probing over a power-of-two
    /// table; a slot holds a name's hash and its node (-1: empty). It is trusted only while it holds
    /// as many names as there are nodes and the node it gives still has the name asked for.
    struct IndexSlot {
        size_t hash = 0;
        int node = -1;
    };
    std::vector<IndexSlot> m_index;
    size_t m_indexed = 0; ///< names in m_index

    int indexed(const std::string& name, size_t hash) const; ///< -1 if m_index does not have it
    Result<void> resolve(int self, Arg& a, std::vector<int>& uses); ///< for finalize()
};

} // namespace engine
