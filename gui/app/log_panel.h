#pragma once
/// The Log tab: every log line of a stored run, in order (call, event, kind, graph, key, level,
/// text), filtered by minimum level, graph, key, event kind and free text. The run is read off the
/// UI thread; a double-clicked line reports its event, and selectEvent() scrolls to an event.
#include <QWidget>

class QComboBox;
class QLabel;
class QLineEdit;
class QTableView;

namespace gui {

class RunLogFilter;
class RunLogModel;

class LogPanel : public QWidget {
    Q_OBJECT
public:
    explicit LogPanel(QWidget* parent = nullptr);
    ~LogPanel() override;

    /// Loads run `runId` of the project at `dbPath`; shown() follows (also on error: the title says it).
    void showRunLog(const QString& dbPath, qlonglong runId);
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
