// Issue 21: nothing cut at 1366x768. Each view is loaded with real content (sample 07 imported with
// its run and re-simulated with output cloning on; the compile-cache fixture for Cache, the
// two-function TORCH_TRACE for Compiles) and resized to the size its dock has in a 1366x768 window
// (right-hand docks about 400 px wide, bottom docks about 560 px wide and 300 px tall, the memory
// breakdown about 340 px beside the Memory view). Then no visible column may be narrower than its header text, the key
// columns must lie inside the viewport (no horizontal scrolling to reach them), and their cells in the first rows must
// not be elided: the text fits the column on one line or, in a word-wrapped view, the row is tall enough for the
// wrapped text. Set ACLGI_SCREENSHOTS to keep a PNG of each view.
#include "engine/report/details.h"
#include "engine/report/hazard_explain.h"
#include "gui/app/cache_panel.h"
#include "gui/app/compare_panel.h"
#include "gui/app/compiles_panel.h"
#include "gui/app/config_panel.h"
#include "gui/app/events_panel.h"
#include "gui/app/inspector_panel.h"
#include "gui/app/log_panel.h"
#include "gui/app/memory_breakdown.h"
#include "gui/app/passes_panel.h"
#include "gui/app/run_log_model.h"
#include "storage/cache_store.h"
#include "storage/graph_store.h"
#include "storage/importer.h"
#include "storage/project_db.h"
#include "storage/resimulate.h"
#include "storage/run_store.h"
#include "tests/gui/sample_project.h"
#include "tests/gui/screenshot.h"
#include "tests/gui/session_util.h"

#include <QAbstractSpinBox>
#include <QComboBox>
#include <QHeaderView>
#include <QLineEdit>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStyle>
#include <QStyleOptionViewItem>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QThreadPool>
#include <QTreeView>
#include <QTreeWidget>
#include <QtTest>
#include <filesystem>

namespace {

constexpr QSize kRightDock(400, 560);
constexpr QSize kBottomDock(560, 300);
constexpr int kRowsChecked = 40;

/// The first `n` rows of `view` as shown (a tree's expanded rows in order).
QList<QModelIndex> shownRows(QAbstractItemView* view, int n)
{
    QList<QModelIndex> rows;
    auto* tree = qobject_cast<QTreeView*>(view);
    QModelIndex at = view->model()->index(0, 0);
    while (at.isValid() && rows.size() < n) {
        rows << at;
        at = tree ? tree->indexBelow(at) : view->model()->index(at.row() + 1, 0);
    }
    return rows;
}

/// Why the cell `index` of `view` does not show its whole text, or an empty string.
QString cellCut(QAbstractItemView* view, const QModelIndex& index)
{
    const QRect rect = view->visualRect(index);
    if (QWidget* editor = view->indexWidget(index)) {
        // A line edit shows its text, a combo box its current item (with its arrow); others their size hint.
        const auto* line = qobject_cast<QLineEdit*>(editor);
        const auto* combo = qobject_cast<QComboBox*>(editor);
        const int need = line ? line->fontMetrics().horizontalAdvance(line->text()) + 12
            : combo
            ? std::max(combo->sizeHint().width(), combo->fontMetrics().horizontalAdvance(combo->currentText()) + 30)
            : editor->sizeHint().width();
        return need <= rect.width() ? QString() : QString("editor needs %1 px, has %2").arg(need).arg(rect.width());
    }
    const QString text = index.data(Qt::DisplayRole).toString();
    if (text.isEmpty())
        return {};
    const auto* table = qobject_cast<QTableView*>(view);
    const auto* tree = qobject_cast<QTreeView*>(view);
    if ((table && table->wordWrap()) || (tree && tree->wordWrap())) {
        // A wrapped cell is measured as its delegate lays it out at the column's width (a delegate
        // may offer line breaks the text itself has not): every line fits and the row is tall enough.
        QStyleOptionViewItem option;
        option.initFrom(view);
        option.font = view->font();
        option.rect = rect;
        option.features = QStyleOptionViewItem::WrapText;
        option.decorationSize = view->iconSize().isValid() ? view->iconSize() : QSize(16, 16);
        const QSize need = view->itemDelegate(index)->sizeHint(option, index);
        if (need.width() <= rect.width() && need.height() <= rect.height())
            return {};
        return QString("'%1' wrapped needs %2x%3 px, has %4x%5")
            .arg(text.left(60))
            .arg(need.width())
            .arg(need.height())
            .arg(rect.width())
            .arg(rect.height());
    }
    const QVariant fontData = index.data(Qt::FontRole);
    const QFont font = fontData.isValid() ? qvariant_cast<QFont>(fontData).resolve(view->font()) : view->font();
    const QFontMetrics metrics(font);
    const int margin = view->style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, view) + 1;
    int width = rect.width() - 2 * margin;
    if (!index.data(Qt::DecorationRole).isNull())
        width -= view->iconSize().isValid() ? view->iconSize().width() + 4 : 20;
    // Unwrapped: each line of the text on one line of the cell.
    QSize need(0, metrics.height() * int(text.count('\n') + 1));
    for (const QString& line : text.split('\n'))
        need.setWidth(std::max(need.width(), metrics.horizontalAdvance(line)));
    if (need.width() <= width && need.height() <= rect.height())
        return {};
    return QString("'%1' needs %2x%3 px, has %4x%5")
        .arg(text.left(60))
        .arg(need.width())
        .arg(need.height())
        .arg(width)
        .arg(rect.height());
}

