#include "gui/app/runtime_panel.h"

#include "gui/app/marked_slider.h"
#include "gui/app/memory_breakdown.h"
#include "gui/app/memory_chart.h"
#include "gui/app/memory_view.h"
#include "gui/app/project_session.h"
#include "gui/app/step_navigator.h"
#include "storage/project_db.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QScrollArea>
#include <QShortcut>
#include <QSlider>
#include <QSplitter>
#include <QStyle>
#include <QTableWidget>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>
#include <map>
#include <set>

namespace gui {

namespace {

/// `body` under its `title`, as one pane of a splitter.
QWidget* titled(QLabel* title, QWidget* body)
{
    auto* pane = new QWidget;
    auto* layout = new QVBoxLayout(pane);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(title);
    layout->addWidget(body, 1);
    return pane;
}

QToolButton* button(QWidget* parent, QStyle::StandardPixmap icon, const QString& tip)
{
    auto* b = new QToolButton(parent);
    b->setIcon(parent->style()->standardIcon(icon));
    b->setToolTip(tip);
    b->setAutoRaise(true);
    return b;
}

QString runTitle(const storage::RunRow& r)
{
    // CUDA Graph Trees counts in PyTorch's words: a capture is a recording, an eager call a warm-up
    // or a run without CUDA graphs.
    const bool cuda = r.backend == "cuda_graph_trees" || (r.origin.log && r.origin.recordedAs.rfind("PyTorch", 0) == 0);
    QString t = QString(cuda ? "Run %1 · %2 · %3 calls · %4 events · %5 recordings (%6 re-records), %7 replays"
                             : "Run %1 · %2 · %3 calls · %4 events · %5 captures, %6 recaptures, %7 replays")
                    .arg(r.id)
                    .arg(QString::fromStdString(r.scenarioName.empty() ? r.scenarioPath : r.scenarioName))
                    .arg(r.calls)
                    .arg(r.events)
                    .arg(r.captures)
                    .arg(r.recaptures)
                    .arg(r.replays);
    if (r.eagerCalls)
        t += QString(cuda ? ", %1 warm-ups or without CUDA graphs" : ", %1 eager").arg(r.eagerCalls);
    if (r.hazards)
        t += QString(" · %1 hazard%2").arg(r.hazards).arg(r.hazards == 1 ? "" : "s");
    if (r.outOfMemory)
        t += " · out of memory";
    return t;
}

} // namespace

RuntimePanel::RuntimePanel(ProjectSession* session, QWidget* parent)
    : QWidget(parent)
    , m_session(session)
    , m_title(new QLabel("Pick a run in the Project view."))
    , m_position(new QLabel)
    , m_slider(new MarkedSlider)
    , m_navigator(new StepNavigator)
    , m_playButton(nullptr)
    , m_summary(new QLabel)
    , m_inputs(new QTableWidget(0, 3))
    , m_log(new QPlainTextEdit)
    , m_memory(new MemoryView)
    , m_chart(new MemoryChart)
    , m_breakdown(new MemoryBreakdown)
    , m_timer(new QTimer(this))
    , m_fetcher(new MemoryFetcher(this))
{
    setFocusPolicy(Qt::StrongFocus);
    m_title->setObjectName("runtimeTitle");
    m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_title->setWordWrap(true);
    m_position->setObjectName("runtimePosition");
    m_position->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_position->setWordWrap(true);
    m_summary->setObjectName("runtimeSummary");
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_summary->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    m_inputs->setObjectName("runtimeInputs");
    m_inputs->setHorizontalHeaderLabels({ "input", "action", "bytes" });
    // The action and bytes columns are sized once per run, to the widest of all its calls
    // (indexInputUpdates): measuring each step's rows again cost about a millisecond a step on an
    // 80-layer model (perf's samples).
    m_inputs->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    m_inputs->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_inputs->horizontalHeader()->setStretchLastSection(false);
    m_inputs->verticalHeader()->setDefaultSectionSize(QFontMetrics(font()).height() + 6);
    m_inputs->verticalHeader()->hide();
    m_inputs->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_inputs->setFocusPolicy(Qt::NoFocus);
    m_log->setObjectName("runtimeLog");
    m_log->setReadOnly(true);
    m_log->setLineWrapMode(QPlainTextEdit::WidgetWidth);
    m_log->setFocusPolicy(Qt::ClickFocus);
    m_slider->setObjectName("runtimeSlider");
    m_slider->setEnabled(false);
    m_slider->setFocusPolicy(Qt::NoFocus);
    setSpeed(m_navigator->speed());

    auto* first = button(this, QStyle::SP_MediaSkipBackward, "First event (Home)");
    auto* prevCall = button(this, QStyle::SP_MediaSeekBackward, "Previous call (Shift+Left, PgUp)");
    auto* back = button(this, QStyle::SP_ArrowLeft, "Previous event (Left)");
    m_playButton = button(this, QStyle::SP_MediaPlay, "Play / pause (Space)");
    auto* forward = button(this, QStyle::SP_ArrowRight, "Next event (Right)");
    auto* nextCallButton = button(this, QStyle::SP_MediaSeekForward, "Next call (Shift+Right, PgDown)");
    auto* last = button(this, QStyle::SP_MediaSkipForward, "Last event (End)");
    for (auto* b : { first, prevCall, back, m_playButton, forward, nextCallButton, last })
        b->setFocusPolicy(Qt::NoFocus);
    auto* controls = new QHBoxLayout;
    controls->setContentsMargins(0, 0, 0, 0);
    for (auto* b : { first, prevCall, back, m_playButton, forward, nextCallButton, last })
        controls->addWidget(b);
    controls->addWidget(m_slider, 1);
    // The peak one click away (memory_viz users look there first).
    auto* peak = new QToolButton(this);
    peak->setObjectName("runtimePeak");
    peak->setText("Peak");
    peak->setToolTip("Go to the event of the highest reserved memory (P)");
    peak->setFocusPolicy(Qt::NoFocus);
    controls->addWidget(peak);
    connect(peak, &QToolButton::clicked, this, [this] {
        if (m_chart->peakReservedEvent() >= 0)
            setStep(m_chart->peakReservedEvent());
    });

    // The call's input actions and the event's log, one above the other at sizes that do not change
    // from step to step (showing the table only at input updates made the log jump every few steps).
    auto* details = new QWidget;
    auto* detailsLayout = new QVBoxLayout(details);
    detailsLayout->setContentsMargins(0, 0, 0, 0);
    detailsLayout->addWidget(m_summary);
    m_inputsLabel = new QLabel("Input actions");
    m_inputsLabel->setObjectName("runtimeInputsLabel");
    m_inputsLabel->setWordWrap(true);
    m_logLabel = new QLabel("TorchAir log");
    m_logLabel->setObjectName("runtimeLogLabel");
    m_detailsSplit = new QSplitter(Qt::Vertical);
    m_detailsSplit->setObjectName("runtimeDetailsSplit");
    m_detailsSplit->setChildrenCollapsible(false);
    m_detailsSplit->addWidget(titled(m_inputsLabel, m_inputs));
    m_detailsSplit->addWidget(titled(m_logLabel, m_log));
    detailsLayout->addWidget(m_detailsSplit, 1);

    auto* scroll = new QScrollArea;
    scroll->setWidget(m_memory);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    auto* memory = new QWidget;
    memory->setObjectName("memoryPane");
    m_memoryPane = memory;
    auto* memoryLayout = new QVBoxLayout(memory);
    memoryLayout->setContentsMargins(0, 0, 0, 0);
    // The memory drawn, and beside it what owns it (by category, owner or site, with a frame filter).
    auto* memorySplit = new QSplitter(Qt::Horizontal);
    memorySplit->setObjectName("memorySplit");
    memorySplit->addWidget(scroll);
    memorySplit->addWidget(m_breakdown);
    memorySplit->setStretchFactor(0, 1);
    memorySplit->setStretchFactor(1, 0);
    memorySplit->setSizes({ 560, 340 });
    memoryLayout->addWidget(memorySplit, 1);
    memoryLayout->addWidget(m_chart);
    connect(m_breakdown, &MemoryBreakdown::filterChanged, m_memory, &MemoryView::setHighlight);
    // Blocks take the colours of what the breakdown groups by: categories, or one per owner or site.
    connect(m_breakdown, &MemoryBreakdown::groupByChanged, m_memory, [this](MemoryBreakdown::GroupBy by) {
        m_memory->setColourBy(by == MemoryBreakdown::GroupBy::Owner ? MemoryView::ColourBy::Owner
                : by == MemoryBreakdown::GroupBy::Site              ? MemoryView::ColourBy::Site
                                                                    : MemoryView::ColourBy::Category);
    });

    auto* splitter = new QSplitter(Qt::Horizontal);
    splitter->addWidget(details);
    splitter->addWidget(memory);
    splitter->setStretchFactor(0, 0);
    splitter->setStretchFactor(1, 1);
    splitter->setSizes({ 380, 900 });

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_title);
    layout->addLayout(controls);
    // Long runs: next/previous capture, recapture, hazard, ... and the play speed.
    m_navigator->setObjectName("runtimeNavigator");
    layout->addWidget(m_navigator);
    layout->addWidget(m_position); // its own line: the stepper is often a narrow dock
    layout->addWidget(splitter, 1);

