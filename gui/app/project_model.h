#pragma once
/// The Project view's model: the project outline (storage/project_outline.h) as a two-column tree
/// (name, detail). It holds a copy of the outline; ProjectWindow reloads it off the UI thread after
/// an import or a stored run and hands the new outline in with setOutline().
#include "storage/project_outline.h"

#include <QAbstractItemModel>
#include <memory>
#include <vector>

namespace gui {

class ProjectModel : public QAbstractItemModel {
    Q_OBJECT
public:
    enum Role {
        KindRole = Qt::UserRole + 1, ///< OutlineNode::kind ("graph", "cache_entry", "run", ...)
        IdRole, ///< OutlineNode::id (qlonglong): the row in its table
        ProblemRole, ///< bool: shown in the error colour
    };

    explicit ProjectModel(QObject* parent = nullptr);
    ~ProjectModel() override;

    /// Replaces the whole tree (a model reset).
    void setOutline(const storage::OutlineNode& outline);
    /// The first item of `kind` with `id`, or an invalid index.
    QModelIndex find(const QString& kind, qlonglong id) const;

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Item {
        QString kind, label, detail;
        qlonglong id = 0;
        bool problem = false;
        Item* parent = nullptr;
        int row = 0;
        std::vector<std::unique_ptr<Item>> children;
    };
    static void build(Item& item, const storage::OutlineNode& node);
    Item* itemOf(const QModelIndex& index) const;
    QModelIndex findIn(const Item& item, const QString& kind, qlonglong id) const;

    Item m_root; ///< the project node; its children are the sections
};

} // namespace gui
