#pragma once
/// The graph view's scene: one box per visible ViewItem and one arrow per ViewEdge, placed where
/// Graphviz put them. It owns selection and highlight state; it does not lay anything out.
#include "engine/graph/graph_view.h"
#include "gui/graph/graph_layout.h"

#include <QColor>
#include <QGraphicsScene>
#include <utility>
#include <vector>

namespace gui::graph {

class EdgeItem;
class ItemBoxItem;

/// Builds items from a (ViewGraph, LayoutResult) pair and keeps the selection in ViewItem indices.
/// Every item carries its indices through QGraphicsItem::setData (see ItemDataKey).
class GraphScene : public QGraphicsScene {
    Q_OBJECT
public:
    explicit GraphScene(QObject* parent = nullptr);
    ~GraphScene() override;

    /// Replaces the scene's contents with `view` placed by `layout` (index for index). The
    /// selection survives when the selected item's index is still valid.
    void setGraph(const engine::view::ViewGraph& view, const LayoutResult& layout);
    /// Removes everything.
    void clearGraph();
    const engine::view::ViewGraph& view() const { return m_view; }

    /// Selects the item (-1: nothing) without emitting itemSelected (the caller already knows).
    void selectItem(int viewItemIndex);
    /// The selected ViewItem index, -1 when none.
    int selectedItem() const;
    /// Outlines `items` (ViewItem indices) and the edges between them; replaces the last highlight.
    void highlight(const std::vector<int>& items);
    /// Outlines each listed item (ViewItem index) in its colour; replaces the last highlight or marks.
    void mark(const std::vector<std::pair<int, QColor>>& items);
    /// What a double-click on item `viewItemIndex` does: a group emits groupActivated(group id).
    void activateItem(int viewItemIndex);
    /// The box of ViewItem `viewItemIndex`, null when out of range.
    ItemBoxItem* boxItem(int viewItemIndex) const;

signals:
    /// The user selected an item (ViewItem index; -1 when the selection was cleared).
    void itemSelected(int viewItemIndex);
    /// A group was double-clicked: the window expands or collapses group `groupId` and rebuilds.
    void groupActivated(int groupId);

private:
    void onSelectionChanged();

    engine::view::ViewGraph m_view;
    std::vector<ItemBoxItem*> m_boxes;
    std::vector<EdgeItem*> m_edges;
    bool m_quiet = false; ///< selection changed by code: no itemSelected
    int m_lastEmitted = -1;
};

} // namespace gui::graph
