// apply_pattern_passes: the fusions around npu_add_rms_norm (TA = python/torchair, NX =
// npugraph_ex/npugraph_ex; the two copies are the same but for skip_duplicates):
//  * TA/patterns/add_rms_norm_dynamic_quant.py `_register_addrmsnormdynamicquant_pattern` (traced
//    search_fn: npu_add_rms_norm -> getitem 0 -> npu_dynamic_quant, four forms: with or without
//    epsilon, with or without xOut) and `_register_addrmsnormdynamicquant_pattern2` (the explicit
//    `_build_search_pattern`: y.flatten(0, 1) -> npu_dynamic_quant -> scale.view(-1, 1), with the
//    extra check `_check_view_shape`): both become npu_add_rms_norm_dynamic_quant(output_mask=[True, False]);
//  * TA/patterns/add_rms_norm_cast.py: npu_add_rms_norm -> [view(-1, h)] -> _to_copy / _npu_dtype_cast
//    to float32 becomes npu_add_rms_norm_cast (eight forms, `_pattern_extra_check` on the view ones);
//  * TA/patterns/add_rms_norm_quant.py: npu_add_rms_norm -> npu_quantize(axis=-1, div_mode=True)
//    becomes npu_add_rms_norm_quant (four forms, `_pattern_extra_check`).
// Each matcher follows the node sequence the pattern stands for (for the traced ones: what fwd_only
// records, the getitem nodes of multi-output ops included), with inductor's rules for arguments and
// users (pattern_common.h).
#include "engine/passes/pattern_common.h"

