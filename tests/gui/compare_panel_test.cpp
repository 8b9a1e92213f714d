// The Compare tab: sample 07 imported with its run and re-simulated with output cloning on. The
// ComparisonModel under QAbstractItemModelTester (rows, roles, the only-differences filter), the
// panel's run list and labels, a comparison showing the output_overwritten hazards that cloning
// removes, a recorded memory snapshot beside the simulated run (pools paired by order of creation),
// and a run that does not exist.
#include "engine/report/run_compare.h"
#include "engine/report/run_config.h"
#include "gui/app/compare_panel.h"
#include "storage/project_db.h"
#include "storage/resimulate.h"
#include "storage/run_store.h"
#include "tests/gui/sample_project.h"
#include "tests/gui/screenshot.h"
#include "tests/gui/session_util.h"

#include <QAbstractItemModelTester>
#include <QCheckBox>
#include <QComboBox>
#include <QFont>
#include <QLabel>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QThreadPool>
#include <QtTest>

class ComparePanelTest : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void cleanupTestCase();
    void model();
    void panelComparesTwoRuns();
    void recordingBesideSimulation();
    void missingRun();

private:
    /// The row of `model` with this section and metric, or -1.
    static int rowOf(const QAbstractItemModel& model, const QString& section, const QString& metric);

    QTemporaryDir m_dir;
    QString m_project;
    qlonglong m_base = 0, m_cloned = 0;
};

/// Loads still reading the project would recreate its -wal and -shm files in the removed folder.
void ComparePanelTest::cleanupTestCase()
{
    QThreadPool::globalInstance()->waitForDone();
}

void ComparePanelTest::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(m_dir.isValid());
    importSampleWithRun(m_dir, "07_held_outputs_overwritten.json", m_project);
    if (QTest::currentTestFailed())
        return;
    m_base = 1;
    storage::ResimulateRequest request;
    request.dbPath = m_project.toStdString();
    request.baseRunId = m_base;
    request.overrides = { "debug.aclgraph.enable_output_clone=True" };
    auto cloned = storage::resimulate(request);
    QVERIFY2(cloned.ok(), cloned.ok() ? "" : cloned.error().toString().c_str());
    m_cloned = cloned->runId;
    QCOMPARE(m_cloned, qlonglong(2));
}

int ComparePanelTest::rowOf(const QAbstractItemModel& model, const QString& section, const QString& metric)
{
    for (int r = 0; r < model.rowCount(); ++r)
        if (model.index(r, gui::ComparisonModel::SectionColumn).data().toString() == section
            && model.index(r, gui::ComparisonModel::MetricColumn).data().toString() == metric)
            return r;
    return -1;
}

void ComparePanelTest::model()
{
    gui::ComparisonModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    QCOMPARE(model.rowCount(), 0);
    QCOMPARE(model.columnCount(), 4);

    auto db = storage::openProject(m_project.toStdString());
    QVERIFY(db.ok());
    auto a = storage::readRun(*db, m_base);
    auto b = storage::readRun(*db, m_cloned);
    QVERIFY(a.ok() && b.ok());
    auto comparison = std::make_shared<const engine::report::RunComparison>(engine::report::compareRuns(a->sim, b->sim,
        "base", "cloned", engine::report::runConfigPairs(a->sim.options.backend, a->configJson),
        engine::report::runConfigPairs(b->sim.options.backend, b->configJson)));
    QVERIFY(comparison->differing > 0);
    model.setComparison(comparison);
    QCOMPARE(model.rowCount(), int(comparison->rows.size()));
    QCOMPARE(model.headerData(gui::ComparisonModel::AColumn, Qt::Horizontal).toString(), QString("A"));
    QCOMPARE(
        model.headerData(gui::ComparisonModel::BColumn, Qt::Horizontal, Qt::ToolTipRole).toString(), QString("cloned"));

    const int hazard = rowOf(model, "hazards", "output_overwritten");
    QVERIFY(hazard >= 0);
    QCOMPARE(model.index(hazard, gui::ComparisonModel::AColumn).data().toString(), QString("5"));
    QCOMPARE(model.index(hazard, gui::ComparisonModel::BColumn).data().toString(), QString("0"));
    QVERIFY(model.index(hazard, 0).data(gui::ComparisonModel::DiffersRole).toBool());
    QVERIFY(model.index(hazard, 1).data(Qt::FontRole).value<QFont>().bold());
    QVERIFY(model.index(hazard, 1).data(Qt::BackgroundRole).isValid());
    const int calls = rowOf(model, "totals", "calls");
    QVERIFY(calls >= 0);
    QVERIFY(!model.index(calls, 0).data(gui::ComparisonModel::DiffersRole).toBool());
    QVERIFY(!model.index(calls, 0).data(Qt::BackgroundRole).isValid());

    model.setOnlyDifferences(true);
    QCOMPARE(model.rowCount(), comparison->differing);
    QVERIFY(rowOf(model, "totals", "calls") < 0);
    QVERIFY(rowOf(model, "hazards", "output_overwritten") >= 0);
    model.setOnlyDifferences(false);
    QCOMPARE(model.rowCount(), int(comparison->rows.size()));
    model.setComparison(nullptr);
    QCOMPARE(model.rowCount(), 0);
}

