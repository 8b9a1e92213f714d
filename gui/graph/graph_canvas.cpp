// Pan, zoom and the minimap.
#include "gui/graph/graph_canvas.h"

#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QWheelEvent>
#include <algorithm>

namespace gui::graph {

ZoomView::ZoomView(QWidget* parent)
    : QGraphicsView(parent)
{
    setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing | QPainter::SmoothPixmapTransform);
    setDragMode(QGraphicsView::ScrollHandDrag);
    setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
    setViewportUpdateMode(QGraphicsView::SmartViewportUpdate);
    setFocusPolicy(Qt::StrongFocus);
}

void ZoomView::zoomBy(double factor)
{
    const double target = std::clamp(zoom() * factor, 0.05, 4.0);
    if (zoom() > 0)
        scale(target / zoom(), target / zoom());
    emit visibleRectChanged();
}

QRectF ZoomView::drawnRect() const
{
    if (!scene() || scene()->items().isEmpty())
        return {};
    const double margin = 16;
    return scene()->itemsBoundingRect().adjusted(-margin, -margin, margin, margin);
}

void ZoomView::fitAll()
{
    const QRectF drawn = drawnRect();
    if (drawn.isEmpty()) {
        resetTransform();
        emit visibleRectChanged();
        return;
    }
    fitInView(drawn, Qt::KeepAspectRatio);
    if (zoom() > 1.0) {
        resetTransform();
        centerOn(drawn.center());
    }
    emit visibleRectChanged();
}

void ZoomView::showTop()
{
    const QRectF drawn = drawnRect();
    fitAll();
    if (drawn.isEmpty() || zoom() >= kReadableZoom)
        return;
    resetTransform();
    scale(kReadableZoom, kReadableZoom);
    const QRectF visible = visibleSceneRect();
    centerOn(drawn.center().x(), drawn.top() + visible.height() / 2);
    emit visibleRectChanged();
}

QRectF ZoomView::visibleSceneRect() const
{
    return mapToScene(viewport()->rect()).boundingRect();
}

void ZoomView::wheelEvent(QWheelEvent* event)
{
    if (event->modifiers() & Qt::ControlModifier) {
        zoomBy(event->angleDelta().y() > 0 ? 1.15 : 1 / 1.15);
        event->accept();
        return;
    }
    QGraphicsView::wheelEvent(event);
}

void ZoomView::keyPressEvent(QKeyEvent* event)
{
    switch (event->key()) {
    case Qt::Key_Plus:
    case Qt::Key_Equal:
        zoomBy(1.25);
        return;
    case Qt::Key_Minus:
        zoomBy(1 / 1.25);
        return;
    case Qt::Key_0:
        fitAll();
        return;
    default:
        QGraphicsView::keyPressEvent(event);
    }
}

void ZoomView::scrollContentsBy(int dx, int dy)
{
    QGraphicsView::scrollContentsBy(dx, dy);
    emit visibleRectChanged();
}

void ZoomView::resizeEvent(QResizeEvent* event)
{
    QGraphicsView::resizeEvent(event);
    emit visibleRectChanged();
}

MiniMap::MiniMap(ZoomView* main, QWidget* parent)
    : QGraphicsView(main->scene(), parent)
    , m_main(main)
{
    setRenderHints(QPainter::Antialiasing);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setInteractive(false); // clicks recentre the main view instead of selecting
    setFrameShape(QFrame::Box);
    setStyleSheet("background: rgba(255, 255, 255, 230);");
    connect(main, &ZoomView::visibleRectChanged, viewport(), qOverload<>(&QWidget::update));
}

void MiniMap::refit()
{
    if (scene() && !scene()->sceneRect().isEmpty())
        fitInView(scene()->sceneRect(), Qt::KeepAspectRatio);
    viewport()->update();
}

void MiniMap::drawForeground(QPainter* painter, const QRectF&)
{
    const QRectF visible = m_main->visibleSceneRect().intersected(sceneRect());
    if (visible.isEmpty())
        return;
    painter->setPen(QPen(QColor(25, 118, 210), 0)); // cosmetic: one pixel at any scale
    painter->setBrush(QColor(25, 118, 210, 40));
    painter->drawRect(visible);
}

void MiniMap::mousePressEvent(QMouseEvent* event)
{
    m_main->centerOn(mapToScene(event->pos()));
    event->accept();
}

void MiniMap::mouseMoveEvent(QMouseEvent* event)
{
    if (event->buttons() & Qt::LeftButton)
        m_main->centerOn(mapToScene(event->pos()));
    event->accept();
}

void MiniMap::resizeEvent(QResizeEvent* event)
{
    QGraphicsView::resizeEvent(event);
    refit();
}

void MiniMap::wheelEvent(QWheelEvent* event)
{
    event->accept();
}

} // namespace gui::graph
