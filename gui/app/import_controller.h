#pragma once
/// Imports into a project off the UI thread (storage::importPaths on a worker) and reports back on
/// the UI thread through queued signals: progress per source and phase (and how far a long phase
/// is), then one finished() with a line per source. cancel() stops at the next 4,096 rows, the next
/// progress report of a long phase or the next source; the source being written is rolled back, so
/// the project is as it was before it.
#include "storage/importer.h"

#include <QObject>
#include <QStringList>
#include <QVector>
#include <atomic>
#include <thread>

namespace gui {

/// One source's outcome, for the window.
struct ImportOutcome {
    QString path;
    QString status; ///< "imported", "duplicate", "failed", "cancelled"
    QString message; ///< the error, or what was stored ("3 graphs, 18 pass reports")
    qlonglong sourceId = 0;
};

class ImportController : public QObject {
    Q_OBJECT
public:
    explicit ImportController(QObject* parent = nullptr);
    ~ImportController() override; ///< cancels and waits for the worker

    /// Starts importing `paths` into the project at `dbPath`. False (nothing started) while an import
    /// runs.
    bool start(const QString& dbPath, const QStringList& paths);
    void cancel() { m_cancel = true; }
    bool running() const { return m_running; }

signals:
    /// Source `source` of `sources` is in `phase` ("reading", "writing", "done") with `rows` written;
    /// `done` of `total` `unit`s of that phase where it tells (storage::ImportProgress: "bytes" read
    /// of a snapshot file, "entries" of its trace replayed), else total = 0 and `unit` empty. At most
    /// about once per percent of a phase with a total.
    void progress(int source, int sources, const QString& path, const QString& phase, qlonglong rows, qulonglong done,
        qulonglong total, const QString& unit);
    /// `error`: the project itself could not be opened (then `outcomes` is empty).
    void finished(const QVector<gui::ImportOutcome>& outcomes, const QString& error);

private:
    std::atomic<bool> m_cancel { false };
    bool m_running = false;
    std::thread m_thread; ///< joined before the next start and in the destructor
};

} // namespace gui

Q_DECLARE_METATYPE(gui::ImportOutcome)
