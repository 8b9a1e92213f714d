#pragma once
/// The Graph tab: one stored graph, grouped and folded (engine/graph/graph_view.h), drawn by
/// GraphViewWidget. Loading (readGraph, the pass reports' rewritten nodes, groupNodes) runs off the
/// UI thread; expanding or collapsing a group (double-click) rebuilds the visible view, which takes
/// milliseconds, and lays it out again off the UI thread.
#include "engine/graph/graph_view.h"

#include <QWidget>
#include <memory>
#include <set>
#include <string>

class QLabel;

namespace gui {

namespace graph {
class GraphViewWidget;
}

class GraphPanel : public QWidget {
    Q_OBJECT
public:
    explicit GraphPanel(QWidget* parent = nullptr);
    ~GraphPanel() override;

    /// Loads graph `graphId` of the project at `dbPath` and shows it folded.
    void showGraph(const QString& dbPath, qlonglong graphId);
    /// Expands the group when it is folded, folds it when it is expanded.
    void toggleGroup(int groupId);

    graph::GraphViewWidget* view() const { return m_view; }
    const engine::view::Grouping* grouping() const { return m_loaded ? &m_loaded->grouping : nullptr; }
    const engine::view::ViewGraph& currentView() const { return m_current; }
    const std::set<int>& expanded() const { return m_expanded; }

signals:
    /// The graph (or the error loading it) is on screen.
    void graphShown();
    /// The node under the selected item (-1 for a group), for the inspector.
    void nodeSelected(int node);

private:
    struct Loaded {
        engine::Graph graph;
        engine::view::Grouping grouping;
        std::set<std::string> rewritten;
        QString title;
        QString error;
    };
    void rebuild();

    QLabel* m_title;
    graph::GraphViewWidget* m_view;
    std::shared_ptr<const Loaded> m_loaded;
    std::set<int> m_expanded;
    engine::view::ViewGraph m_current;
    int m_generation = 0;
};

} // namespace gui
