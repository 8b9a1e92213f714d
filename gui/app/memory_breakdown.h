#pragma once
/// Beside the Memory view: the memory shown, broken down (issue 18, "why is the peak where it is").
/// The allocated bytes of the step shown, grouped by what owns them: by category (a recording's
/// graph tensor / warm-up / autotuning / library workspace ..., or a simulation's owner kinds), by
/// owner (a recording, a warm-up, a capture, a graph's tensors), or by allocation site (the
/// first useful frame); largest first, with the share of the allocated total. A filter box keeps
/// the owners whose name, site or stack holds its text (search by frame), and tells the Memory view
/// to mark their blocks. Computed from the pools given, so it is always the step shown.
#include "engine/runtime/simulator.h"

#include <QWidget>
#include <memory>
#include <vector>

class QComboBox;
class QLabel;
class QLineEdit;
class QTreeWidget;

namespace gui {

class MemoryBreakdown : public QWidget {
    Q_OBJECT
public:
    enum class GroupBy { Category, Owner, Site };

    explicit MemoryBreakdown(QWidget* parent = nullptr);

    void setSimulation(std::shared_ptr<const engine::runtime::Simulation> sim);
    /// The pools of the step shown (nullptr: nothing shown).
    void setMemory(std::shared_ptr<const std::vector<engine::runtime::PoolSnapshot>> pools);
    void setGroupBy(GroupBy by);
    void setFilter(const QString& text);

    struct Row {
        QString name;
        uint64_t bytes = 0;
        int blocks = 0;
    };
    /// The rows shown, largest first (for tests).
    const std::vector<Row>& rows() const { return m_rows; }
    /// Allocated bytes of the blocks the filter keeps (all of them without a filter).
    uint64_t total() const { return m_total; }

    QSize sizeHint() const override { return QSize(300, 300); }

signals:
    /// The filter changed: the Memory view marks the blocks whose owner matches (empty: none).
    void filterChanged(const QString& text);
    /// What the rows group by changed.
    void groupByChanged(gui::MemoryBreakdown::GroupBy by);

private:
    void rebuild();

    std::shared_ptr<const engine::runtime::Simulation> m_sim;
    std::shared_ptr<const std::vector<engine::runtime::PoolSnapshot>> m_pools;
    GroupBy m_by = GroupBy::Category;
    QString m_filter;
    std::vector<Row> m_rows;
    uint64_t m_total = 0;
    QComboBox* m_groupBy;
    QLineEdit* m_filterEdit;
    QLabel* m_header;
    QTreeWidget* m_tree;
};

/// Whether `owner` matches a filter text (case-insensitive, in its name, site, graph, category or
/// stack); an empty filter matches everything.
bool ownerMatches(const engine::runtime::OwnerInfo& owner, const QString& filter);

} // namespace gui
