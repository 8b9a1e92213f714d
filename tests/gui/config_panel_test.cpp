// The Config tab on sample 07 (held outputs overwritten), imported with its run: both spellings of
// every option, editors by type, bold for non-default values; toggling enable_output_clone
// re-simulates after the settle delay and announces a new run (then the same edit is reused); a
// custom pool handle TorchAir refuses shows TorchAir's message inline and stores nothing; Reset.
#include "engine/config/cuda_options.h"
#include "engine/config/options.h"
#include "engine/config/setting_text.h"
#include "gui/app/config_panel.h"
#include "storage/importer.h"
#include "storage/project_db.h"
#include "storage/resimulate.h"
#include "storage/run_store.h"
#include "tests/gui/sample_project.h"
#include "tests/gui/screenshot.h"
#include "tests/gui/session_util.h"

#include <QAbstractItemModelTester>
#include <QCheckBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QThreadPool>
#include <QtTest>

class ConfigPanelTest : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void cleanupTestCase();
    void formShowsBothSpellings();
    void toggleResimulates();
    void invalidValueShowsTorchairsMessage();
    void simulateButtonAndReset();
    void recordingShowsItsAllocatorSettings();
    void cudaRunShowsPyTorchOptionsAndResimulates();

private:
    void show(gui::ProjectSession& session, gui::ConfigPanel& panel, qlonglong runId);
    int runCount();
    using Column = gui::ConfigPanel::Column;
    static int rowOf(const char* name) { return engine::config::optionIndex(name); }

    QTemporaryDir m_dir;
    QString m_project;
    qlonglong m_base = 0;
};

/// Loads still reading the project would recreate its -wal and -shm files in the removed folder.
void ConfigPanelTest::cleanupTestCase()
{
    QThreadPool::globalInstance()->waitForDone();
}

void ConfigPanelTest::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(m_dir.isValid());
    importSampleWithRun(m_dir, "07_held_outputs_overwritten.json", m_project);
    if (QTest::currentTestFailed())
        return;
    auto db = storage::openProject(m_project.toStdString());
    QVERIFY(db.ok());
    auto runs = storage::listRuns(*db);
    QVERIFY(runs.ok() && runs->size() == 1);
    m_base = runs->front().id;
}

void ConfigPanelTest::show(gui::ProjectSession& session, gui::ConfigPanel& panel, qlonglong runId)
{
    QSignalSpy shown(&panel, &gui::ConfigPanel::shown);
    guitest::select(session, m_project, "run", runId);
    QVERIFY(shown.wait(20000));
}

int ConfigPanelTest::runCount()
{
    auto db = storage::openProject(m_project.toStdString());
    auto runs = db ? storage::listRuns(*db) : storage::Result<std::vector<storage::RunRow>>(db.error());
    return runs ? int(runs->size()) : -1;
}

void ConfigPanelTest::formShowsBothSpellings()
{
    gui::ProjectSession session;
    gui::ConfigPanel panel(&session);
    show(session, panel, m_base);
    QVERIFY(panel.findChild<QLabel*>("configTitle")->text().startsWith(QString("run %1 · ").arg(m_base)));

    QTableWidget* table = panel.table();
    QAbstractItemModelTester tester(table->model(), QAbstractItemModelTester::FailureReportingMode::Fatal);
    QCOMPARE(table->rowCount(), int(engine::config::optionTable().size()));
    const int clone = rowOf("clone_input");
    QCOMPARE(table->item(clone, Column::TorchairColumn)->text(), QString("debug.aclgraph.clone_input"));
    QCOMPARE(table->item(clone, Column::NpugraphExColumn)->text(), QString("clone_input"));
    QCOMPARE(table->item(clone, Column::DefaultColumn)->text(), QString("True"));
    QCOMPARE(table->cellWidget(clone, Column::ValueColumn)->objectName(), QString("edit:debug.aclgraph.clone_input"));
    auto* cloneBox = panel.findChild<QCheckBox*>("edit:debug.aclgraph.clone_input");
    QVERIFY(cloneBox);
    QVERIFY(cloneBox->isChecked());
    QVERIFY(!cloneBox->font().bold()); // True is clone_input's default
    QVERIFY(cloneBox->toolTip().contains(QString::fromStdString(engine::config::optionTable()[size_t(clone)].effect)));

    // The sample sets frozen_parameter: non-default, bold.
    auto* frozen = panel.findChild<QCheckBox*>("edit:experimental_config.frozen_parameter");
    QVERIFY(frozen && frozen->isChecked() && frozen->font().bold());
    QVERIFY(table->item(rowOf("frozen_parameter"), Column::TorchairColumn)->font().bold());
    QVERIFY(!table->item(clone, Column::TorchairColumn)->font().bold());

    // An option torchair lacks: "—" and no editor.
    QCOMPARE(table->item(rowOf("force_recapture"), Column::TorchairColumn)->text(), QString("—"));
    QCOMPARE(table->item(rowOf("force_recapture"), Column::NpugraphExColumn)->text(), QString("force_recapture"));
    QCOMPARE(table->item(rowOf("force_recapture"), Column::ValueColumn)->text(), QString("—"));
    QVERIFY(!panel.findChild<QWidget*>("edit:force_recapture"));
    // Editors by type: an int spin box, a choice combo, a line edit for the pool handle.
    auto* limit = panel.findChild<QSpinBox*>("edit:debug.aclgraph.static_capture_size_limit");
    QVERIFY(limit);
    QCOMPARE(limit->value(), 64);
    QVERIFY(panel.findChild<QLineEdit*>("edit:aclgraph_config.use_custom_pool"));
    QVERIFY(panel.editedOverrides().isEmpty());
    QVERIFY(!panel.busy());
    panel.resize(1000, 700);
    screenshot(panel, "config_panel.png");
}

