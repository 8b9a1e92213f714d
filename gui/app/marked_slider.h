#pragma once
/// The stepper's slider with the run's marks on it (issue 21): thin coloured ticks above the groove
/// at the events of each kind set (captures, recaptures, hazards, ...; colours from mark_palette.h),
/// the peaks as small triangles under it. The slider's value is the 0-based event index; tooltips
/// number events from 1, as the stepper and the Inspector do ("hazard at event 17").
///
/// Level of detail: per kind at most one tick per pixel column is drawn, whatever the number of
/// marks, so 100,000 marks paint as fast as ten.
#include "engine/report/event_marks.h"
#include "gui/app/mark_palette.h"

#include <QSlider>
#include <map>
#include <vector>

namespace gui {

class MarkedSlider : public QSlider {
    Q_OBJECT
public:
    explicit MarkedSlider(QWidget* parent = nullptr);

    /// The events (0-based, any order) of kind `kind`; an empty list removes the kind.
    void setMarks(engine::report::MarkKind kind, std::vector<int> events);
    /// Every kind with a non-empty list of `marks` (a convenience for the window).
    void setAllMarks(const engine::report::EventMarks& marks);
    void clearMarks();
    const std::vector<int>& marks(engine::report::MarkKind kind) const;
    /// The x (widget coordinates) where event `event` sits on the groove.
    int xOfEvent(int event) const;
    /// The marks within a few pixels of x, nearest first, as the tooltip names them:
    /// "hazard at event 17". Empty when none is near.
    QString marksNear(int x) const;
    /// The tick columns the last paint drew, all kinds together (for tests).
    int ticksDrawn() const { return m_ticksDrawn; }

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;
    bool event(QEvent* event) override;

private:
    QRect grooveRect() const;
    /// The pixel span the handle's centre travels: [left, left + span].
    void track(int& left, int& span) const;

    MarkSet m_marks;
    int m_ticksDrawn = 0;
};

} // namespace gui
