// The stepper's navigator (issue 21): the kinds a run has with their counts, previous / next from
// the current event (a peak kind: the peak either way), buttons disabled where there is nothing,
// tooltips that say where they go, and the play speeds.
#include "gui/app/step_navigator.h"
#include "tests/gui/screenshot.h"

#include <QComboBox>
#include <QSignalSpy>
#include <QToolButton>
#include <QtTest>

using engine::report::MarkKind;

class StepNavigatorTest : public QObject {
    Q_OBJECT
private slots:
    void listsOnlyTheKindsPresentWithCounts();
    void nextAndPreviousWalkTheChosenKind();
    void peakKindsJumpToThePeak();
    void disabledWithoutMarks();
    void speeds();
};

namespace {
std::shared_ptr<engine::report::EventMarks> sampleMarks()
{
    auto m = std::make_shared<engine::report::EventMarks>();
    m->events[size_t(MarkKind::Capture)] = { 2, 9, 30 };
    m->events[size_t(MarkKind::Recapture)] = { 9, 30 };
    m->events[size_t(MarkKind::Hazard)] = { 16 };
    m->events[size_t(MarkKind::PeakReserved)] = { 25 };
    return m;
}
} // namespace

void StepNavigatorTest::listsOnlyTheKindsPresentWithCounts()
{
    gui::StepNavigator nav;
    nav.setMarks(sampleMarks());
    QStringList items;
    for (int i = 0; i < nav.kindCombo()->count(); ++i)
        items << nav.kindCombo()->itemText(i);
    QCOMPARE(items, QStringList({ "Capture (3)", "Recapture (2)", "Hazard (1)", "Peak reserved" }));
    QCOMPARE(nav.kind(), MarkKind::Capture);
    nav.setKind(MarkKind::Replay); // not in this run: nothing changes
    QCOMPARE(nav.kind(), MarkKind::Capture);
    nav.setKind(MarkKind::Hazard);
    QCOMPARE(nav.kind(), MarkKind::Hazard);
    // A new run that has hazards keeps the choice; one without falls back to its first kind.
    nav.setMarks(sampleMarks());
    QCOMPARE(nav.kind(), MarkKind::Hazard);
    auto noHazard = sampleMarks();
    noHazard->events[size_t(MarkKind::Hazard)].clear();
    nav.setMarks(noHazard);
    QCOMPARE(nav.kind(), MarkKind::Capture);
    // It fits the stepper dock at 1366x768.
    QVERIFY2(nav.sizeHint().width() <= 560, qPrintable(QString::number(nav.sizeHint().width())));
    nav.resize(560, nav.sizeHint().height());
    nav.show();
    screenshot(nav, "step_navigator.png");
}

void StepNavigatorTest::nextAndPreviousWalkTheChosenKind()
{
    gui::StepNavigator nav;
    nav.setMarks(sampleMarks());
    nav.setKind(MarkKind::Recapture);
    nav.setCurrent(0);
    QSignalSpy steps(&nav, &gui::StepNavigator::stepRequested);
    QVERIFY(!nav.previousButton()->isEnabled());
    QVERIFY(nav.nextButton()->isEnabled());
    QCOMPARE(nav.nextButton()->toolTip(), QString("Next recapture: event 10"));
    QTest::mouseClick(nav.nextButton(), Qt::LeftButton);
    QCOMPARE(steps.count(), 1);
    QCOMPARE(steps.at(0).at(0).toInt(), 9);
    nav.next(); // goes on from 9 before the window answers
    QCOMPARE(steps.at(1).at(0).toInt(), 30);
    QVERIFY(!nav.nextButton()->isEnabled());
    QCOMPARE(nav.nextButton()->toolTip(), QString("Next recapture: none"));
    QCOMPARE(nav.previousButton()->toolTip(), QString("Previous recapture: event 10"));
    nav.next(); // nothing after the last
    QCOMPARE(steps.count(), 2);
    // The window moved the stepper elsewhere: previous / next are from there.
    nav.setCurrent(20);
    nav.previous();
    QCOMPARE(steps.at(2).at(0).toInt(), 9);
    nav.setKind(MarkKind::Capture);
    nav.setCurrent(9);
    nav.previous();
    QCOMPARE(steps.at(3).at(0).toInt(), 2);
}

void StepNavigatorTest::peakKindsJumpToThePeak()
{
    gui::StepNavigator nav;
    nav.setMarks(sampleMarks());
    nav.setKind(MarkKind::PeakReserved);
    nav.setCurrent(40);
    QSignalSpy steps(&nav, &gui::StepNavigator::stepRequested);
    QVERIFY(nav.nextButton()->isEnabled());
    QVERIFY(nav.previousButton()->isEnabled());
    QCOMPARE(nav.nextButton()->toolTip(), QString("Peak reserved: event 26"));
    nav.next();
    QCOMPARE(steps.at(0).at(0).toInt(), 25);
    QVERIFY(!nav.nextButton()->isEnabled()); // at the peak: nowhere else to go
    nav.setCurrent(3);
    nav.previous();
    QCOMPARE(steps.at(1).at(0).toInt(), 25);
}

void StepNavigatorTest::disabledWithoutMarks()
{
    gui::StepNavigator nav;
    QVERIFY(!nav.kindCombo()->isEnabled());
    QVERIFY(!nav.nextButton()->isEnabled());
    QVERIFY(!nav.previousButton()->isEnabled());
    nav.setMarks(sampleMarks());
    QVERIFY(nav.kindCombo()->isEnabled());
    nav.setMarks(nullptr);
    QCOMPARE(nav.kindCombo()->count(), 0);
    QVERIFY(!nav.nextButton()->isEnabled());
    QSignalSpy steps(&nav, &gui::StepNavigator::stepRequested);
    nav.next();
    QCOMPARE(steps.count(), 0);
}

void StepNavigatorTest::speeds()
{
    gui::StepNavigator nav;
    QCOMPARE(nav.speed(), 4); // as the stepper always played
    QStringList items;
    for (int i = 0; i < nav.speedCombo()->count(); ++i)
        items << nav.speedCombo()->itemText(i);
    QCOMPARE(items, QStringList({ "4 events/s", "16 events/s", "64 events/s", "256 events/s", "1 call/s" }));
    QSignalSpy changed(&nav, &gui::StepNavigator::speedChanged);
    nav.speedCombo()->setCurrentIndex(3);
    QCOMPARE(changed.count(), 1);
    QCOMPARE(changed.at(0).at(0).toInt(), 256);
    nav.setSpeed(0);
    QCOMPARE(nav.speed(), 0);
    QCOMPARE(changed.at(1).at(0).toInt(), 0);
    nav.setSpeed(5); // not listed: ignored
    QCOMPARE(nav.speed(), 0);
}

QTEST_MAIN(StepNavigatorTest)
#include "step_navigator_test.moc"
