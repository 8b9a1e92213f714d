// The Inspector: InspectorModel under QAbstractItemModelTester while it is reset to several Details
// (hand-made nested rows, a node, an event and a block of sample 04, nothing), the panel's title,
// expansion, empty state and "Copy" (Ctrl+C and the context menu action), and a cache entry read from
// a project the fixture cache tests/data/cache/torchair_cache was imported into.
#include "engine/report/details.h"
#include "engine/scenario/load.h"
#include "gui/app/inspector_model.h"
#include "gui/app/inspector_panel.h"
#include "storage/cache_store.h"
#include "storage/importer.h"
#include "storage/project_db.h"
#include "tests/gui/screenshot.h"
#include "tests/gui/session_util.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QLabel>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QThreadPool>
#include <QTreeView>
#include <QtTest>
#include <filesystem>

using engine::report::Detail;
using engine::report::Details;

namespace {

/// Three levels, a row with no value, and a value of two lines.
Details handMade()
{
    Details d;
    d.kind = "event";
    d.title = "event 3: capture graph_1";
    d.rows = { { "call", "1", {} },
        { "TorchAir log", "2 lines",
            { { "INFO", "capture begins", { { "note", "deep", {} } } }, { "WARNING", "first\nsecond", {} } } },
        { "empty", "", {} } };
    return d;
}

/// The top-level row of `d` named `key`, or null.
const Detail* findRow(const Details& d, const std::string& key)
{
    for (const Detail& r : d.rows)
        if (r.key == key)
            return &r;
    return nullptr;
}

int countRows(const std::vector<Detail>& rows)
{
    int n = int(rows.size());
    for (const Detail& r : rows)
        n += countRows(r.children);
    return n;
}

/// Every row of the model, depth first, checking parent() and the two columns against `rows`.
void checkTree(const gui::InspectorModel& model, const QModelIndex& parent, const std::vector<Detail>& rows)
{
    QCOMPARE(model.rowCount(parent), int(rows.size()));
    QCOMPARE(model.columnCount(parent), 2);
    for (int i = 0; i < int(rows.size()); ++i) {
        const QModelIndex key = model.index(i, 0, parent);
        const QModelIndex value = model.index(i, 1, parent);
        QCOMPARE(model.parent(key), parent);
        QCOMPARE(model.parent(value), parent);
        QCOMPARE(key.data().toString(), QString::fromStdString(rows[size_t(i)].key));
        QCOMPARE(value.data().toString(), QString::fromStdString(rows[size_t(i)].value));
        const std::string& tip = rows[size_t(i)].value.empty() ? rows[size_t(i)].key : rows[size_t(i)].value;
        QCOMPARE(value.data(Qt::ToolTipRole).toString(), QString::fromStdString(tip));
        QCOMPARE(key.data(Qt::ToolTipRole).toString(), QString::fromStdString(tip));
        QCOMPARE(model.rowCount(value), 0); // only the first column has children
        checkTree(model, key, rows[size_t(i)].children);
    }
}

} // namespace

class InspectorPanelTest : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void modelOverSeveralDetails();
    void panelShowsAndCopies();
    void cacheEntry();
    void laterSelectionWins();

private:
    QTemporaryDir m_dir;
    QString m_project;
    std::vector<storage::StoredCacheEntry> m_entries;
    engine::scenario::Scenario m_scenario;
    engine::runtime::Simulation m_sim;
};

