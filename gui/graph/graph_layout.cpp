// Graphviz in process: build an Agraph from a ViewGraph, run dot, read positions and splines back
// from Graphviz's own records (ND_coord, ND_width, ED_spl, GD_bb), free everything.
#include "gui/graph/graph_layout.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <dlfcn.h>
#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>
#include <string>

namespace gui::graph {

namespace {

using engine::ErrorCode;
using engine::makeError;
using engine::view::ViewGraph;
using engine::view::ViewItem;

// Everything below runs with g_graphvizMutex held: Graphviz keeps global state (its error
// handler, its memory pools, the context's plugin list) and is not thread-safe.
std::mutex g_graphvizMutex;
std::string g_graphvizErrors; // what Graphviz reported during the current call

int collectGraphvizError(char* message)
{
    g_graphvizErrors += message;
    return 0;
}

char* cstr(const char* s)
{
    return const_cast<char*>(s);
} // cgraph's API predates const

std::string number(double v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4f", v);
    return buf;
}

// A one-node graph through dot: does this context know the "dot" layout?
bool canLayoutDot(GVC_t* gvc)
{
    Agraph_t* g = agopen(cstr("probe"), Agdirected, nullptr);
    agnode(g, cstr("n"), 1);
    const bool ok = gvLayout(gvc, g, "dot") == 0;
    if (ok)
        gvFreeLayout(gvc, g);
    agclose(g);
    return ok;
}

// gvContext() loads plugins as the installed config file (`dot -c`) lists them. Where that file is
// missing the context has no layout engines; then the dot_layout plugin library is loaded by hand
// and added with gvAddLibrary, as Graphviz's docs describe for builtin plugins.
bool addDotPlugin(GVC_t* gvc)
{
    std::vector<std::string> candidates;
    if (const char* dir = std::getenv("GVBINDIR"))
        candidates.push_back(std::string(dir) + "/libgvplugin_dot_layout.so.6");
#ifdef ACLGI_GRAPHVIZ_PLUGIN_DIR
    candidates.push_back(ACLGI_GRAPHVIZ_PLUGIN_DIR "/libgvplugin_dot_layout.so.6");
#endif
    candidates.push_back("libgvplugin_dot_layout.so.6");
    for (const auto& path : candidates) {
        void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL); // kept loaded: the context uses it
        if (!lib)
            continue;
        if (auto* plugins = static_cast<gvplugin_library_t*>(dlsym(lib, "gvplugin_dot_layout_LTX_library"))) {
            gvAddLibrary(gvc, plugins);
            return true;
        }
        dlclose(lib);
    }
    return false;
}

// The process's one Graphviz context, made on first use and kept (reachable) until exit:
// creating one loads the plugins, which costs more than a small layout.
GVC_t* context(std::string& error)
{
    static GVC_t* gvc = nullptr;
    static std::string failure;
    if (gvc || !failure.empty()) {
        error = failure;
        return gvc;
    }
    agseterr(AGERR); // warnings stay quiet; errors go to collectGraphvizError
    agseterrf(collectGraphvizError);
    GVC_t* made = gvContext();
    if (!made) {
        failure = "Graphviz: gvContext() failed";
    } else if (!canLayoutDot(made) && !(addDotPlugin(made) && canLayoutDot(made))) {
        failure = "Graphviz: the \"dot\" layout plugin is not installed (libgvplugin_dot_layout)";
        gvFreeContext(made);
    } else {
        gvc = made;
    }
    g_graphvizErrors.clear();
    error = failure;
    return gvc;
}

double penWidth(int count)
{
    return std::min(1.0 + std::log2(std::max(1, count)), 6.0);
}

// An Agraph that frees itself (layout first, then the graph).
struct GraphGuard {
    GVC_t* gvc;
    Agraph_t* g;
    bool laidOut = false;
    ~GraphGuard()
    {
        if (laidOut)
            gvFreeLayout(gvc, g);
        agclose(g);
    }
};

} // namespace

