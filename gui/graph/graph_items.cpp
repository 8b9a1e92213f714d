// Painting the graph view's boxes and arrows.
#include "gui/graph/graph_items.h"

#include "gui/graph/graph_palette.h"
#include "gui/graph/graph_scene.h"

#include <QFont>
#include <QFontMetricsF>
#include <QPainter>
#include <QPainterPathStroker>
#include <QStyleOptionGraphicsItem>
#include <cmath>

namespace gui::graph {

using engine::view::NodeRole;
using engine::view::ViewItem;

namespace {

QColor qcolor(const Rgb& c)
{
    return QColor(c.r, c.g, c.b);
}

const QColor kSelected = qcolor(palette::kSelected);
const QColor kHighlight = qcolor(palette::kHighlight);
const QColor kRewritten = qcolor(palette::kRewritten);
const QColor kEdge = qcolor(palette::kEdge);
const QColor kText = qcolor(palette::kText);
const QColor kDetail = qcolor(palette::kDetail);

QFont labelFont()
{
    QFont f;
    f.setPixelSize(int(shape::kLabelPixels));
    f.setBold(true);
    return f;
}

QFont detailFont()
{
    QFont f;
    f.setPixelSize(int(shape::kDetailPixels));
    return f;
}

} // namespace

QColor roleColor(NodeRole role)
{
    return qcolor(roleRgb(role));
}

QString roleLabel(NodeRole role)
{
    return QString::fromUtf8(roleText(role));
}

std::vector<LegendEntry> legend()
{
    std::vector<LegendEntry> out;
    for (NodeRole r : kLegendRoles)
        out.push_back({ r, roleLabel(r), roleColor(r) });
    return out;
}

ItemBoxItem::ItemBoxItem(const ViewItem& item, int viewIndex, const ItemBox& box)
    : m_item(item)
    , m_viewIndex(viewIndex)
    , m_width(box.width)
    , m_height(box.height)
{
    setPos(box.x, box.y);
    setFlag(ItemIsSelectable);
    setZValue(1);
    setData(DataViewItem, viewIndex);
    setData(DataKind, isGroup() ? "group" : "node");
    setData(DataExpandable, isGroup());
    const QString tip = QString::fromStdString(item.label) + "\n" + QString::fromStdString(item.detail)
        + (isGroup() ? "\n(double-click to expand or collapse)" : "") + (item.rewritten ? "\nrewritten by a pass" : "");
    setToolTip(tip);
}

QRectF ItemBoxItem::boundingRect() const
{
    return rect().adjusted(-6, -8, 8, 6);
}

void ItemBoxItem::paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*)
{
    painter->setRenderHint(QPainter::Antialiasing);
    const QRectF r = rect();
    const bool group = isGroup();
    const QColor fill = group ? qcolor(palette::kGroupFill) : roleColor(m_item.role);
    const double radius = shape::kCornerRadius;
    if (group) { // two offset sheets behind: "more inside"
        painter->setPen(QPen(qcolor(palette::kGroupSheetBorder), 1));
        painter->setBrush(fill.darker(palette::kGroupSheetDarker));
        painter->drawRoundedRect(r.translated(shape::kSheetOffset, shape::kSheetOffset), radius, radius);
    }
    QPen border(group ? qcolor(palette::kGroupBorder) : qcolor(palette::kNodeBorder), group ? 1.6 : 1.0);
    if (m_item.rewritten)
        border = QPen(kRewritten, 2.0);
    if (m_highlight.isValid())
        border = QPen(m_highlight, 3.5);
    if (isSelected())
        border = QPen(kSelected, 3.0);
    painter->setPen(border);
    painter->setBrush(fill);
    painter->drawRoundedRect(r, radius, radius);

    double left = r.left() + shape::kTextInset;
    if (group) { // expand marker: a small boxed "+"
        const QRectF marker(left, r.center().y() - shape::kMarkerSize / 2, shape::kMarkerSize, shape::kMarkerSize);
        painter->setPen(QPen(qcolor(palette::kGroupBorder), 1.2));
        painter->setBrush(Qt::white);
        painter->drawRect(marker);
        painter->drawLine(
            QPointF(marker.left() + 3, marker.center().y()), QPointF(marker.right() - 3, marker.center().y()));
        painter->drawLine(
            QPointF(marker.center().x(), marker.top() + 3), QPointF(marker.center().x(), marker.bottom() - 3));
        left += shape::kMarkerSpace;
    }
    const double textWidth = r.right() - shape::kTextInset - left;
    const QString label = QString::fromStdString(m_item.label);
    QString detail = QString::fromStdString(m_item.detail);
    if (group && detail.isEmpty())
        detail = QString("%1 nodes").arg(m_item.members);
    const QFont lf = labelFont(), df = detailFont();
    painter->setPen(kText);
    painter->setFont(lf);
    const QRectF top(left, r.top() + 2, textWidth, r.height() / 2 - 1);
    painter->drawText(
        top, Qt::AlignHCenter | Qt::AlignBottom, QFontMetricsF(lf).elidedText(label, Qt::ElideMiddle, textWidth));
    painter->setPen(kDetail);
    painter->setFont(df);
    const QRectF bottom(left, r.center().y() + 1, textWidth, r.height() / 2 - 3);
    painter->drawText(
        bottom, Qt::AlignHCenter | Qt::AlignTop, QFontMetricsF(df).elidedText(detail, Qt::ElideMiddle, textWidth));

    if (m_item.rewritten) { // badge on the top-right corner
        const QRectF badge(r.right() - 9, r.top() - 7, 15, 15);
        painter->setPen(Qt::NoPen);
        painter->setBrush(kRewritten);
        painter->drawEllipse(badge);
        QFont bf = detailFont();
        bf.setBold(true);
        painter->setFont(bf);
        painter->setPen(Qt::white);
        painter->drawText(badge, Qt::AlignCenter, "R");
    }
}

