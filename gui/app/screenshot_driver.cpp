#include "gui/app/screenshot_driver.h"

#include "gui/app/compare_panel.h"
#include "gui/app/graph_panel.h"
#include "gui/app/main_window.h"
#include "gui/app/memory_breakdown.h"
#include "gui/app/memory_chart.h"
#include "gui/app/project_model.h"
#include "gui/app/runtime_panel.h"
#include "gui/graph/async_layout.h"
#include "gui/graph/graph_view_widget.h"

#include <QDockWidget>
#include <QTabWidget>
#include <QTableView>
#include <QThreadPool>
#include <QTimer>
#include <QTreeView>
#include <iostream>

namespace gui {

ScreenshotDriver::ScreenshotDriver(MainWindow& window, ScreenshotRequest request)
    : QObject(&window)
    , m_window(window)
    , m_request(std::move(request))
{
    connect(&m_window, &MainWindow::projectShown, this, &ScreenshotDriver::onProject);
    if (!m_request.select.isEmpty())
        m_window.setOpensFirstRun(false); // what is picked is shown, not the first run
    // A run shown goes to the requested step; the window's own wiring does the rest.
    connect(m_window.runtimePanel(), &RuntimePanel::runShown, this, [this] {
        RuntimePanel* panel = m_window.runtimePanel();
        panel->setStep(m_request.step == ScreenshotRequest::kPeak ? panel->memoryChart()->peakReservedEvent()
                                                                  : m_request.step);
        if (!m_request.filter.isEmpty())
            panel->memoryBreakdown()->setFilter(m_request.filter);
        if (m_request.breakdown == "owner")
            panel->memoryBreakdown()->setGroupBy(MemoryBreakdown::GroupBy::Owner);
        else if (m_request.breakdown == "site")
            panel->memoryBreakdown()->setGroupBy(MemoryBreakdown::GroupBy::Site);
    });
}

void ScreenshotDriver::onProject()
{
    if (m_started || m_window.importRunning())
        return;
    m_started = true;
    if (!m_request.select.isEmpty() && !m_window.selectProjectItem(m_request.select)) {
        std::cerr << "error: no project item labelled " << m_request.select.toStdString() << "\n";
        emit done(false);
        return;
    }
    waitIdle(0);
}

void ScreenshotDriver::waitIdle(int quietPolls)
{
    // Every load runs on the global thread pool (QtConcurrent): the window is settled when the pool
    // has been idle for a few polls in a row, so that the last results have been delivered too.
    const bool idle
        = QThreadPool::globalInstance()->activeThreadCount() == 0 && !m_window.graphPanel()->view()->layouter()->busy();
    const int quiet = idle ? quietPolls + 1 : 0;
    if (quiet >= 4) {
        afterSelection();
        return;
    }
    QTimer::singleShot(100, this, [this, quiet] { waitIdle(quiet); });
}

void ScreenshotDriver::afterSelection()
{
    if (m_request.openFolds) {
        m_request.openFolds = false;
        m_window.graphPanel()->setAllFoldsOpen(true);
        waitIdle(0);
        return;
    }
    if (m_request.fit) {
        m_request.fit = false;
        m_window.graphPanel()->view()->fitAll();
    }
    if (!m_request.node.isEmpty()) {
        const QString node = m_request.node;
        m_request.node.clear();
        if (!m_window.graphPanel()->selectNode(m_window.graphPanel()->graphId(), node)) {
            std::cerr << "error: no node " << node.toStdString() << " in the graph shown\n";
            emit done(false);
            return;
        }
        waitIdle(0);
        return;
    }
    for (const QString& title : m_request.docks) {
        QDockWidget* d = m_window.dock(title);
        if (!d) {
            std::cerr << "error: no view named " << title.toStdString() << "\n";
            emit done(false);
            return;
        }
        d->show();
        d->raise();
    }
    m_request.docks.clear();
    for (const QString& text : m_request.tabs) {
        bool found = false;
        for (QTabWidget* tabs : m_window.findChildren<QTabWidget*>())
            for (int i = 0; i < tabs->count(); ++i)
                if (tabs->tabText(i).remove('&') == text) {
                    tabs->setCurrentIndex(i);
                    found = true;
                }
        if (!found) {
            std::cerr << "error: no tab named " << text.toStdString() << "\n";
            emit done(false);
            return;
        }
    }
    m_request.tabs.clear();
    if (m_request.compareA > 0) {
        compareRuns();
        return;
    }
    QTimer::singleShot(300, this, &ScreenshotDriver::shoot);
}

void ScreenshotDriver::compareRuns()
{
    ComparePanel* panel = m_window.comparePanel();
    const qlonglong a = m_request.compareA, b = m_request.compareB;
    m_request.compareA = m_request.compareB = 0;
    auto connection = std::make_shared<QMetaObject::Connection>();
    auto failure = std::make_shared<QMetaObject::Connection>();
    *connection = connect(panel, &ComparePanel::compared, this, [this, panel, connection, failure] {
        disconnect(*connection);
        disconnect(*failure);
        panel->view()->scrollToBottom();
        QTimer::singleShot(300, this, &ScreenshotDriver::shoot);
    });
    *failure = connect(panel, &ComparePanel::failed, this, [this, connection, failure](const QString& message) {
        disconnect(*connection);
        disconnect(*failure);
        std::cerr << "error: compare: " << message.toStdString() << "\n";
        emit done(false);
    });
    panel->compare(a, b);
}

void ScreenshotDriver::shoot()
{
    const bool saved = m_window.grab().save(m_request.file);
    if (!saved)
        std::cerr << "error: cannot write " << m_request.file.toStdString() << "\n";
    emit done(saved);
}

} // namespace gui
