#pragma once
/// The Log tab: every log line of a stored run, in order (call, event, kind, graph, key, level,
/// text), filtered by minimum level, graph, key, event kind and free text. The run is read off the
/// UI thread; a double-clicked line reports its event, and selectEvent() scrolls to an event.
#include <QWidget>
#include <memory>

namespace storage {
struct StoredRun;
}

class QComboBox;
class QLabel;
class QLineEdit;
class QTableView;

namespace gui {

class RunLogFilter;
class ProjectSession;
class RunLogModel;

class LogPanel : public QWidget {
    Q_OBJECT
public:
    /// Lists the log of the session's run whenever the session has read one, and follows its step.
    explicit LogPanel(ProjectSession* session, QWidget* parent = nullptr);
    ~LogPanel() override;

    /// Lists `run`'s log lines (null: `error` says why); shown() follows.
    void showRunLog(std::shared_ptr<const storage::StoredRun> run, const QString& error = {});
    /// Selects and scrolls to the first visible line of event `event` (or the next visible line after it).
    void selectEvent(int event);

    RunLogModel* model() const { return m_model; }
    RunLogFilter* filter() const { return m_filter; }
    QTableView* view() const { return m_view; }

signals:
    /// The run's lines (or the error reading it) are on screen.
    void shown();
    /// A line was double-clicked: its event's index.
    void eventActivated(int event);

private:
    void fillCombo(QComboBox* combo, const QStringList& values);
    void updateCount();

    QLabel* m_title;
    QComboBox* m_level;
    QComboBox* m_graph;
    QComboBox* m_key;
    QComboBox* m_kind;
    QLineEdit* m_text;
    QLabel* m_count;
    QTableView* m_view;
    RunLogModel* m_model;
    RunLogFilter* m_filter;
    int m_generation = 0;
};

} // namespace gui