void InspectorPanelTest::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(m_dir.isValid());
    // As cache_panel_test: a copy of the fixture chmod'ed 600 as TorchAir writes it, so that the
    // "permissions" check passes and TorchAir loads the good entries.
    namespace fs = std::filesystem;
    fs::copy(ACLGI_SOURCE_DIR "/tests/data/cache/torchair_cache", m_dir.filePath("torchair_cache").toStdString(),
        fs::copy_options::recursive | fs::copy_options::copy_symlinks);
    for (const auto& e : fs::recursive_directory_iterator(m_dir.path().toStdString()))
        if (e.is_regular_file() && !e.is_symlink())
            fs::permissions(e.path(), fs::perms::owner_read | fs::perms::owner_write, fs::perm_options::replace);
    m_project = m_dir.filePath("p.aclgi");
    auto results = storage::importPaths(m_project.toStdString(), { m_dir.filePath("torchair_cache").toStdString() });
    QVERIFY(results.ok());
    QCOMPARE(results->size(), size_t(1));
    QCOMPARE(results->front().status, storage::SourceResult::Status::Imported);
    auto db = storage::openProject(m_project.toStdString());
    QVERIFY(db.ok());
    auto entries = storage::listCacheEntries(*db);
    QVERIFY(entries.ok());
    m_entries = std::move(entries.value());
    QVERIFY(!m_entries.empty());

    auto scenario = engine::scenario::loadScenarioOrGraph(ACLGI_SOURCE_DIR "/resources/samples/04_kv_cache_moves.json");
    QVERIFY(scenario.ok());
    m_scenario = std::move(scenario.value());
    engine::runtime::SimulationOptions options;
    options.recordMemory = true;
    auto sim = engine::runtime::simulate(m_scenario, options);
    QVERIFY(sim.ok());
    m_sim = std::move(sim.value());
}

void InspectorPanelTest::modelOverSeveralDetails()
{
    gui::InspectorModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    QCOMPARE(model.rowCount(), 0);
    QCOMPARE(model.headerData(0, Qt::Horizontal).toString(), QString("Property"));
    QCOMPARE(model.headerData(1, Qt::Horizontal).toString(), QString("Value"));

    QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
    const Details made = handMade();
    model.setDetails(made);
    QCOMPARE(resets.count(), 1);
    checkTree(model, {}, made.rows);
    // Spot checks of the shape checkTree walks: the deepest row and its parents.
    const QModelIndex log = model.index(1, 0);
    const QModelIndex info = model.index(0, 0, log);
    const QModelIndex deep = model.index(0, 1, info);
    QCOMPARE(deep.data().toString(), QString("deep"));
    QCOMPARE(model.parent(deep), info);
    QCOMPARE(model.parent(info), log);
    QCOMPARE(model.parent(log), QModelIndex());
    QCOMPARE(model.index(1, 1, log).data().toString(), QString("first\nsecond"));
    QVERIFY(!model.index(2, 0, log).isValid());
    QCOMPARE(model.detail(info)->key, std::string("INFO"));
    QVERIFY(model.flags(info) & Qt::ItemIsSelectable);
    QVERIFY(!(model.flags(info) & Qt::ItemIsEditable));

    // Real Details of sample 04: a node, an input-update event, a block; then nothing; then the
    // hand-made tree again (a reset from a bigger tree to a smaller one).
    const engine::Graph* decode = m_scenario.graph("decode");
    QVERIFY(decode);
    const int node = decode->find("l0_rms_norm");
    QVERIFY(node >= 0);
    int update = -1;
    for (const auto& e : m_sim.events)
        if (e.kind == engine::runtime::EventKind::InputUpdate && update < 0)
            update = e.index;
    QVERIFY(update >= 0);
    const auto& pools = m_sim.events.back().memory;
    QVERIFY(!pools.empty() && !pools.back().segments.empty());
    const Details all[] = {
        engine::report::nodeDetails(*decode, node, { "reinplace" }),
        engine::report::eventDetails(m_sim, update),
        engine::report::blockDetails(m_sim, pools, int(pools.size()) - 1, 0, 0),
        Details {},
        made,
    };
    for (const Details& d : all) {
        model.setDetails(d);
        checkTree(model, {}, d.rows);
        QCOMPARE(model.details().title, d.title);
    }
    QCOMPARE(resets.count(), 6);
    QVERIFY(countRows(all[0].rows) > 20); // the node has outputs, args and users as children

    model.clear();
    QCOMPARE(model.rowCount(), 0);
    QVERIFY(model.details().kind.empty());
}

