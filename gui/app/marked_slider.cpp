#include "gui/app/marked_slider.h"

#include "gui/app/mark_palette.h"

#include <QHelpEvent>
#include <QPainter>
#include <QStyle>
#include <QStyleOptionSlider>
#include <QToolTip>
#include <algorithm>
#include <cmath>

namespace gui {

using engine::report::MarkKind;

namespace {
constexpr int kTick = 6; ///< tick height above the groove
constexpr int kNear = 3; ///< how close (px) the mouse must be to a mark for its tooltip
} // namespace

MarkedSlider::MarkedSlider(QWidget* parent)
    : QSlider(Qt::Horizontal, parent)
{
    setMouseTracking(true);
}

void MarkedSlider::setMarks(MarkKind kind, std::vector<int> events)
{
    m_marks.set(kind, std::move(events));
    update();
}

void MarkedSlider::setAllMarks(const engine::report::EventMarks& marks)
{
    m_marks.setAll(marks);
    update();
}

void MarkedSlider::clearMarks()
{
    m_marks.clear();
    update();
}

const std::vector<int>& MarkedSlider::marks(MarkKind kind) const
{
    return m_marks.of(kind);
}

QSize MarkedSlider::sizeHint() const
{
    QSize s = QSlider::sizeHint();
    return QSize(s.width(), s.height() + 2 * kTick);
}

QSize MarkedSlider::minimumSizeHint() const
{
    QSize s = QSlider::minimumSizeHint();
    return QSize(s.width(), s.height() + 2 * kTick);
}

QRect MarkedSlider::grooveRect() const
{
    QStyleOptionSlider opt;
    initStyleOption(&opt);
    return style()->subControlRect(QStyle::CC_Slider, &opt, QStyle::SC_SliderGroove, this);
}

void MarkedSlider::track(int& left, int& span) const
{
    QStyleOptionSlider opt;
    initStyleOption(&opt);
    const QRect groove = style()->subControlRect(QStyle::CC_Slider, &opt, QStyle::SC_SliderGroove, this);
    const QRect handle = style()->subControlRect(QStyle::CC_Slider, &opt, QStyle::SC_SliderHandle, this);
    left = groove.left() + handle.width() / 2;
    span = std::max(1, groove.width() - handle.width());
}

int MarkedSlider::xOfEvent(int event) const
{
    int left = 0, span = 1;
    track(left, span);
    if (maximum() <= minimum())
        return left;
    const int v = std::clamp(event, minimum(), maximum());
    return left + int(double(v - minimum()) * double(span) / double(maximum() - minimum()) + 0.5);
}

QString MarkedSlider::marksNear(int x) const
{
    int left = 0, span = 1;
    track(left, span);
    if (maximum() <= minimum())
        return QString();
    const double perPixel = double(maximum() - minimum()) / double(span);
    std::vector<std::pair<int, QString>> found; // (distance, text)
    for (const auto& [kind, events] : m_marks.byKind()) {
        // The marks whose x lies within kNear pixels: a binary search for the first event at or
        // after the left edge, then forward while within the right edge.
        const int from = minimum() + int((x - kNear - left) * perPixel);
        auto it = std::lower_bound(events.begin(), events.end(), from);
        for (; it != events.end(); ++it) {
            const int dx = xOfEvent(*it) - x;
            if (dx > kNear)
                break;
            if (dx >= -kNear) {
                found.emplace_back(std::abs(dx),
                    QString("%1 at event %2").arg(QString(engine::report::markKindLabel(kind)).toLower()).arg(*it + 1));
                break; // one per kind: the first in reach
            }
        }
    }
    std::stable_sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    QStringList lines;
    for (const auto& f : found)
        lines << f.second;
    return lines.join('\n');
}

bool MarkedSlider::event(QEvent* e)
{
    if (e->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(e);
        const QString text = marksNear(help->pos().x());
        if (!text.isEmpty()) {
            QToolTip::showText(help->globalPos(), text, this);
            return true;
        }
    }
    return QSlider::event(e);
}

void MarkedSlider::paintEvent(QPaintEvent* e)
{
    QSlider::paintEvent(e);
    m_ticksDrawn = 0;
    if (m_marks.empty() || maximum() <= minimum())
        return;
    int left = 0, span = 1;
    track(left, span);
    const QRect groove = grooveRect();
    const int mid = groove.center().y();
    // Ticks from the top of the widget down to the groove's middle; triangles under the groove.
    const int tickTop = std::max(0, mid - kTick - groove.height() / 2 - 2);
    const int tickBottom = mid - 1;
    const int triTop = std::min(height() - 5, mid + groove.height() / 2 + 1);
    const std::vector<MarkKind> kinds = m_marks.paintOrder();
    QPainter p(this);
    const double range = double(maximum() - minimum());
    for (MarkKind kind : kinds) {
        const std::vector<int>& events = m_marks.of(kind);
        const QColor colour = markColour(kind);
        if (markIsPeak(kind)) {
            p.setRenderHint(QPainter::Antialiasing);
            p.setPen(Qt::NoPen);
            p.setBrush(colour);
            for (int ev : events) {
                const int x = xOfEvent(ev);
                const QPointF tri[3] = { QPointF(x, triTop), QPointF(x - 4, triTop + 5), QPointF(x + 4, triTop + 5) };
                p.drawPolygon(tri, 3);
                ++m_ticksDrawn;
            }
            p.setRenderHint(QPainter::Antialiasing, false);
            continue;
        }
        // Level of detail: at most one tick per pixel column. The events are sorted, so a column
        // is drawn once and the next event that could land in a new column is searched for.
        p.setPen(QPen(colour, markPaintRank(kind) >= 3 ? 2 : 1));
        int lastX = -1;
        auto it = events.begin();
        while (it != events.end()) {
            const int x = left + int(double(std::clamp(*it, minimum(), maximum()) - minimum()) * span / range + 0.5);
            if (x != lastX) {
                p.drawLine(x, tickTop, x, tickBottom);
                ++m_ticksDrawn;
                lastX = x;
            }
            // The first event of the next column: skip everything that maps to this one.
            const int nextValue = minimum() + int(std::ceil((x + 0.5 - left) * range / span));
            it = std::lower_bound(it + 1, events.end(), std::max(*it + 1, nextValue));
        }
    }
}

} // namespace gui
