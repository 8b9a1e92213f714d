// MainWindow's project side: the Project dock over the project outline, opening and remembering
// projects, and importing (menu, command line, drag and drop) off the UI thread.
#include "gui/app/about_dialog.h"
#include "gui/app/cache_panel.h"
#include "gui/app/compare_panel.h"
#include "gui/app/config_panel.h"
#include "gui/app/graph_panel.h"
#include "gui/app/log_panel.h"
#include "gui/app/main_window.h"
#include "gui/app/panel_loader.h"
#include "gui/app/passes_panel.h"
#include "gui/app/project_model.h"
#include "gui/app/project_session.h"
#include "gui/app/report_export.h"
#include "gui/app/runtime_panel.h"
#include "gui/app/welcome_page.h"
#include "gui/graph/graph_view_widget.h"
#include "storage/importer.h"
#include "storage/project_db.h"
#include "storage/project_outline.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMimeData>
#include <QProgressBar>
#include <QSettings>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabWidget>
#include <QToolButton>
#include <QTreeView>
#include <algorithm>

namespace gui {

namespace {

constexpr int kRecentProjects = 8;

struct OutlineOutcome {
    storage::OutlineNode outline;
    QString error;
    QString damage; ///< SQLite's quick_check report: the project is damaged, shown read-only
};

OutlineOutcome loadOutline(const QString& path)
{
    auto db = storage::openProject(path.toStdString());
    if (!db) {
        // A damaged project is refused for writing; it may still open read-only, with the damage told.
        storage::Database::OpenOptions readOnly;
        readOnly.readOnly = true;
        readOnly.create = false;
        auto damaged = storage::openProject(path.toStdString(), readOnly);
        if (!damaged || damaged->damage().empty())
            return { {}, QString::fromStdString(db.error().toString()), {} };
        db = std::move(damaged);
    }
    const QString damage = QString::fromStdString(db->damage());
    auto outline = storage::readOutline(*db);
    if (!outline)
        return { {}, QString::fromStdString(outline.error().toString()), damage };
    return { std::move(outline.value()), {}, damage };
}

QStringList localPaths(const QMimeData* mime)
{
    QStringList paths;
    if (mime && mime->hasUrls())
        for (const QUrl& url : mime->urls())
            if (url.isLocalFile())
                paths << url.toLocalFile();
    return paths;
}

} // namespace

QString MainWindow::defaultProjectPath()
{
    const QString dir = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
    QDir().mkpath(dir);
    return QDir(dir).filePath("samples.aclgi");
}

void MainWindow::buildProjectDock()
{
    m_projectModel = new ProjectModel(this);
    m_projectTree = new QTreeView;
    m_projectTree->setObjectName("projectTree");
    m_projectTree->setModel(m_projectModel);
    m_projectTree->setUniformRowHeights(true);
    m_projectTree->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_projectTree->setToolTip("Drop files or folders here (FX graphs, scenarios, output_code.py, "
                              "TORCH_COMPILE_DEBUG folders, .torchair_cache) to import them");
    connect(m_projectTree->selectionModel(), &QItemSelectionModel::currentChanged, this,
        [this](const QModelIndex& current) {
            onProjectItem(
                current.data(ProjectModel::KindRole).toString(), current.data(ProjectModel::IdRole).toLongLong());
        });
    addDock("Project", m_projectTree, Qt::LeftDockWidgetArea, QKeySequence("Ctrl+1"));
    setAcceptDrops(true);

    m_import = new ImportController(this);
    m_reportExport = new ReportExport(this);
    connect(m_reportExport, &ReportExport::finished, this, [this](const QString& path, const QString& error) {
        if (error.isEmpty())
            statusBar()->showMessage(QString("Report written to %1").arg(QDir::toNativeSeparators(path)));
        else
            showBanner(QString("Export Report failed: %1").arg(error));
        emit reportExported(path, error);
    });
    m_importProgress = new QProgressBar;
    m_importProgress->setObjectName("importProgress");
    m_importProgress->setMaximumWidth(220);
    m_importProgress->setTextVisible(true);
    m_importProgress->hide();
    m_cancelImport = new QToolButton;
    m_cancelImport->setText("Cancel");
    m_cancelImport->setToolTip("Stop the import: the source being written is rolled back");
    m_cancelImport->hide();
    statusBar()->addPermanentWidget(m_importProgress);
    statusBar()->addPermanentWidget(m_cancelImport);
    connect(m_cancelImport, &QToolButton::clicked, m_import, &ImportController::cancel);
    connect(m_import, &ImportController::progress, this,
        [this](int source, int sources, const QString& path, const QString& phase, qlonglong rows, qulonglong done,
            qulonglong total, const QString& unit) {
            storage::ImportProgress p;
            p.phase = phase.toStdString();
            p.rows = rows;
            p.done = done;
            p.total = total;
            p.unit = unit.toStdString();
            const storage::ProgressWords words = storage::progressWords(p);
            const QString counted = QString("%1/%2").arg(source + 1).arg(sources);
            if (total > 0 && phase != "done") {
                // A long phase of one source (a snapshot read or replayed): how far that phase is.
                m_importProgress->setRange(0, 1000);
                m_importProgress->setValue(int(std::min<qulonglong>(done, total) * 1000 / total));
                m_importProgress->setFormat((sources > 1 ? counted + " " : QString())
                    + QString::fromStdString(words.phase + " " + words.amount));
            } else {
                m_importProgress->setRange(0, sources);
                m_importProgress->setValue(phase == "done" ? source + 1 : source);
                m_importProgress->setFormat(sources == 1 && phase == "writing" && rows
                        ? QString::fromStdString(words.phase + " " + words.amount)
                        : counted);
            }
            statusBar()->showMessage(
                QString("Importing %1: %2%3")
                    .arg(QFileInfo(path).fileName(), phase, rows ? QString(", %1 rows").arg(rows) : QString()));
        });
    connect(m_import, &ImportController::finished, this, &MainWindow::onImportFinished);
}

void MainWindow::buildMenus()
{
    QMenu* file = menuBar()->addMenu("&File");
    QAction* open = file->addAction("&Open Project...", this, &MainWindow::openProjectDialog);
    open->setShortcut(QKeySequence::Open);
    QAction* import = file->addAction("&Import Files...", this, &MainWindow::importFilesDialog);
    import->setShortcut(QKeySequence("Ctrl+I"));
    file->addAction("Import &Folder...", this, &MainWindow::importFolderDialog);
    file->addSeparator();
    QAction* exportReport = file->addAction("&Export Report...", this, [this] { exportReportDialog(false); });
    exportReport->setShortcut(QKeySequence("Ctrl+E"));
    exportReport->setToolTip("Write a report of the project's runs (HTML, PDF, Markdown or JSON)");
    file->addAction("Export &Comparison Report...", this, [this] { exportReportDialog(true); })
        ->setToolTip("Write a report of the two runs the Compare view compares, side by side");
    file->addSeparator();
    m_recentMenu = file->addMenu("&Recent Projects");
    file->addSeparator();
    QAction* quit = file->addAction("&Quit", this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);
    m_viewMenu = menuBar()->addMenu("&View");
    for (const char* title : { "Project", "Runtime", "Memory", "Events", "Inspector", "Config", "Compare", "Log",
             "Passes", "Cache", "Compiles" })
        m_viewMenu->addAction(m_docks[title]->toggleViewAction());
    m_viewMenu->addSeparator();
    QMenu* go = m_viewMenu->addMenu("&Go to View");
    for (QAction* a : m_goActions)
        go->addAction(a);
    m_viewMenu->addSeparator();
    m_viewMenu->addAction("&Reset Layout", this, &MainWindow::resetLayout);
    QMenu* graph = menuBar()->addMenu("&Graph");
    QAction* find = graph->addAction("&Find Node...", this, [this] {
        if (auto* search = m_graphPanel->findChild<QLineEdit*>()) {
            search->setFocus();
            search->selectAll();
        }
    });
    find->setShortcut(QKeySequence::Find);
    QAction* fit = graph->addAction("Fit to &Window", this, [this] { m_graphPanel->view()->fitAll(); });
    fit->setShortcut(QKeySequence("Ctrl+0"));
    QAction* openFolds = graph->addAction("&Open All Folds", this, [this] { m_graphPanel->setAllFoldsOpen(true); });
    openFolds->setShortcut(QKeySequence("Ctrl+Shift+O"));
    QAction* fold = graph->addAction("Fold Repeated &Layers", this, [this] { m_graphPanel->setAllFoldsOpen(false); });
    fold->setShortcut(QKeySequence("Ctrl+Shift+L"));
    QAction* follow = graph->addAction("F&ollow the Stepper");
    follow->setCheckable(true);
    follow->setChecked(m_graphPanel->following());
    connect(follow, &QAction::toggled, m_graphPanel, &GraphPanel::setFollowing);
    graph->addSeparator();
    buildSimulateActions(graph);
    buildStepMenu(menuBar()->addMenu("&Step"));
    buildHelpMenu(menuBar()->addMenu("&Help"));
    rememberRecent({});
}

void MainWindow::openProjectDialog()
{
    const QString path = QFileDialog::getSaveFileName(this, "Open or create a project", m_projectPath,
        "aclgraph-inspector projects (*.aclgi)", nullptr, QFileDialog::DontConfirmOverwrite);
    if (!path.isEmpty())
        openProject(path);
}

void MainWindow::importFilesDialog()
{
    const QStringList paths = QFileDialog::getOpenFileNames(this, "Import into the project");
    if (!paths.isEmpty())
        importFiles(paths);
}

void MainWindow::importFolderDialog()
{
    const QString dir = QFileDialog::getExistingDirectory(this, "Import a folder into the project");
    if (!dir.isEmpty())
        importFiles({ dir });
}

void MainWindow::rememberRecent(const QString& path)
{
    QSettings settings;
    QStringList recent = settings.value("recentProjects").toStringList();
    if (!path.isEmpty()) {
        recent.removeAll(path);
        recent.prepend(path);
        while (recent.size() > kRecentProjects)
            recent.removeLast();
        settings.setValue("recentProjects", recent);
    }
    if (!m_recentMenu)
        return;
    m_recentMenu->clear();
    for (const QString& p : recent)
        m_recentMenu->addAction(p, this, [this, p] { openProject(p); });
    m_recentMenu->setEnabled(!recent.isEmpty());
    if (m_welcome)
        m_welcome->setRecentProjects(recent);
}

void MainWindow::openProject(const QString& path, const QStringList& importFirst)
{
    m_projectPath = QFileInfo(path).absoluteFilePath();
    m_projectReadOnly = false; // until its outline's open says it is damaged
    m_docks["Project"]->setWindowTitle("Project: " + QFileInfo(path).fileName());
    setWindowTitle(QFileInfo(path).fileName() + " - aclgraph-inspector");
    m_autoSelectRun = true;
    rememberRecent(m_projectPath);
    if (!importFirst.isEmpty() && !m_import->running())
        importFiles(importFirst); // reloads the outline when done
    else
        reloadOutline();
}

void MainWindow::reloadOutline()
{
    loadLatest<OutlineOutcome>(
        this, m_outlineGeneration, [path = m_projectPath] { return loadOutline(path); },
        [this](const OutlineOutcome& o) {
            m_projectReadOnly = !o.damage.isEmpty();
            const QString name = QFileInfo(m_projectPath).fileName();
            setWindowTitle(name + (m_projectReadOnly ? " [read-only] - aclgraph-inspector" : " - aclgraph-inspector"));
            const QString damage = m_projectReadOnly
                ? QString("%1: the project is damaged, so it is opened read-only (no import into it, no runs "
                          "saved); what it shows may be incomplete. SQLite's quick_check says:\n%2")
                      .arg(m_projectPath, o.damage.trimmed())
                : QString();
            if (m_projectReadOnly && o.error.isEmpty())
                showBanner(damage);
            m_configPanel->setReadOnly(m_projectReadOnly
                    ? QString("This project is damaged and open read-only: a what-if simulation is stored as a "
                              "new run, so the options cannot be changed here. Import its sources into a new "
                              "project to simulate them again.")
                    : QString());
            // The session opens each project once (its connection sees later imports); a project
            // already open is only refreshed, for the views that list what it holds.
            if (m_session->path() != m_projectPath || !m_session->db())
                m_session->open(o.error.isEmpty() || m_projectReadOnly ? m_projectPath : QString());
            else
                m_session->refresh();
            if (!o.error.isEmpty()) {
                showBanner(m_projectReadOnly ? damage + "\nReading it failed: " + o.error : o.error);
                m_projectModel->setOutline({});
            } else {
                m_projectModel->setOutline(o.outline);
                for (int r = 0; r < m_projectModel->rowCount(); ++r)
                    m_projectTree->expand(m_projectModel->index(r, 0));
                // Names whole where the window allows: the Project dock as wide as its longest
                // label, up to a quarter of the window (longer ones keep their tooltip).
                QDockWidget* project = m_docks["Project"];
                m_projectTree->resizeColumnToContents(0);
                const int wanted = m_projectTree->columnWidth(0) + 24;
                if (!project->isFloating() && project->width() < wanted)
                    resizeDocks({ project }, { std::min(wanted, width() / 4) }, Qt::Horizontal);
                // A run just made is selected; a project opened (once its imports are in) shows
                // its first run, so that the window opens on something to step.
                if (!m_selectKind.isEmpty()) {
                    selectProjectItem(m_selectKind, m_selectId);
                    m_selectKind.clear();
                } else if (m_autoSelectRun && !m_import->running() && m_welcomeShown) {
                    m_autoSelectRun = false; // the welcome page lists what to open instead
                } else if (m_autoSelectRun && !m_import->running()) {
                    m_autoSelectRun = false;
                    const QModelIndexList runs = m_projectModel->match(m_projectModel->index(0, 0),
                        ProjectModel::KindRole, "run", 1, Qt::MatchExactly | Qt::MatchRecursive | Qt::MatchWrap);
                    if (!runs.isEmpty() && !m_projectTree->currentIndex().isValid())
                        m_projectTree->setCurrentIndex(runs.front());
                }
            }
            emit projectShown();
        });
}

void MainWindow::importFiles(const QStringList& paths)
{
    if (m_projectPath.isEmpty())
        m_projectPath = defaultProjectPath();
    if (m_projectReadOnly) {
        showBanner(QString("%1 is damaged and open read-only: nothing is imported into it. Open or create another "
                           "project (File > Open) to import.")
                       .arg(m_projectPath));
        return;
    }
    if (!m_import->start(m_projectPath, paths)) {
        statusBar()->showMessage("An import is running: wait for it or cancel it first.", 5000);
        return;
    }
    m_importProgress->setRange(0, paths.size());
    m_importProgress->setValue(0);
    m_importProgress->show();
    m_cancelImport->show();
}

void MainWindow::onImportFinished(const QVector<ImportOutcome>& outcomes, const QString& error)
{
    m_importProgress->hide();
    m_cancelImport->hide();
    QStringList problems;
    int imported = 0, duplicates = 0;
    for (const ImportOutcome& o : outcomes) {
        if (o.status == "imported")
            ++imported;
        else if (o.status == "duplicate")
            ++duplicates;
        else
            problems << (o.status == "cancelled" ? QFileInfo(o.path).fileName() + ": cancelled" : o.message);
    }
    if (!error.isEmpty())
        problems.prepend(error);
    showBanner(problems.join("\n"));
    statusBar()->showMessage(QString("Imported %1, %2 already in the project, %3 not imported")
                                 .arg(imported)
                                 .arg(duplicates)
                                 .arg(problems.size()),
        10000);
    reloadOutline();
    emit importFinished();
}

bool MainWindow::selectProjectItem(const QString& kind, qlonglong id)
{
    const QModelIndex found = m_projectModel->find(kind, id);
    if (!found.isValid())
        return false;
    m_projectTree->scrollTo(found);
    m_projectTree->setCurrentIndex(found);
    return true;
}

bool MainWindow::selectProjectItem(const QString& label)
{
    const QModelIndexList found = m_projectModel->match(
        m_projectModel->index(0, 0), Qt::DisplayRole, label, 1, Qt::MatchExactly | Qt::MatchRecursive | Qt::MatchWrap);
    if (found.isEmpty())
        return false;
    m_projectTree->scrollTo(found.front());
    m_projectTree->setCurrentIndex(found.front());
    return true;
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event)
{
    if (!localPaths(event->mimeData()).isEmpty())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event)
{
    const QStringList paths = localPaths(event->mimeData());
    if (paths.isEmpty())
        return;
    event->acceptProposedAction();
    importFiles(paths);
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    QSettings settings;
    settings.setValue("window/geometry", saveGeometry());
    // The user's layout, not the welcome page's.
    settings.setValue("window/state", m_layoutBeforeWelcome.isEmpty() ? saveState() : m_layoutBeforeWelcome);
    QMainWindow::closeEvent(event);
}

} // namespace gui

