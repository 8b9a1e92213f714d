// The Log tab: a stored run of sample 07 (held outputs overwritten): one row per log line, the
// level / kind / graph / key / text filters, selectEvent and the double-click signal.
#include "engine/runtime/simulator.h"
#include "engine/scenario/scenario.h"
#include "gui/app/log_panel.h"
#include "gui/app/run_log_model.h"
#include "storage/project_db.h"
#include "storage/run_store.h"
#include "tests/gui/screenshot.h"
#include "tests/gui/session_util.h"

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QDir>
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

using engine::runtime::LogLevel;

class LogPanelTest : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void modelAndFilter();
    void panelFilters();
    void selectAndActivate();

private:
    void show(gui::ProjectSession& session, gui::LogPanel& panel);
    int countLines(
        const std::function<bool(const engine::runtime::Event&, const engine::runtime::LogLine&)>& keep) const;

    QTemporaryDir m_dir;
    QString m_project;
    qlonglong m_run = 0;
    engine::runtime::Simulation m_sim;
};

void LogPanelTest::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(m_dir.isValid());
    auto scenario
        = engine::scenario::readScenarioFile(ACLGI_SOURCE_DIR "/resources/samples/07_held_outputs_overwritten.json");
    QVERIFY(scenario.ok());
    auto sim = engine::runtime::simulate(*scenario);
    QVERIFY(sim.ok());
    m_project = m_dir.filePath("p.aclgi");
    auto db = storage::openProject(m_project.toStdString());
    QVERIFY2(db.ok(), db.ok() ? "" : db.error().toString().c_str());
    {
        auto tx = storage::Transaction::begin(*db);
        QVERIFY(tx.ok());
        storage::WriteContext ctx(*db);
        storage::RunPlace place;
        place.backend = "torchair";
        auto id = storage::writeRun(ctx, *sim, place, nullptr);
        QVERIFY(id.ok());
        m_run = *id;
        QVERIFY(tx->commit().ok());
    }
    auto stored = storage::readRun(*db, m_run);
    QVERIFY(stored.ok());
    m_sim = std::move(stored->sim);
    QVERIFY(countLines([](auto&, auto&) { return true; }) > 10);
}

int LogPanelTest::countLines(
    const std::function<bool(const engine::runtime::Event&, const engine::runtime::LogLine&)>& keep) const
{
    int n = 0;
    for (const auto& e : m_sim.events)
        for (const auto& l : e.log)
            n += keep(e, l) ? 1 : 0;
    return n;
}

void LogPanelTest::show(gui::ProjectSession& session, gui::LogPanel& panel)
{
    QSignalSpy shown(&panel, &gui::LogPanel::shown);
    guitest::select(session, m_project, "run", m_run);
    QVERIFY(shown.wait(20000));
}