void ConfigPanelTest::toggleResimulates()
{
    gui::ProjectSession session;
    gui::ConfigPanel panel(&session);
    show(session, panel, m_base);
    QSignalSpy stored(&panel, &gui::ConfigPanel::runStored);
    auto* clone = panel.findChild<QCheckBox*>("edit:debug.aclgraph.enable_output_clone");
    QVERIFY(clone && !clone->isChecked());
    clone->setChecked(true);
    QCOMPARE(panel.editedOverrides(), QStringList { "debug.aclgraph.enable_output_clone=True" });
    QCOMPARE(panel.table()->item(rowOf("clone_output"), Column::MarkColumn)->text(), QString("● edited"));
    QVERIFY(clone->font().bold());
    QVERIFY(!panel.busy()); // waits for the edits to settle
    QVERIFY(stored.wait(30000));
    const QList<QVariant> args = stored.takeFirst();
    const qlonglong newRun = args.at(0).toLongLong();
    QVERIFY(newRun != m_base);
    QCOMPARE(args.at(1).toLongLong(), m_base);
    QCOMPARE(args.at(2).toBool(), false);

    // The form moves to the new run, where the option is no longer an edit.
    QTRY_COMPARE_WITH_TIMEOUT(panel.runId(), newRun, 20000);
    QTRY_VERIFY_WITH_TIMEOUT(panel.findChild<QCheckBox*>("edit:debug.aclgraph.enable_output_clone") != clone, 20000);
    auto* after = panel.findChild<QCheckBox*>("edit:debug.aclgraph.enable_output_clone");
    QVERIFY(after && after->isChecked() && after->font().bold());
    QVERIFY(panel.editedOverrides().isEmpty());
    QVERIFY(panel.table()->item(rowOf("clone_output"), Column::MarkColumn)->text().isEmpty());

    auto db = storage::openProject(m_project.toStdString());
    QVERIFY(db.ok());
    auto overrides = storage::readRunOverrides(*db, newRun);
    QVERIFY(overrides.ok());
    QCOMPARE(overrides->size(), size_t(1));
    QCOMPARE(QString::fromStdString(overrides->front()), QString("debug.aclgraph.enable_output_clone=True"));
    auto run = storage::readRun(*db, newRun);
    QVERIFY(run.ok());
    QCOMPARE(run->sim.hazards.size(), size_t(0));

    // The same edit on the base run again: that run, reused.
    show(session, panel, m_base);
    panel.findChild<QCheckBox*>("edit:debug.aclgraph.enable_output_clone")->setChecked(true);
    QVERIFY(stored.wait(30000));
    QCOMPARE(stored.at(0).at(0).toLongLong(), newRun);
    QCOMPARE(stored.at(0).at(2).toBool(), true);
}

