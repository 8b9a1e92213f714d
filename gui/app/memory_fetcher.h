#pragma once
/// Reads device memory per step (storage::memoryAt) for the Runtime tab off the UI thread, one read
/// at a time on the run's read-only connection, and keeps the last few steps in a small LRU cache so
/// that stepping back and forth is instant. After the wanted step arrives it reads the next one in
/// the direction of travel ahead of time.
#include "engine/runtime/events.h"

#include <QObject>
#include <QString>
#include <list>
#include <memory>
#include <utility>
#include <vector>

namespace storage {
class Database;
}

namespace gui {

using MemorySnapshot = std::shared_ptr<const std::vector<engine::runtime::PoolSnapshot>>;

class MemoryFetcher : public QObject {
    Q_OBJECT
public:
    explicit MemoryFetcher(QObject* parent = nullptr);
    ~MemoryFetcher() override;

    /// Starts over with run `runId` of `db` (its `events` events); nullptr db: nothing to read.
    void reset(std::shared_ptr<storage::Database> db, qlonglong runId, int events);
    /// The memory after `event` when cached (then also made the most recent); else nullptr, and the
    /// read is started (or queued behind the one in flight) and `ready` follows.
    MemorySnapshot request(int event);
    /// Cached steps kept (the most recent `capacity`).
    void setCapacity(int capacity) { m_capacity = std::max(1, capacity); }
    bool busy() const { return m_inFlight >= 0; }

signals:
    /// The requested step `event` was read (pools), or failed (`error`).
    void ready(int event, gui::MemorySnapshot pools, const QString& error);

private:
    struct Read {
        MemorySnapshot pools;
        QString error;
    };
    MemorySnapshot cached(int event);
    bool has(int event) const;
    void start(int event);
    void finished(int generation, int event, const Read& read);

    std::shared_ptr<storage::Database> m_db;
    qlonglong m_runId = 0;
    int m_events = 0;
    int m_generation = 0;
    int m_capacity = 8;
    int m_inFlight = -1; ///< event being read, -1 none
    int m_wanted = -1; ///< the last requested event not yet delivered
    int m_lastRequested = -1;
    int m_direction = 1;
    std::list<std::pair<int, MemorySnapshot>> m_cache; ///< most recent first
};

} // namespace gui

Q_DECLARE_METATYPE(gui::MemorySnapshot)
