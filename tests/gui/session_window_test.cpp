// The window's views in step by construction (issue 21): one ProjectSession reads a picked run once
// and every view shows that run, at the session's step; the welcome page on a window opened with no
// project, a sample opened from it; the hazards counted the same way in the header, the Events list,
// the marks and the Inspector; a block click that leaves the Graph view on the stepper's graph.
#include "engine/report/details.h"
#include "engine/report/event_marks.h"
#include "engine/report/hazard_explain.h"
#include "gui/app/events_panel.h"
#include "gui/app/graph_panel.h"
#include "gui/app/inspector_panel.h"
#include "gui/app/log_panel.h"
#include "gui/app/main_window.h"
#include "gui/app/marked_slider.h"
#include "gui/app/memory_view.h"
#include "gui/app/project_model.h"
#include "gui/app/project_session.h"
#include "gui/app/runtime_panel.h"
#include "gui/app/step_navigator.h"
#include "gui/app/welcome_page.h"

#include <QDir>
#include <QDockWidget>
#include <QLabel>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <QTreeView>
#include <QtTest>

namespace {

/// The rows of `rows` (and below) whose key is `key`.
int countRows(const std::vector<engine::report::Detail>& rows, const std::string& key)
{
    int n = 0;
    for (const auto& r : rows)
        n += (r.key == key) + countRows(r.children, key);
    return n;
}

} // namespace

