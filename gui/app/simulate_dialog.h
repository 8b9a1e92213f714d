#pragma once
/// Graph > Simulate… and the Project view's "Simulate…": simulating an imported source (a graph file,
/// a scenario, TorchAir's output_code.py, a TORCH_COMPILE_DEBUG folder, a cache entry) and storing
/// the run linked to its graphs (storage/simulate_source.h).
///
/// The window's wiring: `describeSource` (or `describeCacheEntry`) on the session's connection, then
/// `SimulateDialog::ask`, then a `SimulateJob` started with the request; its finished() gives the new
/// run to select.
#include "storage/simulate_source.h"

#include <QDialog>
#include <QMap>
#include <QObject>
#include <QStringList>
#include <atomic>
#include <memory>

class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QSpinBox;
class QTimer;
template <typename T> class QFutureWatcher;

namespace gui {

/// The file and its kind, why it cannot be simulated (Simulate disabled) when so, the number of
/// calls, a value per symbol the graphs' sizes use (Simulate disabled until each has one) and the
/// input kinds. Options are changed afterwards in the Config view (what-if runs of the stored run).
class SimulateDialog : public QDialog {
    Q_OBJECT
public:
    /// `dbPath`: the project the run goes to (copied into request()).
    SimulateDialog(const storage::SimulatableSource& source, const QString& dbPath, QWidget* parent = nullptr);

    /// What the fields say, as a request for storage::simulateSource (progress left empty).
    storage::SimulateSourceRequest request() const;
    /// True when Simulate can be pressed: the source simulates and every symbol has a value.
    bool ready() const;

    /// Shows the dialog modally; true (and `out` filled) when the user pressed Simulate.
    static bool ask(QWidget* parent, const storage::SimulatableSource& source, const QString& dbPath,
        storage::SimulateSourceRequest& out);

private:
    void updateReady();

    storage::SimulatableSource m_source;
    QString m_dbPath;
    QSpinBox* m_calls = nullptr;
    QMap<QString, QLineEdit*> m_symbols;
    QLineEdit* m_inputKinds = nullptr;
    QLabel* m_problem = nullptr;
    QDialogButtonBox* m_buttons = nullptr;
};

/// storage::simulateSource on a worker (QtConcurrent), reporting on the UI thread: progress about
/// ten times a second while it simulates, then one finished(). cancel() stops at the next call; the
/// project is then as it was. Destroying the job cancels it and waits for the worker.
class SimulateJob : public QObject {
    Q_OBJECT
public:
    explicit SimulateJob(QObject* parent = nullptr);
    ~SimulateJob() override;

    /// Starts simulating; false (nothing started) while a simulation runs.
    bool start(storage::SimulateSourceRequest request);
    bool running() const { return m_watcher != nullptr; }

public slots:
    void cancel();

signals:
    /// `done` of `total` calls simulated.
    void progress(int done, int total);
    /// The new run (0 on error), the readers' notes on the file, and the error ("" on success;
    /// "cancelled" after cancel()).
    void finished(qlonglong runId, const QStringList& diagnostics, const QString& error);

private:
    struct State {
        std::atomic<int> done { 0 }, total { 0 };
        std::atomic<bool> cancel { false };
    };
    struct Outcome {
        qlonglong runId = 0;
        QStringList diagnostics;
        QString error;
    };
    void report();

    std::shared_ptr<State> m_state;
    QFutureWatcher<Outcome>* m_watcher = nullptr;
    QTimer* m_poll = nullptr;
    int m_lastDone = -1;
};

} // namespace gui
