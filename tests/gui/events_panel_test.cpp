// The Events view: stored runs of sample 07 (five overwritten outputs) and sample 09 (a fallback) listed
// one row per event, the model's columns and roles, the Hazards / Replays filters and the text filter,
// selectEvent (quiet) against a click and Enter (eventActivated), the explanation pane of a hazard
// row, the empty states, and a synthetic run of 100,000 events filtered. Grabs of the view at
// 1600x1000 and 1366x768 go to $ACLGI_SCREENSHOTS when it is set.
#include "engine/report/hazard_explain.h"
#include "gui/app/event_list_model.h"
#include "gui/app/events_panel.h"
#include "storage/project_db.h"
#include "storage/run_store.h"
#include "tests/gui/sample_project.h"
#include "tests/gui/screenshot.h"

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QStackedWidget>
#include <QStandardPaths>
#include <QTableView>
#include <QTextBrowser>
#include <QToolButton>
#include <QtTest>
#include <set>

using engine::runtime::EventKind;
using gui::EventCategory;
using gui::EventListModel;

namespace {

/// The one run of a project imported with importSampleWithRun, read back as the panels read it.
std::shared_ptr<const storage::StoredRun> readOnlyRun(const QString& project)
{
    auto db = storage::openProject(project.toStdString());
    if (!db)
        return nullptr;
    auto runs = storage::listRuns(*db);
    if (!runs || runs->empty())
        return nullptr;
    auto run = storage::readRun(*db, runs->front().id);
    return run ? std::make_shared<const storage::StoredRun>(std::move(*run)) : nullptr;
}

/// A run of `n` events: every tenth call recaptures, every 1000th event shows a hazard (a Hazard event),
/// the rest cycles through the kinds a call has.
std::shared_ptr<const storage::StoredRun> syntheticRun(int n)
{
    auto run = std::make_shared<storage::StoredRun>();
    auto& sim = run->sim;
    const EventKind cycle[]
        = { EventKind::KeyLookup, EventKind::Capture, EventKind::InputUpdate, EventKind::Replay, EventKind::Outputs };
    sim.events.reserve(size_t(n));
    for (int i = 0; i < n; ++i) {
        engine::runtime::Event e;
        e.index = i;
        e.call = i / 5;
        e.kind = cycle[i % 5];
        e.graph = "graph_" + std::to_string(1 + (i / 5) % 3);
        e.key = "[" + std::to_string(1 + (i / 5) % 7) + "]";
        e.summary = "step " + std::to_string(i);
        e.deviceReserved = uint64_t(i) * 4096;
        if (i % 1000 == 999) {
            engine::runtime::Hazard h;
            h.kind = engine::runtime::HazardKind::OutputOverwritten;
            h.call = e.call;
            h.graph = e.graph;
            h.concerns = "output 0 (out) of call " + std::to_string(e.call - 1);
            h.madeAtCall = e.call - 1;
            e.kind = EventKind::Hazard;
            e.hazard = int(sim.hazards.size());
            sim.hazards.push_back(h);
        }
        sim.events.push_back(std::move(e));
    }
    for (int c = 0; c < n / 5; ++c) {
        engine::runtime::CallRecord rec;
        rec.index = c;
        rec.graph = "graph_" + std::to_string(1 + c % 3);
        rec.key = "[" + std::to_string(1 + c % 7) + "]";
        rec.action = c % 10 == 9 ? engine::runtime::CallAction::Recapture : engine::runtime::CallAction::Replay;
        rec.recaptureCause = c % 10 == 9 ? "mutated_input" : "";
        rec.firstEvent = c * 5;
        rec.eventCount = 5;
        sim.calls.push_back(rec);
    }
    run->row.id = 42;
    sim.scenarioName = "synthetic";
    return run;
}

} // namespace

class EventsPanelTest : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void modelRowsAndRoles();
    void hazardFilterAndCounts();
    void textFilter();
    void selectIsQuietClickAndEnterActivate();
    void hazardPaneExplains();
    void emptyStates();
    void largeRunFilters();
    void screenshots();

private:
    QTemporaryDir m_heldDir, m_fallbackDir;
    std::shared_ptr<const storage::StoredRun> m_held; ///< sample 07
    std::shared_ptr<const storage::StoredRun> m_fallback; ///< sample 09
};

void EventsPanelTest::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(m_heldDir.isValid() && m_fallbackDir.isValid());
    QString project;
    importSampleWithRun(m_heldDir, "07_held_outputs_overwritten.json", project);
    m_held = readOnlyRun(project);
    QVERIFY(m_held);
    importSampleWithRun(m_fallbackDir, "09_capture_limit_fallback.json", project);
    m_fallback = readOnlyRun(project);
    QVERIFY(m_fallback);
    QCOMPARE(int(m_held->sim.hazards.size()), 5); // docs/samples.md
}

