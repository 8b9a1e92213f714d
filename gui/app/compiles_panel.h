#pragma once
/// The Compiles tab: a TORCH_TRACE's compile ids as tlparse lists them (storage/trace_store.h). A
/// timeline strip (one bar per compile on a time axis, runtime spans such as CUDAGraphNode.record as
/// ticks), a table (rank, compile id, phase, start relative to the first compile of its log, compile
/// seconds, graphs, cache hit or miss, failure, first recompile reason), a filter over ids, reasons,
/// sources, guards and stacks, and the selected compile's details (recompile reasons, sources,
/// symbols with their hints, stack, metrics pretty-printed, guards). Double-clicking a compile opens
/// its graphs (graphActivated). Everything is read off the UI thread.
#include "storage/trace_store.h"

#include <QWidget>
#include <memory>
#include <vector>

class QLabel;
class QLineEdit;
class QSplitter;
class QTableWidget;
class QTextBrowser;

namespace gui {

class CompileTimeline;
class ProjectSession;

class CompilesPanel : public QWidget {
    Q_OBJECT
public:
    /// Lists the trace compiles of each project `session` opens.
    explicit CompilesPanel(ProjectSession* session, QWidget* parent = nullptr);
    ~CompilesPanel() override;

    /// Loads every trace compile of the session's project; shown() follows (also on error).
    void setProject();
    /// Shows only the compiles whose id, group, reasons, failure, sources, symbols, guards or stack
    /// contain `text` (case-insensitive); empty shows all.
    void setFilter(const QString& text);
    /// Selects table row `row` (its details are shown).
    void selectRow(int row);
    /// Opens the graphs of the compile in table row `row` (graphActivated), as a double-click does.
    void activateRow(int row);
    /// Selects the compile that graph `graphId` belongs to (any graph of its group); false when none.
    bool selectCompileOfGraph(qlonglong graphId);

    int compileCount() const { return m_loaded ? int(m_loaded->compiles.size()) : 0; }
    const storage::StoredTraceCompile* compile(int row) const;
    /// The graph a double-click on `row` opens (its AOT graph, else its first stage), 0 when none.
    qlonglong graphOf(int row) const;
    QTableWidget* table() const { return m_table; }
    QTextBrowser* details() const { return m_details; }
    QLineEdit* filter() const { return m_filter; }
    /// The load error, empty when none.
    QString error() const { return m_loaded ? m_loaded->error : QString(); }

signals:
    /// The compiles (or the error reading them) are on screen.
    void shown();
    /// A compile's graph was asked for: the project item of `kind` ("stage") with id `graphId`.
    void graphActivated(const QString& kind, qlonglong graphId);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    void fitReasonColumn();
    void fitSplit();
    struct Loaded {
        std::vector<storage::StoredTraceCompile> compiles;
        std::vector<storage::StoredTraceSpan> spans;
        std::vector<qlonglong> graphIds; ///< per compile: the graph to open, 0 when none
        std::vector<QString> graphKinds; ///< per compile: its project item kind
        std::vector<int> stageCounts; ///< per compile: its graphs in the project
        std::vector<std::vector<qlonglong>> allGraphs; ///< per compile: every graph of its group
        std::vector<QString> haystacks; ///< per compile: what the filter searches, lower case
        QString error;
    };
    void fill();
    void showDetails(int row);
    QString detailsHtml(const storage::StoredTraceCompile& c) const;

    ProjectSession* m_session;
    QLabel* m_title;
    QLineEdit* m_filter;
    CompileTimeline* m_timeline;
    QTableWidget* m_table;
    QTextBrowser* m_details;
    QSplitter* m_split;
    std::shared_ptr<const Loaded> m_loaded;
    int m_generation = 0;
    bool m_userSplit = false; ///< the user moved the splitter: fitSplit leaves it
    qlonglong m_graphShown = 0; ///< the last graph selectCompileOfGraph was given
};

} // namespace gui
