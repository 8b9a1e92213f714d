// Size arithmetic on (possibly symbolic) tensor metadata. (The debug_compare_fx_graphs summary is
// engine/graph/graph_diff.h's compareText, shared with the TORCH_COMPILE_DEBUG stage diffs.)
#include "engine/passes/pass_util.h"

#include <algorithm>
#include <map>

namespace engine::passes {

std::string torchairPassName(const std::string& name)
{
    // _optimize_fx wraps inductor's remove_noop_ops as _optimize_noop_ops, named "optimize_noop_ops".
    return name == "remove_noop_ops" ? "optimize_noop_ops" : name;
}

std::string debugFileName(const std::string& name)
{
    return "aot_forward_graph_after_" + torchairPassName(name) + ".txt";
}

namespace detail {

namespace {

void collect(const SymExpr& e, std::set<std::string>& out)
{
    for (const std::string& s : e.symbols())
        out.insert(s);
}

std::set<std::string> symbolsOf(const TensorMeta& t)
{
    std::set<std::string> out;
    for (const SymExpr& e : t.shape)
        collect(e, out);
    for (const SymExpr& e : t.stride)
        collect(e, out);
    return out;
}

// Evaluates `pred` at every sample assignment of the symbols of `metas`; false when any evaluation fails.
template <typename Pred> bool atAllSamples(const std::set<std::string>& symbols, Pred pred)
{
    for (const SymbolValues& syms : sampleAssignments(symbols))
        if (!pred(syms))
            return false;
    return true;
}

std::optional<int64_t> numelAt(const TensorMeta& t, const SymbolValues& syms)
{
    auto shape = t.concreteShape(syms);
    if (!shape)
        return std::nullopt;
    int64_t n = 1;
    for (int64_t d : *shape)
        n *= d;
    return n;
}

} // namespace

std::vector<SymbolValues> sampleAssignments(const std::set<std::string>& symbols)
{
    // Distinct, largish values per symbol and per sample, so that an identity that holds at all of
    // them is very likely an identity of the expressions (the way sizes are compared here).
    static const int64_t bases[] = { 11, 37, 101 };
    std::vector<SymbolValues> out;
    for (int64_t base : bases) {
        SymbolValues v;
        int64_t j = 0;
        for (const std::string& s : symbols)
            v[s] = base + 2 * j++;
        out.push_back(std::move(v));
        if (symbols.empty())
            break;
    }
    return out;
}

std::optional<SymExpr> sizeArg(const Graph& g, const Arg& a)
{
    if (a.kind == Arg::Kind::Int)
        return SymExpr::constant(a.i);
    if (a.kind == Arg::Kind::Bool)
        return SymExpr::constant(a.b ? 1 : 0);
    const int r = refOf(g, a);
    if (r < 0)
        return std::nullopt;
    const Node& n = g.nodes[size_t(r)];
    if (n.op == NodeOp::Placeholder && n.inputKind == InputKind::SymInt)
        return n.symbol;
    if (targetOf(n) == "aten.sym_size.int" && n.args.size() >= 2 && n.args[1].kind == Arg::Kind::Int) {
        const int src = refOf(g, n.args[0]);
        if (src < 0 || g.nodes[size_t(src)].outputs.empty())
            return std::nullopt;
        const auto& shape = g.nodes[size_t(src)].outputs[0].shape;
        int64_t d = n.args[1].i < 0 ? n.args[1].i + int64_t(shape.size()) : n.args[1].i;
        if (d >= 0 && d < int64_t(shape.size()))
            return shape[size_t(d)];
    }
    return std::nullopt;
}

bool provablyEqual(const SymExpr& a, const SymExpr& b)
{
    if (a.text() == b.text())
        return true;
    std::set<std::string> symbols;
    collect(a, symbols);
    collect(b, symbols);
    return atAllSamples(symbols, [&](const SymbolValues& s) {
        auto x = a.eval(s), y = b.eval(s);
        return x && y && *x == *y;
    });
}

bool provablyAtLeast(const SymExpr& a, const SymExpr& b)
{
    std::set<std::string> symbols;
    collect(a, symbols);
    collect(b, symbols);
    return atAllSamples(symbols, [&](const SymbolValues& s) {
        auto x = a.eval(s), y = b.eval(s);
        return x && y && *x >= *y;
    });
}

bool sameShape(const std::vector<SymExpr>& a, const std::vector<SymExpr>& b)
{
    if (a.size() != b.size())
        return false;
    for (size_t i = 0; i < a.size(); ++i)
        if (!provablyEqual(a[i], b[i]))
            return false;
    return true;
}

std::optional<Layout> layoutAt(const TensorMeta& t, const SymbolValues& syms)
{
    auto shape = t.concreteShape(syms);
    if (!shape)
        return std::nullopt;
    Layout l;
    l.shape = *shape;
    l.offset = t.storageOffset;
    l.stride.assign(l.shape.size(), 1);
    if (t.stride.empty()) {
        int64_t running = 1;
        for (size_t i = l.shape.size(); i-- > 0;) {
            l.stride[i] = running;
            running *= std::max<int64_t>(l.shape[i], 1);
        }
    } else {
        for (size_t i = 0; i < t.stride.size() && i < l.stride.size(); ++i) {
            auto v = t.stride[i].eval(syms);
            if (!v)
                return std::nullopt;
            l.stride[i] = *v;
        }
    }
    return l;
}

bool sameMeta(const TensorMeta& a, const TensorMeta& b)
{
    if (a.dtype != b.dtype || a.device != b.device || a.shape.size() != b.shape.size())
        return false;
    std::set<std::string> symbols = symbolsOf(a);
    for (const std::string& s : symbolsOf(b))
        symbols.insert(s);
    return atAllSamples(symbols, [&](const SymbolValues& s) {
        auto x = layoutAt(a, s), y = layoutAt(b, s);
        return x && y && x->shape == y->shape && x->stride == y->stride;
    });
}

bool sameNumel(const TensorMeta& a, const TensorMeta& b)
{
    std::set<std::string> symbols = symbolsOf(a);
    for (const std::string& s : symbolsOf(b))
        symbols.insert(s);
    return atAllSamples(symbols, [&](const SymbolValues& s) {
        auto x = numelAt(a, s), y = numelAt(b, s);
        return x && y && *x == *y;
    });
}

bool hasInternalOverlap(const TensorMeta& t)
{
    if (t.stride.empty())
        return false;
    for (size_t i = 0; i < t.shape.size() && i < t.stride.size(); ++i) {
        const bool overlapping = atAllSamples(symbolsOf(t), [&](const SymbolValues& s) {
            auto size = t.shape[i].eval(s), stride = t.stride[i].eval(s);
            return size && stride && *size > 1 && *stride == 0;
        });
        if (overlapping)
            return true;
    }
    return false;
}

bool mayOverlap(const TensorMeta& a, const TensorMeta& b)
{
    std::set<std::string> symbols = symbolsOf(a);
    for (const std::string& s : symbolsOf(b))
        symbols.insert(s);
    // Byte ranges [first, last] each view can touch; disjoint at every sample means no overlap.
    auto range = [](const Layout& l, uint64_t item) -> std::optional<std::pair<int64_t, int64_t>> {
        int64_t last = l.offset;
        for (size_t i = 0; i < l.shape.size(); ++i) {
            if (l.shape[i] == 0)
                return std::nullopt;
            last += (l.shape[i] - 1) * l.stride[i];
        }
        return std::make_pair(l.offset * int64_t(item), (last + 1) * int64_t(item) - 1);
    };
    const bool disjoint = atAllSamples(symbols, [&](const SymbolValues& s) {
        auto x = layoutAt(a, s), y = layoutAt(b, s);
        if (!x || !y)
            return false;
        auto rx = range(*x, dtypeSize(a.dtype)), ry = range(*y, dtypeSize(b.dtype));
        return !rx || !ry || rx->second < ry->first || ry->second < rx->first;
    });
    return !disjoint;
}

} // namespace detail

} // namespace engine::passes
