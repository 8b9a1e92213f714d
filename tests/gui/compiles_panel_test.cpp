// The Compiles tab on a project with a real TORCH_TRACE (tests/data/real/trace/two_functions.log):
// its compiles listed with their times, cache and recompile reason, the details, the filter, and a
// double-click asking for the compile's AOT graph.
#include "gui/app/compiles_panel.h"
#include "gui/app/main_window.h"
#include "gui/app/project_model.h"
#include "storage/graph_store.h"
#include "storage/importer.h"
#include "storage/project_db.h"
#include "tests/gui/session_util.h"

#include <QDockWidget>
#include <QLabel>
#include <QLineEdit>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <QTreeView>
#include <QtTest>

class CompilesPanelTest : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void listsCompiles();
    void detailsAndFilter();
    void doubleClickOpensGraph();
    void projectWithoutTrace();
    void inTheWindow();

private:
    void load(gui::ProjectSession& session, gui::CompilesPanel& panel, const QString& project);

    QTemporaryDir m_dir;
    QString m_project;
};

void CompilesPanelTest::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(m_dir.isValid());
    m_project = m_dir.filePath("trace.aclgi");
    storage::ImportOptions options;
    options.runPasses = false;
    auto results = storage::importPaths(
        m_project.toStdString(), { ACLGI_SOURCE_DIR "/tests/data/real/trace/two_functions.log" }, options);
    QVERIFY(results.ok());
    QCOMPARE(results->size(), size_t(1));
    QCOMPARE(results->front().status, storage::SourceResult::Status::Imported);
}

void CompilesPanelTest::load(gui::ProjectSession& session, gui::CompilesPanel& panel, const QString& project)
{
    QSignalSpy shown(&panel, &gui::CompilesPanel::shown);
    session.open(project);
    QVERIFY(shown.wait(20000));
}

void CompilesPanelTest::listsCompiles()
{
    gui::ProjectSession session;
    gui::CompilesPanel panel(&session);
    panel.resize(1200, 400);
    panel.show();
    load(session, panel, m_project);
    QVERIFY2(panel.error().isEmpty(), qPrintable(panel.error()));
    QCOMPARE(panel.compileCount(), 2);
    QTableWidget* t = panel.table();
    QCOMPARE(t->rowCount(), 2);
    auto column = [t](const QString& title) {
        for (int c = 0; c < t->columnCount(); ++c)
            if (t->horizontalHeaderItem(c)->text() == title)
                return c;
        return -1;
    };
    QCOMPARE(t->item(0, column("Compile"))->text(), QString("0/0"));
    QCOMPARE(t->item(1, column("Compile"))->text(), QString("0/1"));
    QCOMPARE(t->item(0, column("Phase"))->text(), QString("inference"));
    QVERIFY(t->isColumnHidden(column("Phase"))); // every compile's: said in the title
    QVERIFY(panel.findChild<QLabel*>()->text().startsWith("2 compiles (inference)"));
    QCOMPARE(t->item(0, column("Start"))->text(), QString("+0.000 s"));
    QVERIFY(t->item(1, column("Start"))->text().startsWith("+"));
    QCOMPARE(t->item(0, column("Time"))->text(), QString("8.297 s"));
    QCOMPARE(t->item(1, column("Time"))->text(), QString("0.487 s"));
    QCOMPARE(t->item(0, column("Cache"))->text(), QString("FX miss, AOT miss"));
    QCOMPARE(t->item(1, column("Cache"))->text(), QString("FX hit, AOT hit"));
    QCOMPARE(t->item(0, column("Recompile reason"))->text(), QString("-"));
    QCOMPARE(t->item(1, column("Recompile reason"))->text(),
        QString("0/0: tensor 'pos' size mismatch at index 0. expected 16, actual 1"));
    QVERIFY(t->item(0, column("Graphs"))->text().toInt() >= 3);
    // One log, no ranks: neither column is shown.
    QVERIFY(t->isColumnHidden(column("Log")));
    QVERIFY(t->isColumnHidden(column("Rank")));
    // The latest compile is selected first.
    QCOMPARE(t->currentRow(), 1);
}