void InspectorPanelTest::panelShowsAndCopies()
{
    gui::ProjectSession session;
    gui::InspectorPanel panel(&session);
    panel.resize(600, 500);
    panel.show();
    auto* tree = panel.findChild<QTreeView*>("inspectorTree");
    auto* empty = panel.findChild<QLabel*>("inspectorEmpty");
    auto* title = panel.findChild<QLabel*>("inspectorTitle");
    QVERIFY(tree && empty && title);
    QCOMPARE(tree->model(), panel.model());
    // Empty at first.
    QVERIFY(empty->isVisible());
    QVERIFY(!tree->isVisible());
    QCOMPARE(empty->text(), QString("Select a node, block, event or cache entry"));
    QVERIFY(panel.copyText().isEmpty());

    QSignalSpy shown(&panel, &gui::InspectorPanel::shown);
    const Details made = handMade();
    panel.showDetails(made);
    QCOMPARE(shown.count(), 1);
    QVERIFY(tree->isVisible());
    QVERIFY(!empty->isVisible());
    QCOMPARE(title->text(), QString("Event: event 3: capture graph_1"));
    QCOMPARE(panel.model()->rowCount(), 3);
    const QModelIndex log = panel.model()->index(1, 0);
    QVERIFY(tree->isExpanded(log));
    QVERIFY(!tree->isExpanded(panel.model()->index(0, 0, log))); // deeper rows stay closed
    QVERIFY(tree->columnWidth(0) > 0);

    const QString expected = "event 3: capture graph_1\n"
                             "  call: 1\n"
                             "  TorchAir log: 2 lines\n"
                             "    INFO: capture begins\n"
                             "      note: deep\n"
                             "    WARNING: first\n"
                             "      second\n"
                             "  empty:\n";
    QCOMPARE(panel.copyText(), expected);
    QApplication::clipboard()->clear();
    // Shortcuts fire only in the active window.
    QApplication::setActiveWindow(&panel);
    QVERIFY(QTest::qWaitForWindowActive(&panel));
    tree->setFocus();
    QTest::keyClick(tree, Qt::Key_C, Qt::ControlModifier);
    QCOMPARE(QApplication::clipboard()->text(), expected);
    // With a current row the view's own Ctrl+C (one cell's text) does not take over.
    tree->setCurrentIndex(panel.model()->index(0, 1));
    QApplication::clipboard()->clear();
    QTest::keyClick(tree, Qt::Key_C, Qt::ControlModifier);
    QCOMPARE(QApplication::clipboard()->text(), expected);

    // The context menu offers the same action.
    QAction* copy = nullptr;
    for (QAction* a : tree->actions())
        if (a->text() == "Copy")
            copy = a;
    QVERIFY(copy);
    QCOMPARE(tree->contextMenuPolicy(), Qt::ActionsContextMenu);
    QApplication::clipboard()->clear();
    copy->trigger();
    QCOMPARE(QApplication::clipboard()->text(), expected);

    // A real node: its title names the kind; the copy text is the engine's.
    const engine::Graph* decode = m_scenario.graph("decode");
    const Details node = engine::report::nodeDetails(*decode, decode->find("l0_k_cache"));
    panel.showDetails(node);
    QCOMPARE(title->text(), QString("Node: l0_k_cache"));
    QCOMPARE(panel.copyText(), QString::fromStdString(engine::report::detailsText(node)));
    screenshot(panel, "inspector_node.png");

    panel.clear();
    QCOMPARE(shown.count(), 3);
    QVERIFY(empty->isVisible());
    QVERIFY(!title->isVisible());
    QCOMPARE(panel.model()->rowCount(), 0);
    QApplication::clipboard()->setText("unchanged");
    copy->trigger();
    QCOMPARE(QApplication::clipboard()->text(), QString("unchanged"));
}

