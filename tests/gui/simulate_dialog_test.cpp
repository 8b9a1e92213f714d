// Graph > Simulate…: the dialog for an FX graph with a symbol lists it (with what it stands for) and
// builds the request; for a memory snapshot it is disabled and says why; a SimulateJob on a real
// project stores a run whose readRun graphIds link the imported graph, and a cancelled one stores none.
#include "gui/app/simulate_dialog.h"
#include "storage/importer.h"
#include "storage/project_db.h"
#include "storage/run_store.h"
#include "tests/gui/screenshot.h"

#include <QDialogButtonBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QtTest>

namespace {

const QString kData = ACLGI_SOURCE_DIR "/tests/data/";

/// Imports `relative` (under tests/data) copied into `dir`; the source id, or 0 (the test then fails).
int64_t importCopy(const QTemporaryDir& dir, const QString& relative, QString& project)
{
    const QString copy = dir.filePath(QFileInfo(relative).fileName());
    if (!QFile::copy(kData + relative, copy))
        return 0;
    project = dir.filePath("p.aclgi");
    auto imported = storage::importPaths(project.toStdString(), { copy.toStdString() });
    if (!imported || imported->empty() || (*imported)[0].status != storage::SourceResult::Status::Imported)
        return 0;
    return (*imported)[0].sourceId;
}

storage::SimulatableSource describe(const QString& project, int64_t source)
{
    auto db = storage::openProject(project.toStdString());
    if (!db)
        return {};
    auto d = storage::describeSource(*db, source);
    return d ? *d : storage::SimulatableSource {};
}

QPushButton* simulateButton(QDialog& dialog)
{
    auto* box = dialog.findChild<QDialogButtonBox*>();
    for (QAbstractButton* b : box->buttons())
        if (box->buttonRole(b) == QDialogButtonBox::AcceptRole)
            return qobject_cast<QPushButton*>(b);
    return nullptr;
}

} // namespace

class SimulateDialogTest : public QObject {
    Q_OBJECT
private slots:
    void graphWithSymbol();
    void snapshotIsDisabled();
    void jobStoresLinkedRun();
    void jobCancels();
};

void SimulateDialogTest::graphWithSymbol()
{
    QTemporaryDir dir;
    QString project;
    const int64_t source = importCopy(dir, "fx/aot_forward_expanded.txt", project);
    QVERIFY(source > 0);
    const storage::SimulatableSource described = describe(project, source);
    QVERIFY2(described.simulatable, described.why.c_str());
    gui::SimulateDialog dialog(described, project);
    auto* s0 = dialog.findChild<QLineEdit*>("symbol_s0");
    QVERIFY(s0);
    QVERIFY2(s0->placeholderText().contains("input"), qPrintable(s0->placeholderText()));
    QVERIFY(!dialog.ready());
    QVERIFY(!simulateButton(dialog)->isEnabled());
    QVERIFY(dialog.findChild<QLabel*>("note")->text().contains("Config view"));
    dialog.show();
    screenshot(dialog, "simulate_dialog_symbols_missing.png");

    s0->setText("8");
    dialog.findChild<QSpinBox*>()->setValue(5);
    dialog.findChild<QLineEdit*>("inputKinds")->setText("#0=parameter; *=user_input");
    QVERIFY(dialog.ready());
    QVERIFY(simulateButton(dialog)->isEnabled());
    const storage::SimulateSourceRequest r = dialog.request();
    QCOMPARE(QString::fromStdString(r.dbPath), project);
    QCOMPARE(r.sourceId, source);
    QCOMPARE(r.calls, 5);
    QCOMPARE(r.symbols.size(), size_t(1));
    QCOMPARE(r.symbols.at("s0"), int64_t(8));
    QCOMPARE(r.inputKinds, (std::vector<std::string> { "#0=parameter", "*=user_input" }));
    screenshot(dialog, "simulate_dialog.png");
}

void SimulateDialogTest::snapshotIsDisabled()
{
    QTemporaryDir dir;
    QString project;
    const int64_t source = importCopy(dir, "snapshots/bare_list.pickle", project);
    QVERIFY(source > 0);
    const storage::SimulatableSource described = describe(project, source);
    QVERIFY(!described.simulatable);
    gui::SimulateDialog dialog(described, project);
    QVERIFY(!dialog.ready());
    QVERIFY(!simulateButton(dialog)->isEnabled());
    const QString problem = dialog.findChild<QLabel*>("problem")->text();
    QVERIFY2(problem.contains("memory snapshot"), qPrintable(problem));
    QVERIFY(!dialog.findChild<QSpinBox*>()->isEnabled());
    dialog.show();
    screenshot(dialog, "simulate_dialog_snapshot.png");
}

void SimulateDialogTest::jobStoresLinkedRun()
{
    QTemporaryDir dir;
    QString project;
    const int64_t source = importCopy(dir, "fx/print_readable_simple.py", project);
    QVERIFY(source > 0);
    gui::SimulateDialog dialog(describe(project, source), project);
    QVERIFY(dialog.ready());
    gui::SimulateJob job;
    QSignalSpy finished(&job, &gui::SimulateJob::finished);
    QVERIFY(job.start(dialog.request()));
    QVERIFY(job.running());
    QVERIFY(!job.start(dialog.request()));
    QVERIFY(finished.wait(30000));
    QVERIFY(!job.running());
    const qlonglong runId = finished.at(0).at(0).toLongLong();
    QVERIFY2(runId > 0, qPrintable(finished.at(0).at(2).toString()));
    QCOMPARE(finished.at(0).at(2).toString(), QString());

    auto db = storage::openProject(project.toStdString());
    QVERIFY(db.ok());
    auto run = storage::readRun(*db, runId);
    QVERIFY(run.ok());
    QCOMPARE(run->row.sourceId.value_or(0), source);
    QCOMPARE(run->graphIds.count("graph_1"), size_t(1));
    auto graph = db->prepare("SELECT id FROM graphs WHERE source_id = ? AND stage = 0 ORDER BY id LIMIT 1");
    QVERIFY(graph.ok());
    graph->bind(1, source);
    auto row = graph->step();
    QVERIFY(row.ok() && *row);
    QCOMPARE(run->graphIds.at("graph_1"), graph->columnInt(0));
}

void SimulateDialogTest::jobCancels()
{
    QTemporaryDir dir;
    QString project;
    const int64_t source = importCopy(dir, "fx/print_readable_simple.py", project);
    QVERIFY(source > 0);
    storage::SimulateSourceRequest request;
    request.dbPath = project.toStdString();
    request.sourceId = source;
    request.calls = 1000000; // long enough that the cancel lands while it simulates
    gui::SimulateJob job;
    QSignalSpy finished(&job, &gui::SimulateJob::finished);
    QVERIFY(job.start(request));
    job.cancel();
    QVERIFY(finished.wait(60000));
    QCOMPARE(finished.at(0).at(0).toLongLong(), 0);
    QCOMPARE(finished.at(0).at(2).toString(), QString("cancelled"));
    auto db = storage::openProject(project.toStdString());
    QVERIFY(db.ok());
    auto runs = storage::listRuns(*db);
    QVERIFY(runs.ok());
    QVERIFY(runs->empty());
}

QTEST_MAIN(SimulateDialogTest)
#include "simulate_dialog_test.moc"