void EventsPanelTest::modelRowsAndRoles()
{
    EventListModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    gui::EventFilterModel filter;
    filter.setSourceModel(&model);
    QAbstractItemModelTester filterTester(&filter, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(model.rowCount(), 0);
    model.setRun(m_held);
    const auto& sim = m_held->sim;
    QCOMPARE(model.rowCount(), int(sim.events.size()));
    QCOMPARE(model.headerData(EventListModel::KindColumn, Qt::Horizontal).toString(), QString("kind"));

    // The replay of call 2 overwrote the output call 1 returned (hazard 0).
    int replay = -1;
    for (const auto& e : sim.events)
        if (e.call == 2 && e.kind == EventKind::Replay)
            replay = e.index;
    QVERIFY(replay >= 0);
    auto at = [&](int column, int role = Qt::DisplayRole) { return model.index(replay, column).data(role); };
    QCOMPARE(at(EventListModel::NumberColumn).toString(), QString::number(replay + 1));
    QCOMPARE(at(EventListModel::KindColumn).toString(), QString("replay · hazard: output_overwritten"));
    QCOMPARE(at(EventListModel::CallColumn).toString(), QString("2"));
    QCOMPARE(at(EventListModel::GraphColumn).toString(), QString("graph_2"));
    QCOMPARE(at(EventListModel::KeyColumn).toString(), QString("no_updated_input"));
    QCOMPARE(at(0, EventListModel::HazardRole).toInt(), 0);
    QCOMPARE(at(0, EventListModel::KindRole).toInt(), int(EventKind::Replay));
    QVERIFY(at(EventListModel::TextColumn, Qt::BackgroundRole).isValid()); // tinted
    QVERIFY(at(EventListModel::KindColumn, Qt::FontRole).value<QFont>().bold());
    QVERIFY(at(EventListModel::KindColumn, Qt::ToolTipRole).toString().contains("returned by call 1"));
    // Bytes: human units shown, the exact number sorted on and in the tooltip.
    const uint64_t reserved = sim.events[size_t(replay)].deviceReserved;
    QVERIFY(reserved > 0);
    QCOMPARE(at(EventListModel::BytesColumn).toString(), QString::fromStdString(engine::report::humanBytes(reserved)));
    QCOMPARE(at(EventListModel::BytesColumn, EventListModel::SortRole).toULongLong(), qulonglong(reserved));
    QVERIFY(at(EventListModel::BytesColumn, Qt::ToolTipRole)
                .toString()
                .contains(QString::fromStdString(engine::report::bytesText(reserved))));

    // A row without a hazard: no tint, HazardRole -1; a run-level event has an empty call.
    QCOMPARE(model.index(0, 0).data(EventListModel::HazardRole).toInt(), -1);
    QVERIFY(!model.index(0, EventListModel::TextColumn).data(Qt::BackgroundRole).isValid());
    QCOMPARE(model.index(0, EventListModel::KindColumn).data().toString(), QString("compile"));

    // Sample 09: the fallback event's own hazard reads once; its Eager/Fallback count has the eager calls.
    model.setRun(m_fallback);
    int fallback = -1;
    for (const auto& e : m_fallback->sim.events)
        if (e.kind == EventKind::Fallback)
            fallback = e.index;
    QVERIFY(fallback >= 0);
    QCOMPARE(model.index(fallback, EventListModel::KindColumn).data().toString(), QString("hazard: fallback"));
    QCOMPARE(model.count(EventCategory::EagerFallback), 1 + 4); // the fallback and calls 3-6 run eagerly
}

void EventsPanelTest::hazardFilterAndCounts()
{
    gui::EventsPanel panel;
    panel.showRun(m_held);
    QCOMPARE(panel.shownCount(), int(m_held->sim.events.size()));
    // Every hazard of sample 07 is shown by the replay of its call (docs/samples.md: calls 2-6).
    std::set<int> expected;
    for (const auto& h : m_held->sim.hazards)
        for (const auto& e : m_held->sim.events)
            if (e.call == h.call && e.kind == EventKind::Replay)
                expected.insert(e.index);
    QCOMPARE(int(expected.size()), 5);
    panel.setKindFilter(EventCategory::Hazards);
    QCOMPARE(panel.shownCount(), int(expected.size()));
    for (int r = 0; r < panel.shownCount(); ++r) {
        const QModelIndex index = panel.table()->model()->index(r, 0);
        QVERIFY(expected.count(index.data().toInt() - 1));
        QVERIFY(index.data(EventListModel::HazardRole).toInt() >= 0);
    }
    auto* combo = panel.findChild<QComboBox*>("eventsKind");
    QVERIFY(combo);
    QCOMPARE(combo->currentText(), QString("Hazards (5)"));
    QCOMPARE(combo->itemText(int(EventCategory::All)), QString("All (%1)").arg(m_held->sim.events.size()));

    int replays = 0;
    for (const auto& e : m_held->sim.events)
        replays += e.kind == EventKind::Replay ? 1 : 0;
    combo->setCurrentIndex(int(EventCategory::Replays));
    QCOMPARE(panel.shownCount(), replays);
    QVERIFY(panel.findChild<QLabel*>("eventsCount")->text().contains(QString("%1 of").arg(replays)));
    panel.findChild<QToolButton*>("eventsClear")->click();
    QCOMPARE(panel.shownCount(), int(m_held->sim.events.size()));
    QCOMPARE(combo->currentIndex(), int(EventCategory::All));
}

void EventsPanelTest::textFilter()
{
    gui::EventsPanel panel;
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    panel.showRun(m_held);
    int graph1 = 0;
    for (const auto& e : m_held->sim.events)
        graph1 += e.graph == "graph_1" || QString::fromStdString(e.summary).contains("graph_1", Qt::CaseInsensitive);
    QVERIFY(graph1 > 0 && graph1 < int(m_held->sim.events.size()));
    panel.setTextFilter("GRAPH_1"); // case-insensitive
    QCOMPARE(panel.shownCount(), graph1);
    QCOMPARE(panel.findChild<QLineEdit*>("eventsText")->text(), QString("GRAPH_1"));
    // Typing in the line edit filters the same way; text and kind filters combine.
    panel.setTextFilter({});
    QTest::keyClicks(panel.findChild<QLineEdit*>("eventsText"), "output_overwritten");
    QCOMPARE(panel.shownCount(), 5);
    panel.setKindFilter(EventCategory::Compiles);
    QCOMPARE(panel.shownCount(), 0);
    QVERIFY(panel.findChild<QLabel*>("eventsCount")->text().contains("No event matches"));
    panel.setKindFilter(EventCategory::All);
    panel.setTextFilter("no such text anywhere");
    QCOMPARE(panel.shownCount(), 0);
}

void EventsPanelTest::selectIsQuietClickAndEnterActivate()
{
    gui::EventsPanel panel;
    panel.resize(1200, 800);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    panel.showRun(m_held);
    QSignalSpy activated(&panel, &gui::EventsPanel::eventActivated);
    const int target = int(m_held->sim.events.size()) - 3;
    panel.selectEvent(target);
    QCOMPARE(activated.count(), 0);
    QTableView* table = panel.table();
    QCOMPARE(table->currentIndex().row(), target); // unsorted, unfiltered: proxy row == event
    QCOMPARE(table->selectionModel()->selectedRows().size(), 1);
    QVERIFY(
        panel.pane()->toPlainText().contains(QString("Event %1 of %2").arg(target + 1).arg(m_held->sim.events.size())));

    // A click on another row: the stepper is asked to go there.
    const int clicked = 4;
    table->scrollTo(table->model()->index(clicked, 0));
    const QRect rect = table->visualRect(table->model()->index(clicked, EventListModel::TextColumn));
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, rect.center());
    QCOMPARE(activated.count(), 1);
    QCOMPARE(activated.takeFirst().at(0).toInt(), clicked);
    // Enter on the current row does the same.
    panel.selectEvent(7);
    QCOMPARE(activated.count(), 0);
    table->setFocus();
    QTest::keyClick(table, Qt::Key_Return);
    QCOMPARE(activated.count(), 1);
    QCOMPARE(activated.takeFirst().at(0).toInt(), 7);

    // An event the filter hides: nothing selected, the pane still follows the stepper.
    panel.setKindFilter(EventCategory::Hazards);
    panel.selectEvent(0);
    QVERIFY(table->selectionModel()->selectedRows().isEmpty());
    QVERIFY(panel.pane()->toPlainText().contains("Event 1 of"));
    QCOMPARE(activated.count(), 0);
}

