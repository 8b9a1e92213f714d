// The Runtime tab: a stored run of a sample with recaptures and hazards stepped through every event
// forward and back (position line, summary, log and the Memory view's pools against
// storage::memoryAt), call jumps, play to the end, keyboard shortcuts, a clicked block naming its
// owner, a run that does not exist. Saves a screenshot to /tmp/runtime_panel.png.
#include "engine/scenario/load.h"
#include "gui/app/memory_breakdown.h"
#include "gui/app/memory_chart.h"
#include "gui/app/memory_view.h"
#include "gui/app/runtime_panel.h"
#include "storage/importer.h"
#include "storage/project_db.h"
#include "storage/run_store.h"
#include "tests/gui/session_util.h"

#include <QElapsedTimer>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QToolButton>
#include <QtTest>
#include <map>

namespace {

using namespace engine::runtime;

struct StoredSample {
    qlonglong runId = 0;
    Simulation sim;
};

/// Imports `sample` into the project, simulates it with its memory timeline and stores the run.
bool storeSample(const std::string& project, const std::string& sample, StoredSample& out)
{
    auto imported = storage::importPaths(project, { sample });
    if (!imported)
        return false;
    auto scenario = engine::scenario::loadScenarioOrGraph(sample);
    if (!scenario)
        return false;
    MemoryTimeline timeline(16); // small keyframe interval: most steps are rebuilt from changes
    SimulationOptions options;
    options.observeMemory
        = [&timeline](const Event& e, const engine::memory::DeviceAllocators& a) { timeline.observe(e.index, a); };
    auto sim = simulate(*scenario, options);
    if (!sim)
        return false;
    auto db = storage::openProject(project);
    if (!db)
        return false;
    auto tx = storage::Transaction::begin(*db);
    if (!tx)
        return false;
    storage::WriteContext ctx(*db);
    auto id = storage::writeRun(ctx, *sim, storage::RunPlace {}, &timeline);
    if (!id || !tx->commit())
        return false;
    out.runId = *id;
    out.sim = std::move(sim.value());
    return true;
}

bool samePools(const std::vector<PoolSnapshot>& a, const std::vector<PoolSnapshot>& b)
{
    if (a.size() != b.size())
        return false;
    for (size_t p = 0; p < a.size(); ++p) {
        if (a[p].pool != b[p].pool || a[p].reserved != b[p].reserved || a[p].allocated != b[p].allocated
            || a[p].segments.size() != b[p].segments.size())
            return false;
        for (size_t s = 0; s < a[p].segments.size(); ++s) {
            const auto &x = a[p].segments[s], &y = b[p].segments[s];
            if (x.pool != y.pool || x.stream != y.stream || x.small != y.small || x.address != y.address
                || x.totalSize != y.totalSize || x.allocatedSize != y.allocatedSize
                || x.blocks.size() != y.blocks.size())
                return false;
            for (size_t k = 0; k < x.blocks.size(); ++k) {
                const auto &u = x.blocks[k], &v = y.blocks[k];
                if (u.address != v.address || u.size != v.size || u.requested != v.requested
                    || u.allocated != v.allocated || u.owner != v.owner)
                    return false;
            }
        }
    }
    return true;
}

/// Waits until the panel's Memory view shows step `event`.
bool waitMemory(gui::RuntimePanel& panel, QSignalSpy& spy, int event)
{
    for (int tries = 0; tries < 200; ++tries) {
        if (panel.memoryView()->shownEvent() == event && !panel.memoryView()->stale())
            return true;
        spy.wait(100);
    }
    return false;
}

} // namespace

class RuntimePanelTest : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void stepsThroughEveryEvent();
    void callJumpsLandOnFirstEvents();
    void playReachesTheEndAndStops();
    void keyboardShortcuts();
    void clickedBlockNamesItsOwner();
    void missingRunShowsAnError();
    void recordingShowsTimeLayersAndPeak();
    void screenshot();

private:
    void checkStep(gui::RuntimePanel& panel, QSignalSpy& memory, const StoredSample& s, int i);
    void open(gui::ProjectSession& session, gui::RuntimePanel& panel, const StoredSample& s);

    QTemporaryDir m_dir;
    QString m_project;
    StoredSample m_kv; ///< 04_kv_cache_moves: recaptures, a recapture storm
    StoredSample m_fallback; ///< 09_capture_limit_fallback: fallback to eager
};

