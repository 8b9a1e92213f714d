#pragma once
/// The one mechanism of background work in the window: a job run with QtConcurrent whose result
/// reaches the UI thread only while it is still the newest one asked for (a generation counter:
/// picking another item while one loads drops the older result). Jobs that read the project go
/// through ProjectSession::load, which adds the session's connection.
#include <QFutureWatcher>
#include <QObject>
#include <QString>
#include <QtConcurrent>
#include <memory>
#include <utility>

namespace gui {

/// Runs `load()` (returning T) on the thread pool and calls `done(T)` on `owner`'s thread, unless
/// another loadLatest on the same `generation` counter started since. `generation` is a member of
/// `owner` (the watcher is owner's child, so it does not outlive it).
template <class T, class Load, class Done> void loadLatest(QObject* owner, int& generation, Load load, Done done)
{
    const int mine = ++generation;
    auto* watcher = new QFutureWatcher<T>(owner);
    QObject::connect(watcher, &QFutureWatcher<T>::finished, owner, [watcher, mine, &generation, done] {
        T result = watcher->result();
        watcher->deleteLater();
        if (mine == generation)
            done(std::move(result));
    });
    watcher->setFuture(QtConcurrent::run(std::move(load)));
}

} // namespace gui
