#include "gui/app/passes_panel.h"

#include "engine/graph/graph_diff.h"
#include "gui/app/project_session.h"
#include "gui/app/seam_wrap_delegate.h"

#include <QAbstractItemView>
#include <QComboBox>
#include <QEvent>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSplitter>
#include <QTabWidget>
#include <QTableWidget>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <algorithm>

namespace gui {

namespace {

QString q(const std::string& s)
{
    return QString::fromStdString(s);
}

QString bytesText(uint64_t bytes)
{
    if (bytes == 0)
        return "-";
    const char* units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
    double v = double(bytes);
    int unit = 0;
    while (v >= 1024 && unit < 4) {
        v /= 1024;
        ++unit;
    }
    return unit == 0 ? QString("%1 B").arg(bytes) : QString("%1 %2").arg(v, 0, 'f', 1).arg(units[unit]);
}

QString arrow(const QString& before, const QString& after)
{
    return before == after ? before : QString("%1 → %2").arg(before, after);
}

QTreeWidgetItem* section(QTreeWidget* tree, const QString& title, int count)
{
    auto* item = new QTreeWidgetItem(tree, { QString("%1 (%2)").arg(title).arg(count) });
    QFont bold = item->font(0);
    bold.setBold(true);
    item->setFont(0, bold);
    item->setExpanded(count > 0 && count <= 200);
    return item;
}

void leaf(QTreeWidgetItem* parent, const QString& node, const QString& detail)
{
    auto* item = new QTreeWidgetItem(parent, { node, detail });
    item->setToolTip(1, detail);
}

QTreeWidget* makeTree(const char* name, const QStringList& headers)
{
    auto* tree = new QTreeWidget;
    tree->setObjectName(name);
    tree->setHeaderLabels(headers);
    tree->setRootIsDecorated(true);
    tree->setUniformRowHeights(true);
    tree->header()->setStretchLastSection(true);
    return tree;
}

} // namespace

PassesPanel::PassesPanel(ProjectSession* session, QWidget* parent)
    : QWidget(parent)
    , m_session(session)
    , m_title(new QLabel("Pick a graph in the Project view."))
    , m_tabs(new QTabWidget)
    , m_table(new QTableWidget(0, 9))
    , m_changes(makeTree("passChanges", { "Node", "Change" }))
    , m_log(new QPlainTextEdit)
    , m_from(new QComboBox)
    , m_to(new QComboBox)
    , m_diffSummary(new QLabel)
    , m_diff(makeTree("diffTree", { "Node", "Difference" }))
{
    m_title->setObjectName("passesTitle");
    m_title->setWordWrap(true);
    m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_table->setObjectName("passTable");
    m_table->setHorizontalHeaderLabels(
        { "Pass", "Enabled", "Nodes", "Peak bytes", "Rewritten", "Skipped", "Removed", "Added", "Option" });
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(true);
    // A long pass name wraps at its underscores (fitPassColumn), so that what the pass did is in
    // sight beside it in a bottom dock.
    m_table->setItemDelegate(new SeamWrapDelegate(m_table));
    m_table->setWordWrap(true);
    m_table->setTextElideMode(Qt::ElideNone);
    m_table->viewport()->installEventFilter(this);
    m_log->setObjectName("passLog");
    m_log->setReadOnly(true);
    m_log->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_log->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_from->setObjectName("diffFrom");
    m_to->setObjectName("diffTo");
    // The boxes share the row whatever the stage names' length; their lists show the names whole.
    for (QComboBox* stages : { m_from, m_to }) {
        stages->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        stages->setMinimumContentsLength(12);
    }
    m_diffSummary->setObjectName("diffSummary");
    m_diffSummary->setWordWrap(true);
    m_diffSummary->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* bottom = new QSplitter(Qt::Horizontal);
    bottom->addWidget(m_changes);
    bottom->addWidget(m_log);
    bottom->setStretchFactor(0, 1);
    bottom->setStretchFactor(1, 1);
    auto* passes = new QSplitter(Qt::Vertical);
    passes->addWidget(m_table);
    passes->addWidget(bottom);
    // The passes first: in a bottom dock, three of them above the selected one's changes.
    passes->setStretchFactor(0, 3);
    passes->setStretchFactor(1, 2);

    auto* diff = new QWidget;
    auto* bar = new QHBoxLayout;
    bar->addWidget(new QLabel("Compare"));
    bar->addWidget(m_from, 1);
    bar->addWidget(new QLabel("with"));
    bar->addWidget(m_to, 1);
    auto* diffLayout = new QVBoxLayout(diff);
    diffLayout->setContentsMargins(0, 4, 0, 0);
    diffLayout->addLayout(bar);
    diffLayout->addWidget(m_diffSummary);
    diffLayout->addWidget(m_diff, 1);

    m_tabs->addTab(passes, "Passes");
    m_tabs->addTab(diff, "Diff");
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_title);
    layout->addWidget(m_tabs, 1);

