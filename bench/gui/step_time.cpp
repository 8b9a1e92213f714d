// Time of one step in the stepper of the whole window, on an 80-layer decoder's simulated run: from
// the step (F10's action) until every view has caught up (the Memory view shows the new event, the
// graph outlines it, the Inspector, the Events list, the Log and the status bar follow, and the
// window has painted: "shown"), and until nothing runs any more (also the Memory view's read-ahead
// of the next step: "idle"). Measured twice in the same run: with every view open (each dock floating, so
// none hides behind a tab) and, as the baseline, with only the stepper and memory open.
// scripts/bench_gui.py runs it and reports the ratio. See bench/README.md.
//
// Usage: aclgi_step_bench OUT_DIR [STEPS]   (run under QT_QPA_PLATFORM=offscreen or Xvfb)
// Prints one JSON object: step_ms_all_views and step_ms_stepper_only (shown, each step),
// idle_ms_all_views and idle_ms_stepper_only, events, nodes.
#include "engine/scenario/decoder_generator.h"
#include "gui/app/graph_panel.h"
#include "gui/app/main_window.h"
#include "gui/app/memory_view.h"
#include "gui/app/project_session.h"
#include "gui/app/runtime_panel.h"
#include "gui/graph/async_layout.h"
#include "gui/graph/graph_view_widget.h"
#include "storage/importer.h"

#include <QApplication>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QStandardPaths>
#include <QThreadPool>
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace {

/// Runs the event loop until `done()` holds and nothing is loading; false after 60 s.
template <class Done> bool settle(gui::MainWindow& window, Done done)
{
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < 60000) {
        QApplication::processEvents(QEventLoop::AllEvents, 5);
        if (done() && QThreadPool::globalInstance()->activeThreadCount() == 0
            && !window.graphPanel()->view()->layouter()->busy()) {
            QApplication::processEvents(); // deliver what the last worker posted, and paint
            if (done())
                return true;
        }
    }
    return false;
}

/// One step's two times: until every view shows the new event ("shown": what the user waits for),
/// and until nothing runs any more ("idle": also the Memory view's read-ahead of the next step and
/// any load or layout started for this one).
struct StepTimes {
    std::vector<double> shown, idle;
};

/// Whether every open view shows event `event`: the session and the stepper are there, the Memory
/// view shows its memory (not greyed), and, while the graph follows the stepper, the event's FX
/// graph is loaded and laid out with its outlines.
bool viewsShow(gui::MainWindow& window, int event)
{
    gui::RuntimePanel* runtime = window.runtimePanel();
    if (window.session()->step() != event || runtime->step() != event || runtime->memoryView()->shownEvent() != event
        || runtime->memoryView()->stale())
        return false;
    gui::GraphPanel* graph = window.graphPanel();
    if (graph->view()->layouter()->busy())
        return false;
    if (!graph->following())
        return true;
    const auto run = window.session()->run();
    const auto& e = run->sim.events[size_t(event)];
    const auto id = run->graphIds.find(e.graph);
    if (e.graph.empty() || id == run->graphIds.end())
        return true;
    return graph->graphId() == id->second && graph->graph()
        && graph->focusText().startsWith(QString("event %1 ").arg(event + 1));
}

/// Steps forward `steps` times from event 1 (wrapping at the end), each until every view is up to
/// date and nothing runs any more.
StepTimes timeSteps(gui::MainWindow& window, int steps)
{
    gui::RuntimePanel* runtime = window.runtimePanel();
    runtime->setStep(0);
    settle(window, [&] { return runtime->memoryView()->shownEvent() == 0; });
    StepTimes times;
    for (int i = 0; i < steps; ++i) {
        const int next = (runtime->step() + 1) % runtime->eventCount();
        QElapsedTimer t;
        t.start();
        if (next == 0)
            runtime->setStep(0);
        else
            runtime->stepForward();
        window.repaint();
        double shown = -1;
        while (t.elapsed() < 60000) {
            QApplication::processEvents(QEventLoop::AllEvents, 5);
            if (shown < 0 && viewsShow(window, next)) {
                window.repaint(); // the new event on screen
                shown = double(t.nsecsElapsed()) / 1e6;
            }
            if (shown >= 0 && QThreadPool::globalInstance()->activeThreadCount() == 0
                && !window.graphPanel()->view()->layouter()->busy()) {
                QApplication::processEvents(); // deliver what the last worker posted, and paint
                break;
            }
        }
        if (shown < 0 || !viewsShow(window, next)) {
            std::fprintf(stderr, "aclgi_step_bench: step %d did not settle\n", next);
            return {};
        }
        window.repaint();
        times.shown.push_back(shown);
        times.idle.push_back(double(t.nsecsElapsed()) / 1e6);
    }
    return times;
}

