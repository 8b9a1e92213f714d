// The graph view's scene and widget: items from a laid-out ViewGraph, selection and group
// activation, search, and a screenshot of a hand-built decoder view.
#include "graph_test_views.h"
#include "gui/app/graph_panel.h"
#include "gui/graph/async_layout.h"
#include "gui/graph/graph_canvas.h"
#include "gui/graph/graph_items.h"
#include "gui/graph/graph_layout.h"
#include "gui/graph/graph_palette.h"
#include "gui/graph/graph_scene.h"
#include "gui/graph/graph_view_widget.h"

#include <QGraphicsView>
#include <QLineEdit>
#include <QSignalSpy>
#include <QToolButton>
#include <QtTest>
#include <map>
#include <set>

using namespace graph_test;
using namespace gui::graph;

class GraphViewTest : public QObject {
    Q_OBJECT
private slots:
    void sceneHasOneItemPerViewItemAndEdge()
    {
        const ViewGraph v = decoder();
        auto layout = layoutView(v);
        QVERIFY(layout.ok());
        GraphScene scene;
        scene.setGraph(v, *layout);
        QCOMPARE(scene.items().size(), int(v.items.size() + v.edges.size()));
        std::set<int> itemIds, edgeIds;
        for (auto* item : scene.items()) {
            const QString kind = item->data(DataKind).toString();
            if (kind == "edge") {
                edgeIds.insert(item->data(DataViewEdge).toInt());
                continue;
            }
            const int id = item->data(DataViewItem).toInt();
            itemIds.insert(id);
            QCOMPARE(kind, v.items[id].kind == ViewItem::Kind::Group ? QString("group") : QString("node"));
            QCOMPARE(item->data(DataExpandable).toBool(), kind == "group");
            QVERIFY(scene.sceneRect().contains(item->sceneBoundingRect()));
        }
        QCOMPARE(int(itemIds.size()), int(v.items.size()));
        QCOMPARE(int(edgeIds.size()), int(v.edges.size()));
        // A layout of another view is refused rather than misplaced.
        scene.setGraph(chain(4), *layout);
        QCOMPARE(scene.items().size(), 0);
    }

    void selectionIsSyncedInViewItemIndices()
    {
        const ViewGraph v = decoder();
        GraphScene scene;
        scene.setGraph(v, *layoutView(v));
        QSignalSpy selected(&scene, &GraphScene::itemSelected);
        scene.selectItem(6);
        QCOMPARE(scene.selectedItem(), 6);
        QVERIFY(scene.boxItem(6)->isSelected());
        QCOMPARE(selected.count(), 0); // selected by code: the caller knows
        scene.boxItem(10)->setSelected(true); // as a click does
        scene.boxItem(6)->setSelected(false);
        QVERIFY(selected.count() >= 1);
        QCOMPARE(selected.last().at(0).toInt(), 10);
        scene.selectItem(-1);
        QCOMPARE(scene.selectedItem(), -1);
        // The selection survives a rebuild of the same view.
        scene.selectItem(3);
        scene.setGraph(v, *layoutView(v));
        QCOMPARE(scene.selectedItem(), 3);
    }

    void doubleClickingAGroupActivatesIt()
    {
        const ViewGraph v = decoder();
        GraphScene scene;
        scene.setGraph(v, *layoutView(v));
        QSignalSpy activated(&scene, &GraphScene::groupActivated);
        scene.activateItem(0); // a node: nothing
        QCOMPARE(activated.count(), 0);
        scene.activateItem(8); // "layers 0-78" is group 1
        QCOMPARE(activated.count(), 1);
        QCOMPARE(activated.at(0).at(0).toInt(), 1);

        // Through a real double-click on the view.
        QGraphicsView view(&scene);
        view.resize(900, 900);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.centerOn(scene.boxItem(17));
        const QPoint at = view.mapFromScene(scene.boxItem(17)->scenePos());
        QTest::mouseDClick(view.viewport(), Qt::LeftButton, {}, at);
        QCOMPARE(activated.count(), 2);
        QCOMPARE(activated.at(1).at(0).toInt(), 81); // self_attn
    }

    void coloursDifferByRole()
    {
        std::set<QRgb> colours;
        for (const auto& entry : legend()) {
            colours.insert(entry.color.rgb());
            QVERIFY(!entry.label.isEmpty());
        }
        QCOMPARE(int(colours.size()), 7);
        QCOMPARE(int(legend().size()), 7);
        QVERIFY(roleColor(NodeRole::Parameter) != roleColor(NodeRole::UserInput));
    }

    void highlightMarksItemsAndTheEdgesBetweenThem()
    {
        const ViewGraph v = decoder();
        GraphScene scene;
        scene.setGraph(v, *layoutView(v));
        scene.highlight({ 0, 6 });
        QVERIFY(scene.boxItem(0)->highlighted());
        QVERIFY(scene.boxItem(6)->highlighted());
        QVERIFY(!scene.boxItem(7)->highlighted());
        scene.highlight({});
        QVERIFY(!scene.boxItem(0)->highlighted());
    }