void ConfigPanelTest::invalidValueShowsTorchairsMessage()
{
    gui::ProjectSession session;
    gui::ConfigPanel panel(&session);
    show(session, panel, m_base);
    const int before = runCount();
    QSignalSpy failed(&panel, &gui::ConfigPanel::failed);
    QSignalSpy stored(&panel, &gui::ConfigPanel::runStored);
    auto* pool = panel.findChild<QLineEdit*>("edit:aclgraph_config.use_custom_pool");
    QVERIFY(pool);
    pool->setText("(1, 2)");
    QCOMPARE(panel.editedOverrides(), QStringList { "aclgraph_config.use_custom_pool=(1, 2)" });
    QVERIFY(failed.wait(30000));
    const QString expected = "Invalid graph pool handle type, got value=(1, 2), type=tuple";
    QVERIFY2(failed.at(0).at(0).toString().contains(expected), qPrintable(failed.at(0).at(0).toString()));
    auto* message = panel.findChild<QLabel*>("configMessage");
    QVERIFY(message->isVisibleTo(&panel));
    QVERIFY(message->text().contains(expected));
    QVERIFY(message->text().contains("aclgraph_config.use_custom_pool"));
    QCOMPARE(stored.count(), 0);
    QCOMPARE(runCount(), before);
    QVERIFY(!panel.busy());
    // The edit stays, marked, for the user to fix.
    QCOMPARE(panel.editedOverrides().size(), 1);
}

void ConfigPanelTest::simulateButtonAndReset()
{
    gui::ProjectSession session;
    gui::ConfigPanel panel(&session);
    show(session, panel, m_base);
    auto* limit = panel.findChild<QSpinBox*>("edit:debug.aclgraph.static_capture_size_limit");
    limit->setValue(8);
    QCOMPARE(panel.editedOverrides(), QStringList { "debug.aclgraph.static_capture_size_limit=8" });
    panel.reset();
    QVERIFY(panel.editedOverrides().isEmpty());
    QCOMPARE(panel.findChild<QSpinBox*>("edit:debug.aclgraph.static_capture_size_limit")->value(), 64);
    QVERIFY(!panel.findChild<QPushButton*>("configSimulate")->isEnabled());

    // Setting a value back to the run's own is no edit.
    auto* clone = panel.findChild<QCheckBox*>("edit:debug.aclgraph.clone_input");
    clone->setChecked(false);
    clone->setChecked(true);
    QVERIFY(panel.editedOverrides().isEmpty());

    // Simulate starts at once, without the settle delay.
    QSignalSpy stored(&panel, &gui::ConfigPanel::runStored);
    panel.findChild<QSpinBox*>("edit:debug.aclgraph.static_capture_size_limit")->setValue(1);
    auto* simulate = panel.findChild<QPushButton*>("configSimulate");
    QVERIFY(simulate->isEnabled());
    simulate->click();
    QVERIFY(panel.busy());
    QVERIFY(stored.wait(30000));
    QCOMPARE(stored.at(0).at(2).toBool(), false);
    auto db = storage::openProject(m_project.toStdString());
    auto run = storage::readRun(*db, stored.at(0).at(0).toLongLong());
    QVERIFY(run.ok());
    QVERIFY(run->configJson.find("\"debug.aclgraph.static_capture_size_limit\":1") != std::string::npos);
}

