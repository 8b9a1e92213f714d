#include "gui/app/events_panel.h"

#include "engine/report/details.h"
#include "engine/report/hazard_explain.h"
#include "gui/app/project_session.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QSplitter>
#include <QStackedWidget>
#include <QStandardItemModel>
#include <QTableView>
#include <QTextBrowser>
#include <QToolButton>
#include <QUrl>
#include <QVBoxLayout>

namespace gui {

namespace {

const char* kNoRun = "<b>No run.</b><br>Pick a run in the Project view to list its events.";
const char* kPickRow = "Select an event to see what it did. A hazard row (tinted red) explains what went wrong, why, "
                       "and which option or code change avoids it.";

QString esc(const std::string& s)
{
    return QString::fromStdString(s).toHtmlEscaped();
}

/// Lines in a monospace block that wraps, as printed.
QString codeBlock(const std::vector<QString>& lines)
{
    QString html = "<div style='font-family: monospace; white-space: pre-wrap; background: #f4f4f4; "
                   "margin-left: 12px'>";
    for (size_t i = 0; i < lines.size(); ++i)
        html += (i ? "<br>" : "") + lines[i].toHtmlEscaped();
    return html + "</div>";
}

QString explanationHtml(const engine::report::HazardExplanation& x, const engine::runtime::Hazard* h)
{
    QString html = QString("<p style='margin-bottom: 2px'><b style='color: #a02020'>%1</b>").arg(esc(x.title));
    if (h)
        html += QString(" <span style='color: #666'>(%1)</span>").arg(engine::runtime::hazardKindName(h->kind));
    html += "</p>";
    if (!x.what.empty())
        html += QString("<p><b>What</b><br>%1</p>").arg(esc(x.what));
    if (!x.why.empty())
        html += QString("<p><b>Why</b><br>%1</p>").arg(esc(x.why));
    if (!x.avoid.empty()) {
        html += "<p><b>How to avoid</b></p><ul style='margin-top: 0px'>";
        for (const std::string& a : x.avoid)
            html += "<li>" + esc(a) + "</li>";
        html += "</ul>";
    }
    if (!x.what.empty()) {
        html += QString("<p><b>%1 says</b></p>").arg(esc(x.quotesFrom));
        if (x.quotes.empty()) {
            html += "<p style='margin-left: 12px; color: #666'>nothing for this</p>";
        } else {
            std::vector<QString> lines;
            for (const std::string& q : x.quotes)
                lines.push_back(QString::fromStdString(q));
            html += codeBlock(lines);
        }
    }
    if (!x.source.empty())
        html += QString("<p style='color: #555'><b>Source</b><br>%1</p>").arg(esc(x.source));
    return html;
}

QString eventHeading(const engine::runtime::Event& e, int total)
{
    QStringList parts;
    parts << QString("Event %1 of %2").arg(e.index + 1).arg(total);
    parts << QString::fromUtf8(engine::runtime::eventKindName(e.kind));
    if (e.call >= 0)
        parts << QString("call %1").arg(e.call);
    if (!e.graph.empty())
        parts << QString::fromStdString(e.graph);
    if (!e.key.empty())
        parts << QString("key {%1}").arg(QString::fromStdString(e.key));
    return "<p><b>" + parts.join(" · ").toHtmlEscaped() + "</b></p>";
}

} // namespace

EventsPanel::EventsPanel(ProjectSession* session, QWidget* parent)
    : EventsPanel(parent)
{
    connect(session, &ProjectSession::runLoaded, this, [this, session] { showRun(session->run()); });
    connect(session, &ProjectSession::stepChanged, this, &EventsPanel::selectEvent);
    connect(this, &EventsPanel::eventActivated, session, &ProjectSession::setStep);
    if (session->run())
        showRun(session->run());
}

EventsPanel::EventsPanel(QWidget* parent)
    : QWidget(parent)
    , m_model(new EventListModel(this))
    , m_filter(new EventFilterModel(this))
    , m_stack(new QStackedWidget)
    , m_empty(new QLabel(kNoRun))
    , m_title(new QLabel)
    , m_kind(new QComboBox)
    , m_text(new QLineEdit)
    , m_clear(new QToolButton)
    , m_count(new QLabel)
    , m_splitter(new QSplitter(Qt::Vertical))
    , m_table(new QTableView)
    , m_pane(new QTextBrowser)
{
    m_empty->setObjectName("eventsEmpty");
    m_empty->setAlignment(Qt::AlignCenter);
    m_empty->setWordWrap(true);
    m_title->setObjectName("eventsTitle");
    m_title->setWordWrap(true);
    m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_kind->setObjectName("eventsKind");
    m_kind->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_kind->setToolTip("Show one kind of event. Captures include recaptures; Hazards are the events that show one.");
    m_text->setObjectName("eventsText");
    m_text->setPlaceholderText(QString::fromUtf8("Filter events (text, graph, key)…"));
    m_text->setClearButtonEnabled(true);
    m_text->installEventFilter(this);
    m_clear->setObjectName("eventsClear");
    m_clear->setText("Clear");
    m_clear->setToolTip("Show every event again (Esc in the filter text)");
    m_count->setObjectName("eventsCount");

    m_filter->setSourceModel(m_model);
    m_table->setObjectName("eventsTable");
    m_table->setModel(m_filter);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setWordWrap(false);
    m_table->setTextElideMode(Qt::ElideRight);
    m_table->verticalHeader()->hide();
    // Uniform rows: the view never measures a row, whatever the run's length.
    m_table->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);
    m_table->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder); // the run's order until a click
    m_table->setSortingEnabled(true);
    m_table->horizontalHeader()->setHighlightSections(false);
    m_table->installEventFilter(this);

    m_pane->setObjectName("eventsExplanation");
    m_pane->setReadOnly(true);
    m_pane->setOpenLinks(false);
    m_pane->setHtml(kPickRow);

    m_splitter->addWidget(m_table);
    m_splitter->addWidget(m_pane);
    // As much room for the explanation as for the list: in a bottom dock both get about ten lines.
    m_splitter->setStretchFactor(0, 1);
    m_splitter->setStretchFactor(1, 1);
    m_splitter->setChildrenCollapsible(false);
    connect(m_splitter, &QSplitter::splitterMoved, this, [this] { m_userSplit = true; });

    auto* bar = new QHBoxLayout;
    bar->addWidget(new QLabel("Show"));
    bar->addWidget(m_kind);
    bar->addWidget(m_text, 1);
    bar->addWidget(m_clear);
    bar->addWidget(m_count);
    auto* content = new QWidget;
    auto* layout = new QVBoxLayout(content);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_title);
    layout->addLayout(bar);
    layout->addWidget(m_splitter, 1);
    m_stack->addWidget(m_empty);
    m_stack->addWidget(content);
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(4, 4, 4, 4);
    outer->addWidget(m_stack);

    connect(m_kind, QOverload<int>::of(&QComboBox::currentIndexChanged), this, [this](int index) {
        if (index >= 0)
            setKindFilter(EventCategory(m_kind->itemData(index).toInt()));
    });
    connect(m_text, &QLineEdit::textChanged, this, [this](const QString& text) { setTextFilter(text); });
    connect(m_clear, &QToolButton::clicked, this, [this] {
        m_text->clear();
        setKindFilter(EventCategory::All);
    });
    connect(
        m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& current) {
            if (current.isValid())
                showEventText(m_filter->mapToSource(current).row());
        });
    connect(m_table, &QTableView::clicked, this, [this](const QModelIndex& index) {
        if (index.isValid())
            emit eventActivated(m_filter->mapToSource(index).row());
    });
    connect(m_pane, &QTextBrowser::anchorClicked, this, [this](const QUrl& url) {
        if (url.scheme() != "event")
            return;
        const int event = url.path().toInt() - 1;
        selectEvent(event);
        emit eventActivated(event);
    });
    showRun(nullptr);
}