    void searchSelectsAndCyclesThroughMatches()
    {
        GraphViewWidget widget;
        QSignalSpy shown(&widget, &GraphViewWidget::viewShown);
        widget.resize(800, 600);
        widget.show();
        const ViewGraph v = decoder();
        widget.setView(v);
        QCOMPARE(widget.statusText(), QString("laying out…"));
        QVERIFY(shown.wait(10000));
        QVERIFY(widget.statusText().contains("19 items"));
        QSignalSpy selected(widget.scene(), &GraphScene::itemSelected);
        QCOMPARE(widget.findNext("lm_head"), 13); // lm_head.weight, by name
        QCOMPARE(widget.scene()->selectedItem(), 13);
        QCOMPARE(widget.findNext("lm_head"), 14); // then the mm node
        QCOMPARE(widget.findNext("lm_head"), 13); // and around again
        QCOMPARE(widget.findNext("RMS_NORM"), 10); // by target, any case
        QCOMPARE(widget.findNext("no such thing"), -1);
        QCOMPARE(selected.count(), 4);
        QVERIFY(widget.canvas()->visibleSceneRect().contains(widget.scene()->boxItem(10)->scenePos()));

        // Enter in the search box does the same.
        auto* box = widget.findChild<QLineEdit*>();
        QVERIFY(box);
        box->setText("copy_");
        QTest::keyClick(box, Qt::Key_Return);
        QCOMPARE(widget.scene()->selectedItem(), 16);
    }

    // Every colour that means something means one thing: no two entries of the palette's table
    // share a colour, and the stepper's outlines are the table's.
    void eachColourHasOneMeaning()
    {
        std::map<std::string, std::string> meaningOf;
        for (const auto& entry : colourMeanings()) {
            const auto [it, fresh] = meaningOf.emplace(entry.colour.hex(), entry.meaning);
            QVERIFY2(fresh || it->second == entry.meaning,
                qPrintable(QString("%1 means both \"%2\" and \"%3\"")
                               .arg(QString::fromStdString(entry.colour.hex()), it->second.c_str(), entry.meaning)));
        }
        QCOMPARE(int(meaningOf.size()), int(colourMeanings().size()));
        QVERIFY(meaningOf.count(palette::kRewritten.hex()));
        QCOMPARE(meaningOf[focusRgb(engine::runtime::FocusRole::Copied).hex()], std::string("stepper: copied input"));
        // The panel's focus outlines are these colours.
        for (auto role : kFocusRoles)
            QCOMPARE(gui::GraphPanel::focusColor(role), paletteColor(focusRgb(role)));
    }

    // The legend lists what the drawn view uses: the decoder view has groups and rewritten nodes, a
    // plain chain has neither; marks add their lines; the toggle hides it.
    void legendListsTheColoursDrawn()
    {
        GraphViewWidget widget;
        QSignalSpy shown(&widget, &GraphViewWidget::viewShown);
        widget.resize(800, 600);
        widget.show();
        ViewGraph v = decoder();
        v.items[3].rewritten = true;
        setKey(v, "legend");
        widget.setView(v);
        QVERIFY(shown.wait(10000));
        QStringList labels;
        for (const auto& line : widget.legendLines())
            labels << line.label;
        QVERIFY(labels.contains("folded group (click + to open)"));
        QVERIFY(labels.contains("rewritten by a pass (R)"));
        QVERIFY(labels.contains("parameter"));
        QVERIFY(labels.contains("sym int"));
        QVERIFY(!labels.contains("selected"));
        widget.scene()->selectItem(2);
        QCOMPARE(widget.legendLines().back().label, QString("selected"));
        widget.setMarkLegend({ { "stepper: hazard", Qt::red, true } });
        QCOMPARE(widget.legendLines().back().label, QString("stepper: hazard"));
        auto* toggle = widget.findChild<QToolButton*>("legendToggle");
        QVERIFY(toggle);
        QVERIFY(widget.legendVisible());
        toggle->click();
        QVERIFY(!widget.legendVisible());

        widget.setMarkLegend({});
        widget.scene()->selectItem(-1);
        widget.setView(chain(4));
        QVERIFY(shown.wait(10000));
        labels.clear();
        for (const auto& line : widget.legendLines())
            labels << line.label;
        QCOMPARE(labels, QStringList({ "intermediate" }));
    }

    // A graph too tall to fit legibly opens at its top, with names at 9 px or more on screen; Ctrl+0
    // (fitAll) then shows the whole drawing, however small.
    void firstViewIsLegibleAndFitShowsEverything()
    {
        GraphViewWidget widget;
        QSignalSpy shown(&widget, &GraphViewWidget::viewShown);
        widget.resize(800, 600);
        widget.show();
        const ViewGraph v = chain(120);
        widget.setView(v);
        QVERIFY(shown.wait(20000));
        ZoomView* canvas = widget.canvas();
        QVERIFY(canvas->zoom() * shape::kLabelPixels >= 9);
        QVERIFY(canvas->visibleSceneRect().contains(widget.scene()->boxItem(0)->sceneBoundingRect()));
        QVERIFY(!canvas->visibleSceneRect().contains(widget.scene()->boxItem(119)->sceneBoundingRect()));
        widget.fitAll();
        const QRect drawn = canvas->mapFromScene(widget.scene()->itemsBoundingRect()).boundingRect();
        QVERIFY2(canvas->viewport()->rect().contains(drawn),
            qPrintable(QString("drawn %1x%2 at zoom %3").arg(drawn.width()).arg(drawn.height()).arg(canvas->zoom())));
        QVERIFY(canvas->zoom() < ZoomView::kReadableZoom);
    }

