#include "gui/app/import_controller.h"

namespace gui {

ImportController::ImportController(QObject* parent)
    : QObject(parent)
{
    qRegisterMetaType<gui::ImportOutcome>();
    qRegisterMetaType<QVector<gui::ImportOutcome>>();
}

ImportController::~ImportController()
{
    m_cancel = true;
    if (m_thread.joinable())
        m_thread.join();
}

namespace {

ImportOutcome outcomeOf(const storage::SourceResult& r)
{
    ImportOutcome o;
    o.path = QString::fromStdString(r.path);
    o.status = storage::statusName(r.status);
    o.sourceId = r.sourceId;
    if (r.status == storage::SourceResult::Status::Imported) {
        QStringList parts;
        parts << QString("%1 graph%2").arg(r.graphs).arg(r.graphs == 1 ? "" : "s");
        if (r.passReports)
            parts << QString("%1 pass reports").arg(r.passReports);
        if (r.runs)
            parts << QString("%1 run%2").arg(r.runs).arg(r.runs == 1 ? "" : "s");
        if (r.cacheEntries)
            parts << QString("%1 cache entr%2").arg(r.cacheEntries).arg(r.cacheEntries == 1 ? "y" : "ies");
        o.message = parts.join(", ");
    } else {
        o.message = QString::fromStdString(r.message);
    }
    return o;
}

} // namespace

bool ImportController::start(const QString& dbPath, const QStringList& paths)
{
    if (m_running)
        return false;
    if (m_thread.joinable())
        m_thread.join();
    m_running = true;
    m_cancel = false;
    std::vector<std::string> list;
    for (const QString& p : paths)
        list.push_back(p.toStdString());
    // The worker only posts to this object's thread; the destructor joins it before the object
    // goes, and Qt drops events still queued for a deleted receiver.
    m_thread = std::thread([this, db = dbPath.toStdString(), list = std::move(list)] {
        storage::ImportOptions options;
        options.simulateScenarios = true; // a scenario dropped on the window comes with its run
        options.cancelled = [this] { return m_cancel.load(); };
        options.progress = [this](const storage::ImportProgress& p) {
            QMetaObject::invokeMethod(
                this,
                [this, source = int(p.source), sources = int(p.sources), path = QString::fromStdString(p.path),
                    phase = QString::fromStdString(p.phase), rows = qlonglong(p.rows), done = qulonglong(p.done),
                    total = qulonglong(p.total), unit = QString::fromStdString(p.unit)] {
                    emit progress(source, sources, path, phase, rows, done, total, unit);
                },
                Qt::QueuedConnection);
        };
        auto results = storage::importPaths(db, list, options);
        QVector<ImportOutcome> outcomes;
        QString error;
        if (results)
            for (const auto& r : *results)
                outcomes.push_back(outcomeOf(r));
        else
            error = QString::fromStdString(results.error().toString());
        QMetaObject::invokeMethod(
            this,
            [this, outcomes, error] {
                m_running = false;
                emit finished(outcomes, error);
            },
            Qt::QueuedConnection);
    });
    return true;
}

} // namespace gui
