#pragma once
/// A laid-out graph view drawn as SVG, the way the window's scene draws it (graph_items.cpp): boxes
/// filled by role, groups as stacked sheets with a boxed "+", names and details elided in the
/// middle to fit, an orange border and "R" badge on what a pass rewrote, edges as cubic Bezier
/// paths with arrowheads, and a legend of the roles shown. Plain C++: no Qt, no Graphviz (the
/// layout is given), so reports (gui/report) can draw graphs without a display.
///
/// The SVG stands alone: width, height and viewBox on the root, colours and fonts as presentation
/// attributes (no CSS, no script, no links, nothing fetched), every text escaped. Each box is a
/// <g data-kind="node|group" data-item="INDEX"> with a <title> (name and detail, as the tooltip).
#include "engine/graph/graph.h"
#include "engine/graph/graph_view.h"
#include "gui/graph/graph_layout.h"

#include <set>
#include <string>

namespace gui::graph {

/// `layout` must be layoutView(view, options)'s result (same items and edges); otherwise the SVG is
/// an empty drawing that says so.
std::string drawViewSvg(
    const engine::view::ViewGraph& view, const LayoutResult& layout, const LayoutOptions& options = {});

/// `text` shortened in the middle with "…" to at most `maxChars` characters (UTF-8 aware), as the
/// scene's elidedText(Qt::ElideMiddle) does for its width.
std::string elideMiddle(const std::string& text, int maxChars);

/// A graph as the Graph view first shows it (gui/app/graph_panel.cpp) and the reports draw it:
/// grouped (engine::view::groupNodes), every group folded, the nodes in `rewritten` marked.
struct FoldedGraph {
    engine::view::Grouping grouping;
    engine::view::ViewGraph view;
};
FoldedGraph foldGraph(const engine::Graph& graph, const std::set<std::string>& rewritten = {});

} // namespace gui::graph
