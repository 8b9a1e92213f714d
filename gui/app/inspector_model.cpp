#include "gui/app/inspector_model.h"

namespace gui {

InspectorModel::InspectorModel(QObject* parent)
    : QAbstractItemModel(parent)
{
}

void InspectorModel::setDetails(const engine::report::Details& details)
{
    beginResetModel();
    // m_items points into m_details: drop the pointers before the rows they point at change.
    m_items.clear();
    m_roots.clear();
    m_details = details;
    addItems(m_details.rows, -1);
    endResetModel();
}

void InspectorModel::clear()
{
    setDetails({});
}

void InspectorModel::addItems(const std::vector<engine::report::Detail>& rows, int parent)
{
    for (size_t i = 0; i < rows.size(); ++i) {
        const int id = int(m_items.size());
        m_items.push_back({ &rows[i], parent, int(i), {} });
        (parent < 0 ? m_roots : m_items[size_t(parent)].children).push_back(id);
        addItems(rows[i].children, id);
    }
}

const InspectorModel::Item* InspectorModel::itemOf(const QModelIndex& index) const
{
    if (!index.isValid() || index.model() != this || index.internalId() >= m_items.size())
        return nullptr;
    return &m_items[size_t(index.internalId())];
}

const engine::report::Detail* InspectorModel::detail(const QModelIndex& index) const
{
    const Item* item = itemOf(index);
    return item ? item->detail : nullptr;
}

QModelIndex InspectorModel::index(int row, int column, const QModelIndex& parent) const
{
    if (column < 0 || column >= ColumnCount || row < 0)
        return {};
    if (parent.isValid() && parent.column() != 0)
        return {};
    const Item* p = itemOf(parent);
    if (parent.isValid() && !p)
        return {};
    const std::vector<int>& rows = p ? p->children : m_roots;
    if (row >= int(rows.size()))
        return {};
    return createIndex(row, column, quintptr(rows[size_t(row)]));
}

QModelIndex InspectorModel::parent(const QModelIndex& child) const
{
    const Item* item = itemOf(child);
    if (!item || item->parent < 0)
        return {};
    const Item& p = m_items[size_t(item->parent)];
    return createIndex(p.row, 0, quintptr(item->parent));
}

int InspectorModel::rowCount(const QModelIndex& parent) const
{
    if (!parent.isValid())
        return int(m_roots.size());
    // Only the first column has children, as QAbstractItemModelTester expects of a tree.
    if (parent.column() != 0)
        return 0;
    const Item* item = itemOf(parent);
    return item ? int(item->children.size()) : 0;
}

int InspectorModel::columnCount(const QModelIndex&) const
{
    return ColumnCount;
}

QVariant InspectorModel::data(const QModelIndex& index, int role) const
{
    const engine::report::Detail* d = detail(index);
    if (!d)
        return {};
    switch (role) {
    case Qt::DisplayRole:
        return QString::fromStdString(index.column() == PropertyColumn ? d->key : d->value);
    case Qt::ToolTipRole:
        return QString::fromStdString(d->value.empty() ? d->key : d->value);
    default:
        return {};
    }
}

QVariant InspectorModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractItemModel::headerData(section, orientation, role);
    static const char* const names[] = { "Property", "Value" };
    return section >= 0 && section < ColumnCount ? QVariant(QString(names[section])) : QVariant();
}

Qt::ItemFlags InspectorModel::flags(const QModelIndex& index) const
{
    if (!itemOf(index))
        return Qt::NoItemFlags;
    return Qt::ItemIsEnabled | Qt::ItemIsSelectable;
}

} // namespace gui
