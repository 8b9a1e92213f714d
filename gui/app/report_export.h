#pragma once
/// File > Export Report: the report of what the window has open (the project's runs, or the two runs
/// the Compare view compares) written by the same code as `aclgraph-inspector report`
/// (gui/report/report_builder.h). The document is built off the UI thread (runs are read, scenarios
/// simulated); the chosen format is written on the UI thread (PDF needs Qt's GUI classes there).
#include "gui/report/report_builder.h"

#include <QObject>
#include <QString>

namespace gui {

class ReportExport : public QObject {
    Q_OBJECT
public:
    explicit ReportExport(QObject* parent = nullptr);

    /// Starts writing the report of `request` to `path` (its extension names the format). False,
    /// with nothing started, while another export runs or when the extension names no format.
    bool start(const report::ReportRequest& request, const QString& path);
    bool running() const { return m_running; }

    /// The file filters of a save dialog, HTML first, and the extension a filter stands for.
    static QString fileFilters();
    static QString extensionOfFilter(const QString& filter);

signals:
    /// The report was written to `path`, or `error` says why not (nothing is left at `path` then).
    void finished(const QString& path, const QString& error);

private:
    bool m_running = false;
};

} // namespace gui