double itemWidth(const ViewItem& item, const LayoutOptions& options)
{
    const double text
        = std::max(double(item.label.size()) * options.charWidth, double(item.detail.size()) * options.detailCharWidth);
    const double extra = item.kind == ViewItem::Kind::Group ? 24 : 0; // the expand marker
    return std::clamp(text + options.padding + extra, options.minWidth, options.maxWidth + extra);
}

std::string graphvizVersion()
{
    // The layout's own context (a second one would load the plugins again, and gvFreeContext does
    // not give back what gvconfig read: LeakSanitizer reported it).
    std::lock_guard<std::mutex> lock(g_graphvizMutex);
    std::string error;
    GVC_t* gvc = context(error);
    const char* v = gvc ? gvcVersion(gvc) : nullptr;
    return v && *v ? v : "unknown";
}

engine::Result<LayoutResult> layoutView(const ViewGraph& view, const LayoutOptions& options)
{
    const auto start = std::chrono::steady_clock::now();
    const std::size_t n = view.items.size();
    for (std::size_t i = 0; i < view.edges.size(); ++i) {
        const auto& e = view.edges[i];
        if (e.from < 0 || e.to < 0 || std::size_t(e.from) >= n || std::size_t(e.to) >= n)
            return makeError(ErrorCode::InvalidArgument,
                "edge " + std::to_string(i) + " names a missing item (" + std::to_string(e.from) + " -> "
                    + std::to_string(e.to) + ", " + std::to_string(n) + " items)");
    }
    if (n > options.maxItems)
        return makeError(ErrorCode::InvalidArgument,
            "view too large to lay out: " + std::to_string(n) + " items (at most " + std::to_string(options.maxItems)
                + "); collapse some groups");
    LayoutResult out;
    out.items.resize(n);
    out.edges.resize(view.edges.size());
    if (n == 0)
        return out;

    std::lock_guard<std::mutex> lock(g_graphvizMutex);
    std::string error;
    GVC_t* gvc = context(error);
    if (!gvc)
        return makeError(ErrorCode::Internal, error);
    g_graphvizErrors.clear();

    GraphGuard guard { gvc, agopen(cstr("view"), Agdirected, nullptr) };
    Agraph_t* g = guard.g;
    agattr(g, AGRAPH, cstr("rankdir"), cstr("TB"));
    agattr(g, AGRAPH, cstr("nodesep"), cstr(number(options.nodeSep).c_str()));
    agattr(g, AGRAPH, cstr("ranksep"), cstr(number(options.rankSep).c_str()));
    if (n > 500) { // bound crossing minimisation and network simplex on big views
        agattr(g, AGRAPH, cstr("mclimit"), cstr("0.5"));
        agattr(g, AGRAPH, cstr("nslimit"), cstr("5"));
        agattr(g, AGRAPH, cstr("nslimit1"), cstr("5"));
    }
    // Labels are drawn by the scene, not Graphviz: fixed-size empty boxes sized from the labels.
    agattr(g, AGNODE, cstr("shape"), cstr("box"));
    agattr(g, AGNODE, cstr("fixedsize"), cstr("true"));
    agattr(g, AGNODE, cstr("label"), cstr(""));
    agattr(g, AGNODE, cstr("width"), cstr("1"));
    agattr(g, AGNODE, cstr("height"), cstr("0.5"));
    agattr(g, AGEDGE, cstr("penwidth"), cstr("1"));
    agattr(g, AGEDGE, cstr("weight"), cstr("1"));

    std::vector<Agnode_t*> nodes(n);
    for (std::size_t i = 0; i < n; ++i) {
        const auto& item = view.items[i];
        const std::string name = "n" + std::to_string(i);
        Agnode_t* node = agnode(g, cstr(name.c_str()), 1);
        const double height = item.kind == ViewItem::Kind::Group ? options.groupHeight : options.nodeHeight;
        agsafeset(node, cstr("width"), cstr(number(itemWidth(item, options) / 72.0).c_str()), cstr("1"));
        agsafeset(node, cstr("height"), cstr(number(height / 72.0).c_str()), cstr("0.5"));
        nodes[i] = node;
    }
    std::vector<Agedge_t*> edges(view.edges.size(), nullptr);
    for (std::size_t i = 0; i < view.edges.size(); ++i) {
        const auto& e = view.edges[i];
        out.edges[i].penWidth = penWidth(e.count);
        if (e.from == e.to)
            continue; // no self-edges in a ViewGraph; nothing to route if one slips in
        Agedge_t* edge = agedge(g, nodes[e.from], nodes[e.to], nullptr, 1);
        agsafeset(edge, cstr("penwidth"), cstr(number(out.edges[i].penWidth).c_str()), cstr("1"));
        agsafeset(edge, cstr("weight"), cstr(std::to_string(std::min(e.count, 10)).c_str()), cstr("1"));
        edges[i] = edge;
    }

    if (gvLayout(gvc, g, "dot") != 0) {
        std::string message = g_graphvizErrors.empty() ? "dot failed" : g_graphvizErrors;
        while (!message.empty() && message.back() == '\n')
            message.pop_back();
        return makeError(ErrorCode::Internal, "Graphviz: " + message);
    }
    guard.laidOut = true;

    // Graphviz: points, y up, origin at the bounding box's lower left (not always 0, 0).
    const boxf bb = GD_bb(g);
    const auto toScene = [&](pointf p) { return LayoutPoint { p.x - bb.LL.x, bb.UR.y - p.y }; };
    out.width = bb.UR.x - bb.LL.x;
    out.height = bb.UR.y - bb.LL.y;
    for (std::size_t i = 0; i < n; ++i) {
        const LayoutPoint c = toScene(ND_coord(nodes[i]));
        out.items[i] = ItemBox { c.x, c.y, ND_width(nodes[i]) * 72.0, ND_height(nodes[i]) * 72.0 };
    }
    for (std::size_t i = 0; i < edges.size(); ++i) {
        if (!edges[i])
            continue;
        EdgeRoute& route = out.edges[i];
        const splines* spl = ED_spl(edges[i]);
        if (spl) {
            for (int b = 0; b < spl->size; ++b) {
                const bezier& bz = spl->list[b];
                for (int k = (b == 0 ? 0 : 1); k < bz.size; ++k)
                    route.points.push_back(toScene(bz.list[k]));
                if (bz.eflag) {
                    route.hasArrow = true;
                    route.arrowTip = toScene(bz.ep);
                }
            }
        }
        const ItemBox& from = out.items[view.edges[i].from];
        const ItemBox& to = out.items[view.edges[i].to];
        if (route.points.size() < 2) { // no spline came back: a straight line between the centres
            route.points = { { from.x, from.y }, { to.x, to.y } };
            route.hasArrow = false;
        }
    }
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return out;
}