void CompilesPanelTest::detailsAndFilter()
{
    gui::ProjectSession session;
    gui::CompilesPanel panel(&session);
    load(session, panel, m_project);
    panel.selectRow(1);
    const QString details = panel.details()->toPlainText();
    QVERIFY2(details.contains("Compile 0/1"), qPrintable(details.left(400)));
    QVERIFY(details.contains("0/0: tensor 'pos' size mismatch at index 0. expected 16, actual 1"));
    QVERIFY(details.contains("Sources (27)"));
    QVERIFY(details.contains("L['tokens']"));
    QVERIFY(details.contains("entire_frame_compile_time_s"));
    QVERIFY(details.contains("Guards"));
    panel.selectRow(0);
    QVERIFY(panel.details()->toPlainText().contains("Compile 0/0"));

    // The filter: a recompile reason, a guard of both, nothing.
    panel.setFilter("SIZE MISMATCH");
    QVERIFY(panel.table()->isRowHidden(0));
    QVERIFY(!panel.table()->isRowHidden(1));
    QCOMPARE(panel.table()->currentRow(), 1);
    panel.setFilter("L['tokens']");
    QVERIFY(!panel.table()->isRowHidden(0));
    QVERIFY(!panel.table()->isRowHidden(1));
    panel.setFilter("no compile says this");
    QVERIFY(panel.table()->isRowHidden(0) && panel.table()->isRowHidden(1));
    panel.filter()->clear();
    QVERIFY(!panel.table()->isRowHidden(0) && !panel.table()->isRowHidden(1));
}

void CompilesPanelTest::doubleClickOpensGraph()
{
    gui::ProjectSession session;
    gui::CompilesPanel panel(&session);
    load(session, panel, m_project);
    auto db = storage::openProject(m_project.toStdString());
    QVERIFY(db.ok());
    auto graphs = storage::listGraphs(*db);
    QVERIFY(graphs.ok());
    for (int row = 0; row < 2; ++row) {
        const qlonglong id = panel.graphOf(row);
        QVERIFY(id > 0);
        bool found = false;
        for (const auto& g : *graphs)
            if (g.id == id) {
                found = true;
                QCOMPARE(QString::fromStdString(g.group), QString::fromStdString(panel.compile(row)->group));
                QCOMPARE(QString::fromStdString(g.pass), QString("aot_inference_graph"));
            }
        QVERIFY(found);
        QSignalSpy activated(&panel, &gui::CompilesPanel::graphActivated);
        panel.activateRow(row);
        QCOMPARE(activated.size(), 1);
        QCOMPARE(activated.front().at(0).toString(), QString("stage"));
        QCOMPARE(activated.front().at(1).toLongLong(), id);
        // And back: a graph of the compile selects it.
        panel.selectRow(1 - row);
        QVERIFY(panel.selectCompileOfGraph(id));
        QCOMPARE(panel.table()->currentRow(), row);
    }
}

void CompilesPanelTest::projectWithoutTrace()
{
    const QString empty = m_dir.filePath("empty.aclgi");
    QVERIFY(storage::openProject(empty.toStdString()).ok());
    gui::ProjectSession session;
    gui::CompilesPanel panel(&session);
    load(session, panel, empty);
    QVERIFY(panel.error().isEmpty());
    QCOMPARE(panel.compileCount(), 0);
    QCOMPARE(panel.table()->rowCount(), 0);
    QCOMPARE(panel.graphOf(0), 0);
}

// The window on a trace project (no run): the Compiles view comes to the front, the latest compile's
// AOT graph is opened, and a double-click on another compile selects its graph in the Project view.
void CompilesPanelTest::inTheWindow()
{
    QSettings().clear();
    gui::MainWindow window({ m_project });
    gui::CompilesPanel* panel = window.compilesPanel();
    QSignalSpy shown(panel, &gui::CompilesPanel::shown);
    window.show();
    QVERIFY(shown.wait(20000));
    QCOMPARE(panel->compileCount(), 2);
    QTRY_VERIFY(window.projectTree()->currentIndex().isValid());
    const QModelIndex current = window.projectTree()->currentIndex();
    QCOMPARE(current.data(gui::ProjectModel::KindRole).toString(), QString("stage"));
    QCOMPARE(current.data(gui::ProjectModel::IdRole).toLongLong(), panel->graphOf(1));
    QCOMPARE(panel->table()->currentRow(), 1);
    QVERIFY(window.findChild<QDockWidget*>("compilesDock") == window.dock("Compiles"));
    emit panel->table()->cellDoubleClicked(0, 0);
    QCOMPARE(window.projectTree()->currentIndex().data(gui::ProjectModel::IdRole).toLongLong(), panel->graphOf(0));
    QCOMPARE(panel->table()->currentRow(), 0);
}

QTEST_MAIN(CompilesPanelTest)
#include "compiles_panel_test.moc"
