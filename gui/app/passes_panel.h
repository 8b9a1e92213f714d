#pragma once
/// The Passes tab: what our pass pipeline (engine/passes) did to one stored graph. A table of the
/// graph's pass reports (pass, option, enabled, nodes and peak bytes before -> after, counts); the
/// selected pass's changes (rewritten, skipped with TorchAir's reason, removed, added) and its DEBUG
/// lines; and a Diff tab comparing any two stages (the input graph and the pass result graphs) with
/// engine::diffGraphs. The reports and stage graphs are read off the UI thread.
#include "engine/graph/graph.h"
#include "storage/graph_store.h"

#include <QWidget>
#include <memory>
#include <vector>

class QComboBox;
class QLabel;
class QPlainTextEdit;
class QTableWidget;
class QTabWidget;
class QTreeWidget;

namespace gui {

class ProjectSession;

class PassesPanel : public QWidget {
    Q_OBJECT
public:
    /// Lists the pass reports of each graph `session` reads (the Project view's pick).
    explicit PassesPanel(ProjectSession* session, QWidget* parent = nullptr);
    ~PassesPanel() override;

    /// Lists the pass reports and stages of the session's graph; shown() follows (also on error,
    /// or when the graph has no reports: the title says so).
    void showPasses();
    /// Selects pass report `row` (its changes and log lines are listed).
    void selectPass(int row);
    /// Compares stage `from` with stage `to` (indices into the Diff tab's combo boxes: 0 is the
    /// input graph, then the passes that produced a result graph).
    void compareStages(int from, int to);

    QTableWidget* passTable() const { return m_table; }
    QTreeWidget* changes() const { return m_changes; }
    QPlainTextEdit* passLog() const { return m_log; }
    QTreeWidget* diffTree() const { return m_diff; }
    int stageCount() const { return m_loaded ? int(m_loaded->stages.size()) : 0; }
    QTabWidget* tabs() const { return m_tabs; }

signals:
    /// The reports (or the error reading them) are on screen.
    void shown();

private:
    struct Stage {
        QString label;
        std::shared_ptr<const engine::Graph> graph; ///< null when it could not be read
        QString error;
    };
    struct Loaded {
        std::vector<storage::StoredPassReport> reports;
        std::vector<Stage> stages;
        QString title;
        QString error;
    };
    void fill();
    void fitPassColumn();
    bool eventFilter(QObject* watched, QEvent* event) override;

    ProjectSession* m_session;
    QLabel* m_title;
    QTabWidget* m_tabs;
    QTableWidget* m_table;
    QTreeWidget* m_changes;
    QPlainTextEdit* m_log;
    QComboBox* m_from;
    QComboBox* m_to;
    QLabel* m_diffSummary;
    QTreeWidget* m_diff;
    std::shared_ptr<const Loaded> m_loaded;
    int m_generation = 0;
    int m_passWidth = 0; ///< the pass column's width with each name on one line
};

} // namespace gui