    connect(m_table, &QTableWidget::currentCellChanged, this, [this](int row) { selectPass(row); });
    auto compare = [this] { compareStages(m_from->currentIndex(), m_to->currentIndex()); };
    connect(m_from, QOverload<int>::of(&QComboBox::currentIndexChanged), this, compare);
    connect(m_to, QOverload<int>::of(&QComboBox::currentIndexChanged), this, compare);
    // The passes of the graph the Graph view shows, whoever asked for it.
    connect(session, &ProjectSession::graphLoaded, this, &PassesPanel::showPasses);
}

PassesPanel::~PassesPanel() = default;

void PassesPanel::fitPassColumn()
{
    // The pass name on one line where it takes at most a third of the view, else wrapped there
    // (never narrower than its longest piece between underscores); rows as tall as their text.
    if (m_passWidth <= 0)
        return;
    const int third = m_table->viewport()->width() / 3;
    int piece = 0;
    for (int row = 0; row < m_table->rowCount(); ++row)
        for (const QString& part : SeamWrapDelegate::breakable(m_table->item(row, 0)->text()).split(QChar(0x200B)))
            piece = std::max(piece, m_table->fontMetrics().horizontalAdvance(part) + 12);
    const int width = std::min(m_passWidth, std::max(third, piece));
    if (width != m_table->columnWidth(0)) {
        m_table->setColumnWidth(0, width);
        m_table->resizeRowsToContents();
    }
}

bool PassesPanel::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_table->viewport() && event->type() == QEvent::Resize)
        fitPassColumn();
    return QWidget::eventFilter(watched, event);
}

void PassesPanel::showPasses()
{
    const std::shared_ptr<const ProjectSession::StoredGraph> stored = m_session->graph();
    if (!stored)
        return;
    m_title->setText(QString("Loading the passes of graph %1 ...").arg(stored->id));
    using Ptr = std::shared_ptr<const Loaded>;
    // The graph and its reports come from the session; the stage graphs are read here.
    auto load = [stored](storage::Database& db) -> Ptr {
        auto out = std::make_shared<Loaded>();
        if (!stored->graph) {
            out->error = stored->error;
            return out;
        }
        const engine::Graph* input = stored->graph.get();
        out->reports = stored->reports;
        const QString name = q(input->id);
        out->stages.push_back(
            { QString("input: %1 (%2 nodes)").arg(name).arg(input->nodes.size()), stored->graph, {} });
        for (const auto& r : out->reports) {
            if (!r.resultGraphId)
                continue;
            Stage stage;
            auto g = storage::readGraph(db, *r.resultGraphId);
            stage.label = QString("after %1").arg(q(r.report.name));
            if (g) {
                stage.label += QString(" (%1 nodes)").arg(g->nodes.size());
                stage.graph = std::make_shared<const engine::Graph>(std::move(g.value()));
            } else {
                stage.error = q(g.error().toString());
            }
            out->stages.push_back(std::move(stage));
        }
        out->title = out->reports.empty()
            ? QString("%1: no pass reports stored (the passes run when a graph is imported with its backend)").arg(name)
            : QString("%1: %2 passes, %3 stage graphs").arg(name).arg(out->reports.size()).arg(out->stages.size());
        return out;
    };
    m_session->load<Ptr>(this, m_generation, load, [this](Ptr loaded) {
        m_loaded = loaded;
        fill();
        emit shown();
    });
}

void PassesPanel::fill()
{
    m_changes->clear();
    m_log->clear();
    m_diff->clear();
    m_diffSummary->clear();
    {
        const QSignalBlocker blockFrom(m_from), blockTo(m_to), blockTable(m_table);
        m_from->clear();
        m_to->clear();
        m_table->setRowCount(0);
        if (!m_loaded->error.isEmpty()) {
            m_title->setText(m_loaded->error);
            return;
        }
        m_title->setText(m_loaded->title);
        const auto& reports = m_loaded->reports;
        m_table->setRowCount(int(reports.size()));
        for (int row = 0; row < int(reports.size()); ++row) {
            const engine::passes::PassReport& r = reports[size_t(row)].report;
            const QString texts[] = { q(r.name), r.enabled ? "yes" : "no",
                r.enabled ? arrow(QString::number(r.nodesBefore), QString::number(r.nodesAfter)) : QString("-"),
                !r.enabled  ? QString("-")
                    : !r.measured ? QString("unknown")
                                  : arrow(bytesText(r.peakBytesBefore), bytesText(r.peakBytesAfter)),
                QString::number(r.rewritten.size()), QString::number(r.skipped.size()),
                QString::number(r.removed.size()), QString::number(r.added.size()),
                r.option.empty() ? QString("(always on)") : q(r.option) };
            for (int col = 0; col < 9; ++col) {
                auto* item = new QTableWidgetItem(texts[col]);
                if (col >= 4 && col <= 7)
                    item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
                if (!r.enabled)
                    item->setForeground(QColor(0x80, 0x80, 0x80));
                m_table->setItem(row, col, item);
            }
        }
        m_table->resizeColumnsToContents();
        m_passWidth = m_table->columnWidth(0);
        fitPassColumn();
        int widest = 0;
        for (const auto& s : m_loaded->stages) {
            m_from->addItem(s.label);
            m_to->addItem(s.label);
            widest = std::max(widest, m_from->fontMetrics().horizontalAdvance(s.label));
        }
        m_from->view()->setMinimumWidth(widest + 32);
        m_to->view()->setMinimumWidth(widest + 32);
        m_from->setCurrentIndex(0);
        m_to->setCurrentIndex(m_to->count() - 1);
    }
    if (!m_loaded->reports.empty())
        m_table->setCurrentCell(0, 0); // -> selectPass(0)
    compareStages(m_from->currentIndex(), m_to->currentIndex());
}

