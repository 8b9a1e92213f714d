#include "gui/app/log_panel.h"

#include "gui/app/panel_loader.h"
#include "gui/app/project_session.h"
#include "gui/app/run_log_model.h"
#include "gui/app/seam_wrap_delegate.h"
#include "storage/run_store.h"

#include <QAbstractItemView>
#include <QComboBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QScrollBar>
#include <QStyle>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>
#include <memory>
#include <set>

namespace gui {

namespace {

struct LoadedLog {
    std::vector<RunLogLine> lines;
    QString title;
    QString error;
};

std::shared_ptr<const LoadedLog> loadLog(const std::shared_ptr<const storage::StoredRun>& run, const QString& error)
{
    auto out = std::make_shared<LoadedLog>();
    if (!run) {
        out->error = error.isEmpty() ? QString("No run.") : error;
        return out;
    }
    out->lines = runLogLines(run->sim.events);
    out->title = QString("Run %1: %2, %3 events, %4 log lines")
                     .arg(run->row.id)
                     .arg(QString::fromStdString(run->row.scenarioName))
                     .arg(run->sim.events.size())
                     .arg(out->lines.size());
    return out;
}

/// A filter combo box that takes the width its row gives it, not its longest item's (a graph or key
/// can be long): its list opens as wide as the longest item (fillCombo).
QComboBox* makeCombo(const char* name)
{
    auto* combo = new QComboBox;
    combo->setObjectName(name);
    combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    combo->setMinimumContentsLength(6);
    combo->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    combo->addItem("all", QString());
    return combo;
}

} // namespace

LogPanel::LogPanel(ProjectSession* session, QWidget* parent)
    : QWidget(parent)
    , m_title(new QLabel("Pick a run in the Project view."))
    , m_level(new QComboBox)
    , m_graph(makeCombo("logGraph"))
    , m_key(makeCombo("logKey"))
    , m_kind(makeCombo("logKind"))
    , m_text(new QLineEdit)
    , m_count(new QLabel)
    , m_view(new QTableView)
    , m_model(new RunLogModel(this))
    , m_filter(new RunLogFilter(this))
    , m_fitRows(new QTimer(this))
{
    m_title->setObjectName("logTitle");
    m_title->setWordWrap(true);
    m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_level->setObjectName("logLevel");
    for (auto level : { engine::runtime::LogLevel::Debug, engine::runtime::LogLevel::Info,
             engine::runtime::LogLevel::Warning, engine::runtime::LogLevel::Error })
        m_level->addItem(QString::fromUtf8(engine::runtime::logLevelName(level)), int(level));
    m_text->setObjectName("logText");
    m_text->setPlaceholderText("text contains ...");
    m_text->setClearButtonEnabled(true);
    m_count->setObjectName("logCount");

    m_filter->setSourceModel(m_model);
    m_view->setObjectName("logView");
    m_view->setModel(m_filter);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    // Whole lines in a bottom dock: the text column takes what the others leave and wraps (long
    // names and paths at their seams), rows as tall as their text (fitRows).
    m_view->setItemDelegate(new SeamWrapDelegate(m_view));
    m_view->setWordWrap(true);
    m_view->setTextElideMode(Qt::ElideNone);
    m_view->setShowGrid(false); // the row height is measured at the cell's whole width
    m_view->setAlternatingRowColors(true);
    m_view->setVerticalScrollMode(QAbstractItemView::ScrollPerPixel);
    m_view->verticalHeader()->hide();
    m_view->verticalHeader()->setDefaultSectionSize(m_view->fontMetrics().height() + 6);
    m_view->horizontalHeader()->setStretchLastSection(true);
    m_view->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    m_view->viewport()->installEventFilter(this);
    m_fitRows->setSingleShot(true);
    m_fitRows->setInterval(0);
    connect(m_fitRows, &QTimer::timeout, this, &LogPanel::fitRows);
    // Rows scrolled into sight are measured then; other widths or other rows measure them again.
    auto fitRowsSoon = [this] { m_fitRows->start(); };
    auto refitRows = [this] {
        m_fitted.clear();
        m_fitRows->start();
    };
    connect(m_view->verticalScrollBar(), &QScrollBar::valueChanged, this, fitRowsSoon);
    connect(m_view->horizontalHeader(), &QHeaderView::sectionResized, this, refitRows);
    connect(m_filter, &QAbstractItemModel::modelReset, this, refitRows);
    connect(m_filter, &QAbstractItemModel::layoutChanged, this, refitRows);
    connect(m_filter, &QAbstractItemModel::rowsInserted, this, refitRows);
    connect(m_filter, &QAbstractItemModel::rowsRemoved, this, refitRows);

    // Two rows of filters, so that a bottom dock's width holds them: level, kind and text first,
    // then the graph and key (whose names can be long) side by side.
    auto* bar = new QHBoxLayout;
    auto label = [](const char* text) { return new QLabel(text); };
    bar->addWidget(label("Level ≥"));
    bar->addWidget(m_level);
    bar->addWidget(label("Kind"));
    bar->addWidget(m_kind);
    bar->addWidget(m_text, 1);
    auto* names = new QHBoxLayout;
    names->addWidget(label("Graph"));
    names->addWidget(m_graph, 1);
    names->addWidget(label("Key"));
    names->addWidget(m_key, 1);
    names->addWidget(m_count);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 2, 4, 2);
    layout->setSpacing(2); // room for six lines in a 300 px dock
    layout->addWidget(m_title);
    layout->addLayout(bar);
    layout->addLayout(names);
    layout->addWidget(m_view, 1);

