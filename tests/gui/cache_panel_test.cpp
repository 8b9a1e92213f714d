// The Cache tab: a good and a broken stored cache entry (checks coloured by status, header, log,
// key options, readable text), the key explanation's hit and miss, and a file that is gone.
#include "gui/app/cache_panel.h"
#include "storage/cache_store.h"
#include "storage/importer.h"
#include "storage/project_db.h"
#include "tests/gui/screenshot.h"
#include "tests/gui/session_util.h"

#include <QDir>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>
#include <filesystem>

class CachePanelTest : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void goodEntry();
    void brokenEntry();
    void keyExplanation();
    void fileGone();

private:
    qlonglong entryWhere(const std::function<bool(const storage::StoredCacheEntry&)>& pick);
    void show(gui::ProjectSession& session, gui::CachePanel& panel, qlonglong id);

    QTemporaryDir m_dir;
    QString m_project;
    std::vector<storage::StoredCacheEntry> m_entries;
};

void CachePanelTest::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(m_dir.isValid());
    // A copy of the fixtures, so that one file can be removed (fileGone).
    const std::string data = ACLGI_SOURCE_DIR "/tests/data/cache";
    // The files are chmod'ed 600 as TorchAir writes them (a checkout makes them 644: "permissions" fails).
    namespace fs = std::filesystem;
    for (const char* tree : { "torchair_cache", "broken", "npugraph_ex_cache" })
        fs::copy(data + "/" + tree, m_dir.filePath(tree).toStdString(),
            fs::copy_options::recursive | fs::copy_options::copy_symlinks);
    for (const auto& e : fs::recursive_directory_iterator(m_dir.path().toStdString()))
        if (e.is_regular_file() && !e.is_symlink())
            fs::permissions(e.path(), fs::perms::owner_read | fs::perms::owner_write, fs::perm_options::replace);
    m_project = m_dir.filePath("p.aclgi");
    auto results = storage::importPaths(m_project.toStdString(),
        { m_dir.filePath("torchair_cache").toStdString(), m_dir.filePath("broken").toStdString(),
            m_dir.filePath("npugraph_ex_cache").toStdString() });
    QVERIFY(results.ok());
    for (const auto& r : *results)
        QCOMPARE(r.status, storage::SourceResult::Status::Imported);
    auto db = storage::openProject(m_project.toStdString());
    QVERIFY(db.ok());
    auto entries = storage::listCacheEntries(*db);
    QVERIFY(entries.ok());
    m_entries = std::move(entries.value());
    QVERIFY(m_entries.size() > 5);
}

qlonglong CachePanelTest::entryWhere(const std::function<bool(const storage::StoredCacheEntry&)>& pick)
{
    for (const auto& e : m_entries)
        if (pick(e))
            return e.id;
    return 0;
}

void CachePanelTest::show(gui::ProjectSession& session, gui::CachePanel& panel, qlonglong id)
{
    QSignalSpy shown(&panel, &gui::CachePanel::shown);
    guitest::select(session, m_project, "cache_entry", id);
    QVERIFY(shown.wait(20000));
}

void CachePanelTest::goodEntry()
{
    const qlonglong id = entryWhere([](const auto& e) { return e.loads && e.backend == "torchair" && e.layoutKnown; });
    QVERIFY(id > 0);
    gui::ProjectSession session;
    gui::CachePanel panel(&session);
    panel.resize(1100, 600);
    panel.show();
    show(session, panel, id);
    QVERIFY(panel.entry());
    const QString header = panel.findChild<QLabel*>("cacheHeader")->text();
    QVERIFY(header.contains("TorchAir loads it"));
    QVERIFY(header.contains(QString::fromStdString(panel.entry()->model.md5)));
    QVERIFY(header.contains(QString::fromStdString(panel.entry()->func)));

    auto* checks = panel.findChild<QTableWidget*>("cacheChecks");
    QCOMPARE(checks->rowCount(), int(panel.entry()->checks.size()));
    QVERIFY(checks->rowCount() > 3);
    for (int row = 0; row < checks->rowCount(); ++row) {
        const QString status = checks->item(row, 1)->text();
        QVERIFY(status == "passed" || status == "warning");
        QCOMPARE(checks->item(row, 1)->background().color(),
            gui::CachePanel::statusColor(panel.entry()->checks[size_t(row)].status));
    }
    QCOMPARE(checks->item(0, 1)->background().color(),
        gui::CachePanel::statusColor(engine::cache::CacheCheck::Status::Passed));
    QVERIFY(panel.findChild<QPlainTextEdit*>("cacheLog")->toPlainText().contains("Loading cache from"));
    auto* options = panel.findChild<QTableWidget*>("cacheOptions");
    QCOMPARE(options->rowCount(), int(panel.entry()->options.size()));
    QVERIFY(options->rowCount() > 5);
    const QString readable = panel.findChild<QPlainTextEdit*>("cacheReadable")->toPlainText();
    QVERIFY(readable.startsWith(QString(100, '=')));
    QVERIFY(readable.contains("caller frame"));
    screenshot(panel, "cache_panel_good.png");
    panel.tabs()->setCurrentIndex(4);
    screenshot(panel, "cache_panel_readable.png");
}