    connect(first, &QToolButton::clicked, this, [this] { setStep(0); });
    connect(prevCall, &QToolButton::clicked, this, &RuntimePanel::previousCall);
    connect(back, &QToolButton::clicked, this, &RuntimePanel::stepBack);
    connect(m_playButton, &QToolButton::clicked, this, &RuntimePanel::togglePlay);
    connect(forward, &QToolButton::clicked, this, &RuntimePanel::stepForward);
    connect(nextCallButton, &QToolButton::clicked, this, &RuntimePanel::nextCall);
    connect(last, &QToolButton::clicked, this, [this] { setStep(eventCount() - 1); });
    connect(m_slider, &QSlider::valueChanged, this, &RuntimePanel::setStep);
    connect(m_chart, &MemoryChart::eventPicked, this, &RuntimePanel::setStep);
    connect(m_navigator, &StepNavigator::stepRequested, this, &RuntimePanel::setStep);
    connect(m_navigator, &StepNavigator::speedChanged, this, &RuntimePanel::setSpeed);
    connect(m_timer, &QTimer::timeout, this, [this] {
        if (m_step + 1 >= eventCount())
            pause();
        else if (m_speed == 0)
            nextCall(); // one call a tick
        else
            stepForward();
        if (m_step + 1 >= eventCount())
            pause();
    });
    connect(m_fetcher, &MemoryFetcher::ready, this, &RuntimePanel::showMemory);
    connect(m_memory, &MemoryView::blockClicked, this, [this](int, int, int, const engine::runtime::OwnerInfo* owner) {
        emit blockSelected(owner ? QString::fromStdString(owner->tensor) : QString(),
            owner ? QString::fromStdString(owner->graph) : QString());
    });