EventsPanel::~EventsPanel() = default;

void EventsPanel::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    // Until the user moves it, the splitter gives the list and the explanation half each.
    if (!m_userSplit) {
        const int h = m_splitter->height();
        m_splitter->setSizes({ h / 2, h - h / 2 });
    }
}

void EventsPanel::showRun(std::shared_ptr<const storage::StoredRun> run)
{
    m_run = std::move(run);
    m_shownEvent = -1;
    m_model->setRun(m_run);
    m_stack->setCurrentIndex(m_run ? 1 : 0);
    if (m_run) {
        const auto& sim = m_run->sim;
        m_title->setText(QString("Run %1: %2 · %3 events · %4 hazard%5")
                             .arg(m_run->row.id)
                             .arg(QString::fromStdString(sim.scenarioName))
                             .arg(sim.events.size())
                             .arg(sim.hazards.size())
                             .arg(sim.hazards.size() == 1 ? "" : "s"));
        m_pane->setHtml(sim.events.empty() ? QString("This run has no events: it was stored without its event list.")
                                           : QString(kPickRow));
    }
    fillKindCombo();
    sizeColumns();
    updateCount();
}

void EventsPanel::fillKindCombo()
{
    const QSignalBlocker block(m_kind);
    m_kind->clear();
    auto* items = qobject_cast<QStandardItemModel*>(m_kind->model());
    for (int c = 0; c < kEventCategoryCount; ++c) {
        const auto category = EventCategory(c);
        const int n = m_run ? m_model->count(category) : 0;
        m_kind->addItem(
            QString("%1 (%2)").arg(eventCategoryName(category, m_run && m_run->sim.cuda.has_value())).arg(n), c);
        // A kind with no event cannot be picked, but stays listed so the list reads the same for every run.
        if (items && n == 0 && category != EventCategory::All && category != m_filter->kindFilter())
            items->item(c)->setEnabled(false);
    }
    m_kind->setCurrentIndex(int(m_filter->kindFilter()));
}

