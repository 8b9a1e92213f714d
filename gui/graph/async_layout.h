#pragma once
/// Layout off the UI thread: AsyncLayout runs layoutView() on a worker and hands the result back on
/// the thread that owns it, through a LayoutCache.
#include "gui/graph/graph_layout.h"

#include <QObject>
#include <QString>
#include <atomic>
#include <cstdint>
#include <memory>

namespace gui::graph {

/// Lays out one ViewGraph at a time off the UI thread. A newer request() supersedes an older one:
/// only the latest request's result is emitted, stale ones are dropped (and still cached). A
/// request that has not started yet when superseded never runs. cancel() drops the pending result;
/// Graphviz itself cannot be interrupted, so a layout already running finishes on its worker (and
/// is cached) but is never emitted.
class AsyncLayout : public QObject {
    Q_OBJECT
public:
    explicit AsyncLayout(QObject* parent = nullptr, LayoutOptions options = {});
    ~AsyncLayout() override;

    /// Lays out `view`: from the cache (ready() still arrives asynchronously, through the event loop)
    /// or on a worker thread.
    void request(const engine::view::ViewGraph& view);
    /// Drops the pending request's result; busy() is false afterwards.
    void cancel();
    /// A request is pending (its ready() or failed() has not been emitted).
    bool busy() const { return m_busy; }
    LayoutCache& cache() { return *m_cache; }

signals:
    /// Layout for the view with ViewGraph::key `key` (the latest request).
    void ready(const QString& key, std::shared_ptr<const gui::graph::LayoutResult> layout);
    /// The latest request could not be laid out (message for a status line).
    void failed(const QString& key, const QString& message);
    /// A request went to a worker (not emitted for a cache hit): "laying out…".
    void started(const QString& key);

private:
    void finish(
        std::uint64_t generation, const QString& key, std::shared_ptr<const LayoutResult> layout, const QString& error);

    LayoutOptions m_options;
    std::shared_ptr<LayoutCache> m_cache;
    /// The latest request's number, shared with the workers so that superseded ones skip Graphviz.
    std::shared_ptr<std::atomic<std::uint64_t>> m_latest;
    bool m_busy = false;
};

} // namespace gui::graph

Q_DECLARE_METATYPE(std::shared_ptr<const gui::graph::LayoutResult>)