    auto comboText = [](QComboBox* c) { return c->currentData().toString(); };
    connect(m_level, QOverload<int>::of(&QComboBox::currentIndexChanged), this, [this] {
        m_filter->setMinLevel(m_level->currentData().toInt());
        updateCount();
    });
    connect(m_graph, QOverload<int>::of(&QComboBox::currentIndexChanged), this, [this, comboText] {
        m_filter->setGraph(comboText(m_graph));
        updateCount();
    });
    connect(m_key, QOverload<int>::of(&QComboBox::currentIndexChanged), this, [this, comboText] {
        m_filter->setKey(comboText(m_key));
        updateCount();
    });
    connect(m_kind, QOverload<int>::of(&QComboBox::currentIndexChanged), this, [this, comboText] {
        m_filter->setKind(comboText(m_kind));
        updateCount();
    });
    connect(m_text, &QLineEdit::textChanged, this, [this](const QString& text) {
        m_filter->setText(text);
        updateCount();
    });
    connect(m_view, &QTableView::doubleClicked, this, [this](const QModelIndex& index) {
        if (index.isValid())
            emit eventActivated(index.data(RunLogModel::EventRole).toInt());
    });
    updateCount();
    connect(session, &ProjectSession::runLoading, this,
        [this](qlonglong runId) { m_title->setText(QString("Loading run %1 ...").arg(runId)); });
    connect(session, &ProjectSession::runLoaded, this,
        [this, session] { showRunLog(session->run(), session->runError()); });
    connect(session, &ProjectSession::stepChanged, this, &LogPanel::selectEvent);
}

LogPanel::~LogPanel() = default;

void LogPanel::fillCombo(QComboBox* combo, const QStringList& values)
{
    const QSignalBlocker block(combo);
    combo->clear();
    combo->addItem("all", QString());
    int widest = 0;
    for (const QString& v : values) {
        combo->addItem(v.isEmpty() ? QString("(none)") : v, v);
        widest = std::max(widest, combo->fontMetrics().horizontalAdvance(combo->itemText(combo->count() - 1)));
    }
    // The list shows each name whole, however narrow the box.
    combo->view()->setMinimumWidth(widest + 2 * combo->view()->frameWidth() + 24);
}

void LogPanel::updateCount()
{
    m_count->setText(QString("%1 of %2 lines").arg(m_filter->rowCount()).arg(m_model->rowCount()));
}

void LogPanel::showRunLog(std::shared_ptr<const storage::StoredRun> run, const QString& error)
{
    using Loaded = std::shared_ptr<const LoadedLog>;
    loadLatest<Loaded>(
        this, m_generation, [run, error] { return loadLog(run, error); },
        [this](Loaded loaded) {
            // Filters go back to "all" so that a new run never opens half hidden.
            std::set<QString> graphs, keys, kinds;
            for (const auto& l : loaded->lines) {
                if (!l.graph.isEmpty())
                    graphs.insert(l.graph);
                if (!l.key.isEmpty())
                    keys.insert(l.key);
                kinds.insert(l.kind);
            }
            fillCombo(m_graph, QStringList(graphs.begin(), graphs.end()));
            fillCombo(m_key, QStringList(keys.begin(), keys.end()));
            fillCombo(m_kind, QStringList(kinds.begin(), kinds.end()));
            m_filter->setGraph({});
            m_filter->setKey({});
            m_filter->setKind({});
            m_title->setText(loaded->error.isEmpty() ? loaded->title : loaded->error);
            m_model->setLines(loaded->lines);
            fitColumns();
            updateCount();
            emit shown();
        });
}