void EventsPanel::sizeColumns()
{
    QHeaderView* header = m_table->horizontalHeader();
    header->setStretchLastSection(true);
    QFont bold = m_table->font();
    bold.setBold(true);
    const QFontMetrics plain(m_table->font());
    const QFontMetrics strong(bold);
    // Each column as wide as its widest text (measured once, not row by row) or its title, plus the
    // cell's margins and the sort arrow; the text column takes what is left.
    for (int c = 0; c < EventListModel::TextColumn; ++c) {
        const QString widest = m_model->widestText(c);
        const QString title = m_model->headerData(c, Qt::Horizontal).toString();
        const int content = (c == EventListModel::KindColumn ? strong : plain).horizontalAdvance(widest);
        const int width = std::max(content, header->fontMetrics().horizontalAdvance(title) + 16) + 18;
        header->setSectionResizeMode(c, QHeaderView::Interactive);
        header->resizeSection(c, std::min(width, 420));
    }
    header->setSectionResizeMode(EventListModel::TextColumn, QHeaderView::Stretch);
}

void EventsPanel::updateCount()
{
    const int total = m_run ? int(m_run->sim.events.size()) : 0;
    const int shown = shownCount();
    if (!m_run)
        m_count->clear();
    else if (shown == 0 && total > 0)
        m_count->setText(
            QString("<span style='color: #a02020'>No event matches: Clear shows all %1</span>").arg(total));
    else if (shown == total)
        m_count->setText(QString("%1 events").arg(total));
    else
        m_count->setText(QString("%1 of %2 events").arg(shown).arg(total));
}

