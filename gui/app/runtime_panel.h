#pragma once
/// The Runtime tab: a stored simulation run stepped event by event. A position line ("call 3 · event
/// 17/59 · replay graph_2 key {4}", calls numbered as the engine's texts number them, events from 1),
/// the event's summary and TorchAir log lines, the per-input actions of an input update, the Memory
/// view (device memory after the event, gui/app/memory_view.h) and a chart of device reserved and
/// allocated bytes over the run (gui/app/memory_chart.h).
///
/// The run (storage::readRun) is read off the UI thread; so is memory per step (storage::memoryAt,
/// through MemoryFetcher with a small cache): while a step is being read the previous one stays on
/// screen, greyed. Keys, when the panel or a child has focus: Right/Left one event, Shift+Right/Left
/// or PgDown/PgUp one call, Space play/pause, Home/End first/last event.
#include "engine/report/event_marks.h"
#include "gui/app/memory_fetcher.h"
#include "storage/run_store.h"

#include <QRect>
#include <QWidget>
#include <memory>

class QLabel;
class QPlainTextEdit;
class QSplitter;
class QTableWidget;
class QTimer;
class QToolButton;

namespace gui {

class MemoryBreakdown;
class MemoryChart;
class MarkedSlider;
class MemoryView;
class StepNavigator;
class ProjectSession;

class RuntimePanel : public QWidget {
    Q_OBJECT
public:
    /// Shows the session's run at the session's step: the run the session read when it was
    /// selected, stepped by setStep (which moves the session's step, so every view follows).
    explicit RuntimePanel(ProjectSession* session, QWidget* parent = nullptr);
    ~RuntimePanel() override;

    /// Shows `run` (null: `error` says why) and its first event; memory per step is read through
    /// `db`. runShown follows. The session calls this when its run was read.
    void showRun(std::shared_ptr<const storage::StoredRun> run, const QString& error = {},
        std::shared_ptr<storage::Database> db = nullptr);
    /// Goes to event `event` (clamped to the run's events).
    void setStep(int event);
    /// The event shown, -1 when no run is.
    int step() const { return m_step; }
    int eventCount() const;
    /// The event shown, nullptr when no run is.
    const engine::runtime::Event* currentEvent() const;
    /// The run shown, nullptr before one is loaded or when loading failed.
    const storage::StoredRun* run() const { return m_run.get(); }
    std::shared_ptr<const storage::StoredRun> sharedRun() const { return m_run; }
    /// Hands over the memory pane (the Memory view in its scroll area, and the chart) so that the
    /// window can put it in a dock of its own; the panel keeps driving it. Null the second time.
    QWidget* takeMemoryPane();

    /// The position line of the current event (see the file comment).
    QString positionText() const;
    /// Why the last showRun failed; empty when it did not.
    QString errorText() const { return m_error; }
    bool playing() const;

    MemoryView* memoryView() const { return m_memory; }
    MarkedSlider* slider() const { return m_slider; }
    StepNavigator* navigator() const { return m_navigator; }
    /// The run's marks (captures, recaptures, hazards, peaks, ...), null before a run is shown.
    std::shared_ptr<const engine::report::EventMarks> marks() const { return m_marks; }
    int speed() const { return m_speed; }
    MemoryChart* memoryChart() const { return m_chart; }
    MemoryBreakdown* memoryBreakdown() const { return m_breakdown; }
    /// The pools the Memory view draws now (those of memoryShown's event).
    const std::vector<engine::runtime::PoolSnapshot>& shown() const;
    /// Where a block is drawn, in memoryView() coordinates (see MemoryView::blockRect).
    QRect blockRect(int pool, int segment, int block) const;

public slots:
    void stepForward();
    void stepBack();
    /// To the first event of the next call (or of the first call before any call's event).
    void nextCall();
    /// To the first event of the current call, or of the previous call when already there.
    void previousCall();
    /// Advances at the navigator's speed (4 events a second at first) until the end (from the start
    /// when already at the end).
    void play();
    void pause();
    void togglePlay();
    /// The next / previous event of the navigator's kind (Ctrl+F10 / Ctrl+Shift+F10).
    void navigatorNext();
    void navigatorPrevious();
    /// Play speed: events a second, or 0 for one call a second (the navigator's speed box).
    void setSpeed(int eventsPerSecond);

signals:
    /// The run (or the error loading it) is on screen.
    void runShown();
    /// The current event changed (currentEvent() has its graph, key and kind).
    void stepChanged(int event);
    /// The Memory view now shows memory after `event` (or the reason it cannot).
    void memoryShown(int event);
    /// A block was clicked: its owner's tensor and graph (empty for a free or ownerless block).
    void blockSelected(const QString& ownerTensor, const QString& graph);
    void playingChanged(bool playing);

private:
    void subscribe();
    void displayEvent(int event);
    void showMemory(int event, const MemorySnapshot& pools, const QString& error);
    int callOf(int event) const;
    /// For each event, its call (m_callOf) and the input update of its call (m_inputUpdateOf), and the table's column
    /// widths for the widest action and size of the whole run.
    void indexInputUpdates();
    /// The input actions of `event`'s call: its input update's table, rebuilt only when the call changes.
    void showInputActions(int event);

    ProjectSession* m_session;
    QLabel* m_title;
    QLabel* m_position;
    MarkedSlider* m_slider;
    StepNavigator* m_navigator;
    QToolButton* m_playButton;
    QLabel* m_summary;
    QTableWidget* m_inputs;
    QPlainTextEdit* m_log;
    QLabel* m_logLabel = nullptr;
    QLabel* m_inputsLabel = nullptr;
    QSplitter* m_detailsSplit = nullptr;
    std::vector<int> m_callOf; ///< per event, its call (a run-level event: the call before it), -1 when none
    std::vector<int> m_inputUpdateOf; ///< per event, the input update event of its call, -1 when none
    int m_inputsShown = -2; ///< the input update whose actions the table holds (-1: none, -2: not filled)
    MemoryView* m_memory;
    MemoryChart* m_chart;
    MemoryBreakdown* m_breakdown;
    QTimer* m_timer;
    MemoryFetcher* m_fetcher;

    std::shared_ptr<const storage::StoredRun> m_run;
    QWidget* m_memoryPane = nullptr; ///< until takeMemoryPane()
    QString m_error;
    int m_step = -1;
    int m_speed = 4;
    std::shared_ptr<const engine::report::EventMarks> m_marks;
};

} // namespace gui