void RuntimePanelTest::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(m_dir.isValid());
    m_project = m_dir.filePath("p.aclgi");
    const std::string samples = std::string(ACLGI_SOURCE_DIR) + "/resources/samples/";
    QVERIFY(storeSample(m_project.toStdString(), samples + "04_kv_cache_moves.json", m_kv));
    QVERIFY(storeSample(m_project.toStdString(), samples + "09_capture_limit_fallback.json", m_fallback));
    QVERIFY(m_kv.sim.events.size() > 20);
    QVERIFY(!m_kv.sim.hazards.empty());
}

void RuntimePanelTest::open(gui::ProjectSession& session, gui::RuntimePanel& panel, const StoredSample& s)
{
    QSignalSpy shown(&panel, &gui::RuntimePanel::runShown);
    guitest::select(session, m_project, "run", s.runId);
    QVERIFY(shown.wait(20000));
    QVERIFY2(panel.errorText().isEmpty(), qPrintable(panel.errorText()));
    QCOMPARE(panel.eventCount(), int(s.sim.events.size()));
    QCOMPARE(panel.step(), 0);
}

void RuntimePanelTest::checkStep(gui::RuntimePanel& panel, QSignalSpy& memory, const StoredSample& s, int i)
{
    const Event& e = s.sim.events[size_t(i)];
    QCOMPARE(panel.step(), i);
    QVERIFY(panel.currentEvent());
    QCOMPARE(panel.currentEvent()->summary, e.summary);
    QCOMPARE(panel.currentEvent()->graph, e.graph);
    const QString position = panel.findChild<QLabel*>("runtimePosition")->text();
    QVERIFY2(position.contains(QString("event %1/%2").arg(i + 1).arg(s.sim.events.size())), qPrintable(position));
    QVERIFY2(position.contains(eventKindName(e.kind)), qPrintable(position));
    if (e.call >= 0)
        QVERIFY2(position.startsWith(QString("call %1 ·").arg(e.call)), qPrintable(position));
    if (!e.graph.empty())
        QVERIFY(position.contains(QString::fromStdString(e.graph)));
    QVERIFY(panel.findChild<QLabel*>("runtimeSummary")
                ->text()
                .startsWith(QString::fromStdString(e.summary).toHtmlEscaped()));
    const QString log = panel.findChild<QPlainTextEdit*>("runtimeLog")->toPlainText();
    for (const auto& line : e.log)
        QVERIFY(log.contains(QString::fromStdString(line.text)));
    if (e.log.empty())
        QVERIFY(log.isEmpty());
    // The table holds the input actions of the event's call: its input update's, at every event of
    // the call (run-level events belong to the call before them), and none in a call without one.
    int call = -1;
    for (int k = i; k >= 0 && call < 0; --k)
        call = s.sim.events[size_t(k)].call;
    const Event* update = nullptr;
    for (const Event& other : s.sim.events)
        if (call >= 0 && other.call == call && other.kind == engine::runtime::EventKind::InputUpdate)
            update = &other;
    if (e.kind == engine::runtime::EventKind::InputUpdate)
        QCOMPARE(update, &e);
    const std::vector<engine::runtime::InputAction> none;
    const auto& actions = update ? update->inputs : none;
    auto* inputs = panel.findChild<QTableWidget*>("runtimeInputs");
    QVERIFY(inputs->isVisible());
    QCOMPARE(inputs->rowCount(), int(actions.size()));
    for (int r = 0; r < int(actions.size()); ++r) {
        QCOMPARE(inputs->item(r, 0)->text(), QString::fromStdString(actions[size_t(r)].input));
        QCOMPARE(inputs->item(r, 1)->text(), QString::fromStdString(actions[size_t(r)].action));
        QCOMPARE(inputs->item(r, 2)->data(Qt::UserRole).toULongLong(), qulonglong(actions[size_t(r)].bytes));
    }
    const QString inputsLabel = panel.findChild<QLabel*>("runtimeInputsLabel")->text();
    if (update)
        QVERIFY2(inputsLabel.contains(QString("of call %1").arg(call)), qPrintable(inputsLabel));
    else
        QVERIFY2(inputsLabel.contains("none") || inputsLabel.contains("no call"), qPrintable(inputsLabel));

    QVERIFY2(waitMemory(panel, memory, i), qPrintable(QString("memory of event %1 never shown").arg(i)));
    auto db = storage::openProject(m_project.toStdString());
    QVERIFY(db.ok());
    auto expected = storage::memoryAt(*db, s.runId, i);
    QVERIFY(expected.ok());
    QVERIFY2(samePools(panel.shown(), *expected), qPrintable(QString("event %1").arg(i)));
    // Every block is drawn, at least a few pixels wide, inside the view.
    for (int p = 0; p < int(expected->size()); ++p)
        for (int g = 0; g < int((*expected)[size_t(p)].segments.size()); ++g)
            for (int b = 0; b < int((*expected)[size_t(p)].segments[size_t(g)].blocks.size()); ++b) {
                const QRect r = panel.blockRect(p, g, b);
                QVERIFY(!r.isEmpty());
                QVERIFY(r.width() >= 1);
            }
    QCOMPARE(panel.memoryChart()->cursor(), i);
}