void CachePanelTest::brokenEntry()
{
    const qlonglong id = entryWhere(
        [](const auto& e) { return !e.loads && e.relativePath.find("wrong_version") != std::string::npos; });
    QVERIFY(id > 0);
    gui::ProjectSession session;
    gui::CachePanel panel(&session);
    panel.resize(1100, 600);
    panel.show();
    show(session, panel, id);
    QVERIFY(panel.findChild<QLabel*>("cacheHeader")->text().contains("does not load it"));
    auto* checks = panel.findChild<QTableWidget*>("cacheChecks");
    int failed = -1;
    for (int row = 0; row < checks->rowCount(); ++row)
        if (checks->item(row, 1)->text() == "FAILED")
            failed = row;
    QVERIFY(failed >= 0);
    QCOMPARE(checks->item(failed, 0)->text(), QString("version"));
    QCOMPARE(checks->item(failed, 1)->background().color(),
        gui::CachePanel::statusColor(engine::cache::CacheCheck::Status::Failed));
    QVERIFY(!checks->item(failed, 3)->text().isEmpty()); // TorchAir's message
    // Every check after the failure was not reached, and is grey.
    for (int row = failed + 1; row < checks->rowCount(); ++row) {
        QCOMPARE(checks->item(row, 1)->text(), QString("not reached"));
        QCOMPARE(checks->item(row, 1)->background().color(),
            gui::CachePanel::statusColor(engine::cache::CacheCheck::Status::NotReached));
    }
    QVERIFY(gui::CachePanel::statusColor(engine::cache::CacheCheck::Status::Failed)
        != gui::CachePanel::statusColor(engine::cache::CacheCheck::Status::Passed));
    QVERIFY(panel.findChild<QPlainTextEdit*>("cacheLog")->toPlainText().contains("Clear broken cache"));
    screenshot(panel, "cache_panel_broken.png");
}

void CachePanelTest::keyExplanation()
{
    gui::ProjectSession session;
    gui::CachePanel panel(&session);
    panel.resize(1100, 600);
    panel.show();
    // npugraph_ex: the entry's options are its settings; the panel starts from them.
    const qlonglong npu = entryWhere([](const auto& e) {
        return e.backend == "npugraph_ex" && e.relativePath.find("7eae4261") != std::string::npos;
    });
    QVERIFY(npu > 0);
    show(session, panel, npu);
    QVERIFY(panel.keyVerdict().contains("hit"));
    QVERIFY(panel.findChild<QPlainTextEdit*>("keySettings")->toPlainText().contains("capture_limit=8"));
    QCOMPARE(panel.findChild<QTableWidget*>("keyDifferences")->rowCount(), 0);
    QString settings = gui::CachePanel::entrySettings(*panel.entry());
    settings.replace("capture_limit=8", "capture_limit=16");
    panel.setKeySettings(settings);
    QVERIFY(panel.keyVerdict().contains("miss"));
    QVERIFY(panel.keyVerdict().contains("capture_limit"));
    auto* differences = panel.findChild<QTableWidget*>("keyDifferences");
    QCOMPARE(differences->rowCount(), 1);
    QCOMPARE(differences->item(0, 0)->text(), QString("capture_limit"));
    QCOMPARE(differences->item(0, 1)->text(), QString("8"));
    QCOMPARE(differences->item(0, 2)->text(), QString("16"));
    panel.tabs()->setCurrentIndex(3);
    screenshot(panel, "cache_panel_key.png");

    // torchair: the defaults hit a default entry; clone_input off misses, naming it.
    const qlonglong good
        = entryWhere([](const auto& e) { return e.loads && e.backend == "torchair" && e.layoutKnown; });
    show(session, panel, good);
    QVERIFY(panel.keyVerdict().contains("hit"));
    panel.setKeySettings("clone_input=False\n");
    QVERIFY(panel.keyVerdict().contains("miss"));
    QVERIFY(panel.keyVerdict().contains("clone_input"));
    panel.setKeySettings("no_such_option=1\n");
    QVERIFY(!panel.keyVerdict().contains("hit"));
    panel.setKeySettings("just words\n");
    QVERIFY(panel.keyVerdict().contains("expected name=value"));
}

void CachePanelTest::fileGone()
{
    const auto it = std::find_if(m_entries.begin(), m_entries.end(),
        [](const auto& e) { return e.loads && e.backend == "torchair" && e.layoutKnown; });
    QVERIFY(it != m_entries.end());
    QVERIFY(QFile::remove(QString::fromStdString(it->path)));
    gui::ProjectSession session;
    gui::CachePanel panel(&session);
    show(session, panel, it->id);
    const QString readable = panel.findChild<QPlainTextEdit*>("cacheReadable")->toPlainText();
    QVERIFY(readable.contains("is gone"));
    QVERIFY(readable.contains("signature (stored)"));
    QVERIFY(readable.contains(QString::fromStdString(it->pyCode).left(40)));

    // An entry id that is not there: the header says so.
    show(session, panel, 987654);
    QVERIFY(panel.findChild<QLabel*>("cacheHeader")->text().contains("987654"));
    QVERIFY(!panel.entry());
}

QTEST_MAIN(CachePanelTest)
#include "cache_panel_test.moc"
