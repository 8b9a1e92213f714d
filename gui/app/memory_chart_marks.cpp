// MemoryChart's marks and range summary (issue 21), beside the chart's series and axes in
// memory_chart.cpp.
#include "gui/app/mark_palette.h"
#include "gui/app/memory_chart.h"
#include "gui/app/memory_view.h"

#include <QPainter>
#include <QStringList>
#include <algorithm>

namespace gui {

using engine::report::MarkKind;

namespace {
/// "3 captures", "1 hazard", "2 calls" for the range summary.
QString countText(MarkKind k, int n)
{
    QString one, many;
    switch (k) {
    case MarkKind::CallStart:
        one = "call";
        many = "calls";
        break;
    case MarkKind::Eager:
        one = "eager run";
        many = "eager runs";
        break;
    case MarkKind::OutOfMemory:
        one = many = "out of memory";
        break;
    default:
        one = QString(engine::report::markKindLabel(k)).toLower();
        many = one + "s";
        break;
    }
    return QString("%1 %2").arg(n).arg(n == 1 ? one : many);
}
} // namespace

void MemoryChart::setMarks(MarkKind kind, std::vector<int> events)
{
    m_marks.set(kind, std::move(events));
    update();
}

void MemoryChart::setAllMarks(const engine::report::EventMarks& marks)
{
    m_marks.setAll(marks);
    update();
}

void MemoryChart::clearMarks()
{
    m_marks.clear();
    update();
}

const std::vector<int>& MemoryChart::marks(MarkKind kind) const
{
    return m_marks.of(kind);
}

void MemoryChart::selectRange(int first, int last)
{
    const int n = int(m_reserved.size());
    if (n == 0)
        return;
    if (first > last)
        std::swap(first, last);
    zoomTo(first, last);
    m_rangeFirst = std::clamp(first, 0, n - 1);
    m_rangeLast = std::clamp(last, 0, n - 1);
    update();
}

QString MemoryChart::rangeSummary() const
{
    if (m_rangeFirst < 0 || m_rangeLast < m_rangeFirst || size_t(m_rangeLast) >= m_reserved.size())
        return QString();
    const int a = m_rangeFirst, b = m_rangeLast;
    int top = a;
    for (int i = a; i <= b; ++i)
        if (m_reserved[size_t(i)] > m_reserved[size_t(top)])
            top = i;
    const uint64_t from = m_reserved[size_t(a)], to = m_reserved[size_t(b)];
    const QString delta = to >= from ? "+" + formatBytes(to - from) : "−" + formatBytes(from - to);
    QStringList parts;
    parts << QString("events %1–%2").arg(a + 1).arg(b + 1) << "Δreserved " + delta
          << QString("peak %1 at event %2").arg(formatBytes(m_reserved[size_t(top)])).arg(top + 1);
    QStringList counts;
    for (MarkKind k : engine::report::allMarkKinds()) {
        if (markIsPeak(k))
            continue;
        const std::vector<int>& v = marks(k);
        const int n = int(std::upper_bound(v.begin(), v.end(), b) - std::lower_bound(v.begin(), v.end(), a));
        if (n > 0)
            counts << countText(k, n);
    }
    if (!counts.isEmpty())
        parts << counts.join(", ");
    return parts.join(" · ");
}

int MemoryChart::firstEventFrom(double value) const
{
    int lo = m_first, hi = m_last + 1;
    while (lo < hi) {
        const int mid = lo + (hi - lo) / 2;
        if (axisValue(mid) < value)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

std::vector<MarkKind> MemoryChart::paintMarks(QPainter& p, const QRect& r)
{
    m_markTicksDrawn = 0;
    std::vector<MarkKind> kinds = m_marks.paintOrder();
    kinds.erase(std::remove_if(kinds.begin(), kinds.end(), markIsPeak), kinds.end()); // the chart draws its own peaks
    if (m_reserved.empty() || m_last <= m_first)
        return kinds;
    const double v0 = axisValue(m_first), v1 = axisValue(m_last);
    if (v1 <= v0)
        return kinds;
    const double perPixel = (v1 - v0) / double(r.width());
    for (MarkKind k : kinds) {
        const std::vector<int>& events = m_marks.of(k);
        p.setPen(QPen(markColour(k), markPaintRank(k) >= 3 ? 2 : 1)); // rare kinds stand out
        // Level of detail: one tick per column. From a drawn column, the next event that can land
        // in another column is found by two binary searches (events by axis value, then marks).
        auto it = std::lower_bound(events.begin(), events.end(), m_first);
        while (it != events.end() && *it <= m_last) {
            const double v = axisValue(*it);
            const int x = r.left() + int((v - v0) / perPixel + 0.5);
            p.drawLine(x, r.top() + 1, x, r.top() + 6);
            ++m_markTicksDrawn;
            const int nextEvent = firstEventFrom(v0 + (double(x - r.left()) + 0.5) * perPixel);
            it = std::lower_bound(it + 1, events.end(), std::max(*it + 1, nextEvent));
        }
    }
    return kinds;
}

} // namespace gui