/// Fails the calling test when a visible column of `view` is narrower than its header, or when a key
/// column lies outside the viewport or cuts a cell in the first rows; `minRows`: the rows that must
/// be in sight at once.
void checkView(QAbstractItemView* view, QHeaderView* header, const QList<int>& keyColumns, int minRows = 1)
{
    QVERIFY(view->isVisible());
    QAbstractItemModel* model = view->model();
    QVERIFY(model->rowCount() > 0);
    const int margin = header->style()->pixelMetric(QStyle::PM_HeaderMargin, nullptr, header);
    for (int c = 0; c < model->columnCount(); ++c) {
        if (header->isSectionHidden(c))
            continue;
        const QString title = model->headerData(c, Qt::Horizontal).toString();
        const int need = header->fontMetrics().horizontalAdvance(title) + 2 * margin;
        QVERIFY2(header->sectionSize(c) >= need,
            qPrintable(QString("%1: column '%2' is %3 px, its header needs %4")
                           .arg(view->objectName(), title)
                           .arg(header->sectionSize(c))
                           .arg(need)));
    }
    const int viewportWidth = view->viewport()->width();
    for (int c : keyColumns) {
        QVERIFY2(!header->isSectionHidden(c),
            qPrintable(QString("%1: key column %2 hidden").arg(view->objectName()).arg(c)));
        const int left = header->sectionViewportPosition(c);
        QVERIFY2(left >= 0 && left + header->sectionSize(c) <= viewportWidth,
            qPrintable(QString("%1: key column '%2' spans %3..%4 px, the viewport is %5 px wide")
                           .arg(view->objectName(), model->headerData(c, Qt::Horizontal).toString())
                           .arg(left)
                           .arg(left + header->sectionSize(c))
                           .arg(viewportWidth)));
        for (const QModelIndex& row : shownRows(view, kRowsChecked)) {
            const QModelIndex index = row.sibling(row.row(), c);
            const QString cut = cellCut(view, index);
            QVERIFY2(cut.isEmpty(),
                qPrintable(QString("%1: row %2, column '%3': %4")
                               .arg(view->objectName())
                               .arg(row.row())
                               .arg(model->headerData(c, Qt::Horizontal).toString(), cut)));
        }
    }
    if (minRows > 1) {
        // Rows of one line: the first row's height, or in a word-wrapped table (whose rows are as
        // tall as their text) the height of a row of one line.
        const auto* table = qobject_cast<QTableView*>(view);
        const QModelIndex first = model->index(0, 0);
        const int rowHeight = std::max(1,
            table && table->wordWrap() ? table->verticalHeader()->defaultSectionSize()
                                       : view->visualRect(first).height());
        QVERIFY2(view->viewport()->height() >= minRows * rowHeight,
            qPrintable(QString("%1: %2 px tall, fewer than %3 rows of %4 px")
                           .arg(view->objectName())
                           .arg(view->viewport()->height())
                           .arg(minRows)
                           .arg(rowHeight)));
    }
}