void RuntimePanelTest::stepsThroughEveryEvent()
{
    gui::ProjectSession session;
    gui::RuntimePanel panel(&session);
    panel.resize(1200, 800);
    panel.show();
    QSignalSpy memory(&panel, &gui::RuntimePanel::memoryShown);
    QSignalSpy steps(&panel, &gui::RuntimePanel::stepChanged);
    open(session, panel, m_kv);
    const int n = panel.eventCount();
    checkStep(panel, memory, m_kv, 0);
    // The details keep their places from step to step: the log does not jump at input updates. (It
    // moves only when the summary above it takes more or fewer lines.)
    auto* log = panel.findChild<QPlainTextEdit*>("runtimeLog");
    auto* summary = panel.findChild<QLabel*>("runtimeSummary");
    QApplication::processEvents();
    std::map<int, QRect> logAt { { summary->height(), log->geometry() } }; // per summary height
    std::map<int, bool> seenOtherThanUpdate { { summary->height(), true } };
    int comparedAtUpdates = 0;
    QElapsedTimer timer;
    qint64 stepNs = 0;
    for (int i = 1; i < n; ++i) {
        timer.start();
        panel.stepForward();
        stepNs += timer.nsecsElapsed();
        checkStep(panel, memory, m_kv, i);
        QCOMPARE(steps.last().at(0).toInt(), i);
        QApplication::processEvents();
        QVERIFY(log->isVisible() && log->height() > 40);
        const bool update = m_kv.sim.events[size_t(i)].kind == engine::runtime::EventKind::InputUpdate;
        const auto at = logAt.emplace(summary->height(), log->geometry()).first;
        QCOMPARE(log->geometry(), at->second);
        comparedAtUpdates += update && seenOtherThanUpdate[summary->height()];
        seenOtherThanUpdate[summary->height()] = seenOtherThanUpdate[summary->height()] || !update;
    }
    QVERIFY(comparedAtUpdates > 0); // the check above held at input updates
    panel.stepForward(); // at the end: stays
    QCOMPARE(panel.step(), n - 1);
    for (int i = n - 2; i >= 0; --i) {
        timer.start();
        panel.stepBack();
        stepNs += timer.nsecsElapsed();
        checkStep(panel, memory, m_kv, i);
    }
    panel.stepBack();
    QCOMPARE(panel.step(), 0);
    qInfo("%d events: stepping (UI thread) %.3f ms per step on average", n, double(stepNs) / 1e6 / (2 * (n - 1)));

    // Back and forth over cached steps: the memory is there at once.
    panel.setStep(5);
    QVERIFY(waitMemory(panel, memory, 5));
    panel.setStep(6);
    QVERIFY(waitMemory(panel, memory, 6));
    panel.setStep(5);
    QCOMPARE(panel.memoryView()->shownEvent(), 5);
    QVERIFY(!panel.memoryView()->stale());
}

void RuntimePanelTest::callJumpsLandOnFirstEvents()
{
    gui::ProjectSession session;
    gui::RuntimePanel panel(&session);
    panel.resize(1200, 800);
    open(session, panel, m_kv);
    const auto& calls = m_kv.sim.calls;
    QVERIFY(calls.size() > 3);
    // Event 0 is call 0's (or a run-level event before it).
    for (size_t c = 1; c < calls.size(); ++c) {
        panel.nextCall();
        QCOMPARE(panel.step(), calls[c].firstEvent);
        QCOMPARE(panel.currentEvent()->call, int(c));
    }
    panel.nextCall(); // after the last call: the last event
    QCOMPARE(panel.step(), panel.eventCount() - 1);
    for (size_t c = calls.size(); c-- > 0;) {
        panel.previousCall();
        QCOMPARE(panel.step(), calls[c].firstEvent);
    }
    // From the middle of a call, previousCall goes to that call's first event.
    panel.setStep(calls[2].firstEvent + 1);
    panel.previousCall();
    QCOMPARE(panel.step(), calls[2].firstEvent);
}

