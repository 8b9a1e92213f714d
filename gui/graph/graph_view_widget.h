#pragma once
/// The graph view: a search box and status line above a pannable, zoomable canvas with a minimap
/// in its corner, and a legend strip under it that lists each colour the drawn view uses and what
/// it means (the "Legend" button hides it). setView() lays the view out off the UI thread (or takes
/// it from the cache) and shows it when ready; the UI never waits for Graphviz.
#include "engine/graph/graph_view.h"
#include "gui/graph/graph_layout.h"

#include <QColor>
#include <QString>
#include <QWidget>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

class QLabel;
class QLineEdit;
class QProgressBar;
class QToolButton;

namespace gui::graph {

class AsyncLayout;
class GraphScene;
class LegendStrip;
class MiniMap;
class ZoomView;

/// Shows one ViewGraph at a time. Signals are the scene's (GraphScene::itemSelected,
/// GraphScene::groupActivated), reachable through scene().
class GraphViewWidget : public QWidget {
    Q_OBJECT
public:
    explicit GraphViewWidget(QWidget* parent = nullptr);
    ~GraphViewWidget() override;

    /// Shows `view`: requests its layout (status "laying out…" until it arrives) and replaces the
    /// scene when it does. A later setView() supersedes one still laying out.
    void setView(const engine::view::ViewGraph& view);
    /// Fits everything drawn into the canvas (never past 1x); fine on an empty scene.
    void fitAll();
    /// The first view of a graph: whole when legible, else its top at a legible zoom.
    void showTop();
    /// Finds the next item whose name or detail contains `text` (case-insensitive), after the last
    /// match of the same text; selects it, centres it and emits the scene's itemSelected. Returns
    /// its ViewItem index, -1 when nothing matches.
    int findNext(const QString& text);
    /// Selects ViewItem `viewItemIndex` and centres it; emits the scene's itemSelected when `notify`.
    void reveal(int viewItemIndex, bool notify);
    /// Enter in the search box calls `finder` with the text instead of findNext(): the owner, who
    /// knows the whole graph, searches folded nodes too. An empty function goes back to findNext().
    void setFinder(std::function<void(const QString&)> finder);
    /// Replaces the status line's text (until the next layout or search).
    void setStatusText(const QString& text);

    /// One line of the legend strip.
    struct LegendLine {
        QString label;
        QColor color;
        bool outline = false; ///< drawn as a box's outline or badge, not its fill
    };
    /// What the outlines set with GraphScene::mark mean (colour, meaning), for the legend.
    void setMarkLegend(const std::vector<LegendLine>& lines);
    /// The legend as drawn: one line per colour the view on screen uses (node kinds present, folded
    /// groups, rewritten nodes, the selection, the owner's marks present).
    const std::vector<LegendLine>& legendLines() const { return m_legendLines; }
    bool legendVisible() const;
    GraphScene* scene() const { return m_scene; }
    ZoomView* canvas() const { return m_canvas; }
    AsyncLayout* layouter() const { return m_layout; }
    QString statusText() const;
    /// Stops waiting for the layout under way (Graphviz finishes it on its worker, and the result
    /// is kept in the cache but not shown): the scene keeps what it showed, and layoutCancelled()
    /// lets the owner go back to that view.
    void cancelLayout();

signals:
    /// The requested view is on screen (or its layout failed and the status line says why).
    void viewShown();
    /// The user (or cancelLayout) stopped waiting for a layout; the scene still shows the last view.
    void layoutCancelled();

protected:
    void resizeEvent(QResizeEvent* event) override;
    void showEvent(QShowEvent* event) override;

private:
    void onLayoutReady(const QString& key, std::shared_ptr<const LayoutResult> layout);
    void onLayoutFailed(const QString& key, const QString& message);
    void placeMiniMap();
    void updateLegend();

    GraphScene* m_scene;
    ZoomView* m_canvas;
    MiniMap* m_minimap;
    QLineEdit* m_search;
    QLabel* m_status;
    QProgressBar* m_busy; ///< indeterminate while Graphviz works
    QToolButton* m_cancel;
    QToolButton* m_legendToggle;
    LegendStrip* m_legend;
    std::vector<LegendLine> m_markLegend;
    std::vector<LegendLine> m_legendLines;
    std::function<void(const QString&)> m_finder;
    AsyncLayout* m_layout;
    engine::view::ViewGraph m_pending; ///< the view last asked for
    bool m_fitOnShow = true; ///< fit when the first layout of a new graph arrives
    QString m_lastQuery;
    int m_lastMatch = -1;
};

} // namespace gui::graph
