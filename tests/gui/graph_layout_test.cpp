// The graph view's layout layer: Graphviz's dot in process, the layout cache, and the async
// requests that keep Graphviz off the UI thread.
#include "graph_test_views.h"
#include "gui/graph/async_layout.h"
#include "gui/graph/graph_layout.h"

#include <QSignalSpy>
#include <QtConcurrent>
#include <QtTest>

using namespace graph_test;
using gui::graph::LayoutResult;
using gui::graph::layoutView;

class GraphLayoutTest : public QObject {
    Q_OBJECT
private slots:
    void everyItemIsInsideTheBoundingBox()
    {
        const ViewGraph v = decoder();
        auto r = layoutView(v);
        QVERIFY2(r.ok(), r.ok() ? "" : r.error().toString().c_str());
        QCOMPARE(r->items.size(), v.items.size());
        QCOMPARE(r->edges.size(), v.edges.size());
        QVERIFY(r->width > 0 && r->height > 0);
        for (const auto& box : r->items) {
            QVERIFY(box.width > 0 && box.height > 0);
            QVERIFY(box.x - box.width / 2 >= -0.5 && box.x + box.width / 2 <= r->width + 0.5);
            QVERIFY(box.y - box.height / 2 >= -0.5 && box.y + box.height / 2 <= r->height + 0.5);
        }
        for (const auto& edge : r->edges)
            QVERIFY(edge.points.size() >= 2);
    }

    void groupsAreBiggerAndWideLabelsWider()
    {
        const ViewGraph v = decoder();
        auto r = layoutView(v);
        QVERIFY(r.ok());
        QVERIFY(r->items[8].height > r->items[0].height); // "layers" group vs input_ids
        QVERIFY(r->items[4].width > r->items[2].width); // embed_tokens.weight vs s0
    }

    void ranksGoTopToBottomAlongEdges()
    {
        const ViewGraph v = decoder();
        auto r = layoutView(v);
        QVERIFY(r.ok());
        for (const auto& e : v.edges)
            QVERIFY2(r->items[e.from].y < r->items[e.to].y, qPrintable(QString("%1 -> %2").arg(e.from).arg(e.to)));
        // The route starts near the tail and its arrow ends near the head (Qt's y-down coordinates).
        const auto& route = r->edges[0];
        const auto& tail = r->items[v.edges[0].from];
        const auto& head = r->items[v.edges[0].to];
        QVERIFY(std::abs(route.points.front().y - (tail.y + tail.height / 2)) < 4);
        QVERIFY(route.hasArrow);
        QVERIFY(std::abs(route.arrowTip.y - (head.y - head.height / 2)) < 4);
    }

    void edgeWidthGrowsWithCount()
    {
        const ViewGraph v = decoder();
        auto r = layoutView(v);
        QVERIFY(r.ok());
        QCOMPARE(r->edges[0].penWidth, 1.0);
        QVERIFY(r->edges[7].penWidth > r->edges[6].penWidth); // 79 edges vs 2
        QVERIFY(r->edges[6].penWidth > r->edges[0].penWidth);
    }

    void badEdgesAndEmptyViewsDoNotCrash()
    {
        ViewGraph v = chain(3);
        v.edges.push_back({ 0, 7, 1 });
        auto r = layoutView(v);
        QVERIFY(!r.ok());
        QVERIFY(r.error().message.find("missing item") != std::string::npos);
        v.edges.back() = { -1, 0, 1 };
        QVERIFY(!layoutView(v).ok());
        auto empty = layoutView(ViewGraph {});
        QVERIFY(empty.ok());
        QCOMPARE(empty->items.size(), std::size_t(0));
        ViewGraph self = chain(2);
        self.edges.push_back({ 1, 1, 1 }); // not in a ViewGraph, but must not crash
        auto r2 = layoutView(self);
        QVERIFY(r2.ok());
        QVERIFY(r2->edges.back().points.empty());
        gui::graph::LayoutOptions small;
        small.maxItems = 10;
        auto big = layoutView(chain(11), small);
        QVERIFY(!big.ok());
        QVERIFY(big.error().message.find("too large") != std::string::npos);
    }

