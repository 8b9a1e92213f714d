// The graph view widget: wiring between AsyncLayout, GraphScene, the canvas, minimap and search.
#include "gui/graph/graph_view_widget.h"

#include "gui/graph/async_layout.h"
#include "gui/graph/graph_canvas.h"
#include "gui/graph/graph_items.h"
#include "gui/graph/graph_palette.h"
#include "gui/graph/graph_scene.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPainter>
#include <QProgressBar>
#include <QToolButton>
#include <QVBoxLayout>
#include <set>

namespace gui::graph {

/// The legend under the canvas: a swatch per line (a filled box, or an outlined one for outline
/// and badge colours, bordered so that pale fills show), wrapped to the widget's width.
class LegendStrip : public QWidget {
public:
    using QWidget::QWidget;

    void setLines(const std::vector<GraphViewWidget::LegendLine>& lines)
    {
        m_lines = lines;
        updateGeometry();
        update();
    }
    bool hasHeightForWidth() const override { return true; }
    int heightForWidth(int width) const override { return layoutLines(width, nullptr); }
    QSize sizeHint() const override { return { 400, heightForWidth(std::max(width(), 400)) }; }
    QSize minimumSizeHint() const override { return { 100, heightForWidth(std::max(width(), 100)) }; }

protected:
    void paintEvent(QPaintEvent*) override
    {
        QPainter p(this);
        layoutLines(width(), &p);
    }

private:
    // Places (and, with a painter, draws) the lines left to right, wrapping; returns the height.
    int layoutLines(int width, QPainter* p) const
    {
        const QFontMetrics fm(font());
        const int box = fm.height() - 4, gap = 14, pad = 4, row = fm.height() + 2;
        int x = pad, y = pad;
        for (const auto& line : m_lines) {
            const int w = box + 5 + fm.horizontalAdvance(line.label);
            if (x > pad && x + w > width - pad) {
                x = pad;
                y += row;
            }
            if (p) {
                const QRect swatch(x, y + (row - box) / 2, box, box);
                if (line.outline) {
                    p->setPen(QPen(line.color, 2.5));
                    p->setBrush(Qt::white);
                } else {
                    p->setPen(QPen(QColor(117, 117, 117), 1));
                    p->setBrush(line.color);
                }
                p->drawRect(swatch);
                p->setPen(palette().color(QPalette::WindowText));
                p->drawText(QRect(x + box + 5, y, w, row), Qt::AlignVCenter | Qt::AlignLeft, line.label);
            }
            x += w + gap;
        }
        return m_lines.empty() ? 0 : y + row + pad;
    }

    std::vector<GraphViewWidget::LegendLine> m_lines;
};

GraphViewWidget::GraphViewWidget(QWidget* parent)
    : QWidget(parent)
    , m_scene(new GraphScene(this))
    , m_canvas(new ZoomView(this))
    , m_search(new QLineEdit(this))
    , m_status(new QLabel(this))
    , m_busy(new QProgressBar(this))
    , m_cancel(new QToolButton(this))
    , m_legendToggle(new QToolButton(this))
    , m_legend(new LegendStrip(this))
    , m_layout(new AsyncLayout(this, sceneLayoutOptions()))
{
    m_canvas->setScene(m_scene);
    m_minimap = new MiniMap(m_canvas, m_canvas);
    m_search->setPlaceholderText("Find node (name or target), Enter for next");
    m_search->setClearButtonEnabled(true);
    m_search->setObjectName("graphFind");
    m_status->setText("no graph");

    m_busy->setRange(0, 0); // busy, no percentage: Graphviz reports no progress
    m_busy->setMaximumWidth(120);
    m_busy->hide();
    m_cancel->setText("Cancel");
    m_cancel->setObjectName("cancelLayout");
    m_cancel->setToolTip("Stop waiting for this layout and keep the graph as it was (Esc)");
    m_cancel->setShortcut(QKeySequence(Qt::Key_Escape));
    m_cancel->hide();
    m_legendToggle->setText("Legend");
    m_legendToggle->setObjectName("legendToggle");
    m_legendToggle->setCheckable(true);
    m_legendToggle->setChecked(true);
    m_legendToggle->setToolTip("Show or hide what each colour means");
    m_legend->setObjectName("graphLegend");
    m_legend->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Preferred);
    auto* bar = new QHBoxLayout;
    bar->addWidget(m_search, 1);
    bar->addWidget(m_status, 1);
    bar->addWidget(m_busy);
    bar->addWidget(m_cancel);
    bar->addWidget(m_legendToggle);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(bar);
    layout->addWidget(m_canvas, 1);
    layout->addWidget(m_legend);

    connect(m_search, &QLineEdit::returnPressed, this, [this] {
        if (m_finder)
            m_finder(m_search->text());
        else
            findNext(m_search->text());
    });
    connect(m_legendToggle, &QToolButton::toggled, m_legend, &QWidget::setVisible);
    connect(m_scene, &QGraphicsScene::selectionChanged, this, &GraphViewWidget::updateLegend);
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

// The scene, a child, is deleted after this object's members: its clear() emits selectionChanged,
// which must not reach updateLegend() then.
GraphViewWidget::~GraphViewWidget()
{
    disconnect(m_scene, nullptr, this, nullptr);
}

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
        updateLegend();
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
        showTop();
    m_fitOnShow = false;
    updateLegend();
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

void GraphViewWidget::showTop()
{
    m_canvas->showTop();
}

void GraphViewWidget::setFinder(std::function<void(const QString&)> finder)
{
    m_finder = std::move(finder);
}

void GraphViewWidget::setStatusText(const QString& text)
{
    m_status->setText(text);
}

void GraphViewWidget::setMarkLegend(const std::vector<LegendLine>& lines)
{
    m_markLegend = lines;
    updateLegend();
}

bool GraphViewWidget::legendVisible() const
{
    return m_legendToggle->isChecked();
}

void GraphViewWidget::updateLegend()
{
    const auto& view = m_scene->view();
    std::vector<LegendLine> lines;
    std::set<engine::view::NodeRole> roles;
    bool groups = false, rewritten = false;
    for (const auto& item : view.items) {
        if (item.kind == engine::view::ViewItem::Kind::Group)
            groups = true;
        else
            roles.insert(item.role);
        rewritten = rewritten || item.rewritten;
    }
    for (const auto& entry : legend())
        if (roles.count(entry.role))
            lines.push_back({ entry.label, entry.color });
    if (groups)
        lines.push_back({ "folded group (click + to open)", paletteColor(palette::kGroupFill) });
    if (rewritten)
        lines.push_back({ "rewritten by a pass (R)", paletteColor(palette::kRewritten), true });
    if (m_scene->selectedItem() >= 0)
        lines.push_back({ "selected", paletteColor(palette::kSelected), true });
    for (const auto& mark : m_markLegend)
        lines.push_back(mark);
    m_legendLines = lines;
    m_legend->setLines(lines);
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
