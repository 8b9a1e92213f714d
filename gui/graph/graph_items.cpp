// Painting the graph view's boxes and arrows.
#include "gui/graph/graph_items.h"

#include "gui/graph/graph_palette.h"
#include "gui/graph/graph_scene.h"

#include <QFont>
#include <QFontMetricsF>
#include <QGraphicsSceneMouseEvent>
#include <QPainter>
#include <QPainterPathStroker>
#include <QStyleOptionGraphicsItem>
#include <algorithm>
#include <cmath>

namespace gui::graph {

using engine::view::NodeRole;
using engine::view::ViewItem;

namespace {

QColor qcolor(const Rgb& c)
{
    return QColor(c.r, c.g, c.b);
}

// An elided line: cut at the end, where a name's distinguishing suffix ("_k_cache") is rarely the
// point and the start says where it comes from; the tooltip has it whole.
QString fit(const QFontMetricsF& fm, const QString& text, double width)
{
    return fm.elidedText(text, Qt::ElideRight, width);
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
        + (isGroup() ? "\n(click + or double-click to expand; double-click again to fold)" : "")
        + (item.rewritten ? "\nrewritten by a pass" : "");
    setToolTip(tip);
}

LayoutOptions sceneLayoutOptions()
{
    // Node names are identifiers: letters, digits and '_'. Their mean advance, with a little slack
    // for names heavy in wide letters; the detail line the same in its font.
    const QString sample = "abcdefghijklmnopqrstuvwxyz_0123456789";
    LayoutOptions o;
    o.charWidth = QFontMetricsF(labelFont()).horizontalAdvance(sample) / sample.size() * 1.1;
    o.detailCharWidth = QFontMetricsF(detailFont()).horizontalAdvance(sample + ".") / (sample.size() + 1) * 1.1;
    o.maxWidth = 320;
    return o;
}

QColor paletteColor(const Rgb& rgb)
{
    return qcolor(rgb);
}

QRectF ItemBoxItem::markerRect() const
{
    if (!isGroup())
        return {};
    const QRectF r = rect();
    return QRectF(
        r.left() + shape::kTextInset, r.center().y() - shape::kMarkerSize / 2, shape::kMarkerSize, shape::kMarkerSize);
}

QRectF ItemBoxItem::boundingRect() const
{
    return rect().adjusted(-6, -8, 8, 6);
}

void ItemBoxItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*)
{
    // Screen pixels per scene point: what decides whether text is legible.
    const double lod = option->levelOfDetailFromTransform(painter->worldTransform());
    const QRectF r = rect();
    const bool group = isGroup();
    const QColor fill = group ? qcolor(palette::kGroupFill) : roleColor(m_item.role);
    if (lod * r.height() < kSpeckPixels && !isSelected() && !m_highlight.isValid()) {
        // Far out (a whole unfolded model fitted to the window) a box is a few pixels: drawn as a
        // block of its colour with a one-pixel darker outline, so that the structure stays visible
        // where thin scene-width borders would vanish and pale fills fade into the background.
        QPen outline(fill.darker(palette::kSpeckOutlineDarker), 1);
        outline.setCosmetic(true);
        painter->setPen(outline);
        painter->setBrush(fill.darker(palette::kSpeckFillDarker));
        painter->drawRect(r);
        drawBadge(painter, r, lod);
        return;
    }
    painter->setRenderHint(QPainter::Antialiasing);
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

    const bool legible = lod * shape::kDetailPixels >= kMinTextPixels;
    double left = r.left() + shape::kTextInset;
    if (group && legible) { // expand marker: a small boxed "+"
        const QRectF marker = markerRect();
        painter->setPen(QPen(qcolor(palette::kGroupBorder), 1.2));
        painter->setBrush(Qt::white);
        painter->drawRect(marker);
        painter->drawLine(
            QPointF(marker.left() + 3, marker.center().y()), QPointF(marker.right() - 3, marker.center().y()));
        painter->drawLine(
            QPointF(marker.center().x(), marker.top() + 3), QPointF(marker.center().x(), marker.bottom() - 3));
        left += shape::kMarkerSpace;
    }
    const QString label = QString::fromStdString(m_item.label);
    if (!legible) {
        // Zoomed out: nodes are coloured boxes; a group keeps its title, as large as the box allows
        // and at least kMinTextPixels on screen, so the overview still says what is where.
        if (group) {
            // As large as the box's height and width allow, up to 1.6 times the legible minimum.
            QFont f = labelFont();
            f.setPixelSize(100);
            const double at100 = std::max(1.0, QFontMetricsF(f).horizontalAdvance(label));
            const double size = std::min(
                { r.height() * 0.7, (r.width() - 6) * 100 / at100, kMinTextPixels * 1.6 / std::max(lod, 1e-3) });
            if (size * lod >= 2) { // not a smear of grey in the minimap
                f.setPixelSize(std::max(1, int(size)));
                painter->setFont(f);
                painter->setPen(kText);
                painter->drawText(r, Qt::AlignCenter, label);
            }
        }
        drawBadge(painter, r, lod);
        return;
    }
    const double textWidth = r.right() - shape::kTextInset - left;
    QString detail = QString::fromStdString(m_item.detail);
    if (group && detail.isEmpty())
        detail = QString("%1 nodes").arg(m_item.members);
    const QFont lf = labelFont(), df = detailFont();
    painter->setPen(kText);
    painter->setFont(lf);
    const QRectF top(left, r.top() + 2, textWidth, r.height() / 2 - 1);
    painter->drawText(top, Qt::AlignHCenter | Qt::AlignBottom, fit(QFontMetricsF(lf), label, textWidth));
    painter->setPen(kDetail);
    painter->setFont(df);
    const QRectF bottom(left, r.center().y() + 1, textWidth, r.height() / 2 - 3);
    painter->drawText(bottom, Qt::AlignHCenter | Qt::AlignTop, fit(QFontMetricsF(df), detail, textWidth));
    drawBadge(painter, r, lod);
}

void ItemBoxItem::drawBadge(QPainter* painter, const QRectF& r, double lod) const
{
    if (!m_item.rewritten)
        return;
    const QRectF badge(r.right() - 9, r.top() - 7, 15, 15); // on the top-right corner
    painter->setPen(Qt::NoPen);
    painter->setBrush(kRewritten);
    painter->drawEllipse(badge);
    if (lod * shape::kDetailPixels < kMinTextPixels)
        return;
    QFont bf = detailFont();
    bf.setBold(true);
    painter->setFont(bf);
    painter->setPen(Qt::white);
    painter->drawText(badge, Qt::AlignCenter, "R");
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

void ItemBoxItem::mousePressEvent(QGraphicsSceneMouseEvent* event)
{
    if (event->button() == Qt::LeftButton && markerRect().contains(event->pos())) {
        if (auto* s = qobject_cast<GraphScene*>(scene()))
            s->activateItem(m_viewIndex);
        event->accept();
        return;
    }
    QGraphicsItem::mousePressEvent(event);
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
    QPen pen(c, m_highlighted ? m_width + 1.5 : m_width, Qt::SolidLine, Qt::RoundCap);
    // Never thinner than a pixel on screen: far out, the edges are what shows the graph's shape.
    // (faint, so that a thousand of them do not hide the boxes they join).
    if (pen.widthF() * QStyleOptionGraphicsItem::levelOfDetailFromTransform(painter->worldTransform()) < 1.0) {
        QColor faint = c;
        faint.setAlpha(m_highlighted ? 255 : palette::kFarEdgeAlpha);
        pen.setColor(faint);
        pen.setWidthF(1.0);
        pen.setCosmetic(true);
    }
    painter->setPen(pen);
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
