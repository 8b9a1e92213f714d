// ProjectModel under QAbstractItemModelTester: an empty project, an imported one, and a reset from
// one to the other; find() and the roles the window uses.
#include "gui/app/project_model.h"
#include "storage/importer.h"
#include "storage/project_db.h"

#include <QAbstractItemModelTester>
#include <QTemporaryDir>
#include <QtTest>
#include <functional>

class ProjectModelTest : public QObject {
    Q_OBJECT
private slots:
    void emptyProject();
    void importedProject();
};

namespace {

storage::OutlineNode outlineOf(const std::string& path)
{
    auto db = storage::openProject(path);
    if (!db.ok())
        qFatal("%s", db.error().toString().c_str());
    auto outline = storage::readOutline(*db);
    if (!outline.ok())
        qFatal("%s", outline.error().toString().c_str());
    return outline.value();
}

int countRows(const QAbstractItemModel& m, const QModelIndex& parent = {})
{
    int n = m.rowCount(parent);
    for (int r = 0; r < m.rowCount(parent); ++r)
        n += countRows(m, m.index(r, 0, parent));
    return n;
}

} // namespace

void ProjectModelTest::emptyProject()
{
    gui::ProjectModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(model.rowCount(), 0);
    model.setOutline(outlineOf(":memory:"));
    QCOMPARE(model.rowCount(), 4);
    QCOMPARE(model.columnCount(), 2);
    QCOMPARE(model.index(0, 0).data().toString(), QString("Sources"));
    QCOMPARE(model.index(3, 0).data().toString(), QString("Simulation runs"));
    QCOMPARE(model.index(0, 1).data().toString(), QString("0"));
    QCOMPARE(model.index(0, 0).data(gui::ProjectModel::KindRole).toString(), QString("section"));
    QCOMPARE(model.headerData(0, Qt::Horizontal).toString(), QString("Name"));
}

void ProjectModelTest::importedProject()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string path = dir.filePath("p.aclgi").toStdString();
    const std::string data = ACLGI_SOURCE_DIR "/tests/data";
    auto results = storage::importPaths(path,
        { data + "/fx/print_readable_simple.py", data + "/debug_dir/torch_compile_debug", data + "/cache/broken" });
    QVERIFY(results.ok());
    for (const auto& r : *results)
        QVERIFY2(r.status == storage::SourceResult::Status::Imported, r.message.c_str());

    gui::ProjectModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setOutline(outlineOf(":memory:"));
    model.setOutline(outlineOf(path)); // a reset with rows on both sides
    QCOMPARE(model.rowCount(model.index(0, 0)), 3); // sources
    QVERIFY(countRows(model) > 20);

    // Every source row carries its id; find() goes back to it.
    const QModelIndex sources = model.index(0, 0);
    for (int r = 0; r < model.rowCount(sources); ++r) {
        const QModelIndex s = model.index(r, 0, sources);
        QCOMPARE(s.data(gui::ProjectModel::KindRole).toString(), QString("source"));
        QCOMPARE(s.data(gui::ProjectModel::IdRole).toLongLong(), qlonglong((*results)[size_t(r)].sourceId));
        QCOMPARE(model.find("source", s.data(gui::ProjectModel::IdRole).toLongLong()), s);
        QCOMPARE(model.parent(s), sources);
    }
    // The broken caches are marked as problems, in the error colour.
    const QModelIndex caches = model.index(2, 0);
    QVERIFY(model.rowCount(caches) == 1);
    int problems = 0;
    std::function<void(const QModelIndex&)> walk = [&](const QModelIndex& p) {
        for (int r = 0; r < model.rowCount(p); ++r) {
            const QModelIndex i = model.index(r, 0, p);
            if (i.data(gui::ProjectModel::ProblemRole).toBool()) {
                ++problems;
                QVERIFY(i.data(Qt::ForegroundRole).isValid());
            }
            walk(i);
        }
    };
    walk(caches);
    QVERIFY(problems > 0);
    QVERIFY(!model.find("run", 12345).isValid());
}

QTEST_MAIN(ProjectModelTest)
#include "project_model_test.moc"
