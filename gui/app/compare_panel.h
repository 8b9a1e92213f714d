#pragma once
/// The Compare tab: two stored runs of the project side by side (engine::report::compareRuns):
/// configuration, totals, FX graphs, memory per pool and hazards, differing rows in bold on a tint,
/// optionally only those. Runs are listed and read off the UI thread.
#include "engine/report/run_compare.h"
#include "storage/run_store.h"

#include <QAbstractTableModel>
#include <QWidget>
#include <memory>
#include <vector>

class QCheckBox;
class QComboBox;
class QLabel;
class QTableView;

namespace gui {

class ProjectSession;

/// "run N · scenario name · overrides" ("· scenario config" without overrides), as the Compare and
/// Config tabs name a run.
QString runLabel(const storage::RunRow& row, const std::vector<std::string>& overrides);

/// The rows of a RunComparison: columns Section, Metric, A, B. A differing row is bold with a
/// tinted background (Qt::FontRole, Qt::BackgroundRole) and DiffersRole gives it as a bool. With
/// onlyDifferences the other rows are left out.
class ComparisonModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { SectionColumn, MetricColumn, AColumn, BColumn, ColumnCount };
    static constexpr int DiffersRole = Qt::UserRole;
    static constexpr int RowRole = Qt::UserRole + 1; ///< the row's index in comparison()->rows

    explicit ComparisonModel(QObject* parent = nullptr);

    /// Replaces the rows (a reset); null clears them.
    void setComparison(std::shared_ptr<const engine::report::RunComparison> comparison);
    const engine::report::RunComparison* comparison() const { return m_comparison.get(); }
    void setOnlyDifferences(bool only);
    bool onlyDifferences() const { return m_onlyDifferences; }
    /// The table row showing comparison row `row`, -1 when it is not shown.
    int tableRowOf(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    void rebuildRows();

    std::shared_ptr<const engine::report::RunComparison> m_comparison;
    std::vector<int> m_rows; ///< indices into m_comparison->rows shown
    bool m_onlyDifferences = false;
};

class ComparePanel : public QWidget {
    Q_OBJECT
public:
    /// Lists the runs of each project `session` opens, and compares each run it selects.
    explicit ComparePanel(ProjectSession* session, QWidget* parent = nullptr);
    ~ComparePanel() override;

    /// Lists the runs of the session's project in both combo boxes (off the UI thread); runsListed()
    /// follows. The selection is kept where the same runs are still there; else nothing is picked
    /// (each box's first item says to pick a run).
    void setProject();
    /// Lists the project's runs and compares run `runId` (B) with its scenario's base run (A): the
    /// first other run of the same scenario file without settings of its own, else the first other
    /// run of that file. A run with no other run of its file is not compared with an unrelated one:
    /// A stays unpicked and the summary says so.
    void showRun(qlonglong runId);
    /// Compares run `runA` with run `runB` of the session's project (read off the UI thread);
    /// compared() follows, or failed() with the error.
    void compare(qlonglong runA, qlonglong runB);

    ComparisonModel* model() const { return m_model; }
    /// The comparison table (the screenshot driver scrolls it).
    QTableView* view() const { return m_view; }
    QComboBox* runA() const { return m_runA; }
    QComboBox* runB() const { return m_runB; }

signals:
    void runsListed();
    void compared();
    void failed(const QString& message);
    /// A row of the "calls" section was selected (the first that disagrees is, once compared): the
    /// call each run shows there (-1 for none), so the window can step a run to it.
    void callPicked(qlonglong runA, int callA, qlonglong runB, int callB);

private:
    void compareSelected();
    void fitColumns();
    void rowSelected();
    bool eventFilter(QObject* watched, QEvent* event) override;
    void selectRun(QComboBox* combo, qlonglong runId);
    qlonglong m_focusRun = -1; ///< showRun's run, until the list arrives
    qlonglong m_pairA = -1, m_pairB = -1; ///< the runs compare() was last given

    ProjectSession* m_session;
    QComboBox* m_runA;
    QComboBox* m_runB;
    QCheckBox* m_onlyDifferences;
    QLabel* m_summary;
    QLabel* m_error;
    QTableView* m_view;
    ComparisonModel* m_model;
    int m_listGeneration = 0;
    int m_compareGeneration = 0;
};

} // namespace gui