void ComparePanelTest::panelComparesTwoRuns()
{
    gui::ProjectSession session;
    gui::ComparePanel panel(&session);
    QAbstractItemModelTester tester(panel.model(), QAbstractItemModelTester::FailureReportingMode::Fatal);
    QSignalSpy listed(&panel, &gui::ComparePanel::runsListed);
    QSignalSpy compared(&panel, &gui::ComparePanel::compared);
    session.open(m_project);
    QVERIFY(listed.wait(20000));
    // Each box: "pick a run", then the project's runs.
    QCOMPARE(panel.runA()->count(), 3);
    QCOMPARE(panel.runA()->itemData(0).toLongLong(), -1);
    QVERIFY2(
        panel.runA()->itemText(1).startsWith("run 1 · ") && panel.runA()->itemText(1).endsWith(" · scenario config"),
        qPrintable(panel.runA()->itemText(1)));
    QVERIFY2(panel.runB()->itemText(2).endsWith(" · debug.aclgraph.enable_output_clone=True"),
        qPrintable(panel.runB()->itemText(2)));
    // Nothing is picked for the user when a project opens: nothing compared.
    QCOMPARE(panel.runA()->currentData().toLongLong(), -1);
    QCOMPARE(panel.runB()->currentData().toLongLong(), -1);
    QVERIFY(!compared.wait(300));
    QVERIFY(panel.findChild<QLabel*>("compareSummary")->text().startsWith("Pick two runs"));

    // A run selected is compared with its scenario's base run (the same file, no settings of its own).
    guitest::select(session, m_project, "run", m_cloned);
    QVERIFY(compared.wait(20000));
    QCOMPARE(panel.runA()->currentData().toLongLong(), m_base);
    QCOMPARE(panel.runB()->currentData().toLongLong(), m_cloned);

    compared.clear();
    panel.compare(m_cloned, m_base);
    QVERIFY(compared.wait(20000));
    QCOMPARE(panel.runA()->currentData().toLongLong(), m_cloned);
    auto* view = panel.findChild<QTableView*>("compareTable");
    QVERIFY(view);
    QAbstractItemModel* shown = view->model();
    const int hazard = rowOf(*shown, "hazards", "output_overwritten");
    QVERIFY(hazard >= 0);
    QCOMPARE(shown->index(hazard, gui::ComparisonModel::AColumn).data().toString(), QString("0"));
    QCOMPARE(shown->index(hazard, gui::ComparisonModel::BColumn).data().toString(), QString("5"));
    const int clone = rowOf(*shown, "config", "debug.aclgraph.enable_output_clone");
    QVERIFY(clone >= 0);
    QCOMPARE(shown->index(clone, gui::ComparisonModel::AColumn).data().toString(), QString("True"));
    QCOMPARE(shown->index(clone, gui::ComparisonModel::BColumn).data().toString(), QString("False"));

    panel.resize(1000, 700);
    screenshot(panel, "compare_panel.png");
    panel.findChild<QCheckBox*>("compareOnlyDifferences")->setChecked(true);
    QCOMPARE(shown->rowCount(), panel.model()->comparison()->differing);
    for (int r = 0; r < shown->rowCount(); ++r)
        QVERIFY(shown->index(r, 0).data(gui::ComparisonModel::DiffersRole).toBool());

    // Picking runs in the combo boxes compares them.
    compared.clear();
    panel.runA()->setCurrentIndex(panel.runA()->findData(m_base));
    QVERIFY(compared.wait(20000));
    QCOMPARE(QString::fromStdString(panel.model()->comparison()->labelA),
        panel.runA()->itemText(panel.runA()->findData(m_base)));
}

