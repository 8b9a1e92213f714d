#pragma once
/// The window: the Graph view in the middle (or, when it opens with no project named, the welcome
/// page: what to open, the samples, recent projects) and every other view in a dock the user can
/// move, float, tabify or close (layout remembered): Project, Runtime (the stepper), Memory, Events,
/// Inspector, Config, Compare, Log, Passes, Cache and Compiles. A recording (no graph) gives the
/// centre's room to the docks.
///
/// Selection sync: the open project and what is picked in it belong to one ProjectSession; every view
/// subscribes to it, so a run picked in the Project view is read once and shown by the stepper, the
/// Events list, the Log, Config and Compare; its step moves the graph outlines, the Inspector, the
/// Log and the Events list. MainWindow only builds the views, turns Project view picks into session
/// selections and adds the status bar; a node picked in the graph or a block clicked in the Memory
/// view is detailed in the Inspector.
#include "gui/app/import_controller.h"
#include "storage/simulate_source.h"

#include <QMainWindow>
#include <QStringList>
#include <map>
#include <vector>

class QAction;
class QDockWidget;
class QLabel;
class QMenu;
class QProgressBar;
class QStackedWidget;
class QToolButton;
class QTreeView;

namespace gui {

class CachePanel;
class ComparePanel;
class CompilesPanel;
class ConfigPanel;
class EventsPanel;
class GraphPanel;
class InspectorPanel;
class LogPanel;
class PassesPanel;
class ProjectModel;
class ProjectSession;
class ReportExport;
class RuntimePanel;
class SimulateJob;
class WelcomePage;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    /// Opens the first `.aclgi` of `files` (or the default project) and imports the other files
    /// into it; scenarios are simulated as they are imported.
    explicit MainWindow(const QStringList& files, QWidget* parent = nullptr);
    ~MainWindow() override;

    /// Makes `path` (a `.aclgi`, created when absent) the current project and shows its outline;
    /// then imports `importFirst` into it, when given. Remembered among the recent projects.
    void openProject(const QString& path, const QStringList& importFirst = {});
    /// Imports files and folders into the current project off the UI thread, with progress and a
    /// Cancel button in the status bar; what fails is shown in the inline banner.
    void importFiles(const QStringList& paths);
    QString projectPath() const { return m_projectPath; }
    /// The project is damaged (PRAGMA quick_check): shown read-only, nothing imported into it.
    bool projectReadOnly() const { return m_projectReadOnly; }
    bool importRunning() const { return m_import->running(); }
    /// Makes the first project item (depth first) whose label is `label` current, as a click would.
    bool selectProjectItem(const QString& label);
    /// Makes the project item of `kind` with id `id` current (after the outline has it).
    bool selectProjectItem(const QString& kind, qlonglong id);
    /// Whether the next outline load opens the project's first run (on by default for each project
    /// opened; the screenshot driver turns it off when it picks an item itself).
    void setOpensFirstRun(bool on) { m_autoSelectRun = on; }
    /// The dock of a view by its title ("Runtime", "Memory", "Inspector", ...), null when none.
    QDockWidget* dock(const QString& title) const;
    /// File > Export Report without the dialog: writes the report of the project's runs (or, with
    /// `comparison`, of the two runs the Compare view compares, side by side) to `path`, whose
    /// extension names the format. reportExported() follows; false when nothing could be started.
    bool exportReport(const QString& path, bool comparison = false);
    /// Graph > Simulate... (Ctrl+R): the source, graph or cache entry picked in the Project view,
    /// described, asked about (calls, symbols, input kinds) and simulated into the project.
    void simulateSelection();
    /// What Simulate... would simulate now, or why nothing can be.
    storage::Result<storage::SimulatableSource> simulatableSelection() const;
    /// Simulates `request` off the UI thread; the run is selected when stored (the banner says
    /// why not). False when a simulation is running already.
    bool startSimulation(storage::SimulateSourceRequest request);
    /// The inline error banner's text (empty while hidden).
    QString bannerText() const;

    ProjectModel* projectModel() const { return m_projectModel; }
    /// The open project and what is selected in it: what every view shows.
    ProjectSession* session() const { return m_session; }
    GraphPanel* graphPanel() const { return m_graphPanel; }
    RuntimePanel* runtimePanel() const { return m_runtimePanel; }
    CachePanel* cachePanel() const { return m_cachePanel; }
    PassesPanel* passesPanel() const { return m_passesPanel; }
    LogPanel* logPanel() const { return m_logPanel; }
    InspectorPanel* inspectorPanel() const { return m_inspector; }
    ConfigPanel* configPanel() const { return m_configPanel; }
    ComparePanel* comparePanel() const { return m_comparePanel; }
    CompilesPanel* compilesPanel() const { return m_compilesPanel; }
    EventsPanel* eventsPanel() const { return m_eventsPanel; }
    WelcomePage* welcomePage() const { return m_welcome; }
    /// Whether the centre shows the welcome page (else the graph).
    bool welcomeVisible() const;
    QTreeView* projectTree() const { return m_projectTree; }

