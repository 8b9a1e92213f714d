// aclgraph-inspector: with a subcommand it runs headless on the engine; without one it opens the
// window on the given files, or on the bundled samples.
#include "gui/app/main_window.h"
#include "gui/cli/commands.h"

#include <QApplication>
#include <QDir>
#include <iostream>

int main(int argc, char** argv)
{
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
    window.show();
    return app.exec();
}
