// Layout off the UI thread: QtConcurrent runs layoutView() (serialised inside by its own mutex);
// results come back through a QFutureWatcher owned by the AsyncLayout, so a destroyed AsyncLayout
// receives nothing.
#include "gui/graph/async_layout.h"

#include <QFutureWatcher>
#include <QtConcurrent>

namespace gui::graph {

namespace {

struct WorkerResult {
    std::shared_ptr<const LayoutResult> layout;
    QString error;
    bool skipped = false; // superseded before it started
};

} // namespace

AsyncLayout::AsyncLayout(QObject* parent, LayoutOptions options)
    : QObject(parent)
    , m_options(options)
    , m_cache(std::make_shared<LayoutCache>(64))
    , m_latest(std::make_shared<std::atomic<std::uint64_t>>(0))
{
    qRegisterMetaType<std::shared_ptr<const gui::graph::LayoutResult>>();
}

AsyncLayout::~AsyncLayout()
{
    ++*m_latest;
} // running workers see they are stale

void AsyncLayout::request(const engine::view::ViewGraph& view)
{
    const std::uint64_t generation = ++*m_latest;
    const QString key = QString::fromStdString(view.key);
    m_busy = true;
    if (auto cached = m_cache->find(view.key)) {
        QMetaObject::invokeMethod(
            this, [this, generation, key, cached] { finish(generation, key, cached, {}); }, Qt::QueuedConnection);
        return;
    }
    emit started(key);
    auto* watcher = new QFutureWatcher<WorkerResult>(this);
    auto future = QtConcurrent::run(
        [view, options = m_options, cache = m_cache, latest = m_latest, generation]() -> WorkerResult {
            if (latest->load() != generation)
                return { nullptr, {}, true };
            auto result = layoutView(view, options);
            if (!result)
                return { nullptr, QString::fromStdString(result.error().toString()), false };
            auto layout = std::make_shared<const LayoutResult>(std::move(result).value());
            cache->insert(view.key, layout);
            return { layout, {}, false };
        });
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, generation, key] {
        const WorkerResult r = watcher->result();
        watcher->deleteLater();
        if (!r.skipped)
            finish(generation, key, r.layout, r.error);
    });
    watcher->setFuture(future);
}

void AsyncLayout::cancel()
{
    ++*m_latest;
    m_busy = false;
}

void AsyncLayout::finish(
    std::uint64_t generation, const QString& key, std::shared_ptr<const LayoutResult> layout, const QString& error)
{
    if (generation != m_latest->load())
        return; // superseded or cancelled
    m_busy = false;
    if (layout)
        emit ready(key, std::move(layout));
    else
        emit failed(key, error);
}

} // namespace gui::graph
