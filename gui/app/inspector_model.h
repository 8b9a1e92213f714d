#pragma once
/// The Inspector's data: an engine::report::Details tree as a two-column tree model (Property,
/// Value). The model keeps its own copy of the Details and replaces it whole (a reset), as the other
/// panels swap in immutable results; it is read-only.
#include "engine/report/details.h"

#include <QAbstractItemModel>
#include <vector>

namespace gui {

class InspectorModel : public QAbstractItemModel {
    Q_OBJECT
public:
    enum Column { PropertyColumn, ValueColumn, ColumnCount };

    explicit InspectorModel(QObject* parent = nullptr);

    /// Replaces the tree (beginResetModel / endResetModel).
    void setDetails(const engine::report::Details& details);
    /// An empty tree (no kind, no title, no rows).
    void clear();
    const engine::report::Details& details() const { return m_details; }
    /// The row behind `index`, null for the root or an index of another model.
    const engine::report::Detail* detail(const QModelIndex& index) const;

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    /// DisplayRole: the key (column 0) or the value (column 1). ToolTipRole: the full value on both
    /// columns (the key for rows without a value), since the view elides long values.
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;

private:
    /// One row of the tree, flattened so that an index's internalId is its position here.
    struct Item {
        const engine::report::Detail* detail = nullptr;
        int parent = -1; ///< item index, -1 for top-level rows
        int row = 0; ///< position among its parent's children
        std::vector<int> children; ///< item indices
    };
    void addItems(const std::vector<engine::report::Detail>& rows, int parent);
    const Item* itemOf(const QModelIndex& index) const;

    engine::report::Details m_details;
    std::vector<Item> m_items; ///< points into m_details
    std::vector<int> m_roots; ///< item indices of the top-level rows
};

} // namespace gui
