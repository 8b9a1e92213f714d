// The Passes tab: the pass reports of an imported FX file (one row per report), a pass's changes and
// DEBUG lines, and the Diff tab between the input graph and the last stage.
#include "gui/app/passes_panel.h"
#include "storage/graph_store.h"
#include "storage/importer.h"
#include "storage/project_db.h"
#include "tests/gui/screenshot.h"
#include "tests/gui/session_util.h"

#include <QComboBox>
#include <QDir>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTreeWidget>
#include <QtTest>

class PassesPanelTest : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void tableAndChanges();
    void diffBetweenStages();
    void graphWithoutReports();

private:
    void show(gui::ProjectSession& session, gui::PassesPanel& panel, qlonglong id);

    QTemporaryDir m_dir;
    QString m_project;
    qlonglong m_graph = 0;
    qlonglong m_stage = 0; ///< a pass_result graph: no reports of its own
    std::vector<storage::StoredPassReport> m_reports;
};

void PassesPanelTest::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(m_dir.isValid());
    m_project = m_dir.filePath("p.aclgi");
    auto results = storage::importPaths(
        m_project.toStdString(), { ACLGI_SOURCE_DIR "/tests/data/fx/torchair_000_aot_forward_graph.txt" });
    QVERIFY(results.ok());
    QCOMPARE((*results)[0].status, storage::SourceResult::Status::Imported);
    auto db = storage::openProject(m_project.toStdString());
    QVERIFY(db.ok());
    auto graphs = storage::listGraphs(*db);
    QVERIFY(graphs.ok());
    for (const auto& g : *graphs) {
        if (g.role == "graph")
            m_graph = g.id;
        if (g.role == "pass_result")
            m_stage = g.id;
    }
    QVERIFY(m_graph > 0);
    QVERIFY(m_stage > 0);
    auto reports = storage::readPassReports(*db, m_graph);
    QVERIFY(reports.ok());
    m_reports = std::move(reports.value());
    QVERIFY(m_reports.size() > 2);
}

void PassesPanelTest::show(gui::ProjectSession& session, gui::PassesPanel& panel, qlonglong id)
{
    QSignalSpy shown(&panel, &gui::PassesPanel::shown);
    guitest::select(session, m_project, "graph", id);
    QVERIFY(shown.wait(20000));
}

void PassesPanelTest::tableAndChanges()
{
    gui::ProjectSession session;
    gui::PassesPanel panel(&session);
    panel.resize(1100, 700);
    panel.show();
    show(session, panel, m_graph);
    QTableWidget* table = panel.passTable();
    QCOMPARE(table->rowCount(), int(m_reports.size()));
    for (int row = 0; row < table->rowCount(); ++row) {
        const auto& r = m_reports[size_t(row)].report;
        QCOMPARE(table->item(row, 0)->text(), QString::fromStdString(r.name));
        QCOMPARE(table->item(row, 1)->text(), QString(r.enabled ? "yes" : "no"));
        QCOMPARE(table->item(row, 4)->text(), QString::number(r.rewritten.size()));
        QCOMPARE(table->item(row, 5)->text(), QString::number(r.skipped.size()));
        QCOMPARE(table->item(row, 6)->text(), QString::number(r.removed.size()));
        QCOMPARE(table->item(row, 7)->text(), QString::number(r.added.size()));
        if (r.enabled && r.nodesBefore != r.nodesAfter)
            QVERIFY(table->item(row, 2)->text().contains("→"));
    }
    // The first pass is selected on load; each pass lists its changes and its log.
    QCOMPARE(table->currentRow(), 0);
    bool sawChange = false;
    for (int row = 0; row < table->rowCount(); ++row) {
        panel.selectPass(row);
        const auto& r = m_reports[size_t(row)].report;
        QTreeWidget* changes = panel.changes();
        QCOMPARE(changes->topLevelItemCount(), 4);
        QCOMPARE(changes->topLevelItem(0)->childCount(), int(r.rewritten.size()));
        QCOMPARE(changes->topLevelItem(1)->childCount(), int(r.skipped.size()));
        QCOMPARE(changes->topLevelItem(2)->childCount(), int(r.removed.size()));
        QCOMPARE(changes->topLevelItem(3)->childCount(), int(r.added.size()));
        if (!r.skipped.empty())
            QCOMPARE(changes->topLevelItem(1)->child(0)->text(1), QString::fromStdString(r.skipped[0].reason));
        if (!r.rewritten.empty()) {
            QCOMPARE(changes->topLevelItem(0)->child(0)->text(0), QString::fromStdString(r.rewritten[0].node));
            sawChange = true;
        }
        if (!r.removed.empty())
            sawChange = true;
        if (!r.log.empty())
            QVERIFY(panel.passLog()->toPlainText().contains(QString::fromStdString(r.log.back())));
    }
    QVERIFY(sawChange);
    // Pick the pass with the most changes for the screenshot.
    int busiest = 0;
    size_t most = 0;
    for (size_t i = 0; i < m_reports.size(); ++i) {
        const auto& r = m_reports[i].report;
        const size_t n = r.rewritten.size() + r.removed.size() + r.skipped.size();
        if (n > most) {
            most = n;
            busiest = int(i);
        }
    }
    panel.selectPass(busiest);
    screenshot(panel, "passes_panel.png");
}

void PassesPanelTest::diffBetweenStages()
{
    gui::ProjectSession session;
    gui::PassesPanel panel(&session);
    panel.resize(1100, 700);
    panel.show();
    show(session, panel, m_graph);
    QVERIFY(panel.stageCount() >= 2);
    auto* from = panel.findChild<QComboBox*>("diffFrom");
    auto* to = panel.findChild<QComboBox*>("diffTo");
    QCOMPARE(from->count(), panel.stageCount());
    QVERIFY(from->itemText(0).startsWith("input"));
    QCOMPARE(to->currentIndex(), panel.stageCount() - 1);
    // Input against the last stage: something differs.
    const QString summary = panel.findChild<QLabel*>("diffSummary")->text();
    QVERIFY2(!summary.startsWith("Identical"), qPrintable(summary));
    int listed = 0;
    QTreeWidget* diff = panel.diffTree();
    for (int i = 0; i < 3; ++i)
        listed += diff->topLevelItem(i)->childCount();
    QVERIFY(listed > 0);
    // A stage against itself is identical.
    panel.compareStages(1, 1);
    QVERIFY(panel.findChild<QLabel*>("diffSummary")->text().startsWith("Identical"));
    QCOMPARE(to->currentIndex(), 1);
    // The combo boxes drive it too.
    to->setCurrentIndex(panel.stageCount() - 1);
    from->setCurrentIndex(0);
    QCOMPARE(panel.findChild<QLabel*>("diffSummary")->text(), summary);
    panel.tabs()->setCurrentIndex(1);
    screenshot(panel, "passes_panel_diff.png");
}

void PassesPanelTest::graphWithoutReports()
{
    gui::ProjectSession session;
    gui::PassesPanel panel(&session);
    show(session, panel, m_stage);
    QCOMPARE(panel.passTable()->rowCount(), 0);
    QVERIFY(panel.findChild<QLabel*>("passesTitle")->text().contains("no pass reports"));
    show(session, panel, 987654);
    QVERIFY(panel.findChild<QLabel*>("passesTitle")->text().contains("987654"));
    QCOMPARE(panel.stageCount(), 0);
}

QTEST_MAIN(PassesPanelTest)
#include "passes_panel_test.moc"
