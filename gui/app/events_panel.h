#pragma once
/// The Events view: every event of a run as a table (EventListModel behind EventFilterModel), a
/// filter row (a category with its count, a free text, a clear button), and under the table an
/// explanation pane: for a hazard row, what happened, why, how to avoid it and what TorchAir printed
/// (engine::report::explainHazard); for any other row, the event's summary and log lines.
///
/// The view follows the stepper (selectEvent, which emits nothing) and leads it: a click on a row,
/// Enter on the current row, or a link to an event in the pane emits eventActivated. Rows are
/// painted on demand, so a recording of 100,000 events lists as fast as a short run.
#include "gui/app/event_list_model.h"

#include <QWidget>
#include <memory>

class QComboBox;
class QLabel;
class QLineEdit;
class QSplitter;
class QStackedWidget;
class QTableView;
class QTextBrowser;
class QToolButton;

namespace gui {

class ProjectSession;

class EventsPanel : public QWidget {
    Q_OBJECT
public:
    explicit EventsPanel(QWidget* parent = nullptr);
    /// An Events view of `session`: it lists the session's run, follows its step, and a row picked
    /// steps the session there (the window's view; the constructor above is the list alone).
    explicit EventsPanel(ProjectSession* session, QWidget* parent = nullptr);
    ~EventsPanel() override;

    /// Lists the run's events (null: nothing, and the view says "No run" and what to do). The filters
    /// are kept; the selection is cleared.
    void showRun(std::shared_ptr<const storage::StoredRun> run);
    /// Selects event `event` (0-based) and scrolls to it, as the stepper moved there; emits nothing. An
    /// event the filter hides is shown in the pane with no row selected.
    void selectEvent(int event);
    /// Rows left after filtering.
    int shownCount() const;
    QTableView* table() const { return m_table; }
    /// The explanation pane (its text is what a person reads about the selected row).
    QTextBrowser* pane() const { return m_pane; }

    void setKindFilter(EventCategory category);
    void setTextFilter(const QString& text);

signals:
    /// A row was clicked or activated with Enter, or an event link of the pane was followed: the
    /// stepper goes to event `event` (0-based).
    void eventActivated(int event);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    void fillKindCombo();
    void sizeColumns();
    void updateCount();
    void showEventText(int event);
    int currentEvent() const;

    std::shared_ptr<const storage::StoredRun> m_run;
    bool m_userSplit = false; ///< the user moved the splitter: resizing keeps their split
    EventListModel* m_model;
    EventFilterModel* m_filter;
    QStackedWidget* m_stack;
    QLabel* m_empty;
    QLabel* m_title;
    QComboBox* m_kind;
    QLineEdit* m_text;
    QToolButton* m_clear;
    QLabel* m_count;
    QSplitter* m_splitter;
    QTableView* m_table;
    QTextBrowser* m_pane;
    int m_shownEvent = -1; ///< the event the pane shows
};

} // namespace gui
