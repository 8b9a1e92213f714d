#include "gui/app/inspector_panel.h"

#include "engine/cache/cache_checks.h"
#include "gui/app/inspector_model.h"
#include "gui/app/project_session.h"
#include "gui/app/seam_wrap_delegate.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QEvent>
#include <QHash>
#include <QHeaderView>
#include <QLabel>
#include <QStackedWidget>
#include <QStyledItemDelegate>
#include <QTreeView>
#include <QVBoxLayout>
#include <memory>

namespace gui {

using engine::report::Detail;
using engine::report::Details;

namespace {

Detail row(std::string key, std::string value, std::vector<Detail> children = {})
{
    return { std::move(key), std::move(value), std::move(children) };
}

std::string optionalInt(const std::optional<int>& v)
{
    return v ? std::to_string(*v) : "-";
}

Detail modelFolderRow(const engine::cache::ModelFolder& m)
{
    std::vector<Detail> fields { row("class", m.className), row("dynamic", m.dynamic ? "yes" : "no") };
    engine::report::addNonEmpty(fields, "kind", m.kind);
    fields.push_back(row("md5", m.md5));
    return row("model folder", m.name, std::move(fields));
}

Detail distFolderRow(const engine::cache::DistFolder& d)
{
    if (!d.world)
        return row("rank folder", d.name.empty() ? "none (func folder under the model folder)" : d.name);
    std::vector<Detail> fields { row("world size", optionalInt(d.world)), row("global rank", optionalInt(d.globalRank)),
        row("tp rank", optionalInt(d.tpRank)), row("pp rank", optionalInt(d.ppRank)) };
    return row("rank folder", d.name, std::move(fields));
}

Detail checksRow(const std::vector<engine::cache::CacheCheck>& checks)
{
    std::vector<Detail> rows;
    int failed = 0;
    for (const auto& c : checks) {
        failed += c.status == engine::cache::CacheCheck::Status::Failed ? 1 : 0;
        std::string value = engine::cache::statusName(c.status);
        if (!c.message.empty())
            value += ": " + c.message;
        std::vector<Detail> fields { row("status", engine::cache::statusName(c.status)) };
        engine::report::addNonEmpty(fields, "exception", c.exception);
        engine::report::addNonEmpty(fields, "message", c.message);
        engine::report::addNonEmpty(fields, "detail", c.detail);
        rows.push_back(row(c.name, value, std::move(fields)));
    }
    return row(
        "checks", std::to_string(checks.size()) + " checks, " + std::to_string(failed) + " failed", std::move(rows));
}

QString kindLabel(const std::string& kind)
{
    if (kind == "node")
        return "Node";
    if (kind == "event")
        return "Event";
    if (kind == "block")
        return "Block";
    if (kind == "cache_entry")
        return "Cache entry";
    return QString::fromStdString(kind);
}

} // namespace

Details cacheEntryDetails(const storage::StoredCacheEntry& e)
{
    Details d;
    d.kind = "cache_entry";
    d.title = e.relativePath.empty() ? e.path : e.relativePath;
    auto& rows = d.rows;
    rows.push_back(row("path", e.path));
    engine::report::addNonEmpty(rows, "relative path", e.relativePath);
    if (e.layoutKnown) {
        rows.push_back(modelFolderRow(e.model));
        rows.push_back(distFolderRow(e.dist));
        rows.push_back(row("func", e.func));
    } else {
        rows.push_back(row("layout", "outside TorchAir's cache layout (no model, rank or func folder)"));
    }
    rows.push_back(row("backend", e.backend));
    rows.push_back(row("TorchAir loads it", e.loads ? "yes" : "no"));
    if (e.firstFailure)
        rows.push_back(row("first failed check", *e.firstFailure));
    if (e.readError)
        rows.push_back(row("read error", *e.readError));
    if (!e.metaName.empty() || !e.metaDate.empty())
        rows.push_back(row("meta", e.metaName + (e.metaDate.empty() ? "" : ", " + e.metaDate)));
    engine::report::addNonEmpty(rows, "version", e.version);
    engine::report::addNonEmpty(rows, "python", e.python);
    rows.push_back(checksRow(e.checks));
    std::vector<Detail> options;
    for (const auto& [name, value] : e.options)
        options.push_back(row(name, value));
    rows.push_back(row("key options", std::to_string(e.options.size()), std::move(options)));
    std::vector<Detail> log;
    for (const std::string& line : e.log)
        log.push_back(row("line", line));
    std::string lines = log.empty() ? "nothing printed" : std::to_string(log.size()) + " lines"; // before the move
    rows.push_back(row("TorchAir log", std::move(lines), std::move(log)));
    rows.push_back(row("graph id", e.graphId ? std::to_string(*e.graphId) : "none (py_code not read)"));
    rows.push_back(row("entry id", std::to_string(e.id)));
    return d;
}

InspectorPanel::InspectorPanel(ProjectSession* session, QWidget* parent)
    : QWidget(parent)
    , m_title(new QLabel)
    , m_pages(new QStackedWidget)
    , m_empty(new QLabel("Select a node, block, event or cache entry"))
    , m_view(new QTreeView)
    , m_model(new InspectorModel(this))
{
    m_title->setObjectName("inspectorTitle");
    m_title->setTextFormat(Qt::PlainText);
    m_title->setWordWrap(true);
    m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QFont bold = m_title->font();
    bold.setBold(true);
    m_title->setFont(bold);
    m_empty->setObjectName("inspectorEmpty");
    m_empty->setAlignment(Qt::AlignCenter);
    m_empty->setWordWrap(true);
    m_empty->setEnabled(false); // greyed, as a placeholder text

    m_view->setObjectName("inspectorTree");
    m_view->setModel(m_model);
    m_view->setItemDelegate(new WrapToColumn(m_view));
    m_view->setUniformRowHeights(false); // values of several lines (messages) take several lines
    // Long values (a hazard's explanation, a message) wrap in a narrow dock rather than being cut;
    // the full value is also the tooltip.
    m_view->setWordWrap(true);
    m_view->setTextElideMode(Qt::ElideRight);
    m_view->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_view->viewport()->installEventFilter(this); // the columns follow the view's width
    m_view->setAlternatingRowColors(true);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->header()->setStretchLastSection(true);
    m_view->setContextMenuPolicy(Qt::ActionsContextMenu);

    // One action for the context menu and Ctrl+C, active while the focus is anywhere in the panel.
    auto* copy = new QAction("Copy", this);
    copy->setShortcut(QKeySequence::Copy);
    copy->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    connect(copy, &QAction::triggered, this, &InspectorPanel::copyToClipboard);
    m_view->addAction(copy);
    addAction(copy);

    m_pages->addWidget(m_empty);
    m_pages->addWidget(m_view);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_title);
    layout->addWidget(m_pages, 1);
    display({});
    connect(session, &ProjectSession::stepChanged, this, [this, session](int event) {
        if (const auto run = session->run(); run && event >= 0)
            showDetails(engine::report::eventDetails(run->sim, event));
    });
    // A cache entry picked is shown when read, unless something else was shown meanwhile.
    connect(session, &ProjectSession::selectionChanged, this, [this](const QString& kind, qlonglong id) {
        if (kind == "cache_entry")
            m_awaitedEntry = id;
    });
    connect(session, &ProjectSession::cacheEntryLoaded, this, [this, session] {
        if (session->cacheEntryId() != m_awaitedEntry)
            return;
        m_awaitedEntry = -1;
        showCacheEntry(session->cacheEntry(), session->cacheEntryId(), session->cacheEntryError());
    });
}