void RuntimePanelTest::playReachesTheEndAndStops()
{
    gui::ProjectSession session;
    gui::RuntimePanel panel(&session);
    open(session, panel, m_fallback);
    const int n = panel.eventCount();
    panel.setStep(n - 4);
    QSignalSpy playing(&panel, &gui::RuntimePanel::playingChanged);
    QSignalSpy steps(&panel, &gui::RuntimePanel::stepChanged);
    QElapsedTimer timer;
    timer.start();
    panel.play();
    QVERIFY(panel.playing());
    QCOMPARE(playing.size(), 1);
    QVERIFY(playing.wait(5000));
    QCOMPARE(playing.last().at(0).toBool(), false);
    QVERIFY(!panel.playing());
    QCOMPARE(panel.step(), n - 1);
    QCOMPARE(steps.size(), 3);
    QVERIFY(timer.elapsed() >= 600); // about four events a second
    // Play at the end starts over.
    panel.play();
    QCOMPARE(panel.step(), 0);
    panel.pause();
    QVERIFY(!panel.playing());
}

void RuntimePanelTest::keyboardShortcuts()
{
    gui::ProjectSession session;
    gui::RuntimePanel panel(&session);
    panel.resize(1200, 800);
    panel.show();
    QApplication::setActiveWindow(&panel);
    QVERIFY(QTest::qWaitForWindowActive(&panel));
    open(session, panel, m_kv);
    panel.setFocus();
    const auto& calls = m_kv.sim.calls;
    QTest::keyClick(&panel, Qt::Key_Right);
    QCOMPARE(panel.step(), 1);
    QTest::keyClick(&panel, Qt::Key_Right);
    QCOMPARE(panel.step(), 2);
    QTest::keyClick(&panel, Qt::Key_Left);
    QCOMPARE(panel.step(), 1);
    QTest::keyClick(&panel, Qt::Key_Right, Qt::ShiftModifier);
    QCOMPARE(panel.step(), calls[1].firstEvent);
    QTest::keyClick(&panel, Qt::Key_PageDown);
    QCOMPARE(panel.step(), calls[2].firstEvent);
    QTest::keyClick(&panel, Qt::Key_Left, Qt::ShiftModifier);
    QCOMPARE(panel.step(), calls[1].firstEvent);
    QTest::keyClick(&panel, Qt::Key_PageUp);
    QCOMPARE(panel.step(), calls[0].firstEvent);
    QTest::keyClick(&panel, Qt::Key_End);
    QCOMPARE(panel.step(), panel.eventCount() - 1);
    QTest::keyClick(&panel, Qt::Key_Home);
    QCOMPARE(panel.step(), 0);
    QTest::keyClick(&panel, Qt::Key_Space);
    QVERIFY(panel.playing());
    QTest::keyClick(&panel, Qt::Key_Space);
    QVERIFY(!panel.playing());
}

void RuntimePanelTest::clickedBlockNamesItsOwner()
{
    gui::ProjectSession session;
    gui::RuntimePanel panel(&session);
    panel.resize(1200, 800);
    panel.show();
    QSignalSpy memory(&panel, &gui::RuntimePanel::memoryShown);
    open(session, panel, m_kv);
    // The first step with an allocated block that has an owner in a private pool.
    auto db = storage::openProject(m_project.toStdString());
    QVERIFY(db.ok());
    for (int i = 0; i < panel.eventCount(); ++i) {
        auto pools = storage::memoryAt(*db, m_kv.runId, i);
        QVERIFY(pools.ok());
        for (int p = 0; p < int(pools->size()); ++p) {
            const auto& pool = (*pools)[size_t(p)];
            if (pool.pool.isDefault())
                continue;
            for (int g = 0; g < int(pool.segments.size()); ++g)
                for (int b = 0; b < int(pool.segments[size_t(g)].blocks.size()); ++b) {
                    const auto& block = pool.segments[size_t(g)].blocks[size_t(b)];
                    if (!block.allocated || block.owner == engine::memory::kNoOwner)
                        continue;
                    const OwnerInfo& owner = m_kv.sim.owners[size_t(block.owner)];
                    panel.setStep(i);
                    QVERIFY(waitMemory(panel, memory, i));
                    const QRect r = panel.blockRect(p, g, b);
                    QVERIFY(r.width() >= 4);
                    QSignalSpy selected(&panel, &gui::RuntimePanel::blockSelected);
                    QTest::mouseClick(panel.memoryView(), Qt::LeftButton, {}, r.center());
                    QCOMPARE(selected.size(), 1);
                    QCOMPARE(selected[0][0].toString(), QString::fromStdString(owner.tensor));
                    QCOMPARE(selected[0][1].toString(), QString::fromStdString(owner.graph));
                    QVERIFY(!owner.graph.empty());
                    return;
                }
        }
    }
    QFAIL("no owned block in a private pool");
}

