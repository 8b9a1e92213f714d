#include "gui/app/log_panel.h"

#include "gui/app/panel_loader.h"
#include "gui/app/project_session.h"
#include "gui/app/run_log_model.h"
#include "storage/run_store.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QTableView>
#include <QVBoxLayout>
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

QComboBox* makeCombo(const char* name)
{
    auto* combo = new QComboBox;
    combo->setObjectName(name);
    combo->setSizeAdjustPolicy(QComboBox::AdjustToContents);
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
{
    m_title->setObjectName("logTitle");
    m_title->setWordWrap(true);
    m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_level->setObjectName("logLevel");
    for (auto level :
        { engine::runtime::LogLevel::Debug, engine::runtime::LogLevel::Info, engine::runtime::LogLevel::Warning })
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
    m_view->setWordWrap(false);
    m_view->setAlternatingRowColors(true);
    m_view->verticalHeader()->hide();
    m_view->verticalHeader()->setDefaultSectionSize(m_view->fontMetrics().height() + 6);
    m_view->horizontalHeader()->setStretchLastSection(true);
    m_view->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);

    auto* bar = new QHBoxLayout;
    auto label = [](const char* text) { return new QLabel(text); };
    bar->addWidget(label("Level ≥"));
    bar->addWidget(m_level);
    bar->addWidget(label("Kind"));
    bar->addWidget(m_kind);
    bar->addWidget(label("Graph"));
    bar->addWidget(m_graph);
    bar->addWidget(label("Key"));
    bar->addWidget(m_key);
    bar->addWidget(m_text, 1);
    auto* top = new QHBoxLayout;
    top->addWidget(m_title, 1);
    top->addWidget(m_count);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(top);
    layout->addLayout(bar);
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
    for (const QString& v : values)
        combo->addItem(v.isEmpty() ? QString("(none)") : v, v);
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
            m_view->resizeColumnsToContents();
            updateCount();
            emit shown();
        });
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
