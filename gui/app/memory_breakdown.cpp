#include "gui/app/memory_breakdown.h"

#include "gui/app/memory_view.h"
#include "gui/app/seam_wrap_delegate.h"

#include <QComboBox>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <map>

namespace gui {

bool ownerMatches(const engine::runtime::OwnerInfo& o, const QString& filter)
{
    if (filter.isEmpty())
        return true;
    for (const std::string* s : { &o.tensor, &o.graph, &o.category, &o.stack, &o.key })
        if (QString::fromStdString(*s).contains(filter, Qt::CaseInsensitive))
            return true;
    return false;
}

MemoryBreakdown::MemoryBreakdown(QWidget* parent)
    : QWidget(parent)
    , m_groupBy(new QComboBox)
    , m_filterEdit(new QLineEdit)
    , m_header(new QLabel)
    , m_tree(new QTreeWidget)
{
    m_groupBy->setObjectName("breakdownGroupBy");
    m_groupBy->addItems({ "by category", "by owner", "by allocation site" });
    m_groupBy->setToolTip("Group the allocated bytes of the step shown");
    m_filterEdit->setObjectName("breakdownFilter");
    m_filterEdit->setPlaceholderText("Find a frame, file or owner…");
    m_filterEdit->setClearButtonEnabled(true);
    m_filterEdit->setToolTip("Keep the owners whose name, site, graph or stack holds this text; their blocks are "
                             "marked in the Memory view");
    m_header->setObjectName("breakdownHeader");
    m_header->setWordWrap(true);
    m_tree->setObjectName("breakdownTree");
    m_tree->setColumnCount(3);
    m_tree->setHeaderLabels({ "what", "bytes", "share" });
    m_tree->setRootIsDecorated(false);
    // A long site (a parameter's dotted name) wraps at its dots beside the bytes, not elided.
    m_tree->setUniformRowHeights(false);
    m_tree->setWordWrap(true);
    m_tree->setTextElideMode(Qt::ElideNone);
    // Only the names wrap: sizes and shares keep their width (a wrapping delegate would measure them
    // at the width they have, so they would never widen, and would break "54.8%" at its dot).
    m_tree->setItemDelegateForColumn(0, new WrapToColumn(m_tree));
    m_tree->header()->setStretchLastSection(false);
    m_tree->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_tree->header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    m_tree->header()->setSectionResizeMode(2, QHeaderView::ResizeToContents);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_groupBy);
    layout->addWidget(m_filterEdit);
    layout->addWidget(m_header);
    layout->addWidget(m_tree, 1);
    connect(m_groupBy, QOverload<int>::of(&QComboBox::currentIndexChanged), this,
        [this](int i) { setGroupBy(GroupBy(i)); });
    connect(m_filterEdit, &QLineEdit::textChanged, this, &MemoryBreakdown::setFilter);
    rebuild();
}

void MemoryBreakdown::setSimulation(std::shared_ptr<const engine::runtime::Simulation> sim)
{
    m_sim = std::move(sim);
    m_pools.reset();
    rebuild();
}

void MemoryBreakdown::setMemory(std::shared_ptr<const std::vector<engine::runtime::PoolSnapshot>> pools)
{
    m_pools = std::move(pools);
    rebuild();
}

void MemoryBreakdown::setGroupBy(GroupBy by)
{
    const bool changed = by != m_by;
    m_by = by;
    if (m_groupBy->currentIndex() != int(by))
        m_groupBy->setCurrentIndex(int(by));
    rebuild();
    if (changed)
        emit groupByChanged(by);
}

void MemoryBreakdown::setFilter(const QString& text)
{
    if (text == m_filter)
        return;
    m_filter = text;
    if (m_filterEdit->text() != text)
        m_filterEdit->setText(text);
    rebuild();
    emit filterChanged(text);
}

void MemoryBreakdown::rebuild()
{
    m_rows.clear();
    m_total = 0;
    m_tree->clear();
    if (!m_pools || !m_sim) {
        m_header->setText("No memory shown.");
        return;
    }
    std::map<QString, Row> groups;
    uint64_t allocated = 0;
    for (const auto& pool : *m_pools)
        for (const auto& seg : pool.segments)
            for (const auto& b : seg.blocks) {
                if (!b.allocated)
                    continue;
                allocated += b.size;
                const engine::runtime::OwnerInfo* o
                    = b.owner != engine::memory::kNoOwner && size_t(b.owner) < m_sim->owners.size()
                    ? &m_sim->owners[size_t(b.owner)]
                    : nullptr;
                if (!m_filter.isEmpty() && (!o || !ownerMatches(*o, m_filter)))
                    continue;
                QString name;
                if (!o)
                    name = "no owner (re-created by a rollback)";
                else if (m_by == GroupBy::Category)
                    name = o->category.empty() ? QString(engine::runtime::ownerKindName(o->kind))
                                               : QString::fromStdString(o->category);
                else if (m_by == GroupBy::Owner)
                    name = !o->graph.empty() ? QString::fromStdString(o->graph)
                        : !o->category.empty() ? QString::fromStdString(o->category)
                                               : QString(engine::runtime::ownerKindName(o->kind));
                else
                    name = o->tensor.empty() ? QString("unknown site") : QString::fromStdString(o->tensor);
                Row& r = groups[name];
                r.name = name;
                r.bytes += b.size;
                ++r.blocks;
                m_total += b.size;
            }
    for (auto& [name, row] : groups)
        m_rows.push_back(row);
    std::sort(m_rows.begin(), m_rows.end(), [](const Row& a, const Row& b) {
        return a.bytes != b.bytes ? a.bytes > b.bytes : a.name < b.name;
    });
    m_header->setText(m_filter.isEmpty()
            ? QString("%1 allocated at this step").arg(formatBytes(allocated))
            : QString("%1 of %2 allocated match “%3”").arg(formatBytes(m_total), formatBytes(allocated), m_filter));
    for (const Row& r : m_rows) {
        auto* item = new QTreeWidgetItem(m_tree);
        item->setText(0, r.name);
        item->setToolTip(0, QString("%1\n%2 in %3 block%4").arg(r.name, formatBytes(r.bytes)).arg(r.blocks).arg(r.blocks == 1 ? "" : "s"));
        item->setText(1, formatBytes(r.bytes));
        item->setTextAlignment(1, Qt::AlignRight | Qt::AlignVCenter);
        item->setText(2, allocated ? QString("%1%").arg(100.0 * double(r.bytes) / double(allocated), 0, 'f', 1) : "-");
        item->setTextAlignment(2, Qt::AlignRight | Qt::AlignVCenter);
        if (m_by == GroupBy::Category) { // the colour its blocks have in a recording
            QPixmap swatch(10, 10);
            swatch.fill(m_sim->origin.kind == engine::runtime::RunOriginKind::Recorded
                    ? recordedCategoryColor(r.name.toStdString())
                    : QColor(0xb0, 0xb0, 0xb0));
            item->setIcon(0, QIcon(swatch));
        }
    }
}

} // namespace gui
