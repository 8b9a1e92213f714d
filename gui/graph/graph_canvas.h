#pragma once
/// The two views on a GraphScene: the main canvas (pan by dragging, zoom with Ctrl+wheel or +/-)
/// and the minimap (the whole scene, the canvas's visible part outlined, click to recentre).
#include <QGraphicsView>

namespace gui::graph {

/// The main view: antialiased, drag to pan, Ctrl+wheel or +/- to zoom (0.05x to 4x), 0 to fit.
/// A fit may go below 0.05x: whatever is drawn must fit.
class ZoomView : public QGraphicsView {
    Q_OBJECT
public:
    explicit ZoomView(QWidget* parent = nullptr);

    /// Multiplies the zoom by `factor`, clamped to 0.05x .. 4x.
    void zoomBy(double factor);
    /// Fits everything drawn (the items' bounding rect, with a margin) into the viewport, however
    /// small that makes it; never zooms in past 1x. Harmless on an empty scene.
    void fitAll();
    /// The first view of a graph: the whole of it when that is legible (at least kReadableZoom),
    /// else its top at kReadableZoom, where the inputs are (the minimap shows the whole).
    void showTop();
    /// The drawing's bounds with the fit's margin (empty on an empty scene).
    QRectF drawnRect() const;

    /// The smallest zoom at which a node's name is legible: 11 px names at 9.9 px on screen.
    static constexpr double kReadableZoom = 0.9;
    double zoom() const { return transform().m11(); }
    /// The scene rectangle currently visible.
    QRectF visibleSceneRect() const;

signals:
    /// Scrolled, zoomed or resized: the minimap redraws its outline.
    void visibleRectChanged();

protected:
    void wheelEvent(QWheelEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void scrollContentsBy(int dx, int dy) override;
    void resizeEvent(QResizeEvent* event) override;
};

/// A small view of the whole scene; outlines `main`'s visible rectangle and recentres it on click
/// or drag.
class MiniMap : public QGraphicsView {
    Q_OBJECT
public:
    MiniMap(ZoomView* main, QWidget* parent = nullptr);
    /// Refits the whole scene into the minimap (after the scene changed).
    void refit();

protected:
    void drawForeground(QPainter* painter, const QRectF& rect) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;

private:
    ZoomView* m_main;
};

} // namespace gui::graph
