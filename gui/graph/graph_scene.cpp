// Turning a laid-out ViewGraph into graphics items, and keeping selection in ViewItem indices.
#include "gui/graph/graph_scene.h"

#include "gui/graph/graph_items.h"

#include <set>

namespace gui::graph {

GraphScene::GraphScene(QObject* parent)
    : QGraphicsScene(parent)
{
    setBackgroundBrush(QColor(255, 255, 255));
    connect(this, &QGraphicsScene::selectionChanged, this, &GraphScene::onSelectionChanged);
}

// QGraphicsScene's destructor clears the items, which emits selectionChanged: by then this object is
// only a QGraphicsScene, so the slot would run on a destroyed GraphScene (UBSan: "downcast of address
// ... which does not point to an object of type 'GraphScene'"). Disconnect first.
GraphScene::~GraphScene()
{
    disconnect(this, &QGraphicsScene::selectionChanged, this, &GraphScene::onSelectionChanged);
}

void GraphScene::clearGraph()
{
    m_quiet = true;
    clear();
    m_quiet = false;
    m_boxes.clear();
    m_edges.clear();
    m_view = {};
    m_lastEmitted = -1;
    setSceneRect(QRectF());
}

void GraphScene::setGraph(const engine::view::ViewGraph& view, const LayoutResult& layout)
{
    const int selected = selectedItem();
    clearGraph();
    if (layout.items.size() != view.items.size() || layout.edges.size() != view.edges.size())
        return; // a layout of another view: show nothing rather than misplace
    m_view = view;
    for (std::size_t i = 0; i < view.items.size(); ++i) {
        auto* box = new ItemBoxItem(view.items[i], int(i), layout.items[i]);
        addItem(box);
        m_boxes.push_back(box);
    }
    for (std::size_t i = 0; i < view.edges.size(); ++i) {
        auto* edge = new EdgeItem(layout.edges[i], int(i));
        addItem(edge);
        m_edges.push_back(edge);
    }
    const double margin = 24;
    setSceneRect(QRectF(-margin, -margin, layout.width + 2 * margin, layout.height + 2 * margin)
                     .united(itemsBoundingRect().adjusted(-margin, -margin, margin, margin)));
    if (selected >= 0 && selected < int(m_boxes.size()))
        selectItem(selected);
}

void GraphScene::selectItem(int viewItemIndex)
{
    m_quiet = true;
    clearSelection();
    if (auto* box = boxItem(viewItemIndex))
        box->setSelected(true);
    m_quiet = false;
    m_lastEmitted = selectedItem();
}

int GraphScene::selectedItem() const
{
    for (auto* item : selectedItems())
        if (item->data(DataViewItem).toInt() >= 0 && item->data(DataKind).toString() != "edge")
            return item->data(DataViewItem).toInt();
    return -1;
}

void GraphScene::highlight(const std::vector<int>& items)
{
    const std::set<int> on(items.begin(), items.end());
    for (auto* box : m_boxes)
        box->setHighlighted(on.count(box->viewIndex()) > 0);
    for (std::size_t i = 0; i < m_edges.size(); ++i)
        m_edges[i]->setHighlighted(on.count(m_view.edges[i].from) && on.count(m_view.edges[i].to));
}

void GraphScene::mark(const std::vector<std::pair<int, QColor>>& items)
{
    for (auto* box : m_boxes)
        box->setHighlightColor(QColor());
    for (auto* edge : m_edges)
        edge->setHighlighted(false);
    for (const auto& [index, color] : items)
        if (auto* box = boxItem(index))
            box->setHighlightColor(color);
}

void GraphScene::activateItem(int viewItemIndex)
{
    auto* box = boxItem(viewItemIndex);
    if (box && box->isGroup())
        emit groupActivated(m_view.items[viewItemIndex].index);
}

ItemBoxItem* GraphScene::boxItem(int viewItemIndex) const
{
    return viewItemIndex >= 0 && viewItemIndex < int(m_boxes.size()) ? m_boxes[viewItemIndex] : nullptr;
}

void GraphScene::onSelectionChanged()
{
    if (m_quiet)
        return;
    const int now = selectedItem();
    if (now != m_lastEmitted) {
        m_lastEmitted = now;
        emit itemSelected(now);
    }
}

} // namespace gui::graph
