// Size arithmetic on (possibly symbolic) tensor metadata, and the debug_compare_fx_graphs summary.
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

namespace {

// _pretty_print_target: the placeholder's name, "output", "torch.ops.aten.add.Tensor", "operator.getitem".
std::string prettyTarget(const Node& n)
{
    if (n.op == NodeOp::Placeholder)
        return n.name;
    if (n.op == NodeOp::Output)
        return "output";
    if (isOpOverload(n))
        return "torch.ops." + targetOf(n);
    return targetOf(n);
}

const char* opName(NodeOp op)
{
    switch (op) {
    case NodeOp::Placeholder:
        return "placeholder";
    case NodeOp::CallFunction:
        return "call_function";
    case NodeOp::CallMethod:
        return "call_method";
    case NodeOp::GetAttr:
        return "get_attr";
    case NodeOp::Output:
        return "output";
    default:
        return "call_module";
    }
}

// _tabulate(_merge_diff_list(before, after), headers): a "total" row, then one row per key. Python
// walks a set of keys (no fixed order); here they are sorted so that the text is reproducible.
std::string tabulate(const std::map<std::string, int>& before, const std::map<std::string, int>& after)
{
    std::vector<std::vector<std::string>> rows = { { "name", "cnt(before)", "cnt(after)", "diff" } };
    int sumBefore = 0, sumAfter = 0;
    for (const auto& [k, v] : before)
        sumBefore += v;
    for (const auto& [k, v] : after)
        sumAfter += v;
    rows.push_back(
        { "total", std::to_string(sumBefore), std::to_string(sumAfter), std::to_string(sumAfter - sumBefore) });
    std::set<std::string> keys;
    for (const auto& [k, v] : before)
        keys.insert(k);
    for (const auto& [k, v] : after)
        keys.insert(k);
    for (const std::string& k : keys) {
        const int b = before.count(k) ? before.at(k) : 0;
        const int a = after.count(k) ? after.at(k) : 0;
        rows.push_back({ k, std::to_string(b), std::to_string(a), std::to_string(a - b) });
    }
    std::vector<size_t> widths(4, 2);
    for (const auto& row : rows)
        for (size_t i = 0; i < 4; ++i)
            widths[i] = std::max(widths[i], row[i].size());
    auto line = [&](const std::vector<std::string>& cells) {
        std::string s = "    ";
        for (size_t i = 0; i < 4; ++i) {
            const std::string pad(widths[i] - cells[i].size(), ' ');
            s += (i ? "  " : "") + (i == 0 ? cells[i] + pad : pad + cells[i]);
        }
        return s;
    };
    std::string out = line(rows[0]) + "\n";
    std::vector<std::string> dashes;
    for (size_t w : widths)
        dashes.push_back(std::string(w, '-'));
    out += line(dashes);
    for (size_t r = 1; r < rows.size(); ++r)
        out += "\n" + line(rows[r]);
    return out;
}

std::string pyStrList(const std::vector<std::string>& names)
{
    std::string s = "[";
    for (size_t i = 0; i < names.size(); ++i)
        s += (i ? ", '" : "'") + names[i] + "'";
    return s + "]";
}

} // namespace

std::string compareSummary(const std::string& passName, const Graph& before, const Graph& after)
{
    std::map<std::string, int> opsBefore, opsAfter, targetsBefore, targetsAfter;
    std::set<std::string> namesBefore, namesAfter;
    for (const Node& n : before.nodes) {
        ++opsBefore[opName(n.op)];
        ++targetsBefore[prettyTarget(n)];
        namesBefore.insert(n.name);
    }
    for (const Node& n : after.nodes) {
        ++opsAfter[opName(n.op)];
        ++targetsAfter[prettyTarget(n)];
        namesAfter.insert(n.name);
    }
    std::vector<std::string> removed, added;
    for (const Node& n : before.nodes)
        if (!namesAfter.count(n.name))
            removed.push_back(n.name);
    for (const Node& n : after.nodes)
        if (!namesBefore.count(n.name))
            added.push_back(n.name);
    // The "cost <t>s," line is left out, as TorchAir leaves it out when the time is 0: there is no time here.
    return "After fx graph pass(" + passName + ") optimization:\n    before " + std::to_string(before.nodes.size())
        + " nodes, after " + std::to_string(after.nodes.size()) + " nodes,\n    removed nodes: " + pyStrList(removed)
        + ",\n    added nodes: " + pyStrList(added) + ",\n    operations statistics:\n " + tabulate(opsBefore, opsAfter)
        + "\n\n    targets statistics:\n " + tabulate(targetsBefore, targetsAfter);
}

} // namespace detail

} // namespace engine::passes
