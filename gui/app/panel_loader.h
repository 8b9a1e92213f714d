#pragma once
/// What the panels share to load off the UI thread: the project opened read-only, and a load run
/// with QtConcurrent whose result reaches the UI thread only while it is still the newest one asked
/// for (a generation counter: picking another item while one loads drops the older result).
#include "storage/project_db.h"
#include "storage/run_store.h"

#include <QFutureWatcher>
#include <QObject>
#include <QString>
#include <QtConcurrent>
#include <memory>
#include <utility>

namespace gui {

/// The project at `dbPath`, read-only, not created when missing.
inline storage::Result<storage::Database> openProjectReadOnly(const QString& dbPath)
{
    storage::Database::OpenOptions readOnly;
    readOnly.readOnly = true;
    readOnly.create = false;
    readOnly.quickCheckMaxBytes = 0; // the window checked the project when it opened it
    return storage::openProject(dbPath.toStdString(), readOnly);
}

/// The project at `dbPath` opened read-only and its run `runId` read (storage::readRun), or why
/// not: what the panels that show a run load off the UI thread.
struct OpenedRun {
    std::shared_ptr<storage::Database> db;
    std::shared_ptr<const storage::StoredRun> run;
    QString error;
};
inline OpenedRun openRun(const QString& dbPath, qlonglong runId)
{
    auto db = openProjectReadOnly(dbPath);
    if (!db)
        return { nullptr, nullptr, QString::fromStdString(db.error().toString()) };
    auto run = storage::readRun(*db, runId);
    if (!run)
        return { nullptr, nullptr, QString::fromStdString(run.error().toString()) };
    return { std::make_shared<storage::Database>(std::move(db.value())),
        std::make_shared<const storage::StoredRun>(std::move(run.value())), {} };
}

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
