// Time to first paint of a folded 80-layer decoder in the Graph tab, and the full graph as DOT for
// Graphviz's `dot` to lay out in the same run (scripts/bench_gui.py compares the two; the app itself
// never runs `dot`). See bench/README.md.
//
// Usage: aclgi_gui_bench OUT_DIR [RUNS]   (run under QT_QPA_PLATFORM=offscreen or Xvfb)
// Prints one JSON object: first_paint_ms (each run, a fresh panel; the first run also pays for
// Graphviz's context and an empty layout cache), nodes, folded_items, and the path of full.dot.
#include "engine/graph/graph_view.h"
#include "engine/scenario/decoder_generator.h"
#include "gui/app/graph_panel.h"
#include "gui/app/project_session.h"
#include "gui/graph/graph_canvas.h"
#include "gui/graph/graph_view_widget.h"
#include "storage/graph_store.h"
#include "storage/importer.h"
#include "storage/project_db.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QTimer>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace {

/// Quits `loop` at the first paint of `target` after `armed` is set.
class PaintWatch : public QObject {
public:
    PaintWatch(QEventLoop& loop, bool& armed)
        : m_loop(loop)
        , m_armed(armed)
    {
    }
    bool eventFilter(QObject* o, QEvent* e) override
    {
        if (e->type() == QEvent::Paint && m_armed)
            QTimer::singleShot(0, &m_loop, &QEventLoop::quit); // after this paint completes
        return QObject::eventFilter(o, e);
    }

private:
    QEventLoop& m_loop;
    bool& m_armed;
};

std::string quoted(const std::string& s)
{
    std::string out = "\"";
    for (char c : s)
        out += c == '"' ? std::string("\\\"") : std::string(1, c);
    return out + "\"";
}

/// The whole graph, every node a box labelled like ours, every edge: what `dot` would have to lay
/// out without folding.
void writeFullDot(const engine::Graph& g, const std::string& path)
{
    std::ofstream out(path);
    out << "digraph G {\n  rankdir=TB;\n  node [shape=box];\n";
    for (size_t i = 0; i < g.nodes.size(); ++i)
        out << "  n" << i << " [label=" << quoted(g.nodes[i].name + "\\n" + g.nodes[i].target) << "];\n";
    for (size_t i = 0; i < g.nodes.size(); ++i)
        for (int u : g.nodes[i].users)
            out << "  n" << i << " -> n" << u << ";\n";
    out << "}\n";
}

} // namespace

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    if (argc < 2) {
        std::fprintf(stderr, "usage: aclgi_gui_bench OUT_DIR [RUNS]\n");
        return 2;
    }
    const std::filesystem::path dir = argv[1];
    const int runs = argc > 2 ? std::max(1, std::atoi(argv[2])) : 5;
    std::filesystem::create_directories(dir);
    const std::string scenario = (dir / "decoder80.json").string();
    const std::string project = (dir / "decoder80.aclgi").string();
    for (const char* suffix : { "", "-wal", "-shm" })
        std::filesystem::remove(project + suffix);
    engine::scenario::DecoderSpec spec;
    spec.layers = 80;
    std::ofstream(scenario) << engine::scenario::decoderScenarioJson(spec, "{}", { 1, 2 }, 2, "decoder80");
    storage::ImportOptions options;
    options.runPasses = false;
    auto imported = storage::importPaths(project, { scenario }, options);
    if (!imported || (*imported)[0].status != storage::SourceResult::Status::Imported) {
        std::fprintf(stderr, "aclgi_gui_bench: import failed\n");
        return 1;
    }
    auto db = storage::openProject(project);
    qlonglong decode = 0;
    // The list is held here: a range-for over `*listGraphs(...)` would iterate a destroyed temporary.
    auto graphs = db ? storage::listGraphs(*db) : engine::Result<std::vector<storage::GraphRow>>(db.error());
    if (!graphs) {
        std::fprintf(stderr, "aclgi_gui_bench: %s\n", graphs.error().toString().c_str());
        return 1;
    }
    for (const auto& g : *graphs)
        if (g.name == "decode")
            decode = g.id;
    auto graph = storage::readGraph(*db, decode);
    if (!graph) {
        std::fprintf(stderr, "aclgi_gui_bench: %s\n", graph.error().toString().c_str());
        return 1;
    }
    const std::string dot = (dir / "decoder80-full.dot").string();
    writeFullDot(*graph, dot);

    std::vector<double> ms;
    size_t folded = 0;
    for (int r = 0; r < runs; ++r) {
        gui::ProjectSession session;
        gui::GraphPanel panel(&session);
        panel.resize(1200, 800);
        panel.show();
        QEventLoop loop;
        bool armed = false;
        PaintWatch watch(loop, armed);
        panel.view()->canvas()->viewport()->installEventFilter(&watch);
        QObject::connect(&panel, &gui::GraphPanel::graphShown, [&] {
            armed = true;
            panel.view()->canvas()->viewport()->update();
        });
        QTimer::singleShot(120000, &loop, &QEventLoop::quit);
        QElapsedTimer timer;
        timer.start();
        session.open(QString::fromStdString(project));
        session.select("graph", decode);
        loop.exec();
        ms.push_back(double(timer.nsecsElapsed()) / 1e6);
        folded = panel.currentView().items.size();
        if (!armed) {
            std::fprintf(stderr, "aclgi_gui_bench: no paint within 120 s\n");
            return 1;
        }
    }
    std::printf("{\"first_paint_ms\": [");
    for (size_t i = 0; i < ms.size(); ++i)
        std::printf("%s%.2f", i ? ", " : "", ms[i]);
    std::printf(
        "], \"nodes\": %zu, \"edges\": %zu, \"folded_items\": %zu, \"dot_file\": \"%s\"}\n", graph->nodes.size(),
        [&] {
            size_t e = 0;
            for (const auto& n : graph->nodes)
                e += n.users.size();
            return e;
        }(),
        folded, dot.c_str());
    return 0;
}
