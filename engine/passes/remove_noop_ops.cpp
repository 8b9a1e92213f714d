// remove_noop_ops (inductor's torch._inductor.fx_passes.post_grad.remove_noop_ops, wrapped by TorchAir as
// optimize_noop_ops, §4.3). A node whose op is in inductor's no-op registry is replaced by its source
// when the two have the same metadata (same_meta) and the op's condition holds, unless that would make
// a graph output alias a graph input (or another output) that it did not alias before.
#include "engine/graph/op_info.h"
#include "engine/passes/pass_util.h"
#include "engine/passes/pipeline.h"

#include <limits>

namespace engine::passes {

namespace {

using detail::refOf;

/// The argument at position `i`, or the keyword `name`, or nullopt.
std::optional<Arg> argAt(const Node& n, size_t i, const char* name)
{
    if (i < n.args.size())
        return n.args[i];
    for (const auto& [key, value] : n.kwargs)
        if (key == name)
            return value;
    return std::nullopt;
}

const TensorMeta* metaOf(const Graph& g, const Arg& a)
{
    const int r = refOf(g, a);
    return r >= 0 && g.nodes[size_t(r)].outputs.size() == 1 ? &g.nodes[size_t(r)].outputs[0] : nullptr;
}

bool isInt(const std::optional<Arg>& a, int64_t v)
{
    // Python: isinstance(b, int) and b == v; bool is an int there.
    return a && ((a->kind == Arg::Kind::Int && a->i == v) || (a->kind == Arg::Kind::Bool && int64_t(a->b) == v));
}

/// `statically_known_true(x == v)` for an int or SymInt argument.
bool sizeIs(const Graph& g, const std::optional<Arg>& a, int64_t v)
{
    if (!a)
        return false;
    auto s = detail::sizeArg(g, *a);
    return s && detail::provablyEqual(*s, SymExpr::constant(v));
}

/// `end >= 2**63 - 1 or end >= size`, for slice and slice_scatter.
bool reachesEnd(const Graph& g, const Arg& end, const SymExpr& size)
{
    auto e = detail::sizeArg(g, end);
    if (!e)
        return false;
    if (e->constantValue() && *e->constantValue() == std::numeric_limits<int64_t>::max())
        return true;
    return detail::provablyAtLeast(*e, size);
}

std::optional<SymExpr> dimSize(const TensorMeta& t, const std::optional<Arg>& dimArg)
{
    int64_t dim = dimArg && dimArg->kind == Arg::Kind::Int ? dimArg->i : 0;
    if (dim < 0)
        dim += int64_t(t.shape.size());
    if (dim < 0 || dim >= int64_t(t.shape.size()))
        return std::nullopt;
    return t.shape[size_t(dim)];
}

std::string deviceOf(const std::string& d)
{
    // decode_device: a bare device type means its current (first) device.
    return d.find(':') == std::string::npos ? d + ":0" : d;
}

/// One entry of inductor's noop_registry: where the source is, and the op's own no-op condition.
struct NoopRule {
    bool known = false;
    std::optional<Arg> src;
    std::string failed; ///< why the condition does not hold; empty when it holds
};

NoopRule noopRule(const Graph& g, const Node& n)
{
    NoopRule r;
    const std::string t = detail::targetOf(n);
    const OpInfo info = classifyOp(t);
    auto packetIs = [&](const char* ns, const char* packet) { return info.ns == ns && info.packet == packet; };
    auto fail = [&r](std::string why) {
        r.failed = std::move(why);
        return r;
    };
    r.known = true;
    if (packetIs("aten", "slice")) {
        r.src = argAt(n, 0, "self");
        const TensorMeta* self = r.src ? metaOf(g, *r.src) : nullptr;
        auto start = argAt(n, 2, "start"), end = argAt(n, 3, "end"), step = argAt(n, 4, "step");
        auto size = self ? dimSize(*self, argAt(n, 1, "dim")) : std::nullopt;
        if (!start || !end || start->kind == Arg::Kind::None || end->kind == Arg::Kind::None)
            return fail("slice without start or end is not treated as a no-op");
        if (!size || !sizeIs(g, start, 0) || !reachesEnd(g, *end, *size) || !(step ? sizeIs(g, step, 1) : true))
            return fail("slice does not cover the whole dimension with step 1");
        return r;
    }
    if (packetIs("aten", "slice_scatter")) {
        r.src = argAt(n, 1, "src");
        const TensorMeta* self = metaOf(g, n.args.empty() ? Arg() : n.args[0]);
        const TensorMeta* src = r.src ? metaOf(g, *r.src) : nullptr;
        auto start = argAt(n, 3, "start"), end = argAt(n, 4, "end"), step = argAt(n, 5, "step");
        auto size = self ? dimSize(*self, argAt(n, 2, "dim")) : std::nullopt;
        const bool fullEnd = !end || end->kind == Arg::Kind::None || (size && reachesEnd(g, *end, *size));
        const bool zeroStart = !start || start->kind == Arg::Kind::None || isInt(start, 0);
        if (!self || !src || !detail::sameShape(self->shape, src->shape) || !zeroStart || !fullEnd
            || !(step ? isInt(step, 1) : true))
            return fail("slice_scatter does not overwrite the whole tensor");
        return r;
    }
    if (packetIs("aten", "repeat") || packetIs("aten", "constant_pad_nd")) {
        r.src = argAt(n, 0, "self");
        const bool repeat = info.packet == "repeat";
        auto list = argAt(n, 1, repeat ? "repeats" : "pad");
        bool all = list && list->kind == Arg::Kind::List;
        for (size_t i = 0; all && i < list->items.size(); ++i)
            all = sizeIs(g, list->items[i], repeat ? 1 : 0);
        if (!all)
            return fail(repeat ? "repeat counts are not all 1" : "padding is not all 0");
        return r;
    }
    if (packetIs("prims", "convert_element_type") || (packetIs("aten", "view") && info.overload == "dtype")) {
        r.src = argAt(n, 0, "a");
        const TensorMeta* self = r.src ? metaOf(g, *r.src) : nullptr;
        auto dtype = argAt(n, 1, "dtype");
        if (!self || !dtype || dtype->kind != Arg::Kind::Str || parseDType(dtype->s) != self->dtype)
            return fail("the dtype changes");
        return r;
    }
    if (packetIs("prims", "device_put")) {
        r.src = argAt(n, 0, "a");
        const TensorMeta* self = r.src ? metaOf(g, *r.src) : nullptr;
        auto device = argAt(n, 1, "device");
        if (!self || !device || device->kind != Arg::Kind::Str || deviceOf(device->s) != deviceOf(self->device))
            return fail("the device changes");
        return r;
    }
    if (info.ns == "aten"
        && (info.packet == "ceil" || info.packet == "floor" || info.packet == "round" || info.packet == "trunc")) {
        r.src = argAt(n, 0, "self");
        const TensorMeta* self = r.src ? metaOf(g, *r.src) : nullptr;
        const DType d = self ? self->dtype : DType::Unknown;
        const bool integer = d == DType::I64 || d == DType::I32 || d == DType::I16 || d == DType::I8 || d == DType::U8;
        if (!integer || n.args.size() > 1 || !n.kwargs.empty())
            return fail(info.packet + " is not on an integer tensor");
        return r;
    }
    if (packetIs("aten", "pow")) {
        r.src = argAt(n, 0, "self");
        if (!isInt(argAt(n, 1, "exponent"), 1))
            return fail("the exponent is not the int 1");
        return r;
    }
    if (packetIs("aten", "cat")) {
        auto tensors = argAt(n, 0, "tensors");
        if (tensors && tensors->kind == Arg::Kind::List && !tensors->items.empty())
            r.src = tensors->items[0];
        if (!tensors || tensors->kind != Arg::Kind::List || tensors->items.size() != 1)
            return fail("cat has more than one input");
        return r;
    }
    if (packetIs("aten", "view") && info.overload == "default") {
        r.src = argAt(n, 0, "self");
        const TensorMeta* self = r.src ? metaOf(g, *r.src) : nullptr;
        auto size = argAt(n, 1, "size");
        bool same = self && size && size->kind == Arg::Kind::List && size->items.size() == self->shape.size();
        for (size_t i = 0; same && i < size->items.size(); ++i) {
            auto s = detail::sizeArg(g, size->items[i]);
            same = s && detail::provablyEqual(*s, self->shape[i]);
        }
        if (!same)
            return fail("the view changes the shape");
        return r;
    }
    if (packetIs("aten", "copy")) {
        r.src = argAt(n, 1, "src");
        return r;
    }
    if (packetIs("aten", "alias") || packetIs("aten", "clone")) {
        r.src = argAt(n, 0, "self");
        return r;
    }
    r.known = false;
    return r;
}

} // namespace

Result<PassReport> removeNoopOps(Graph& graph, const config::Options& options)
{
    return detail::runPass(graph, "remove_noop_ops", options.optionName("remove_noop_ops"), options.removeNoopOps,
        [](Graph& g, PassReport& report) -> Result<void> {
            // get_node_storage reads the metadata recorded before the pass; it does not change as nodes go.
            const detail::Storages st = detail::analyzeStorages(g);
            std::map<std::string, int> storage;
            std::set<std::string> inputs;
            std::set<int> inputStorages, outputStorages;
            for (size_t i = 0; i < g.nodes.size(); ++i) {
                storage[g.nodes[i].name] = st.single(int(i));
                if (g.nodes[i].op == NodeOp::Placeholder) {
                    inputs.insert(g.nodes[i].name);
                    inputStorages.insert(st.single(int(i)));
                }
            }
            const Node& output = g.nodes[size_t(g.outputNode())];
            const Arg returned = output.args.empty() ? Arg() : output.args[0];
            for (const Arg& a : returned.kind == Arg::Kind::List ? returned.items : std::vector<Arg> { returned })
                if (int r = refOf(g, a); r >= 0)
                    outputStorages.insert(st.single(r));

            std::vector<std::string> order;
            for (const Node& n : g.nodes)
                order.push_back(n.name);
            for (const std::string& name : order) {
                const Node& n = g.nodes[size_t(g.find(name))];
                if (n.op != NodeOp::CallFunction)
                    continue;
                const NoopRule rule = noopRule(g, n);
                if (!rule.known)
                    continue;
                const int src = rule.src ? refOf(g, *rule.src) : -1;
                if (src < 0) {
                    report.skipped.push_back({ name, "its source is not a node" });
                    continue;
                }
                const std::string srcName = g.nodes[size_t(src)].name;
                const int nodeStorage = storage[name], srcStorage = storage[srcName];
                const bool nodeIsView = nodeStorage == srcStorage;
                if (!nodeIsView && outputStorages.count(nodeStorage)
                    && (inputStorages.count(srcStorage) || outputStorages.count(srcStorage))) {
                    report.skipped.push_back({ name,
                        "not removed: graph output " + name + " would alias "
                            + (inputStorages.count(srcStorage) ? "graph input " : "graph output ") + srcName
                            + " (inductor does not introduce new aliasing between inputs and outputs)" });
                    continue;
                }
                // Inductor's second guard compares with output_node.args, a one-element tuple holding the
                // list of outputs, so it only fires for a graph that returns a bare node.
                if (nodeIsView && returned.kind == Arg::Kind::NodeRef && returned.s == name
                    && (inputs.count(srcName) || returned.s == srcName)) {
                    report.skipped.push_back({ name, "not removed: the graph returns it and its source" });
                    continue;
                }
                const Node& source = g.nodes[size_t(src)];
                if (n.outputs.size() != 1 || source.outputs.size() != 1) {
                    report.skipped.push_back({ name, "missing tensor metadata (get_fake_args_kwargs is not valid)" });
                    continue;
                }
                if (!detail::sameMeta(n.outputs[0], source.outputs[0])) {
                    report.skipped.push_back(
                        { name, "input and output metadata differ (same_meta: size, stride, dtype, device)" });
                    continue;
                }
                if (!rule.failed.empty()) {
                    report.skipped.push_back({ name, "not a no-op: " + rule.failed });
                    continue;
                }
                if (auto ok = detail::replaceUses(g, name, srcName); !ok)
                    return ok;
                if (auto ok = detail::eraseNodes(g, { name }); !ok)
                    return ok;
            }
            return {};
        });
}

} // namespace engine::passes
