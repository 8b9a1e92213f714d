// MainWindow's "Simulate..." (Graph menu, and the Project view's context menu): what the Project view
// picked (a source, a graph or stage, a cache entry) is described (storage::describeSource), the
// Simulate dialog asks for calls, symbols and input kinds, a SimulateJob simulates it off the UI
// thread into the project, and the new run is selected (then the Config view's what-if applies).
#include "gui/app/main_window.h"
#include "gui/app/project_model.h"
#include "gui/app/project_session.h"
#include "gui/app/simulate_dialog.h"
#include "storage/simulate_source.h"

#include <QAction>
#include <QMenu>
#include <QStatusBar>
#include <QTreeView>

namespace gui {

storage::Result<storage::SimulatableSource> MainWindow::simulatableSelection() const
{
    const auto db = m_session->db();
    const ProjectSession::Selection picked = m_session->selection();
    if (!db)
        return storage::Error { storage::ErrorCode::InvalidArgument, "no project is open", {} };
    if (picked.kind == "source")
        return storage::describeSource(*db, picked.id);
    if (picked.kind == "cache_entry")
        return storage::describeCacheEntry(*db, picked.id);
    if (picked.kind == "graph" || picked.kind == "stage" || picked.kind == "pass_result") {
        auto source = storage::sourceOfGraph(*db, picked.id);
        if (!source)
            return source.error();
        return storage::describeSource(*db, *source);
    }
    return storage::Error { storage::ErrorCode::InvalidArgument,
        "pick a source, a graph or a cache entry in the Project view to simulate it (a run is simulated "
        "again with other options in the Config view)",
        {} };
}

void MainWindow::simulateSelection()
{
    if (m_simulateJob && m_simulateJob->running()) {
        statusBar()->showMessage("A simulation is running: wait for it or cancel it first.", 5000);
        return;
    }
    if (m_projectReadOnly) {
        showBanner("This project is damaged and open read-only: a simulation would be stored in it, so none is "
                   "started. Import its sources into a new project to simulate them.");
        return;
    }
    auto source = simulatableSelection();
    if (!source) {
        statusBar()->showMessage("Not simulated: " + QString::fromStdString(source.error().message), 8000);
        return;
    }
    storage::SimulateSourceRequest request;
    if (SimulateDialog::ask(this, *source, m_projectPath, request) && !startSimulation(request))
        statusBar()->showMessage("The simulation could not be started.", 5000);
}

bool MainWindow::startSimulation(storage::SimulateSourceRequest request)
{
    if (!m_simulateJob) {
        m_simulateJob = new SimulateJob(this);
        connect(m_simulateJob, &SimulateJob::progress, this, [this](int done, int total) {
            statusBar()->showMessage(QString("Simulating: call %1 of %2 ...").arg(done).arg(total));
        });
        connect(m_simulateJob, &SimulateJob::finished, this,
            [this](qlonglong runId, const QStringList& diagnostics, const QString& error) {
                if (!error.isEmpty()) {
                    showBanner("Not simulated: " + error);
                    return;
                }
                statusBar()->showMessage(QString("Simulated: run %1%2")
                                             .arg(runId)
                                             .arg(diagnostics.isEmpty() ? "" : " (" + diagnostics.join("; ") + ")"),
                    10000);
                m_selectKind = "run"; // selected once the outline has it
                m_selectId = runId;
                reloadOutline();
            });
    }
    if (m_simulateJob->running() || !m_simulateJob->start(std::move(request)))
        return false;
    statusBar()->showMessage("Simulating ...");
    return true;
}

void MainWindow::buildSimulateActions(QMenu* graphMenu)
{
    QAction* simulate = graphMenu->addAction("&Simulate...", this, &MainWindow::simulateSelection);
    simulate->setShortcut(QKeySequence("Ctrl+R"));
    simulate->setToolTip("Simulate the source, graph or cache entry picked in the Project view");
    // The same from the Project view's context menu.
    m_projectTree->setContextMenuPolicy(Qt::ActionsContextMenu);
    m_projectTree->addAction(simulate);
}

} // namespace gui
