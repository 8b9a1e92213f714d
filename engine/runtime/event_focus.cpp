// Mapping an event's input actions, returned outputs and hazard texts onto graph nodes.
#include "engine/runtime/event_focus.h"

#include <algorithm>
#include <cctype>
#include <map>

namespace engine::runtime {

const char* focusRoleName(FocusRole r)
{
    switch (r) {
    case FocusRole::Copied:
        return "copied";
    case FocusRole::Kept:
        return "kept";
    case FocusRole::Returned:
        return "returned";
    case FocusRole::Rebuilt:
        return "rebuilt";
    case FocusRole::Hazard:
        return "hazard";
    }
    return "kept";
}

namespace {

/// Nodes whose results the output node returns (NodeRefs anywhere in its args, nested lists too).
void collectRefs(const Arg& arg, const Graph& graph, std::vector<int>& out)
{
    if (arg.kind == Arg::Kind::NodeRef) {
        const int n = arg.node >= 0 ? arg.node : graph.find(arg.s);
        if (n >= 0)
            out.push_back(n);
    }
    for (const Arg& item : arg.items)
        collectRefs(item, graph, out);
}

/// Every identifier-like word of `text` that names a node of `graph` (not the output node: hazard
/// texts say "output 0 (logits) of call 1"). Words in parentheses, when there are any, are the
/// tensor names; the rest is prose.
std::vector<int> namedNodes(const Graph& graph, std::string text)
{
    const size_t open = text.find('('), close = text.find(')', open == std::string::npos ? 0 : open);
    if (open != std::string::npos && close != std::string::npos)
        text = text.substr(open + 1, close - open - 1);
    std::vector<int> out;
    std::string word;
    auto flush = [&] {
        if (!word.empty()) {
            if (const int n = graph.find(word); n >= 0 && graph.nodes[size_t(n)].op != NodeOp::Output)
                out.push_back(n);
            word.clear();
        }
    };
    for (char c : text) {
        if (std::isalnum(static_cast<unsigned char>(c)) || c == '_')
            word += c;
        else
            flush();
    }
    flush();
    return out;
}

} // namespace

std::vector<FocusNode> eventFocus(const Graph& graph, const Simulation& sim, int event)
{
    if (event < 0 || event >= int(sim.events.size()))
        return {};
    const Event& e = sim.events[size_t(event)];
    std::map<int, FocusNode> found; // node order, first role wins
    auto add = [&found](int node, FocusRole role, std::string why) {
        found.emplace(node, FocusNode { node, role, std::move(why) });
    };
    switch (e.kind) {
    case EventKind::InputUpdate:
        for (const InputAction& a : e.inputs)
            if (const int n = graph.find(a.input); n >= 0)
                add(n, a.bytes > 0 || a.action.rfind("copy", 0) == 0 ? FocusRole::Copied : FocusRole::Kept, a.action);
        break;
    case EventKind::Outputs: {
        const int out = graph.outputNode();
        if (out < 0)
            break;
        const bool rebuilt
            = e.call >= 0 && e.call < int(sim.calls.size()) && sim.calls[size_t(e.call)].outputsRebuilt > 0;
        std::vector<int> refs;
        for (const Arg& a : graph.nodes[size_t(out)].args)
            collectRefs(a, graph, refs);
        for (int n : refs)
            if (graph.nodes[size_t(n)].op != NodeOp::Placeholder) // an input returned as an output is not rebuilt
                add(n, rebuilt ? FocusRole::Rebuilt : FocusRole::Returned, rebuilt ? "rebuilt" : "returned");
        break;
    }
    case EventKind::Hazard:
    case EventKind::Capture:
    case EventKind::Replay:
    case EventKind::Eager:
        // Hazards are found while a call captures or replays (an output overwritten, a stale
        // parameter) and belong to that call; a fallback or OOM has its own event.
        for (size_t i = 0; i < sim.hazards.size(); ++i) {
            const Hazard& h = sim.hazards[i];
            const bool mine = e.kind == EventKind::Hazard ? e.hazard == int(i) : h.call == e.call && h.graph == e.graph;
            if (mine)
                for (int n : namedNodes(graph, h.concerns))
                    add(n, FocusRole::Hazard, hazardKindName(h.kind));
        }
        break;
    default:
        break;
    }
    std::vector<FocusNode> out;
    out.reserve(found.size());
    for (auto& [node, f] : found)
        out.push_back(std::move(f));
    return out;
}

} // namespace engine::runtime
