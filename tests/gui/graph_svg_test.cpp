// The graph drawn as SVG for reports (gui/graph/graph_svg.h): one box per view item in the scene's
// colours, one path and arrowhead per edge, texts escaped and elided, well-formed standalone XML;
// and the folded first view of an 80-layer decoder far smaller than its graph.
#include "engine/scenario/decoder_generator.h"
#include "engine/scenario/scenario.h"
#include "graph_test_views.h"
#include "gui/graph/graph_items.h"
#include "gui/graph/graph_layout.h"
#include "gui/graph/graph_palette.h"
#include "gui/graph/graph_svg.h"

#include <QRegularExpression>
#include <QXmlStreamReader>
#include <QtTest>

using namespace graph_test;
using gui::graph::drawViewSvg;
using gui::graph::layoutView;

namespace {

int count(const QString& text, const QString& what)
{
    return text.count(what);
}

/// Parses the whole document; the error text, empty when it is well-formed XML.
QString xmlError(const std::string& svg)
{
    QXmlStreamReader xml(QByteArray::fromStdString(svg));
    while (!xml.atEnd())
        xml.readNext();
    return xml.hasError() ? xml.errorString() : QString();
}

} // namespace

class GraphSvgTest : public QObject {
    Q_OBJECT
private slots:
    void everyItemIsABoxAndEveryEdgeAnArrow()
    {
        ViewGraph v = decoder();
        v.items[0].label = "a<b>&\"c\"";
        auto layout = layoutView(v);
        QVERIFY(layout.ok());
        const QString svg = QString::fromStdString(drawViewSvg(v, layout.value()));
        QVERIFY2(xmlError(svg.toStdString()).isEmpty(), qPrintable(xmlError(svg.toStdString())));
        QVERIFY(svg.startsWith("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\""));
        QVERIFY(svg.endsWith("</svg>"));
        QVERIFY(QRegularExpression("^<svg [^>]*viewBox=\"0 0 [0-9.]+ [0-9.]+\"").match(svg).hasMatch());
        int groups = 0;
        for (const auto& it : v.items)
            groups += it.kind == ViewItem::Kind::Group;
        QCOMPARE(count(svg, "data-kind=\"group\""), groups);
        QCOMPARE(count(svg, "data-kind=\"node\""), int(v.items.size()) - groups);
        QCOMPARE(count(svg, "stroke-linecap=\"round\""), int(v.edges.size())); // one path per edge
        QCOMPARE(count(svg, "<polygon "), int(v.edges.size())); // and its arrowhead
        QVERIFY(svg.contains("a&lt;b&gt;&amp;&quot;c&quot;"));
        // Nothing but the drawing: no script, no link, no CSS class, no external reference.
        for (const char* bad : { "<script", "href", "class=", "url(", "<style", "<image" })
            QVERIFY2(!svg.contains(bad), bad);
    }

    void colourByRoleAsTheScene()
    {
        ViewGraph v = chain(2);
        v.items[0].role = NodeRole::Parameter;
        v.items[1].role = NodeRole::MutatedInput;
        v.items[1].rewritten = true;
        auto layout = layoutView(v);
        QVERIFY(layout.ok());
        const QString svg = QString::fromStdString(drawViewSvg(v, layout.value()));
        for (NodeRole r : { NodeRole::Parameter, NodeRole::MutatedInput }) {
            // The same colour the window's scene paints (one table, graph_palette.h).
            const QString fill = gui::graph::roleColor(r).name();
            QCOMPARE(QString::fromStdString(gui::graph::roleRgb(r).hex()), fill);
            QVERIFY(svg.contains("fill=\"" + fill + "\""));
            QVERIFY(svg.contains(">" + gui::graph::roleLabel(r) + "</text>")); // the legend
        }
        QVERIFY(svg.contains(QString::fromStdString(gui::graph::palette::kRewritten.hex())));
        QVERIFY(svg.contains(">R</text>"));
    }

    void labelsAreElidedInTheMiddle()
    {
        using gui::graph::elideMiddle;
        QCOMPARE(QString::fromStdString(elideMiddle("short", 10)), QString("short"));
        QCOMPARE(QString::fromStdString(elideMiddle("abcdefghij", 5)), QString::fromUtf8("ab…ij"));
        QCOMPARE(QString::fromStdString(elideMiddle("ééééé", 3)), QString::fromUtf8("é…é"));
        ViewGraph v = chain(1);
        v.items[0].label = std::string(200, 'x');
        auto layout = layoutView(v);
        QVERIFY(layout.ok());
        const std::string svg = drawViewSvg(v, layout.value());
        // Drawn elided; the tooltip (<title>) keeps the whole name.
        QVERIFY(svg.find(std::string(200, 'x') + "</text>") == std::string::npos);
        QVERIFY(svg.find("…") != std::string::npos);
        QVERIFY(svg.find("<title>" + std::string(200, 'x')) != std::string::npos);
    }

    void aMismatchedLayoutDrawsNothing()
    {
        const ViewGraph v = chain(3);
        const std::string svg = drawViewSvg(v, gui::graph::LayoutResult {});
        QVERIFY(xmlError(svg).isEmpty());
        QVERIFY(svg.find("data-kind") == std::string::npos);
    }

    void anEightyLayerDecoderIsDrawnFolded()
    {
        engine::scenario::DecoderSpec spec;
        spec.layers = 80;
        auto scenario = engine::scenario::parseScenario(
            engine::scenario::decoderScenarioJson(spec, "{}", { 1 }, 1, "decoder80"), "decoder80.json");
        QVERIFY(scenario.ok());
        const engine::Graph& graph = scenario->graphs.back();
        const auto folded = gui::graph::foldGraph(graph);
        QVERIFY2(folded.view.items.size() * 20 < graph.nodes.size(),
            qPrintable(QString("%1 items for %2 nodes").arg(folded.view.items.size()).arg(graph.nodes.size())));
        auto layout = layoutView(folded.view);
        QVERIFY(layout.ok());
        const QString svg = QString::fromStdString(drawViewSvg(folded.view, layout.value()));
        QVERIFY(xmlError(svg.toStdString()).isEmpty());
        QCOMPARE(count(svg, "data-kind=\"node\"") + count(svg, "data-kind=\"group\""), int(folded.view.items.size()));
        QVERIFY(svg.contains("(x80)"));
    }
};

QTEST_MAIN(GraphSvgTest)
#include "graph_svg_test.moc"
