// The window as a whole: importing by drag and drop, a sample opened on its run, the stepper driving
// the graph outlines and the Inspector (window-wide keys), a clicked block selecting its node, the
// inline error banner, and every item model on screen under QAbstractItemModelTester.
#include "gui/app/compare_panel.h"
#include "gui/app/config_panel.h"
#include "gui/app/graph_panel.h"
#include "gui/app/import_controller.h"
#include "gui/app/inspector_panel.h"
#include "gui/app/main_window.h"
#include "gui/app/memory_view.h"
#include "gui/app/project_model.h"
#include "gui/app/runtime_panel.h"
#include "gui/graph/graph_items.h"
#include "gui/graph/graph_scene.h"
#include "gui/graph/graph_view_widget.h"
#include "sample_project.h"
#include "storage/sqlite.h"

#include <QAbstractItemModelTester>
#include <QAbstractProxyModel>
#include <QAction>
#include <QCheckBox>
#include <QDockWidget>
#include <QDropEvent>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QMimeData>
#include <QProgressBar>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QThreadPool>
#include <QTreeView>
#include <QtTest>
#include <memory>
#include <set>

class MainWindowTest : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QSettings().clear(); // no layout or recent projects left by an earlier run
    }

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

    // A memory snapshot imported: the status bar's bar follows each phase of the source (the file
    // read in bytes, its trace replayed), not just the count of sources, and the run is stored.
    void snapshotImportShowsHowFarEachPhaseIs()
    {
        QTemporaryDir dir;
        gui::MainWindow window({ dir.filePath("snapshot.aclgi") });
        QSignalSpy shown(&window, &gui::MainWindow::projectShown);
        QSignalSpy imported(&window, &gui::MainWindow::importFinished);
        window.show();
        QVERIFY(shown.wait(20000));
        auto* controller = window.findChild<gui::ImportController*>();
        auto* bar = window.findChild<QProgressBar*>("importProgress");
        QVERIFY(controller && bar);
        QStringList formats; // the bar's text after each report with a total
        connect(controller, &gui::ImportController::progress, &window,
            [&](int, int, const QString&, const QString& phase, qlonglong, qulonglong done, qulonglong total,
                const QString& unit) {
                QVERIFY(done <= total);
                if (total == 0 || phase == "done")
                    return;
                QCOMPARE(bar->maximum(), 1000);
                QCOMPARE(qulonglong(bar->value()), done * 1000 / total);
                formats << unit + ": " + bar->format();
            });
        window.importFiles({ ACLGI_SOURCE_DIR "/tests/data/snapshots/graph_pools.pickle" });
        QVERIFY(imported.wait(20000));
        QVERIFY2(formats.contains("bytes: reading 3/3 KiB"), qPrintable(formats.join(" | ")));
        QVERIFY2(formats.contains("entries: replaying 100%"), qPrintable(formats.join(" | ")));
        QVERIFY2(window.bannerText().isEmpty(), qPrintable(window.bannerText()));
        QVERIFY(!bar->isVisible());
    }

    // A sample given on the command line is imported and simulated; the window opens on its run.
    // Stepping (window-wide keys) outlines the event's nodes on the graph and details the event in
    // the Inspector; a clicked block is detailed and its tensor's node selected in the graph.
    void stepperDrivesGraphAndInspector()
    {
        QTemporaryDir dir;
        const QString project = dir.filePath("steps.aclgi");
        gui::MainWindow window({ project, ACLGI_SOURCE_DIR "/resources/samples/07_held_outputs_overwritten.json" });
        gui::RuntimePanel* runtime = window.runtimePanel();
        QSignalSpy runShown(runtime, &gui::RuntimePanel::runShown);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(runShown.wait(30000));
        QVERIFY(runtime->run());
        QCOMPARE(runtime->step(), 0);
        for (const char* title :
            { "Project", "Runtime", "Memory", "Inspector", "Config", "Compare", "Log", "Passes", "Cache" })
            QVERIFY2(window.dock(title), title);

        // F10 steps forward wherever the focus is; Shift+F10 steps back.
        window.projectTree()->setFocus();
        QTest::keyClick(&window, Qt::Key_F10);
        QCOMPARE(runtime->step(), 1);
        QTest::keyClick(&window, Qt::Key_F10, Qt::ShiftModifier);
        QCOMPARE(runtime->step(), 0);
        QTest::keyClick(&window, Qt::Key_F11); // next call
        QVERIFY(runtime->step() > 0);

        // An input update of a replayed call: the graph shows its FX graph with the copied inputs.
        const auto& events = runtime->run()->sim.events;
        int update = -1;
        for (const auto& e : events)
            if (e.kind == engine::runtime::EventKind::InputUpdate && e.call >= 2 && !e.inputs.empty())
                update = e.index;
        QVERIFY(update > 0);
        gui::GraphPanel* graph = window.graphPanel();
        QSignalSpy focus(graph, &gui::GraphPanel::focusChanged);
        runtime->setStep(update);
        QTRY_VERIFY_WITH_TIMEOUT(graph->graph() && !graph->focus().empty(), 20000);
        QCOMPARE(QString::fromStdString(graph->graph()->id), QString("decode"));
        bool copied = false;
        for (const auto& f : graph->focus())
            copied |= f.role == engine::runtime::FocusRole::Copied;
        QVERIFY(copied);
        QVERIFY(graph->focusText().contains(QString("event %1").arg(update + 1)));
        QVERIFY(graph->focusText().contains("copied"));
        // The outlines reach the scene once its layout is in.
        QTRY_VERIFY_WITH_TIMEOUT(outlined(graph) > 0, 20000);
        QCOMPARE(window.inspectorPanel()->details().kind, std::string("event"));
        QVERIFY(window.inspectorPanel()->copyText().contains("input_update"));
        QVERIFY(window.inspectorPanel()->copyText().contains(
            QString::fromStdString(events[size_t(update)].inputs[0].input)));
        QVERIFY(window.statusBar()->currentMessage().contains(QString("event %1").arg(update + 1)));

        // A block with an owner in a graph of this run: the Inspector details it, the graph selects
        // its tensor's node.
        QTRY_VERIFY_WITH_TIMEOUT(runtime->memoryView()->shownEvent() == update, 20000);
        const auto& pools = runtime->shown();
        int pool = -1, segment = -1, block = -1;
        std::string tensor;
        for (size_t p = 0; p < pools.size() && pool < 0; ++p)
            for (size_t sg = 0; sg < pools[p].segments.size() && pool < 0; ++sg)
                for (size_t b = 0; b < pools[p].segments[sg].blocks.size(); ++b) {
                    const auto owner = pools[p].segments[sg].blocks[b].owner;
                    if (owner == engine::memory::kNoOwner)
                        continue;
                    const auto& info = runtime->run()->sim.owners[size_t(owner)];
                    if (info.graph == events[size_t(update)].graph && graph->graph()->find(info.tensor) >= 0) {
                        pool = int(p), segment = int(sg), block = int(b), tensor = info.tensor;
                        break;
                    }
                }
        QVERIFY(pool >= 0);
        window.dock("Memory")->raise();
        const QRect r = runtime->blockRect(pool, segment, block);
        QVERIFY(!r.isEmpty());
        QTest::mouseClick(runtime->memoryView(), Qt::LeftButton, {}, r.center());
        QCOMPARE(window.inspectorPanel()->details().kind, std::string("block"));
        QVERIFY(window.inspectorPanel()->copyText().contains(QString::fromStdString(tensor)));
        QTRY_VERIFY_WITH_TIMEOUT(selectedLabel(graph) == QString::fromStdString(tensor), 20000);
    }

    // The Config form re-simulates on change: the new run is selected in the Project view and
    // compared with its base in the Compare view (enable_output_clone removes sample 07's hazards).
    void configChangeResimulatesAndCompares()
    {
        QTemporaryDir dir;
        gui::MainWindow window(
            { dir.filePath("config.aclgi"), ACLGI_SOURCE_DIR "/resources/samples/07_held_outputs_overwritten.json" });
        QSignalSpy configShown(window.configPanel(), &gui::ConfigPanel::shown);
        window.show();
        QVERIFY(configShown.wait(30000));
        const qlonglong base = window.configPanel()->runId();
        QVERIFY(base > 0);
        QSignalSpy stored(window.configPanel(), &gui::ConfigPanel::runStored);
        QSignalSpy compared(window.comparePanel(), &gui::ComparePanel::compared);
        auto* clone = window.configPanel()->findChild<QCheckBox*>("edit:debug.aclgraph.enable_output_clone");
        QVERIFY(clone);
        clone->setChecked(true);
        QVERIFY(stored.wait(30000));
        const qlonglong made = stored.front().at(0).toLongLong();
        QCOMPARE(stored.front().at(1).toLongLong(), base);
        QVERIFY(made != base);
        // The outline reloads with the new run, which becomes current and is stepped.
        QTRY_COMPARE_WITH_TIMEOUT(
            window.projectTree()->currentIndex().data(gui::ProjectModel::IdRole).toLongLong(), made, 20000);
        QTRY_VERIFY_WITH_TIMEOUT(window.runtimePanel()->run() && window.runtimePanel()->run()->row.id == made, 20000);
        QTRY_VERIFY_WITH_TIMEOUT(compared.count() > 0, 20000);
        const auto* comparison = window.comparePanel()->model()->comparison();
        QVERIFY(comparison);
        bool hazards = false;
        for (const auto& row : comparison->rows)
            if (row.section == "hazards" && row.metric == "output_overwritten") {
                QCOMPARE(row.a, std::string("5"));
                QCOMPARE(row.b, std::string("0"));
                hazards = row.differs;
            }
        QVERIFY(hazards);

        // File > Export Report writes what is open: the project's runs, or the two runs compared.
        QSignalSpy exported(&window, &gui::MainWindow::reportExported);
        QAction* exportAction = nullptr;
        for (QAction* a : window.findChildren<QAction*>())
            if (a->text() == "&Export Report...")
                exportAction = a;
        QVERIFY(exportAction && exportAction->shortcut() == QKeySequence("Ctrl+E"));
        const QString all = dir.filePath("project.json");
        QVERIFY(window.exportReport(all));
        QVERIFY(!window.exportReport(dir.filePath("second.json"))); // one export at a time
        QVERIFY(exported.wait(30000));
        QCOMPARE(exported.front().at(1).toString(), QString());
        QFile allFile(all);
        QVERIFY(allFile.open(QIODevice::ReadOnly));
        const QJsonObject allDoc = QJsonDocument::fromJson(allFile.readAll()).object();
        QCOMPARE(allDoc.value("format").toString(), QString("aclgraph-inspector-report"));
        QCOMPARE(allDoc.value("runs").toArray().size(), 2);
        QVERIFY(!allDoc.contains("comparison"));

        const QString pair = dir.filePath("comparison.html");
        QVERIFY(window.exportReport(pair, true));
        QVERIFY(exported.wait(30000));
        QCOMPARE(exported.back().at(0).toString(), pair);
        QCOMPARE(exported.back().at(1).toString(), QString());
        QFile pairFile(pair);
        QVERIFY(pairFile.open(QIODevice::ReadOnly));
        const QString html = QString::fromUtf8(pairFile.readAll());
        QVERIFY(html.startsWith("<!DOCTYPE html>"));
        QVERIFY(html.contains(QString("run %1").arg(base)) && html.contains(QString("run %1").arg(made)));
        QVERIFY(html.contains("output_overwritten"));
        QVERIFY(window.statusBar()->currentMessage().contains("comparison.html"));
        QVERIFY(!window.exportReport(dir.filePath("report.txt"))); // no such format
        QVERIFY(window.bannerText().contains("report.txt"));
    }

    // Ctrl+<digit> brings a view back even when it was closed; the dock layout is remembered from
    // one window to the next.
    void viewsComeBackByKeyAndLayoutIsRemembered()
    {
        QTemporaryDir dir;
        const QString project = dir.filePath("layout.aclgi");
        {
            gui::MainWindow window({ project });
            window.show();
            QVERIFY(QTest::qWaitForWindowExposed(&window));
            QDockWidget* log = window.dock("Log");
            log->close();
            QVERIFY(!log->isVisible());
            QTest::keyClick(&window, Qt::Key_7, Qt::ControlModifier);
            QVERIFY(log->isVisible());
            QTest::keyClick(&window, Qt::Key_7, Qt::ControlModifier); // again: stays shown
            QVERIFY(log->isVisible());
            window.dock("Passes")->close();
            window.close(); // saves the layout
        }
        gui::MainWindow again({ project });
        again.show();
        QVERIFY(QTest::qWaitForWindowExposed(&again));
        // A closed dock's View menu entry is unchecked; an open one behind another tab is checked.
        QVERIFY(!again.dock("Passes")->toggleViewAction()->isChecked());
        QVERIFY(again.dock("Log")->toggleViewAction()->isChecked());
    }

    // A file that cannot be read: the banner names it and the place, and nothing is shown for it.
    void badFileShowsAnInlineError()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("broken.json");
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{\"format\": \"aclgraph-inspector-scenario\",\n \"version\": 1, \"graphs\": [");
        f.close();
        gui::MainWindow window({ dir.filePath("bad.aclgi"), path });
        QSignalSpy imported(&window, &gui::MainWindow::importFinished);
        window.show();
        QVERIFY(imported.wait(20000));
        QVERIFY2(window.bannerText().contains("broken.json:2:"), qPrintable(window.bannerText()));
        QVERIFY(!window.runtimePanel()->run());
    }

    // A damaged project (garbage over its middle pages, the header kept): the window opens it
    // read-only, says so in its banner and title, and imports nothing into it.
    void damagedProjectOpensReadOnly()
    {
        QTemporaryDir dir;
        QString project;
        importSampleWithRun(dir, "02_dynamic_decode_reuse.json", project);
        // Damage leaf pages of the pass changes (SQLite's dbstat says which), so that quick_check fails
        // while what the window needs to open (sources, runs, the configuration) stays readable.
        std::vector<int64_t> pages;
        {
            auto db = storage::Database::open(project.toStdString());
            QVERIFY(db.ok());
            auto s = db->prepare("SELECT pageno FROM dbstat WHERE name = 'pass_changes' AND pagetype = 'leaf' "
                                 "ORDER BY pageno");
            QVERIFY(s.ok());
            while (true) {
                auto row = s->step();
                QVERIFY(row.ok());
                if (!*row)
                    break;
                pages.push_back(s->columnInt(0));
            }
        }
        QVERIFY2(pages.size() >= 2, qPrintable(QString::number(pages.size())));
        QFile f(project);
        QVERIFY(f.open(QIODevice::ReadWrite));
        for (size_t i = 0; i < pages.size() && i < 4; ++i) {
            QVERIFY(f.seek((pages[i] - 1) * 4096 + 100));
            f.write(QByteArray(2000, '\x5a'));
        }
        f.close();
        QFile original(project);
        QVERIFY(original.open(QIODevice::ReadOnly));
        const QByteArray before = original.readAll();
        original.close();

        gui::MainWindow window({ project });
        QSignalSpy shown(&window, &gui::MainWindow::projectShown);
        QSignalSpy imported(&window, &gui::MainWindow::importFinished);
        window.show();
        QVERIFY(shown.wait(20000));
        QVERIFY(window.projectReadOnly());
        QVERIFY2(window.windowTitle().contains("[read-only]"), qPrintable(window.windowTitle()));
        QVERIFY2(window.bannerText().contains("the project is damaged, so it is opened read-only"),
            qPrintable(window.bannerText()));
        QVERIFY2(window.bannerText().contains("quick_check says"), qPrintable(window.bannerText()));
        // The what-if form would store a run: its editors are off, and it says why.
        auto* config = window.findChild<gui::ConfigPanel*>();
        QVERIFY(config);
        QVERIFY(config->readOnly());
        QTRY_VERIFY_WITH_TIMEOUT(config->table()->rowCount() > 0, 20000);
        int editors = 0;
        for (int row = 0; row < config->table()->rowCount(); ++row)
            if (QWidget* editor = config->table()->cellWidget(row, gui::ConfigPanel::ValueColumn)) {
                ++editors;
                QVERIFY2(!editor->isEnabled(), qPrintable(editor->objectName()));
            }
        QVERIFY(editors > 0);
        auto* message = config->findChild<QLabel*>("configMessage");
        QVERIFY(message);
        QVERIFY2(message->text().contains("open read-only"), qPrintable(message->text()));

        window.importFiles({ ACLGI_SOURCE_DIR "/tests/data/fx/print_readable_simple.py" });
        QVERIFY2(window.bannerText().contains("nothing is imported into it"), qPrintable(window.bannerText()));
        QVERIFY(!imported.wait(500));
        QVERIFY(original.open(QIODevice::ReadOnly));
        QVERIFY(original.readAll() == before);
    }

    // Every item model on screen stays consistent (QAbstractItemModelTester, fatal) while a run is
    // opened and stepped and project items of each kind are picked.
    void everyModelPassesTheTester()
    {
        QTemporaryDir dir;
        gui::MainWindow window(
            { dir.filePath("models.aclgi"), ACLGI_SOURCE_DIR "/resources/samples/04_kv_cache_moves.json",
                ACLGI_SOURCE_DIR "/tests/data/cache/torchair_cache" });
        std::vector<std::unique_ptr<QAbstractItemModelTester>> testers;
        std::set<QAbstractItemModel*> seen;
        QStringList classes;
        std::vector<QAbstractItemModel*> models;
        for (auto* view : window.findChildren<QAbstractItemView*>()) {
            models.push_back(view->model());
            if (auto* proxy = qobject_cast<QAbstractProxyModel*>(view->model()))
                models.push_back(proxy->sourceModel());
        }
        for (QAbstractItemModel* m : models) {
            // QTreeWidget's private model gives column-1 items the children of column 0, which the
            // tester rejects; it is Qt's and not ours (the Passes view's change lists use it).
            if (!m || !seen.insert(m).second || QString(m->metaObject()->className()) == "QTreeModel")
                continue;
            classes << m->metaObject()->className();
            testers.push_back(
                std::make_unique<QAbstractItemModelTester>(m, QAbstractItemModelTester::FailureReportingMode::Fatal));
        }
        for (const char* ours : { "gui::ProjectModel", "gui::RunLogModel" })
            QVERIFY2(classes.contains(ours), qPrintable(classes.join(", ")));
        QSignalSpy runShown(window.runtimePanel(), &gui::RuntimePanel::runShown);
        window.show();
        QVERIFY(runShown.wait(30000));
        for (int i = 0; i < 12; ++i)
            QTest::keyClick(&window, Qt::Key_F10);
        QTest::keyClick(&window, Qt::Key_F11);
        gui::ProjectModel* model = window.projectModel();
        for (const char* kind : { "graph", "stage", "cache_entry", "run" }) {
            const QModelIndexList found = model->match(model->index(0, 0), gui::ProjectModel::KindRole, kind, 1,
                Qt::MatchExactly | Qt::MatchRecursive | Qt::MatchWrap);
            if (found.isEmpty())
                continue;
            window.projectTree()->setCurrentIndex(found.front());
            QTest::qWait(300);
        }
        QTRY_VERIFY_WITH_TIMEOUT(QThreadPool::globalInstance()->activeThreadCount() == 0, 20000);
        QTest::qWait(200);
    }

private:
    static int outlined(gui::GraphPanel* graph)
    {
        int n = 0;
        for (auto* item : graph->view()->scene()->items())
            if (auto* box = dynamic_cast<gui::graph::ItemBoxItem*>(item))
                n += box->highlighted() ? 1 : 0;
        return n;
    }
    static QString selectedLabel(gui::GraphPanel* graph)
    {
        const int item = graph->view()->scene()->selectedItem();
        const auto& items = graph->currentView().items;
        return item >= 0 && item < int(items.size()) ? QString::fromStdString(items[size_t(item)].label) : QString();
    }
};

QTEST_MAIN(MainWindowTest)
#include "main_window_test.moc"
