#pragma once
/// The one owner of the open project and of what is selected in it. The window opens the project
/// here once (one read-only connection, shared by every load: SQLite serialises it); the Project
/// view's pick becomes a selection here; a run is read once (storage::readRun) and a cache entry
/// once, then handed to every view that shows it; the stepper's event is the session's step. The
/// views subscribe to the signals and never open the project themselves, so they stay in step by
/// construction: a view that shows a run shows the session's run, at the session's step.
///
/// Background work has one mechanism, load(): a job on the thread pool that reads through the
/// session's connection, whose result reaches the caller's thread only while it is still the newest
/// job of its kind and the project is still the one it was read from.
#include "storage/cache_store.h"
#include "storage/project_db.h"
#include "storage/run_store.h"

#include <QFutureWatcher>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QtConcurrent>
#include <atomic>
#include <memory>
#include <utility>

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

    /// Makes `kind`/`id` the selection: a run is read (runLoaded follows), a cache entry is read
    /// (cacheEntryLoaded follows); graphs ("graph", "stage", "pass_result") are announced by
    /// graphSelected. Selecting what is already selected does nothing.
    void select(const QString& kind, qlonglong id);
    Selection selection() const { return m_selection; }

    /// The run shown (the last run selected), null before one is read or when reading it failed.
    std::shared_ptr<const storage::StoredRun> run() const { return m_run; }
    qlonglong runId() const { return m_runId; }
    /// Why the last run could not be read; empty when it was.
    QString runError() const { return m_runError; }
    /// Re-reads run `id` and selects it (after a new run was stored, say).
    void reloadRun(qlonglong id);

    /// The current event of the run: -1 before a run is shown. setStep clamps to the run's events
    /// and emits stepChanged when the event changes.
    int step() const { return m_step; }
    void setStep(int event);
    int eventCount() const;

    /// The graph selected last (graphs.id), -1 when none.
    qlonglong graphId() const { return m_graphId; }
    /// The cache entry selected last, null before it is read or when reading it failed.
    std::shared_ptr<const storage::StoredCacheEntry> cacheEntry() const { return m_cacheEntry; }
    QString cacheEntryError() const { return m_cacheEntryError; }
    qlonglong cacheEntryId() const { return m_cacheEntryId; }

    /// Runs `work(storage::Database&)` (returning T) on the thread pool with the session's
    /// connection and calls `done(T)` on `owner`'s thread, unless another load on the same
    /// `generation` counter (a member of `owner`) started since or another project was opened.
    /// With no project open, `work` is not run and nothing follows: `fail(QString)` is called
    /// instead when given.
    template <class T, class Work, class Done> void load(QObject* owner, int& generation, Work work, Done done)
    {
        const int mine = ++generation;
        if (!m_db)
            return;
        const int project = m_projectGeneration;
        auto db = m_db;
        auto* watcher = new QFutureWatcher<T>(owner);
        QPointer<ProjectSession> self(this);
        auto jobs = m_jobs;
        ++*jobs;
        QObject::connect(
            watcher, &QFutureWatcher<T>::finished, owner, [watcher, mine, project, &generation, self, done] {
                T result = watcher->result();
                watcher->deleteLater();
                if (mine == generation && self && self->m_projectGeneration == project)
                    done(std::move(result));
            });
        watcher->setFuture(QtConcurrent::run([db, work, jobs]() -> T {
            struct Done {
                std::atomic<int>& jobs;
                ~Done() { --jobs; }
            } count { *jobs };
            return work(*db);
        }));
    }

    /// Whether a job started by load() is still running (the benches wait for none).
    bool busy() const { return *m_jobs > 0; }

signals:
    /// Another project was opened (or the open failed: error()).
    void projectChanged();
    /// The selection changed (kind, id); what it loads follows in its own signal.
    void selectionChanged(const QString& kind, qlonglong id);
    /// A run is being read (the views may grey what they show).
    void runLoading(qlonglong id);
    /// The run (or the error reading it) is ready: run() / runError(). step() is 0 (or -1 on error)
    /// and stepChanged follows.
    void runLoaded();
    void stepChanged(int event);
    /// A graph was selected in the project (graphs.id).
    void graphSelected(qlonglong graphId);
    /// The cache entry (or the error reading it) is ready: cacheEntry() / cacheEntryError().
    void cacheEntryLoaded();

private:
    void readRun(qlonglong id);

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
    std::shared_ptr<const storage::StoredCacheEntry> m_cacheEntry;
    qlonglong m_cacheEntryId = -1;
    QString m_cacheEntryError;
    int m_cacheGeneration = 0;
    std::shared_ptr<std::atomic<int>> m_jobs = std::make_shared<std::atomic<int>>(0);
};

} // namespace gui
