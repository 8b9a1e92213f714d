// decompose_auto_functionalized (inductor torch/_inductor/fx_passes/post_grad.py, PyTorch 2.11; TorchAir
// fx2acl_converter.py `_optimize_decompose_auto_functionalized`, right after reinplace_input_mutated_ops
// and only when that runs, §4.2). Functionalization wraps a custom op that mutates its arguments in an
// `auto_functionalized` (v1) or `auto_functionalized_v2` node, which clones what the op writes, runs
// it on the clones and returns (op outputs..., new values...). The reinplace pass left in the node's
// meta which of those clones are needed (`only_clone_these_tensors`); this pass expands the node into
// exactly that: the clones (clone_preserve_strides), the views of the bases the op is called on (v2),
// the op itself, and rewires the node's getitem users (torch/_higher_order_ops/auto_functionalize.py
// `auto_functionalized_dense`, `auto_functionalized_v2_dense`, `read_view_information_from_args`).
#include "engine/passes/pass_util.h"
#include "engine/passes/pipeline.h"

#include <algorithm>
#include <cstdlib>

namespace engine::passes {

namespace {

using detail::refOf;

const Arg* kwarg(const Node& n, const std::string& key)
{
    for (const auto& [k, value] : n.kwargs)
        if (k == key)
            return &value;
    return nullptr;
}

bool isNone(const Arg* a)
{
    return !a || a->kind == Arg::Kind::None;
}

// Concrete strides of a tensor (contiguous when the metadata gives none); nullopt for symbolic sizes.
std::optional<std::vector<int64_t>> concreteStrides(const TensorMeta& t)
{
    if (t.isSymbolic())
        return std::nullopt;
    std::vector<int64_t> stride(t.shape.size());
    int64_t running = 1;
    for (size_t i = t.shape.size(); i-- > 0;) {
        if (!t.stride.empty()) {
            stride[i] = *t.stride[i].constantValue();
            continue;
        }
        stride[i] = running;
        running *= *t.shape[i].constantValue();
    }
    return stride;
}

std::vector<SymExpr> exprs(const std::vector<int64_t>& v)
{
    std::vector<SymExpr> out;
    for (int64_t x : v)
        out.push_back(SymExpr::constant(x));
    return out;
}

Arg intList(const std::vector<int64_t>& v)
{
    std::vector<Arg> items;
    for (int64_t x : v)
        items.push_back(Arg::integer(x));
    return Arg::list(std::move(items));
}

std::optional<std::vector<int64_t>> ints(const Arg* a)
{
    if (!a || a->kind != Arg::Kind::List)
        return std::nullopt;
    std::vector<int64_t> v;
    for (const Arg& x : a->items) {
        if (x.kind != Arg::Kind::Int)
            return std::nullopt;
        v.push_back(x.i);
    }
    return v;
}

// Does an argument equal its schema default (the dispatcher then leaves it out of the call)?
bool isDefault(const Arg& a, const SchemaArg& s)
{
    if (!s.hasDefault)
        return false;
    const std::string& d = s.defaultValue;
    switch (a.kind) {
    case Arg::Kind::None:
        return d == "None";
    case Arg::Kind::Bool:
        return d == (a.b ? "True" : "False");
    case Arg::Kind::Int:
        return d == std::to_string(a.i);
    case Arg::Kind::Float: {
        char* end = nullptr;
        const double v = std::strtod(d.c_str(), &end);
        return end && *end == '\0' && !d.empty() && v == a.f;
    }
    case Arg::Kind::Str:
        return d.size() >= 2 && (d.front() == '\'' || d.front() == '"') && d.substr(1, d.size() - 2) == a.s;
    case Arg::Kind::List:
        return a.items.empty() && d == "[]";
    case Arg::Kind::NodeRef:
        return false;
    }
    return false;
}

// How many values the op returns, as the node's tuple counts them: `()` returns None, one value.
int returnCount(const OpSchema& s)
{
    const std::string& r = s.returns;
    if (r.empty() || r.front() != '(')
        return 1;
    if (r == "()")
        return 1;
    int depth = 0, commas = 0;
    for (char c : r) {
        depth += c == '(' || c == '[' ? 1 : c == ')' || c == ']' ? -1 : 0;
        commas += c == ',' && depth == 1;
    }
    return commas + 1;
}

bool returnsTuple(const OpSchema& s)
{
    return s.returns.size() > 2 && s.returns.front() == '(';
}

class Decomposer {
public:
    Decomposer(Graph& g, PassReport& report)
        : m_g(g)
        , m_report(report)
    {
    }
    Result<void> run();

private:
    // What one auto_functionalized node becomes, worked out before the graph is touched.
    struct MutableArg {
        std::string name;
        bool list = false; ///< Tensor[] (v2: `_<name>_length`)
        bool none = false; ///< the argument, or the whole list, is None
        std::vector<std::string> prefixes; ///< v2 view-information prefixes: "_x", or "_xs_0", "_xs_1"
    };
    struct Plan {
        std::string op; ///< canonical target of the mutable op
        const OpSchema* schema = nullptr;
        bool v2 = false;
        std::vector<MutableArg> mutableArgs;
        std::vector<std::pair<std::string, Arg>> opKwargs; ///< the op's other arguments, in the node's order
        std::vector<int> bases; ///< v2: _all_bases
        std::set<int64_t> cloneBases; ///< v2: indices to clone
        std::set<std::string> cloneNames; ///< v1: argument names to clone
        int outputs = 1; ///< values the op returns in the node's tuple
        bool tuple = false; ///< the op returns a tuple (getitem nodes pick its values)
    };

