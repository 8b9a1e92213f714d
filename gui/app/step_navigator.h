#pragma once
/// The stepper's navigator (issue 21): "Go to [kind (count)] [◀] [▶]   Speed [4 events/s]".
/// Previous and next go to the chosen kind's event before or after the current one (a peak kind:
/// both go to the peak); the combo lists only the kinds the run has, each with its count. The speed
/// combo sets how fast Play steps: 4, 16, 64 or 256 events a second, or one call a second.
///
/// The navigator only asks (stepRequested); the window steps the stepper and tells it back with
/// setCurrent. Events are 0-based in the API and numbered from 1 in tooltips, as the stepper shows
/// them. Fits in about 420 px, so it sits in the stepper dock at 1366x768.
#include "engine/report/event_marks.h"

#include <QWidget>
#include <memory>

class QComboBox;
class QToolButton;

namespace gui {

class StepNavigator : public QWidget {
    Q_OBJECT
public:
    explicit StepNavigator(QWidget* parent = nullptr);

    /// The run's marks; null (no run) disables the kind combo and both buttons. The chosen kind is
    /// kept when the new run has it, else the first kind listed is chosen.
    void setMarks(std::shared_ptr<const engine::report::EventMarks> marks);
    /// The stepper's event (0-based); updates which buttons are enabled and their tooltips.
    void setCurrent(int event);
    int current() const { return m_current; }
    /// Chooses a kind when the run has it (else nothing changes).
    void setKind(engine::report::MarkKind kind);
    engine::report::MarkKind kind() const { return m_kind; }
    /// Where previous / next would go from the current event, -1 when nowhere.
    int previousTarget() const;
    int nextTarget() const;

    /// The play speed: events per second, or 0 for one call per tick (a tick a second).
    int speed() const;
    /// Chooses one of the listed speeds (4, 16, 64, 256, or 0); others are ignored.
    void setSpeed(int eventsPerSecond);

    QComboBox* kindCombo() const { return m_kinds; }
    QComboBox* speedCombo() const { return m_speed; }
    QToolButton* previousButton() const { return m_previous; }
    QToolButton* nextButton() const { return m_next; }

public slots:
    /// Asks for the chosen kind's next (previous) event; nothing when there is none. The current
    /// event becomes that event at once, so that pressing again goes on even before the window
    /// answers with setCurrent.
    void next();
    void previous();

signals:
    void stepRequested(int event);
    /// The play speed changed: events per second, 0 = one call per tick (a tick a second).
    void speedChanged(int eventsPerSecond);

private:
    void fillKinds();
    void refresh();
    void go(int target);

    std::shared_ptr<const engine::report::EventMarks> m_marks;
    engine::report::MarkKind m_kind = engine::report::MarkKind::Capture;
    int m_current = 0;
    QComboBox* m_kinds = nullptr;
    QComboBox* m_speed = nullptr;
    QToolButton* m_previous = nullptr;
    QToolButton* m_next = nullptr;
};

} // namespace gui
