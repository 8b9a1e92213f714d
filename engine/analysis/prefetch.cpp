#include "engine/analysis/prefetch.h"

#include "engine/graph/op_info.h"

#include <algorithm>
#include <optional>
#include <sstream>

namespace engine::analysis {

namespace {

const char* const kModeNote
    = "in reduce-overhead mode TorchAir has no special handling: the prefetch is captured like any other kernel";

bool isCall(const Node& n)
{
    return n.op == NodeOp::CallFunction || n.op == NodeOp::CallMethod;
}

bool isPrefetch(const Node& n)
{
    // classifyOp strips "torch.ops." and reduces "npu.npu_prefetch.default", "torch_npu.npu_prefetch"
    // and a bare "npu_prefetch" to the same packet, so one comparison covers every spelling.
    return isCall(n) && classifyOp(n.target).packet == "npu_prefetch";
}

// Nodes that only relabel memory or compute host values: they read no bytes of the weight, so they
// neither consume a prefetch nor launch work that could hide one.
bool launchesNoKernel(const Node& n)
{
    auto effect = classifyOp(n.target).effect;
    return effect == OpInfo::Effect::View || effect == OpInfo::Effect::GetItem || effect == OpInfo::Effect::NoTensor;
}

// A NodeRef's index; the index finalize() stored is trusted only while it still names the node.
int refIndex(const Graph& g, const Arg& a)
{
    if (a.kind != Arg::Kind::NodeRef)
        return -1;
    if (a.node >= 0 && size_t(a.node) < g.nodes.size() && g.nodes[size_t(a.node)].name == a.s)
        return a.node;
    return g.find(a.s);
}

const Arg* kwarg(const Node& n, std::initializer_list<const char*> names)
{
    for (const auto& [key, value] : n.kwargs) {
        for (const char* name : names) {
            if (key == name)
                return &value;
        }
    }
    return nullptr;
}

// Argument `pos` of the schema npu_prefetch(self, dependency, max_size, offset=0), positional or by name.
const Arg* prefetchArg(const Node& n, size_t pos, std::initializer_list<const char*> names)
{
    if (pos < n.args.size())
        return &n.args[pos];
    return kwarg(n, names);
}

// The node whose storage node `i` shares (views, getitem of a view op such as split, in-place ops),
// or -1 when `i` owns its storage.
int aliasSource(const Graph& g, int i)
{
    const Node& n = g.nodes[size_t(i)];
    if (!isCall(n) || n.args.empty())
        return -1;
    OpInfo info = classifyOp(n.target);
    switch (info.effect) {
    case OpInfo::Effect::View:
        return refIndex(g, n.args[0]);
    case OpInfo::Effect::GetItem: {
        int producer = refIndex(g, n.args[0]);
        if (producer >= 0 && classifyOp(g.nodes[size_t(producer)].target).effect == OpInfo::Effect::View)
            return producer;
        return -1; // an element of an allocating multi-output op: its own storage
    }
    case OpInfo::Effect::InPlace: {
        bool outVariant = info.overload == "out"
            || (info.overload.size() > 4 && info.overload.rfind("_out") == info.overload.size() - 4);
        if (outVariant) {
            const Arg* out = kwarg(n, { "out" });
            return out ? refIndex(g, *out) : -1;
        }
        return refIndex(g, n.args[0]);
    }
    default:
        return -1;
    }
}

bool mentions(const Graph& g, const Arg& a, const std::vector<bool>& set)
{
    if (a.kind == Arg::Kind::List)
        return std::any_of(a.items.begin(), a.items.end(), [&](const Arg& item) { return mentions(g, item, set); });
    int idx = refIndex(g, a);
    return idx >= 0 && set[size_t(idx)];
}

bool usesAny(const Graph& g, const Node& n, const std::vector<bool>& set)
{
    return std::any_of(n.args.begin(), n.args.end(), [&](const Arg& a) { return mentions(g, a, set); })
        || std::any_of(n.kwargs.begin(), n.kwargs.end(), [&](const auto& kw) { return mentions(g, kw.second, set); });
}

// The weight and everything that is the same memory seen through it: the views (and in-place
// results) it was derived from, back to the storage's owner, and every view derived from it. Sibling
// views of the owner are left out: they may cover bytes other than the prefetched ones.
std::vector<bool> weightAliases(const Graph& g, int weight)
{
    std::vector<bool> set(g.nodes.size(), false);
    for (int i = weight; i >= 0 && !set[size_t(i)]; i = aliasSource(g, i))
        set[size_t(i)] = true;
    // Sources come before their views in FX order, so one forward pass closes the set.
    for (size_t i = size_t(weight) + 1; i < g.nodes.size(); ++i) {
        int src = aliasSource(g, int(i));
        if (src >= 0 && (src == weight || (src > weight && set[size_t(src)])))
            set[i] = true;
    }
    return set;
}

std::string argText(const Graph& g, const Arg& a)
{
    switch (a.kind) {
    case Arg::Kind::None:
        return "None";
    case Arg::Kind::Int:
        return std::to_string(a.i);
    case Arg::Kind::Float: {
        std::ostringstream s;
        s << a.f;
        return s.str();
    }
    case Arg::Kind::Bool:
        return a.b ? "True" : "False";
    case Arg::Kind::Str:
        return "'" + a.s + "'";
    case Arg::Kind::NodeRef: {
        // A SymInt placeholder prints as its symbol, as the SymInt would in Python.
        int idx = refIndex(g, a);
        if (idx >= 0 && g.nodes[size_t(idx)].op == NodeOp::Placeholder
            && g.nodes[size_t(idx)].inputKind == InputKind::SymInt)
            return g.nodes[size_t(idx)].symbol.text();
        return a.s;
    }
    case Arg::Kind::List: {
        std::string s = "[";
        for (size_t i = 0; i < a.items.size(); ++i)
            s += (i ? ", " : "") + argText(g, a.items[i]);
        return s + "]";
    }
    }
    return "?";
}

/// An int argument: its text as Python would print it, its value when one is known, and whether
/// the graph holds it as a constant.
struct IntArg {
    std::string text;
    std::optional<int64_t> value;
    bool constant = false;
};

IntArg readInt(const Graph& g, const Arg& a, const SymbolValues& symbols)
{
    IntArg r;
    r.text = argText(g, a);
    if (a.kind == Arg::Kind::Int) {
        r.value = a.i;
        r.constant = true;
        return r;
    }
    int idx = refIndex(g, a);
    if (idx >= 0 && g.nodes[size_t(idx)].op == NodeOp::Placeholder
        && g.nodes[size_t(idx)].inputKind == InputKind::SymInt) {
        auto v = g.nodes[size_t(idx)].symbol.eval(symbols);
        if (v)
            r.value = v.value();
    }
    return r;
}

uint64_t saturatingAdd(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/// Where a prefetch's bytes sit in L2, in node indices: after `start` up to and including `end`.
struct Residency {
    int start = 0;
    int end = 0;
};

PrefetchFinding analyzeOne(const Graph& g, int p, uint64_t l2Bytes, const SymbolValues& symbols, Residency& residency)
{
    const Node& n = g.nodes[size_t(p)];
    PrefetchFinding f;
    f.node = n.name;

    // Arguments. Errors are collected in TorchAir's order (max_size, offset, dependency), then ours.
    std::vector<std::string> ours;
    const Arg* weightArg = prefetchArg(n, 0, { "self", "input" });
    const Arg* dependencyArg = prefetchArg(n, 1, { "dependency" });
    const Arg* maxSizeArg = prefetchArg(n, 2, { "max_size" });
    const Arg* offsetArg = prefetchArg(n, 3, { "offset" });

    int weight = weightArg ? refIndex(g, *weightArg) : -1;
    if (!weightArg)
        ours.push_back("input is missing: npu_prefetch(input, dependency, max_size, offset=0) requires it");
    else if (weight < 0)
        ours.push_back("input must be a tensor node, but got " + argText(g, *weightArg));
    else
        f.weight = g.nodes[size_t(weight)].name;

    int dependency = -1;
    bool dependencyNone = !dependencyArg || dependencyArg->kind == Arg::Kind::None;
    if (!dependencyNone) {
        dependency = refIndex(g, *dependencyArg);
        if (dependency >= 0)
            f.dependency = g.nodes[size_t(dependency)].name;
        else
            ours.push_back("dependency must be a tensor node or None, but got " + argText(g, *dependencyArg));
    }

    IntArg maxSize;
    if (maxSizeArg) {
        maxSize = readInt(g, *maxSizeArg, symbols);
    } else {
        maxSize.text = "None";
        ours.push_back("max_size is missing: npu_prefetch(input, dependency, max_size, offset=0) requires it");
    }
    IntArg offset { "0", int64_t(0), true };
    if (offsetArg)
        offset = readInt(g, *offsetArg, symbols);
    for (auto [name, arg, value] :
        { std::make_tuple("max_size", maxSizeArg, &maxSize), std::make_tuple("offset", offsetArg, &offset) }) {
        if (!arg || value->constant)
            continue;
        // The schema types these as `int`, not `SymInt`: Dynamo specializes them, so a traced graph holds a number.
        ours.push_back(std::string(name) + " must be a constant int, but got " + value->text
            + " (npu_prefetch's schema takes int, not SymInt)");
        if (value->value)
            f.notes.push_back(std::string(name) + " " + value->text + " is " + std::to_string(*value->value)
                + " with the given symbols");
    }
    f.maxSize = maxSize.value.value_or(0);
    f.offset = offset.value.value_or(0);

    // TorchAir's GE converter (conveter_npu_prefetch_default), texts exact. The offset message prints
    // max_size: a bug in TorchAir, kept so that the text matches what users see.
    if (maxSize.value && *maxSize.value <= 0)
        f.errors.push_back("max_size should be greater than zero, but got " + maxSize.text);
    if (offset.value && *offset.value < 0) {
        f.errors.push_back("offset should be nonnegative, but got " + maxSize.text);
        f.notes.push_back("TorchAir's offset message prints max_size, not the offset (a bug in its GE converter); "
                          "the text is kept as TorchAir prints it");
    }
    if (dependencyNone) {
        f.errors.push_back("torch.ops.npu.npu_prefetch.default ge converter is not implement when dependency is None.");
        f.notes.push_back("dependency is None: allowed in single-op mode, refused by TorchAir's graph mode "
                          "(max-autotune); the window is undefined");
    }
    if (f.errors.size() > 1)
        f.notes.push_back("TorchAir raises only the first of these errors");

    // Weight size and the bytes that move.
    if (weight >= 0) {
        const Node& w = g.nodes[size_t(weight)];
        if (w.outputs.size() == 1) {
            auto bytes = w.outputs[0].storageBytes(symbols);
            if (bytes) {
                f.weightBytes = bytes.value();
                f.weightBytesKnown = true;
            } else {
                f.notes.push_back("the size of weight '" + f.weight + "' is unknown (" + bytes.error().message
                    + "): max_size is taken as the bytes moved, unclamped");
            }
        } else {
            f.notes.push_back("weight '" + f.weight + "' has " + std::to_string(w.outputs.size())
                + " tensor results, not one: its size is unknown, so max_size is taken as the bytes moved, unclamped");
        }
    }
    bool refused = (maxSize.value && *maxSize.value <= 0) || (offset.value && *offset.value < 0) || !maxSize.value;
    if (f.weightBytesKnown && offset.value && *offset.value >= 0 && uint64_t(*offset.value) >= f.weightBytes
        && (*offset.value > 0 || f.weightBytes > 0)) {
        ours.push_back("offset " + std::to_string(*offset.value) + " is outside weight " + f.weight + " of "
            + std::to_string(f.weightBytes) + " bytes");
        refused = true;
    }
    if (!refused && f.weight.size()) {
        uint64_t want = uint64_t(*maxSize.value);
        uint64_t start = uint64_t(offset.value.value_or(0));
        if (!f.weightBytesKnown) {
            f.bytesMoved = want;
        } else if (f.weightBytes == 0) {
            f.notes.push_back("weight '" + f.weight + "' is empty: nothing to prefetch");
        } else {
            uint64_t available = f.weightBytes - start;
            f.bytesMoved = std::min(want, available);
            if (want > available && start == 0)
                f.notes.push_back("max_size " + maxSize.text + " is larger than the weight ("
                    + std::to_string(f.weightBytes) + " bytes): clamped, as torch_npu does");
            else if (want > available)
                f.notes.push_back("max_size " + maxSize.text + " is larger than the " + std::to_string(available)
                    + " bytes of the weight past offset " + std::to_string(start) + " (of "
                    + std::to_string(f.weightBytes) + " bytes): clamped, as torch_npu does");
        }
    }
    f.errors.insert(f.errors.end(), ours.begin(), ours.end());

    // The first consumer and the window.
    int consumer = -1;
    if (weight >= 0) {
        std::vector<bool> aliases = weightAliases(g, weight);
        for (size_t i = size_t(p) + 1; i < g.nodes.size() && consumer < 0; ++i) {
            const Node& c = g.nodes[i];
            if (isCall(c) && !launchesNoKernel(c) && !isPrefetch(c) && usesAny(g, c, aliases))
                consumer = int(i);
        }
        if (consumer >= 0)
            f.firstConsumer = g.nodes[size_t(consumer)].name;
        else
            f.notes.push_back(
                "nothing after the prefetch reads '" + f.weight + "': the prefetched bytes are not used in this graph");
    }
    if (dependency >= 0 && consumer >= 0) {
        f.windowNodes = 0;
        f.windowKernels = 0;
        for (int i = dependency + 1; i < consumer; ++i) {
            const Node& c = g.nodes[size_t(i)];
            if (i == p || !isCall(c))
                continue;
            ++f.windowNodes;
            f.windowKernels += launchesNoKernel(c) ? 0 : 1;
        }
        if (f.windowKernels == 0)
            f.notes.push_back("no kernel runs between dependency '" + f.dependency + "' and '" + f.firstConsumer
                + "': nothing can hide the prefetch");
    }

    f.exceedsL2 = f.bytesMoved > l2Bytes;
    if (f.exceedsL2)
        f.notes.push_back("moves " + std::to_string(f.bytesMoved) + " bytes, more than the L2 cache holds ("
            + std::to_string(l2Bytes) + " bytes)");
    f.notes.push_back(kModeNote);

    // Bytes land after the dependency (or when the prefetch is issued) and must stay until read; with no
    // reader they still take L2 space, up to the graph's end.
    residency.start = dependency >= 0 ? dependency : p;
    residency.end = consumer >= 0 ? consumer : int(g.nodes.size()) - 1;
    return f;
}

} // namespace

PrefetchReport analyzePrefetches(const Graph& graph, uint64_t l2Bytes, const SymbolValues& symbols)
{
    PrefetchReport report;
    report.l2Bytes = l2Bytes;
    std::vector<Residency> residencies;
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
        if (!isPrefetch(graph.nodes[i]))
            continue;
        Residency r;
        report.prefetches.push_back(analyzeOne(graph, int(i), l2Bytes, symbols, r));
        residencies.push_back(r);
    }

