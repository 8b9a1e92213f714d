#pragma once
/// The Log tab: every log line of a stored run, in order (call, event, kind, graph, key, level,
/// text), filtered by minimum level, graph, key, event kind and free text. The run is read off the
/// UI thread; a double-clicked line reports its event, and selectEvent() scrolls to an event.
///
/// Sized for a bottom dock: the filters take two rows, the text column takes the width the others
/// leave and wraps, and the rows in sight are as tall as their text (measured as they come into
/// view, so a long run's log costs no more than a short one's).
#include <QWidget>
#include <array>
#include <memory>
#include <vector>

namespace storage {
struct StoredRun;
}

class QComboBox;
class QLabel;
class QLineEdit;
class QTableView;
class QTimer;

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
    void fitColumns();
    void sizeColumns();
    void fitRows();
    bool eventFilter(QObject* watched, QEvent* event) override;

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
    static constexpr int kRowsAhead = 40; ///< rows past the view's end measured with those in sight
    QTimer* m_fitRows; ///< fits the rows in sight once the view has settled
    std::vector<bool> m_fitted; ///< per row shown: measured at the columns' widths now
    std::array<int, 6> m_widths {}; ///< the columns before the text, as wide as their text (0: not measured)
    int m_generation = 0;
};

} // namespace gui