    auto shortcut = [this](const QKeySequence& keys, auto slot) {
        auto* s = new QShortcut(keys, this);
        s->setContext(Qt::WidgetWithChildrenShortcut);
        connect(s, &QShortcut::activated, this, slot);
    };
    shortcut(Qt::Key_Right, [this] { stepForward(); });
    shortcut(Qt::Key_Left, [this] { stepBack(); });
    shortcut(Qt::SHIFT + Qt::Key_Right, [this] { nextCall(); });
    shortcut(Qt::SHIFT + Qt::Key_Left, [this] { previousCall(); });
    shortcut(Qt::Key_PageDown, [this] { nextCall(); });
    shortcut(Qt::Key_PageUp, [this] { previousCall(); });
    shortcut(Qt::Key_Space, [this] { togglePlay(); });
    shortcut(Qt::Key_Home, [this] { setStep(0); });
    shortcut(Qt::Key_End, [this] { setStep(eventCount() - 1); });
    shortcut(Qt::Key_P, [this] {
        if (m_chart->peakReservedEvent() >= 0)
            setStep(m_chart->peakReservedEvent());
    });
    subscribe();
}

RuntimePanel::~RuntimePanel() = default;

QWidget* RuntimePanel::takeMemoryPane()
{
    QWidget* pane = m_memoryPane;
    m_memoryPane = nullptr;
    if (pane)
        pane->setParent(nullptr);
    return pane;
}

void RuntimePanel::subscribe()
{
    connect(m_session, &ProjectSession::runLoading, this, [this](qlonglong runId) {
        pause();
        m_title->setText(QString("Loading run %1 ...").arg(runId));
    });
    connect(m_session, &ProjectSession::runLoaded, this,
        [this] { showRun(m_session->run(), m_session->runError(), m_session->db()); });
    connect(m_session, &ProjectSession::stepChanged, this, [this](int event) {
        if (m_run && m_run == m_session->run() && event >= 0 && event != m_step)
            displayEvent(event);
    });
}