    // Clicking a group's "+" (not double-clicking) activates it; a click elsewhere on it selects.
    void clickingThePlusActivatesAGroup()
    {
        const ViewGraph v = decoder();
        GraphScene scene;
        scene.setGraph(v, *layoutView(v));
        QGraphicsView view(&scene);
        view.resize(1200, 900);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QSignalSpy activated(&scene, &GraphScene::groupActivated);
        ItemBoxItem* group = scene.boxItem(17);
        QVERIFY(group->isGroup());
        QVERIFY(!group->markerRect().isEmpty());
        QVERIFY(scene.boxItem(0)->markerRect().isEmpty());
        view.centerOn(group);
        QTest::mouseClick(
            view.viewport(), Qt::LeftButton, {}, view.mapFromScene(group->mapToScene(group->markerRect().center())));
        QCOMPARE(activated.count(), 1);
        QCOMPARE(activated.front().front().toInt(), v.items[17].index);
        QTest::mouseClick(view.viewport(), Qt::LeftButton, {}, view.mapFromScene(group->scenePos() + QPointF(20, 0)));
        QCOMPARE(activated.count(), 1);
        QCOMPARE(scene.selectedItem(), 17);
    }

    void fitAllOnAnEmptySceneAndAnEmptyView()
    {
        GraphViewWidget widget;
        widget.resize(400, 300);
        widget.show();
        widget.fitAll();
        QSignalSpy shown(&widget, &GraphViewWidget::viewShown);
        widget.setView(ViewGraph {});
        QCOMPARE(shown.count(), 1);
        widget.fitAll();
        QCOMPARE(widget.findNext("x"), -1);
        widget.canvas()->zoomBy(100);
        QCOMPARE(widget.canvas()->zoom(), 4.0);
    }

    void aLaterViewSupersedesOneStillLayingOut()
    {
        GraphViewWidget widget;
        QSignalSpy shown(&widget, &GraphViewWidget::viewShown);
        widget.setView(chain(150));
        const ViewGraph v = decoder();
        widget.setView(v);
        QVERIFY(shown.wait(20000));
        QTest::qWait(200);
        QCOMPARE(shown.count(), 1);
        QCOMPARE(widget.scene()->view().key, v.key);
    }

    // Cancel (or Esc) while Graphviz works: the scene keeps the view it had, the late layout is
    // not shown, and the status line says so.
    void cancellingALayoutKeepsTheViewOnScreen()
    {
        GraphViewWidget widget;
        widget.show();
        QSignalSpy shown(&widget, &GraphViewWidget::viewShown);
        QSignalSpy cancelled(&widget, &GraphViewWidget::layoutCancelled);
        const ViewGraph first = decoder();
        widget.setView(first);
        QVERIFY(shown.wait(20000));
        widget.setView(chain(400)); // long enough to still be laying out below
        QVERIFY(widget.layouter()->busy());
        auto* cancel = widget.findChild<QToolButton*>("cancelLayout");
        QVERIFY(cancel && cancel->isVisible());
        cancel->click();
        QCOMPARE(cancelled.count(), 1);
        QVERIFY(!widget.layouter()->busy());
        QVERIFY(!cancel->isVisible());
        QVERIFY(widget.statusText().contains("cancelled"));
        QTest::qWait(1500); // the worker finishes; its result must not replace the scene
        QCOMPARE(shown.count(), 1);
        QCOMPARE(widget.scene()->view().key, first.key);
        widget.cancelLayout(); // nothing under way: nothing happens
        QCOMPARE(cancelled.count(), 1);
    }

    void screenshotOfADecoderView()
    {
        GraphViewWidget widget;
        QSignalSpy shown(&widget, &GraphViewWidget::viewShown);
        widget.resize(1100, 800);
        widget.show();
        QVERIFY(QTest::qWaitForWindowExposed(&widget));
        widget.setView(decoder());
        QVERIFY(shown.wait(10000));
        widget.scene()->selectItem(10);
        widget.scene()->highlight({ 14, 18 });
        const QPixmap shot = widget.grab();
        QVERIFY(!shot.isNull());
        const QByteArray path = qgetenv("ACLGI_GRAPH_SCREENSHOT"); // e.g. /tmp/graph_view.png
        if (!path.isEmpty())
            QVERIFY(shot.save(QString::fromLocal8Bit(path)));
    }
};

QTEST_MAIN(GraphViewTest)
#include "graph_view_test.moc"
