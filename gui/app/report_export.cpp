#include "gui/app/report_export.h"

#include <QFutureWatcher>
#include <QtConcurrent>

namespace gui {

namespace {

/// What the worker hands back (QtConcurrent needs a default-constructible result).
struct Built {
    std::string json;
    QString error;
};

} // namespace

ReportExport::ReportExport(QObject* parent)
    : QObject(parent)
{
}

QString ReportExport::fileFilters()
{
    return "HTML page (*.html);;PDF document (*.pdf);;Markdown (*.md);;JSON document (*.json)";
}

QString ReportExport::extensionOfFilter(const QString& filter)
{
    const int star = filter.indexOf("(*");
    return star < 0 ? QString() : filter.mid(star + 2, filter.indexOf(')', star) - star - 2);
}

bool ReportExport::start(const report::ReportRequest& request, const QString& path)
{
    if (m_running || !report::reportFormatOf(path.toStdString()))
        return false;
    m_running = true;
    auto* watcher = new QFutureWatcher<Built>(this);
    connect(watcher, &QFutureWatcher<Built>::finished, this, [this, watcher, path] {
        const Built built = watcher->result();
        watcher->deleteLater();
        QString error = built.error;
        if (error.isEmpty()) {
            auto written = report::writeReport(built.json, path.toStdString());
            if (!written)
                error = QString::fromStdString(written.error().toString());
        }
        m_running = false;
        emit finished(path, error);
    });
    watcher->setFuture(QtConcurrent::run([request]() -> Built {
        auto json = report::buildReportJson(request);
        if (!json)
            return { {}, QString::fromStdString(json.error().toString()) };
        return { std::move(json.value()), {} };
    }));
    return true;
}

} // namespace gui
