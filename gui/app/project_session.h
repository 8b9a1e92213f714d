#pragma once
/// The one owner of the open project and of what is selected in it. The window opens the project
/// here once (one read-only connection, shared by every load: SQLite serialises it); the Project
/// view's pick becomes a selection here; a run is read once (storage::readRun) and a cache entry
/// once, then handed to every view that shows it; the stepper's event is the session's step. The
/// views subscribe to the signals and never open the project themselves, so they stay in step by
/// construction: a view that shows a run shows the session's run, at the session's step.
///
/// Background work has one mechanism, loadLatest (gui/app/panel_loader.h): a job on the thread pool
/// whose result reaches the caller's thread only while it is still the newest job of its kind.
/// load() is that job reading through the session's connection, dropped as well when another
/// project was opened since.
#include "gui/app/panel_loader.h"
#include "storage/cache_store.h"
#include "storage/graph_store.h"
#include "storage/project_db.h"
#include "storage/run_store.h"

#include <QObject>
#include <QPointer>
#include <QString>
#include <memory>
#include <utility>
#include <vector>

namespace gui {

class ProjectSession : public QObject {
    Q_OBJECT
public:
    /// What is selected: the Project view's item kinds ("run", "graph", "stage", "pass_result",
    /// "cache_entry", ...), or none.
    struct Selection {
        QString kind;
        qlonglong id = -1;
        bool operator==(const Selection& o) const { return kind == o.kind && id == o.id; }
        bool operator!=(const Selection& o) const { return !(*this == o); }
    };

    explicit ProjectSession(QObject* parent = nullptr);
    ~ProjectSession() override;

    /// Opens the project at `path` read-only (not created; quick_check is the window's business)
    /// and drops the selection, the run and the cache entry of the previous one. projectChanged
    /// follows, also when it failed (error() then says why and db() is null).
    void open(const QString& path);
    QString path() const { return m_path; }
    /// The shared read-only connection; null when no project is open.
    std::shared_ptr<storage::Database> db() const { return m_db; }
    QString error() const { return m_error; }
    /// Bumped by each open(): a load started on an older project is dropped.
    int projectGeneration() const { return m_projectGeneration; }

    /// The project's content changed (an import, a new run): contentChanged follows, for the views
    /// that list what the project holds. What is selected stays as it was read.
    void refresh()
    {
        m_recentGraphs.clear(); // the project changed: read graphs again rather than trust a copy
        emit contentChanged();
    }

    /// Makes `kind`/`id` the selection: a run is read (runLoaded follows), a cache entry is read
    /// (cacheEntryLoaded follows), a graph ("graph", "stage", "pass_result") is read with its pass
    /// reports (graphLoaded follows). Selecting what is already selected does nothing.
    void select(const QString& kind, qlonglong id);
    Selection selection() const { return m_selection; }

    /// The run shown (the last run selected), null before one is read or when reading it failed.
    std::shared_ptr<const storage::StoredRun> run() const { return m_run; }
    qlonglong runId() const { return m_runId; }
    /// Why the last run could not be read; empty when it was.
    QString runError() const { return m_runError; }

    /// The current event of the run: -1 before a run is shown. setStep clamps to the run's events
    /// and emits stepChanged when the event changes.
    int step() const { return m_step; }
    void setStep(int event);
    int eventCount() const;

    /// A graph as read once for every view that shows it: the graph and its pass reports.
    struct StoredGraph {
        qlonglong id = -1;
        std::shared_ptr<const engine::Graph> graph; ///< null when it could not be read
        std::vector<storage::StoredPassReport> reports;
        QString error;
    };
    /// The graph selected last (graphs.id), -1 when none.
    qlonglong graphId() const { return m_graphId; }
    /// The graph selected last, null before it is read.
    std::shared_ptr<const StoredGraph> graph() const { return m_graph; }
    /// Reads graph `id` (a graph of the selected run, say) without changing the selection: the
    /// Graph view follows the stepper into it. graphLoaded follows; selecting it later reuses it.
    void showGraph(qlonglong id);
    /// The cache entry selected last, null before it is read or when reading it failed.
    std::shared_ptr<const storage::StoredCacheEntry> cacheEntry() const { return m_cacheEntry; }
    QString cacheEntryError() const { return m_cacheEntryError; }
    qlonglong cacheEntryId() const { return m_cacheEntryId; }

    /// Runs `work(storage::Database&)` (returning T) on the thread pool with the session's
    /// connection and calls `done(T)` on `owner`'s thread, unless another load on the same
    /// `generation` counter (a member of `owner`) started since or another project was opened.
    /// With no project open, `work` is not run and nothing follows.
    template <class T, class Work, class Done> void load(QObject* owner, int& generation, Work work, Done done)
    {
        if (!m_db) {
            ++generation; // drops a load of the project before
            return;
        }
        const int project = m_projectGeneration;
        QPointer<ProjectSession> self(this);
        loadLatest<T>(
            owner, generation, [db = m_db, work]() -> T { return work(*db); },
            [self, project, done](T result) {
                if (self && self->m_projectGeneration == project)
                    done(std::move(result));
            });
    }

signals:
    /// Another project was opened (or the open failed: error()).
    void projectChanged();
    /// The open project holds more than before (refresh()).
    void contentChanged();
    /// The selection changed (kind, id); what it loads follows in its own signal.
    void selectionChanged(const QString& kind, qlonglong id);
    /// A run is being read (the views may grey what they show).
    void runLoading(qlonglong id);
    /// The run (or the error reading it) is ready: run() / runError(). step() is 0 (or -1 on error)
    /// and stepChanged follows.
    void runLoaded();
    void stepChanged(int event);
    /// A graph is being read (graphs.id): selected in the project, or shown for the stepper.
    void graphLoading(qlonglong graphId);
    /// The graph (or the error reading it) is ready: graph().
    void graphLoaded();
    /// The cache entry (or the error reading it) is ready: cacheEntry() / cacheEntryError().
    void cacheEntryLoaded();

private:
    void readRun(qlonglong id);
    /// Why nothing can be read: the open's error, or that no project is open.
    QString noProject() const;
    /// Runs `f` on this thread after the caller returns, unless `generation` moved on meanwhile:
    /// what a failed load reports, in the order a load would.
    template <class F> void later(int& generation, F f);

    QString m_path;
    QString m_error;
    std::shared_ptr<storage::Database> m_db;
    int m_projectGeneration = 0;
    Selection m_selection;
    std::shared_ptr<const storage::StoredRun> m_run;
    qlonglong m_runId = -1;
    QString m_runError;
    int m_step = -1;
    int m_runGeneration = 0;
    qlonglong m_graphId = -1;
    std::shared_ptr<const StoredGraph> m_graph;
    int m_graphGeneration = 0;
    /// The graphs read last, newest first, at most kRecentGraphs (a run's prompt and decode graphs
    /// and a few more): showGraph() gives them back without reading the project again.
    static constexpr size_t kRecentGraphs = 4;
    std::vector<std::shared_ptr<const StoredGraph>> m_recentGraphs;
    std::shared_ptr<const storage::StoredCacheEntry> m_cacheEntry;
    qlonglong m_cacheEntryId = -1;
    QString m_cacheEntryError;
    int m_cacheGeneration = 0;
};

} // namespace gui
