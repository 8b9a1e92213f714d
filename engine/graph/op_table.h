#pragma once
/// The operator table: every operator schema PyTorch 2.11 registers (4,487, dumped from PyTorch
/// itself with their tags) and the torch_npu / TorchAir ones LLM graphs use. It answers what the
/// passes ask PyTorch's registry (`torch.ops.<ns>.<op>.<overload>._schema`): an op's arguments,
/// their types and defaults, which ones it writes (alias annotations `Tensor(a!)`), whether it is a
/// view, which overloads its packet has, and its tags (`nondeterministic_seeded`, `pointwise`,
/// `inplace_view`, ...).
///
/// The rows are generated (engine/graph/op_table_data.inc, by scripts/gen_op_table.py from
/// resources/schemas/) and parsed on first use. The parser reads PyTorch's schema syntax
/// (`torch/csrc/jit/frontend/function_schema_parser.cpp`) as far as the passes need: names,
/// overloads, arguments with types, alias annotations, defaults and the keyword-only marker `*`;
/// the returns are kept as text.
///
/// Thread contract: the table is built once (thread-safe static) and immutable afterwards.
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace engine {

struct SchemaArg {
    std::string name;
    std::string type; ///< without alias annotations, as str(arg.type) prints it: "Tensor", "Tensor?[]", "int[1]?"
    std::string alias; ///< the alias annotation without parentheses: "a!", "a", "a -> *"; empty when none
    bool kwargOnly = false;
    bool writes = false; ///< annotated (x!): the op writes this argument
    bool hasDefault = false;
    std::string defaultValue; ///< as the schema writes it: "0", "None", "1", "False", "'none'", "[]"
};

struct OpSchema {
    std::string text; ///< the schema as PyTorch prints it
    std::string target; ///< "aten.add.Tensor" (overload "default" when the schema has none)
    std::string ns; ///< "aten"
    std::string packet; ///< "add"
    std::string overload; ///< "Tensor", "default"
    std::vector<SchemaArg> args;
    std::string returns; ///< "Tensor(a!)", "(Tensor, Tensor)", "()"
    bool varargs = false; ///< `(...)`: any arguments (prim::PythonOp and the like)
    /// torch.fx.passes.reinplace._is_view_op: the first argument has an alias annotation that does
    /// not write (Tensor(a) self -> Tensor(a)).
    bool view = false;
    bool mutates = false; ///< some argument is written (a!): in-place or out= variant (FunctionSchema.is_mutable)
    std::vector<std::string> tags; ///< torch.Tag names, without pt2_compliant_tag
    const SchemaArg* arg(const std::string& name) const;
    bool hasTag(std::string_view tag) const;
};

/// Parses one schema ("aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor").
/// False with `error` saying where when the text is not a schema.
bool parseOpSchema(const std::string& text, OpSchema& out, std::string& error);

/// The schema of a target in any spelling canonicalTarget accepts ("aten.add.Tensor",
/// "torch.ops.aten.mm", "aten::mm"), or nullptr when the table does not hold it.
const OpSchema* findOpSchema(const std::string& target);
/// Every overload of a packet ("aten", "add_"), in the table's order (by overload name).
const std::vector<const OpSchema*>& opOverloads(const std::string& ns, const std::string& packet);

struct OpTableInfo {
    std::string source; ///< "PyTorch 2.11.0+cu130"
    int pytorchSchemas = 0, npuSchemas = 0; ///< rows of each input, as the generator counted them
    size_t size = 0; ///< schemas in the table
};
const OpTableInfo& opTableInfo();

/// Operators a scenario declares beyond the table: custom op schemas (what `torch.library` defines in
/// the user's process) and TorchAir's user-registered in-placeable multi-output NPU ops
/// (`register_inplaceable_npu_op(functional, inplace, mutated_arg=[...])`, graph_pass.py). Build it
/// with add*, then finish(); share it through a shared_ptr (the lookups point into it).
class UserOps {
public:
    struct Inplaceable {
        std::string functional; ///< canonical target, "npu.my_op_functional.default"
        std::string inplace; ///< "npu.my_op.default"
        std::vector<int> mutatedArgs;
    };
    /// False with `error` when `text` is not a schema, or names an op the table already holds.
    bool addSchema(const std::string& text, std::string& error);
    void addInplaceable(Inplaceable op);
    /// Indexes the schemas (with the table's overloads of the same packets); call once, after the adds.
    void finish();
    bool empty() const { return m_schemas.empty() && m_inplaceable.empty(); }
    const std::vector<Inplaceable>& inplaceable() const { return m_inplaceable; }
    const OpSchema* find(const std::string& canonical) const;
    const std::vector<const OpSchema*>* overloads(const std::string& ns, const std::string& packet) const;

private:
    std::vector<OpSchema> m_schemas;
    std::vector<Inplaceable> m_inplaceable;
    std::map<std::string, const OpSchema*> m_byTarget;
    std::map<std::pair<std::string, std::string>, std::vector<const OpSchema*>> m_byPacket;
};

/// While alive, findOpSchema and opOverloads on this thread also answer from `ops` (after the
/// table), and the passes see its in-placeable ops; scopes nest. The pass pipeline installs the
/// scenario's for the length of a run.
class UserOpsScope {
public:
    explicit UserOpsScope(const UserOps* ops);
    ~UserOpsScope();
    UserOpsScope(const UserOpsScope&) = delete;
    UserOpsScope& operator=(const UserOpsScope&) = delete;

private:
    const UserOps* m_previous;
};
/// The innermost UserOpsScope's operators on this thread, or nullptr.
const UserOps* activeUserOps();

} // namespace engine