void LogPanelTest::modelAndFilter()
{
    gui::RunLogModel model;
    QAbstractItemModelTester modelTester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    gui::RunLogFilter filter;
    filter.setSourceModel(&model);
    QAbstractItemModelTester filterTester(&filter, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setLines(gui::runLogLines(m_sim.events));
    const int total = countLines([](auto&, auto&) { return true; });
    QCOMPARE(model.rowCount(), total);
    QCOMPARE(filter.rowCount(), total);
    QCOMPARE(model.columnCount(), int(gui::RunLogModel::ColumnCount));
    QCOMPARE(model.headerData(gui::RunLogModel::TextColumn, Qt::Horizontal).toString(), QString("Text"));

    filter.setMinLevel(int(LogLevel::Warning));
    const int warnings = countLines([](auto&, auto& l) { return l.level == LogLevel::Warning; });
    QVERIFY(warnings > 0);
    QCOMPARE(filter.rowCount(), warnings);
    filter.setMinLevel(int(LogLevel::Info));
    QCOMPARE(filter.rowCount(), countLines([](auto&, auto& l) { return l.level != LogLevel::Debug; }));
    filter.setMinLevel(int(LogLevel::Debug));

    filter.setKind("replay");
    const int replays = countLines([](auto& e, auto&) { return e.kind == engine::runtime::EventKind::Replay; });
    QVERIFY(replays > 0 && replays < total);
    QCOMPARE(filter.rowCount(), replays);
    filter.setKind({});

    const std::string graph = m_sim.graphs.at(0).name;
    filter.setGraph(QString::fromStdString(graph));
    QCOMPARE(filter.rowCount(), countLines([&](auto& e, auto&) { return e.graph == graph; }));
    filter.setGraph({});

    std::string key;
    for (const auto& e : m_sim.events)
        if (!e.key.empty() && !e.log.empty())
            key = e.key;
    QVERIFY(!key.empty());
    filter.setKey(QString::fromStdString(key));
    QCOMPARE(filter.rowCount(), countLines([&](auto& e, auto&) { return e.key == key; }));
    filter.setKey({});

    filter.setText("REPLAY");
    const int texts = countLines([](auto&, auto& l) {
        return QString::fromStdString(l.category + ": " + l.text).contains("replay", Qt::CaseInsensitive);
    });
    QVERIFY(texts > 0 && texts < total);
    QCOMPARE(filter.rowCount(), texts);
    filter.setText({});
    QCOMPARE(filter.rowCount(), total);

    // The event role and the first row of an event.
    const int event = model.lines().back().event;
    const int row = model.firstRowOfEvent(event);
    QCOMPARE(model.index(row, 0).data(gui::RunLogModel::EventRole).toInt(), event);
    QVERIFY(row == 0 || model.index(row - 1, 0).data(gui::RunLogModel::EventRole).toInt() != event);
    QCOMPARE(model.firstRowOfEvent(-5), -1);
    model.setLines({});
    QCOMPARE(filter.rowCount(), 0);
}

void LogPanelTest::panelFilters()
{
    gui::ProjectSession session;
    gui::LogPanel panel(&session);
    panel.resize(1200, 600);
    panel.show();
    show(session, panel);
    const int total = countLines([](auto&, auto&) { return true; });
    QCOMPARE(panel.model()->rowCount(), total);
    QCOMPARE(panel.view()->model()->rowCount(), total);
    QVERIFY(panel.findChild<QLabel*>("logTitle")->text().contains(QString::number(total)));
    screenshot(panel, "log_panel.png");

    auto* level = panel.findChild<QComboBox*>("logLevel");
    level->setCurrentIndex(level->findText("WARNING"));
    QCOMPARE(
        panel.view()->model()->rowCount(), countLines([](auto&, auto& l) { return l.level == LogLevel::Warning; }));
    level->setCurrentIndex(0);
    auto* kind = panel.findChild<QComboBox*>("logKind");
    QCOMPARE(kind->itemText(0), QString("all"));
    kind->setCurrentIndex(kind->findText("capture"));
    QCOMPARE(panel.view()->model()->rowCount(),
        countLines([](auto& e, auto&) { return e.kind == engine::runtime::EventKind::Capture; }));
    kind->setCurrentIndex(0);
    auto* graph = panel.findChild<QComboBox*>("logGraph");
    QVERIFY(graph->count() >= 2);
    graph->setCurrentIndex(1);
    const std::string name = graph->currentData().toString().toStdString();
    QCOMPARE(panel.view()->model()->rowCount(), countLines([&](auto& e, auto&) { return e.graph == name; }));
    graph->setCurrentIndex(0);
    panel.findChild<QLineEdit*>("logText")->setText("mempool");
    QVERIFY(panel.view()->model()->rowCount() > 0);
    QVERIFY(panel.view()->model()->rowCount() < total);
    QVERIFY(
        panel.findChild<QLabel*>("logCount")->text().startsWith(QString::number(panel.view()->model()->rowCount())));
    screenshot(panel, "log_panel_filtered.png");
    panel.findChild<QLineEdit*>("logText")->clear();
    QCOMPARE(panel.view()->model()->rowCount(), total);
}

void LogPanelTest::selectAndActivate()
{
    gui::ProjectSession session;
    gui::LogPanel panel(&session);
    panel.resize(1200, 400);
    panel.show();
    show(session, panel);
    const int event = panel.model()->lines().back().event;
    panel.selectEvent(event);
    const QModelIndex current = panel.view()->currentIndex();
    QVERIFY(current.isValid());
    QCOMPARE(current.data(gui::RunLogModel::EventRole).toInt(), event);
    QCOMPARE(panel.model()->firstRowOfEvent(event), current.row());

    // An event without lines selects the next line after it.
    int silent = -1;
    for (const auto& e : m_sim.events)
        if (e.log.empty() && e.index < event)
            silent = e.index;
    if (silent >= 0) {
        panel.selectEvent(silent);
        QVERIFY(panel.view()->currentIndex().data(gui::RunLogModel::EventRole).toInt() > silent);
    }

    QSignalSpy activated(&panel, &gui::LogPanel::eventActivated);
    emit panel.view()->doubleClicked(current);
    QCOMPARE(activated.count(), 1);
    QCOMPARE(activated[0][0].toInt(), event);

    // A run that is not there: the title says so and the table is empty.
    QSignalSpy shown(&panel, &gui::LogPanel::shown);
    guitest::select(session, m_project, "run", 987654);
    QVERIFY(shown.wait(20000));
    QVERIFY(panel.findChild<QLabel*>("logTitle")->text().contains("987654"));
    QCOMPARE(panel.model()->rowCount(), 0);
}

QTEST_MAIN(LogPanelTest)
#include "log_panel_test.moc"
