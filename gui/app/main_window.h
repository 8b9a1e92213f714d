#pragma once
/// The first window: pick a scenario, see its simulated calls, hazards and TorchAir log. The full
/// inspector (graph, stepper, memory views) grows from here; MainWindow only wires the pieces.
#include <QMainWindow>
#include <QStringList>

#include <memory>

class QLabel;
class QListWidget;
class QPlainTextEdit;
class QTableWidget;

namespace engine::runtime {
struct Simulation;
}

namespace gui {

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(const QStringList& files, QWidget* parent = nullptr);
    ~MainWindow() override;

    /// Simulates `path` off the UI thread and shows the result when it arrives.
    void openScenario(const QString& path);

signals:
    /// A simulation (or its error) is on screen.
    void resultShown();

private:
    void showSimulation(const QString& path, std::shared_ptr<const engine::runtime::Simulation> sim);
    void showError(const QString& message);

    QListWidget* m_files = nullptr;
    QTableWidget* m_calls = nullptr;
    QListWidget* m_hazards = nullptr;
    QPlainTextEdit* m_log = nullptr;
    QLabel* m_banner = nullptr;
    int m_generation = 0; ///< results of an older request are dropped
};

} // namespace gui
