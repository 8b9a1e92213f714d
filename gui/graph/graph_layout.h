#pragma once
/// Laying out the graph view with Graphviz's "dot", in process through its C library (libgvc,
/// libcgraph), never the `dot` executable. Plain C++: no Qt, so it can be tested and checked for
/// leaks without a display. Coordinates are Qt's: points, y growing downwards, (0, 0) the top-left
/// corner of the bounding box.
///
/// Graphviz is not thread-safe: every layoutView() call is serialised through one process-wide
/// mutex, so it may be called from any thread (gui/graph/async_layout.h calls it off the UI thread).
#include "engine/core/result.h"
#include "engine/graph/graph_view.h"

#include <cstddef>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace gui::graph {

/// A point in scene coordinates (points, y down).
struct LayoutPoint {
    double x = 0, y = 0;
};

/// Where Graphviz put one ViewItem: its centre and size, in points.
struct ItemBox {
    double x = 0, y = 0; ///< centre
    double width = 0, height = 0;
};

/// One ViewEdge's route: cubic Bezier control points (p0, c1, c2, p1, c1, c2, p2, ...: 3n+1 points,
/// at least 2) from the tail item to where the arrowhead starts, and the arrowhead's tip.
struct EdgeRoute {
    std::vector<LayoutPoint> points;
    bool hasArrow = false; ///< arrowTip is set (Graphviz's eflag)
    LayoutPoint arrowTip;
    double penWidth = 1; ///< from ViewEdge::count: 1 for one node-level edge, thicker for more
};

/// The whole layout of one ViewGraph, index for index with its items and edges.
struct LayoutResult {
    std::vector<ItemBox> items;
    std::vector<EdgeRoute> edges;
    double width = 0, height = 0; ///< bounding box, from (0, 0)
    double seconds = 0; ///< time spent in Graphviz (build, layout, read back)
    /// Empty on success. A failed layout is reported through Result; this is for callers that keep a
    /// LayoutResult around (the async path) and want to carry why it is empty.
    std::string error;
};

/// How items are sized and spaced. Sizes are in points (1/72 inch), as Graphviz's.
struct LayoutOptions {
    double charWidth = 7.2; ///< average width of a name character as the scene draws it (bold)
    double detailCharWidth = 6.0; ///< the same for the detail line (regular, smaller)
    double nodeHeight = 36; ///< a node: name line + detail line
    double groupHeight = 48; ///< a group is drawn bigger than a node
    double minWidth = 60, maxWidth = 260; ///< labels longer than fits are elided by the scene
    double padding = 18; ///< horizontal, both sides together
    double nodeSep = 0.25, rankSep = 0.45; ///< inches, Graphviz's nodesep / ranksep
    /// Larger views are refused with an InvalidArgument error instead of keeping dot busy for
    /// minutes; the folded view is small, this only trips on a fully expanded large graph.
    std::size_t maxItems = 2000;
};

/// The width an item is given for its label and detail (the scene elides to the same width).
double itemWidth(const engine::view::ViewItem& item, const LayoutOptions& options);

/// Lays out `view` with dot (rank direction top to bottom). Blocks for as long as Graphviz works:
/// call it off the UI thread. Safe to call from several threads at once (they take turns). Errors:
/// an edge naming a missing item, a view over LayoutOptions::maxItems, Graphviz failing (its
/// message). An empty view gives an empty result.
engine::Result<LayoutResult> layoutView(const engine::view::ViewGraph& view, const LayoutOptions& options = {});

/// gvcVersion() of the context layoutView lays out with ("2.43.0"), or "unknown" when Graphviz
/// cannot make one. The About dialog shows it.
std::string graphvizVersion();

/// Finished layouts by ViewGraph::key, least recently used dropped first. Thread-safe.
class LayoutCache {
public:
    explicit LayoutCache(std::size_t capacity = 64);

    /// The layout stored for `key`, or null; a hit makes it the most recently used.
    std::shared_ptr<const LayoutResult> find(const std::string& key);
    /// Stores (or replaces) the layout for `key`, dropping the least recently used over capacity.
    void insert(const std::string& key, std::shared_ptr<const LayoutResult> layout);
    std::size_t size() const;
    std::size_t hits() const;
    std::size_t misses() const;

private:
    using Entry = std::pair<std::string, std::shared_ptr<const LayoutResult>>;
    mutable std::mutex m_mutex;
    std::size_t m_capacity;
    std::list<Entry> m_order; ///< front: most recently used
    std::unordered_map<std::string, std::list<Entry>::iterator> m_index;
    std::size_t m_hits = 0, m_misses = 0;
};

} // namespace gui::graph