void RuntimePanelTest::missingRunShowsAnError()
{
    gui::ProjectSession session;
    gui::RuntimePanel panel(&session);
    panel.show();
    QSignalSpy shown(&panel, &gui::RuntimePanel::runShown);
    guitest::select(session, m_project, "run", 987654);
    QVERIFY(shown.wait(20000));
    QVERIFY(panel.errorText().contains("987654"));
    QVERIFY(panel.findChild<QLabel*>("runtimeTitle")->text().contains("987654"));
    QCOMPARE(panel.eventCount(), 0);
    QCOMPARE(panel.step(), -1);
    QVERIFY(!panel.currentEvent());
    panel.stepForward();
    panel.nextCall();
    panel.play();
    QVERIFY(!panel.playing());
    QVERIFY(panel.shown().empty());
    // A project that is not there either.
    guitest::select(session, m_dir.filePath("missing.aclgi"), "run", 1);
    QVERIFY(shown.wait(20000));
    QVERIFY(!panel.errorText().isEmpty());
    // And a good run after that shows.
    open(session, panel, m_kv);
}

// A real recording (a_default.pickle: PyTorch 2.11, torch.cuda.graph captures): no TorchAir log,
// the chart on its time_us axis with the allocated bytes stacked by owner category, the breakdown
// of the step shown, and the Peak button at the highest reserved memory.
void RuntimePanelTest::recordingShowsTimeLayersAndPeak()
{
    const QString project = m_dir.filePath("recording.aclgi");
    auto imported = storage::importPaths(
        project.toStdString(), { std::string(ACLGI_SOURCE_DIR) + "/tests/data/real/snapshots/a_default.pickle" });
    QVERIFY(imported.ok());
    auto db = storage::openProject(project.toStdString());
    QVERIFY(db.ok());
    auto runs = storage::listRuns(*db);
    QVERIFY(runs.ok() && runs->size() == 1);
    gui::ProjectSession session;
    gui::RuntimePanel panel(&session);
    panel.resize(1200, 700);
    panel.show();
    QSignalSpy shown(&panel, &gui::RuntimePanel::runShown);
    guitest::select(session, project, "run", runs->front().id);
    QVERIFY(shown.wait(20000));
    QVERIFY2(panel.errorText().isEmpty(), qPrintable(panel.errorText()));
    QVERIFY(!panel.findChild<QLabel*>("runtimeLogLabel")->isVisible());
    QVERIFY(!panel.findChild<QPlainTextEdit*>("runtimeLog")->isVisible());
    gui::MemoryChart* chart = panel.memoryChart();
    QVERIFY(chart->hasTime());
    QVERIFY(chart->hasLayers());
    // The Peak button: the event of the highest reserved memory (174,063,616 bytes, the real
    // allocator's reserved_bytes.all.peak in a_default.jsonl).
    auto* peak = panel.findChild<QToolButton*>("runtimePeak");
    QVERIFY(peak);
    QSignalSpy memory(&panel, &gui::RuntimePanel::memoryShown);
    peak->click();
    QCOMPARE(panel.step(), chart->peakReservedEvent());
    QCOMPARE(panel.currentEvent()->deviceReserved, uint64_t(174063616));
    QVERIFY(memory.count() > 0 || memory.wait(20000));
    QVERIFY(!panel.memoryBreakdown()->rows().empty());
    QCOMPARE(panel.memoryBreakdown()->total(), panel.currentEvent()->deviceAllocated);
}

void RuntimePanelTest::screenshot()
{
    gui::ProjectSession session;
    gui::RuntimePanel panel(&session);
    panel.resize(1280, 820);
    panel.show();
    QSignalSpy memory(&panel, &gui::RuntimePanel::memoryShown);
    open(session, panel, m_kv);
    // The first input update after a recapture: two pools, the KV cache moved, an input table.
    int step = 0;
    bool recaptured = false;
    for (const auto& e : m_kv.sim.events) {
        if (e.kind == EventKind::Capture && e.call > 2)
            recaptured = true;
        if (recaptured && e.kind == EventKind::InputUpdate) {
            step = e.index;
            break;
        }
    }
    panel.setStep(step);
    QVERIFY(waitMemory(panel, memory, step));
    QTest::qWait(50);
    const QString path = qEnvironmentVariableIsSet("ACLGI_RUNTIME_SCREENSHOT")
        ? qEnvironmentVariable("ACLGI_RUNTIME_SCREENSHOT")
        : QString("/tmp/runtime_panel.png");
    QVERIFY(panel.grab().save(path));
    qInfo("screenshot of event %d saved to %s", step, qPrintable(path));
}

QTEST_MAIN(RuntimePanelTest)
#include "runtime_panel_test.moc"