/// Shows `panel` at `size` and lets its layout settle.
void showAt(QWidget& panel, QSize size)
{
    panel.resize(size);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QTest::qWait(50);
    QVERIFY2(panel.minimumSizeHint().width() <= size.width(),
        qPrintable(QString("%1 needs %2 px, the dock has %3")
                       .arg(panel.metaObject()->className())
                       .arg(panel.minimumSizeHint().width())
                       .arg(size.width())));
}

/// Selects `kind` `id` of `project` in `session` and waits for `panel`'s `shown` signal.
template <class Panel, class Signal>
void selectAndWait(
    gui::ProjectSession& session, Panel& panel, Signal shown, const QString& project, const QString& kind, qlonglong id)
{
    QSignalSpy spy(&panel, shown);
    guitest::select(session, project, kind, id);
    QVERIFY(spy.wait(20000));
}

} // namespace

class Layout1366Test : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void cleanupTestCase();
    void config();
    void compare();
    void inspector();
    void log();
    void passes();
    void cache();
    void compiles();
    void events();
    void memoryBreakdown();

private:
    QTemporaryDir m_dir;
    QString m_project;
    qlonglong m_base = 1, m_cloned = 0;
};

void Layout1366Test::cleanupTestCase()
{
    QThreadPool::globalInstance()->waitForDone();
}

void Layout1366Test::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(m_dir.isValid());
    importSampleWithRun(m_dir, "07_held_outputs_overwritten.json", m_project);
    if (QTest::currentTestFailed())
        return;
    storage::ResimulateRequest request;
    request.dbPath = m_project.toStdString();
    request.baseRunId = m_base;
    request.overrides = { "debug.aclgraph.enable_output_clone=True" };
    auto cloned = storage::resimulate(request);
    QVERIFY2(cloned.ok(), cloned.ok() ? "" : cloned.error().toString().c_str());
    m_cloned = cloned->runId;
}

void Layout1366Test::config()
{
    gui::ProjectSession session;
    gui::ConfigPanel panel(&session);
    selectAndWait(session, panel, &gui::ConfigPanel::shown, m_project, "run", m_cloned);
    if (QTest::currentTestFailed())
        return;
    QVERIFY(panel.table()->rowCount() > 10);
    using C = gui::ConfigPanel::Column;
    // The name in the run's backend spelling (torchair) and the value editor, in the right dock's
    // 400 px and at 640 px; the default beside them at 640 px. At 400 px the mode's combo box leaves
    // too little for a readable name beside a default column: the default may be in the name's
    // tooltip instead (and the names away from it bold).
    QTableWidget* table = panel.table();
    for (const int width : { kRightDock.width(), 640 }) {
        showAt(panel, QSize(width, kRightDock.height()));
        screenshot(panel, qPrintable(QString("layout_config_%1.png").arg(width)));
        QList<int> keys { C::TorchairColumn, C::ValueColumn };
        if (width == 640 || !table->isColumnHidden(C::DefaultColumn))
            keys << C::DefaultColumn;
        else
            for (int row = 0; row < table->rowCount(); ++row)
                if (table->item(row, C::TorchairColumn)->flags() != Qt::NoItemFlags)
                    QVERIFY2(table->item(row, C::TorchairColumn)
                                 ->toolTip()
                                 .endsWith("default: " + table->item(row, C::DefaultColumn)->text()),
                        qPrintable(table->item(row, C::TorchairColumn)->toolTip()));
        checkView(table, table->horizontalHeader(), keys);
        if (QTest::currentTestFailed())
            return;
    }
}

void Layout1366Test::compare()
{
    gui::ProjectSession session;
    gui::ComparePanel panel(&session);
    selectAndWait(session, panel, &gui::ComparePanel::compared, m_project, "run", m_cloned);
    if (QTest::currentTestFailed())
        return;
    showAt(panel, kRightDock);
    screenshot(panel, "layout_compare_400.png");
    checkView(panel.findChild<QTableView*>("compareTable"),
        panel.findChild<QTableView*>("compareTable")->horizontalHeader(),
        { gui::ComparisonModel::AColumn, gui::ComparisonModel::BColumn });
}

