#include "gui/app/project_model.h"

#include <QBrush>
#include <QColor>

namespace gui {

ProjectModel::ProjectModel(QObject* parent)
    : QAbstractItemModel(parent)
{
}

ProjectModel::~ProjectModel() = default;

void ProjectModel::build(Item& item, const storage::OutlineNode& node)
{
    item.kind = QString::fromStdString(node.kind);
    item.label = QString::fromStdString(node.label);
    item.detail = QString::fromStdString(node.detail);
    item.id = node.id;
    item.problem = node.problem;
    item.children.clear();
    item.children.reserve(node.children.size());
    for (const storage::OutlineNode& c : node.children) {
        auto child = std::make_unique<Item>();
        child->parent = &item;
        child->row = int(item.children.size());
        build(*child, c);
        item.children.push_back(std::move(child));
    }
}

void ProjectModel::setOutline(const storage::OutlineNode& outline)
{
    beginResetModel();
    build(m_root, outline);
    endResetModel();
}

ProjectModel::Item* ProjectModel::itemOf(const QModelIndex& index) const
{
    return index.isValid() ? static_cast<Item*>(index.internalPointer()) : const_cast<Item*>(&m_root);
}

QModelIndex ProjectModel::index(int row, int column, const QModelIndex& parent) const
{
    if (column < 0 || column >= 2 || (parent.isValid() && parent.column() != 0))
        return {};
    const Item* p = itemOf(parent);
    if (row < 0 || row >= int(p->children.size()))
        return {};
    return createIndex(row, column, p->children[size_t(row)].get());
}

QModelIndex ProjectModel::parent(const QModelIndex& child) const
{
    if (!child.isValid())
        return {};
    const Item* p = itemOf(child)->parent;
    if (!p || p == &m_root)
        return {};
    return createIndex(p->row, 0, const_cast<Item*>(p));
}

int ProjectModel::rowCount(const QModelIndex& parent) const
{
    if (parent.isValid() && parent.column() != 0)
        return 0;
    return int(itemOf(parent)->children.size());
}

int ProjectModel::columnCount(const QModelIndex&) const
{
    return 2;
}

QVariant ProjectModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid())
        return {};
    const Item* item = itemOf(index);
    switch (role) {
    case Qt::DisplayRole:
        return index.column() == 0 ? item->label : item->detail;
    case Qt::ToolTipRole:
        return item->label + (item->detail.isEmpty() ? QString() : "\n" + item->detail);
    case Qt::ForegroundRole:
        if (item->problem)
            return QBrush(QColor(0xb0, 0x20, 0x20));
        return {};
    case KindRole:
        return item->kind;
    case IdRole:
        return item->id;
    case ProblemRole:
        return item->problem;
    default:
        return {};
    }
}

QVariant ProjectModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    return section == 0 ? QStringLiteral("Name") : QStringLiteral("Detail");
}

QModelIndex ProjectModel::findIn(const Item& item, const QString& kind, qlonglong id) const
{
    for (const auto& c : item.children) {
        if (c->kind == kind && c->id == id)
            return createIndex(c->row, 0, c.get());
        const QModelIndex found = findIn(*c, kind, id);
        if (found.isValid())
            return found;
    }
    return {};
}

QModelIndex ProjectModel::find(const QString& kind, qlonglong id) const
{
    return findIn(m_root, kind, id);
}

} // namespace gui