class SessionWindowTest : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QSettings().clear();
    }

    // One pick, one read: every view that shows a run shows the session's run (the same object),
    // and a step from any view (the Events list here) moves all of them.
    void viewsShowTheSessionsRunAtItsStep()
    {
        QTemporaryDir dir;
        gui::MainWindow window(
            { dir.filePath("p.aclgi"), ACLGI_SOURCE_DIR "/resources/samples/07_held_outputs_overwritten.json" });
        gui::ProjectSession* session = window.session();
        QSignalSpy loaded(session, &gui::ProjectSession::runLoaded);
        QSignalSpy loading(session, &gui::ProjectSession::runLoading);
        window.show();
        QVERIFY(loaded.wait(30000));
        QVERIFY(session->run());
        QCOMPARE(loading.count(), 1); // read once, for every view
        QVERIFY(window.runtimePanel()->sharedRun() == session->run());
        QCOMPARE(window.eventsPanel()->table()->model()->rowCount(), int(session->run()->sim.events.size()));

        // A hazard row activated in the Events list: the stepper, the Inspector and the graph follow.
        const std::vector<int> hazardAt = engine::report::hazardEvents(session->run()->sim);
        int target = -1;
        for (size_t e = 0; e < hazardAt.size() && target < 0; ++e)
            if (hazardAt[e] >= 0)
                target = hazardAt[e];
        QVERIFY(target > 0);
        emit window.eventsPanel()->eventActivated(target);
        QCOMPARE(session->step(), target);
        QCOMPARE(window.runtimePanel()->step(), target);
        QCOMPARE(window.runtimePanel()->navigator()->current(), target);
        QVERIFY2(
            window.inspectorPanel()->details().title.find("event " + std::to_string(target + 1)) != std::string::npos,
            window.inspectorPanel()->details().title.c_str());
        const auto& event = session->run()->sim.events[size_t(target)];
        const auto graphId = session->run()->graphIds.find(event.graph);
        QVERIFY(graphId != session->run()->graphIds.end());
        QTRY_COMPARE_WITH_TIMEOUT(window.graphPanel()->graphId(), graphId->second, 20000);
        // The Inspector details the hazard of that event and explains it.
        const auto& rows = window.inspectorPanel()->details().rows;
        QVERIFY(countRows(rows, "hazard") >= 1);
        QVERIFY(countRows(rows, "explanation") >= 1);
        // Stepping in the stepper moves the Events list's selection.
        window.runtimePanel()->setStep(target + 1);
        QCOMPARE(session->step(), target + 1);
        const QModelIndex current = window.eventsPanel()->table()->currentIndex();
        QVERIFY(current.isValid());
        QCOMPARE(current.sibling(current.row(), 0).data().toInt(), target + 2); // "#" counts from 1
    }

    // The hazards are counted once: the stepper's header, the Events list's Hazards filter, the
    // slider's and navigator's marks and the simulation agree.
    void hazardsCountedAlike()
    {
        QTemporaryDir dir;
        gui::MainWindow window(
            { dir.filePath("p.aclgi"), ACLGI_SOURCE_DIR "/resources/samples/07_held_outputs_overwritten.json" });
        QSignalSpy loaded(window.session(), &gui::ProjectSession::runLoaded);
        window.show();
        QVERIFY(loaded.wait(30000));
        const auto run = window.session()->run();
        QVERIFY(run);
        const int hazards = int(run->sim.hazards.size());
        QCOMPARE(hazards, 5); // the sample: calls 2 to 6 find their held logits overwritten
        QVERIFY2(window.runtimePanel()->findChild<QLabel*>("runtimeTitle")->text().contains("5 hazards"),
            qPrintable(window.runtimePanel()->findChild<QLabel*>("runtimeTitle")->text()));
        window.eventsPanel()->setKindFilter(gui::EventCategory::Hazards);
        QCOMPARE(window.eventsPanel()->shownCount(), hazards);
        const auto marks = window.runtimePanel()->marks();
        QVERIFY(marks);
        QCOMPARE(marks->count(engine::report::MarkKind::Hazard), hazards);
        QCOMPARE(int(window.runtimePanel()->slider()->marks(engine::report::MarkKind::Hazard).size()), hazards);
        // F8 goes from hazard to hazard.
        window.session()->setStep(0);
        QTest::keyClick(&window, Qt::Key_F8);
        QCOMPARE(window.session()->step(), marks->of(engine::report::MarkKind::Hazard).front());
        QTest::keyClick(&window, Qt::Key_F8);
        QCOMPARE(window.session()->step(), marks->of(engine::report::MarkKind::Hazard)[1]);
    }

    // No project named: the welcome page, the samples listed with a line each and every other view
    // out of the way; a sample picked opens its run and brings the views back.
    void welcomePageOpensASample()
    {
        QTemporaryDir data;
        qputenv("XDG_DATA_HOME", data.path().toUtf8()); // the samples project is made there
        QSettings().clear();
        // As main() opens it with no arguments: the bundled samples, into the default project.
        QStringList samples;
        const QDir dir(ACLGI_SOURCE_DIR "/resources/samples");
        for (const QString& f : dir.entryList({ "*.json" }, QDir::Files, QDir::Name))
            samples << dir.filePath(f);
        gui::MainWindow window(samples);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(window.welcomeVisible());
        QVERIFY(!window.dock("Runtime")->isVisible());
        QVERIFY(window.dock("Project")->isVisible());
        QSignalSpy shown(&window, &gui::MainWindow::projectShown);
        QVERIFY(shown.wait(60000)); // the samples imported and simulated
        while (window.importRunning() || window.projectModel()->rowCount() == 0)
            QVERIFY(shown.wait(60000));
        QVERIFY(window.welcomeVisible()); // no run is opened over it
        QVERIFY(!window.session()->run());

        QSignalSpy loaded(window.session(), &gui::ProjectSession::runLoaded);
        emit window.welcomePage()->sampleRequested("The KV cache moves: recapture storm");
        QVERIFY(loaded.wait(30000));
        QVERIFY(!window.welcomeVisible());
        QVERIFY(window.dock("Runtime")->isVisible());
        QCOMPARE(QString::fromStdString(window.session()->run()->row.scenarioName),
            QString("The KV cache moves: recapture storm"));
    }

    // An imported FX graph simulated from the window (Graph > Simulate... without its dialog): the
    // run is stored, selected, and its graph_1 is the graph imported from the same file, so the
    // Graph view draws it while stepping.
    void importedGraphSimulatedFromTheWindow()
    {
        QTemporaryDir dir;
        gui::MainWindow window({ dir.filePath("p.aclgi"), ACLGI_SOURCE_DIR "/tests/data/fx/print_readable_simple.py" });
        QSignalSpy shown(&window, &gui::MainWindow::projectShown);
        window.show();
        while (window.importRunning() || window.projectModel()->rowCount() == 0)
            QVERIFY(shown.wait(30000));
        QVERIFY(!window.session()->run()); // nothing simulated on import
        // Nothing picked: Simulate says what to pick.
        QVERIFY(!window.simulatableSelection());
        QVERIFY(window.selectProjectItem("print_readable_simple.py"));
        const auto source = window.simulatableSelection();
        QVERIFY2(source, source ? "" : source.error().message.c_str());
        QVERIFY(source->simulatable);
        storage::SimulateSourceRequest request;
        request.dbPath = window.projectPath().toStdString();
        request.sourceId = source->sourceId;
        request.calls = 2;
        QSignalSpy loaded(window.session(), &gui::ProjectSession::runLoaded);
        QVERIFY(window.startSimulation(request));
        QVERIFY(loaded.wait(30000));
        const auto run = window.session()->run();
        QVERIFY2(run, qPrintable(window.session()->runError() + window.bannerText()));
        QVERIFY(run->graphIds.count("graph_1"));
        // Stepped to graph_1's capture, the Graph view draws the imported graph.
        int capture = -1;
        for (const auto& e : run->sim.events)
            if (capture < 0 && e.kind == engine::runtime::EventKind::Capture && e.graph == "graph_1")
                capture = e.index;
        QVERIFY(capture >= 0);
        window.session()->setStep(capture);
        QTRY_COMPARE_WITH_TIMEOUT(window.graphPanel()->graphId(), qlonglong(run->graphIds.at("graph_1")), 20000);
        QTRY_VERIFY_WITH_TIMEOUT(window.graphPanel()->graph() != nullptr, 20000);
        QVERIFY(!window.graphPanel()->focusText().contains("not imported"));
    }

    // A block clicked in the Memory view is detailed in the Inspector, but the Graph view stays on
    // the stepper's graph when the block belongs to another one.
    void blockOfAnotherGraphKeepsTheGraph()
    {
        QTemporaryDir dir;
        gui::MainWindow window(
            { dir.filePath("p.aclgi"), ACLGI_SOURCE_DIR "/resources/samples/01_prompt_and_decode.json" });
        QSignalSpy loaded(window.session(), &gui::ProjectSession::runLoaded);
        window.show();
        QVERIFY(loaded.wait(30000));
        const auto run = window.session()->run();
        // A decode replay: the Graph view follows it to the decode graph.
        int decode = -1;
        for (const auto& e : run->sim.events)
            if (e.kind == engine::runtime::EventKind::Replay && e.graph == "graph_2")
                decode = e.index;
        QVERIFY(decode > 0);
        window.session()->setStep(decode);
        const qlonglong decodeGraph = run->graphIds.at("graph_2");
        QTRY_COMPARE_WITH_TIMEOUT(window.graphPanel()->graphId(), decodeGraph, 20000);
        // A block of the prompt graph's pool.
        QSignalSpy memory(window.runtimePanel(), &gui::RuntimePanel::memoryShown);
        QTRY_VERIFY_WITH_TIMEOUT(!window.runtimePanel()->shown().empty(), 20000);
        const auto& pools = window.runtimePanel()->shown();
        for (int p = 0; p < int(pools.size()); ++p)
            for (int s = 0; s < int(pools[size_t(p)].segments.size()); ++s) {
                const auto& blocks = pools[size_t(p)].segments[size_t(s)].blocks;
                for (int b = 0; b < int(blocks.size()); ++b) {
                    const auto owner = blocks[size_t(b)].owner;
                    if (owner == engine::memory::kNoOwner || size_t(owner) >= run->sim.owners.size()
                        || run->sim.owners[size_t(owner)].graph != "graph_1")
                        continue;
                    const QRect r = window.runtimePanel()->blockRect(p, s, b);
                    QVERIFY(!r.isEmpty());
                    QTest::mouseClick(window.runtimePanel()->memoryView(), Qt::LeftButton, Qt::NoModifier, r.center());
                    QCOMPARE(window.inspectorPanel()->details().kind, std::string("block"));
                    QTest::qWait(200);
                    QCOMPARE(window.graphPanel()->graphId(), decodeGraph);
                    return;
                }
            }
        QSKIP("no block of graph_1 is drawn at the decode replay");
    }

    // Stepping between a run's prompt and decode graphs reads each once: a graph read a moment ago
    // comes back (the same object, after the caller returns, as a read would) without a new read;
    // a refresh of the project forgets them.
    void graphsSteppedBackAreNotReadAgain()
    {
        QTemporaryDir dir;
        qlonglong prompt = -1, decode = -1;
        {
            gui::MainWindow window(
                { dir.filePath("p.aclgi"), ACLGI_SOURCE_DIR "/resources/samples/01_prompt_and_decode.json" });
            QSignalSpy loaded(window.session(), &gui::ProjectSession::runLoaded);
            QVERIFY(loaded.wait(30000));
            prompt = window.session()->run()->graphIds.at("graph_1");
            decode = window.session()->run()->graphIds.at("graph_2");
        }
        gui::ProjectSession session;
        session.open(dir.filePath("p.aclgi"));
        QVERIFY2(session.db(), qPrintable(session.error()));
        QSignalSpy graphLoaded(&session, &gui::ProjectSession::graphLoaded);
        const auto show = [&](qlonglong id) {
            const int before = graphLoaded.count();
            session.showGraph(id);
            QCOMPARE(graphLoaded.count(), before); // never from inside the call
            QVERIFY(session.graph() == nullptr);
            QTRY_COMPARE_WITH_TIMEOUT(graphLoaded.count(), before + 1, 20000);
            QVERIFY(session.graph() && session.graph()->graph);
            QCOMPARE(session.graph()->id, id);
        };
        show(prompt);
        const auto promptRead = session.graph();
        show(decode);
        const auto decodeRead = session.graph();
        QVERIFY(decodeRead != promptRead);
        show(prompt);
        QVERIFY(session.graph() == promptRead);
        show(decode);
        QVERIFY(session.graph() == decodeRead);
        // Asked for one graph, then another before it came: only the last one arrives.
        session.showGraph(prompt);
        session.showGraph(decode);
        QTest::qWait(100);
        QVERIFY(session.graph() == decodeRead);
        session.refresh();
        show(prompt);
        QVERIFY(session.graph() != promptRead); // read again
    }
};

QTEST_MAIN(SessionWindowTest)
#include "session_window_test.moc"
