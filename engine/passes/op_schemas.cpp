#include "engine/passes/op_schemas.h"

#include "engine/graph/op_info.h"

#include <algorithm>
#include <map>
#include <set>

namespace engine::passes {

namespace {

// Schemas as PyTorch prints them (native_functions.yaml / torch_npu's op registrations). Only what
// the passes read matters: argument names, types, defaults, alias annotations. The npu rows with
// long keyword lists are cut after the arguments the passes look at.
const char* const kSchemas[] = {
    // Binary pointwise: functional, in-place, out=.
    "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
    "aten::add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)",
    "aten::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)",
    "aten::add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor",
    "aten::add_.Scalar(Tensor(a!) self, Scalar other, Scalar alpha=1) -> Tensor(a!)",
    "aten::add.Scalar_out(Tensor self, Scalar other, Scalar alpha=1, *, Tensor(a!) out) -> Tensor(a!)",
    "aten::sub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
    "aten::sub_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)",
    "aten::sub.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)",
    "aten::sub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor",
    "aten::sub_.Scalar(Tensor(a!) self, Scalar other, Scalar alpha=1) -> Tensor(a!)",
    "aten::mul.Tensor(Tensor self, Tensor other) -> Tensor",
    "aten::mul_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)",
    "aten::mul.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    "aten::mul.Scalar(Tensor self, Scalar other) -> Tensor",
    "aten::mul_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)",
    "aten::mul.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> Tensor(a!)",
    "aten::div.Tensor(Tensor self, Tensor other) -> Tensor",
    "aten::div_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)",
    "aten::div.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    "aten::div.Scalar(Tensor self, Scalar other) -> Tensor",
    "aten::div_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)",
    "aten::pow.Tensor_Scalar(Tensor self, Scalar exponent) -> Tensor",
    "aten::pow_.Scalar(Tensor(a!) self, Scalar exponent) -> Tensor(a!)",
    "aten::pow.Tensor_Scalar_out(Tensor self, Scalar exponent, *, Tensor(a!) out) -> Tensor(a!)",
    "aten::pow.Tensor_Tensor(Tensor self, Tensor exponent) -> Tensor",
    "aten::pow_.Tensor(Tensor(a!) self, Tensor exponent) -> Tensor(a!)",
    "aten::pow.Tensor_Tensor_out(Tensor self, Tensor exponent, *, Tensor(a!) out) -> Tensor(a!)",
    "aten::clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor",
    "aten::clamp_(Tensor(a!) self, Scalar? min=None, Scalar? max=None) -> Tensor(a!)",
    "aten::clamp.out(Tensor self, Scalar? min=None, Scalar? max=None, *, Tensor(a!) out) -> Tensor(a!)",
    "aten::where.self(Tensor condition, Tensor self, Tensor other) -> Tensor",
    "aten::where.self_out(Tensor condition, Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    "aten::masked_fill.Scalar(Tensor self, Tensor mask, Scalar value) -> Tensor",
    "aten::masked_fill_.Scalar(Tensor(a!) self, Tensor mask, Scalar value) -> Tensor(a!)",
    "aten::fill.Scalar(Tensor self, Scalar value) -> Tensor",
    "aten::fill_.Scalar(Tensor(a!) self, Scalar value) -> Tensor(a!)",
    "aten::zero(Tensor self) -> Tensor",
    "aten::zero_(Tensor(a!) self) -> Tensor(a!)",
    "aten::copy(Tensor self, Tensor src, bool non_blocking=False) -> Tensor",
    "aten::copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!)",
    "aten::clone(Tensor self, *, MemoryFormat? memory_format=None) -> Tensor",
    "aten::_to_copy(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
    "bool? pin_memory=None, bool non_blocking=False, MemoryFormat? memory_format=None) -> Tensor",
    "prims::convert_element_type(Tensor a, ScalarType dtype) -> Tensor",
    "prims::device_put(Tensor a, Device device, bool non_blocking=False) -> Tensor",
    // Unary pointwise: activations and rounding.
    "aten::relu(Tensor self) -> Tensor",
    "aten::relu_(Tensor(a!) self) -> Tensor(a!)",
    "aten::silu(Tensor self) -> Tensor",
    "aten::silu_(Tensor(a!) self) -> Tensor(a!)",
    "aten::silu.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    "aten::gelu(Tensor self, *, str approximate='none') -> Tensor",
    "aten::gelu_(Tensor(a!) self, *, str approximate='none') -> Tensor(a!)",
    "aten::gelu.out(Tensor self, *, str approximate='none', Tensor(a!) out) -> Tensor(a!)",
    // Matrix products.
    "aten::mm(Tensor self, Tensor mat2) -> Tensor",
    "aten::mm.out(Tensor self, Tensor mat2, *, Tensor(a!) out) -> Tensor(a!)",
    "aten::bmm(Tensor self, Tensor mat2) -> Tensor",
    "aten::bmm.out(Tensor self, Tensor mat2, *, Tensor(a!) out) -> Tensor(a!)",
    "aten::addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> Tensor",
    "aten::addmm_(Tensor(a!) self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> Tensor(a!)",
    "aten::addmm.out(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1, Tensor(a!) out) -> "
    "Tensor(a!)",
    "aten::matmul(Tensor self, Tensor other) -> Tensor",
    "aten::matmul.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    // Reductions and normalisation.
    "aten::sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
    "aten::sum.IntList_out(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None, Tensor(a!) out) "
    "-> Tensor(a!)",
    "aten::mean.dim(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
    "aten::mean.out(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None, Tensor(a!) out) -> "
    "Tensor(a!)",
    "aten::_softmax(Tensor self, int dim, bool half_to_float) -> Tensor",
    "aten::_softmax.out(Tensor self, int dim, bool half_to_float, *, Tensor(a!) out) -> Tensor(a!)",
    // Indexing and scatter.
    "aten::embedding(Tensor weight, Tensor indices, SymInt padding_idx=-1, bool scale_grad_by_freq=False, "
    "bool sparse=False) -> Tensor",
    "aten::index_select(Tensor self, int dim, Tensor index) -> Tensor",
    "aten::index_select.out(Tensor self, int dim, Tensor index, *, Tensor(a!) out) -> Tensor(a!)",
    "aten::index.Tensor(Tensor self, Tensor?[] indices) -> Tensor",
    "aten::index_put(Tensor self, Tensor?[] indices, Tensor values, bool accumulate=False) -> Tensor",
    "aten::index_put_(Tensor(a!) self, Tensor?[] indices, Tensor values, bool accumulate=False) -> Tensor(a!)",
    "aten::scatter.src(Tensor self, int dim, Tensor index, Tensor src) -> Tensor",
    "aten::scatter_.src(Tensor(a!) self, int dim, Tensor index, Tensor src) -> Tensor(a!)",
    "aten::scatter.src_out(Tensor self, int dim, Tensor index, Tensor src, *, Tensor(a!) out) -> Tensor(a!)",
    "aten::slice_scatter(Tensor self, Tensor src, int dim=0, SymInt? start=None, SymInt? end=None, SymInt step=1) "
    "-> Tensor",
    "aten::select_scatter(Tensor self, Tensor src, int dim, SymInt index) -> Tensor",
    "aten::diagonal_scatter(Tensor self, Tensor src, int offset=0, int dim1=0, int dim2=1) -> Tensor",
    "aten::as_strided_scatter(Tensor self, Tensor src, SymInt[] size, SymInt[] stride, SymInt? storage_offset=None) "
    "-> Tensor",
    // Shape ops that allocate.
    "aten::cat(Tensor[] tensors, int dim=0) -> Tensor",
    "aten::cat.out(Tensor[] tensors, int dim=0, *, Tensor(a!) out) -> Tensor(a!)",
    "aten::stack(Tensor[] tensors, int dim=0) -> Tensor",
    "aten::stack.out(Tensor[] tensors, int dim=0, *, Tensor(a!) out) -> Tensor(a!)",
    "aten::repeat(Tensor self, SymInt[] repeats) -> Tensor",
    "aten::constant_pad_nd(Tensor self, SymInt[] pad, Scalar value=0) -> Tensor",
    // Rounding: no-ops on integer tensors (remove_noop_ops).
    "aten::ceil(Tensor self) -> Tensor",
    "aten::ceil_(Tensor(a!) self) -> Tensor(a!)",
    "aten::floor(Tensor self) -> Tensor",
    "aten::floor_(Tensor(a!) self) -> Tensor(a!)",
    "aten::round(Tensor self) -> Tensor",
    "aten::round_(Tensor(a!) self) -> Tensor(a!)",
    "aten::trunc(Tensor self) -> Tensor",
    "aten::trunc_(Tensor(a!) self) -> Tensor(a!)",
    // Factories.
    "aten::empty.memory_format(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
    "bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor",
    "aten::full(SymInt[] size, Scalar fill_value, *, ScalarType? dtype=None, Layout? layout=None, "
    "Device? device=None, bool? pin_memory=None) -> Tensor",
    "aten::zeros(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
    "bool? pin_memory=None) -> Tensor",
    // Views (never reinplaced: _maybe_get_inplace_op refuses views).
    "aten::view(Tensor(a) self, SymInt[] size) -> Tensor(a)",
    "aten::view.dtype(Tensor(a) self, ScalarType dtype) -> Tensor(a)",
    "aten::reshape(Tensor(a) self, SymInt[] shape) -> Tensor(a)",
    "aten::_unsafe_view(Tensor self, SymInt[] size) -> Tensor",
    "aten::alias(Tensor(a) self) -> Tensor(a)",
    "aten::slice.Tensor(Tensor(a) self, int dim=0, SymInt? start=None, SymInt? end=None, SymInt step=1) -> "
    "Tensor(a)",
    "aten::select.int(Tensor(a) self, int dim, SymInt index) -> Tensor(a)",
    "aten::diagonal(Tensor(a) self, int offset=0, int dim1=0, int dim2=1) -> Tensor(a)",
    "aten::as_strided(Tensor(a) self, SymInt[] size, SymInt[] stride, SymInt? storage_offset=None) -> Tensor(a)",
    "aten::transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)",
    "aten::permute(Tensor(a) self, int[] dims) -> Tensor(a)",
    "aten::t(Tensor(a) self) -> Tensor(a)",
    "aten::unsqueeze(Tensor(a) self, int dim) -> Tensor(a)",
    "aten::squeeze.dim(Tensor(a) self, int dim) -> Tensor(a)",
    "aten::expand(Tensor(a) self, SymInt[] size, *, bool implicit=False) -> Tensor(a)",
    "aten::split.Tensor(Tensor(a -> *) self, SymInt split_size, int dim=0) -> Tensor(a)[]",
    "aten::split_with_sizes(Tensor(a -> *) self, SymInt[] split_sizes, int dim=0) -> Tensor(a)[]",
    "aten::unbind.int(Tensor(a -> *) self, int dim=0) -> Tensor(a)[]",
    // Metadata queries (meta-only users for reinplace_input_mutated_ops).
    "aten::sym_size.int(Tensor self, int dim) -> SymInt",
    "aten::sym_stride.int(Tensor self, int dim) -> SymInt",
    "aten::sym_numel(Tensor self) -> SymInt",
    "aten::sym_storage_offset(Tensor self) -> SymInt",
    // torch_npu ops seen in LLM graphs.
    "npu::npu_rms_norm(Tensor self, Tensor gamma, float epsilon=1e-06) -> (Tensor, Tensor)",
    "npu::npu_add_rms_norm(Tensor x1, Tensor x2, Tensor gamma, float epsilon=1e-06) -> (Tensor, Tensor, Tensor)",
    "npu::npu_rotary_mul(Tensor self, Tensor r1, Tensor r2, str rotary_mode='half') -> Tensor",
    "npu::npu_swiglu(Tensor self, int dim=-1) -> Tensor",
    "npu::npu_fused_infer_attention_score(Tensor query, Tensor key, Tensor value, *, Tensor? pse_shift=None, "
    "Tensor? atten_mask=None, SymInt[]? actual_seq_lengths=None, SymInt[]? actual_seq_lengths_kv=None) -> "
    "(Tensor, Tensor)",
    "npu::npu_scatter_nd_update(Tensor self, Tensor indices, Tensor updates) -> Tensor",
    "npu::npu_scatter_nd_update_(Tensor(a!) self, Tensor indices, Tensor updates) -> Tensor(a!)",
    "npu::scatter_update(Tensor data, Tensor indices, Tensor updates, int axis) -> Tensor",
    "npu::scatter_update_(Tensor(a!) data, Tensor indices, Tensor updates, int axis) -> Tensor(a!)",
    "npu::npu_quant_scatter(Tensor self, Tensor indices, Tensor updates, Tensor quant_scales, "
    "Tensor? quant_zero_points=None, int axis=0, int quant_axis=1, str reduce='update') -> Tensor",
    "npu::npu_quant_scatter_(Tensor(a!) self, Tensor indices, Tensor updates, Tensor quant_scales, "
    "Tensor? quant_zero_points=None, int axis=0, int quant_axis=1, str reduce='update') -> Tensor(a!)",
    // TorchAir's scope markers: known, so that they are "not Tensor-first" rather than unknown.
    "air::scope_enter(str[] keys, str[] values, *, bool need_excute=False) -> ()",
    "air::scope_exit(*, bool need_excute=False) -> ()",
};

std::string trim(const std::string& s)
{
    size_t b = s.find_first_not_of(' ');
    size_t e = s.find_last_not_of(' ');
    return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

// Splits at commas outside brackets and parentheses.
std::vector<std::string> splitTopLevel(const std::string& s)
{
    std::vector<std::string> parts;
    int depth = 0;
    std::string cur;
    for (char c : s) {
        if (c == '(' || c == '[')
            ++depth;
        else if (c == ')' || c == ']')
            --depth;
        if (c == ',' && depth == 0) {
            parts.push_back(trim(cur));
            cur.clear();
        } else {
            cur += c;
        }
    }
    if (!trim(cur).empty())
        parts.push_back(trim(cur));
    return parts;
}

OpSchema parseSchema(const std::string& text)
{
    OpSchema s;
    const size_t open = text.find('(');
    const std::string name = text.substr(0, open);
    const size_t colons = name.find("::");
    s.ns = name.substr(0, colons);
    std::string rest = name.substr(colons + 2);
    const size_t dot = rest.find('.');
    s.packet = rest.substr(0, dot);
    s.overload = dot == std::string::npos ? "default" : rest.substr(dot + 1);
    s.target = s.ns + "." + s.packet + "." + s.overload;

    int depth = 0;
    size_t close = open;
    for (size_t i = open; i < text.size(); ++i) {
        if (text[i] == '(')
            ++depth;
        if (text[i] == ')' && --depth == 0) {
            close = i;
            break;
        }
    }
    bool kwargOnly = false;
    for (const std::string& part : splitTopLevel(text.substr(open + 1, close - open - 1))) {
        if (part == "*") {
            kwargOnly = true;
            continue;
        }
        SchemaArg a;
        a.kwargOnly = kwargOnly;
        std::string decl = part;
        const size_t eq = decl.find('=');
        if (eq != std::string::npos) {
            a.hasDefault = true;
            a.defaultValue = trim(decl.substr(eq + 1));
            decl = trim(decl.substr(0, eq));
        }
        const size_t space = decl.rfind(' ');
        a.name = decl.substr(space + 1);
        std::string type = decl.substr(0, space);
        // "Tensor(a!)" -> "Tensor", "Tensor(a -> *)" -> "Tensor": the alias annotation is not part of the type.
        const size_t paren = type.find('(');
        if (paren != std::string::npos) {
            const size_t end = type.find(')', paren);
            const std::string alias = type.substr(paren, end - paren + 1);
            a.writes = alias.find('!') != std::string::npos;
            if (!a.writes && s.args.empty())
                s.view = true;
            type = type.substr(0, paren) + type.substr(end + 1);
        }
        a.type = trim(type);
        s.mutates = s.mutates || a.writes;
        s.args.push_back(a);
    }
    return s;
}

const std::map<std::string, OpSchema>& table()
{
    static const std::map<std::string, OpSchema> t = [] {
        std::map<std::string, OpSchema> m;
        for (const char* text : kSchemas) {
            OpSchema s = parseSchema(text);
            m.emplace(s.target, std::move(s));
        }
        return m;
    }();
    return t;
}

std::vector<std::pair<std::string, std::string>> signature(const OpSchema& s, bool skipOut)
{
    std::vector<std::pair<std::string, std::string>> sig;
    for (const SchemaArg& a : s.args)
        if (!skipOut || a.name != "out")
            sig.emplace_back(a.name, a.type);
    return sig;
}

bool startsWith(const std::string& s, const std::string& prefix)
{
    return s.compare(0, prefix.size(), prefix) == 0;
}

} // namespace

const SchemaArg* OpSchema::arg(const std::string& name) const
{
    for (const SchemaArg& a : args)
        if (a.name == name)
            return &a;
    return nullptr;
}

const OpSchema* findSchema(const std::string& target)
{
    auto it = table().find(canonicalTarget(target));
    return it == table().end() ? nullptr : &it->second;
}

InplaceLookup inplaceVariant(const std::string& target)
{
    InplaceLookup r;
    const OpSchema* s = findSchema(target);
    if (!s)
        return r;
    r.known = true;
    // Views have in-place twins (as_strided_, ...) that reinplacing must not introduce.
    if (s->view || s->mutates)
        return r;
    const std::string packet = s->packet + "_";
    for (const auto& [name, candidate] : table()) {
        if (candidate.ns != s->ns || candidate.packet != packet || candidate.args.size() != s->args.size())
            continue;
        // torch's _schemas_match compares argument types only, position by position.
        bool same = true;
        for (size_t i = 0; i < s->args.size() && same; ++i)
            same = candidate.args[i].type == s->args[i].type;
        if (same) {
            r.inplace = candidate.target;
            break;
        }
    }
    return r;
}

OutLookup outVariant(const std::string& target)
{
    OutLookup r;
    const OpSchema* s = findSchema(target);
    if (!s)
        return r;
    r.known = true;
    const auto want = signature(*s, true);
    for (const auto& [name, candidate] : table()) {
        if (candidate.ns != s->ns || candidate.packet != s->packet || !candidate.arg("out"))
            continue;
        if (signature(candidate, true) == want) {
            r.out = candidate.target;
            break;
        }
    }
    return r;
}

const std::vector<MultiInplaceOp>& multiInplaceOps()
{
    // graph_pass.py register_inplaceable_npu_op calls; mutated argument indices from their comments.
    static const std::vector<MultiInplaceOp> ops = {
        { "npu.npu_kv_rmsnorm_rope_cache_v2_functional.default", "npu.npu_kv_rmsnorm_rope_cache_v2.default", { 5, 6 } },
        { "npu.npu_mla_prolog_v3_functional.default", "npu.npu_mla_prolog_v3.default", { 9, 10 } },
        { "npu.npu_add_rms_norm_v2_functional.default", "npu.npu_add_rms_norm_v2.default", { 0, 1 } },
    };
    return ops;
}

const MultiInplaceOp* findMultiInplace(const std::string& target)
{
    const std::string t = canonicalTarget(target);
    for (const MultiInplaceOp& op : multiInplaceOps())
        if (op.functional == t)
            return &op;
    return nullptr;
}

std::string viewInverseOf(const std::string& target)
{
    static const std::map<std::string, std::string> inverse = {
        { "aten.diagonal_scatter.default", "aten.diagonal.default" },
        { "aten.select_scatter.default", "aten.select.int" },
        { "aten.slice_scatter.default", "aten.slice.Tensor" },
        { "aten.as_strided_scatter.default", "aten.as_strided.default" },
    };
    auto it = inverse.find(canonicalTarget(target));
    return it == inverse.end() ? std::string() : it->second;
}

bool isImpure(const std::string& target, std::string* reason)
{
    auto say = [reason](const char* why) {
        if (reason)
            *reason = why;
        return true;
    };
    const std::string t = canonicalTarget(target);
    const OpInfo info = classifyOp(t);
    static const std::set<std::string> seeded = { "rand", "randn", "randint", "randperm", "rand_like", "randn_like",
        "randint_like", "bernoulli", "native_dropout", "normal", "uniform", "multinomial", "poisson", "exponential",
        "geometric", "cauchy", "log_normal", "random" };
    static const std::set<std::string> sideEffects = { "_assert_async", "_assert_scalar", "_assert_tensor_metadata",
        "sym_constrain_range", "sym_constrain_range_for_size", "_print", "record_stream", "save_npugraph_tensor" };
    if (info.ns == "air")
        return say("air.* scope/event op (side effect on the stream schedule)");
    for (const MultiInplaceOp& op : multiInplaceOps())
        if (op.inplace == t)
            return say("mutable schema: writes its cache arguments");
    if (const OpSchema* s = findSchema(t); s && s->mutates)
        return say("mutable schema: writes an argument");
    if (info.effect == OpInfo::Effect::InPlace)
        return say("mutable schema: in-place or out= op writes an argument");
    if (seeded.count(info.packet))
        return say("nondeterministic_seeded: advances the RNG state");
    if (sideEffects.count(info.packet) || startsWith(info.packet, "_assert") || startsWith(info.packet, "_check"))
        return say("side-effectful function (assertion or print)");
    if (findSchema(t) || info.ns == "aten" || info.ns == "prims" || info.ns.empty() || info.ns == "operator"
        || info.ns == "_operator" || info.ns == "builtins" || info.ns == "math")
        return false;
    return say("op not in the built-in schema table: kept, as its schema may mark it mutable");
}

} // namespace engine::passes
