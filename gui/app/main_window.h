#pragma once
/// The first window: pick a scenario, see its simulated calls, hazards and TorchAir log. The full
/// inspector (graph, stepper, memory views) grows from here; MainWindow only wires the pieces.
#include "gui/app/import_controller.h"

#include <QMainWindow>
#include <QStringList>
#include <memory>

class QDockWidget;
class QLabel;
class QListWidget;
class QMenu;
class QPlainTextEdit;
class QProgressBar;
class QTabWidget;
class QTableWidget;
class QToolButton;
class QTreeView;

namespace engine::runtime {
struct Simulation;
}

namespace gui {

class CachePanel;
class GraphPanel;
class LogPanel;
class PassesPanel;
class ProjectModel;
class RuntimePanel;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(const QStringList& files, QWidget* parent = nullptr);
    ~MainWindow() override;

    /// Simulates `path` off the UI thread and shows the result when it arrives.
    void openScenario(const QString& path);
    /// Makes `path` (a `.aclgi`, created when absent) the current project and shows its outline;
    /// then imports `importFirst` into it, when given. Remembered among the recent projects.
    void openProject(const QString& path, const QStringList& importFirst = {});
    /// Imports files and folders into the current project off the UI thread, with progress and a
    /// Cancel button in the status bar; what fails is shown in the inline banner.
    void importFiles(const QStringList& paths);
    QString projectPath() const { return m_projectPath; }
    bool importRunning() const { return m_import->running(); }
    /// Scenario and graph files listed for simulation.
    int scenarioCount() const;
    /// Makes the first project item (depth first) whose label is `label` current, as a click would.
    bool selectProjectItem(const QString& label);
    ProjectModel* projectModel() const { return m_projectModel; }
    GraphPanel* graphPanel() const { return m_graphPanel; }
    RuntimePanel* runtimePanel() const { return m_runtimePanel; }
    CachePanel* cachePanel() const { return m_cachePanel; }
    PassesPanel* passesPanel() const { return m_passesPanel; }
    LogPanel* logPanel() const { return m_logPanel; }
    QTreeView* projectTree() const { return m_projectTree; }

    /// The project file opened when none is given: the bundled samples, imported on first use.
    static QString defaultProjectPath();

signals:
    /// A simulation (or its error) is on screen.
    void resultShown();
    /// The project outline on screen was (re)loaded.
    void projectShown();
    /// An import ended (also when cancelled or failed).
    void importFinished();

protected:
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;
    void closeEvent(QCloseEvent* event) override;

private:
    void buildProjectDock();
    void buildMenus();
    void reloadOutline();
    void rememberRecent(const QString& path);
    void onImportFinished(const QVector<ImportOutcome>& outcomes, const QString& error);

    void showSimulation(const QString& path, std::shared_ptr<const engine::runtime::Simulation> sim);
    void showError(const QString& message);

    QListWidget* m_files = nullptr;
    QTableWidget* m_calls = nullptr;
    QListWidget* m_hazards = nullptr;
    QPlainTextEdit* m_log = nullptr;
    QLabel* m_banner = nullptr;
    int m_generation = 0; ///< results of an older request are dropped

    QTabWidget* m_tabs = nullptr;
    GraphPanel* m_graphPanel = nullptr;
    RuntimePanel* m_runtimePanel = nullptr;
    CachePanel* m_cachePanel = nullptr;
    PassesPanel* m_passesPanel = nullptr;
    LogPanel* m_logPanel = nullptr;
    QString m_projectPath;
    ProjectModel* m_projectModel = nullptr;
    QTreeView* m_projectTree = nullptr;
    QDockWidget* m_projectDock = nullptr;
    QMenu* m_recentMenu = nullptr;
    ImportController* m_import = nullptr;
    QProgressBar* m_importProgress = nullptr;
    QToolButton* m_cancelImport = nullptr;
    int m_outlineGeneration = 0;
};

} // namespace gui
