#pragma once
/// The chart under the Memory view: device reserved and allocated bytes after every event of a run
/// (Event::deviceReserved / deviceAllocated), painted with QPainter, with the peaks marked, the
/// device capacity as a line when it fits the scale, and a cursor at the current step.
///
/// The x axis is time where the run knows it (a recording's time_us: Event::timeUs), else the
/// event number. The view zooms as memory_viz and Nsight do: the wheel zooms around the mouse,
/// Shift+drag selects a range (rangeSelected; the view zooms to it), double-click or Esc shows the
/// whole run again. Whatever the zoom, at most one min/max pair per pixel column is drawn (level
/// of detail), so a run of 100,000 steps paints as fast as one of 100. Clicking or dragging picks
/// the event under the mouse; the tooltip names the event, its time and both values.
///
/// Marks (issue 21): the run's captures, recaptures, hazards, ... (setMarks) as thin ticks along
/// the top of the plot, in the colours of mark_palette.h with a legend entry each, at most one tick
/// per pixel column per kind. The peak kinds are not ticked: the chart marks its own peaks. A range
/// selected with Shift+drag (or selectRange) is summed up over the plot: "events a–b · Δreserved +X ·
/// peak Y at event Z · N captures, M hazards", events numbered from 1 as the stepper shows them.
#include "engine/report/event_marks.h"
#include "gui/app/mark_palette.h"

#include <QColor>
#include <QString>
#include <QWidget>
#include <cstdint>
#include <map>
#include <vector>

class QPainter;

namespace gui {

class MemoryChart : public QWidget {
    Q_OBJECT
public:
    explicit MemoryChart(QWidget* parent = nullptr);

    /// One value pair per event; `capacity` 0 when unknown; `timesUs` one time per event in
    /// microseconds, or empty (or any negative) when the run does not know them: the axis then
    /// counts events. Resets the cursor to event 0 and the zoom to the whole run.
    void setSeries(std::vector<uint64_t> reserved, std::vector<uint64_t> allocated, uint64_t capacity,
        std::vector<int64_t> timesUs = {});
    /// The allocated bytes of every event split into layers (a recording's owner categories:
    /// Event::categoryBytes), drawn stacked under the allocated line, bottom first. `bytes[e][k]`
    /// is layer k's bytes after event e; an event with fewer values has 0 in the rest. Empty: none.
    void setLayers(std::vector<QString> names, std::vector<QColor> colours, std::vector<std::vector<uint64_t>> bytes);
    bool hasLayers() const { return !m_layerNames.empty(); }
    /// Moves the cursor (and the zoomed window, when the event is outside it).
    void setCursor(int event);
    int cursor() const { return m_cursor; }
    /// The event drawn at x (clamped to the visible events), -1 when there are none.
    int eventAt(int x) const;
    /// The x of event `event`'s point (may be outside the plot when zoomed).
    int xOf(int event) const;

    /// The visible events, first and last (the whole run unless zoomed).
    int firstShown() const { return m_first; }
    int lastShown() const { return m_last; }
    /// Shows events [first, last] (clamped; at least two events when the run has them).
    void zoomTo(int first, int last);
    void resetZoom();
    /// The events (0-based, any order) of kind `kind` drawn as ticks; an empty list removes it.
    void setMarks(engine::report::MarkKind kind, std::vector<int> events);
    /// Every kind `marks` has (the ones already set are replaced).
    void setAllMarks(const engine::report::EventMarks& marks);
    void clearMarks();
    const std::vector<int>& marks(engine::report::MarkKind kind) const;
    /// Zooms to [first, last] and sums it up over the plot, as Shift+drag does (without the
    /// rangeSelected signal). resetZoom() and setSeries() clear the selection.
    void selectRange(int first, int last);
    int selectedFirst() const { return m_rangeFirst; }
    int selectedLast() const { return m_rangeLast; }
    /// The summary line of the selected range, empty when none is selected.
    QString rangeSummary() const;
    /// The mark ticks the last paint drew, all kinds together (never more than one per pixel column per kind).
    int markTicksDrawn() const { return m_markTicksDrawn; }

    /// Events of the highest reserved and highest allocated values (-1 when there are no events).
    int peakReservedEvent() const { return m_peak; }
    int peakAllocatedEvent() const { return m_peakAllocated; }
    /// Whether the x axis is time (every event has a time) or event numbers.
    bool hasTime() const { return m_hasTime; }
    /// The x axis's tick labels as last painted (for tests and screenshots).
    const std::vector<QString>& tickLabels() const { return m_ticks; }
    /// The pixel columns the last paint drew (never more than the plot's width).
    int columnsDrawn() const { return m_columnsDrawn; }

    QSize sizeHint() const override { return QSize(600, 170); }
    QSize minimumSizeHint() const override { return QSize(200, 120); }

signals:
    /// The user clicked (or dragged to) event `event`.
    void eventPicked(int event);
    /// The user selected events [first, last] with Shift+drag.
    void rangeSelected(int first, int last);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    bool event(QEvent* event) override;

private:
    QRect plotRect() const;
    /// Position of event i on the axis: its time, or i.
    double axisValue(int event) const;
    /// "+12.5 ms", "+3.20 s" from the first event's time, or the event number.
    QString axisLabel(double value) const;
    /// The first event whose axis value is at least `value` (m_last + 1 when none), among the visible.
    int firstEventFrom(double value) const;
    /// Ticks along the top of the plot and the legend entries' kinds; returns the kinds drawn.
    std::vector<engine::report::MarkKind> paintMarks(QPainter& p, const QRect& plot);

    std::vector<uint64_t> m_reserved, m_allocated;
    std::vector<int64_t> m_times;
    bool m_hasTime = false;
    uint64_t m_capacity = 0;
    uint64_t m_top = 1; ///< bytes at the top of the plot
    int m_peak = -1; ///< event of the highest reserved
    int m_peakAllocated = -1;
    int m_cursor = 0;
    int m_first = 0, m_last = 0; ///< the visible events
    int m_selectFrom = -1, m_selectTo = -1; ///< Shift+drag in progress
    std::vector<QString> m_layerNames;
    std::vector<QColor> m_layerColours;
    std::vector<std::vector<uint64_t>> m_layers;
    std::vector<QString> m_ticks;
    int m_columnsDrawn = 0;
    MarkSet m_marks;
    int m_rangeFirst = -1, m_rangeLast = -1; ///< the selected range, -1 when none
    int m_markTicksDrawn = 0;
    mutable int m_labelWidth = -1; ///< room for the axis labels in this font, -1 until measured
};

} // namespace gui