void RuntimePanel::showRun(
    std::shared_ptr<const storage::StoredRun> run, const QString& error, std::shared_ptr<storage::Database> db)
{
    pause();
    m_run = std::move(run);
    m_error = error;
    m_step = -1;
    const int events = eventCount();
    m_fetcher->reset(std::move(db), m_run ? m_run->row.id : 0, events);
    // The memory view shares the run's owners and pools through an aliasing pointer.
    m_memory->setSimulation(m_run ? std::shared_ptr<const engine::runtime::Simulation>(m_run, &m_run->sim) : nullptr);
    m_breakdown->setSimulation(m_memory->simulation());
    {
        const QSignalBlocker block(m_slider);
        m_slider->setRange(0, std::max(0, events - 1));
        m_slider->setValue(0);
        m_slider->setEnabled(events > 0);
    }
    std::vector<uint64_t> reserved, allocated;
    std::vector<int64_t> times;
    if (m_run)
        for (const auto& e : m_run->sim.events) {
            reserved.push_back(e.deviceReserved);
            allocated.push_back(e.deviceAllocated);
            times.push_back(e.timeUs);
        }
    m_chart->setSeries(
        std::move(reserved), std::move(allocated), m_run ? m_run->sim.capacityBytes : 0, std::move(times));
    // Captures, recaptures, hazards, peaks, ... on the slider and the chart, and for the navigator.
    m_marks
        = m_run ? std::make_shared<const engine::report::EventMarks>(engine::report::eventMarks(m_run->sim)) : nullptr;
    if (m_marks) {
        m_slider->setAllMarks(*m_marks);
        m_chart->setAllMarks(*m_marks);
    } else {
        m_slider->clearMarks();
        m_chart->clearMarks();
    }
    m_navigator->setMarks(m_marks);
    // A recording's allocated bytes stacked by owner category, coloured as its blocks are.
    if (m_run && !m_run->sim.categories.empty()) {
        std::vector<QString> names;
        std::vector<QColor> colours;
        for (const std::string& c : m_run->sim.categories) {
            names.push_back(QString::fromStdString(c));
            colours.push_back(recordedCategoryColor(c));
        }
        std::vector<std::vector<uint64_t>> layers;
        layers.reserve(m_run->sim.events.size());
        for (const auto& e : m_run->sim.events)
            layers.push_back(e.categoryBytes);
        m_chart->setLayers(std::move(names), std::move(colours), std::move(layers));
    } else {
        m_chart->setLayers({}, {}, {});
    }
    if (!m_run) {
        m_title->setText(m_error);
        m_position->clear();
        m_summary->clear();
        m_log->clear();
        m_inputs->setRowCount(0);
        m_inputsShown = -2;
        m_inputUpdateOf.clear();
        m_callOf.clear();
        m_memory->clear("No run.");
        emit runShown();
        return;
    }
    // What the run had to assume (a log's gaps, a scenario made from a log or a trace): counted in the
    // title, listed in its tooltip.
    const auto& assumed = m_run->sim.assumptions;
    QString title = runTitle(m_run->row);
    QString tip;
    if (!assumed.empty()) {
        title += QString(" · %1 assumed or unknown (hover)").arg(assumed.size());
        tip = "Assumed or unknown, because the inputs did not say:";
        for (const std::string& a : assumed)
            tip += "\n• " + QString::fromStdString(a);
    }
    m_title->setText(title);
    m_title->setToolTip(tip);
    m_logLabel->setText(m_run->sim.cuda ? "PyTorch log" : "TorchAir log");
    // A recording prints no TorchAir log: its steps are the file's trace entries.
    const bool recorded = m_run->sim.origin.kind == engine::runtime::RunOriginKind::Recorded;
    m_detailsSplit->setVisible(!recorded);
    indexInputUpdates();
    if (events == 0) {
        m_position->setText("no events");
        m_memory->clear("The run has no events.");
    } else {
        displayEvent(m_run == m_session->run() ? std::max(0, m_session->step()) : 0);
    }
    emit runShown();
}

int RuntimePanel::eventCount() const
{
    return m_run ? int(m_run->sim.events.size()) : 0;
}

const engine::runtime::Event* RuntimePanel::currentEvent() const
{
    if (!m_run || m_step < 0 || m_step >= eventCount())
        return nullptr;
    return &m_run->sim.events[size_t(m_step)];
}

