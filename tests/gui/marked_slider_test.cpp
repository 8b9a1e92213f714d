// The stepper's slider with marks (issue 21): ticks at the marked events, at most one per pixel
// column per kind whatever their number, and a tooltip that names the marks under the mouse.
#include "gui/app/mark_palette.h"
#include "gui/app/marked_slider.h"
#include "tests/gui/screenshot.h"

#include <QtTest>

using engine::report::MarkKind;

class MarkedSliderTest : public QObject {
    Q_OBJECT
private slots:
    void ticksSitAtTheirEventsAndNameThemselves();
    void hundredThousandMarksDrawOneTickPerColumn();
};

namespace {
/// Whether column x of the widget's picture holds a pixel of `colour`.
bool columnHas(QWidget& w, int x, const QColor& colour)
{
    const QImage img = w.grab().toImage();
    for (int y = 0; y < img.height(); ++y)
        if (img.pixelColor(x, y) == colour)
            return true;
    return false;
}
} // namespace

void MarkedSliderTest::ticksSitAtTheirEventsAndNameThemselves()
{
    gui::MarkedSlider slider;
    slider.setRange(0, 99);
    slider.resize(520, slider.sizeHint().height());
    slider.setMarks(MarkKind::Capture, { 40, 3 });
    slider.setMarks(MarkKind::Hazard, { 16 });
    slider.setMarks(MarkKind::PeakReserved, { 70 });
    QCOMPARE(slider.marks(MarkKind::Capture), std::vector<int>({ 3, 40 }));
    // Positions grow with the event, from one end of the groove to the other.
    QVERIFY(slider.xOfEvent(0) < slider.xOfEvent(16));
    QVERIFY(slider.xOfEvent(16) < slider.xOfEvent(99));
    QVERIFY(slider.xOfEvent(99) <= slider.width());
    QCOMPARE(slider.marksNear(slider.xOfEvent(16)), QString("hazard at event 17"));
    QCOMPARE(slider.marksNear(slider.xOfEvent(40) + 1), QString("capture at event 41"));
    QCOMPARE(slider.marksNear(slider.xOfEvent(70)), QString("peak reserved at event 71"));
    QCOMPARE(slider.marksNear(slider.xOfEvent(55)), QString()); // nothing within reach
    slider.grab();
    QCOMPARE(slider.ticksDrawn(), 4);
    QVERIFY(columnHas(slider, slider.xOfEvent(16), gui::markColour(MarkKind::Hazard)));
    QVERIFY(columnHas(slider, slider.xOfEvent(40), gui::markColour(MarkKind::Capture)));
    QVERIFY(!columnHas(slider, slider.xOfEvent(30), gui::markColour(MarkKind::Capture)));
    slider.setMarks(MarkKind::Hazard, {});
    slider.grab();
    QCOMPARE(slider.ticksDrawn(), 3);
    QCOMPARE(slider.marksNear(slider.xOfEvent(16)), QString());
    slider.show();
    screenshot(slider, "marked_slider.png");
    slider.clearMarks();
    slider.grab();
    QCOMPARE(slider.ticksDrawn(), 0);
}

void MarkedSliderTest::hundredThousandMarksDrawOneTickPerColumn()
{
    gui::MarkedSlider slider;
    slider.setRange(0, 99999);
    slider.resize(560, slider.sizeHint().height());
    std::vector<int> all(100000);
    for (int i = 0; i < 100000; ++i)
        all[size_t(i)] = i;
    engine::report::EventMarks marks;
    marks.events[size_t(MarkKind::Replay)] = all;
    marks.events[size_t(MarkKind::Recapture)] = { 31, 99990 };
    slider.setAllMarks(marks);
    slider.grab();
    // Every column of the track holds a replay: one tick each (not 100,000), plus two recaptures.
    const int columns = slider.xOfEvent(99999) - slider.xOfEvent(0) + 1;
    QCOMPARE(slider.ticksDrawn(), columns + 2);
    QVERIFY(slider.marksNear(slider.xOfEvent(31)).contains("recapture at event 32"));
    slider.show();
    screenshot(slider, "marked_slider_100k.png");
}

QTEST_MAIN(MarkedSliderTest)
#include "marked_slider_test.moc"
