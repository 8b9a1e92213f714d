#pragma once
/// Pieces the FX readers and the writer share (internal): diagnostics with positions, the tensor
/// annotation grammar, input kinds from names, target spelling, the getitem synthesis of
/// multi-output producers, and the conversion of constant expressions to arguments.
#include "engine/graph/graph.h"
#include "engine/readers/fx_python.h"
#include "engine/readers/fx_reader.h"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace engine::readers::detail {

constexpr size_t kMaxDiagnostics = 1000; ///< later ones are counted in one last warning

/// Collects diagnostics for one file and builds errors with the same "path:line:column" context.
class DiagnosticSink {
public:
    DiagnosticSink(std::string path, std::vector<Diagnostic>& out);
    void warn(Position at, const std::string& message);
    /// No more room: callers skip computing a position, and count the diagnostic with drop().
    bool full() const { return m_out.size() >= kMaxDiagnostics; }
    void drop() { ++m_dropped; }
    Error error(Position at, const std::string& message, ErrorCode code = ErrorCode::ParseError) const;
    const std::string& path() const { return m_path; }
    void finish(); ///< adds the "N more diagnostics" line, if any were dropped

private:
    std::string m_path;
    std::vector<Diagnostic>& m_out;
    size_t m_dropped = 0;
};

/// A parsed annotation string ("f32[4, 4][4, 1]cuda:0", "Sym(s0)", "DTensor(f32[8], ...)").
struct Annotation {
    enum class Kind {
        Tensor, ///< one tensor result
        Sym, ///< a SymInt ("Sym(s0)")
        Tuple, ///< "(ann, ann, ...)": this project's writer for producers getitem cannot describe
    };
    Kind kind = Kind::Tensor;
    std::vector<TensorMeta> tensors;
    SymExpr symbol;
    bool symbolic = false; ///< a size, stride or symbol is not a constant
};

/// Parses an annotation. Unknown dtypes give DType::Unknown and a message in `warnings`; a
/// malformed annotation is an error whose message says what was expected.
Result<Annotation> parseAnnotation(std::string_view text, std::vector<std::string>& warnings);
/// Is `name` a dtype abbreviation of PyTorch's annotations ("f32", "bf16", "u16", ...)?
bool isDTypeAbbreviation(std::string_view name);
/// Annotation text of a tensor as FX prints it with stride and device ("f32[4, 4][4, 1]npu:0").
std::string annotationText(const TensorMeta& t);
/// Strides of a contiguous tensor of this shape ("[s0, 8, 4]" -> "[32, 4, 1]"... symbolic ones too).
std::vector<SymExpr> contiguousStrides(const std::vector<SymExpr>& shape);
/// Same shape, dtype, device and offset, and the same strides once empty strides are read as contiguous.
bool equivalentMeta(const TensorMeta& a, const TensorMeta& b);

/// Placeholder kind from a Dynamo name (`L_self_modules_linear_parameters_weight_` is a Parameter,
/// `..._buffers_...` a Buffer); UserInput otherwise.
InputKind kindFromDynamoName(std::string_view name);
/// Placeholder kind from an AOT descriptor comment (`ParamAOTInput(target='w')`), if it says one.
std::optional<InputKind> kindFromDescriptor(std::string_view comment);
/// Sets a placeholder's kind and Node::inputKindFrom from its Dynamo name when the name tells one
/// (Parameter or Buffer): "Dynamo's input name l_self_..._parameters_w_ (an nn.Module parameter)".
/// Returns false, changing nothing, when it does not.
bool kindFromDynamoName(Node& n, std::string_view name);
/// The same from an AOT descriptor comment: "AOT's input descriptor ParamAOTInput(target='w')".
/// PlainAOTInput (a user or static input) tells no kind: false.
bool kindFromDescriptor(Node& n, std::string_view comment);
/// Marks a placeholder as a SymInt told by `evidence` ("its annotation Sym(s0)").
void symIntInput(Node& n, const std::string& evidence);

/// The results getitem users describe: outputs[k] from the annotation of `producer[k]`; indices no
/// getitem picks are filled with an empty tensor (shape [0], dtype Unknown) so that k stays aligned.
std::vector<TensorMeta> synthesizedOutputs(const Graph& g, int producer, const std::vector<std::vector<int>>& users);
/// The same from the producer's own users (`producerUsers`: its users in node order, e.g. Node::users).
std::vector<TensorMeta> synthesizedOutputs(const Graph& g, int producer, const std::vector<int>& producerUsers);
/// users[i]: the nodes whose args or kwargs name node i (by name, before finalize).
std::vector<std::vector<int>> usersByName(const Graph& g, const std::map<std::string, int>& byName);

/// Target as the IR keeps it: `torch.ops.aten.add.Tensor` -> `aten.add.Tensor`; others unchanged.
std::string irTarget(const std::string& dotted);

/// Converts a constant expression to an argument. Names are resolved by `lookup` (returns false for
/// a name that is not a node). Expressions that are neither literals, node references nor lists
/// (dtypes, devices, slices, tensor constants) become Str with their canonical Python text; if
/// such an expression mentions a node, `opaqueRefs` gets its name (the reference is not tracked).
struct ArgConversion {
    std::vector<std::string> unknownNames; ///< bare names that are neither nodes nor constants
    std::vector<size_t> unknownOffsets;
    std::vector<std::string> opaqueRefs;
};
using NameLookup = std::function<bool(const std::string&)>;
Arg exprToArg(const Expr& e, const NameLookup& isNode, ArgConversion& conv);
/// Does reading `text` as an argument give back the string `text` itself? (The writer prints such
/// strings without quotes: `torch.float32`, `device(type='cuda', index=0)`.)
bool isOpaqueConstantText(const std::string& text);

} // namespace engine::readers::detail
