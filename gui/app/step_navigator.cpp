#include "gui/app/step_navigator.h"

#include "gui/app/mark_palette.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QPixmap>
#include <QSignalBlocker>
#include <QToolButton>

namespace gui {

using engine::report::MarkKind;

namespace {
/// A small square of the kind's colour for the combo, so its entries read like the slider's ticks.
QIcon swatch(MarkKind k)
{
    QPixmap pm(10, 10);
    pm.fill(Qt::transparent);
    QPainter p(&pm);
    p.fillRect(QRect(1, 1, 8, 8), markColour(k));
    return QIcon(pm);
}

QString lowerLabel(MarkKind k)
{
    return QString(engine::report::markKindLabel(k)).toLower();
}
} // namespace

StepNavigator::StepNavigator(QWidget* parent)
    : QWidget(parent)
{
    auto* row = new QHBoxLayout(this);
    row->setContentsMargins(0, 0, 0, 0);
    row->setSpacing(4);
    row->addWidget(new QLabel("Go to:", this));
    m_kinds = new QComboBox(this);
    m_kinds->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_kinds->setToolTip("Which kind of event previous and next go to (the run's count in brackets)");
    row->addWidget(m_kinds);
    m_previous = new QToolButton(this);
    m_previous->setArrowType(Qt::LeftArrow);
    m_previous->setAutoRaise(true);
    m_next = new QToolButton(this);
    m_next->setArrowType(Qt::RightArrow);
    m_next->setAutoRaise(true);
    row->addWidget(m_previous);
    row->addWidget(m_next);
    row->addSpacing(10);
    row->addWidget(new QLabel("Speed:", this));
    m_speed = new QComboBox(this);
    for (int s : { 4, 16, 64, 256 })
        m_speed->addItem(QString("%1 events/s").arg(s), s);
    m_speed->addItem("1 call/s", 0);
    m_speed->setToolTip("How fast Play steps");
    row->addWidget(m_speed);
    row->addStretch(1);

    connect(m_previous, &QToolButton::clicked, this, &StepNavigator::previous);
    connect(m_next, &QToolButton::clicked, this, &StepNavigator::next);
    connect(m_kinds, qOverload<int>(&QComboBox::currentIndexChanged), this, [this](int i) {
        if (i >= 0)
            m_kind = MarkKind(m_kinds->itemData(i).toInt());
        refresh();
    });
    connect(m_speed, qOverload<int>(&QComboBox::currentIndexChanged), this,
        [this](int i) { emit speedChanged(m_speed->itemData(i).toInt()); });
    setMarks(nullptr);
}

void StepNavigator::setMarks(std::shared_ptr<const engine::report::EventMarks> marks)
{
    m_marks = std::move(marks);
    fillKinds();
    refresh();
}

void StepNavigator::fillKinds()
{
    const QSignalBlocker block(m_kinds);
    m_kinds->clear();
    if (m_marks)
        for (MarkKind k : engine::report::allMarkKinds())
            if (m_marks->count(k))
                m_kinds->addItem(swatch(k),
                    markIsPeak(k) ? QString(engine::report::markKindLabel(k))
                                  : QString("%1 (%2)").arg(engine::report::markKindLabel(k)).arg(m_marks->count(k)),
                    int(k));
    const int keep = m_kinds->findData(int(m_kind));
    m_kinds->setCurrentIndex(keep >= 0 ? keep : 0);
    if (m_kinds->currentIndex() >= 0)
        m_kind = MarkKind(m_kinds->currentData().toInt());
    m_kinds->setEnabled(m_kinds->count() > 0);
}

void StepNavigator::setCurrent(int event)
{
    m_current = event;
    refresh();
}

void StepNavigator::setKind(MarkKind kind)
{
    const int i = m_kinds->findData(int(kind));
    if (i >= 0)
        m_kinds->setCurrentIndex(i);
}

int StepNavigator::nextTarget() const
{
    if (!m_marks || !m_marks->count(m_kind))
        return -1;
    if (markIsPeak(m_kind)) {
        const int peak = m_marks->of(m_kind).front();
        return peak == m_current ? -1 : peak;
    }
    return m_marks->next(m_kind, m_current);
}

int StepNavigator::previousTarget() const
{
    if (!m_marks || !m_marks->count(m_kind))
        return -1;
    if (markIsPeak(m_kind))
        return nextTarget();
    return m_marks->previous(m_kind, m_current);
}

void StepNavigator::refresh()
{
    const int prev = previousTarget(), next = nextTarget();
    const QString what = lowerLabel(m_kind);
    auto tip = [&](QToolButton* b, int target, const QString& direction) {
        b->setEnabled(target >= 0);
        if (!m_marks || !m_marks->count(m_kind))
            b->setToolTip(QString("%1: no marked events in this run").arg(direction));
        else if (markIsPeak(m_kind))
            b->setToolTip(QString("%1: event %2")
                              .arg(engine::report::markKindLabel(m_kind))
                              .arg(m_marks->of(m_kind).front() + 1));
        else if (target >= 0)
            b->setToolTip(QString("%1 %2: event %3").arg(direction, what).arg(target + 1));
        else
            b->setToolTip(QString("%1 %2: none").arg(direction, what));
    };
    tip(m_previous, prev, "Previous");
    tip(m_next, next, "Next");
}

void StepNavigator::go(int target)
{
    if (target < 0)
        return;
    m_current = target;
    refresh();
    emit stepRequested(target);
}

void StepNavigator::next()
{
    go(nextTarget());
}
void StepNavigator::previous()
{
    go(previousTarget());
}

int StepNavigator::speed() const
{
    return m_speed->currentData().toInt();
}

void StepNavigator::setSpeed(int eventsPerSecond)
{
    const int i = m_speed->findData(eventsPerSecond);
    if (i >= 0)
        m_speed->setCurrentIndex(i);
}

} // namespace gui