void EventsPanelTest::hazardPaneExplains()
{
    gui::EventsPanel panel;
    panel.showRun(m_held);
    const int event = engine::report::hazardEvent(m_held->sim, 0);
    QVERIFY(event >= 0);
    panel.selectEvent(event);
    const QString text = panel.pane()->toPlainText();
    QVERIFY2(text.contains("Output overwritten by a later replay"), qPrintable(text));
    QVERIFY(text.contains("What"));
    QVERIFY(text.contains("returned by call 1 (graph_2 key {no_updated_input})"));
    QVERIFY(text.contains("How to avoid"));
    QVERIFY(text.contains("debug.aclgraph.enable_output_clone=True"));
    QVERIFY(text.contains("TorchAir says"));
    QVERIFY(text.contains("torchair-behavior.md"));

    // Another event of the same call links to the event that shows the call's hazard.
    int lookup = -1;
    for (const auto& e : m_held->sim.events)
        if (e.call == 2 && e.kind == EventKind::KeyLookup)
            lookup = e.index;
    QVERIFY(lookup >= 0);
    panel.selectEvent(lookup);
    QVERIFY(panel.pane()->toHtml().contains(QString("event:%1").arg(event + 1)));
    QSignalSpy activated(&panel, &gui::EventsPanel::eventActivated);
    emit panel.pane()->anchorClicked(QUrl(QString("event:%1").arg(event + 1)));
    QCOMPARE(activated.count(), 1);
    QCOMPARE(activated.takeFirst().at(0).toInt(), event);
    QCOMPARE(panel.table()->currentIndex().row(), event);

    // The fallback of sample 09 quotes TorchAir's warning.
    panel.showRun(m_fallback);
    for (const auto& e : m_fallback->sim.events)
        if (e.kind == EventKind::Fallback)
            panel.selectEvent(e.index);
    QVERIFY(panel.pane()->toPlainText().contains("The static_capture_size_limit reached when capturing"));
}