void ComparePanelTest::recordingBesideSimulation()
{
    QTemporaryDir dir;
    QString project;
    importSampleWithRun(dir, "07_held_outputs_overwritten.json", project);
    if (QTest::currentTestFailed())
        return;
    auto imported = storage::importPaths(
        project.toStdString(), { ACLGI_SOURCE_DIR "/tests/data/snapshots/graph_pools.pickle" }, {});
    QVERIFY2(imported.ok(), imported.ok() ? "" : imported.error().toString().c_str());
    QCOMPARE((*imported)[0].runs, 1);

    gui::ProjectSession session;
    gui::ComparePanel panel(&session);
    QSignalSpy compared(&panel, &gui::ComparePanel::compared);
    QSignalSpy listed(&panel, &gui::ComparePanel::runsListed);
    // The recording picked alone: no other run comes from its file, so A is not guessed.
    guitest::select(session, project, "run", 2);
    QVERIFY(listed.wait(20000));
    QCOMPARE(panel.runA()->currentData().toLongLong(), -1);
    QCOMPARE(panel.runB()->currentData().toLongLong(), 2);
    QVERIFY2(panel.findChild<QLabel*>("compareSummary")->text().contains("none is picked for you"),
        qPrintable(panel.findChild<QLabel*>("compareSummary")->text()));
    QCOMPARE(compared.count(), 0);
    panel.compare(1, 2); // the simulation, then the recording (stored with origin "recorded")
    QVERIFY(compared.wait(20000));
    const QAbstractItemModel& model = *panel.model();
    const int backend = rowOf(model, "config", "backend");
    QVERIFY(backend >= 0);
    QCOMPARE(model.index(backend, gui::ComparisonModel::BColumn).data().toString(), QString("—"));
    const int origin = rowOf(model, "config", "origin");
    QVERIFY(origin >= 0);
    QVERIFY(
        model.index(origin, gui::ComparisonModel::BColumn).data().toString().startsWith("recorded: memory snapshot"));
    QCOMPARE(model.index(origin, gui::ComparisonModel::AColumn).data().toString(), QString("simulated"));
    const int note
        = rowOf(model, "memory", "pools paired by order of creation (a recording cannot name TorchAir graphs)");
    QVERIFY(note >= 0);
    QCOMPARE(model.index(note, gui::ComparisonModel::AColumn).data().toString(), QString("simulated"));
    QCOMPARE(model.index(note, gui::ComparisonModel::BColumn).data().toString(), QString("recorded"));
    // graph_1's pool faces the recording's first private pool, (0, 1), named by its capture code.
    int paired = -1;
    for (int r = 0; r < model.rowCount(); ++r) {
        const QString metric = model.index(r, gui::ComparisonModel::MetricColumn).data().toString();
        if (metric.startsWith("graph_1's pool ~ pool (0, 1) [graph_pool_handle() pool of 1 torch.cuda.graph capture")
            && metric.endsWith(" peak reserved"))
            paired = r;
    }
    QVERIFY(paired >= 0);
    QCOMPARE(model.index(paired, gui::ComparisonModel::BColumn).data().toString(), QString("20.00 MiB"));
    QVERIFY(rowOf(model, "memory", "— ~ pool (0, 0) [default] peak reserved") >= 0);
}

void ComparePanelTest::missingRun()
{
    gui::ProjectSession session;
    gui::ComparePanel panel(&session);
    QSignalSpy failed(&panel, &gui::ComparePanel::failed);
    session.open(m_project);
    panel.compare(m_base, 999);
    QVERIFY(failed.wait(20000));
    QVERIFY2(failed.at(0).at(0).toString().contains("no run 999"), qPrintable(failed.at(0).at(0).toString()));
    QCOMPARE(panel.model()->rowCount(), 0);
}

QTEST_MAIN(ComparePanelTest)
#include "compare_panel_test.moc"
