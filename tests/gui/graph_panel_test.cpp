// The Graph tab: a stored 8-layer decoder opens folded, a double-clicked group expands and folds
// again, and picking a graph in the Project view shows it in the window.
#include "engine/scenario/decoder_generator.h"
#include "engine/scenario/scenario.h"
#include "gui/app/graph_panel.h"
#include "gui/app/main_window.h"
#include "gui/app/project_model.h"
#include "gui/graph/async_layout.h"
#include "gui/graph/graph_canvas.h"
#include "gui/graph/graph_items.h"
#include "gui/graph/graph_scene.h"
#include "gui/graph/graph_svg.h"
#include "gui/graph/graph_view_widget.h"
#include "storage/graph_store.h"
#include "storage/importer.h"
#include "storage/project_db.h"
#include "tests/gui/session_util.h"

#include <QLabel>
#include <QLineEdit>
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
    void findReachesNodesInsideFolds();
    void clickingThePlusExpandsAndFitShowsEverything();
    void cachesFoldIntoTheirLayers();
    void headerSaysWhatWasFolded();

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
    QVERIFY(window.graphPanel()->findChild<QLabel*>("graphTitle")->text().startsWith("decode · "));
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

// Find searches every node, not only what is drawn: a match inside the folded layers opens them,
// is selected and centred, and the status says where it was; Enter goes to the next match.
void GraphPanelTest::findReachesNodesInsideFolds()
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
    const int cache5 = graph->find("l5_k_cache");
    QVERIFY(cache5 >= 0);
    QCOMPARE(panel.currentView().items[size_t(panel.currentView().itemOfNode[size_t(cache5)])].kind,
        engine::view::ViewItem::Kind::Group);

    QCOMPARE(panel.findNode("L5_K_CACHE"), cache5);
    QTRY_COMPARE_WITH_TIMEOUT(selected.count(), 1, 20000);
    QCOMPARE(selected.back().front().toInt(), cache5);
    const int item = panel.currentView().itemOfNode[size_t(cache5)];
    QCOMPARE(panel.view()->scene()->selectedItem(), item);
    QCOMPARE(panel.currentView().items[size_t(item)].label, std::string("l5_k_cache"));
    QVERIFY(panel.view()->canvas()->visibleSceneRect().contains(panel.view()->scene()->boxItem(item)->scenePos()));
    QVERIFY2(panel.view()->statusText().startsWith("1 of 1 (inside layers 0-7 (x8) › layer 5"),
        qPrintable(panel.view()->statusText()));

    // Enter in the search box: the next of the 8 caches, by target or name.
    auto* box = panel.findChild<QLineEdit*>("graphFind");
    QVERIFY(box);
    box->setText("k_cache");
    QTest::keyClick(box, Qt::Key_Return);
    QTRY_COMPARE_WITH_TIMEOUT(selected.count(), 2, 20000);
    QCOMPARE(selected.back().front().toInt(), graph->find("l0_k_cache"));
    QTest::keyClick(box, Qt::Key_Return);
    QTRY_COMPARE_WITH_TIMEOUT(selected.count(), 3, 20000);
    QCOMPARE(selected.back().front().toInt(), graph->find("l1_k_cache"));
    QVERIFY2(panel.view()->statusText().startsWith("2 of 8 (inside"), qPrintable(panel.view()->statusText()));
    QCOMPARE(panel.findNode("no_such_node_anywhere"), -1);
    QVERIFY(panel.view()->statusText().contains("no node matches"));
}

