// The Graph tab: a stored 8-layer decoder opens folded, a double-clicked group expands and folds
// again, and picking a graph in the Project view shows it in the window.
#include "engine/scenario/decoder_generator.h"
#include "gui/app/graph_panel.h"
#include "gui/app/main_window.h"
#include "gui/app/project_model.h"
#include "gui/graph/graph_scene.h"
#include "gui/graph/graph_view_widget.h"
#include "storage/graph_store.h"
#include "storage/importer.h"
#include "storage/project_db.h"
#include "tests/gui/session_util.h"

#include <QLabel>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTreeView>
#include <QtTest>
#include <fstream>

class GraphPanelTest : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void opensFoldedAndExpands();
    void projectSelectionShowsTheGraph();
    void selectingANodeOpensItsGroups();

private:
    QTemporaryDir m_dir;
    QString m_project;
    qlonglong m_decode = 0;
};

void GraphPanelTest::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(m_dir.isValid());
    engine::scenario::DecoderSpec spec;
    spec.layers = 8;
    const std::string scenario = m_dir.filePath("decoder8.json").toStdString();
    std::ofstream(scenario) << engine::scenario::decoderScenarioJson(spec, "{}", { 1, 2 }, 2, "decoder8");
    m_project = m_dir.filePath("p.aclgi");
    auto results = storage::importPaths(m_project.toStdString(), { scenario });
    QVERIFY(results.ok());
    QCOMPARE((*results)[0].status, storage::SourceResult::Status::Imported);
    auto db = storage::openProject(m_project.toStdString());
    QVERIFY(db.ok());
    auto graphs = storage::listGraphs(*db);
    QVERIFY(graphs.ok());
    for (const auto& g : *graphs)
        if (g.name == "decode" && g.role == "graph")
            m_decode = g.id;
    QVERIFY(m_decode > 0);
}

void GraphPanelTest::opensFoldedAndExpands()
{
    gui::ProjectSession session;
    gui::GraphPanel panel(&session);
    panel.resize(900, 700);
    panel.show();
    QSignalSpy shown(&panel, &gui::GraphPanel::graphShown);
    guitest::select(session, m_project, "graph", m_decode);
    QVERIFY(shown.wait(20000));
    const auto* grouping = panel.grouping();
    QVERIFY(grouping);
    int layers = -1;
    for (const auto& g : grouping->groups)
        if (g.kind == "layers")
            layers = g.id;
    QVERIFY(layers >= 0);
    QCOMPARE(grouping->groups[size_t(layers)].repeat, 8);
    const size_t folded = panel.currentView().items.size();
    QVERIFY(folded < 20);
    QCOMPARE(panel.view()->scene()->selectedItem(), -1);

    // Double-clicking the group (what GraphScene::groupActivated reports) expands it: one item per layer.
    emit panel.view()->scene()->groupActivated(layers);
    QVERIFY(shown.wait(20000));
    QCOMPARE(panel.currentView().items.size(), folded - 1 + 8);
    QVERIFY(panel.expanded().count(layers));
    // And again folds it.
    panel.toggleGroup(layers);
    QVERIFY(shown.wait(20000));
    QCOMPARE(panel.currentView().items.size(), folded);

    // A graph id that is not there: the title says so, no crash.
    guitest::select(session, m_project, "graph", 987654);
    QVERIFY(shown.wait(20000));
    QVERIFY(panel.findChild<QLabel*>("graphTitle")->text().contains("987654"));
    QCOMPARE(panel.currentView().items.size(), size_t(0));
}

void GraphPanelTest::projectSelectionShowsTheGraph()
{
    gui::MainWindow window({ m_project });
    QSignalSpy project(&window, &gui::MainWindow::projectShown);
    window.show();
    QVERIFY(project.wait(20000));
    gui::ProjectModel* model = window.projectModel();
    const QModelIndex decode = model->find("graph", m_decode);
    QVERIFY(decode.isValid());
    QSignalSpy shown(window.graphPanel(), &gui::GraphPanel::graphShown);
    window.projectTree()->setCurrentIndex(decode);
    QVERIFY(shown.wait(20000));
    QVERIFY(window.graphPanel()->isVisible()); // the window's centre
    QVERIFY(window.graphPanel()->findChild<QLabel*>("graphTitle")->text().startsWith("decode:"));
    QVERIFY(!window.graphPanel()->currentView().items.empty());
}

// A node inside the folded layers (a block clicked in the Memory view names it): its layer group and
// the layers group around it open, and it is the selected item.
void GraphPanelTest::selectingANodeOpensItsGroups()
{
    gui::ProjectSession session;
    gui::GraphPanel panel(&session);
    panel.resize(900, 700);
    panel.show();
    QSignalSpy shown(&panel, &gui::GraphPanel::graphShown);
    QSignalSpy selected(&panel, &gui::GraphPanel::nodeSelected);
    guitest::select(session, m_project, "graph", m_decode);
    QVERIFY(shown.wait(20000));
    const engine::Graph* graph = panel.graph();
    QVERIFY(graph);
    // A node of layer 5, which is folded away.
    const auto* grouping = panel.grouping();
    int node = -1;
    for (size_t n = 0; n < graph->nodes.size() && node < 0; ++n) {
        const int g = grouping->groupOf[n];
        if (g >= 0 && grouping->groups[size_t(g)].kind == "layer" && grouping->groups[size_t(g)].layerIndex == 5)
            node = int(n);
    }
    QVERIFY(node >= 0);
    const QString name = QString::fromStdString(graph->nodes[size_t(node)].name);
    const int folded = panel.currentView().itemOfNode[size_t(node)];
    QCOMPARE(panel.currentView().items[size_t(folded)].kind, engine::view::ViewItem::Kind::Group);

    QVERIFY(panel.selectNode(m_decode, name));
    QTRY_COMPARE_WITH_TIMEOUT(selected.count(), 1, 20000);
    QCOMPARE(selected.front().front().toInt(), node);
    const int item = panel.view()->scene()->selectedItem();
    QCOMPARE(item, panel.currentView().itemOfNode[size_t(node)]);
    QCOMPARE(QString::fromStdString(panel.currentView().items[size_t(item)].label), name);
    for (int g = grouping->groupOf[size_t(node)]; g >= 0; g = grouping->groups[size_t(g)].parent)
        QVERIFY(panel.expanded().count(g));

    // Quietly (a block click: the Inspector keeps the block) and a name the graph lacks.
    QVERIFY(panel.selectNode(m_decode, QString::fromStdString(graph->nodes[0].name), false));
    QTRY_COMPARE_WITH_TIMEOUT(panel.view()->scene()->selectedItem(), panel.currentView().itemOfNode[0], 20000);
    QCOMPARE(selected.count(), 1);
    QVERIFY(!panel.selectNode(m_decode, "no_such_node"));
}

QTEST_MAIN(GraphPanelTest)
#include "graph_panel_test.moc"
