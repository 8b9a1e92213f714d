#pragma once
/// The graphics items of the graph view: a box per ViewItem (node or group) and a routed arrow per
/// ViewEdge, plus the colour palette by NodeRole (the legend's data).
#include "engine/graph/graph_view.h"
#include "gui/graph/graph_layout.h"
#include "gui/graph/graph_palette.h"

#include <QColor>
#include <QGraphicsItem>
#include <QGraphicsPathItem>
#include <QString>
#include <vector>

namespace gui::graph {

/// QGraphicsItem::data keys set on every item of a GraphScene.
enum ItemDataKey {
    DataViewItem = 0, ///< int: index into ViewGraph::items (-1 on edges)
    DataKind = 1, ///< QString: "node", "group" or "edge"
    DataViewEdge = 2, ///< int: index into ViewGraph::edges (edges only)
    DataExpandable = 3, ///< bool: a group, double-click expands or collapses it
};

/// Fill colour of a node by its role.
QColor roleColor(engine::view::NodeRole role);
/// The legend's text for a role ("parameter", "mutated input", ...).
QString roleLabel(engine::view::NodeRole role);

/// One line of the legend.
struct LegendEntry {
    engine::view::NodeRole role;
    QString label;
    QColor color;
};
/// Every role with its label and colour, in a fixed order.
std::vector<LegendEntry> legend();
/// Layout options whose character widths are measured from the fonts the boxes are drawn with
/// (the widest of the name's characters, so that a measured name is not elided).
LayoutOptions sceneLayoutOptions();
/// The colour of a palette entry.
QColor paletteColor(const Rgb& rgb);

/// A node or group box centred on its position: rounded rectangle filled by role (groups: a
/// distinct stacked style with a "+" marker, which a click on it expands, and member count), name
/// and detail lines elided at the end to fit, a teal badge when a pass rewrote it, a blue outline
/// when selected and a thick coloured one when highlighted (magenta, or the colour the stepper's
/// focus gives it).
///
/// Level of detail: text smaller than kMinTextPixels on screen is not drawn (a node is then a
/// coloured box), and a group's title is drawn larger, up to the box's height, so that a zoomed-out
/// overview still names its groups.
class ItemBoxItem : public QGraphicsItem {
public:
    ItemBoxItem(const engine::view::ViewItem& item, int viewIndex, const ItemBox& box);

    QRectF boundingRect() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;
    void setHighlighted(bool on);
    bool highlighted() const { return m_highlight.isValid(); }
    /// Outlines the box in `color` (invalid: no outline), e.g. by the stepper's focus role.
    void setHighlightColor(const QColor& color);
    QColor highlightColor() const { return m_highlight; }
    int viewIndex() const { return m_viewIndex; }
    bool isGroup() const { return m_item.kind == engine::view::ViewItem::Kind::Group; }
    /// A group's "+" marker, in item coordinates (empty for a node): a click there expands it.
    QRectF markerRect() const;

    /// Below this many pixels on screen, text is not drawn.
    static constexpr double kMinTextPixels = 5;
    /// A box shorter than this on screen is drawn as a block of its colour (no corners, text or sheets).
    static constexpr double kSpeckPixels = 6;

protected:
    void mousePressEvent(QGraphicsSceneMouseEvent* event) override;
    void mouseDoubleClickEvent(QGraphicsSceneMouseEvent* event) override;

private:
    QRectF rect() const { return QRectF(-m_width / 2, -m_height / 2, m_width, m_height); }
    /// The "R" badge of a rewritten node (its letter only where legible).
    void drawBadge(QPainter* painter, const QRectF& r, double lod) const;

    engine::view::ViewItem m_item;
    int m_viewIndex;
    double m_width, m_height;
    QColor m_highlight; ///< invalid: not highlighted
};

/// An edge: the Bezier route Graphviz gave it and an arrowhead at the target, thicker for edges
/// that stand for more node-level edges.
class EdgeItem : public QGraphicsPathItem {
public:
    EdgeItem(const EdgeRoute& route, int edgeIndex);

    QRectF boundingRect() const override;
    QPainterPath shape() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;
    void setHighlighted(bool on);

private:
    QPolygonF m_arrow;
    double m_width;
    bool m_highlighted = false;
};

} // namespace gui::graph