    // Residency overlap: the peak of bytes held at once over each prefetch's residency, rather than the
    // sum of everything it touches, so that a chain A-B-C where A and C never coexist is not summed.
    for (size_t a = 0; a < report.prefetches.size(); ++a) {
        PrefetchFinding& f = report.prefetches[a];
        if (f.bytesMoved == 0)
            continue;
        for (size_t b = 0; b < report.prefetches.size(); ++b) {
            if (b != a && report.prefetches[b].bytesMoved > 0
                && std::max(residencies[a].start, residencies[b].start)
                    < std::min(residencies[a].end, residencies[b].end))
                f.overlapsWith.push_back(report.prefetches[b].node);
        }
        for (int q = residencies[a].start + 1; q <= residencies[a].end; ++q) {
            uint64_t held = 0;
            for (size_t b = 0; b < report.prefetches.size(); ++b) {
                if (residencies[b].start < q && q <= residencies[b].end)
                    held = saturatingAdd(held, report.prefetches[b].bytesMoved);
            }
            f.overlapBytes = std::max(f.overlapBytes, held);
        }
        f.overlapExceedsL2 = !f.overlapsWith.empty() && f.overlapBytes > l2Bytes;
        if (f.overlapExceedsL2) {
            std::string others;
            for (const auto& o : f.overlapsWith)
                others += (others.empty() ? "" : ", ") + o;
            f.notes.push_back("prefetches live at the same time as " + others + " hold up to "
                + std::to_string(f.overlapBytes) + " bytes together, more than the L2 cache holds ("
                + std::to_string(l2Bytes) + " bytes)");
        }
        report.peakOverlapBytes = std::max(report.peakOverlapBytes, f.overlapBytes);
    }

    for (const auto& f : report.prefetches) {
        if (!f.dependency.empty())
            report.edges.push_back({ f.dependency, f.node, "dependency" });
        if (!f.firstConsumer.empty())
            report.edges.push_back({ f.node, f.firstConsumer, "prefetches" });
        else if (!f.weight.empty())
            report.edges.push_back({ f.node, f.weight, "prefetches" });
    }
    return report;
}

} // namespace engine::analysis