void EventsPanel::selectEvent(int event)
{
    if (!m_run || event < 0 || event >= int(m_run->sim.events.size()))
        return;
    const QModelIndex source = m_model->index(event, 0);
    const QModelIndex shown = m_filter->mapFromSource(source);
    if (shown.isValid()) {
        m_table->selectionModel()->setCurrentIndex(
            shown, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        m_table->scrollTo(shown, QAbstractItemView::EnsureVisible);
    } else {
        m_table->selectionModel()->clearSelection();
    }
    showEventText(event);
}

int EventsPanel::shownCount() const
{
    return m_filter->rowCount();
}

int EventsPanel::currentEvent() const
{
    const QModelIndex current = m_table->currentIndex();
    return current.isValid() ? m_filter->mapToSource(current).row() : -1;
}

void EventsPanel::setKindFilter(EventCategory category)
{
    m_filter->setKindFilter(category);
    if (m_kind->currentIndex() != int(category)) {
        const QSignalBlocker block(m_kind);
        m_kind->setCurrentIndex(int(category));
    }
    if (m_shownEvent >= 0) // keep the row the pane shows in view when it is still listed
        if (const QModelIndex shown = m_filter->mapFromSource(m_model->index(m_shownEvent, 0)); shown.isValid())
            m_table->scrollTo(shown, QAbstractItemView::PositionAtCenter);
    updateCount();
}

void EventsPanel::setTextFilter(const QString& text)
{
    if (m_text->text() != text) {
        const QSignalBlocker block(m_text);
        m_text->setText(text);
    }
    m_filter->setTextFilter(text);
    if (m_shownEvent >= 0)
        if (const QModelIndex shown = m_filter->mapFromSource(m_model->index(m_shownEvent, 0)); shown.isValid())
            m_table->scrollTo(shown, QAbstractItemView::PositionAtCenter);
    updateCount();
}

void EventsPanel::showEventText(int event)
{
    if (!m_run || event < 0 || event >= int(m_run->sim.events.size()))
        return;
    m_shownEvent = event;
    const auto& sim = m_run->sim;
    const engine::runtime::Event& e = sim.events[size_t(event)];
    QString html = eventHeading(e, int(sim.events.size()));
    std::vector<int> hazards = m_model->hazardsOf(event);
    if (e.kind == engine::runtime::EventKind::Hazard && e.hazard >= 0 && hazards.empty())
        hazards.push_back(e.hazard);
    for (int h : hazards)
        html += explanationHtml(engine::report::explainHazard(sim, h), &sim.hazards[size_t(h)]);
    if (hazards.empty()) {
        html += QString("<p>%1</p>").arg(esc(e.summary));
        // The call's hazards shown by other events, as links to them.
        QStringList others;
        if (e.call >= 0)
            for (size_t h = 0; h < sim.hazards.size(); ++h)
                if (sim.hazards[h].call == e.call)
                    if (const int at = engine::report::hazardEvent(sim, int(h)); at >= 0 && at != event)
                        others << QString("<a href='event:%1'>%2 at event %1</a>")
                                      .arg(at + 1)
                                      .arg(engine::runtime::hazardKindName(sim.hazards[h].kind));
        if (!others.isEmpty())
            html += "<p><b>Hazards of this call:</b> " + others.join(", ") + "</p>";
    }
    std::vector<QString> lines;
    for (const auto& l : e.log)
        lines.push_back(l.category.empty()
                ? QString("[%1] %2").arg(engine::runtime::logLevelName(l.level), QString::fromStdString(l.text))
                : QString("%1: %2").arg(QString::fromStdString(l.category), QString::fromStdString(l.text)));
    if (!lines.empty())
        html += QString("<p><b>Log at this event</b> (%1)</p>").arg(lines.size()) + codeBlock(lines);
    else if (hazards.empty())
        html += "<p style='color: #666'>Nothing printed at this event.</p>";
    m_pane->setHtml(html);
}

bool EventsPanel::eventFilter(QObject* watched, QEvent* event)
{
    if (event->type() == QEvent::KeyPress) {
        const auto* key = static_cast<QKeyEvent*>(event);
        if (watched == m_table && (key->key() == Qt::Key_Return || key->key() == Qt::Key_Enter)) {
            if (const int e = currentEvent(); e >= 0)
                emit eventActivated(e);
            return true;
        }
        if (watched == m_text && key->key() == Qt::Key_Escape && !m_text->text().isEmpty()) {
            m_text->clear();
            return true;
        }
    }
    return QWidget::eventFilter(watched, event);
}

} // namespace gui
