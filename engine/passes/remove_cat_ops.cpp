// remove_cat_ops (TA/cat_optimization.py `optimize_cat_with_out_tensor`, §4.4): a cat along dim 0 of
// tensors that ops produce is replaced by one empty buffer whose dim-0 slices those ops write directly
// through their `.out` overloads, which saves the copy into the cat and one buffer's worth of memory.
#include "engine/graph/graph_diff.h"
#include "engine/graph/op_info.h"
#include "engine/passes/pass_util.h"
#include "engine/passes/pipeline.h"

#include <algorithm>

namespace engine::passes {

namespace {

using detail::refOf;

struct Verdict {
    std::string reason; ///< TorchAir's text; empty when the cat can be optimized
    std::string detail; ///< what we add to the report's reason
};

// _validate_cat_node, check by check and in the same order.
Verdict validate(const Graph& g, const Node& cat, const std::set<std::string>& cats)
{
    if (cat.args.empty())
        return { "Missing arguments", {} };
    const Arg& tensors = cat.args[0];
    if (tensors.kind != Arg::Kind::List || tensors.items.size() < 2)
        return { "Need at least 2 tensors", {} };
    Arg dim = Arg::integer(0);
    if (cat.args.size() >= 2)
        dim = cat.args[1];
    else
        for (const auto& [key, value] : cat.kwargs)
            if (key == "dim")
                dim = value;
    // isinstance(dim, int) and dim == 0: a Python bool is an int, so False passes and True does not.
    const bool zero = (dim.kind == Arg::Kind::Int && dim.i == 0) || (dim.kind == Arg::Kind::Bool && !dim.b);
    if (!zero)
        return { "Only supports dim=0, got dim=" + argText(dim), {} };
    if (cat.outputs.empty())
        return { "Missing output metadata", {} };
    for (size_t i = 0; i < tensors.items.size(); ++i) {
        const std::string idx = std::to_string(i);
        const int r = refOf(g, tensors.items[i]);
        if (r < 0 || g.nodes[size_t(r)].op != NodeOp::CallFunction)
            return { "Input " + idx + " is not a function call node", {} };
        const Node& input = g.nodes[size_t(r)];
        if (input.outputs.empty())
            return { "Input " + idx + " missing metadata", {} };
        const OutLookup out = outVariant(input.target);
        if (out.out.empty())
            return { "Input " + idx + " op " + detail::pyTarget(input) + " has no .out variant",
                out.known ? std::string() : " (op not in the operator table)" };
        for (int u : input.users)
            if (g.nodes[size_t(u)].name != cat.name && cats.count(g.nodes[size_t(u)].name))
                return { "Input " + idx + " is shared with another cat node", {} };
        if (i > 0) {
            const auto& prev = g.nodes[size_t(refOf(g, tensors.items[i - 1]))].outputs[0].shape;
            const auto& cur = input.outputs[0].shape;
            if (prev.size() != cur.size())
                return { "Incompatible tensor ranks", {} };
            for (size_t d = 1; d < cur.size(); ++d)
                if (!detail::provablyEqual(prev[d], cur[d]))
                    return { "Shape mismatch on non-concat dimensions", {} };
        }
    }
    return {};
}

/// A size as an argument of the new nodes: an int, or the SymInt placeholder carrying its symbol
/// (construct_fx_node_shape). Compound expressions, which TorchAir turns into operator nodes, are not modelled.
std::optional<Arg> sizeAsArg(const SymExpr& e, const std::map<std::string, std::string>& symInputs, std::string& why)
{
    if (auto c = e.constantValue())
        return Arg::integer(*c);
    if (auto s = e.singleSymbol()) {
        auto it = symInputs.find(*s);
        if (it != symInputs.end())
            return Arg::ref(it->second);
        why = "Unexpected sym output shape " + e.text() + " which is not in all sym inputs dict of the graph "
            + "(TorchAir raises RuntimeError here)";
        return std::nullopt;
    }
    why = "aclgraph-inspector: the size " + e.text() + " is a compound expression, which is not modelled";
    return std::nullopt;
}

Result<void> rewrite(
    Graph& g, const std::string& catName, const std::optional<std::string>& label, PassReport& report, std::string& why)
{
    const Node cat = g.nodes[size_t(g.find(catName))];
    std::vector<std::string> inputs;
    for (const Arg& a : cat.args[0].items)
        inputs.push_back(a.s);
    const TensorMeta outMeta = cat.outputs[0];

    std::map<std::string, std::string> symInputs; // symbol -> SymInt placeholder (only for a symbolic cat)
    if (outMeta.isSymbolic())
        for (const Node& n : g.nodes)
            if (n.op == NodeOp::Placeholder && n.inputKind == InputKind::SymInt)
                if (auto s = n.symbol.singleSymbol())
                    symInputs.emplace(*s, n.name);
    std::vector<Arg> shape;
    for (const SymExpr& e : outMeta.shape) {
        auto a = sizeAsArg(e, symInputs, why);
        if (!a)
            return {};
        shape.push_back(*a);
    }
    std::vector<Arg> sizes;
    for (const std::string& name : inputs) {
        const SymExpr& size = g.nodes[size_t(g.find(name))].outputs[0].shape.at(0);
        if (!size.constantValue() && symInputs.empty()) {
            why = "aclgraph-inspector: the dim-0 size " + size.text()
                + " of an input is symbolic and the cat's own shape is not; TorchAir leaves the cat silently";
            return {};
        }
        auto a = sizeAsArg(size, symInputs, why);
        if (!a)
            return {};
        sizes.push_back(*a);
    }

    std::string first = inputs[0];
    for (const std::string& name : inputs)
        if (g.find(name) < g.find(first))
            first = name;
    auto insertBefore = [&](const std::string& anchor, Node n) -> Result<std::string> {
        std::string name = n.name;
        auto r = detail::insertNode(g, g.find(anchor), std::move(n));
        if (!r)
            return r.error();
        return name;
    };
    if (label) {
        Node enter = detail::callNode(g, "air.scope_enter.default",
            { Arg::list({ detail::strArg("_user_stream_label") }), Arg::list({ detail::strArg(*label) }) });
        if (auto r = insertBefore(first, std::move(enter)); !r)
            return r.error();
    }
    // The cat's own device (TorchAir passes cat's meta device); a file that printed none leaves it
    // unknown, shown as device=None rather than made up.
    Node empty = detail::callNode(g, "aten.empty.memory_format", { Arg::list(shape) },
        { { "dtype", detail::strArg(detail::torchDType(outMeta.dtype)) },
            { "device", outMeta.device.empty() ? Arg() : detail::strArg(outMeta.device) },
            { "pin_memory", detail::boolArg(false) }, { "memory_format", Arg() } },
        { outMeta });
    auto emptyName = insertBefore(first, std::move(empty));
    if (!emptyName)
        return emptyName.error();
    if (label)
        if (auto r = insertBefore(first, detail::callNode(g, "air.scope_exit.default", {})); !r)
            return r.error();

    // Offsets: constants while they can be, else operator.add nodes chained after the buffer.
    std::vector<Arg> offsets = { Arg::integer(0) };
    std::string lastOffset = *emptyName;
    for (size_t i = 1; i < inputs.size(); ++i) {
        const Arg& prev = offsets.back();
        const Arg& size = sizes[i - 1];
        if (prev.kind == Arg::Kind::Int && size.kind == Arg::Kind::Int) {
            offsets.push_back(Arg::integer(prev.i + size.i));
            continue;
        }
        Node add = detail::callNode(g, "operator.add", { prev, size });
        const std::string name = add.name;
        if (auto r = detail::insertNode(g, g.find(lastOffset) + 1, std::move(add)); !r)
            return r.error();
        offsets.push_back(Arg::ref(name));
        lastOffset = name;
    }

    std::vector<std::pair<std::string, std::string>> replacement;
    for (size_t i = 0; i < inputs.size(); ++i) {
        const Node input = g.nodes[size_t(g.find(inputs[i]))];
        Arg end;
        if (offsets[i].kind == Arg::Kind::Int && sizes[i].kind == Arg::Kind::Int) {
            end = Arg::integer(offsets[i].i + sizes[i].i);
        } else {
            auto add = insertBefore(inputs[i], detail::callNode(g, "operator.add", { offsets[i], sizes[i] }));
            if (!add)
                return add.error();
            end = Arg::ref(*add);
        }
        // TorchAir leaves the slice without metadata; the simulator wants one (a view of the buffer).
        TensorMeta sliceMeta = input.outputs[0];
        sliceMeta.stride.clear();
        sliceMeta.storageOffset = 0;
        if (offsets[i].kind == Arg::Kind::Int) {
            int64_t row = 1;
            bool constant = true;
            for (size_t d = 1; d < outMeta.shape.size(); ++d) {
                auto v = outMeta.shape[d].constantValue();
                constant = constant && v.has_value();
                row *= v.value_or(1);
            }
            if (constant)
                sliceMeta.storageOffset = offsets[i].i * row;
        }
        auto slice = insertBefore(inputs[i],
            detail::callNode(
                g, "aten.slice.Tensor", { Arg::ref(*emptyName), Arg::integer(0), offsets[i], end }, {}, { sliceMeta }));
        if (!slice)
            return slice.error();
        const std::string out = outVariant(input.target).out;
        Node outNode = detail::callNode(g, out, input.args, input.kwargs, input.outputs);
        outNode.kwargs.emplace_back("out", Arg::ref(*slice));
        outNode.workspaceBytes = input.workspaceBytes;
        outNode.provenance = input.provenance;
        auto outName = insertBefore(inputs[i], std::move(outNode));
        if (!outName)
            return outName.error();
        replacement.emplace_back(inputs[i], *outName);
        report.rewritten.push_back({ inputs[i], detail::targetOf(input), out });
    }
    for (const auto& [old, fresh] : replacement)
        if (auto r = detail::replaceUses(g, old, fresh); !r)
            return r;
    if (auto r = detail::replaceUses(g, catName, *emptyName); !r)
        return r;
    report.rewritten.push_back({ catName, "aten.cat.default", "aten.empty.memory_format" });
    std::vector<std::string> dead;
    for (const auto& [old, fresh] : replacement)
        dead.push_back(old);
    dead.push_back(catName);
    for (auto it = dead.rbegin(); it != dead.rend(); ++it) {
        const int idx = g.find(*it);
        if (idx >= 0 && g.nodes[size_t(idx)].users.empty())
            if (auto r = detail::eraseNodes(g, { *it }); !r)
                return r;
    }
    return {};
}

} // namespace

Result<PassReport> removeCatOps(Graph& graph, const config::Options& options)
{
    return detail::runPass(graph, "remove_cat_ops", options.optionName("remove_cat_ops"), options.removeCatOps,
        [](Graph& g, PassReport& report) -> Result<void> {
            std::vector<std::string> cats;
            for (const Node& n : g.nodes)
                if (n.op == NodeOp::CallFunction && detail::targetOf(n) == "aten.cat.default")
                    cats.push_back(n.name);
            if (cats.empty())
                return {};
            const auto labels = detail::streamLabels(g);
            std::map<std::string, std::optional<std::string>> labelOf;
            for (size_t i = 0; i < g.nodes.size(); ++i)
                labelOf[g.nodes[i].name] = labels[i];
            report.log.push_back("End to add stream labels to all FX nodes in graph " + g.id);
            report.log.push_back("[remove_cat_ops] Found " + std::to_string(cats.size()) + " cat node(s)");

            std::set<std::string> catSet(cats.begin(), cats.end());
            int optimized = 0;
            for (const std::string& name : cats) {
                const Verdict v = validate(g, g.nodes[size_t(g.find(name))], catSet);
                if (!v.reason.empty()) {
                    report.log.push_back("Skip " + name + ": " + v.reason);
                    report.skipped.push_back({ name, v.reason + v.detail });
                    continue;
                }
                const size_t n = g.nodes[size_t(g.find(name))].args[0].items.size();
                report.log.push_back("Optimizing " + name + " (" + std::to_string(n) + " inputs)");
                std::string why;
                if (auto r = rewrite(g, name, labelOf[name], report, why); !r)
                    return r;
                if (!why.empty()) {
                    report.skipped.push_back({ name, why });
                    continue;
                }
                catSet.erase(name);
                ++optimized;
            }
            if (optimized > 0)
                report.log.push_back("remove_cat_ops: Optimized " + std::to_string(optimized) + " cat node(s)");
            return {};
        });
}

} // namespace engine::passes