void InspectorPanelTest::cacheEntry()
{
    const auto it = std::find_if(m_entries.begin(), m_entries.end(),
        [](const auto& e) { return e.loads && e.layoutKnown && e.backend == "torchair"; });
    QVERIFY(it != m_entries.end());
    const storage::StoredCacheEntry& entry = *it;

    gui::ProjectSession session;

    gui::InspectorPanel panel(&session);
    panel.resize(700, 600);
    panel.show();
    QSignalSpy shown(&panel, &gui::InspectorPanel::shown);
    guitest::select(session, m_project, "cache_entry", entry.id);
    QVERIFY(shown.wait(20000));
    const Details& d = panel.details();
    QCOMPARE(d.kind, std::string("cache_entry"));
    QCOMPARE(d.title, entry.relativePath);
    QCOMPARE(findRow(d, "path")->value, entry.path);
    QCOMPARE(findRow(d, "func")->value, entry.func);
    QCOMPARE(findRow(d, "backend")->value, std::string("torchair"));
    QCOMPARE(findRow(d, "TorchAir loads it")->value, std::string("yes"));
    QVERIFY(!findRow(d, "first failed check"));
    const Detail* model = findRow(d, "model folder");
    QVERIFY(model);
    QCOMPARE(model->value, entry.model.name);
    QVERIFY(std::any_of(model->children.begin(), model->children.end(),
        [&](const Detail& c) { return c.key == "md5" && c.value == entry.model.md5; }));
    QCOMPARE(findRow(d, "version")->value, entry.version);

    // One child per check, in TorchAir's order, with its status and message.
    const Detail* checks = findRow(d, "checks");
    QVERIFY(checks);
    QCOMPARE(checks->children.size(), entry.checks.size());
    QVERIFY(checks->children.size() > 3);
    QCOMPARE(checks->children.front().key, std::string("exists"));
    for (size_t i = 0; i < entry.checks.size(); ++i) {
        const Detail& c = checks->children[i];
        QCOMPARE(c.key, entry.checks[i].name);
        QCOMPARE(c.children.front().key, std::string("status"));
        QCOMPARE(c.children.front().value, std::string(engine::cache::statusName(entry.checks[i].status)));
        QVERIFY(c.value.rfind(engine::cache::statusName(entry.checks[i].status), 0) == 0);
    }
    const Detail* options = findRow(d, "key options");
    QCOMPARE(options->children.size(), entry.options.size());
    QVERIFY(!options->children.empty());
    QCOMPARE(options->children.front().key, entry.options.front().first);
    QCOMPARE(findRow(d, "graph id")->value, entry.graphId ? std::to_string(*entry.graphId) : std::string("?"));
    QVERIFY(findRow(d, "TorchAir log")->children.front().value.find("Loading cache from") != std::string::npos);
    // The model shows what details() holds.
    QCOMPARE(panel.model()->rowCount(), int(d.rows.size()));
    QCOMPARE(panel.findChild<QLabel*>("inspectorTitle")->text(),
        QString("Cache entry: %1").arg(QString::fromStdString(entry.relativePath)));
    screenshot(panel, "inspector_cache_entry.png");

    // An id that is not there: the title says which, a row says why.
    guitest::select(session, m_project, "cache_entry", 987654);
    QVERIFY(shown.wait(20000));
    QVERIFY(panel.details().title.find("987654") != std::string::npos);
    QCOMPARE(panel.details().rows.size(), size_t(1));
    QCOMPARE(panel.details().rows[0].key, std::string("error"));
}

void InspectorPanelTest::laterSelectionWins()
{
    // A node picked while a cache entry still loads stays on screen when the load finishes.
    gui::ProjectSession session;
    gui::InspectorPanel panel(&session);
    QSignalSpy shown(&panel, &gui::InspectorPanel::shown);
    guitest::select(session, m_project, "cache_entry", m_entries.front().id);
    panel.showDetails(handMade());
    QCOMPARE(shown.count(), 1);
    QThreadPool::globalInstance()->waitForDone(20000);
    QTest::qWait(100); // the watcher's finished signal is queued to this thread
    QCOMPARE(shown.count(), 1);
    QCOMPARE(panel.details().title, handMade().title);
}

QTEST_MAIN(InspectorPanelTest)
#include "inspector_panel_test.moc"
