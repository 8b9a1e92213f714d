#include "engine/report/details.h"

#include "engine/graph/graph_diff.h"
#include "engine/graph/graph_view.h"
// For annotationText and contiguousStrides: an output is summed up in the annotation form FX prints
// ("f32[4, 8][8, 1]npu:0"), and the readers own that form; no second formatter here.
#include "engine/readers/fx_reader_internal.h"
#include "engine/report/hazard_explain.h"

#include <cstdio>
#include <set>

namespace engine::report {

using runtime::Simulation;

namespace {

Detail row(std::string key, std::string value, std::vector<Detail> children = {})
{
    return { std::move(key), std::move(value), std::move(children) };
}

std::string join(const std::vector<std::string>& items, const char* sep = ", ")
{
    std::string s;
    for (size_t i = 0; i < items.size(); ++i)
        s += (i ? sep : "") + items[i];
    return s;
}

std::string hex(uint64_t v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
    return buf;
}

std::string plural(size_t n, const char* one, const char* many)
{
    return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::string yesNo(bool b)
{
    return b ? "yes" : "no";
}

// "[s0, 1024]": sizes or strides as FX prints them inside an annotation.
std::string exprsText(const std::vector<SymExpr>& v)
{
    std::vector<std::string> items;
    for (const SymExpr& e : v)
        items.push_back(e.text());
    return "[" + join(items) + "]";
}

// A referenced node with what it is, so the reader need not look it up: "embedding (aten.embedding.default)",
// "l0_wo (parameter)".
std::string refText(const Graph& graph, const Arg& a)
{
    if (a.kind != Arg::Kind::NodeRef || a.node < 0 || a.node >= int(graph.nodes.size()))
        return argText(a);
    const Node& n = graph.nodes[size_t(a.node)];
    if (n.op == NodeOp::Placeholder)
        return a.s + " (" + inputKindName(n.inputKind) + ")";
    return n.target.empty() ? a.s : a.s + " (" + n.target + ")";
}

Detail tensorRow(const std::string& key, const TensorMeta& t)
{
    std::string summary = readers::detail::annotationText(t);
    if (t.storageOffset != 0)
        summary += " +" + std::to_string(t.storageOffset);
    std::vector<Detail> fields { row("shape", exprsText(t.shape)),
        row("stride",
            t.stride.empty() ? exprsText(readers::detail::contiguousStrides(t.shape)) + " (contiguous)"
                             : exprsText(t.stride)),
        row("dtype", dtypeShortName(t.dtype)), row("device", t.device),
        row("storage offset", std::to_string(t.storageOffset)) };
    if (!t.isSymbolic()) {
        if (auto bytes = t.storageBytes({}))
            fields.push_back(row("bytes", bytesText(*bytes)));
    } else {
        std::set<std::string> symbols;
        for (const auto* list : { &t.shape, &t.stride })
            for (const SymExpr& e : *list)
                for (const std::string& s : e.symbols())
                    symbols.insert(s);
        fields.push_back(row("bytes", "symbolic: depends on " + join({ symbols.begin(), symbols.end() })));
    }
    return row(key, summary, std::move(fields));
}

} // namespace

std::string humanBytes(uint64_t bytes)
{
    if (bytes < 1024)
        return std::to_string(bytes) + " B";
    const char* units[] = { "KiB", "MiB", "GiB", "TiB" };
    double v = double(bytes) / 1024;
    int u = 0;
    while (v >= 1024 && u < 3) {
        v /= 1024;
        ++u;
    }
    char text[48];
    std::snprintf(text, sizeof text, "%.1f %s", v, units[u]);
    return text;
}

std::string bytesText(uint64_t bytes)
{
    // Thousands grouped by spaces, as docs/samples.md writes them.
    const std::string digits = std::to_string(bytes);
    std::string grouped;
    for (size_t i = 0; i < digits.size(); ++i) {
        if (i && (digits.size() - i) % 3 == 0)
            grouped += ' ';
        grouped += digits[i];
    }
    return bytes < 1024 ? grouped + " B" : grouped + " B (" + humanBytes(bytes) + ")";
}

void addNonEmpty(std::vector<Detail>& rows, std::string key, std::string value)
{
    if (!value.empty())
        rows.push_back(row(std::move(key), std::move(value)));
}

Details nodeDetails(const Graph& graph, int node, const std::vector<std::string>& rewrittenBy)
{
    Details d;
    d.kind = "node";
    if (node < 0 || node >= int(graph.nodes.size())) {
        d.title = "node " + std::to_string(node) + " is not in graph '" + graph.id + "'";
        return d;
    }
    const Node& n = graph.nodes[size_t(node)];
    d.title = n.name;
    auto& rows = d.rows;
    rows.push_back(row("name", n.name));
    rows.push_back(row("graph", graph.id + (graph.dynamic ? " (dynamic)" : "")));
    rows.push_back(row("op", nodeOpName(n.op)));
    addNonEmpty(rows, "target", n.target);

    if (n.op == NodeOp::Placeholder) {
        const std::vector<int> placeholders = graph.placeholders();
        for (size_t i = 0; i < placeholders.size(); ++i)
            if (placeholders[i] == node)
                rows.push_back(row("input index", std::to_string(i) + " of " + std::to_string(placeholders.size())));
        const std::vector<std::string> mutated = graph.mutatedInputs();
        const view::NodeRole role = view::nodeRole(graph, node, { mutated.begin(), mutated.end() });
        rows.push_back(row("input kind", inputKindName(n.inputKind)));
        rows.push_back(row("kind told by",
            !n.inputKindFrom.empty() ? n.inputKindFrom
                : n.inputKind == InputKind::UserInput
                ? "nothing: assumed a user input (staged on every replay if it is a weight); --input-kind or the "
                  "TORCH_TRACE of the same compile tells it"
                : "the reader (no evidence recorded)"));
        if (n.inputKind != InputKind::SymInt && (n.outputs.empty() || n.outputs[0].dtype == DType::Unknown))
            rows.push_back(row("size", "unknown (" + (graph.metadataMissing.empty() ? std::string("the file has no tensor metadata for it")
                                                                                    : graph.metadataMissing) + ")"));
        std::string roleText = view::nodeRoleName(role);
        if (role == view::NodeRole::MutatedInput)
            roleText += " (TorchAir's mutated_user_inputs: written in place by the graph)";
        rows.push_back(row("role", roleText));
    }

    if (!n.args.empty()) {
        std::vector<std::string> texts;
        std::vector<Detail> children;
        for (size_t i = 0; i < n.args.size(); ++i) {
            texts.push_back(argText(n.args[i]));
            children.push_back(row("[" + std::to_string(i) + "]", refText(graph, n.args[i])));
        }
        rows.push_back(row("args", "(" + join(texts) + ")", std::move(children)));
    }
    if (!n.kwargs.empty()) {
        std::vector<std::string> texts;
        std::vector<Detail> children;
        for (const auto& [name, value] : n.kwargs) {
            texts.push_back(name + "=" + argText(value));
            children.push_back(row(name, refText(graph, value)));
        }
        rows.push_back(row("kwargs", join(texts), std::move(children)));
    }

    if (!n.outputs.empty()) {
        std::vector<Detail> children;
        for (size_t i = 0; i < n.outputs.size(); ++i)
            children.push_back(tensorRow("output " + std::to_string(i), n.outputs[i]));
        rows.push_back(row("outputs", plural(n.outputs.size(), "tensor", "tensors"), std::move(children)));
    }
    // As graph_diff's metaText decides when a node carries a SymInt rather than a tensor.
    if (const auto c = n.symbol.constantValue();
        n.outputs.empty() && (n.inputKind == InputKind::SymInt || !c || *c != 0))
        rows.push_back(row("symbol", n.symbol.text()));
    if (const auto ws = n.workspaceBytes.constantValue(); !ws || *ws != 0)
        rows.push_back(row("workspace", ws ? bytesText(uint64_t(*ws)) : n.workspaceBytes.text()));
    addNonEmpty(rows, "provenance", n.provenance);
    addNonEmpty(rows, "storage binding", n.storage);

    std::vector<std::string> userNames;
    std::vector<Detail> users;
    for (int u : n.users) {
        if (u < 0 || u >= int(graph.nodes.size()))
            continue;
        const Node& user = graph.nodes[size_t(u)];
        userNames.push_back(user.name);
        users.push_back(row(user.name, user.target.empty() ? nodeOpName(user.op) : user.target));
    }
    rows.push_back(row("users", userNames.empty() ? "none" : join(userNames), std::move(users)));
    if (!n.freedAfter.empty())
        rows.push_back(row("frees after it", join(n.freedAfter)));
    if (!rewrittenBy.empty()) {
        std::vector<Detail> passes;
        for (const std::string& p : rewrittenBy)
            passes.push_back(row("pass", p));
        rows.push_back(row("rewritten by", join(rewrittenBy), std::move(passes)));
    }
    return d;
}

namespace {

const runtime::GraphRecord* graphRecord(const Simulation& sim, const std::string& name)
{
    for (const auto& g : sim.graphs)
        if (g.name == name)
            return &g;
    return nullptr;
}

const runtime::PoolRecord* poolRecord(const Simulation& sim, memory::PoolId pool)
{
    for (const auto& p : sim.pools)
        if (p.pool == pool)
            return &p;
    return nullptr;
}

const runtime::CallRecord* callRecord(const Simulation& sim, int call)
{
    if (call >= 0 && call < int(sim.calls.size()) && sim.calls[size_t(call)].index == call)
        return &sim.calls[size_t(call)];
    for (const auto& c : sim.calls)
        if (c.index == call)
            return &c;
    return nullptr;
}

/// The event's lines, under who prints them: TorchAir, or PyTorch in a CUDA Graph Trees run.
Detail logRow(const runtime::Simulation& sim, const runtime::Event& e)
{
    std::vector<Detail> lines;
    for (const runtime::LogLine& l : e.log)
        lines.push_back(row(runtime::logLevelName(l.level), l.category.empty() ? l.text : l.category + ": " + l.text));
    return row(sim.cuda ? "PyTorch log" : "TorchAir log",
        e.log.empty() ? "nothing printed" : plural(e.log.size(), "line", "lines"), std::move(lines));
}

Detail inputsRow(const runtime::Event& e)
{
    std::vector<Detail> inputs;
    int copied = 0;
    uint64_t bytes = 0;
    for (const runtime::InputAction& a : e.inputs) {
        copied += a.bytes ? 1 : 0;
        bytes += a.bytes;
        std::vector<Detail> fields { row("action", a.action), row("bytes", bytesText(a.bytes)) };
        addNonEmpty(fields, "detail", a.detail);
        inputs.push_back(row(a.input, a.action + (a.bytes ? ", " + bytesText(a.bytes) : ""), std::move(fields)));
    }
    return row("input actions",
        plural(e.inputs.size(), "input", "inputs") + ", " + std::to_string(copied) + " copied (" + bytesText(bytes)
            + ")",
        std::move(inputs));
}

// A hazard with its explanation (engine/report/hazard_explain.h) as the last child.
Detail hazardRow(const Simulation& sim, int index)
{
    const runtime::Hazard& h = sim.hazards[size_t(index)];
    std::vector<Detail> fields { row("kind", runtime::hazardKindName(h.kind)) };
    if (h.call >= 0)
        fields.push_back(row("call", std::to_string(h.call)));
    addNonEmpty(fields, "graph", h.graph);
    addNonEmpty(fields, "key", h.key);
    addNonEmpty(fields, "concerns", h.concerns);
    fields.push_back(row("message", h.message));
    if (h.madeAtCall >= 0)
        fields.push_back(row("made at call", std::to_string(h.madeAtCall)));
    fields.push_back(explanationRow(explainHazard(sim, index)));
    return row("hazard", runtime::hazardKindName(h.kind), std::move(fields));
}

// The call's record, with every hazard the call raised: most hazards (recapture storm, overwritten
// outputs, stale parameters) belong to a call and not to an event of their own.
Detail callRow(const Simulation& sim, const runtime::CallRecord& c)
{
    std::vector<Detail> fields { row("action", runtime::callActionName(c.action)) };
    addNonEmpty(fields, "recapture cause", c.recaptureCause);
    fields.push_back(row("graph", c.graph + " ('" + c.graphId + "')"));
    addNonEmpty(fields, "key", c.key);
    fields.push_back(row("inputs copied", std::to_string(c.inputsCopied)));
    fields.push_back(row("bytes copied", bytesText(c.bytesCopied)));
    fields.push_back(row("outputs rebuilt", std::to_string(c.outputsRebuilt)));
    fields.push_back(row("events",
        std::to_string(c.firstEvent + 1) + " to " + std::to_string(c.firstEvent + c.eventCount) + " ("
            + std::to_string(c.eventCount) + ")"));
    fields.push_back(row("device reserved after the call", bytesText(c.deviceReserved)));
    fields.push_back(row("device allocated after the call", bytesText(c.deviceAllocated)));
    std::vector<Detail> hazards;
    for (size_t i = 0; i < sim.hazards.size(); ++i)
        if (sim.hazards[i].call == c.index)
            hazards.push_back(row(runtime::hazardKindName(sim.hazards[i].kind), sim.hazards[i].message,
                { explanationRow(explainHazard(sim, int(i))) }));
    if (!hazards.empty()) {
        // The count is read before the list is moved: the order in which a call's arguments are evaluated
        // is unspecified, and GCC moves first (the count read 0).
        std::string count = std::to_string(hazards.size());
        fields.push_back(row("hazards in this call", std::move(count), std::move(hazards)));
    }
    std::string value = runtime::callActionName(c.action);
    if (!c.recaptureCause.empty())
        value += " (" + c.recaptureCause + ")";
    return row("call record", value, std::move(fields));
}

} // namespace

Details eventDetails(const Simulation& sim, int event)
{
    Details d;
    d.kind = "event";
    if (event < 0 || event >= int(sim.events.size())) {
        d.title = "event " + std::to_string(event + 1) + " is not in the run (" + std::to_string(sim.events.size())
            + " events)";
        return d;
    }
    const runtime::Event& e = sim.events[size_t(event)];
    d.title = "event " + std::to_string(event + 1) + ": " + runtime::eventKindName(e.kind)
        + (e.graph.empty() ? "" : " " + e.graph);
    auto& rows = d.rows;
    rows.push_back(row("event", std::to_string(event + 1) + " of " + std::to_string(sim.events.size())));
    rows.push_back(row("call", e.call >= 0 ? std::to_string(e.call) : "none (run-level event)"));
    rows.push_back(row("kind", runtime::eventKindName(e.kind)));
    if (!e.graph.empty()) {
        const auto* g = graphRecord(sim, e.graph);
        rows.push_back(row("graph", e.graph + (g ? " ('" + g->id + "', pool " + g->pool.str() + ")" : "")));
    }
    addNonEmpty(rows, "key", e.key);
    rows.push_back(row("summary", e.summary));
    rows.push_back(logRow(sim, e));
    if (!e.inputs.empty())
        rows.push_back(inputsRow(e));
    // The hazards this event shows: its own (a fallback, an out-of-memory) and those the simulator found
    // in this step of its call (hazardEvent).
    for (size_t i = 0; i < sim.hazards.size(); ++i)
        if (int(i) == e.hazard || (sim.hazards[i].call == e.call && hazardEvent(sim, int(i)) == event))
            rows.push_back(hazardRow(sim, int(i)));
    rows.push_back(row("device reserved after", bytesText(e.deviceReserved)));
    rows.push_back(row("device allocated after", bytesText(e.deviceAllocated)));
    if (!e.memory.empty()) {
        std::vector<Detail> pools;
        for (const runtime::PoolSnapshot& p : e.memory)
            pools.push_back(row("pool " + p.pool.str(),
                "reserved " + bytesText(p.reserved) + ", allocated " + bytesText(p.allocated) + ", "
                    + plural(p.segments.size(), "segment", "segments")));
        rows.push_back(row("pools after", plural(e.memory.size(), "pool", "pools"), std::move(pools)));
    }
    if (const auto* c = e.call >= 0 ? callRecord(sim, e.call) : nullptr)
        rows.push_back(callRow(sim, *c));
    return d;
}

namespace {

Detail ownerRow(const runtime::OwnerInfo& o)
{
    std::vector<Detail> fields { row("kind", runtime::ownerKindName(o.kind)) };
    addNonEmpty(fields, "tensor", o.tensor);
    addNonEmpty(fields, "graph", o.graph);
    addNonEmpty(fields, "key", o.key);
    if (o.call >= 0)
        fields.push_back(row("made by call", std::to_string(o.call)));
    std::string value = runtime::ownerKindName(o.kind);
    if (!o.tensor.empty())
        value += " " + o.tensor;
    return row("owner", value, std::move(fields));
}

Detail segmentRow(const memory::SegmentInfo& s)
{
    std::vector<Detail> fields { row("address", hex(s.address)), row("total", bytesText(s.totalSize)),
        row("allocated", bytesText(s.allocatedSize)), row("requested", bytesText(s.requestedSize)),
        row("block pool", s.small ? "small (blocks of 1 MiB or less)" : "large"),
        row("stream", std::to_string(s.stream)),
        row("blocks", std::to_string(s.blockNum()) + " (" + std::to_string(s.activeNum()) + " allocated)") };
    return row("segment", hex(s.address) + ", " + bytesText(s.totalSize), std::move(fields));
}

Detail poolRow(const Simulation& sim, const runtime::PoolSnapshot& p)
{
    const runtime::PoolRecord* rec = poolRecord(sim, p.pool);
    const bool recorded = sim.origin.kind == runtime::RunOriginKind::Recorded;
    std::string use = p.pool.isDefault() ? "default pool (eager allocations)"
        : recorded    ? (p.pool.first == 0 ? "graph pool (a graph_pool_handle(), shared by the captures given it)"
                                           : "private pool (one capture's own)")
        : !rec        ? "private"
        : rec->custom ? "custom (shared by the graphs below)"
                      : "private (one FX graph)";
    std::vector<Detail> fields { row("id", p.pool.str()), row("kind", use) };
    if (rec && !rec->graphs.empty())
        fields.push_back(row("used by", join(rec->graphs)));
    fields.push_back(row("reserved", bytesText(p.reserved)));
    fields.push_back(row("allocated", bytesText(p.allocated)));
    fields.push_back(row("segments", std::to_string(p.segments.size())));
    if (rec) {
        fields.push_back(row("peak reserved (run)", bytesText(rec->peakReserved)));
        fields.push_back(row("peak allocated (run)", bytesText(rec->peakAllocated)));
    }
    return row(
        "pool", p.pool.str() + (rec && !rec->graphs.empty() ? " (" + join(rec->graphs) + ")" : ""), std::move(fields));
}

} // namespace

Details blockDetails(
    const Simulation& sim, const std::vector<runtime::PoolSnapshot>& pools, int pool, int segment, int block)
{
    Details d;
    d.kind = "block";
    if (pool < 0 || pool >= int(pools.size()) || segment < 0 || segment >= int(pools[size_t(pool)].segments.size())
        || block < 0 || block >= int(pools[size_t(pool)].segments[size_t(segment)].blocks.size())) {
        d.title = "no block " + std::to_string(block) + " in segment " + std::to_string(segment) + " of pool "
            + std::to_string(pool);
        return d;
    }
    const runtime::PoolSnapshot& p = pools[size_t(pool)];
    const memory::SegmentInfo& s = p.segments[size_t(segment)];
    const memory::BlockInfo& b = s.blocks[size_t(block)];
    const runtime::OwnerInfo* owner
        = b.owner >= 0 && b.owner < int64_t(sim.owners.size()) ? &sim.owners[size_t(b.owner)] : nullptr;
    const char* state = !b.allocated ? "free" : owner ? "live" : "stale";
    d.title = "block " + hex(b.address) + " (" + state + ")";
    auto& rows = d.rows;
    rows.push_back(row("address", hex(b.address)));
    rows.push_back(row("size", bytesText(b.size)));
    rows.push_back(row("requested", bytesText(b.requested)));
    rows.push_back(row("allocated", yesNo(b.allocated)));
    std::string stateText = state;
    if (b.allocated && !owner)
        stateText += ": allocated with no owner, re-created by a pool rollback and not claimed since";
    rows.push_back(row("state", stateText));
    if (owner)
        rows.push_back(ownerRow(*owner));
    rows.push_back(segmentRow(s));
    rows.push_back(poolRow(sim, p));
    return d;
}

namespace {

void appendText(std::string& out, const Detail& r, int depth)
{
    const std::string indent(size_t(depth) * 2, ' ');
    out += indent + r.key + ":";
    // A value of several lines continues under its key, one level deeper than the key.
    size_t start = 0;
    bool first = true;
    while (start <= r.value.size() && !r.value.empty()) {
        const size_t end = r.value.find('\n', start);
        const std::string line = r.value.substr(start, end == std::string::npos ? std::string::npos : end - start);
        out += first ? " " + line : "\n" + indent + "  " + line;
        first = false;
        if (end == std::string::npos)
            break;
        start = end + 1;
    }
    out += "\n";
    for (const Detail& c : r.children)
        appendText(out, c, depth + 1);
}

} // namespace

std::string detailsText(const Details& details)
{
    std::string out = details.title + "\n";
    for (const Detail& r : details.rows)
        appendText(out, r, 1);
    return out;
}

} // namespace engine::report