void EventsPanelTest::emptyStates()
{
    gui::EventsPanel panel;
    auto* stack = panel.findChild<QStackedWidget*>();
    QVERIFY(stack);
    auto* empty = panel.findChild<QLabel*>("eventsEmpty");
    QVERIFY(empty);
    QCOMPARE(stack->currentWidget(), static_cast<QWidget*>(empty));
    QVERIFY(empty->text().contains("No run"));
    QVERIFY(empty->text().contains("Pick a run in the Project view"));
    QCOMPARE(panel.shownCount(), 0);
    panel.showRun(m_held);
    QVERIFY(stack->currentWidget() != empty);
    QVERIFY(panel.pane()->toPlainText().contains("Select an event"));
    panel.showRun(nullptr);
    QCOMPARE(stack->currentWidget(), static_cast<QWidget*>(empty));
    QCOMPARE(panel.shownCount(), 0);
}

void EventsPanelTest::largeRunFilters()
{
    const int n = 100000;
    const auto run = syntheticRun(n);
    gui::EventsPanel panel;
    panel.resize(1366, 768);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    panel.showRun(run);
    QCOMPARE(panel.shownCount(), n);
    panel.setKindFilter(EventCategory::Hazards);
    QCOMPARE(panel.shownCount(), n / 1000);
    panel.setKindFilter(EventCategory::Recaptures);
    // Capture events (the second of every call's five) of every tenth call, less those made Hazard events.
    int recaptures = 0;
    for (const auto& e : run->sim.events)
        recaptures += e.kind == EventKind::Capture && e.call % 10 == 9;
    QCOMPARE(panel.shownCount(), recaptures);
    QCOMPARE(panel.table()->model()->index(0, EventListModel::KindColumn).data().toString(), QString("recapture"));
    panel.setKindFilter(EventCategory::All);
    panel.setTextFilter("step 9999"); // 9999 and 99990-99999
    QCOMPARE(panel.shownCount(), 11);
    panel.setTextFilter({});
    panel.selectEvent(n - 1);
    QCOMPARE(panel.table()->currentIndex().row(), n - 1);
    QVERIFY(panel.pane()->toPlainText().contains("Output overwritten by a later replay"));
}

void EventsPanelTest::screenshots()
{
    gui::EventsPanel panel;
    panel.showRun(m_held);
    for (const QSize size : { QSize(1600, 1000), QSize(1366, 768) }) {
        panel.resize(size);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        panel.selectEvent(engine::report::hazardEvent(m_held->sim, 1));
        // Every column but the text fits its content: nothing narrower than what it shows.
        QTableView* table = panel.table();
        for (int c = 0; c < EventListModel::TextColumn; ++c)
            for (int r = 0; r < table->model()->rowCount(); ++r) {
                const QModelIndex index = table->model()->index(r, c);
                QFont font = table->font();
                font.setBold(index.data(Qt::FontRole).value<QFont>().bold());
                QVERIFY2(QFontMetrics(font).horizontalAdvance(index.data().toString()) + 8 <= table->columnWidth(c),
                    qPrintable(index.data().toString()));
            }
        screenshot(panel, qPrintable(QString("events_panel_%1x%2.png").arg(size.width()).arg(size.height())));
    }
    // The fallback of sample 09, with the Hazards filter and TorchAir's warning quoted.
    panel.showRun(m_fallback);
    panel.setKindFilter(EventCategory::Hazards);
    panel.selectEvent(engine::report::hazardEvent(m_fallback->sim, 0));
    QCOMPARE(panel.shownCount(), 1);
    screenshot(panel, "events_panel_fallback_1366x768.png");
}

QTEST_MAIN(EventsPanelTest)
#include "events_panel_test.moc"
