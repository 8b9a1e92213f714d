// The first window: it simulates the chosen scenario off the UI thread and shows the result, or an
// inline error for a bad file.
#include "gui/app/main_window.h"
#include "gui/app/project_model.h"

#include <QDropEvent>
#include <QLabel>
#include <QListWidget>
#include <QMimeData>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTreeView>
#include <QtTest>

class MainWindowTest : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    // A project given on the command line is opened; files dropped on the window are imported
    // into it off the UI thread, and the Project view shows them.
    void dropImportsIntoTheProject()
    {
        QTemporaryDir dir;
        const QString project = dir.filePath("dropped.aclgi");
        gui::MainWindow window({ project });
        QSignalSpy shown(&window, &gui::MainWindow::projectShown);
        QSignalSpy imported(&window, &gui::MainWindow::importFinished);
        window.show();
        QVERIFY(shown.wait(20000));
        QCOMPARE(window.projectPath(), QFileInfo(project).absoluteFilePath());
        gui::ProjectModel* model = window.projectModel();
        QCOMPARE(model->rowCount(model->index(0, 0)), 0); // no sources yet

        QMimeData mime;
        mime.setUrls({ QUrl::fromLocalFile(ACLGI_SOURCE_DIR "/tests/data/fx/print_readable_simple.py"),
            QUrl::fromLocalFile(ACLGI_SOURCE_DIR "/tests/data/debug_dir/torch_compile_debug") });
        // What a drag over the window and a drop do: the window accepts the enter, then imports.
        auto dropOn = [&window](QMimeData* data) {
            QDragEnterEvent enter(QPoint(20, 20), Qt::CopyAction, data, Qt::LeftButton, Qt::NoModifier);
            QApplication::sendEvent(&window, &enter);
            QDropEvent drop(QPointF(20, 20), Qt::CopyAction, data, Qt::LeftButton, Qt::NoModifier);
            QApplication::sendEvent(&window, &drop);
            return enter.isAccepted();
        };
        QVERIFY(dropOn(&mime));
        QVERIFY(imported.wait(20000));
        QVERIFY(shown.count() >= 1);
        if (shown.count() < 2)
            QVERIFY(shown.wait(20000));
        QCOMPARE(model->rowCount(model->index(0, 0)), 2);
        QCOMPARE(model->index(0, 0, model->index(0, 0)).data().toString(), QString("print_readable_simple.py"));
        QVERIFY(window.findChild<QTreeView*>("projectTree")->isVisible());

        // Dropping the same files again imports nothing new.
        QVERIFY(dropOn(&mime));
        QVERIFY(imported.wait(20000));
        QCOMPARE(model->rowCount(model->index(0, 0)), 2);

        // Something that is not an importable file: the banner says why, naming it.
        QMimeData junk;
        const QString bad = dir.filePath("notes.bin");
        QFile f(bad);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QByteArray("\x00\x01binary", 8));
        f.close();
        junk.setUrls({ QUrl::fromLocalFile(bad) });
        QVERIFY(dropOn(&junk));
        QVERIFY(imported.wait(20000));
        bool banner = false;
        for (auto* label : window.findChildren<QLabel*>())
            if (label->isVisible() && label->text().contains("notes.bin"))
                banner = true;
        QVERIFY(banner);
    }

    void showsCallsAndHazardsOfASample()
    {
        const QString sample = ACLGI_SOURCE_DIR "/resources/samples/07_held_outputs_overwritten.json";
        gui::MainWindow window({ sample });
        QSignalSpy shown(&window, &gui::MainWindow::resultShown);
        window.show();
        QVERIFY(shown.wait(20000));
        auto* calls = window.findChild<QTableWidget*>("callsTable");
        QVERIFY(calls);
        QCOMPARE(calls->rowCount(), 7); // 1 prompt + 6 decode calls
        QCOMPARE(calls->item(1, 3)->text(), QString("capture"));
        QCOMPARE(calls->item(2, 3)->text(), QString("replay"));
        const auto lists = window.findChildren<QListWidget*>();
        QListWidget* hazards = nullptr;
        for (auto* l : lists)
            if (l->count() && l->item(0)->text().contains("output_overwritten"))
                hazards = l;
        QVERIFY(hazards);
        QCOMPARE(hazards->count(), 5);
    }

    void badFileShowsAnInlineError()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("broken.json");
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{\"format\": \"aclgraph-inspector-scenario\",\n \"version\": 1, \"graphs\": [");
        f.close();
        gui::MainWindow window({ path });
        QSignalSpy shown(&window, &gui::MainWindow::resultShown);
        window.show();
        QVERIFY(shown.wait(20000));
        bool banner = false;
        for (auto* label : window.findChildren<QLabel*>())
            if (label->isVisible() && label->text().contains("broken.json:2:"))
                banner = true;
        QVERIFY(banner);
        QCOMPARE(window.findChild<QTableWidget*>("callsTable")->rowCount(), 0);
    }
};

QTEST_MAIN(MainWindowTest)
#include "main_window_test.moc"