bool RuntimePanel::playing() const
{
    return m_timer->isActive();
}

const std::vector<engine::runtime::PoolSnapshot>& RuntimePanel::shown() const
{
    return m_memory->shown();
}

QRect RuntimePanel::blockRect(int pool, int segment, int block) const
{
    return m_memory->blockRect(pool, segment, block);
}

void RuntimePanel::setStep(int event)
{
    if (eventCount() == 0)
        return;
    event = std::clamp(event, 0, eventCount() - 1);
    if (event == m_step)
        return;
    // The session's step moves every view; a run shown without the session steps here alone.
    if (m_run == m_session->run())
        m_session->setStep(event);
    else
        displayEvent(event);
}

void RuntimePanel::stepForward()
{
    setStep(m_step + 1);
}

void RuntimePanel::stepBack()
{
    setStep(m_step - 1);
}

int RuntimePanel::callOf(int event) const
{
    return event >= 0 && size_t(event) < m_callOf.size() ? m_callOf[size_t(event)] : -1;
}

void RuntimePanel::nextCall()
{
    if (!m_run || m_run->sim.calls.empty())
        return;
    const int call = callOf(m_step);
    for (const auto& c : m_run->sim.calls)
        if (c.index > call && c.eventCount > 0) {
            setStep(c.firstEvent);
            return;
        }
    setStep(eventCount() - 1);
}

void RuntimePanel::previousCall()
{
    if (!m_run || m_run->sim.calls.empty())
        return;
    int target = 0;
    for (const auto& c : m_run->sim.calls)
        if (c.eventCount > 0 && c.firstEvent < m_step)
            target = c.firstEvent;
    setStep(target);
}

void RuntimePanel::play()
{
    if (eventCount() == 0 || playing())
        return;
    if (m_step + 1 >= eventCount())
        setStep(0);
    m_timer->start();
    m_playButton->setIcon(style()->standardIcon(QStyle::SP_MediaPause));
    emit playingChanged(true);
}

void RuntimePanel::pause()
{
    if (!playing())
        return;
    m_timer->stop();
    m_playButton->setIcon(style()->standardIcon(QStyle::SP_MediaPlay));
    emit playingChanged(false);
}

void RuntimePanel::navigatorNext()
{
    m_navigator->next();
}

void RuntimePanel::navigatorPrevious()
{
    m_navigator->previous();
}

void RuntimePanel::setSpeed(int eventsPerSecond)
{
    m_speed = std::max(0, eventsPerSecond);
    m_timer->setInterval(m_speed == 0 ? 1000 : std::max(1, 1000 / m_speed));
    if (m_navigator->speed() != m_speed)
        m_navigator->setSpeed(m_speed);
}

void RuntimePanel::togglePlay()
{
    playing() ? pause() : play();
}

QString RuntimePanel::positionText() const
{
    const engine::runtime::Event* e = currentEvent();
    if (!e)
        return {};
    QStringList parts;
    if (e->call >= 0)
        parts << QString("call %1").arg(e->call);
    parts << QString("event %1/%2").arg(e->index + 1).arg(eventCount());
    QString what = engine::runtime::eventKindName(e->kind);
    if (!e->graph.empty())
        what += " " + QString::fromStdString(e->graph);
    if (!e->key.empty())
        what += " key " + QString::fromStdString(e->key);
    parts << what;
    return parts.join(" · ");
}

void RuntimePanel::displayEvent(int event)
{
    m_step = event;
    const engine::runtime::Event& e = m_run->sim.events[size_t(event)];
    {
        const QSignalBlocker block(m_slider);
        m_slider->setValue(event);
    }
    m_chart->setCursor(event);
    m_navigator->setCurrent(event);
    m_position->setText(positionText());
    QString summary = QString::fromStdString(e.summary).toHtmlEscaped();
    if (e.hazard >= 0 && e.hazard < int(m_run->sim.hazards.size())) {
        const auto& h = m_run->sim.hazards[size_t(e.hazard)];
        summary += QString("<br><b style='color:#b03030'>%1</b>: %2")
                       .arg(engine::runtime::hazardKindName(h.kind))
                       .arg(QString::fromStdString(h.message).toHtmlEscaped());
    }
    m_summary->setText(summary);
    QStringList log;
    for (const auto& l : e.log)
        log << (l.category.empty()
                ? QString("[%1] %2").arg(engine::runtime::logLevelName(l.level), QString::fromStdString(l.text))
                : QString("%1: %2").arg(QString::fromStdString(l.category), QString::fromStdString(l.text)));
    m_log->setPlainText(log.join("\n"));
    showInputActions(event);
    if (MemorySnapshot cached = m_fetcher->request(event))
        showMemory(event, cached, QString());
    else if (!m_memory->shown().empty())
        m_memory->setStale(true);
    emit stepChanged(event);
}

