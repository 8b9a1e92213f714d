#include "gui/app/memory_chart.h"

#include "gui/app/memory_view.h"

#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <algorithm>

namespace gui {

namespace {
const QColor kReserved(0x4e, 0x79, 0xa7);
const QColor kAllocated(0xf2, 0x8e, 0x2b);
const QColor kCapacity(0xc0, 0x30, 0x30);
} // namespace

MemoryChart::MemoryChart(QWidget* parent)
    : QWidget(parent)
{
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    setFixedHeight(150);
    setToolTip("Device memory after each event; click to go to an event.");
}

void MemoryChart::setSeries(std::vector<uint64_t> reserved, std::vector<uint64_t> allocated, uint64_t capacity)
{
    m_reserved = std::move(reserved);
    m_allocated = std::move(allocated);
    m_capacity = capacity;
    m_cursor = 0;
    m_peak = -1;
    uint64_t peak = 0;
    for (int i = 0; i < int(m_reserved.size()); ++i)
        if (m_peak < 0 || m_reserved[size_t(i)] > peak) {
            peak = m_reserved[size_t(i)];
            m_peak = i;
        }
    for (uint64_t a : m_allocated)
        peak = std::max(peak, a);
    m_top = std::max<uint64_t>(1, peak + peak / 8);
    // The capacity line is drawn when it is within three times the peak; the scale then includes it.
    if (m_capacity > 0 && m_capacity <= 3 * std::max<uint64_t>(peak, 1))
        m_top = std::max(m_top, m_capacity + m_capacity / 20);
    update();
}

void MemoryChart::setCursor(int event)
{
    if (event == m_cursor)
        return;
    m_cursor = event;
    update();
}

QRect MemoryChart::plotRect() const
{
    // Room on the left for the widest axis label.
    QFont small = font();
    small.setPointSizeF(std::max(7.0, small.pointSizeF() * 0.9));
    const int left = QFontMetrics(small).horizontalAdvance("9999.9 MiB") + 16;
    return rect().adjusted(std::max(70, left), 22, -12, -18);
}

int MemoryChart::xOf(int event) const
{
    const QRect r = plotRect();
    const int n = int(m_reserved.size());
    if (n <= 1)
        return r.left();
    return r.left() + int(double(event) * double(r.width()) / double(n - 1) + 0.5);
}

int MemoryChart::eventAt(int x) const
{
    const int n = int(m_reserved.size());
    if (n == 0)
        return -1;
    const QRect r = plotRect();
    if (n == 1 || r.width() <= 0)
        return 0;
    const int e = int(double(x - r.left()) * double(n - 1) / double(r.width()) + 0.5);
    return std::clamp(e, 0, n - 1);
}

void MemoryChart::mousePressEvent(QMouseEvent* e)
{
    if (e->button() != Qt::LeftButton || m_reserved.empty())
        return QWidget::mousePressEvent(e);
    emit eventPicked(eventAt(e->pos().x()));
}

void MemoryChart::mouseMoveEvent(QMouseEvent* e)
{
    if (!(e->buttons() & Qt::LeftButton) || m_reserved.empty())
        return QWidget::mouseMoveEvent(e);
    const int ev = eventAt(e->pos().x());
    if (ev != m_cursor)
        emit eventPicked(ev);
}

void MemoryChart::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    p.fillRect(rect(), palette().base());
    const QRect r = plotRect();
    QFont small = font();
    small.setPointSizeF(std::max(7.0, small.pointSizeF() * 0.9));
    p.setFont(small);
    const QFontMetrics fm(small);
    p.setPen(QColor(0xc8, 0xc8, 0xc8));
    p.drawRect(r);
    if (m_reserved.empty()) {
        p.setPen(palette().text().color());
        p.drawText(r, Qt::AlignCenter, "No events.");
        return;
    }
    auto yOf = [&](uint64_t v) { return r.bottom() - int(double(v) / double(m_top) * double(r.height()) + 0.5); };
    // Y axis: 0, half, top.
    p.setPen(palette().text().color());
    for (int i = 0; i <= 2; ++i) {
        const uint64_t v = m_top / 2 * uint64_t(i);
        const int y = yOf(v);
        if (i > 0) {
            p.setPen(QColor(0xe8, 0xe8, 0xe8));
            p.drawLine(r.left() + 1, y, r.right() - 1, y);
        }
        p.setPen(palette().text().color());
        p.drawText(QRect(0, y - 8, r.left() - 6, 16), Qt::AlignRight | Qt::AlignVCenter, formatBytes(v));
    }
    auto series = [&](const std::vector<uint64_t>& values, const QColor& colour, bool fill) {
        QPainterPath path;
        path.moveTo(xOf(0), yOf(values[0]));
        for (int i = 1; i < int(values.size()); ++i) {
            path.lineTo(xOf(i), yOf(values[size_t(i - 1)])); // a step: memory holds until the next event
            path.lineTo(xOf(i), yOf(values[size_t(i)]));
        }
        if (fill) {
            QPainterPath area = path;
            area.lineTo(xOf(int(values.size()) - 1), r.bottom());
            area.lineTo(xOf(0), r.bottom());
            area.closeSubpath();
            QColor c = colour;
            c.setAlpha(50);
            p.fillPath(area, c);
        }
        p.setPen(QPen(colour, 1.5));
        p.drawPath(path);
    };
    series(m_reserved, kReserved, true);
    series(m_allocated, kAllocated, false);
    if (m_capacity > 0 && m_capacity <= m_top) {
        p.setPen(QPen(kCapacity, 1, Qt::DashLine));
        const int y = yOf(m_capacity);
        p.drawLine(r.left(), y, r.right(), y);
        p.drawText(QRect(r.left() + 4, y - 15, r.width() - 8, 14), Qt::AlignLeft | Qt::AlignBottom,
            "capacity " + formatBytes(m_capacity));
    }
    // Peak.
    if (m_peak >= 0) {
        const QPoint peak(xOf(m_peak), yOf(m_reserved[size_t(m_peak)]));
        p.setBrush(kReserved);
        p.setPen(Qt::NoPen);
        p.drawEllipse(peak, 4, 4);
        p.setBrush(Qt::NoBrush);
        p.setPen(palette().text().color());
        const QString text
            = QString("peak %1 at event %2").arg(formatBytes(m_reserved[size_t(m_peak)])).arg(m_peak + 1);
        const int w = fm.horizontalAdvance(text) + 4;
        const int x = std::clamp(peak.x() - w / 2, r.left() + 2, r.right() - w - 2);
        p.drawText(QRect(x, std::max(0, peak.y() - 18), w, 14), Qt::AlignCenter, text);
    }
    // Cursor.
    const int cx = xOf(std::clamp(m_cursor, 0, int(m_reserved.size()) - 1));
    p.setPen(QPen(QColor(0x20, 0x20, 0x20), 1));
    p.drawLine(cx, r.top(), cx, r.bottom());
    // Legend on the top line.
    int x = r.left();
    auto legend = [&](const QColor& c, const QString& name) {
        p.fillRect(QRect(x, 6, 14, 3), c);
        p.setPen(palette().text().color());
        p.drawText(QRect(x + 18, 0, fm.horizontalAdvance(name) + 4, 16), Qt::AlignVCenter, name);
        x += 18 + fm.horizontalAdvance(name) + 14;
    };
    const size_t at = size_t(std::clamp(m_cursor, 0, int(m_reserved.size()) - 1));
    legend(kReserved, "reserved " + formatBytes(m_reserved[at]));
    legend(kAllocated, "allocated " + formatBytes(m_allocated[at]));
    if (m_capacity > m_top)
        legend(kCapacity, "capacity " + formatBytes(m_capacity) + " (off the scale)");
    p.drawText(QRect(r.left(), r.bottom() + 2, r.width(), 16), Qt::AlignRight | Qt::AlignVCenter,
        QString("%1 events").arg(m_reserved.size()));
}

} // namespace gui
