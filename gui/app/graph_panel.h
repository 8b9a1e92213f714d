#pragma once
/// The Graph tab: one stored graph, grouped and folded (engine/graph/graph_view.h), drawn by
/// GraphViewWidget. Loading (readGraph, the pass reports' rewritten nodes, groupNodes) runs off the
/// UI thread; expanding or collapsing a group (double-click) rebuilds the visible view, which takes
/// milliseconds, and lays it out again off the UI thread.
///
/// The stepper drives it (followEvent): the event's FX graph is shown (loaded when another one is)
/// and the nodes the event concerns are outlined by role (engine/runtime/event_focus.h): copied
/// inputs orange, kept inputs grey, returned outputs green, rebuilt outputs brown, hazards red
/// (gui/graph/graph_palette.h, where each colour has one meaning). A node inside a folded group
/// outlines the group. "Follow the stepper" turns this off.
///
/// Find (the search box) searches every node of the graph by name and target, folded or not: a
/// match inside a fold opens the folds around it, and is selected and centred.
#include "engine/graph/graph_view.h"
#include "engine/runtime/event_focus.h"

#include <QColor>
#include <QWidget>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

class QCheckBox;
class QLabel;

namespace storage {
struct StoredRun;
}

namespace gui {

namespace graph {
class GraphViewWidget;
}

class ProjectSession;

class GraphPanel : public QWidget {
    Q_OBJECT
public:
    /// Shows the graph `session` reads (picked in the Project view, or the stepper's), folded.
    explicit GraphPanel(ProjectSession* session, QWidget* parent = nullptr);
    ~GraphPanel() override;

    /// Shows graph `graphId` of the session's project, folded, without outlines.
    void showGraph(qlonglong graphId);
    /// Expands the group when it is folded, folds it when it is expanded.
    void toggleGroup(int groupId);
    /// Opens every fold (the whole graph, node by node: zoomed out, boxes are drawn without text,
    /// at their colour) or, with `open` false, folds the repeated layers again as the graph opened.
    void setAllFoldsOpen(bool open);
    /// Shows the FX graph event `event` of `run` belongs to and outlines the nodes it concerns.
    /// Does nothing while following is off, or for run-level events; a graph that was not imported
    /// leaves the view as it is and says so.
    void followEvent(std::shared_ptr<const storage::StoredRun> run, int event);
    /// Shows graph `graphId` (when another is shown) and selects its node `name`, expanding the
    /// groups around it and centring it; emits nodeSelected when `notify`. False when it is not in
    /// the graph.
    bool selectNode(qlonglong graphId, const QString& name, bool notify = true);
    void setFollowing(bool on);
    bool following() const;
    /// Goes to the next node whose name or target contains `text` (case-insensitive), after the last
    /// match of the same text: opens the groups around it, selects and centres it, emits
    /// nodeSelected, and says "3 of 12 (inside layers 0-31 (x32) › layer 2)" in the status line.
    /// Returns the node, -1 when nothing matches.
    int findNode(const QString& text);
    /// The line above the graph: "decode · 877 nodes · 32 repeated layers folded (found from node
    /// names l0_, l1_ …)".
    QString headerText() const;

    /// The graph shown (nullptr while none is), its project id (-1) and the passes that rewrote
    /// each node, by name.
    const engine::Graph* graph() const { return m_loaded ? &m_loaded->graph : nullptr; }
    qlonglong graphId() const { return m_graphId; }
    std::vector<std::string> rewrittenBy(int node) const;
    /// What the outlines show now (nodes and roles) and the line above the view that says it.
    const std::vector<engine::runtime::FocusNode>& focus() const { return m_focus; }
    QString focusText() const;
    /// The outline colour of a focus role.
    static QColor focusColor(engine::runtime::FocusRole role);

    graph::GraphViewWidget* view() const { return m_view; }
    const engine::view::Grouping* grouping() const { return m_loaded ? &m_loaded->grouping : nullptr; }
    const engine::view::ViewGraph& currentView() const { return m_current; }
    const std::set<int>& expanded() const { return m_expanded; }

signals:
    /// The graph (or the error loading it) is on screen.
    void graphShown();
    /// The node under the selected item (-1 for a group), for the inspector.
    void nodeSelected(int node);
    /// The outlines changed (followEvent, or a new graph arrived for a pending one).
    void focusChanged();

private:
    struct Loaded {
        engine::Graph graph;
        engine::view::Grouping grouping;
        std::map<std::string, std::vector<std::string>> rewrittenBy; ///< node name -> passes
        std::set<std::string> rewritten; ///< the same names, for buildView
        engine::view::ViewGraph folded; ///< the first view, every group folded (gui::graph::foldGraph)
        QString title;
        QString error;
    };
    /// What to do once the graph being loaded is on screen.
    struct Pending {
        std::shared_ptr<const storage::StoredRun> run;
        int event = -1;
        QString selectName;
    };
    void rebuild();
    void onViewShown();
    void applyFocus();
    void applyMarks();
    /// Expands the groups around node `name` and marks it to be selected; true when any opened.
    bool openAround(const QString& name);
    void subscribe();
    void loadGraph(qlonglong graphId);
    /// Folds the session's graph off the UI thread and shows it.
    void foldLoaded();
    /// The title line from the graph on screen (headerText), unless loading it failed.
    void applyTitle();

    ProjectSession* m_session;
    QLabel* m_title;
    QLabel* m_focusLine;
    QCheckBox* m_follow;
    graph::GraphViewWidget* m_view;
    std::shared_ptr<const Loaded> m_loaded;
    qlonglong m_graphId = -1; ///< shown or being loaded
    std::set<int> m_expanded;
    std::set<int> m_shownExpanded; ///< m_expanded of the view on screen (a cancelled layout goes back)
    qlonglong m_shownGraphId = -1; ///< the graph whose view is on screen
    engine::view::ViewGraph m_current;
    Pending m_pending;
    std::vector<engine::runtime::FocusNode> m_focus;
    QString m_focusText;
    int m_selectNode = -1; ///< to select once the rebuilt view is on screen
    bool m_selectNotify = true;
    int m_generation = 0;
    int m_revealGroup = -1; ///< the group last opened or folded: kept in sight once redrawn
    QString m_findQuery; ///< Find's last text and its matches (node indices, graph order)
    std::vector<int> m_findMatches;
    int m_findPos = -1;
    QString m_findStatus; ///< shown once the view with the match is on screen
};

} // namespace gui