static_assert(RunLogModel::TextColumn == 6, "m_widths holds the columns before the text");

void LogPanel::fitColumns()
{
    // Call, event, kind, graph, key and level as wide as their widest text (the view measures the
    // rows in sight and beyond, up to its resize precision), once per run.
    for (int c = 0; c < RunLogModel::TextColumn; ++c) {
        m_view->resizeColumnToContents(c);
        m_widths[size_t(c)] = m_view->columnWidth(c);
    }
    sizeColumns();
}

void LogPanel::sizeColumns()
{
    // The text gets at least half the view. Where the other columns would take more, the key and
    // then the graph give way (both are filters above, and in the text's tooltip), then the kind
    // wraps at its underscores; in a wide view the graph and key take at most a fifth each.
    const int width = m_view->viewport()->width();
    const auto natural = [this](int c) { return m_widths[size_t(c)]; };
    if (natural(RunLogModel::CallColumn) == 0)
        return; // nothing measured yet
    int others = 0;
    for (int c = 0; c < RunLogModel::TextColumn; ++c)
        others += c == RunLogModel::GraphColumn || c == RunLogModel::KeyColumn ? std::min(natural(c), width / 5)
                                                                               : natural(c);
    for (int c : { int(RunLogModel::KeyColumn), int(RunLogModel::GraphColumn) }) {
        const bool hide = others > width / 2;
        m_view->setColumnHidden(c, hide);
        if (hide)
            others -= std::min(natural(c), width / 5);
        else
            m_view->setColumnWidth(c, std::min(natural(c), width / 5));
    }
    const int kind = natural(RunLogModel::KindColumn);
    QHeaderView* header = m_view->horizontalHeader();
    const int title = header->fontMetrics().horizontalAdvance(
                          m_model->headerData(RunLogModel::KindColumn, Qt::Horizontal).toString())
        + 2 * header->style()->pixelMetric(QStyle::PM_HeaderMargin, nullptr, header) + 4;
    m_view->setColumnWidth(RunLogModel::KindColumn, std::max(title, kind - std::max(0, others - width / 2)));
    m_fitRows->start();
}

void LogPanel::fitRows()
{
    // The rows in sight and a page after them (a long run has thousands), each measured once for
    // the columns' widths: a step that scrolls the log measures only the rows new to the view.
    if (!m_view->isVisible() || m_filter->rowCount() == 0)
        return;
    m_fitted.resize(size_t(m_filter->rowCount()), false);
    const int height = m_view->viewport()->height();
    int ahead = kRowsAhead;
    for (int row = std::max(0, m_view->rowAt(0)); row < m_filter->rowCount() && ahead > 0; ++row) {
        if (m_view->rowViewportPosition(row) >= height)
            --ahead;
        if (!m_fitted[size_t(row)]) {
            m_view->resizeRowToContents(row);
            m_fitted[size_t(row)] = true;
        }
    }
}

bool LogPanel::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_view->viewport() && event->type() == QEvent::Resize)
        sizeColumns();
    else if (watched == m_view->viewport() && event->type() == QEvent::Show)
        m_fitRows->start();
    return QWidget::eventFilter(watched, event);
}

void LogPanel::selectEvent(int event)
{
    const auto& lines = m_model->lines();
    int row = m_model->firstRowOfEvent(event);
    if (row < 0) // no line of its own: the next event that has one
        for (size_t i = 0; i < lines.size() && row < 0; ++i)
            if (lines[i].event > event)
                row = int(i);
    for (; row >= 0 && row < int(lines.size()); ++row) {
        const QModelIndex index = m_filter->mapFromSource(m_model->index(row, RunLogModel::TextColumn));
        if (index.isValid()) {
            m_view->setCurrentIndex(index);
            m_view->scrollTo(index, QAbstractItemView::PositionAtTop);
            return;
        }
    }
    m_view->clearSelection();
}

} // namespace gui