void ItemBoxItem::setHighlighted(bool on)
{
    setHighlightColor(on ? kHighlight : QColor());
}

void ItemBoxItem::setHighlightColor(const QColor& color)
{
    if (m_highlight != color) {
        m_highlight = color;
        update();
    }
}

void ItemBoxItem::mouseDoubleClickEvent(QGraphicsSceneMouseEvent* event)
{
    if (auto* s = qobject_cast<GraphScene*>(scene()))
        s->activateItem(m_viewIndex);
    QGraphicsItem::mouseDoubleClickEvent(event);
}

EdgeItem::EdgeItem(const EdgeRoute& route, int edgeIndex)
    : m_width(route.penWidth)
{
    QPainterPath path;
    const auto pt = [](const LayoutPoint& p) { return QPointF(p.x, p.y); };
    if (!route.points.empty()) {
        path.moveTo(pt(route.points[0]));
        std::size_t i = 1;
        for (; i + 2 < route.points.size(); i += 3)
            path.cubicTo(pt(route.points[i]), pt(route.points[i + 1]), pt(route.points[i + 2]));
        for (; i < route.points.size(); ++i) // not a whole Bezier (a straight fallback line)
            path.lineTo(pt(route.points[i]));
    }
    // The arrowhead: from the end of the route to Graphviz's tip, or a 9 pt head ending the route.
    if (route.points.size() >= 2) {
        QPointF base = pt(route.points.back()), tip = base;
        if (route.hasArrow) {
            tip = pt(route.arrowTip);
        } else {
            const QPointF prev = pt(route.points[route.points.size() - 2]);
            const QPointF d = base - prev;
            const double len = std::hypot(d.x(), d.y());
            if (len > 0)
                base = tip - d / len * shape::kArrowLength;
        }
        const QPointF d = tip - base;
        const double len = std::hypot(d.x(), d.y());
        if (len > 0) {
            const QPointF n(-d.y() / len, d.x() / len);
            const double half = 3.5 + m_width / 2;
            m_arrow << tip << base + n * half << base - n * half;
        }
    }
    setPath(path);
    setPen(QPen(kEdge, m_width, Qt::SolidLine, Qt::RoundCap));
    setZValue(0);
    setData(DataViewItem, -1);
    setData(DataKind, "edge");
    setData(DataViewEdge, edgeIndex);
}

QRectF EdgeItem::boundingRect() const
{
    return QGraphicsPathItem::boundingRect().united(m_arrow.boundingRect()).adjusted(-4, -4, 4, 4);
}

QPainterPath EdgeItem::shape() const
{
    QPainterPathStroker stroker;
    stroker.setWidth(m_width + 6);
    QPainterPath s = stroker.createStroke(path());
    s.addPolygon(m_arrow);
    return s;
}

void EdgeItem::paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*)
{
    painter->setRenderHint(QPainter::Antialiasing);
    const QColor c = m_highlighted ? kHighlight : kEdge;
    painter->setPen(QPen(c, m_highlighted ? m_width + 1.5 : m_width, Qt::SolidLine, Qt::RoundCap));
    painter->setBrush(Qt::NoBrush);
    painter->drawPath(path());
    painter->setPen(Qt::NoPen);
    painter->setBrush(c);
    painter->drawPolygon(m_arrow);
}

void EdgeItem::setHighlighted(bool on)
{
    if (m_highlighted != on) {
        m_highlighted = on;
        update();
    }
}

} // namespace gui::graph