    void aChainOf300LaysOut()
    {
        const ViewGraph v = chain(300);
        auto r = layoutView(v);
        QVERIFY(r.ok());
        for (int i = 1; i < 300; ++i)
            QVERIFY(r->items[i - 1].y < r->items[i].y);
        qInfo("300-item chain: %.0f ms", r->seconds * 1000);
    }

    void layoutIsDeterministic()
    {
        const ViewGraph v = decoder();
        auto a = layoutView(v), b = layoutView(v);
        QVERIFY(a.ok() && b.ok());
        QCOMPARE(a->width, b->width);
        QCOMPARE(a->height, b->height);
        for (std::size_t i = 0; i < a->items.size(); ++i) {
            QCOMPARE(a->items[i].x, b->items[i].x);
            QCOMPARE(a->items[i].y, b->items[i].y);
        }
        for (std::size_t i = 0; i < a->edges.size(); ++i) {
            QCOMPARE(a->edges[i].points.size(), b->edges[i].points.size());
            for (std::size_t k = 0; k < a->edges[i].points.size(); ++k) {
                QCOMPARE(a->edges[i].points[k].x, b->edges[i].points[k].x);
                QCOMPARE(a->edges[i].points[k].y, b->edges[i].points[k].y);
            }
        }
    }

    void layoutsFromSeveralThreadsTakeTurns()
    {
        std::vector<QFuture<bool>> runs;
        for (int n : { 20, 40, 60, 80 })
            runs.push_back(QtConcurrent::run([n] { return layoutView(chain(n)).ok(); }));
        for (auto& run : runs)
            QVERIFY(run.result());
    }

    void cacheHitsMissesAndEvicts()
    {
        gui::graph::LayoutCache cache(2);
        auto layout = std::make_shared<const LayoutResult>();
        QVERIFY(!cache.find("a"));
        cache.insert("a", layout);
        cache.insert("b", layout);
        QCOMPARE(cache.find("a"), layout); // a is now the most recently used
        cache.insert("c", layout); // evicts b
        QVERIFY(!cache.find("b"));
        QVERIFY(cache.find("a"));
        QVERIFY(cache.find("c"));
        QCOMPARE(cache.size(), std::size_t(2));
        QCOMPARE(cache.hits(), std::size_t(3));
        QCOMPARE(cache.misses(), std::size_t(2));
    }

    void asyncEmitsOnlyTheLatestRequest()
    {
        gui::graph::AsyncLayout async;
        QSignalSpy ready(&async, &gui::graph::AsyncLayout::ready);
        const ViewGraph first = chain(200), second = decoder();
        async.request(first);
        async.request(second);
        QVERIFY(async.busy());
        QVERIFY(ready.wait(30000));
        QTest::qWait(300); // a stale result would arrive in this time
        QCOMPARE(ready.count(), 1);
        QCOMPARE(ready.at(0).at(0).toString(), QString::fromStdString(second.key));
        const auto layout = ready.at(0).at(1).value<std::shared_ptr<const LayoutResult>>();
        QCOMPARE(layout->items.size(), second.items.size());
        QVERIFY(!async.busy());

        // Now cached: the same view comes back from the cache, still through the event loop.
        const std::size_t hits = async.cache().hits();
        async.request(second);
        QCOMPARE(ready.count(), 1);
        QVERIFY(ready.wait(5000));
        QCOMPARE(async.cache().hits(), hits + 1);
    }

    void asyncCancelDropsTheResultAndReportsFailures()
    {
        gui::graph::AsyncLayout async;
        QSignalSpy ready(&async, &gui::graph::AsyncLayout::ready);
        QSignalSpy failed(&async, &gui::graph::AsyncLayout::failed);
        async.request(chain(50));
        async.cancel();
        QVERIFY(!ready.wait(1000));
        ViewGraph bad = chain(3);
        bad.edges.push_back({ 0, 9, 1 });
        bad.key = "bad";
        async.request(bad);
        QVERIFY(failed.wait(5000));
        QVERIFY(failed.at(0).at(1).toString().contains("missing item"));
        QCOMPARE(ready.count(), 0);
    }
};

QTEST_MAIN(GraphLayoutTest)
#include "graph_layout_test.moc"