    const Node& at(int i) const { return m_g.nodes[size_t(i)]; }
    void log(std::string line) { m_report.log.push_back("aclgraph-inspector: " + std::move(line)); }
    void leave(const Node& n, const std::string& why)
    {
        m_report.skipped.push_back({ n.name, "aclgraph-inspector: " + why });
        log(n.name + " is left as it is: " + why);
    }
    std::string plan(int node, bool v2, Plan& p);
    Result<int> add(int& before, const std::string& target, std::vector<Arg> args, std::vector<TensorMeta> outputs);
    Result<int> clone(int& before, int base);
    Result<Arg> view(int& before, const std::string& prefix, const Node& af, const std::vector<int>& bases);
    Result<void> expand(const std::string& name, const Plan& p);

    Graph& m_g;
    PassReport& m_report;
};

std::string Decomposer::plan(int node, bool v2, Plan& p)
{
    const Node& n = at(node);
    p.v2 = v2;
    if (n.args.empty() || n.args[0].kind != Arg::Kind::Str)
        return "its first argument is not the op it wraps";
    p.op = canonicalTarget(n.args[0].s);
    p.schema = findSchema(p.op);
    const Arg* meta = nullptr;
    auto it = n.passMeta.find("only_clone_these_tensors");
    if (it != n.passMeta.end())
        meta = &it->second;
    else
        log(n.name
            + " carries no only_clone_these_tensors (reinplace_input_mutated_ops recorded none); as in "
              "inductor (meta.get(..., [])), nothing is cloned");

    std::set<std::string> viewKeys;
    if (v2) {
        const Arg* bases = kwarg(n, "_all_bases");
        if (!bases || bases->kind != Arg::Kind::List)
            return "it has no _all_bases list";
        for (const Arg& b : bases->items) {
            if (refOf(m_g, b) < 0)
                return "an entry of _all_bases is not a node";
            p.bases.push_back(refOf(m_g, b));
        }
        for (const auto& [k, v] : n.kwargs)
            if (p.bases.empty() && k.size() > 8 && k[0] == '_' && k.compare(k.size() - 7, 7, "_device") == 0)
                return "it is the out= form of auto_functionalized_v2 (no bases; empty outputs made from "
                    + k.substr(0, k.size() - 7) + "_size/_stride/_dtype/_device), which is not modelled";
        if (meta)
            for (const Arg& i : meta->items)
                p.cloneBases.insert(i.i);
        // The mutable arguments: the op's written ones (schema order) or, without a schema, those the
        // view information names (`_<name>_base_index`, `_<name>_length` for lists), in the node's order,
        // which is the schema's (write_view_information_to_args walks the mutable args in order).
        std::vector<std::string> lists;
        for (const auto& [k, v] : n.kwargs)
            if (k.size() > 8 && k[0] == '_' && k.compare(k.size() - 7, 7, "_length") == 0)
                lists.push_back(k.substr(1, k.size() - 8));
        auto listElement = [&](const std::string& prefix) {
            for (const std::string& l : lists)
                if (prefix.rfind(l + "_", 0) == 0 && prefix.size() > l.size() + 1
                    && prefix.find_first_not_of("0123456789", l.size() + 1) == std::string::npos)
                    return true;
            return false;
        };
        std::vector<std::pair<std::string, bool>> names;
        if (p.schema) {
            for (const SchemaArg& a : p.schema->args)
                if (a.writes)
                    names.emplace_back(a.name, a.type.find("[]") != std::string::npos);
        } else {
            for (const auto& [k, v] : n.kwargs) {
                if (k.size() > 12 && k[0] == '_' && k.compare(k.size() - 11, 11, "_base_index") == 0) {
                    const std::string prefix = k.substr(1, k.size() - 12);
                    if (!listElement(prefix))
                        names.emplace_back(prefix, false);
                } else if (k.size() > 8 && k[0] == '_' && k.compare(k.size() - 7, 7, "_length") == 0) {
                    names.emplace_back(k.substr(1, k.size() - 8), true);
                }
            }
        }
        for (const auto& [name, list] : names) {
            if (kwarg(n, "_" + name + "_dtype") || kwarg(n, "_" + name + "_device"))
                return "it is the out= form of auto_functionalized_v2 (empty outputs made from _" + name
                    + "_size/_stride/_dtype/_device), which is not modelled";
            MutableArg m { name, list, false, {} };
            if (list) {
                const Arg* length = kwarg(n, "_" + name + "_length");
                if (!length)
                    return "its view information has no _" + name + "_length";
                viewKeys.insert("_" + name + "_length");
                m.none = length->kind == Arg::Kind::None;
                for (int64_t i = 0; !m.none && i < length->i; ++i)
                    m.prefixes.push_back("_" + name + "_" + std::to_string(i));
            } else {
                m.prefixes.push_back("_" + name);
            }
            for (const std::string& prefix : m.prefixes) {
                if (!kwarg(n, prefix + "_base_index"))
                    return "its view information has no " + prefix + "_base_index";
                for (const char* suffix : { "_base_index", "_alias", "_size", "_stride", "_storage_offset",
                         "_slice_dim", "_slice_start", "_slice_end" })
                    viewKeys.insert(prefix + suffix);
            }
            p.mutableArgs.push_back(m);
        }
        viewKeys.insert("_all_bases");
        viewKeys.insert("_op_schema");
    } else {
        if (!p.schema)
            return "the schema of " + p.op
                + " is not in the operator table, so which arguments auto_functionalized clones and returns is "
                  "not known (inductor would expand it)";
        if (meta)
            for (const Arg& a : meta->items)
                p.cloneNames.insert(a.s);
        for (const SchemaArg& a : p.schema->args) {
            if (!a.writes)
                continue;
            const Arg* value = kwarg(n, a.name);
            if (value && value->kind == Arg::Kind::List)
                return "its mutable argument " + a.name + " is a list, which is not modelled";
            if (value && !isNone(value) && refOf(m_g, *value) < 0)
                return "its mutable argument " + a.name + " is not a node";
            p.mutableArgs.push_back({ a.name, false, isNone(value), {} });
        }
    }
    for (const auto& [k, v] : n.kwargs)
        if (!viewKeys.count(k))
            p.opKwargs.emplace_back(k, v);

    // The node's tuple: (op outputs..., the new values of the bases (v2) / mutable arguments (v1)).
    const size_t values = v2 ? p.bases.size() : p.mutableArgs.size();
    if (p.schema) {
        p.outputs = returnCount(*p.schema);
        p.tuple = returnsTuple(*p.schema) && p.schema->returns != "()";
    } else {
        const size_t tensors = n.outputs.size();
        p.outputs = tensors > values ? int(tensors - values) : 1;
        p.tuple = p.outputs > 1;
        log("the schema of " + p.op + " is not in the operator table: it is taken to return "
            + std::to_string(p.outputs) + " value(s), from the node's " + std::to_string(tensors)
            + " tensor result(s) and " + std::to_string(values) + " base(s)");
    }
    for (int u : n.users) {
        const Node& user = at(u);
        if (!detail::isGetItem(user) || user.args.size() < 2 || user.args[1].kind != Arg::Kind::Int)
            return "its user " + user.name + " is not a getitem with a constant index";
        const int64_t k = user.args[1].i;
        if (k < 0 || k >= int64_t(p.outputs + values))
            return "its user " + user.name + " takes index " + std::to_string(k) + ", outside its "
                + std::to_string(p.outputs + values) + " results";
        if (k < p.outputs && p.schema && p.schema->returns == "()")
            return "its user " + user.name + " takes the op's None result";
        if (!v2 && k >= p.outputs && p.mutableArgs[size_t(k - p.outputs)].none)
            return "its user " + user.name + " takes the None value of " + p.mutableArgs[size_t(k - p.outputs)].name;
    }
    return {};
}

Result<int> Decomposer::add(
    int& before, const std::string& target, std::vector<Arg> args, std::vector<TensorMeta> outputs)
{
    Node n = detail::callNode(m_g, target, std::move(args), {}, std::move(outputs));
    auto r = detail::insertNode(m_g, before, std::move(n));
    if (r)
        ++before;
    return r;
}

// clone_preserve_strides (torch/_prims_common/__init__.py): the storage span the tensor covers as a
// 1-D as_strided view, cloned, then viewed back with the tensor's size, stride and offset.
Result<int> Decomposer::clone(int& before, int base)
{
    const Node b = at(base);
    const std::optional<std::vector<int64_t>> stride
        = b.outputs.size() == 1 ? concreteStrides(b.outputs[0]) : std::nullopt;
    if (!stride) {
        log("the clone of " + b.name + (b.outputs.size() == 1 ? " has symbolic sizes" : " has no tensor metadata")
            + ": inductor's clone_preserve_strides computes its storage span with sym_size arithmetic (as_strided, "
              "clone, as_strided), shown here as one aten.clone.default of the same size");
        return add(before, "aten.clone.default", { Arg::ref(b.name) }, b.outputs);
    }
    const TensorMeta& t = b.outputs[0];
    std::vector<int64_t> size;
    for (const SymExpr& e : t.shape)
        size.push_back(*e.constantValue());
    int64_t needed = t.storageOffset + 1;
    for (size_t i = 0; i < size.size(); ++i)
        needed += (size[i] - 1) * (*stride)[i];
    if (std::find(size.begin(), size.end(), 0) != size.end())
        needed = 0;
    TensorMeta flat = t;
    flat.shape = { SymExpr::constant(needed) };
    flat.stride = { SymExpr::constant(1) };
    flat.storageOffset = 0;
    auto span = add(before, "aten.as_strided.default",
        { Arg::ref(b.name), intList({ needed }), intList({ 1 }), Arg::integer(0) }, { flat });
    if (!span)
        return span;
    TensorMeta copy = flat;
    copy.stride.clear();
    auto buffer = add(before, "aten.clone.default", { Arg::ref(at(*span).name) }, { copy });
    if (!buffer)
        return buffer;
    TensorMeta back = t;
    back.stride = exprs(*stride);
    return add(before, "aten.as_strided.default",
        { Arg::ref(at(*buffer).name), intList(size), intList(*stride), Arg::integer(t.storageOffset) }, { back });
}

// ViewInfo.regenerate_view of one mutable argument (read_view_information_from_args): the base itself,
// aten.alias, aten.as_strided(size, stride, storage_offset) or aten.slice.Tensor(dim, start, end).
Result<Arg> Decomposer::view(int& before, const std::string& prefix, const Node& af, const std::vector<int>& bases)
{
    const Arg* index = kwarg(af, prefix + "_base_index");
    if (isNone(index))
        return Arg {};
    if (index->kind != Arg::Kind::Int || index->i < 0 || size_t(index->i) >= bases.size())
        return makeError(
            ErrorCode::InvalidArgument, af.name + ": " + prefix + "_base_index is not an index of _all_bases");
    const Node base = at(bases[size_t(index->i)]);
    const TensorMeta* bt = base.outputs.size() == 1 ? &base.outputs[0] : nullptr;
    Result<int> r = makeError(ErrorCode::InvalidArgument, "unreachable");
    if (kwarg(af, prefix + "_alias")) {
        r = add(before, "aten.alias.default", { Arg::ref(base.name) }, base.outputs);
    } else if (kwarg(af, prefix + "_storage_offset")) {
        const Arg* size = kwarg(af, prefix + "_size");
        const Arg* stride = kwarg(af, prefix + "_stride");
        const Arg* offset = kwarg(af, prefix + "_storage_offset");
        std::vector<TensorMeta> meta;
        if (bt && ints(size) && ints(stride) && offset->kind == Arg::Kind::Int) {
            TensorMeta t = *bt;
            t.shape = exprs(*ints(size));
            t.stride = exprs(*ints(stride));
            t.storageOffset = offset->i;
            meta.push_back(t);
        }
        r = add(before, "aten.as_strided.default",
            { Arg::ref(base.name), size ? *size : Arg {}, stride ? *stride : Arg {}, *offset }, meta);
    } else if (kwarg(af, prefix + "_slice_dim")) {
        const Arg* dim = kwarg(af, prefix + "_slice_dim");
        const Arg* start = kwarg(af, prefix + "_slice_start");
        const Arg* end = kwarg(af, prefix + "_slice_end");
        std::vector<TensorMeta> meta;
        if (bt && !bt->isSymbolic() && dim->kind == Arg::Kind::Int && start && start->kind == Arg::Kind::Int && end
            && end->kind == Arg::Kind::Int && dim->i >= 0 && size_t(dim->i) < bt->shape.size()) {
            TensorMeta t = *bt;
            const auto stride = concreteStrides(*bt);
            t.shape[size_t(dim->i)] = SymExpr::constant(std::max<int64_t>(0, end->i - start->i));
            t.stride = exprs(*stride);
            t.storageOffset = bt->storageOffset + start->i * (*stride)[size_t(dim->i)];
            meta.push_back(t);
        }
        r = add(before, "aten.slice.Tensor",
            { Arg::ref(base.name), *dim, start ? *start : Arg {}, end ? *end : Arg {} }, meta);
    } else {
        return Arg::ref(base.name);
    }
    if (!r)
        return r.error();
    return Arg::ref(at(*r).name);
}

Result<void> Decomposer::expand(const std::string& name, const Plan& p)
{
    int before = m_g.find(name);
    const Node af = at(before);

    // all_bases_new (v2) / the new mutable arguments (v1): the clones first, in order.
    std::vector<std::string> results; ///< the node's tuple after the op outputs: new bases / new arguments
    std::vector<std::pair<std::string, Arg>> mutableValues;
    if (p.v2) {
        std::vector<int> bases;
        for (size_t i = 0; i < p.bases.size(); ++i) {
            int b = m_g.find(at(p.bases[i]).name);
            if (p.cloneBases.count(int64_t(i))) {
                auto c = clone(before, b);
                if (!c)
                    return c.error();
                b = *c;
            }
            results.push_back(at(b).name);
        }
        for (const std::string& r : results)
            bases.push_back(m_g.find(r));
        for (const MutableArg& m : p.mutableArgs) {
            if (m.none) {
                mutableValues.emplace_back(m.name, Arg {});
                continue;
            }
            std::vector<Arg> items;
            for (const std::string& prefix : m.prefixes) {
                auto v = view(before, prefix, af, bases);
                if (!v)
                    return v.error();
                items.push_back(*v);
            }
            mutableValues.emplace_back(m.name, m.list ? Arg::list(std::move(items)) : items.front());
        }
    } else {
        for (const MutableArg& m : p.mutableArgs) {
            const Arg* value = kwarg(af, m.name);
            if (m.none) {
                mutableValues.emplace_back(m.name, Arg {});
                results.emplace_back();
                continue;
            }
            std::string v = value->s;
            if (p.cloneNames.count(m.name)) {
                auto c = clone(before, m_g.find(v));
                if (!c)
                    return c.error();
                v = at(*c).name;
            }
            mutableValues.emplace_back(m.name, Arg::ref(v));
            results.push_back(v);
        }
    }

    // `_mutable_op(**new_kwargs)`: v1 overwrites the mutable kwargs in place, v2 adds them after the
    // others. The dispatcher hands the traced call its schema's positional arguments by position and
    // leaves out trailing defaults (and keyword-only arguments equal to their default).
    std::vector<std::pair<std::string, Arg>> kwargs = p.opKwargs;
    for (const auto& kv : mutableValues) { // (a structured binding is not captured by C++17 lambdas)
        auto it = std::find_if(kwargs.begin(), kwargs.end(), [&](const auto& e) { return e.first == kv.first; });
        if (it != kwargs.end())
            it->second = kv.second;
        else
            kwargs.emplace_back(kv.first, kv.second);
    }
    std::vector<Arg> args;
    std::vector<std::pair<std::string, Arg>> keywords;
    if (p.schema) {
        std::vector<std::pair<const SchemaArg*, Arg>> positional;
        for (const SchemaArg& a : p.schema->args) {
            auto it = std::find_if(kwargs.begin(), kwargs.end(), [&](const auto& e) { return e.first == a.name; });
            if (it == kwargs.end())
                continue;
            if (a.kwargOnly) {
                if (!isDefault(it->second, a))
                    keywords.emplace_back(a.name, it->second);
            } else {
                positional.emplace_back(&a, it->second);
            }
            kwargs.erase(it);
        }
        while (!positional.empty() && isDefault(positional.back().second, *positional.back().first))
            positional.pop_back();
        for (auto& entry : positional)
            args.push_back(entry.second);
        for (auto& kv : kwargs) // not in the schema: passed on as given
            keywords.push_back(kv);
    } else {
        keywords = kwargs;
        log("the schema of " + p.op + " is not in the operator table: " + af.name
            + "'s op is called with keyword arguments, where PyTorch's dispatcher would pass the positional ones "
              "by position");
    }
    // The node's tensor results are the op's tensor outputs, then the tensor values after them.
    std::vector<TensorMeta> opOutputs;
    const size_t values
        = size_t(std::count_if(results.begin(), results.end(), [](const std::string& r) { return !r.empty(); }));
    for (size_t k = 0; k + values < af.outputs.size(); ++k)
        opOutputs.push_back(af.outputs[k]);
    Node call = detail::callNode(m_g, p.op, std::move(args), std::move(keywords), std::move(opOutputs));
    const std::string opName = call.name;
    if (auto r = detail::insertNode(m_g, before, std::move(call)); !r)
        return r.error();
    ++before;

    // replace_by_example: each getitem user becomes the value at its index; the getitems and the node go.
    std::set<std::string> erase = { af.name };
    // By name: the getitems added below move the users' indices.
    std::vector<std::string> users;
    for (int u : at(m_g.find(af.name)).users)
        users.push_back(at(u).name);
    for (const std::string& userName : users) {
        const Node user = at(m_g.find(userName));
        const int64_t k = user.args[1].i;
        std::string by;
        if (k >= p.outputs) {
            by = results[size_t(k - p.outputs)];
        } else if (!p.tuple) {
            by = opName;
        } else {
            std::vector<TensorMeta> meta = user.outputs;
            auto g = add(before, "operator.getitem", { Arg::ref(opName), Arg::integer(k) }, meta);
            if (!g)
                return g.error();
            by = at(*g).name;
        }
        if (by.empty())
            return makeError(ErrorCode::InvalidArgument, user.name + " takes a None result of " + af.name);
        if (auto r = detail::replaceUses(m_g, user.name, by); !r)
            return r;
        erase.insert(user.name);
    }
    m_report.rewritten.push_back({ af.name, detail::pyTarget(af), p.op });
    return detail::eraseNodes(m_g, erase);
}

Result<void> Decomposer::run()
{
    std::vector<std::string> nodes;
    for (const Node& n : m_g.nodes)
        if (detail::isAutoFunctionalized(n))
            nodes.push_back(n.name);
    for (const std::string& name : nodes) {
        bool v2 = false;
        const int i = m_g.find(name);
        detail::isAutoFunctionalized(at(i), &v2);
        Plan p;
        if (const std::string why = plan(i, v2, p); !why.empty()) {
            leave(at(i), why);
            continue;
        }
        if (auto r = expand(name, p); !r)
            return r;
    }
    return {};
}

} // namespace

Result<PassReport> decomposeAutoFunctionalized(Graph& graph, const config::Options& options)
{
    return detail::runPass(graph, "decompose_auto_functionalized", options.optionName("input_inplace_pass"),
        options.reinplaceInputMutatedOps, [](Graph& g, PassReport& report) -> Result<void> {
            Decomposer d(g, report);
            return d.run();
        });
}

} // namespace engine::passes
