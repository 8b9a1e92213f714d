#pragma once
/// The chart under the Memory view: device reserved and allocated bytes after every event of a run
/// (Event::deviceReserved / deviceAllocated), painted with QPainter, with the peak marked, the
/// device capacity as a line when it fits the scale, and a cursor at the current step. Clicking or
/// dragging picks the event under the mouse.
#include <QWidget>
#include <cstdint>
#include <vector>

namespace gui {

class MemoryChart : public QWidget {
    Q_OBJECT
public:
    explicit MemoryChart(QWidget* parent = nullptr);

    /// One value pair per event; `capacity` 0 when unknown. Resets the cursor to event 0.
    void setSeries(std::vector<uint64_t> reserved, std::vector<uint64_t> allocated, uint64_t capacity);
    /// Moves the cursor.
    void setCursor(int event);
    int cursor() const { return m_cursor; }
    /// The event drawn at x (clamped to the events), -1 when there are none.
    int eventAt(int x) const;
    /// The x of event `event`'s point.
    int xOf(int event) const;

    QSize sizeHint() const override { return QSize(600, 150); }
    QSize minimumSizeHint() const override { return QSize(200, 110); }

signals:
    /// The user clicked (or dragged to) event `event`.
    void eventPicked(int event);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;

private:
    QRect plotRect() const;

    std::vector<uint64_t> m_reserved, m_allocated;
    uint64_t m_capacity = 0;
    uint64_t m_top = 1; ///< bytes at the top of the plot
    int m_peak = -1; ///< event of the highest reserved
    int m_cursor = 0;
};

} // namespace gui
