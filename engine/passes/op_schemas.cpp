#include "engine/passes/op_schemas.h"

#include "engine/graph/op_info.h"

#include <algorithm>
#include <map>
#include <set>

namespace engine::passes {

namespace {

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

const OpSchema* findSchema(const std::string& target)
{
    return findOpSchema(target);
}

InplaceLookup inplaceVariant(const std::string& target)
{
    InplaceLookup r;
    const OpSchema* s = findSchema(target);
    if (!s)
        return r;
    r.known = true;
    // _maybe_get_inplace_op: views have in-place twins (as_strided_, ...) that reinplacing must not
    // introduce; a mutable op has nothing to gain.
    if (s->view || s->mutates || s->varargs)
        return r;
    // torch.fx.passes.reinplace._schemas_match: the functional op's first argument has no alias
    // annotation, the in-place one's writes (a!), and the argument types match position by position.
    for (const OpSchema* candidate : opOverloads(s->ns, s->packet + "_")) {
        if (candidate->args.size() != s->args.size() || s->args.empty())
            continue;
        if (!s->args[0].alias.empty() || !candidate->args[0].writes)
            continue;
        bool same = true;
        for (size_t i = 0; i < s->args.size() && same; ++i)
            same = candidate->args[i].type == s->args[i].type;
        if (same) {
            r.inplace = candidate->target;
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
    for (const OpSchema* candidate : opOverloads(s->ns, s->packet)) {
        if (candidate->arg("out") && signature(*candidate, true) == want) {
            r.out = candidate->target;
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
    if (const UserOps* user = activeUserOps())
        for (const MultiInplaceOp& op : user->inplaceable())
            if (op.functional == t)
                return &op;
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
    static const std::set<std::string> sideEffects = { "_assert_async", "_assert_scalar", "_assert_tensor_metadata",
        "sym_constrain_range", "sym_constrain_range_for_size", "_print", "record_stream", "save_npugraph_tensor" };
    if (info.ns == "air")
        return say("air.* scope/event op (side effect on the stream schedule)");
    for (const MultiInplaceOp& op : multiInplaceOps())
        if (op.inplace == t)
            return say("mutable schema: writes its cache arguments");
    if (const UserOps* user = activeUserOps())
        for (const MultiInplaceOp& op : user->inplaceable())
            if (op.inplace == t)
                return say("mutable schema: writes its mutated arguments (registered in the scenario)");
    const OpSchema* schema = findSchema(t);
    if (schema && schema->mutates)
        return say("mutable schema: writes an argument");
    if (info.effect == OpInfo::Effect::InPlace)
        return say("mutable schema: in-place or out= op writes an argument");
    if (schema && schema->hasTag("nondeterministic_seeded"))
        return say("nondeterministic_seeded: advances the RNG state");
    if (sideEffects.count(info.packet) || startsWith(info.packet, "_assert") || startsWith(info.packet, "_check"))
        return say("side-effectful function (assertion or print)");
    if (schema || info.ns == "aten" || info.ns == "prims" || info.ns.empty() || info.ns == "operator"
        || info.ns == "_operator" || info.ns == "builtins" || info.ns == "math")
        return false;
    return say("op not in the operator table: kept, as its schema may mark it mutable");
}

} // namespace engine::passes