// A memory snapshot PyTorch 2.11 wrote, imported as a run: no TorchAir option form, the file named,
// its allocator settings read-only.
void ConfigPanelTest::recordingShowsItsAllocatorSettings()
{
    const std::string snapshot = ACLGI_SOURCE_DIR "/tests/data/real/snapshots/a_default.pickle";
    const QString project = m_dir.filePath("recorded.aclgi");
    auto imported = storage::importPaths(project.toStdString(), { snapshot }, {});
    QVERIFY2(imported.ok(), imported.ok() ? "" : imported.error().toString().c_str());
    QCOMPARE((*imported)[0].runs, 1);
    auto db = storage::openProject(project.toStdString());
    QVERIFY(db.ok());
    auto runs = storage::listRuns(*db);
    QVERIFY(runs.ok() && runs->size() == 1);
    const storage::RunRow& row = runs->front();
    QVERIFY(row.origin.kind == engine::runtime::RunOriginKind::Recorded);
    QVERIFY(!row.origin.allocatorSettings.empty());

    gui::ProjectSession session;

    gui::ConfigPanel panel(&session);
    QSignalSpy shown(&panel, &gui::ConfigPanel::shown);
    guitest::select(session, project, "run", row.id);
    QVERIFY(shown.wait(20000));
    const QString title = panel.findChild<QLabel*>("configTitle")->text();
    QVERIFY2(title.contains("This run was recorded from ") && title.contains("a_default.pickle")
            && title.contains("a recording has no TorchAir options"),
        qPrintable(title));
    QVERIFY(panel.table()->isHidden());
    QCOMPARE(panel.table()->rowCount(), 0);
    QVERIFY(panel.findChild<QPushButton*>("configSimulate")->isHidden());
    QTableWidget* settings = panel.allocatorSettings();
    QAbstractItemModelTester tester(settings->model(), QAbstractItemModelTester::FailureReportingMode::Fatal);
    QVERIFY(!settings->isHidden());
    QCOMPARE(settings->rowCount(), int(row.origin.allocatorSettings.size()));
    for (int r = 0; r < settings->rowCount(); ++r) {
        QCOMPARE(settings->item(r, 0)->text(), QString::fromStdString(row.origin.allocatorSettings[size_t(r)].first));
        QCOMPARE(settings->item(r, 1)->text(), QString::fromStdString(row.origin.allocatorSettings[size_t(r)].second));
        QVERIFY(!(settings->item(r, 1)->flags() & Qt::ItemIsEditable));
    }
    QVERIFY(panel.editedOverrides().isEmpty());

    // Back to a simulation: the form again.
    show(session, panel, m_base);
    QVERIFY(!panel.table()->isHidden());
    QVERIFY(settings->isHidden());
    QCOMPARE(panel.table()->rowCount(), int(engine::config::optionTable().size()));
}

void ConfigPanelTest::cudaRunShowsPyTorchOptionsAndResimulates()
{
    // A CUDA Graph Trees run (sample 13, warn limit 3): PyTorch's options, one spelling each.
    QTemporaryDir dir;
    QString project;
    importSampleWithRun(dir, "13_cuda_dynamic_sizes.json", project);
    if (QTest::currentTestFailed())
        return;
    auto db = storage::openProject(project.toStdString());
    QVERIFY(db.ok());
    auto runs = storage::listRuns(*db);
    QVERIFY(runs.ok() && runs->size() == 1);
    const qlonglong base = runs->front().id;
    gui::ProjectSession session;
    gui::ConfigPanel panel(&session);
    QSignalSpy shown(&panel, &gui::ConfigPanel::shown);
    guitest::select(session, project, "run", base);
    QVERIFY(shown.wait(20000));
    QVERIFY(panel.findChild<QLabel*>("configTitle")->text().contains("cuda_graph_trees"));
    QTableWidget* table = panel.table();
    QCOMPARE(table->rowCount(), int(engine::config::cudaOptionTable().size()));
    QCOMPARE(table->horizontalHeaderItem(Column::TorchairColumn)->text(), QString("PyTorch option"));
    QVERIFY(table->isColumnHidden(Column::NpugraphExColumn));
    const std::string limitName = "torch._inductor.config.triton.cudagraph_dynamic_shape_warn_limit";
    auto* limit = panel.findChild<QLineEdit*>(QString::fromStdString("edit:" + limitName));
    QVERIFY(limit);
    QCOMPARE(limit->text(), QString("3"));
    QVERIFY(limit->font().bold()); // away from PyTorch's default 8
    QVERIFY(panel.findChild<QCheckBox*>("edit:torch._inductor.config.graph_partition"));
    QVERIFY(panel.findChild<QSpinBox*>("edit:torch._dynamo.config.recompile_limit"));

    // None silences the distinct-size warning: re-simulated with PyTorch's option name.
    QSignalSpy stored(&panel, &gui::ConfigPanel::runStored);
    limit->setText("None");
    QCOMPARE(panel.editedOverrides(), QStringList { QString::fromStdString(limitName + "=None") });
    QVERIFY(stored.wait(30000));
    const qlonglong newRun = stored.takeFirst().at(0).toLongLong();
    QVERIFY(newRun != base);
    auto after = storage::readRun(*db, newRun);
    QVERIFY(after.ok());
    QVERIFY(after->sim.cuda.has_value());
    for (const std::string& w : after->sim.warnings)
        QVERIFY2(w.find("distinct sizes") == std::string::npos, w.c_str());
    auto before = storage::readRun(*db, base);
    QVERIFY(before.ok());
    bool warned = false;
    for (const std::string& w : before->sim.warnings)
        warned |= w.find("We have observed 4 distinct sizes") != std::string::npos;
    QVERIFY(warned);
}

QTEST_MAIN(ConfigPanelTest)
#include "config_panel_test.moc"
