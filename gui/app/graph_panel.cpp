#include "gui/app/graph_panel.h"

#include "gui/app/panel_loader.h"
#include "gui/graph/graph_scene.h"
#include "gui/graph/graph_view_widget.h"
#include "storage/graph_store.h"
#include "storage/project_db.h"

#include <QLabel>
#include <QVBoxLayout>

namespace gui {

GraphPanel::GraphPanel(QWidget* parent)
    : QWidget(parent)
    , m_title(new QLabel("Pick a graph in the Project view."))
    , m_view(new graph::GraphViewWidget)
{
    m_title->setObjectName("graphTitle");
    m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_title);
    layout->addWidget(m_view, 1);
    connect(m_view->scene(), &graph::GraphScene::groupActivated, this, &GraphPanel::toggleGroup);
    connect(m_view->scene(), &graph::GraphScene::itemSelected, this, [this](int item) {
        if (item < 0 || item >= int(m_current.items.size()))
            return;
        const auto& it = m_current.items[size_t(item)];
        emit nodeSelected(it.kind == engine::view::ViewItem::Kind::Node ? it.index : -1);
    });
    connect(m_view, &graph::GraphViewWidget::viewShown, this, &GraphPanel::graphShown);
}

GraphPanel::~GraphPanel() = default;

void GraphPanel::showGraph(const QString& dbPath, qlonglong graphId)
{
    m_title->setText(QString("Loading graph %1 ...").arg(graphId));
    using Ptr = std::shared_ptr<const Loaded>;
    loadLatest<Ptr>(
        this, m_generation,
        [dbPath, graphId]() -> Ptr {
            auto out = std::make_shared<Loaded>();
            auto db = openProjectReadOnly(dbPath);
            if (!db) {
                out->error = QString::fromStdString(db.error().toString());
                return out;
            }
            auto g = storage::readGraph(*db, graphId);
            if (!g) {
                out->error = QString::fromStdString(g.error().toString());
                return out;
            }
            out->graph = std::move(g.value());
            if (auto reports = storage::readPassReports(*db, graphId))
                for (const auto& r : *reports)
                    for (const auto& rw : r.report.rewritten)
                        out->rewritten.insert(rw.node);
            out->grouping = engine::view::groupNodes(out->graph);
            out->title = QString("%1: %2 nodes%3")
                             .arg(QString::fromStdString(out->graph.id))
                             .arg(out->graph.nodes.size())
                             .arg(out->grouping.method == "none"
                                     ? QString()
                                     : QString(" (layers: %1)").arg(QString::fromStdString(out->grouping.method)));
            return out;
        },
        [this](Ptr loaded) {
            if (!loaded->error.isEmpty()) {
                m_title->setText(loaded->error);
                m_loaded.reset();
                m_current = {};
                m_view->setView(m_current);
                emit graphShown();
                return;
            }
            m_loaded = loaded;
            m_expanded.clear();
            m_title->setText(loaded->title);
            rebuild();
        });
}

void GraphPanel::toggleGroup(int groupId)
{
    if (!m_loaded)
        return;
    if (!m_expanded.erase(groupId))
        m_expanded.insert(groupId);
    rebuild();
}

void GraphPanel::rebuild()
{
    m_current = engine::view::buildView(m_loaded->graph, m_loaded->grouping, m_expanded, m_loaded->rewritten);
    m_view->setView(m_current);
}

} // namespace gui