namespace gui {

void MainWindow::exportReportDialog(bool comparison)
{
    if (m_projectPath.isEmpty())
        return;
    QString filter;
    const QString base = QFileInfo(m_projectPath).completeBaseName() + (comparison ? "-comparison" : "-report");
    QString path = QFileDialog::getSaveFileName(this, comparison ? "Export comparison report" : "Export report",
        QFileInfo(m_projectPath).dir().filePath(base + ".html"), ReportExport::fileFilters(), &filter);
    if (path.isEmpty())
        return;
    if (!report::reportFormatOf(path.toStdString()))
        path += ReportExport::extensionOfFilter(filter);
    exportReport(path, comparison);
}

bool MainWindow::exportReport(const QString& path, bool comparison)
{
    if (m_projectPath.isEmpty() || m_reportExport->running())
        return false;
    report::ReportRequest request;
    request.inputs = { m_projectPath.toStdString() };
    request.generator = ("aclgraph-inspector " + QApplication::applicationVersion()).trimmed().toStdString();
    if (comparison) {
        const qlonglong a = m_comparePanel->runA()->currentData().toLongLong();
        const qlonglong b = m_comparePanel->runB()->currentData().toLongLong();
        if (m_comparePanel->runA()->currentIndex() < 0 || m_comparePanel->runB()->currentIndex() < 0 || a == b) {
            showBanner("Export Comparison Report: pick two different runs in the Compare view first.");
            return false;
        }
        request.projectRuns = { a, b };
        request.compare = true;
    }
    if (!m_reportExport->start(request, path)) {
        showBanner(QString("Export Report: %1: write .html, .pdf, .md or .json").arg(path));
        return false;
    }
    statusBar()->showMessage(QString("Writing the report to %1 ...").arg(QFileInfo(path).fileName()));
    return true;
}

} // namespace gui