LayoutCache::LayoutCache(std::size_t capacity)
    : m_capacity(std::max<std::size_t>(capacity, 1))
{
}

std::shared_ptr<const LayoutResult> LayoutCache::find(const std::string& key)
{
    std::lock_guard<std::mutex> lock(m_mutex);
    auto it = m_index.find(key);
    if (it == m_index.end()) {
        ++m_misses;
        return nullptr;
    }
    ++m_hits;
    m_order.splice(m_order.begin(), m_order, it->second);
    return it->second->second;
}

void LayoutCache::insert(const std::string& key, std::shared_ptr<const LayoutResult> layout)
{
    std::lock_guard<std::mutex> lock(m_mutex);
    if (auto it = m_index.find(key); it != m_index.end()) {
        it->second->second = std::move(layout);
        m_order.splice(m_order.begin(), m_order, it->second);
        return;
    }
    m_order.emplace_front(key, std::move(layout));
    m_index[key] = m_order.begin();
    while (m_order.size() > m_capacity) {
        m_index.erase(m_order.back().first);
        m_order.pop_back();
    }
}

std::size_t LayoutCache::size() const
{
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_order.size();
}

std::size_t LayoutCache::hits() const
{
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_hits;
}

std::size_t LayoutCache::misses() const
{
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_misses;
}

} // namespace gui::graph