void Layout1366Test::inspector()
{
    auto db = storage::openProject(m_project.toStdString());
    QVERIFY(db.ok());
    auto run = storage::readRun(*db, m_base);
    QVERIFY(run.ok());
    const engine::runtime::Simulation& sim = run->sim;
    // The first event with a hazard: its explanation is the longest text the Inspector shows.
    int hazard = -1;
    for (int e : engine::report::hazardEvents(sim))
        if (e >= 0 && (hazard < 0 || e < hazard))
            hazard = e;
    QVERIFY(hazard >= 0);
    gui::ProjectSession session;
    gui::InspectorPanel panel(&session);
    panel.showDetails(engine::report::eventDetails(sim, hazard));
    showAt(panel, kRightDock);
    screenshot(panel, "layout_inspector_400.png");
    checkView(panel.view(), panel.view()->header(), { 0, 1 });
}

void Layout1366Test::log()
{
    gui::ProjectSession session;
    gui::LogPanel panel(&session);
    selectAndWait(session, panel, &gui::LogPanel::shown, m_project, "run", m_base);
    if (QTest::currentTestFailed())
        return;
    showAt(panel, kBottomDock);
    screenshot(panel, "layout_log_560.png");
    checkView(panel.view(), panel.view()->horizontalHeader(), { gui::RunLogModel::TextColumn }, 6);
}

void Layout1366Test::passes()
{
    // The first graph of the sample with pass reports.
    auto db = storage::openProject(m_project.toStdString());
    QVERIFY(db.ok());
    auto graphs = storage::listGraphs(*db);
    QVERIFY(graphs.ok());
    qlonglong graph = 0;
    for (const auto& g : *graphs) {
        auto reports = storage::readPassReports(*db, g.id);
        if (g.role == "graph" && reports.ok() && !reports->empty()) {
            graph = g.id;
            break;
        }
    }
    QVERIFY(graph > 0);
    gui::ProjectSession session;
    gui::PassesPanel panel(&session);
    selectAndWait(session, panel, &gui::PassesPanel::shown, m_project, "graph", graph);
    if (QTest::currentTestFailed())
        return;
    QVERIFY(panel.passTable()->rowCount() > 2);
    showAt(panel, kBottomDock);
    screenshot(panel, "layout_passes_560.png");
    // The pass, whether it ran, and what it did to the node count and the peak.
    checkView(panel.passTable(), panel.passTable()->horizontalHeader(), { 0, 1, 2, 3 }, 3);
}

void Layout1366Test::cache()
{
    // A copy of the compile-cache fixture (as cache_panel_test imports it).
    namespace fs = std::filesystem;
    const QString tree = m_dir.filePath("torchair_cache");
    fs::copy(ACLGI_SOURCE_DIR "/tests/data/cache/torchair_cache", tree.toStdString(),
        fs::copy_options::recursive | fs::copy_options::copy_symlinks);
    const QString project = m_dir.filePath("cache.aclgi");
    auto results = storage::importPaths(project.toStdString(), { tree.toStdString() });
    QVERIFY(results.ok());
    auto db = storage::openProject(project.toStdString());
    QVERIFY(db.ok());
    auto entries = storage::listCacheEntries(*db);
    QVERIFY(entries.ok() && !entries->empty());
    // The entry with the most checks (a full table).
    qlonglong entry = 0;
    size_t most = 0;
    for (const auto& e : *entries)
        if (e.checks.size() > most) {
            most = e.checks.size();
            entry = e.id;
        }
    gui::ProjectSession session;
    gui::CachePanel panel(&session);
    selectAndWait(session, panel, &gui::CachePanel::shown, project, "cache_entry", entry);
    if (QTest::currentTestFailed())
        return;
    showAt(panel, kBottomDock);
    auto* checks = panel.findChild<QTableWidget*>("cacheChecks");
    panel.tabs()->setCurrentWidget(checks);
    QTest::qWait(50);
    screenshot(panel, "layout_cache_checks_560.png");
    // The check, its status and TorchAir's message.
    checkView(checks, checks->horizontalHeader(), { 0, 1, 3 });
    if (QTest::currentTestFailed())
        return;
    auto* options = panel.findChild<QTableWidget*>("cacheOptions");
    panel.tabs()->setCurrentWidget(options);
    QTest::qWait(50);
    screenshot(panel, "layout_cache_options_560.png");
    checkView(options, options->horizontalHeader(), { 0, 1 });
}