InspectorPanel::~InspectorPanel() = default;

const Details& InspectorPanel::details() const
{
    return m_model->details();
}

void InspectorPanel::display(const Details& details)
{
    m_model->setDetails(details);
    const bool empty = details.kind.empty() && details.title.empty() && details.rows.empty();
    m_title->setText(
        empty ? QString() : QString("%1: %2").arg(kindLabel(details.kind), QString::fromStdString(details.title)));
    m_title->setVisible(!empty);
    m_pages->setCurrentWidget(empty ? static_cast<QWidget*>(m_empty) : m_view);
    // Top-level rows open, deeper ones closed: a second-level row's value already sums up its
    // children (an output's annotation, an input's action, a check's status and message), and
    // opening everything buries the next top-level row under 21 inputs x 3 fields.
    // Rows open one level deep, except long lists (an input update of an 80-layer model lists
    // hundreds of inputs): they stay folded with their count, a click away.
    for (int r = 0; r < m_model->rowCount(); ++r) {
        const QModelIndex row = m_model->index(r, 0);
        m_view->setExpanded(row, m_model->rowCount(row) <= kOpenRowsUpTo);
        // A hazard's explanation (what, why, how to avoid it) is what the user came for: open.
        for (int c = 0; c < m_model->rowCount(row); ++c) {
            const QModelIndex child = m_model->index(c, 0, row);
            if (child.data().toString() == "explanation")
                m_view->setExpanded(child, true);
        }
    }
    fitColumns();
}

void InspectorPanel::showDetails(const Details& details)
{
    m_awaitedEntry = -1; // picked after the cache entry: it wins
    display(details);
    emit shown();
}

void InspectorPanel::clear()
{
    showDetails({});
}

void InspectorPanel::showCacheEntry(
    const std::shared_ptr<const storage::StoredCacheEntry>& entry, qlonglong entryId, const QString& error)
{
    if (entry) {
        display(cacheEntryDetails(*entry));
    } else {
        Details d;
        d.kind = "cache_entry";
        d.title = "cache entry " + std::to_string(entryId) + " cannot be read";
        d.rows.push_back({ "error", error.toStdString(), {} });
        display(d);
    }
    emit shown();
}

void InspectorPanel::fitColumns()
{
    // The property names as wide as they need, up to half the view: the values keep the rest. The
    // delegate measures a name wrapped at its column's width, so the column is first given the
    // most it may have (else a column once narrow would never grow back for longer names).
    const int half = m_view->viewport()->width() / 2;
    if (half > 0)
        m_view->setColumnWidth(InspectorModel::PropertyColumn, half);
    m_view->resizeColumnToContents(InspectorModel::PropertyColumn);
    if (half > 0 && m_view->columnWidth(InspectorModel::PropertyColumn) > half)
        m_view->setColumnWidth(InspectorModel::PropertyColumn, half);
    static_cast<WrapToColumn*>(m_view->itemDelegate())->relayout(); // rows as tall as their wrapped text
}

bool InspectorPanel::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_view->viewport() && event->type() == QEvent::Resize)
        fitColumns();
    return QWidget::eventFilter(watched, event);
}

QString InspectorPanel::copyText() const
{
    const Details& d = details();
    if (d.kind.empty() && d.title.empty() && d.rows.empty())
        return {};
    return QString::fromStdString(engine::report::detailsText(d));
}

void InspectorPanel::copyToClipboard() const
{
    const QString text = copyText();
    if (!text.isEmpty())
        QApplication::clipboard()->setText(text);
}

} // namespace gui