void printList(const char* name, const std::vector<double>& ms)
{
    std::printf("\"%s\": [", name);
    for (size_t i = 0; i < ms.size(); ++i)
        std::printf("%s%.3f", i ? ", " : "", ms[i]);
    std::printf("]");
}

} // namespace

int main(int argc, char** argv)
{
    // The offscreen platform warns about every floating dock it cannot size or raise.
    qInstallMessageHandler([](QtMsgType type, const QMessageLogContext&, const QString& text) {
        if (type != QtDebugMsg && type != QtInfoMsg && !text.contains("This plugin does not support"))
            std::fprintf(stderr, "%s\n", qPrintable(text));
    });
    QApplication app(argc, argv);
    QStandardPaths::setTestModeEnabled(true); // no settings or recent projects of the user's
    if (argc < 2) {
        std::fprintf(stderr, "usage: aclgi_step_bench OUT_DIR [STEPS]\n");
        return 2;
    }
    const std::filesystem::path dir = argv[1];
    const int steps = argc > 2 ? std::max(1, std::atoi(argv[2])) : 100;
    std::filesystem::create_directories(dir);
    const std::string scenario = (dir / "decoder80-run.json").string();
    const std::string project = (dir / "decoder80-run.aclgi").string();
    for (const char* suffix : { "", "-wal", "-shm" })
        std::filesystem::remove(project + suffix);
    engine::scenario::DecoderSpec spec;
    spec.layers = 80;
    std::ofstream(scenario) << engine::scenario::decoderScenarioJson(spec, "{}", { 1, 2, 4 }, 8, "decoder80");
    storage::ImportOptions options;
    options.simulateScenarios = true;
    auto imported = storage::importPaths(project, { scenario }, options);
    if (!imported || (*imported)[0].status != storage::SourceResult::Status::Imported) {
        std::fprintf(stderr, "aclgi_step_bench: import failed\n");
        return 1;
    }

    gui::MainWindow window({ QString::fromStdString(project) });
    window.resize(1600, 1000);
    window.show();
    gui::RuntimePanel* runtime = window.runtimePanel();
    if (!settle(window, [&] { return runtime->run() && runtime->memoryView()->shownEvent() >= 0; })) {
        std::fprintf(stderr, "aclgi_step_bench: the run did not open\n");
        return 1;
    }
    const int events = runtime->eventCount();
    // Every view open: each dock floats at its own place, so that none is hidden behind a tab.
    const char* titles[] = { "Project", "Runtime", "Memory", "Events", "Inspector", "Config", "Compare", "Log",
        "Passes", "Cache", "Compiles" };
    int x = 0;
    for (const char* title : titles) {
        QDockWidget* d = window.dock(title);
        d->setFloating(true);
        d->resize(640, 420);
        d->move(x, 0);
        x += 40;
        d->show();
    }
    const StepTimes all = timeSteps(window, steps);
    // Baseline: only what stepping needs on screen.
    for (const char* title : titles)
        if (std::string(title) != "Runtime" && std::string(title) != "Memory")
            window.dock(title)->hide();
    window.graphPanel()->setFollowing(false);
    const StepTimes alone = timeSteps(window, steps);
    if (all.shown.empty() || alone.shown.empty())
        return 1;
    std::printf("{");
    printList("step_ms_all_views", all.shown);
    std::printf(", ");
    printList("step_ms_stepper_only", alone.shown);
    std::printf(", ");
    printList("idle_ms_all_views", all.idle);
    std::printf(", ");
    printList("idle_ms_stepper_only", alone.idle);
    std::printf(", \"events\": %d, \"nodes\": %zu}\n", events,
        window.graphPanel()->graph() ? window.graphPanel()->graph()->nodes.size() : size_t(0));
    return 0;
}