// A click on the folded layers' "+" expands them; after expanding every group, fit (Ctrl+0) shows
// the whole drawing.
void GraphPanelTest::clickingThePlusExpandsAndFitShowsEverything()
{
    gui::ProjectSession session;
    gui::GraphPanel panel(&session);
    panel.resize(900, 700);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QSignalSpy shown(&panel, &gui::GraphPanel::graphShown);
    guitest::select(session, m_project, "graph", m_decode);
    QVERIFY(shown.wait(20000));
    const auto* grouping = panel.grouping();
    int layers = -1;
    for (const auto& g : grouping->groups)
        if (g.kind == "layers")
            layers = g.id;
    QVERIFY(layers >= 0);
    int item = -1;
    for (size_t i = 0; i < panel.currentView().items.size(); ++i)
        if (panel.currentView().items[i].kind == engine::view::ViewItem::Kind::Group
            && panel.currentView().items[i].index == layers)
            item = int(i);
    QVERIFY(item >= 0);
    auto* canvas = panel.view()->canvas();
    auto* box = panel.view()->scene()->boxItem(item);
    canvas->centerOn(box);
    const QPoint plus = canvas->mapFromScene(box->mapToScene(box->markerRect().center()));
    QVERIFY(canvas->viewport()->rect().contains(plus));
    QTest::mouseClick(canvas->viewport(), Qt::LeftButton, {}, plus);
    QVERIFY(shown.wait(20000));
    QVERIFY(panel.expanded().count(layers));
    QVERIFY(panel.currentView().items.size() > 8);

    for (const auto& g : grouping->groups)
        if (!panel.expanded().count(g.id))
            panel.toggleGroup(g.id);
    QVERIFY(shown.wait(30000));
    QCOMPARE(panel.expanded().size(), grouping->groups.size());
    QTRY_VERIFY_WITH_TIMEOUT(!panel.view()->layouter()->busy(), 30000);
    QVERIFY(panel.currentView().items.size() > 100);
    panel.view()->fitAll();
    const QRect drawn = canvas->mapFromScene(panel.view()->scene()->itemsBoundingRect()).boundingRect();
    QVERIFY2(canvas->viewport()->rect().contains(drawn),
        qPrintable(QString("drawn %1,%2 %3x%4 in %5x%6")
                       .arg(drawn.x())
                       .arg(drawn.y())
                       .arg(drawn.width())
                       .arg(drawn.height())
                       .arg(canvas->viewport()->width())
                       .arg(canvas->viewport()->height())));
}

// A 32-layer decoder's first view: its K/V caches (mutated inputs) are inside the folded layers,
// and only a few items are outside them.
void GraphPanelTest::cachesFoldIntoTheirLayers()
{
    engine::scenario::DecoderSpec spec;
    spec.layers = 32;
    auto s = engine::scenario::parseScenario(engine::scenario::decoderScenarioJson(spec, "{}", { 1 }, 1), "d.json");
    QVERIFY(s.ok());
    const engine::Graph* graph = s->graph("decode");
    QVERIFY(graph);
    const auto folded = gui::graph::foldGraph(*graph);
    int caches = 0;
    for (size_t n = 0; n < graph->nodes.size(); ++n) {
        if (graph->nodes[n].name.find("_cache") == std::string::npos)
            continue;
        ++caches;
        const auto& item = folded.view.items[size_t(folded.view.itemOfNode[n])];
        QCOMPARE(item.kind, engine::view::ViewItem::Kind::Group);
    }
    QCOMPARE(caches, 64);
    int outside = 0;
    for (const auto& item : folded.view.items)
        outside += item.kind == engine::view::ViewItem::Kind::Node ? 1 : 0;
    QVERIFY2(outside <= 14, qPrintable(QString("%1 items outside the layers").arg(outside)));
}

void GraphPanelTest::headerSaysWhatWasFolded()
{
    gui::ProjectSession session;
    gui::GraphPanel panel(&session);
    QSignalSpy shown(&panel, &gui::GraphPanel::graphShown);
    guitest::select(session, m_project, "graph", m_decode);
    QVERIFY(shown.wait(20000));
    const QString title = panel.findChild<QLabel*>("graphTitle")->text();
    QCOMPARE(title, panel.headerText());
    QVERIFY2(title.startsWith("decode · ")
            && title.contains(" nodes · 8 repeated layers folded (found from node names l0_, l1_ …)"),
        qPrintable(title));

    // Graph > Open All Folds: every node drawn, and the header says the layers are open; Fold
    // Repeated Layers: back to the folded view.
    const int foldedItems = int(panel.view()->scene()->items().size());
    const size_t nodes = panel.graph()->nodes.size();
    QVERIFY(panel.currentView().items.size() < nodes);
    panel.setAllFoldsOpen(true);
    QVERIFY(shown.wait(20000));
    QCOMPARE(panel.currentView().items.size(), nodes);
    for (const auto& item : panel.currentView().items)
        QCOMPARE(item.kind, engine::view::ViewItem::Kind::Node);
    const QString open = panel.findChild<QLabel*>("graphTitle")->text();
    QVERIFY2(open.contains(" · 8 repeated layers opened (Ctrl+Shift+L folds them)"), qPrintable(open));
    panel.setAllFoldsOpen(false);
    QVERIFY(shown.wait(20000));
    QVERIFY(panel.currentView().items.size() < nodes);
    QCOMPARE(int(panel.view()->scene()->items().size()), foldedItems);
    QCOMPARE(panel.findChild<QLabel*>("graphTitle")->text(), title);
}

QTEST_MAIN(GraphPanelTest)
#include "graph_panel_test.moc"
