// aclgraph-inspector: with a subcommand it runs headless on the engine; without one it opens the
// window on the given files, or on the bundled samples.
#include "gui/app/main_window.h"
#include "gui/app/screenshot_driver.h"
#include "gui/cli/commands.h"

#include <QApplication>
#include <QDir>
#include <QScreen>
#include <iostream>
#include <string>
#include <vector>

int main(int argc, char** argv)
{
    // `--screenshot FILE` (docs/screenshots): save the window once what it shows has arrived, then
    // quit. `--select LABEL`: pick the project item with that label first (a graph opens in the
    // Graph view, a run in the stepper, a cache entry in the Cache view). `--step N`: the run shown
    // is at event N (`--step peak`: at its peak reserved memory). `--filter TEXT`: the memory
    // breakdown's frame filter; `--breakdown category|owner|site`: what it groups by. `--node NAME`: select that node
    // of the graph shown (the Inspector details it).
    // `--graph-view open-folds,fit`: open every fold of the graph shown, then fit it to the window.
    // `--dock TITLE` (repeatable): bring that view's dock to the front. `--tab TEXT` (repeatable):
    // then make the tab with that text current in the views' tab widgets (the Passes view's "Diff").
    // `--compare-runs A,B`: compare runs A and B in the Compare view, scrolled to its last section.
    gui::ScreenshotRequest shot;
    std::vector<char*> args(argv, argv + argc);
    for (size_t i = 1; i + 1 < args.size();) {
        const std::string a = args[i];
        const QString value = QString::fromLocal8Bit(args[i + 1]);
        if (a == "--screenshot")
            shot.file = value;
        else if (a == "--select")
            shot.select = value;
        else if (a == "--step")
            shot.step = value == "peak" ? gui::ScreenshotRequest::kPeak : value.toInt();
        else if (a == "--filter")
            shot.filter = value;
        else if (a == "--breakdown")
            shot.breakdown = value;
        else if (a == "--node")
            shot.node = value;
        else if (a == "--graph-view") // "open-folds", "fit" or "open-folds,fit"
            for (const QString& what : value.split(',')) {
                shot.openFolds = shot.openFolds || what == "open-folds";
                shot.fit = shot.fit || what == "fit";
            }
        else if (a == "--dock")
            shot.docks << value;
        else if (a == "--tab")
            shot.tabs << value;
        else if (a == "--compare-runs") { // "A,B": run ids to compare in the Compare view (not report's --compare)
            const QStringList ids = value.split(',');
            shot.compareA = ids.value(0).toLongLong();
            shot.compareB = ids.value(1).toLongLong();
        } else {
            ++i;
            continue;
        }
        args.erase(args.begin() + long(i), args.begin() + long(i) + 2);
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
        // ACLGI_SAMPLES_DIR in the environment wins; then the samples installed beside the executable
        // (PREFIX/share/aclgraph-inspector/samples, cmake --install); then the source tree's.
        const QByteArray env = qgetenv("ACLGI_SAMPLES_DIR");
        QString dir = QString::fromLocal8Bit(env);
        if (dir.isEmpty()) {
            const QDir installed(QDir(QCoreApplication::applicationDirPath()).filePath(ACLGI_INSTALLED_SAMPLES_RELDIR));
            dir = installed.exists() ? installed.absolutePath() : QStringLiteral(ACLGI_SAMPLES_DIR);
        }
        const QDir samples(dir);
        for (const QString& f : samples.entryList({ "*.json" }, QDir::Files, QDir::Name))
            files << samples.filePath(f);
    }
    gui::MainWindow window(files);
    if (!shot.file.isEmpty()) {
        auto* driver = new gui::ScreenshotDriver(window, shot);
        QObject::connect(driver, &gui::ScreenshotDriver::done, &app, [](bool ok) { QApplication::exit(ok ? 0 : 1); });
        // A screenshot shows the window as it fills the screen it is taken on (1600x1000, 1366x768).
        if (QScreen* screen = QGuiApplication::primaryScreen()) {
            window.move(screen->availableGeometry().topLeft());
            window.resize(screen->availableGeometry().size());
        }
    }
    window.show();
    return app.exec();
}
