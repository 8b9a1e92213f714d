#include "gui/app/project_session.h"

#include <QTimer>
#include <algorithm>

namespace gui {

namespace {

/// What was read, to share with every view, or why it could not be.
template <class T> using Shared = std::pair<std::shared_ptr<const T>, QString>;
template <class T> Shared<T> shared(storage::Result<T> read)
{
    if (!read)
        return { nullptr, QString::fromStdString(read.error().toString()) };
    return { std::make_shared<const T>(std::move(read.value())), {} };
}

} // namespace

ProjectSession::ProjectSession(QObject* parent)
    : QObject(parent)
{
}

ProjectSession::~ProjectSession() = default;

QString ProjectSession::noProject() const
{
    return m_error.isEmpty() ? QString("no project is open") : m_error;
}

template <class F> void ProjectSession::later(int& generation, F f)
{
    // As a load would: after the caller returns, unless something newer was asked for meanwhile.
    const int mine = generation;
    const int project = m_projectGeneration;
    QTimer::singleShot(0, this, [this, &generation, mine, project, f] {
        if (generation == mine && m_projectGeneration == project)
            f();
    });
}

void ProjectSession::open(const QString& path)
{
    ++m_projectGeneration;
    m_path = path;
    m_error.clear();
    m_db.reset();
    m_selection = {};
    m_run.reset();
    m_runId = -1;
    m_runError.clear();
    m_step = -1;
    m_graphId = -1;
    m_graph.reset();
    m_recentGraphs.clear();
    m_cacheEntry.reset();
    m_cacheEntryId = -1;
    m_cacheEntryError.clear();
    if (!path.isEmpty()) {
        storage::Database::OpenOptions options;
        options.readOnly = true;
        options.create = false;
        options.quickCheckMaxBytes = 0; // the window checked the project when it opened it
        options.sharedAcrossThreads = true;
        auto db = storage::openProject(path.toStdString(), options);
        if (db)
            m_db = std::make_shared<storage::Database>(std::move(db.value()));
        else
            m_error = QString::fromStdString(db.error().toString());
    }
    emit projectChanged();
}

void ProjectSession::select(const QString& kind, qlonglong id)
{
    const Selection next { kind, id };
    if (next == m_selection)
        return;
    m_selection = next;
    emit selectionChanged(kind, id);
    if (kind == "run") {
        readRun(id);
    } else if (kind == "graph" || kind == "stage" || kind == "pass_result") {
        showGraph(id);
    } else if (kind == "cache_entry") {
        m_cacheEntryId = id;
        m_cacheEntry.reset();
        m_cacheEntryError.clear();
        using Loaded = Shared<storage::StoredCacheEntry>;
        load<Loaded>(
            this, m_cacheGeneration, [id](storage::Database& db) { return shared(storage::readCacheEntry(db, id)); },
            [this](Loaded loaded) {
                m_cacheEntry = std::move(loaded.first);
                m_cacheEntryError = loaded.second;
                emit cacheEntryLoaded();
            });
        if (!m_db)
            later(m_cacheGeneration, [this] {
                m_cacheEntryError = noProject();
                emit cacheEntryLoaded();
            });
    }
}

void ProjectSession::showGraph(qlonglong id)
{
    if (id == m_graphId)
        return; // read already (graphLoaded came), or being read (it comes)
    m_graphId = id;
    m_graph.reset();
    emit graphLoading(id);
    using Ptr = std::shared_ptr<const StoredGraph>;
    // Stepping a run goes back and forth between its graphs (prompt, decode, ...): the last few read
    // are kept, and come back as a read would, after the caller returns.
    const auto recent
        = std::find_if(m_recentGraphs.begin(), m_recentGraphs.end(), [id](const Ptr& g) { return g->id == id; });
    if (recent != m_recentGraphs.end()) {
        Ptr hit = *recent;
        m_recentGraphs.erase(recent);
        m_recentGraphs.insert(m_recentGraphs.begin(), hit);
        ++m_graphGeneration; // drops a read still under way
        later(m_graphGeneration, [this, hit] {
            m_graph = hit;
            emit graphLoaded();
        });
        return;
    }
    load<Ptr>(
        this, m_graphGeneration,
        [id](storage::Database& db) -> Ptr {
            auto out = std::make_shared<StoredGraph>();
            out->id = id;
            auto g = storage::readGraph(db, id);
            if (!g) {
                out->error = QString::fromStdString(g.error().toString());
                return out;
            }
            out->graph = std::make_shared<const engine::Graph>(std::move(g.value()));
            if (auto reports = storage::readPassReports(db, id))
                out->reports = std::move(reports.value());
            else
                out->error = QString::fromStdString(reports.error().toString());
            return out;
        },
        [this](Ptr loaded) {
            m_graph = std::move(loaded);
            if (m_graph->graph && m_graph->error.isEmpty()) {
                m_recentGraphs.insert(m_recentGraphs.begin(), m_graph);
                if (m_recentGraphs.size() > kRecentGraphs)
                    m_recentGraphs.pop_back();
            }
            emit graphLoaded();
        });
    if (!m_db)
        later(m_graphGeneration, [this, id] {
            auto out = std::make_shared<StoredGraph>();
            out->id = id;
            out->error = noProject();
            m_graph = out;
            emit graphLoaded();
        });
}

void ProjectSession::readRun(qlonglong id)
{
    m_runId = id;
    emit runLoading(id);
    using Loaded = Shared<storage::StoredRun>;
    load<Loaded>(
        this, m_runGeneration, [id](storage::Database& db) { return shared(storage::readRun(db, id)); },
        [this](Loaded loaded) {
            m_run = std::move(loaded.first);
            m_runError = loaded.second;
            m_step = m_run && !m_run->sim.events.empty() ? 0 : -1;
            emit runLoaded();
            emit stepChanged(m_step);
        });
    if (!m_db)
        later(m_runGeneration, [this] {
            m_run.reset();
            m_runError = noProject();
            m_step = -1;
            emit runLoaded();
        });
}

int ProjectSession::eventCount() const
{
    return m_run ? int(m_run->sim.events.size()) : 0;
}

void ProjectSession::setStep(int event)
{
    const int n = eventCount();
    if (n == 0)
        return;
    event = std::clamp(event, 0, n - 1);
    if (event == m_step)
        return;
    m_step = event;
    emit stepChanged(event);
}

} // namespace gui
