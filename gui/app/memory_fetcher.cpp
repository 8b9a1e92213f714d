#include "gui/app/memory_fetcher.h"

#include "storage/run_store.h"
#include "storage/sqlite.h"

#include <QFutureWatcher>
#include <QtConcurrent>

namespace gui {

MemoryFetcher::MemoryFetcher(QObject* parent)
    : QObject(parent)
{
    qRegisterMetaType<gui::MemorySnapshot>();
}

MemoryFetcher::~MemoryFetcher() = default;

void MemoryFetcher::reset(std::shared_ptr<storage::Database> db, qlonglong runId, int events)
{
    ++m_generation;
    m_db = std::move(db);
    m_runId = runId;
    m_events = events;
    m_inFlight = -1;
    m_wanted = -1;
    m_lastRequested = -1;
    m_direction = 1;
    m_cache.clear();
}

MemorySnapshot MemoryFetcher::cached(int event)
{
    for (auto it = m_cache.begin(); it != m_cache.end(); ++it)
        if (it->first == event) {
            m_cache.splice(m_cache.begin(), m_cache, it);
            return m_cache.front().second;
        }
    return nullptr;
}

bool MemoryFetcher::has(int event) const
{
    for (const auto& entry : m_cache)
        if (entry.first == event)
            return true;
    return false;
}

MemorySnapshot MemoryFetcher::request(int event)
{
    if (m_lastRequested >= 0 && event != m_lastRequested)
        m_direction = event > m_lastRequested ? 1 : -1;
    m_lastRequested = event;
    if (MemorySnapshot hit = cached(event)) {
        m_wanted = -1;
        // Read ahead in the direction of travel while the user looks at this one.
        const int next = event + m_direction;
        if (m_inFlight < 0 && next >= 0 && next < m_events && !has(next))
            start(next);
        return hit;
    }
    m_wanted = event;
    if (m_inFlight < 0)
        start(event);
    return nullptr;
}

void MemoryFetcher::start(int event)
{
    if (!m_db || event < 0 || event >= m_events)
        return;
    m_inFlight = event;
    const int generation = m_generation;
    auto* watcher = new QFutureWatcher<Read>(this);
    connect(watcher, &QFutureWatcher<Read>::finished, this, [this, watcher, generation, event] {
        const Read read = watcher->result();
        watcher->deleteLater();
        finished(generation, event, read);
    });
    watcher->setFuture(QtConcurrent::run([db = m_db, runId = m_runId, event]() -> Read {
        Read out;
        auto memory = storage::memoryAt(*db, runId, event);
        if (!memory)
            out.error = QString::fromStdString(memory.error().toString());
        else
            out.pools = std::make_shared<const std::vector<engine::runtime::PoolSnapshot>>(std::move(memory.value()));
        return out;
    }));
}

void MemoryFetcher::finished(int generation, int event, const Read& read)
{
    if (generation != m_generation)
        return;
    m_inFlight = -1;
    if (read.pools) {
        m_cache.emplace_front(event, read.pools);
        while (int(m_cache.size()) > m_capacity)
            m_cache.pop_back();
    }
    if (event == m_wanted) {
        m_wanted = -1;
        emit ready(event, read.pools, read.error);
        const int next = event + m_direction;
        if (read.pools && next >= 0 && next < m_events && !has(next))
            start(next);
    } else if (m_wanted >= 0) {
        if (MemorySnapshot hit = cached(m_wanted)) {
            const int wanted = m_wanted;
            m_wanted = -1;
            emit ready(wanted, hit, QString());
        } else {
            start(m_wanted);
        }
    }
}

} // namespace gui
