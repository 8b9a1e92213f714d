// MainWindow's welcome page, Help menu and the layout for each kind of content (see main_window.h).
#include "gui/app/about_dialog.h"
#include "gui/app/graph_panel.h"
#include "gui/app/help_dialogs.h"
#include "gui/app/main_window.h"
#include "gui/app/project_model.h"
#include "gui/app/project_session.h"
#include "gui/app/welcome_page.h"
#include "storage/run_store.h"

#include <QApplication>
#include <QDesktopServices>
#include <QDockWidget>
#include <QFileInfo>
#include <QMenu>
#include <QSettings>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTreeView>
#include <QUrl>

namespace gui {

void MainWindow::buildHelpMenu(QMenu* help)
{
    auto openDoc = [this](const QString& name) {
        const QString path = docPath(name);
        if (path.isEmpty() || !QDesktopServices::openUrl(QUrl::fromLocalFile(path)))
            statusBar()->showMessage(
                QString("%1 was not found next to the program; it is in the docs/ folder of the source tree").arg(name),
                8000);
    };
    help->addAction("&Welcome", this, [this] { showWelcome(true); });
    help->addAction("User &Guide", this, [openDoc] { openDoc("guide.md"); });
    help->addAction("&Keyboard Shortcuts", this, [this] { showShortcuts(this); });
    help->addAction("What Each &View Shows", this, [this] { showViewsGuide(this); });
    help->addSeparator();
    help->addAction("&About aclgraph-inspector", this, [this] {
        AboutDialog about(QApplication::applicationVersion(), this);
        about.exec();
    });

    m_welcome->setSamples(WelcomePage::readSamples(WelcomePage::samplesDir()));
    m_welcome->setRecentProjects(QSettings().value("recentProjects").toStringList());
    connect(m_welcome, &WelcomePage::openProjectRequested, this, &MainWindow::openProjectDialog);
    connect(m_welcome, &WelcomePage::importFilesRequested, this, &MainWindow::importFilesDialog);
    connect(m_welcome, &WelcomePage::importFolderRequested, this, &MainWindow::importFolderDialog);
    connect(m_welcome, &WelcomePage::recentRequested, this, [this](const QString& path) { openProject(path); });
    connect(m_welcome, &WelcomePage::sampleRequested, this, [this](const QString& name) {
        if (!openSample(name))
            statusBar()->showMessage(
                QString("\"%1\" has no run in %2: import resources/samples/ with File > Import Files")
                    .arg(name, QFileInfo(m_projectPath).fileName()),
                8000);
    });
}

bool MainWindow::welcomeVisible() const
{
    return m_centre->currentWidget() == m_welcome;
}

void MainWindow::showWelcome(bool on)
{
    if (on == welcomeVisible())
        return;
    m_centre->setCurrentWidget(on ? static_cast<QWidget*>(m_welcome) : m_graphPanel);
    // The page gets the window beside the Project view while it is up (the other views have
    // nothing to show yet); the layout comes back as it was when something is picked.
    if (on) {
        centralWidget()->show();
        m_layoutBeforeWelcome = saveState();
        for (auto& [title, dock] : m_docks)
            if (title != "Project")
                dock->hide();
    } else if (!m_layoutBeforeWelcome.isEmpty()) {
        restoreState(m_layoutBeforeWelcome);
        m_layoutBeforeWelcome.clear();
    }
}

bool MainWindow::openSample(const QString& name)
{
    // The sample's run as imported: "#N <scenario name>", without settings of its own.
    const QModelIndexList runs = m_projectModel->match(m_projectModel->index(0, 0), ProjectModel::KindRole, "run", -1,
        Qt::MatchExactly | Qt::MatchRecursive | Qt::MatchWrap);
    for (const QModelIndex& run : runs) {
        const QString label = run.data(Qt::DisplayRole).toString();
        const int space = label.indexOf(' ');
        if (label.startsWith('#') && space > 0 && label.mid(space + 1) == name) {
            m_projectTree->setCurrentIndex(run);
            return true;
        }
    }
    return false;
}

void MainWindow::fitLayoutToContent()
{
    // A recording has no FX graph: the centre would be an empty canvas, so the docks (its memory,
    // the stepper, the events) take the whole window; anything with a graph brings the centre back,
    // a log's run too when the project holds its job's graphs (storage::StoredRun::graphIds).
    const auto run = m_session->run();
    const bool recording = run && run->sim.origin.kind == engine::runtime::RunOriginKind::Recorded;
    if (recording && run->graphIds.empty() && !welcomeVisible())
        centralWidget()->hide();
    else
        centralWidget()->show();
}

} // namespace gui
