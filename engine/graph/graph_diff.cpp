// diffGraphs and TorchAir's debug_compare_fx_graphs summary (torchair-behavior.md §4.0). The summary
// used to live with the passes (pass_meta.cpp); it is here so that one piece of code prints it for
// our passes and for the stages of a TORCH_COMPILE_DEBUG folder.
#include "engine/graph/graph_diff.h"

#include "engine/core/py_value.h"
#include "engine/core/text_codec.h"
#include "engine/graph/op_info.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <set>
#include <unordered_map>

namespace engine {

namespace {

// ---- Targets as FX prints them ----

std::string targetOf(const Node& n)
{
    if (n.op == NodeOp::Placeholder || n.op == NodeOp::Output)
        return {};
    return canonicalTarget(n.target);
}

// An OpOverload (torch.ops.<ns>.<op>.<overload>), not operator.getitem, a builtin or a higher-order op.
bool isOpOverload(const Node& n)
{
    return n.op == NodeOp::CallFunction && isOpOverloadTarget(n.target);
}

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

// ---- Python-like texts of values ----

// Lists are printed with brackets: the IR does not tell tuples from lists. Nesting is bounded by the
// readers (200 levels); a hand-built graph deeper than that is cut off rather than recursed into.
std::string argTextAt(const Arg& a, int depth)
{
    switch (a.kind) {
    case Arg::Kind::None:
        return "None";
    case Arg::Kind::Bool:
        return a.b ? "True" : "False";
    case Arg::Kind::Int:
        return std::to_string(a.i);
    case Arg::Kind::Float:
        return pyFloatRepr(a.f);
    case Arg::Kind::Str:
        return pyStrRepr(a.s);
    case Arg::Kind::NodeRef:
        return a.s;
    case Arg::Kind::List: {
        if (depth > 256)
            return "[...]";
        std::string s = "[";
        for (size_t i = 0; i < a.items.size(); ++i)
            s += (i ? ", " : "") + argTextAt(a.items[i], depth + 1);
        return s + "]";
    }
    }
    return "None";
}

// A node's positional arguments as Python prints a call's tuple: "(x, 1)", "(x,)", "()".
std::string argsText(const std::vector<Arg>& args)
{
    std::string s = "(";
    for (size_t i = 0; i < args.size(); ++i)
        s += (i ? ", " : "") + argTextAt(args[i], 0);
    return s + (args.size() == 1 ? ",)" : ")");
}

std::string kwargsText(const std::vector<std::pair<std::string, Arg>>& kwargs)
{
    std::string s = "{";
    for (size_t i = 0; i < kwargs.size(); ++i)
        s += (i ? ", " : "") + pyStrRepr(kwargs[i].first) + ": " + argTextAt(kwargs[i].second, 0);
    return s + "}";
}

std::string exprList(const std::vector<SymExpr>& v)
{
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i)
        s += (i ? ", " : "") + v[i].text();
    return s + "]";
}

// The annotation form of the readers: "f32[4, 8][8, 1]npu:0" (no stride brackets when none were
// printed), "+offset" when the storage offset is not 0.
std::string tensorText(const TensorMeta& t, bool withStride, bool withDevice = true)
{
    std::string s = dtypeShortName(t.dtype) + exprList(t.shape);
    if (withStride && !t.stride.empty())
        s += exprList(t.stride);
    if (withDevice)
        s += t.device;
    if (t.storageOffset != 0)
        s += "+" + std::to_string(t.storageOffset);
    return s;
}

std::string metaText(const Node& n, bool withStride, bool withDevice = true)
{
    if (n.outputs.empty()) {
        const auto c = n.symbol.constantValue();
        if (n.inputKind == InputKind::SymInt || !c || *c != 0)
            return "Sym(" + n.symbol.text() + ")";
        return "None";
    }
    if (n.outputs.size() == 1)
        return tensorText(n.outputs[0], withStride, withDevice);
    std::string s = "(";
    for (size_t i = 0; i < n.outputs.size(); ++i)
        s += (i ? ", " : "") + tensorText(n.outputs[i], withStride, withDevice);
    return s + ")";
}

// Devices, like strides, are compared only where both sides printed them (print_readable()
// without include_device prints none: an unknown device is no change).
bool bothHaveDevices(const Node& a, const Node& b)
{
    if (a.outputs.size() != b.outputs.size())
        return true;
    for (size_t i = 0; i < a.outputs.size(); ++i)
        if (a.outputs[i].device.empty() || b.outputs[i].device.empty())
            return false;
    return true;
}

// Strides are compared only where both sides printed them (see the header).
bool bothHaveStrides(const Node& a, const Node& b)
{
    if (a.outputs.size() != b.outputs.size())
        return true;
    for (size_t i = 0; i < a.outputs.size(); ++i)
        if (a.outputs[i].stride.empty() || b.outputs[i].stride.empty())
            return false;
    return true;
}

bool sameArg(const Arg& a, const Arg& b, int depth = 0)
{
    if (a.kind != b.kind)
        return false;
    switch (a.kind) {
    case Arg::Kind::None:
        return true;
    case Arg::Kind::Bool:
        return a.b == b.b;
    case Arg::Kind::Int:
        return a.i == b.i;
    case Arg::Kind::Float:
        return a.f == b.f || (std::isnan(a.f) && std::isnan(b.f));
    case Arg::Kind::Str:
    case Arg::Kind::NodeRef:
        return a.s == b.s;
    case Arg::Kind::List:
        if (a.items.size() != b.items.size())
            return false;
        if (depth > 256)
            return argTextAt(a, depth) == argTextAt(b, depth);
        for (size_t i = 0; i < a.items.size(); ++i)
            if (!sameArg(a.items[i], b.items[i], depth + 1))
                return false;
        return true;
    }
    return false;
}

bool sameArgs(const std::vector<Arg>& a, const std::vector<Arg>& b)
{
    if (a.size() != b.size())
        return false;
    for (size_t i = 0; i < a.size(); ++i)
        if (!sameArg(a[i], b[i]))
            return false;
    return true;
}

bool sameKwargs(const std::vector<std::pair<std::string, Arg>>& a, const std::vector<std::pair<std::string, Arg>>& b)
{
    if (a.size() != b.size())
        return false;
    for (size_t i = 0; i < a.size(); ++i)
        if (a[i].first != b[i].first || !sameArg(a[i].second, b[i].second))
            return false;
    return true;
}

std::vector<FieldChange> compareNodes(const Node& a, const Node& b)
{
    std::vector<FieldChange> out;
    if (a.op != b.op)
        out.push_back({ "op", nodeOpName(a.op), nodeOpName(b.op) });
    if (targetOf(a) != targetOf(b))
        out.push_back({ "target", a.target, b.target });
    if (!sameArgs(a.args, b.args))
        out.push_back({ "args", argsText(a.args), argsText(b.args) });
    if (!sameKwargs(a.kwargs, b.kwargs))
        out.push_back({ "kwargs", kwargsText(a.kwargs), kwargsText(b.kwargs) });
    const bool strides = bothHaveStrides(a, b);
    const bool devices = bothHaveDevices(a, b);
    const std::string ma = metaText(a, strides, devices), mb = metaText(b, strides, devices);
    if (ma != mb)
        out.push_back({ "meta", ma, mb });
    if (a.op == NodeOp::Placeholder && b.op == NodeOp::Placeholder && a.inputKind != b.inputKind)
        out.push_back({ "input kind", inputKindName(a.inputKind), inputKindName(b.inputKind) });
    return out;
}

std::vector<OpCount> counts(const std::map<std::string, int>& before, const std::map<std::string, int>& after)
{
    std::set<std::string> keys;
    for (const auto& kv : before)
        keys.insert(kv.first);
    for (const auto& kv : after)
        keys.insert(kv.first);
    std::vector<OpCount> out;
    for (const std::string& k : keys) {
        auto b = before.find(k), a = after.find(k);
        out.push_back({ k, b == before.end() ? 0 : b->second, a == after.end() ? 0 : a->second });
    }
    return out;
}

// _tabulate(_merge_diff_list(before, after), headers): a "total" row, then one row per key, numbers
// right-aligned, columns two spaces apart, every line indented by four spaces.
std::string tabulate(const std::vector<OpCount>& rowsIn)
{
    std::vector<std::vector<std::string>> rows = { { "name", "cnt(before)", "cnt(after)", "diff" } };
    int sumBefore = 0, sumAfter = 0;
    for (const OpCount& c : rowsIn) {
        sumBefore += c.before;
        sumAfter += c.after;
    }
    rows.push_back(
        { "total", std::to_string(sumBefore), std::to_string(sumAfter), std::to_string(sumAfter - sumBefore) });
    for (const OpCount& c : rowsIn)
        rows.push_back(
            { cutText(c.name), std::to_string(c.before), std::to_string(c.after), std::to_string(c.diff()) });
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

} // namespace

std::string FieldChange::text() const
{
    return field + " " + before + " -> " + after;
}

std::string NodeChange::text() const
{
    std::string s = node + ":";
    for (size_t i = 0; i < changes.size(); ++i)
        s += (i ? "; " : " ") + changes[i].text();
    return s;
}

GraphDiff diffGraphs(const Graph& a, const Graph& b)
{
    GraphDiff d;
    d.nodesBefore = int(a.nodes.size());
    d.nodesAfter = int(b.nodes.size());

    // By name; a graph that is not finalized may repeat a name, and then its first node counts.
    std::unordered_map<std::string, const Node*> inA, inB;
    for (const Node& n : a.nodes)
        inA.emplace(n.name, &n);
    for (const Node& n : b.nodes)
        inB.emplace(n.name, &n);
    for (const Node& n : a.nodes)
        if (!inB.count(n.name))
            d.removed.push_back(n.name);
    for (const Node& n : b.nodes) {
        auto it = inA.find(n.name);
        if (it == inA.end()) {
            d.added.push_back(n.name);
            continue;
        }
        if (inB.at(n.name) != &n)
            continue; // a repeated name: compared once
        std::vector<FieldChange> c = compareNodes(*it->second, n);
        if (!c.empty())
            d.changed.push_back({ n.name, std::move(c) });
    }

    std::map<std::string, int> opsA, opsB, prettyA, prettyB, targetsA, targetsB;
    for (const Node& n : a.nodes) {
        ++opsA[nodeOpName(n.op)];
        ++prettyA[prettyTarget(n)];
        if (n.op != NodeOp::Placeholder && n.op != NodeOp::Output)
            ++targetsA[targetOf(n)];
    }
    for (const Node& n : b.nodes) {
        ++opsB[nodeOpName(n.op)];
        ++prettyB[prettyTarget(n)];
        if (n.op != NodeOp::Placeholder && n.op != NodeOp::Output)
            ++targetsB[targetOf(n)];
    }
    d.operations = counts(opsA, opsB);
    d.targets = counts(prettyA, prettyB);
    for (OpCount& c : counts(targetsA, targetsB))
        if (c.diff() != 0)
            d.targetChanges.push_back(std::move(c));
    return d;
}

namespace {

// The names as pyStrList prints them, each cut (text_codec.h): a table's column is as wide as its
// widest name, so one whole 8 MiB target would pad every row of every pass's log to 8 MiB.
std::string cutList(const std::vector<std::string>& names)
{
    std::vector<std::string> cut;
    cut.reserve(names.size());
    for (const std::string& n : names)
        cut.push_back(cutText(n));
    return pyStrList(cut);
}

} // namespace

std::string compareText(const std::string& passName, const GraphDiff& diff)
{
    return "After fx graph pass(" + passName + ") optimization:\n    before " + std::to_string(diff.nodesBefore)
        + " nodes, after " + std::to_string(diff.nodesAfter) + " nodes,\n    removed nodes: " + cutList(diff.removed)
        + ",\n    added nodes: " + cutList(diff.added) + ",\n    operations statistics:\n " + tabulate(diff.operations)
        + "\n\n    targets statistics:\n " + tabulate(diff.targets);
}

std::string argText(const Arg& a)
{
    return argTextAt(a, 0);
}

} // namespace engine
