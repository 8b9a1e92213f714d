// The graph view widget: wiring between AsyncLayout, GraphScene, the canvas, minimap and search.
#include "gui/graph/graph_view_widget.h"

#include "gui/graph/async_layout.h"
#include "gui/graph/graph_canvas.h"
#include "gui/graph/graph_items.h"
#include "gui/graph/graph_scene.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QToolButton>
#include <QVBoxLayout>

namespace gui::graph {

GraphViewWidget::GraphViewWidget(QWidget* parent)
    : QWidget(parent)
    , m_scene(new GraphScene(this))
    , m_canvas(new ZoomView(this))
    , m_search(new QLineEdit(this))
    , m_status(new QLabel(this))
    , m_busy(new QProgressBar(this))
    , m_cancel(new QToolButton(this))
    , m_layout(new AsyncLayout(this))
{
    m_canvas->setScene(m_scene);
    m_minimap = new MiniMap(m_canvas, m_canvas);
    m_search->setPlaceholderText("Find node (name or target), Enter for next");
    m_search->setClearButtonEnabled(true);
    m_status->setText("no graph");

    m_busy->setRange(0, 0); // busy, no percentage: Graphviz reports no progress
    m_busy->setMaximumWidth(120);
    m_busy->hide();
    m_cancel->setText("Cancel");
    m_cancel->setObjectName("cancelLayout");
    m_cancel->setToolTip("Stop waiting for this layout and keep the graph as it was (Esc)");
    m_cancel->setShortcut(QKeySequence(Qt::Key_Escape));
    m_cancel->hide();
    auto* bar = new QHBoxLayout;
    bar->addWidget(m_search, 1);
    bar->addWidget(m_status, 1);
    bar->addWidget(m_busy);
    bar->addWidget(m_cancel);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(bar);
    layout->addWidget(m_canvas, 1);

    connect(m_search, &QLineEdit::returnPressed, this, [this] { findNext(m_search->text()); });
    connect(m_layout, &AsyncLayout::started, this, [this] {
        m_status->setText("laying out…");
        m_busy->show();
        m_cancel->show();
    });
    connect(m_cancel, &QToolButton::clicked, this, &GraphViewWidget::cancelLayout);
    connect(m_layout, &AsyncLayout::ready, this, &GraphViewWidget::onLayoutReady);
    connect(m_layout, &AsyncLayout::failed, this, &GraphViewWidget::onLayoutFailed);
    connect(m_canvas, &ZoomView::visibleRectChanged, m_minimap, qOverload<>(&QWidget::update));
}

GraphViewWidget::~GraphViewWidget() = default;

void GraphViewWidget::setView(const engine::view::ViewGraph& view)
{
    m_pending = view;
    m_lastMatch = -1;
    if (view.items.empty()) {
        m_layout->cancel();
        m_busy->hide();
        m_cancel->hide();
        m_scene->clearGraph();
        m_minimap->refit();
        m_status->setText("empty graph");
        emit viewShown();
        return;
    }
    m_status->setText("laying out…");
    m_layout->request(view);
}

void GraphViewWidget::cancelLayout()
{
    if (!m_layout->busy())
        return;
    m_layout->cancel();
    m_busy->hide();
    m_cancel->hide();
    m_pending = m_scene->view();
    m_status->setText("layout cancelled: the graph is shown as it was");
    emit layoutCancelled();
}

void GraphViewWidget::onLayoutReady(const QString& key, std::shared_ptr<const LayoutResult> layout)
{
    if (key.toStdString() != m_pending.key)
        return;
    m_busy->hide();
    m_cancel->hide();
    const bool sameGraph = !m_scene->view().items.empty();
    m_scene->setGraph(m_pending, *layout);
    m_minimap->refit();
    if (m_fitOnShow || !sameGraph)
        fitAll();
    m_fitOnShow = false;
    m_status->setText(QString("%1 items, %2 edges · layout %3 ms")
                          .arg(m_pending.items.size())
                          .arg(m_pending.edges.size())
                          .arg(layout->seconds * 1000, 0, 'f', 0));
    emit viewShown();
}

void GraphViewWidget::onLayoutFailed(const QString& key, const QString& message)
{
    if (key.toStdString() != m_pending.key)
        return;
    m_busy->hide();
    m_cancel->hide();
    m_scene->clearGraph();
    m_minimap->refit();
    m_status->setText("layout failed: " + message);
    emit viewShown();
}

void GraphViewWidget::fitAll()
{
    m_canvas->fitAll();
}

int GraphViewWidget::findNext(const QString& text)
{
    const QString query = text.trimmed();
    const auto& items = m_scene->view().items;
    if (query.isEmpty() || items.empty())
        return -1;
    if (query != m_lastQuery)
        m_lastMatch = -1;
    m_lastQuery = query;
    std::vector<int> matches;
    for (std::size_t i = 0; i < items.size(); ++i)
        if (QString::fromStdString(items[i].label).contains(query, Qt::CaseInsensitive)
            || QString::fromStdString(items[i].detail).contains(query, Qt::CaseInsensitive))
            matches.push_back(int(i));
    if (matches.empty()) {
        m_status->setText(QString("no match for \"%1\"").arg(query));
        return -1;
    }
    auto next = std::upper_bound(matches.begin(), matches.end(), m_lastMatch);
    if (next == matches.end())
        next = matches.begin();
    m_lastMatch = *next;
    m_status->setText(QString("match %1 of %2").arg(next - matches.begin() + 1).arg(matches.size()));
    reveal(m_lastMatch, true);
    return m_lastMatch;
}

void GraphViewWidget::reveal(int viewItemIndex, bool notify)
{
    m_scene->selectItem(viewItemIndex);
    if (QGraphicsItem* box = m_scene->boxItem(viewItemIndex))
        m_canvas->centerOn(box);
    if (notify)
        emit m_scene->itemSelected(viewItemIndex);
}

QString GraphViewWidget::statusText() const
{
    return m_status->text();
}

void GraphViewWidget::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    placeMiniMap();
}

void GraphViewWidget::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    placeMiniMap();
}

void GraphViewWidget::placeMiniMap()
{
    const QRect area = m_canvas->viewport()->geometry();
    const int w = std::max(80, area.width() / 5), h = std::max(80, area.height() / 4);
    m_minimap->setGeometry(area.right() - w - 6, area.bottom() - h - 6, w, h);
    m_minimap->refit();
}

} // namespace gui::graph