void Layout1366Test::compiles()
{
    const QString project = m_dir.filePath("trace.aclgi");
    storage::ImportOptions options;
    options.runPasses = false;
    auto results = storage::importPaths(
        project.toStdString(), { ACLGI_SOURCE_DIR "/tests/data/real/trace/two_functions.log" }, options);
    QVERIFY(results.ok());
    gui::ProjectSession session;
    gui::CompilesPanel panel(&session);
    QSignalSpy shown(&panel, &gui::CompilesPanel::shown);
    session.open(project);
    QVERIFY(shown.wait(20000));
    QVERIFY(panel.compileCount() > 1);
    showAt(panel, kBottomDock);
    screenshot(panel, "layout_compiles_560.png");
    QTableWidget* table = panel.table();
    // The compile id, its time and its graphs beside the details (which say the cache's hit or miss;
    // its column is a horizontal scroll away in a bottom dock).
    const auto column = [table](const char* title) {
        for (int c = 0; c < table->columnCount(); ++c)
            if (table->horizontalHeaderItem(c)->text() == title)
                return c;
        return -1;
    };
    checkView(table, table->horizontalHeader(), { column("Compile"), column("Time"), column("Graphs") });
}

void Layout1366Test::events()
{
    auto db = storage::openProject(m_project.toStdString());
    QVERIFY(db.ok());
    auto run = storage::readRun(*db, m_base);
    QVERIFY(run.ok());
    gui::EventsPanel panel;
    panel.showRun(std::make_shared<const storage::StoredRun>(std::move(run.value())));
    showAt(panel, kBottomDock);
    screenshot(panel, "layout_events_560.png");
    // The event's number, kind (a hazard row's is long) and call; the text fills the rest, elided
    // there and whole in the explanation pane below, which has half the height (two rows above it).
    checkView(panel.table(), panel.table()->horizontalHeader(),
        { gui::EventListModel::NumberColumn, gui::EventListModel::KindColumn, gui::EventListModel::CallColumn }, 2);
}

void Layout1366Test::memoryBreakdown()
{
    auto db = storage::openProject(m_project.toStdString());
    QVERIFY(db.ok());
    auto run = storage::readRun(*db, m_base);
    QVERIFY(run.ok());
    auto sim = std::make_shared<const engine::runtime::Simulation>(std::move(run->sim));
    // The run's last step (everything it allocates is there, the held outputs too).
    QVERIFY(!sim->events.empty());
    const int last = int(sim->events.size()) - 1;
    auto pools = storage::memoryAt(*db, m_base, last);
    QVERIFY(pools.ok());
    gui::MemoryBreakdown panel;
    // As in the window: on screen and empty first, then given the memory of a step.
    showAt(panel, QSize(340, 400));
    panel.setSimulation(sim);
    panel.setMemory(std::make_shared<const std::vector<engine::runtime::PoolSnapshot>>(std::move(pools.value())));
    QApplication::processEvents();
    auto* tree = panel.findChild<QTreeWidget*>("breakdownTree");
    QVERIFY(tree);
    for (auto by : { gui::MemoryBreakdown::GroupBy::Category, gui::MemoryBreakdown::GroupBy::Owner,
             gui::MemoryBreakdown::GroupBy::Site }) {
        panel.setGroupBy(by);
        QTest::qWait(50);
        screenshot(panel, qPrintable(QString("layout_breakdown_%1_340.png").arg(int(by))));
        // What owns the bytes, the bytes and their share.
        checkView(tree, tree->header(), { 0, 1, 2 });
        if (QTest::currentTestFailed())
            return;
        // Sizes and shares on one line each: "177.0 MiB" and "54.8%" are not wrapped.
        for (int r = 0; r < std::min(tree->topLevelItemCount(), 20); ++r)
            for (int c : { 1, 2 }) {
                const QString text = tree->topLevelItem(r)->text(c);
                QVERIFY2(tree->fontMetrics().horizontalAdvance(text) <= tree->columnWidth(c),
                    qPrintable(QString("'%1' in %2 px").arg(text).arg(tree->columnWidth(c))));
            }
    }
}

QTEST_MAIN(Layout1366Test)
#include "layout_1366_test.moc"
