// aclgraph-inspector: with a subcommand it runs headless on the engine; without one it opens the
// window on the given files, or on the bundled samples.
#include "gui/app/main_window.h"
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
    // `--screenshot FILE` (used for docs/screenshots): save the window once the first result is
    // shown, then quit.
    QString screenshot;
    std::vector<char*> args(argv, argv + argc);
    for (size_t i = 1; i + 1 < args.size(); ++i)
        if (std::string(args[i]) == "--screenshot") {
            screenshot = QString::fromLocal8Bit(args[i + 1]);
            args.erase(args.begin() + long(i), args.begin() + long(i) + 2);
            break;
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
        // Once both the first simulation and the project outline (after any import) are on screen.
        auto ready = std::make_shared<std::pair<bool, bool>>(false, false);
        auto shoot = [&window, screenshot, ready] {
            if (!ready->first || !ready->second)
                return;
            ready->first = false; // once
            QTimer::singleShot(300, &window, [&window, screenshot] {
                const bool saved = window.grab().save(screenshot);
                if (!saved)
                    std::cerr << "error: cannot write " << screenshot.toStdString() << "\n";
                QApplication::exit(saved ? 0 : 1);
            });
        };
        QObject::connect(&window, &gui::MainWindow::resultShown, &window, [ready, shoot] {
            ready->first = true;
            shoot();
        });
        QObject::connect(&window, &gui::MainWindow::projectShown, &window, [&window, ready, shoot] {
            ready->second = ready->second || !window.importRunning();
            shoot();
        });
    }
    window.show();
    return app.exec();
}
