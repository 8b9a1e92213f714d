// aclgraph-inspector: with a subcommand it runs headless on the engine; without one it opens the
// window on the given files, or on the bundled samples.
#include "gui/app/cache_panel.h"
#include "gui/app/graph_panel.h"
#include "gui/app/main_window.h"
#include "gui/app/runtime_panel.h"
#include "gui/cli/commands.h"

#include <QApplication>
#include <QDir>
#include <QTimer>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

int main(int argc, char** argv)
{
    // `--screenshot FILE` (docs/screenshots): save the window once what it shows has arrived, then
    // quit. `--select LABEL`: pick the project item with that label first (a graph opens in the
    // Graph tab, a run in the Runtime tab, a cache entry in the Cache tab, and the screenshot waits
    // for it). `--step N`: a selected
    // run is shown at event N.
    QString screenshot, select, step;
    std::vector<char*> args(argv, argv + argc);
    for (size_t i = 1; i + 1 < args.size();) {
        const std::string a = args[i];
        if (a == "--screenshot" || a == "--select" || a == "--step") {
            (a == "--screenshot" ? screenshot : a == "--select" ? select : step) = QString::fromLocal8Bit(args[i + 1]);
            args.erase(args.begin() + long(i), args.begin() + long(i) + 2);
        } else {
            ++i;
        }
    }
    argc = int(args.size());
    args.push_back(nullptr);
    argv = args.data();
    const int rc = gui::cli::runSubcommand(argc, argv, std::cout, std::cerr);
    if (rc >= 0)
        return rc;
    QApplication app(argc, argv);
    QApplication::setApplicationName("aclgraph-inspector");
    QApplication::setOrganizationName("aclgraph-inspector");
    QApplication::setApplicationVersion(ACLGI_VERSION);
    QStringList files = QApplication::arguments().mid(1);
    if (files.isEmpty()) {
        const QByteArray env = qgetenv("ACLGI_SAMPLES_DIR");
        const QDir samples(env.isEmpty() ? QStringLiteral(ACLGI_SAMPLES_DIR) : QString::fromLocal8Bit(env));
        for (const QString& f : samples.entryList({ "*.json" }, QDir::Files, QDir::Name))
            files << samples.filePath(f);
    }
    gui::MainWindow window(files);
    if (!screenshot.isEmpty()) {
        struct Waiting {
            bool result, project = true, graph;
            bool done = false;
        };
        auto wait = std::make_shared<Waiting>(Waiting { window.scenarioCount() > 0, true, !select.isEmpty() });
        auto shoot = [&window, screenshot, wait] {
            if (wait->done || wait->result || wait->project || wait->graph)
                return;
            wait->done = true;
            QTimer::singleShot(300, &window, [&window, screenshot] {
                const bool saved = window.grab().save(screenshot);
                if (!saved)
                    std::cerr << "error: cannot write " << screenshot.toStdString() << "\n";
                QApplication::exit(saved ? 0 : 1);
            });
        };
        QObject::connect(&window, &gui::MainWindow::resultShown, &window, [wait, shoot] {
            wait->result = false;
            shoot();
        });
        QObject::connect(&window, &gui::MainWindow::projectShown, &window, [&window, wait, shoot, select] {
            if (window.importRunning() || !wait->project)
                return;
            wait->project = false;
            if (!select.isEmpty() && !window.selectProjectItem(select)) {
                std::cerr << "error: no project item labelled " << select.toStdString() << "\n";
                wait->graph = false;
            }
            shoot();
        });
        // The selected item's tab has drawn it: a graph laid out, or a run's memory at its first step.
        auto selectionShown = [wait, shoot] {
            wait->graph = false;
            shoot();
        };
        QObject::connect(window.graphPanel(), &gui::GraphPanel::graphShown, &window, selectionShown);
        QObject::connect(window.cachePanel(), &gui::CachePanel::shown, &window, selectionShown);
        const int wantedStep = step.isEmpty() ? 0 : step.toInt();
        QObject::connect(window.runtimePanel(), &gui::RuntimePanel::runShown, &window,
            [&window, wantedStep] { window.runtimePanel()->setStep(wantedStep); });
        QObject::connect(
            window.runtimePanel(), &gui::RuntimePanel::memoryShown, &window, [selectionShown, wantedStep](int event) {
                if (event == wantedStep)
                    selectionShown();
            });
    }
    window.show();
    return app.exec();
}
