#include "gui/app/memory_chart.h"

#include "gui/app/mark_palette.h"
#include "gui/app/memory_view.h"

#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

namespace gui {

namespace {
using engine::report::MarkKind;
const QColor kReserved = markColour(MarkKind::PeakReserved);
const QColor kAllocated = markColour(MarkKind::PeakAllocated);
const QColor kCapacity(0xc0, 0x30, 0x30);
} // namespace

MemoryChart::MemoryChart(QWidget* parent)
    : QWidget(parent)
{
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    setFixedHeight(170);
    setFocusPolicy(Qt::ClickFocus);
    setMouseTracking(true);
}

void MemoryChart::setSeries(std::vector<uint64_t> reserved, std::vector<uint64_t> allocated, uint64_t capacity,
    std::vector<int64_t> timesUs)
{
    m_reserved = std::move(reserved);
    m_allocated = std::move(allocated);
    m_allocated.resize(m_reserved.size(), 0);
    m_capacity = capacity;
    // Time only where every event has one; kept non-decreasing so that x never runs backwards.
    m_hasTime = !m_reserved.empty() && timesUs.size() == m_reserved.size()
        && std::all_of(timesUs.begin(), timesUs.end(), [](int64_t t) { return t >= 0; });
    m_times.clear();
    if (m_hasTime) {
        m_times = std::move(timesUs);
        for (size_t i = 1; i < m_times.size(); ++i)
            m_times[i] = std::max(m_times[i], m_times[i - 1]);
        m_hasTime = m_times.back() > m_times.front();
    }
    m_cursor = 0;
    m_peak = m_peakAllocated = -1;
    uint64_t peak = 0, peakAllocated = 0;
    for (int i = 0; i < int(m_reserved.size()); ++i) {
        if (m_peak < 0 || m_reserved[size_t(i)] > peak) {
            peak = m_reserved[size_t(i)];
            m_peak = i;
        }
        if (m_peakAllocated < 0 || m_allocated[size_t(i)] > peakAllocated) {
            peakAllocated = m_allocated[size_t(i)];
            m_peakAllocated = i;
        }
    }
    peak = std::max(peak, peakAllocated);
    m_top = std::max<uint64_t>(1, peak + peak / 8);
    // The capacity line is drawn when it is within three times the peak; the scale then includes it.
    if (m_capacity > 0 && m_capacity <= 3 * std::max<uint64_t>(peak, 1))
        m_top = std::max(m_top, m_capacity + m_capacity / 20);
    m_first = 0;
    m_last = std::max(0, int(m_reserved.size()) - 1);
    m_selectFrom = m_selectTo = -1;
    m_rangeFirst = m_rangeLast = -1;
    update();
}

void MemoryChart::setLayers(
    std::vector<QString> names, std::vector<QColor> colours, std::vector<std::vector<uint64_t>> bytes)
{
    m_layerNames = std::move(names);
    m_layerColours = std::move(colours);
    m_layerColours.resize(m_layerNames.size(), QColor(0xb0, 0xb0, 0xb0));
    m_layers = std::move(bytes);
    if (m_layers.size() != m_reserved.size()) { // layers that do not match the events are not drawn
        m_layerNames.clear();
        m_layers.clear();
    }
    update();
}

void MemoryChart::setCursor(int event)
{
    if (event == m_cursor)
        return;
    m_cursor = event;
    if (!m_reserved.empty() && (event < m_first || event > m_last)) {
        const int width = m_last - m_first;
        const int first = std::clamp(event - width / 2, 0, std::max(0, int(m_reserved.size()) - 1 - width));
        m_first = first;
        m_last = first + width;
    }
    update();
}

void MemoryChart::zoomTo(int first, int last)
{
    const int n = int(m_reserved.size());
    if (n == 0)
        return;
    if (first > last)
        std::swap(first, last);
    first = std::clamp(first, 0, n - 1);
    last = std::clamp(last, 0, n - 1);
    if (last == first) { // at least two events, so that the axis has a width
        if (last + 1 < n)
            ++last;
        else if (first > 0)
            --first;
    }
    m_first = first;
    m_last = last;
    update();
}

void MemoryChart::resetZoom()
{
    m_rangeFirst = m_rangeLast = -1;
    zoomTo(0, int(m_reserved.size()) - 1);
}

QRect MemoryChart::plotRect() const
{
    // Room on the left for the widest axis label, below for the time axis. Measured once per font:
    // xOf() asks for the plot many times in each paint.
    if (m_labelWidth < 0) {
        QFont small = font();
        small.setPointSizeF(std::max(7.0, small.pointSizeF() * 0.9));
        m_labelWidth = QFontMetrics(small).horizontalAdvance("9999.9 MiB") + 16;
    }
    return rect().adjusted(std::max(70, m_labelWidth), 22, -12, -34);
}

double MemoryChart::axisValue(int event) const
{
    return m_hasTime ? double(m_times[size_t(event)] - m_times.front()) : double(event);
}

QString MemoryChart::axisLabel(double v) const
{
    if (!m_hasTime)
        return QString::number(qint64(v) + 1); // events are numbered from 1 on screen
    if (v <= 0)
        return "0";
    if (v < 1e3)
        return QString("+%1 µs").arg(v, 0, 'f', 0);
    if (v < 1e6)
        return QString("+%1 ms").arg(v / 1e3, 0, 'f', v < 1e4 ? 2 : 1);
    return QString("+%1 s").arg(v / 1e6, 0, 'f', v < 1e7 ? 3 : 2);
}

int MemoryChart::xOf(int event) const
{
    const QRect r = plotRect();
    if (m_reserved.empty() || m_last <= m_first)
        return r.left();
    const double v0 = axisValue(m_first), v1 = axisValue(m_last);
    if (v1 <= v0)
        return r.left();
    return r.left() + int((axisValue(event) - v0) * double(r.width()) / (v1 - v0) + 0.5);
}

int MemoryChart::eventAt(int x) const
{
    const int n = int(m_reserved.size());
    if (n == 0)
        return -1;
    const QRect r = plotRect();
    if (m_last <= m_first || r.width() <= 0)
        return m_first;
    const double v0 = axisValue(m_first), v1 = axisValue(m_last);
    const double v = v0 + double(std::clamp(x, r.left(), r.right() + 1) - r.left()) * (v1 - v0) / double(r.width());
    // The nearest event by axis value, among the visible ones.
    int lo = m_first, hi = m_last;
    while (lo < hi) {
        const int mid = lo + (hi - lo) / 2;
        if (axisValue(mid) < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo > m_first && v - axisValue(lo - 1) < axisValue(lo) - v)
        --lo;
    return lo;
}

void MemoryChart::mousePressEvent(QMouseEvent* e)
{
    if (e->button() != Qt::LeftButton || m_reserved.empty())
        return QWidget::mousePressEvent(e);
    if (e->modifiers() & Qt::ShiftModifier) {
        m_selectFrom = m_selectTo = eventAt(e->pos().x());
        update();
        return;
    }
    emit eventPicked(eventAt(e->pos().x()));
}

void MemoryChart::mouseMoveEvent(QMouseEvent* e)
{
    if (m_reserved.empty() || !(e->buttons() & Qt::LeftButton))
        return QWidget::mouseMoveEvent(e);
    const int ev = eventAt(e->pos().x());
    if (m_selectFrom >= 0) {
        m_selectTo = ev;
        update();
        return;
    }
    if (ev != m_cursor)
        emit eventPicked(ev);
}

void MemoryChart::mouseReleaseEvent(QMouseEvent* e)
{
    if (m_selectFrom < 0 || e->button() != Qt::LeftButton)
        return QWidget::mouseReleaseEvent(e);
    const int a = std::min(m_selectFrom, m_selectTo), b = std::max(m_selectFrom, m_selectTo);
    m_selectFrom = m_selectTo = -1;
    if (b > a) {
        selectRange(a, b);
        emit rangeSelected(a, b);
    }
    update();
}

void MemoryChart::mouseDoubleClickEvent(QMouseEvent*) { resetZoom(); }

void MemoryChart::keyPressEvent(QKeyEvent* e)
{
    if (e->key() == Qt::Key_Escape)
        return resetZoom();
    QWidget::keyPressEvent(e);
}

void MemoryChart::wheelEvent(QWheelEvent* e)
{
    const int n = int(m_reserved.size());
    if (n < 3)
        return;
    const int steps = e->angleDelta().y() / 120;
    if (steps == 0)
        return;
    // Zoom around the event under the mouse, keeping it where it is on screen.
    const int at = eventAt(int(e->position().x()));
    const double factor = steps > 0 ? 0.8 : 1.25;
    const double scale = std::pow(factor, std::abs(steps));
    const int width = std::max(2, int(double(m_last - m_first) * scale + 0.5));
    const double left = m_last > m_first ? double(at - m_first) / double(m_last - m_first) : 0.5;
    const int first = std::clamp(at - int(left * width + 0.5), 0, std::max(0, n - 1 - width));
    zoomTo(first, std::min(n - 1, first + width));
    e->accept();
}

bool MemoryChart::event(QEvent* e)
{
    if (e->type() == QEvent::ToolTip && !m_reserved.empty()) {
        auto* help = static_cast<QHelpEvent*>(e);
        const int ev = eventAt(help->pos().x());
        QString text = QString("event %1").arg(ev + 1);
        if (m_hasTime)
            text += QString(", %1").arg(axisLabel(axisValue(ev)));
        text += QString("\nreserved %1\nallocated %2").arg(formatBytes(m_reserved[size_t(ev)]), formatBytes(m_allocated[size_t(ev)]));
        text += "\nClick: go to it. Shift+drag: zoom to a range. Wheel: zoom. Double-click or Esc: whole run.";
        QToolTip::showText(help->globalPos(), text, this);
        return true;
    }
    if (e->type() == QEvent::FontChange)
        m_labelWidth = -1;
    return QWidget::event(e);
}

void MemoryChart::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    const QRect r = plotRect();
    QFont small = font();
    small.setPointSizeF(std::max(7.0, small.pointSizeF() * 0.9));
    p.setFont(small);
    const QFontMetrics fm(small);
    p.setPen(QColor(0xc8, 0xc8, 0xc8));
    p.drawRect(r);
    m_ticks.clear();
    m_columnsDrawn = 0;
    if (m_reserved.empty()) {
        p.setPen(palette().text().color());
        p.drawText(r, Qt::AlignCenter, "No events.");
        return;
    }
    auto yOf = [&](uint64_t v) { return r.bottom() - int(double(v) / double(m_top) * double(r.height()) + 0.5); };
    // Y axis: 0, half, top.
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
    // X axis: about one tick per 110 px, at round values.
    {
        const double v0 = axisValue(m_first), v1 = axisValue(m_last);
        const int want = std::max(2, r.width() / 110);
        double step = std::max(1.0, (v1 - v0) / want);
        const double mag = std::pow(10.0, std::floor(std::log10(step)));
        for (double m : { 1.0, 2.0, 5.0, 10.0 })
            if (m * mag >= step) {
                step = m * mag;
                break;
            }
        for (double v = std::ceil(v0 / step) * step; v <= v1 + 1e-9 && v1 > v0; v += step) {
            const int x = r.left() + int((v - v0) * double(r.width()) / (v1 - v0) + 0.5);
            p.setPen(QColor(0xe8, 0xe8, 0xe8));
            p.drawLine(x, r.top() + 1, x, r.bottom() - 1);
            p.setPen(palette().text().color());
            const QString label = axisLabel(v);
            m_ticks.push_back(label);
            const int w = fm.horizontalAdvance(label) + 4;
            p.drawText(QRect(std::clamp(x - w / 2, 0, width() - w), r.bottom() + 2, w, 14), Qt::AlignCenter, label);
        }
    }
    // Level of detail: per pixel column of the visible events, the lowest and highest values and
    // the value the column ends at (memory holds until the next event).
    struct Column {
        bool any = false;
        uint64_t rMin = 0, rMax = 0, aMin = 0, aMax = 0, rLast = 0, aLast = 0;
        int aMaxEvent = -1; ///< the event of the column's highest allocated: its layers are drawn
    };
    const int w = std::max(1, r.width() + 1);
    std::vector<Column> cols(static_cast<size_t>(w));
    for (int i = m_first; i <= m_last; ++i) {
        const int c = std::clamp(xOf(i) - r.left(), 0, w - 1);
        Column& col = cols[size_t(c)];
        const uint64_t rv = m_reserved[size_t(i)], av = m_allocated[size_t(i)];
        if (!col.any || av > col.aMax)
            col.aMaxEvent = i;
        if (!col.any) {
            col = Column { true, rv, rv, av, av, rv, av, i };
        } else {
            col.rMin = std::min(col.rMin, rv);
            col.rMax = std::max(col.rMax, rv);
            col.aMin = std::min(col.aMin, av);
            col.aMax = std::max(col.aMax, av);
            col.rLast = rv;
            col.aLast = av;
        }
    }
    // The memory before the first visible event's column holds from the event before it.
    uint64_t rHold = m_first > 0 ? m_reserved[size_t(m_first - 1)] : m_reserved[size_t(m_first)];
    uint64_t aHold = m_first > 0 ? m_allocated[size_t(m_first - 1)] : m_allocated[size_t(m_first)];
    QColor fill = kReserved;
    fill.setAlpha(50);
    int layerEvent = m_first > 0 ? m_first - 1 : m_first; // the layers that hold into a column without events
    for (int c = 0; c < w && !m_layers.empty(); ++c) {
        if (cols[size_t(c)].any)
            layerEvent = cols[size_t(c)].aMaxEvent;
        const std::vector<uint64_t>& values = m_layers[size_t(layerEvent)];
        uint64_t base = 0;
        for (size_t k = 0; k < values.size() && k < m_layerColours.size(); ++k) {
            if (!values[k])
                continue;
            QColor c2 = m_layerColours[k];
            c2.setAlpha(170);
            p.setPen(c2);
            p.drawLine(r.left() + c, yOf(base), r.left() + c, yOf(base + values[k]));
            base += values[k];
        }
    }
    for (int c = 0; c < w; ++c) {
        const Column& col = cols[size_t(c)];
        const int x = r.left() + c;
        const uint64_t rMax = col.any ? std::max(col.rMax, rHold) : rHold;
        const uint64_t rMin = col.any ? std::min(col.rMin, rHold) : rHold;
        const uint64_t aMax = col.any ? std::max(col.aMax, aHold) : aHold;
        const uint64_t aMin = col.any ? std::min(col.aMin, aHold) : aHold;
        p.setPen(fill);
        p.drawLine(x, r.bottom(), x, yOf(rMax));
        p.setPen(kReserved);
        p.drawLine(x, yOf(rMin), x, yOf(rMax));
        p.setPen(kAllocated);
        p.drawLine(x, yOf(aMin), x, yOf(aMax));
        if (col.any) {
            ++m_columnsDrawn;
            rHold = col.rLast;
            aHold = col.aLast;
        }
    }
    if (m_capacity > 0 && m_capacity <= m_top) {
        p.setPen(QPen(kCapacity, 1, Qt::DashLine));
        const int y = yOf(m_capacity);
        p.drawLine(r.left(), y, r.right(), y);
        p.drawText(QRect(r.left() + 4, y - 15, r.width() - 8, 14), Qt::AlignLeft | Qt::AlignBottom,
            "capacity " + formatBytes(m_capacity));
    }
    // Shift+drag selection.
    if (m_selectFrom >= 0) {
        const int a = xOf(std::min(m_selectFrom, m_selectTo)), b = xOf(std::max(m_selectFrom, m_selectTo));
        p.fillRect(QRect(QPoint(a, r.top()), QPoint(std::max(a + 1, b), r.bottom())), QColor(0x40, 0x80, 0xd0, 60));
    }
    // Peaks, where visible.
    p.setRenderHint(QPainter::Antialiasing);
    auto mark = [&](int ev, uint64_t value, const QColor& colour, const QString& text) {
        if (ev < m_first || ev > m_last)
            return;
        const QPoint at(xOf(ev), yOf(value));
        p.setBrush(colour);
        p.setPen(Qt::NoPen);
        p.drawEllipse(at, 4, 4);
        p.setBrush(Qt::NoBrush);
        p.setPen(palette().text().color());
        const int tw = fm.horizontalAdvance(text) + 4;
        const int x = std::clamp(at.x() - tw / 2, r.left() + 2, r.right() - tw - 2);
        p.drawText(QRect(x, std::max(0, at.y() - 18), tw, 14), Qt::AlignCenter, text);
    };
    if (m_peak >= 0)
        mark(m_peak, m_reserved[size_t(m_peak)], kReserved,
            QString("peak %1 at event %2").arg(formatBytes(m_reserved[size_t(m_peak)])).arg(m_peak + 1));
    if (m_peakAllocated >= 0 && m_peakAllocated != m_peak)
        mark(m_peakAllocated, m_allocated[size_t(m_peakAllocated)], kAllocated, QString());
    p.setRenderHint(QPainter::Antialiasing, false);
    const std::vector<MarkKind> markKinds = paintMarks(p, r);
    if (const QString summary = rangeSummary(); !summary.isEmpty()) { // over the plot, under the ticks
        const QString text = fm.elidedText(summary, Qt::ElideRight, r.width() - 12);
        const QRect box(r.left() + 4, r.top() + 9, fm.horizontalAdvance(text) + 8, fm.height() + 2);
        QColor back = palette().base().color();
        back.setAlpha(215);
        p.fillRect(box, back);
        p.setPen(palette().text().color());
        p.drawText(box, Qt::AlignCenter, text);
    }
    // Cursor.
    if (m_cursor >= m_first && m_cursor <= m_last) {
        const int cx = xOf(m_cursor);
        p.setPen(QPen(QColor(0x20, 0x20, 0x20), 1));
        p.drawLine(cx, r.top(), cx, r.bottom());
    }
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
    for (MarkKind k : markKinds) { // a short tick and the kind's name, as far as they fit
        const QString name = QString(engine::report::markKindLabel(k)).toLower();
        const int w = 6 + fm.horizontalAdvance(name) + 12;
        if (x + w > r.right())
            break;
        p.fillRect(QRect(x, 2, 2, 9), markColour(k));
        p.setPen(palette().text().color());
        p.drawText(QRect(x + 6, 0, fm.horizontalAdvance(name) + 4, 16), Qt::AlignVCenter, name);
        x += w;
    }
    if (!m_layers.empty()) { // the layers of the cursor's event, largest first, as far as they fit
        std::vector<size_t> order;
        for (size_t k = 0; k < m_layers[at].size() && k < m_layerNames.size(); ++k)
            if (m_layers[at][k])
                order.push_back(k);
        std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return m_layers[at][a] > m_layers[at][b]; });
        for (size_t k : order) {
            const QString name = m_layerNames[k] + " " + formatBytes(m_layers[at][k]);
            if (x + 18 + fm.horizontalAdvance(name) > r.right())
                break;
            legend(m_layerColours[k], name);
        }
    }
    const bool zoomed = m_first > 0 || m_last < int(m_reserved.size()) - 1;
    QString right = QString("%1 events").arg(m_reserved.size());
    if (zoomed) { // the range shown: its span and its own peak
        int top = m_first;
        for (int i = m_first; i <= m_last; ++i)
            if (m_reserved[size_t(i)] > m_reserved[size_t(top)])
                top = i;
        right = QString("events %1–%2 of %3").arg(m_first + 1).arg(m_last + 1).arg(m_reserved.size());
        if (m_hasTime)
            right += QString(" (%1)").arg(axisLabel(axisValue(m_last) - axisValue(m_first)).mid(1));
        right += QString(", highest %1 at event %2").arg(formatBytes(m_reserved[size_t(top)])).arg(top + 1);
    }
    right += m_hasTime ? ", time since the first" : ", by event";
    p.drawText(QRect(r.left(), r.bottom() + 17, r.width(), 16), Qt::AlignRight | Qt::AlignVCenter, right);
}

} // namespace gui