    /// The project file opened when none is given: the bundled samples, imported on first use.
    static QString defaultProjectPath();

signals:
    /// The project outline on screen was (re)loaded.
    void projectShown();
    /// An import ended (also when cancelled or failed).
    void importFinished();
    /// An export ended: `error` is empty when the report was written to `path`.
    void reportExported(const QString& path, const QString& error);

protected:
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;
    void closeEvent(QCloseEvent* event) override;

private:
    void buildViews();
    void buildDocks();
    void connectViews();
    void buildProjectDock();
    void buildMenus();
    void buildStepMenu(QMenu* menu);
    void buildHelpMenu(QMenu* menu);
    /// The welcome page in the centre (on), or the graph (off).
    void showWelcome(bool on);
    /// Selects the run of the bundled sample named `name` (its scenario's name) in the outline.
    bool openSample(const QString& name);
    /// Memory-centred for a recording (no graph to draw: the centre gives its room to the docks),
    /// graph-centred otherwise.
    void fitLayoutToContent();
    void openProjectDialog();
    void buildSimulateActions(QMenu* graphMenu);
    void importFilesDialog();
    void importFolderDialog();
    void reloadOutline();
    void rememberRecent(const QString& path);
    void exportReportDialog(bool comparison);
    void onImportFinished(const QVector<ImportOutcome>& outcomes, const QString& error);
    void onProjectItem(const QString& kind, qlonglong id);
    void onStep(int event);
    void onBlockClicked(int pool, int segment, int block);
    void showBanner(const QString& text);
    QDockWidget* addDock(const QString& title, QWidget* view, Qt::DockWidgetArea area, const QKeySequence& keys);
    void resetLayout();

    ProjectSession* m_session = nullptr;
    QLabel* m_banner = nullptr;
    QStackedWidget* m_centre = nullptr; ///< the graph, or the welcome page
    WelcomePage* m_welcome = nullptr;
    SimulateJob* m_simulateJob = nullptr; ///< created on the first Simulate...
    EventsPanel* m_eventsPanel = nullptr;
    QByteArray m_layoutBeforeWelcome; ///< the docks as they were when the welcome page came up
    bool m_welcomeShown = false; ///< the window opened on the welcome page (no project given)
    GraphPanel* m_graphPanel = nullptr;
    RuntimePanel* m_runtimePanel = nullptr;
    CachePanel* m_cachePanel = nullptr;
    PassesPanel* m_passesPanel = nullptr;
    LogPanel* m_logPanel = nullptr;
    InspectorPanel* m_inspector = nullptr;
    ConfigPanel* m_configPanel = nullptr;
    ComparePanel* m_comparePanel = nullptr;
    CompilesPanel* m_compilesPanel = nullptr;
    QString m_compilesRaisedFor; ///< the project whose compiles were brought to the front once
    QString m_roomGivenFor; ///< "project#run" of the recording whose memory was given the room once
    std::map<QString, QDockWidget*> m_docks; ///< by title
    std::vector<QAction*> m_goActions; ///< "go to view" (Ctrl+digit), in dock order
    QByteArray m_defaultState; ///< the layout before any saved one was restored
    QString m_projectPath;
    ProjectModel* m_projectModel = nullptr;
    QTreeView* m_projectTree = nullptr;
    QMenu* m_recentMenu = nullptr;
    QMenu* m_viewMenu = nullptr;
    ImportController* m_import = nullptr;
    ReportExport* m_reportExport = nullptr;
    QProgressBar* m_importProgress = nullptr;
    QToolButton* m_cancelImport = nullptr;
    int m_outlineGeneration = 0;
    /// After the outline reloads: select this item (kind, id), e.g. a run just simulated.
    QString m_selectKind;
    qlonglong m_selectId = -1;
    /// A call picked in Compare (ComparePanel::callPicked): run and call to step to once it is shown.
    qlonglong m_pickedRun = -1;
    int m_pickedCall = -1;
    void stepToPickedCall();
    bool m_autoSelectRun = true; ///< the first outline of a session opens its first run
    bool m_projectReadOnly = false; ///< the open project is damaged: read-only
};

} // namespace gui