void RuntimePanel::indexInputUpdates()
{
    m_inputsShown = -2;
    m_inputUpdateOf.assign(m_run->sim.events.size(), -1);
    std::map<int, int> updateOfCall;
    std::set<std::string> actions;
    std::set<uint64_t> sizes;
    for (const auto& e : m_run->sim.events)
        if (e.kind == engine::runtime::EventKind::InputUpdate && e.call >= 0) {
            updateOfCall.emplace(e.call, e.index);
            for (const auto& in : e.inputs) {
                actions.insert(in.action);
                sizes.insert(in.bytes);
            }
        }
    // Each distinct text measured once: a long run repeats the same few actions and sizes.
    const QFontMetrics fm(m_inputs->font());
    int action = fm.horizontalAdvance("action"), bytes = fm.horizontalAdvance("bytes");
    for (const std::string& a : actions)
        action = std::max(action, fm.horizontalAdvance(QString::fromStdString(a)));
    for (uint64_t b : sizes)
        bytes = std::max(bytes, fm.horizontalAdvance(b ? formatBytes(b) : QString("-")));
    // Run-level events (call -1) belong to the call before them, if any.
    m_callOf.assign(m_run->sim.events.size(), -1);
    int call = -1;
    for (size_t i = 0; i < m_run->sim.events.size(); ++i) {
        if (m_run->sim.events[i].call >= 0)
            call = m_run->sim.events[i].call;
        m_callOf[i] = call;
        if (const auto it = updateOfCall.find(call); it != updateOfCall.end())
            m_inputUpdateOf[i] = it->second;
    }
    const int margin = 2 * m_inputs->style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, m_inputs) + 12;
    m_inputs->setColumnWidth(1, action + margin);
    m_inputs->setColumnWidth(2, bytes + margin);
}

void RuntimePanel::showInputActions(int event)
{
    const int update = m_inputUpdateOf[size_t(event)];
    const int call = callOf(event);
    if (call < 0)
        m_inputsLabel->setText("Input actions: this event belongs to no call.");
    else if (update < 0)
        m_inputsLabel->setText(QString("Input actions: none in call %1 (it has no input update event).").arg(call));
    else if (update == event)
        m_inputsLabel->setText(QString("Input actions of call %1, at this event").arg(call));
    else
        m_inputsLabel->setText(
            QString("Input actions of call %1, at its input update (event %2)").arg(call).arg(update + 1));
    if (update == m_inputsShown)
        return; // the same call's table: nothing to rebuild
    m_inputsShown = update;
    static const std::vector<engine::runtime::InputAction> none;
    const auto& inputs = update >= 0 ? m_run->sim.events[size_t(update)].inputs : none;
    m_inputs->setUpdatesEnabled(false);
    m_inputs->setRowCount(int(inputs.size()));
    for (int i = 0; i < int(inputs.size()); ++i) {
        const auto& in = inputs[size_t(i)];
        auto* input = new QTableWidgetItem(QString::fromStdString(in.input));
        auto* action = new QTableWidgetItem(QString::fromStdString(in.action));
        auto* bytes = new QTableWidgetItem(in.bytes ? formatBytes(in.bytes) : QString("-"));
        const QString detail = QString::fromStdString(in.detail);
        for (auto* item : { input, action, bytes })
            item->setToolTip(detail);
        bytes->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        bytes->setData(Qt::UserRole, QVariant::fromValue<qulonglong>(in.bytes));
        m_inputs->setItem(i, 0, input);
        m_inputs->setItem(i, 1, action);
        m_inputs->setItem(i, 2, bytes);
    }
    m_inputs->setUpdatesEnabled(true);
}

void RuntimePanel::showMemory(int event, const MemorySnapshot& pools, const QString& error)
{
    if (event != m_step)
        return;
    if (pools)
        m_memory->setMemory(event, pools);
    else
        m_memory->clear(error);
    m_breakdown->setMemory(pools);
    emit memoryShown(event);
}

} // namespace gui