namespace engine::passes::pattern {

namespace {

using detail::refOf;

const char* const kNorm = "npu.npu_add_rms_norm.default";
const char* const kDynQuant = "npu.npu_dynamic_quant.default";
const char* const kView = "aten.view.default";
const char* const kToCopy = "aten._to_copy.default";
const char* const kDTypeCast = "npu._npu_dtype_cast.default";
const char* const kQuantize = "npu.npu_quantize.default";
const char* const kFusedDynQuant = "npu.npu_add_rms_norm_dynamic_quant.default";
const char* const kFusedCast = "npu.npu_add_rms_norm_cast.default";
const char* const kFusedQuant = "npu.npu_add_rms_norm_quant.default";
constexpr double kDefaultEpsilon = 1e-06; // npu_add_rms_norm's and the fused ops' schema default

int source(const Graph& g, int node)
{
    if (node < 0 || g.nodes[size_t(node)].args.empty())
        return -1;
    return refOf(g, g.nodes[size_t(node)].args[0]);
}

bool isTarget(const Graph& g, int node, const char* target)
{
    return node >= 0 && detail::isCallFunction(g.nodes[size_t(node)])
        && detail::targetOf(g.nodes[size_t(node)]) == target;
}

bool isGetItemOf(const Graph& g, int node, const char* sourceTarget, int64_t index)
{
    if (node < 0 || !detail::isGetItem(g.nodes[size_t(node)]))
        return false;
    const Node& n = g.nodes[size_t(node)];
    return n.args.size() == 2 && n.args[1].kind == Arg::Kind::Int && n.args[1].i == index
        && isTarget(g, source(g, node), sourceTarget);
}

/// MultiOutputPattern._match_from_anchors for `getitem(<source>, index)`: the first user of the
/// matched source that is that getitem.
int anchorGetItem(const Graph& g, int src, int64_t index)
{
    for (int u : g.nodes[size_t(src)].users) {
        const Node& n = g.nodes[size_t(u)];
        if (detail::isGetItem(n) && n.args.size() == 2 && refOf(g, n.args[0]) == src && n.args[1].kind == Arg::Kind::Int
            && n.args[1].i == index)
            return u;
    }
    return -1;
}

/// The npu_add_rms_norm node of a pattern: x1, x2, gamma (and epsilon) as KeywordArgs.
bool matchNorm(Matcher& M, int norm, bool epsilon, int users, Match& m)
{
    if (!M.call(norm, kNorm, epsilon ? 4 : 3, users, "npu_add_rms_norm"))
        return false;
    M.matched();
    const Node& n = M.graph().nodes[size_t(norm)];
    m.kwargs["x1"] = n.args[0];
    m.kwargs["x2"] = n.args[1];
    m.kwargs["gamma"] = n.args[2];
    if (epsilon)
        m.kwargs["epsilon"] = n.args[3];
    return true;
}

/// fwd_only drops an argument equal to its schema default, so `epsilon=1e-06` never reaches the graph.
void epsilonKwarg(const Match& m, std::vector<std::pair<std::string, Arg>>& kwargs)
{
    auto it = m.kwargs.find("epsilon");
    if (it != m.kwargs.end() && !isFloat(it->second, kDefaultEpsilon))
        kwargs.emplace_back("epsilon", it->second);
}

/// A re-traced search_fn_with_epsilon drops an epsilon of 1e-06 (its default) and then has 3
/// positional arguments, which a node giving 4 does not match.
std::string epsilonRecheck(const Match& m)
{
    auto it = m.kwargs.find("epsilon");
    if (it != m.kwargs.end() && isFloat(it->second, kDefaultEpsilon))
        return "aclgraph-inspector: epsilon is 1e-06, npu_add_rms_norm's default: the pattern re-traced with it "
               "(register_replacement's check_fn) has 3 positional arguments and no longer matches the node's 4";
    return {};
}

TensorMeta tensor(const TensorMeta& like, DType dtype, std::vector<SymExpr> shape)
{
    TensorMeta t;
    t.shape = std::move(shape);
    t.dtype = dtype;
    t.device = like.device;
    return t;
}

std::vector<SymExpr> withoutLast(const std::vector<SymExpr>& s)
{
    return s.empty() ? s : std::vector<SymExpr>(s.begin(), s.end() - 1);
}

/// The fused ops' results as op-plugin's meta functions give them (op_plugin/python/meta/_meta_registrations.py
/// npu_add_rms_norm_dynamic_quant_meta, npu_add_rms_norm_cast_meta, npu_add_rms_norm_quant); none
/// when x1 has no metadata.
std::vector<TensorMeta> fusedOutputs(const Graph& g, const Match& m, const std::string& fused)
{
    const TensorMeta* x1 = metaOf(g, m.kwargs.at("x1"));
    if (!x1)
        return {};
    const auto& s = x1->shape;
    if (fused == kFusedDynQuant) // output_mask=[True, False]: y2 and scale2 are empty
        return { tensor(*x1, DType::I8, s), tensor(*x1, DType::I8, { SymExpr::constant(0) }), tensor(*x1, x1->dtype, s),
            tensor(*x1, DType::F32, withoutLast(s)), tensor(*x1, DType::F32, { SymExpr::constant(0) }) };
    if (fused == kFusedCast) {
        const TensorMeta* gamma = metaOf(g, m.kwargs.at("gamma"));
        const size_t gammaDims = gamma ? gamma->shape.size() : 1;
        std::vector<SymExpr> rstd;
        for (size_t i = 0; i < s.size(); ++i)
            rstd.push_back(i + gammaDims < s.size() ? s[i] : SymExpr::constant(1));
        return { tensor(*x1, DType::F32, s), tensor(*x1, x1->dtype, s), tensor(*x1, DType::F32, rstd),
            tensor(*x1, x1->dtype, s) };
    }
    return { tensor(*x1, DType::I8, s), tensor(*x1, DType::I8, s), tensor(*x1, x1->dtype, s) };
}

NewNode getItem(int of, int64_t index, const std::vector<TensorMeta>& fused)
{
    NewNode n { "operator.getitem", { Arg::ref("$" + std::to_string(of)), Arg::integer(index) }, {}, {} };
    if (size_t(index) < fused.size())
        n.outputs.push_back(fused[size_t(index)]);
    return n;
}

std::vector<TensorMeta> outputsOf(const Graph& g, int node)
{
    return g.nodes[size_t(node)].outputs;
}

Arg ref(const Match& m, const char* name)
{
    return m.kwargs.at(name);
}

// ---- add_rms_norm_dynamic_quant.py ----

struct DynQuantForm {
    bool epsilon, xout;
    const char* name;
};

Entry dynamicQuantEntry(const DynQuantForm f)
{
    Entry e;
    e.name = std::string("addrmsnormdynamicquant ") + f.name;
    e.rootTarget = "operator.getitem";
    e.fusedTarget = kFusedDynQuant;
    e.candidate = [](const Graph& g, int root) { return isGetItemOf(g, root, kDynQuant, 0); };
    e.match = [f](const Graph& g, int root, Attempt& fail) -> std::optional<Match> {
        Matcher M(g);
        Match m;
        const int dq = source(g, root);
        M.getitem(root, dq, 0, -1, "yOut = getitem(npu_dynamic_quant, 0)");
        M.matched();
        M.call(dq, kDynQuant, 1, 2, "npu_dynamic_quant", { "smooth_scales" });
        m.kwargs["smooth_scales"] = M.kwarg("smooth_scales");
        M.matched();
        const int y = M.input(dq, 0, "y");
        const int norm = source(g, y);
        if (M.getitem(y, norm, 0, 1, "y = getitem(npu_add_rms_norm, 0)"))
            M.matched();
        if (M.ok())
            matchNorm(M, norm, f.epsilon, f.xout ? 2 : 1, m);
        int xout = -1, scale = -1;
        if (M.ok() && f.xout && (xout = anchorGetItem(g, norm, 2)) < 0)
            M.fail("aclgraph-inspector: no getitem(npu_add_rms_norm, 2) (xOut) among the users of "
                + g.nodes[size_t(norm)].name);
        if (M.ok() && (scale = anchorGetItem(g, dq, 1)) < 0)
            M.fail("aclgraph-inspector: no getitem(npu_dynamic_quant, 1) (scale1Out) among the users of "
                + g.nodes[size_t(dq)].name);
        if (!M.ok()) {
            fail = M.attempt();
            return std::nullopt;
        }
        m.nodes = { norm, y, dq, root };
        m.outputs = { root };
        if (f.xout) {
            m.nodes.push_back(xout);
            m.outputs.push_back(xout);
        }
        m.nodes.push_back(scale);
        m.outputs.push_back(scale);
        return m;
    };
    e.recheck = [](const Graph&, const Match& m) { return epsilonRecheck(m); };
    e.replacement = [f](const Graph& g, const Match& m, std::vector<std::string>&,
                        std::string&) -> std::optional<std::pair<std::vector<NewNode>, std::vector<int>>> {
        std::vector<std::pair<std::string, Arg>> kwargs;
        if (m.kwargs.at("smooth_scales").kind != Arg::Kind::None)
            kwargs.emplace_back("smooth_scale1", m.kwargs.at("smooth_scales"));
        epsilonKwarg(m, kwargs);
        kwargs.emplace_back("output_mask", Arg::list({ detail::boolArg(true), detail::boolArg(false) }));
        const auto metas = fusedOutputs(g, m, kFusedDynQuant);
        std::vector<NewNode> nodes { { kFusedDynQuant, { ref(m, "x1"), ref(m, "x2"), ref(m, "gamma") }, kwargs,
            metas } };
        nodes.push_back(getItem(0, 0, metas));
        if (f.xout)
            nodes.push_back(getItem(0, 2, metas));
        nodes.push_back(getItem(0, 3, metas));
        return std::make_pair(nodes, f.xout ? std::vector<int> { 1, 2, 3 } : std::vector<int> { 1, 2 });
    };
    return e;
}

/// `_check_view_shape` (add_rms_norm_dynamic_quant.py lines 15-66).
bool checkViewShape(const Graph& g, const Match& m, std::vector<std::string>& log, std::string& why)
{
    int view = -1, y = -1;
    Arg x1;
    for (int n : m.nodes) {
        const Node& node = g.nodes[size_t(n)];
        if (isTarget(g, n, kNorm) && !node.args.empty())
            x1 = node.args[0];
        else if (detail::isGetItem(node) && node.args.size() >= 2) {
            if (isTarget(g, source(g, n), kNorm) && node.args[1].kind == Arg::Kind::Int && node.args[1].i == 0)
                y = n;
        } else if (isTarget(g, n, kView) && node.args.size() >= 2 && y >= 0 && source(g, n) == y)
            view = n;
    }
    auto refuse = [&](const std::string& line) {
        log.push_back(line);
        why = line;
        return false;
    };
    if (view < 0 || x1.kind == Arg::Kind::None || y < 0)
        return refuse("Extra check failed for addrmsnormdynamicquant, view_node or x1_node or y_node is none.");
    const TensorMeta* x1Meta = metaOf(g, x1);
    const TensorMeta* yMeta = metaOf(g, y);
    const size_t x1Dim = x1Meta ? x1Meta->shape.size() : 0;
    const size_t yDim = yMeta ? yMeta->shape.size() : 0;
    if (x1Dim != yDim)
        return refuse("Extra check failed for addrmsnormdynamicquant, x1_dim is not equals to y_dim.");
    const Arg& size = g.nodes[size_t(view)].args[1];
    if (size.kind != Arg::Kind::List)
        return refuse("Extra check failed for addrmsnormdynamicquant, view_node args is not list or tuple.");
    bool match = int64_t(size.items.size()) == int64_t(x1Dim) - 1;
    if (size.items.empty()) {
        log.push_back("aclgraph-inspector: the view's size list is empty: TorchAir's view_size[0] raises IndexError "
                      "here; the match is refused");
        match = false;
    } else if (size.items[0].kind == Arg::Kind::NodeRef) {
        match = size.items[0].s.rfind("mul", 0) == 0 && match;
    } else if (yDim >= 2) {
        const SymExpr& a = yMeta->shape[0];
        const SymExpr& b = yMeta->shape[1];
        bool equal = false;
        if (size.items[0].kind == Arg::Kind::Int) {
            if (a.constantValue() && b.constantValue())
                equal = size.items[0].i == *a.constantValue() * *b.constantValue();
            else if (auto prod = SymExpr::parse("(" + a.text() + ")*(" + b.text() + ")"); prod.ok()) {
                equal = detail::provablyEqual(SymExpr::constant(size.items[0].i), *prod);
                if (!equal)
                    log.push_back("aclgraph-inspector: view_size[0] == y_shape[0] * y_shape[1] compares "
                        + std::to_string(size.items[0].i) + " with " + a.text() + "*" + b.text()
                        + "; TorchAir decides on the symbols' hint values, which the graph does not give: taken as "
                          "False");
            }
        }
        match = equal && match;
    }
    log.push_back(std::string("End extra check for addrmsnormdynamicquant: ") + (match ? "True" : "False") + ". ");
    if (!match)
        why = log.back();
    return match;
}

Entry dynamicQuantEntry2(bool epsilon)
{
    Entry e;
    e.name = epsilon ? "addrmsnormdynamicquant2 search_fn_with_epsilon" : "addrmsnormdynamicquant2 search_fn";
    e.rootTarget = "operator.getitem";
    e.fusedTarget = kFusedDynQuant;
    e.candidate = [](const Graph& g, int root) { return isGetItemOf(g, root, kDynQuant, 0); };
    e.match = [epsilon](const Graph& g, int root, Attempt& fail) -> std::optional<Match> {
        Matcher M(g);
        Match m;
        const int dq = source(g, root);
        M.getitem(root, dq, 0, -1, "getitem(npu_dynamic_quant, 0)");
        M.matched();
        M.call(dq, kDynQuant, 1, 2, "npu_dynamic_quant");
        M.matched();
        const int view = M.input(dq, 0, "view(y, ...)");
        if (M.call(view, kView, 2, 1, "view(getitem(npu_add_rms_norm, 0), ...)"))
            M.matched();
        const int y = M.input(view, 0, "y");
        const int norm = source(g, y);
        if (M.getitem(y, norm, 0, 1, "getitem(npu_add_rms_norm, 0)"))
            M.matched();
        if (M.ok())
            matchNorm(M, norm, epsilon, 2, m);
        // view(getitem(npu_dynamic_quant, 1), [-1, 1]), from the anchors: getitem users of the dynamic
        // quant, then their view users.
        int scale = -1, scaleView = -1;
        if (M.ok()) {
            for (int u : g.nodes[size_t(dq)].users) {
                if (!detail::isGetItem(g.nodes[size_t(u)]) || scaleView >= 0)
                    continue;
                for (int w : g.nodes[size_t(u)].users) {
                    Matcher T(g);
                    if (!T.call(w, kView, 2, -1, "view") || !T.getitem(u, dq, 1, 1, "getitem(npu_dynamic_quant, 1)"))
                        continue;
                    const Arg& s = g.nodes[size_t(w)].args[1];
                    if (s.kind == Arg::Kind::List && s.items.size() == 2 && s.items[0].kind == Arg::Kind::Int
                        && s.items[0].i == -1 && s.items[1].kind == Arg::Kind::Int && s.items[1].i == 1) {
                        scale = u;
                        scaleView = w;
                        break;
                    }
                }
            }
            if (scaleView < 0)
                M.fail("aclgraph-inspector: no view(getitem(npu_dynamic_quant, 1), [-1, 1]) with a single-use getitem "
                       "among the users of "
                    + g.nodes[size_t(dq)].name);
        }
        int xout = -1;
        if (M.ok() && (xout = anchorGetItem(g, norm, 2)) < 0)
            M.fail("aclgraph-inspector: no getitem(npu_add_rms_norm, 2) (xOut) among the users of "
                + g.nodes[size_t(norm)].name);
        if (!M.ok()) {
            fail = M.attempt();
            return std::nullopt;
        }
        m.nodes = { norm, y, view, dq, root, scale, scaleView, xout };
        m.outputs = { root, scaleView, xout };
        return m;
    };
    e.extra = checkViewShape;
    e.replacement = [](const Graph& g, const Match& m, std::vector<std::string>& notes,
                        std::string&) -> std::optional<std::pair<std::vector<NewNode>, std::vector<int>>> {
        std::vector<std::pair<std::string, Arg>> kwargs;
        epsilonKwarg(m, kwargs);
        kwargs.emplace_back("output_mask", Arg::list({ detail::boolArg(true), detail::boolArg(false) }));
        const auto metas = fusedOutputs(g, m, kFusedDynQuant);
        std::vector<NewNode> nodes { { kFusedDynQuant, { ref(m, "x1"), ref(m, "x2"), ref(m, "gamma") }, kwargs,
            metas } };
        nodes.push_back(getItem(0, 0, metas));
        nodes.push_back(getItem(0, 2, metas));
        nodes.push_back(getItem(0, 3, metas));
        // yOut.flatten(0, 1): a view to y's shape with the first two dimensions merged.
        const int oldView = m.nodes[2];
        Arg sizes;
        const TensorMeta* x1 = metaOf(g, m.kwargs.at("x1"));
        bool constant = x1 && x1->shape.size() >= 2;
        for (size_t i = 0; constant && i < x1->shape.size(); ++i)
            constant = x1->shape[i].constantValue().has_value();
        if (constant) {
            std::vector<Arg> items { Arg::integer(*x1->shape[0].constantValue() * *x1->shape[1].constantValue()) };
            for (size_t i = 2; i < x1->shape.size(); ++i)
                items.push_back(Arg::integer(*x1->shape[i].constantValue()));
            sizes = Arg::list(items);
        } else {
            sizes = g.nodes[size_t(oldView)].args[1];
            notes.push_back(
                "aclgraph-inspector: y's sizes are symbolic (or unknown); TorchAir traces yOut.flatten(0, 1) "
                "again, here the new view reuses the size list of "
                + g.nodes[size_t(oldView)].name + " (" + pyValue(sizes) + "), which _check_view_shape accepted");
        }
        nodes.push_back({ kView, { Arg::ref("$1"), sizes }, {}, outputsOf(g, m.outputs[0]) });
        nodes.push_back({ kView, { Arg::ref("$3"), Arg::list({ Arg::integer(-1), Arg::integer(1) }) }, {},
            outputsOf(g, m.outputs[1]) });
        return std::make_pair(nodes, std::vector<int> { 4, 5, 2 });
    };
    return e;
}

// ---- add_rms_norm_cast.py ----

struct CastForm {
    bool atenCopy, view, epsilon;
};

/// `_pattern_extra_check` (add_rms_norm_cast.py lines 15-50).
bool castExtraCheck(const Graph& g, const Match& m, std::vector<std::string>& log, std::string& why)
{
    int view = -1;
    Arg x1;
    for (int n : m.nodes) {
        if (isTarget(g, n, kView))
            view = n;
        else if (isTarget(g, n, kNorm) && !g.nodes[size_t(n)].args.empty())
            x1 = g.nodes[size_t(n)].args[0];
    }
    auto refuse = [&](const std::string& line) {
        log.push_back(line);
        why = line;
        return false;
    };
    if (view < 0 || x1.kind == Arg::Kind::None)
        return refuse("Extra check failed for addrmsnormcast, view_node or x1_node is none.");
    const Arg& size = g.nodes[size_t(view)].args[1];
    if (size.kind != Arg::Kind::List)
        return refuse("Extra check failed for addrmsnormcast, view_node args is not list or tuple.");
    std::string lastDim = "None";
    if (const TensorMeta* t = metaOf(g, x1); t && !t->shape.empty())
        lastDim = t->shape.back().text();
    const Arg& h = size.items.at(1);
    std::string value;
    bool truthy = true;
    if (h.kind == Arg::Kind::NodeRef) {
        auto v = detail::sizeArg(g, h);
        value = v ? v->text() : h.s; // a node without meta['val'] compares as itself (its name)
        truthy = !v || v->text() != "0";
    } else {
        value = pyValue(h);
        truthy = !(h.kind == Arg::Kind::None || (h.kind == Arg::Kind::Int && h.i == 0)
            || (h.kind == Arg::Kind::Bool && !h.b) || (h.kind == Arg::Kind::Float && h.f == 0.0));
    }
    if (truthy && value == lastDim)
        return true;
    why = "aclgraph-inspector: the view's size is [-1, " + value + "] and x1's last dimension is " + lastDim
        + " (_pattern_extra_check returns False without a log)";
    return false;
}

Entry castEntry(const CastForm f)
{
    Entry e;
    e.name = std::string("addrmsnormcast ") + (f.atenCopy ? "_to_copy" : "_npu_dtype_cast")
        + (f.view ? " with view" : "") + (f.epsilon ? " with epsilon" : "");
    e.rootTarget = "operator.getitem";
    e.fusedTarget = kFusedCast;
    e.candidate = [](const Graph& g, int root) { return isGetItemOf(g, root, kNorm, 0); };
    const char* castTarget = f.atenCopy ? kToCopy : kDTypeCast;
    e.match = [f, castTarget](const Graph& g, int root, Attempt& fail) -> std::optional<Match> {
        Matcher M(g);
        Match m;
        const int norm = source(g, root);
        if (M.getitem(root, norm, 0, -1, "y = getitem(npu_add_rms_norm, 0)"))
            M.matched();
        if (M.ok())
            matchNorm(M, norm, f.epsilon, 2, m);
        int xout = -1;
        if (M.ok() && (xout = anchorGetItem(g, norm, 2)) < 0)
            M.fail("aclgraph-inspector: no getitem(npu_add_rms_norm, 2) (xOut) among the users of "
                + g.nodes[size_t(norm)].name);
        // The cast, from the anchors: (view users of y, then) their cast users.
        int view = -1, cast = -1;
        auto castOf = [&](int c, int input) {
            Matcher T(g);
            if (f.atenCopy) {
                if (!T.call(c, castTarget, 1, -1, "_to_copy", { "dtype" }))
                    return false;
                const Arg d = T.kwarg("dtype");
                if (d.kind != Arg::Kind::Str || parseDType(d.s) != DType::F32)
                    return false;
            } else {
                if (!T.call(c, castTarget, 2, -1, "_npu_dtype_cast"))
                    return false;
                const Arg& d = g.nodes[size_t(c)].args[1];
                if (d.kind != Arg::Kind::Str || parseDType(d.s) != DType::F32)
                    return false;
            }
            return source(g, c) == input;
        };
        if (M.ok()) {
            for (int u : g.nodes[size_t(root)].users) {
                if (cast >= 0)
                    break;
                if (!f.view) {
                    if (castOf(u, root))
                        cast = u;
                    continue;
                }
                Matcher T(g);
                if (!T.call(u, kView, 2, 1, "view") || source(g, u) != root)
                    continue;
                const Arg& s = g.nodes[size_t(u)].args[1];
                if (s.kind != Arg::Kind::List || s.items.size() != 2 || s.items[0].kind != Arg::Kind::Int
                    || s.items[0].i != -1)
                    continue;
                for (int c : g.nodes[size_t(u)].users)
                    if (cast < 0 && castOf(c, u)) {
                        view = u;
                        cast = c;
                    }
            }
            if (cast < 0)
                M.fail(std::string("aclgraph-inspector: no ") + (f.view ? "view(y, [-1, h]) used only by a " : "")
                    + (f.atenCopy ? "_to_copy(dtype=torch.float32)" : "_npu_dtype_cast(torch.float32)") + " of "
                    + g.nodes[size_t(root)].name);
        }
        if (!M.ok()) {
            fail = M.attempt();
            return std::nullopt;
        }
        m.nodes = { norm, root, xout };
        if (view >= 0)
            m.nodes.push_back(view);
        m.nodes.push_back(cast);
        m.outputs = { root, xout, cast };
        return m;
    };
    if (f.view)
        e.extra = castExtraCheck;
    e.replacement = [f](const Graph& g, const Match& m, std::vector<std::string>& notes,
                        std::string&) -> std::optional<std::pair<std::vector<NewNode>, std::vector<int>>> {
        std::vector<Arg> args { ref(m, "x1"), ref(m, "x2"), ref(m, "gamma") };
        if (auto it = m.kwargs.find("epsilon"); it != m.kwargs.end() && !isFloat(it->second, kDefaultEpsilon))
            args.push_back(it->second);
        const auto metas = fusedOutputs(g, m, kFusedCast);
        std::vector<NewNode> nodes { { kFusedCast, args, {}, metas } };
        nodes.push_back(getItem(0, 0, metas)); // y_cast
        nodes.push_back(getItem(0, 1, metas)); // y
        nodes.push_back(getItem(0, 3, metas)); // xOut
        if (!f.view)
            return std::make_pair(nodes, std::vector<int> { 2, 3, 1 });
        // y_cast.view(-1, y.size(-1))
        const TensorMeta* x1 = metaOf(g, m.kwargs.at("x1"));
        Arg h;
        if (x1 && !x1->shape.empty() && x1->shape.back().constantValue()) {
            h = Arg::integer(*x1->shape.back().constantValue());
        } else {
            const int oldView = m.nodes[3];
            h = g.nodes[size_t(oldView)].args[1].items[1];
            notes.push_back("aclgraph-inspector: y's last dimension is symbolic (or unknown); TorchAir traces "
                            "y.size(-1) again, here the new view reuses "
                + pyValue(h) + " from " + g.nodes[size_t(oldView)].name + ", which _pattern_extra_check accepted");
        }
        nodes.push_back(
            { kView, { Arg::ref("$1"), Arg::list({ Arg::integer(-1), h }) }, {}, outputsOf(g, m.outputs[2]) });
        return std::make_pair(nodes, std::vector<int> { 2, 3, 4 });
    };
    return e;
}

// ---- add_rms_norm_quant.py ----

/// `_pattern_extra_check` (add_rms_norm_quant.py lines 15-63).
bool quantExtraCheck(const Graph& g, const Match& m, std::vector<std::string>& log, std::string& why)
{
    auto refuse = [&](const std::string& line) {
        log.push_back(line);
        why = line;
        return false;
    };
    const TensorMeta* gamma = nullptr;
    const TensorMeta* scales = nullptr;
    for (int n : m.nodes) {
        const Node& node = g.nodes[size_t(n)];
        if (isTarget(g, n, kQuantize)) {
            scales = metaOf(g, node.args[1]);
            if (node.args[2].kind != Arg::Kind::None) {
                const TensorMeta* zp = metaOf(g, node.args[2]);
                if (zp && (zp->dtype == DType::U8 || zp->dtype == DType::I8))
                    return refuse(
                        "Zero_points dtype mismatch in pattern match for npu_add_rms_norm_quant fusion pass.");
            }
            const Arg& d = node.args[3];
            const bool int8
                = (d.kind == Arg::Kind::Int && (d.i == 1 || d.i == 12)) || (d.kind == Arg::Kind::Bool && d.b);
            if (!int8)
                return refuse("Output dtype mismatch in pattern match for npu_add_rms_norm_quant fusion pass.");
        } else if (isTarget(g, n, kNorm)) {
            const TensorMeta* x0 = metaOf(g, node.args[0]);
            const TensorMeta* x1 = metaOf(g, node.args[1]);
            gamma = metaOf(g, node.args[2]);
            if (!x0 || !x1
                || !((x0->dtype == DType::F16 && x1->dtype == DType::F16)
                    || (x0->dtype == DType::BF16 && x1->dtype == DType::BF16)))
                return refuse("Input x dtype mismatch in pattern match for npu_add_rms_norm_quant fusion pass.");
            if (x1->shape.empty()) {
                why = "aclgraph-inspector: x2 is a 0-dimensional tensor (_pattern_extra_check returns False without a "
                      "log)";
                return false;
            }
            const auto last = x1->shape.back().constantValue();
            if (!last || (*last * int64_t(dtypeSize(x1->dtype))) % 32 != 0)
                return refuse(
                    "Input size detected in pattern match for npu_add_rms_norm_quant fusion pass. Fusion is not "
                    "supported because the input of the npu_add_rms_norm_quant must be divisible by 32 bytes.");
        }
    }
    bool same = gamma && scales && gamma->shape.size() == scales->shape.size();
    for (size_t i = 0; same && i < gamma->shape.size(); ++i)
        same = detail::provablyEqual(gamma->shape[i], scales->shape[i]);
    if (!same)
        return refuse(
            "Gamma, zero_points or scales shape mismatch in pattern match for npu_add_rms_norm_quant fusion pass.");
    return true;
}

struct QuantForm {
    bool traced, epsilon;
    const char* name;
};

Entry quantEntry(const QuantForm f)
{
    Entry e;
    e.name = std::string("addrmsnormquant ") + f.name;
    e.rootTarget = kQuantize;
    e.fusedTarget = kFusedQuant;
    e.candidate = [](const Graph& g, int root) { return isTarget(g, root, kQuantize); };
    e.match = [f](const Graph& g, int root, Attempt& fail) -> std::optional<Match> {
        Matcher M(g);
        Match m;
        // npu_quantize(y, scales, zero_points, dtype, -1): the traced forms record zero_points and
        // dtype positionally and drop div_mode=True (its default); div_mode=False is a sixth argument.
        if (M.call(root, kQuantize, 5, -1, "npu_quantize"))
            M.matched();
        const int y = M.input(root, 0, "y");
        const int norm = source(g, y);
        if (M.getitem(y, norm, 0, 1, "y = getitem(npu_add_rms_norm, 0)"))
            M.matched();
        if (M.ok())
            matchNorm(M, norm, f.epsilon, f.traced ? 2 : 1, m);
        const Arg* axis = M.ok() ? &g.nodes[size_t(root)].args[4] : nullptr;
        // The explicit pattern has the literal -1; the traced one Ignored() (checked again by recheck).
        if (axis && !f.traced && !(axis->kind == Arg::Kind::Int && axis->i == -1))
            M.fail("aclgraph-inspector: npu_quantize's axis is " + pyValue(*axis) + ", the pattern's is -1");
        int xout = -1;
        if (M.ok() && f.traced && (xout = anchorGetItem(g, norm, 2)) < 0)
            M.fail("aclgraph-inspector: no getitem(npu_add_rms_norm, 2) (x_out) among the users of "
                + g.nodes[size_t(norm)].name);
        if (!M.ok()) {
            fail = M.attempt();
            return std::nullopt;
        }
        const Node& q = g.nodes[size_t(root)];
        m.kwargs["scales"] = q.args[1];
        m.kwargs["zero_points"] = q.args[2];
        m.kwargs["dtype"] = q.args[3];
        m.nodes = { norm, y, root };
        m.outputs = { root };
        if (f.traced) {
            m.nodes.push_back(xout);
            m.outputs.push_back(xout);
        }
        return m;
    };
    e.recheck = [f](const Graph& g, const Match& m) -> std::string {
        if (f.traced) {
            const Arg& axis = g.nodes[size_t(m.outputs[0])].args[4];
            if (!(axis.kind == Arg::Kind::Int && axis.i == -1))
                return "aclgraph-inspector: npu_quantize's axis is " + pyValue(axis)
                    + "; the pattern re-traced with the node's values (register_replacement's check_fn) has axis=-1";
        }
        return f.traced ? epsilonRecheck(m) : std::string();
    };
    e.extra = quantExtraCheck;
    e.replacement = [f](const Graph& g, const Match& m, std::vector<std::string>&,
                        std::string&) -> std::optional<std::pair<std::vector<NewNode>, std::vector<int>>> {
        std::vector<std::pair<std::string, Arg>> kwargs; // axis=-1 is the default and is dropped
        epsilonKwarg(m, kwargs);
        const auto metas = fusedOutputs(g, m, kFusedQuant);
        std::vector<NewNode> nodes { { kFusedQuant,
            { ref(m, "x1"), ref(m, "x2"), ref(m, "gamma"), ref(m, "scales"), ref(m, "zero_points") }, kwargs, metas } };
        nodes.push_back(getItem(0, 0, metas));
        if (!f.traced)
            return std::make_pair(nodes, std::vector<int> { 1 });
        nodes.push_back(getItem(0, 2, metas));
        return std::make_pair(nodes, std::vector<int> { 1, 2 });
    };
    return e;
}

} // namespace

std::vector<Entry> dynamicQuantEntries()
{
    return {
        dynamicQuantEntry({ false, true, "search_fn" }),
        dynamicQuantEntry({ true, true, "search_fn_with_epsilon" }),
        dynamicQuantEntry({ false, false, "search_fn_no_xout" }),
        dynamicQuantEntry({ true, false, "search_fn_no_xout_with_epsilon" }),
        dynamicQuantEntry2(false),
        dynamicQuantEntry2(true),
    };
}

std::vector<Entry> castEntries()
{
    std::vector<Entry> entries;
    for (bool atenCopy : { true, false }) {
        entries.push_back(castEntry({ atenCopy, true, false }));
        entries.push_back(castEntry({ atenCopy, true, true }));
        entries.push_back(castEntry({ atenCopy, false, false }));
        entries.push_back(castEntry({ atenCopy, false, true }));
    }
    return entries;
}

std::vector<Entry> quantEntries()
{
    return {
        quantEntry({ true, false, "_register_addrmsnormquant_pattern_default" }),
        quantEntry({ true, true, "_register_addrmsnormquant_pattern" }),
        quantEntry({ false, false, "_register_addrmsnormquant_pattern_no_xout search_fn_no_xout" }),
        quantEntry({ false, true, "_register_addrmsnormquant_pattern_no_xout search_fn_no_xout_with_epsilon" }),
    };
}

} // namespace engine::passes::pattern
