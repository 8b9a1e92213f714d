#pragma once
/// The Config tab: a stored run's TorchAir options as a form, one row per option of the option
/// table: torchair's dotted name and npugraph_ex's flat name side by side ("—" where the run's
/// backend lacks it), an editor by type holding the run's effective value, and the default.
/// Options away from their default are bold; edited options not yet simulated are marked.
///
/// Changing a value re-simulates: after kSettleMs without another edit (or at once with Simulate)
/// storage::resimulate runs on a worker thread with the edits on top of the run's own overrides,
/// with a progress bar and Cancel. The stored (or reused) run is announced with runStored() and
/// the form then shows it. An invalid value shows TorchAir's message inline.
///
/// Sized for a narrow dock: the columns are fitted to the viewport on every resize (fitColumns); the
/// other backend's spelling is hidden when there is no room for it (the name's tooltip has both), so
/// is the default in a dock too narrow for it beside a readable name (the name's tooltip has it), and
/// names and defaults wrap at their dots and underscores instead of being elided.
///
/// A recorded run (a memory snapshot imported as a run) has no TorchAir options and is never
/// re-simulated: the tab says so, names the file, and shows the allocator's settings as the file
/// records them, read-only, in place of the form.
#include <QMap>
#include <QWidget>
#include <memory>
#include <string>
#include <vector>

namespace engine {
struct PyValue;
}

class QFutureWatcherBase;
class QLabel;
class QProgressBar;
class QPushButton;
class QTableWidget;
class QTimer;

namespace storage {
class Database;
}

namespace gui {

class ProjectSession;

class ConfigPanel : public QWidget {
    Q_OBJECT
public:
    enum Column { TorchairColumn, NpugraphExColumn, ValueColumn, DefaultColumn, MarkColumn, ColumnCount };
    /// How long the form waits after an edit before it re-simulates.
    static constexpr int kSettleMs = 600;

    /// Shows the options of each run selected in `session`.
    explicit ConfigPanel(ProjectSession* session, QWidget* parent = nullptr);
    /// Cancels a running re-simulation and waits for it.
    ~ConfigPanel() override;

    /// Shows run `runId` of the session's project (read off the UI thread); drops any edits.
    /// shown() follows, and failed() too when the run cannot be read.
    void showRun(qlonglong runId);

    /// The project cannot take a new run (it is damaged, open read-only): `reason` says so above
    /// the form, whose editors are disabled; an empty reason makes the form editable again.
    void setReadOnly(const QString& reason);
    bool readOnly() const { return !m_readOnlyReason.isEmpty(); }
    qlonglong runId() const { return m_runId; }
    /// The edits not yet simulated, as NAME=VALUE in the run's backend spelling, in table order.
    QStringList editedOverrides() const;
    /// A re-simulation is running.
    bool busy() const;
    /// The form: items for the names, the default and the edit mark, the editors as cell widgets
    /// (object name "edit:" + the option's name in the run's backend spelling).
    QTableWidget* table() const { return m_table; }
    /// A recording's allocator settings (setting, value), read-only; hidden for a simulation.
    QTableWidget* allocatorSettings() const { return m_settings; }

public slots:
    /// Re-simulates now with the edits (nothing to do without edits).
    void simulate();
    /// Drops the edits; the form shows the run's values again.
    void reset();
    /// Stops the running re-simulation; nothing is stored.
    void cancel();

signals:
    /// A run with the edits is stored (`reused`: an existing run with the same settings).
    void runStored(qlonglong runId, qlonglong baseRunId, bool reused);
    /// The form shows a run (or the error reading it).
    void shown();
    /// Reading the run or re-simulating failed: the message shown inline (TorchAir's for a bad value).
    void failed(const QString& message);

private:
    struct Loaded;
    struct Job;
    struct Outcome;
    static std::shared_ptr<const Loaded> loadConfig(storage::Database& db, qlonglong runId);
    void load(qlonglong runId, bool keepEdits);
    void buildForm();
    /// One row of a CUDA Graph Trees run's form: PyTorch's option, its editor by type, its default.
    void cudaRow(int row);
    /// The value editor of form row `row` by the option's type: a check box, a spin box, a combo box of
    /// its choices, else a line edit taking a Python literal.
    QWidget* editorFor(
        int row, const std::string& type, const QString& value, const std::vector<engine::PyValue>& choices);
    void edited(int option, const QString& value);
    void refreshMarks();
    void finished(const std::shared_ptr<Job>& job, const Outcome& outcome);
    void showMessage(const QString& text, bool error);
    void fitColumns();
    bool eventFilter(QObject* watched, QEvent* event) override;

    QLabel* m_title;
    QLabel* m_message;
    QTableWidget* m_table; ///< one row per option of the option table, in its order
    QTableWidget* m_settings;
    QPushButton* m_simulate;
    QPushButton* m_reset;
    QPushButton* m_cancel;
    QProgressBar* m_progress;
    QTimer* m_settle;
    QTimer* m_poll;

    ProjectSession* m_session = nullptr;
    QString m_readOnlyReason; ///< non-empty: no re-simulation (setReadOnly)
    qlonglong m_runId = 0;
    std::shared_ptr<const Loaded> m_loaded;
    QMap<int, QString> m_edits; ///< option table index -> value as typed (a Python literal)
    std::shared_ptr<Job> m_job; ///< the running re-simulation, or null
    QFutureWatcherBase* m_watcher = nullptr; ///< m_job's
    bool m_again = false; ///< edits came while a job ran: simulate again when it ends
    int m_generation = 0;
    bool m_fitting = false; ///< fitColumns is running: the resizes it causes are not refitted
};

} // namespace gui