void PassesPanel::selectPass(int row)
{
    m_changes->clear();
    m_log->clear();
    if (!m_loaded || row < 0 || row >= int(m_loaded->reports.size()))
        return;
    if (m_table->currentRow() != row) {
        const QSignalBlocker block(m_table);
        m_table->setCurrentCell(row, 0);
    }
    const engine::passes::PassReport& r = m_loaded->reports[size_t(row)].report;
    auto* rewritten = section(m_changes, "Rewritten", int(r.rewritten.size()));
    for (const auto& rw : r.rewritten)
        leaf(rewritten, q(rw.node), arrow(q(rw.before), q(rw.after)));
    auto* skipped = section(m_changes, "Skipped", int(r.skipped.size()));
    for (const auto& s : r.skipped)
        leaf(skipped, q(s.node), q(s.reason));
    auto* removed = section(m_changes, "Removed", int(r.removed.size()));
    for (const auto& n : r.removed)
        leaf(removed, q(n), {});
    auto* added = section(m_changes, "Added", int(r.added.size()));
    for (const auto& n : r.added)
        leaf(added, q(n), {});
    m_changes->resizeColumnToContents(0);
    QStringList log;
    for (const auto& line : r.log)
        log << q(line);
    m_log->setPlainText(
        log.isEmpty() ? (r.enabled ? "(no DEBUG lines)" : "(the pass is switched off)") : log.join('\n'));
}

void PassesPanel::compareStages(int from, int to)
{
    m_diff->clear();
    if (!m_loaded || from < 0 || to < 0 || from >= int(m_loaded->stages.size()) || to >= int(m_loaded->stages.size())) {
        m_diffSummary->setText(m_loaded && m_loaded->stages.size() < 2 ? "Only one stage: nothing to compare." : "");
        return;
    }
    if (m_from->currentIndex() != from || m_to->currentIndex() != to) {
        const QSignalBlocker blockFrom(m_from), blockTo(m_to);
        m_from->setCurrentIndex(from);
        m_to->setCurrentIndex(to);
    }
    const Stage& a = m_loaded->stages[size_t(from)];
    const Stage& b = m_loaded->stages[size_t(to)];
    if (!a.graph || !b.graph) {
        m_diffSummary->setText(QString("Cannot compare: %1").arg(a.graph ? b.error : a.error));
        return;
    }
    const engine::GraphDiff d = engine::diffGraphs(*a.graph, *b.graph);
    m_diffSummary->setText(d.identical() ? QString("Identical: %1 nodes.").arg(d.nodesBefore)
                                         : QString("%1 → %2 nodes: %3 removed, %4 added, %5 changed.")
                                               .arg(d.nodesBefore)
                                               .arg(d.nodesAfter)
                                               .arg(d.removed.size())
                                               .arg(d.added.size())
                                               .arg(d.changed.size()));
    auto* removed = section(m_diff, "Removed", int(d.removed.size()));
    for (const auto& n : d.removed)
        leaf(removed, q(n), {});
    auto* added = section(m_diff, "Added", int(d.added.size()));
    for (const auto& n : d.added)
        leaf(added, q(n), {});
    auto* changed = section(m_diff, "Changed", int(d.changed.size()));
    for (const auto& c : d.changed) {
        QStringList fields;
        for (const auto& f : c.changes)
            fields << q(f.text());
        leaf(changed, q(c.node), fields.join("; "));
    }
    auto* targets = section(m_diff, "Target counts", int(d.targetChanges.size()));
    for (const auto& t : d.targetChanges)
        leaf(targets, q(t.name),
            QString("%1 → %2 (%3%4)").arg(t.before).arg(t.after).arg(t.diff() > 0 ? "+" : "").arg(t.diff()));
    m_diff->resizeColumnToContents(0);
}

} // namespace gui
