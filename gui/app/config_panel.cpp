#include "gui/app/config_panel.h"

#include "engine/config/cuda_options.h"
#include "engine/config/options.h"
#include "engine/report/run_config.h"
#include "gui/app/compare_panel.h"
#include "gui/app/panel_loader.h"
#include "gui/app/project_session.h"
#include "gui/app/seam_wrap_delegate.h"
#include "storage/resimulate.h"
#include "storage/run_store.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QScopedValueRollback>
#include <QSpinBox>
#include <QStyle>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>
#include <atomic>
#include <climits>

namespace gui {

struct ConfigPanel::Loaded {
    qlonglong runId = 0;
    QString title;
    engine::config::Backend backend = engine::config::Backend::TorchAir;
    /// The run went through CUDA Graph Trees: options index config::cudaOptionTable(), one spelling.
    bool cuda = false;
    std::vector<engine::report::RunOption> options; ///< by option table index; none for a recording
    /// A recording has no TorchAir options: its allocator settings are shown read-only instead.
    engine::runtime::RunOrigin origin;
    QString error;
    bool recorded() const { return origin.kind == engine::runtime::RunOriginKind::Recorded; }
};

/// Shared with the worker: its progress, and the cancel it is asked for.
struct ConfigPanel::Job {
    std::atomic<int> done { 0 };
    std::atomic<int> total { 0 };
    std::atomic<bool> cancel { false };
    qlonglong base = 0;
    QMap<int, QString> edits; ///< what was sent
    bool stale = false; ///< another run was shown since: the result is not shown
};

/// What the worker hands back (QtConcurrent needs a default-constructible result).
struct ConfigPanel::Outcome {
    bool ok = false;
    bool cancelled = false;
    qlonglong runId = 0;
    bool reused = false;
    QString error;
};

namespace {

/// A Python literal as its repr(), so that `true` and `True` count as the same value; the text
/// itself when it is not a literal.
QString normalized(const QString& value)
{
    auto v = engine::parsePyLiteral(value.toStdString());
    return v ? QString::fromStdString(v->repr()) : value;
}

QTableWidgetItem* textItem(const std::string& text, const QString& tip)
{
    auto* item = new QTableWidgetItem(text.empty() ? QString("—") : QString::fromStdString(text));
    item->setFlags(text.empty() ? Qt::NoItemFlags : Qt::ItemIsEnabled | Qt::ItemIsSelectable);
    item->setToolTip(text.empty() ? QString() : QString::fromStdString(text) + ": " + tip);
    return item;
}

template <class T> void setBold(T* w, bool bold)
{
    if (!w)
        return;
    QFont f = w->font();
    f.setBold(bold);
    w->setFont(f);
}

} // namespace

ConfigPanel::ConfigPanel(ProjectSession* session, QWidget* parent)
    : QWidget(parent)
    , m_title(new QLabel("Pick a run in the Project view."))
    , m_message(new QLabel)
    , m_table(new QTableWidget(0, ColumnCount))
    , m_settings(new QTableWidget(0, 2))
    , m_simulate(new QPushButton("Simulate"))
    , m_reset(new QPushButton("Reset"))
    , m_cancel(new QPushButton("Cancel"))
    , m_progress(new QProgressBar)
    , m_settle(new QTimer(this))
    , m_poll(new QTimer(this))
{
    m_title->setObjectName("configTitle");
    m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_title->setWordWrap(true);
    m_message->setObjectName("configMessage");
    m_message->setWordWrap(true);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_message->hide();
    m_table->setObjectName("configTable");
    m_table->setHorizontalHeaderLabels({ "torchair", "npugraph_ex", "value", "default", "" });
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    // Names and defaults wrap at their seams (fitColumns sizes the columns to the dock); the tooltip
    // still has each name whole.
    m_table->setItemDelegate(new SeamWrapDelegate(m_table));
    m_table->setWordWrap(true);
    m_table->setTextElideMode(Qt::ElideNone);
    m_table->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_table->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOn); // a steady viewport width to fit to
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    m_table->horizontalHeader()->setStretchLastSection(false);
    m_table->viewport()->installEventFilter(this);
    const QFontMetrics metrics = m_table->fontMetrics();
    m_settings->setObjectName("configAllocatorSettings");
    m_settings->setHorizontalHeaderLabels({ "allocator setting", "value" });
    m_settings->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_settings->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_settings->verticalHeader()->hide();
    m_settings->horizontalHeader()->setStretchLastSection(true);
    m_settings->setItemDelegate(new SeamWrapDelegate(m_settings));
    m_settings->setWordWrap(true);
    m_settings->setColumnWidth(0, metrics.horizontalAdvance("graph_capture_record_stream_reuse") + 16);
    m_settings->hide();
    m_simulate->setObjectName("configSimulate");
    m_simulate->setToolTip("Simulate the run's scenario again with the edited options");
    m_reset->setObjectName("configReset");
    m_reset->setToolTip("Drop the edits");
    m_cancel->setObjectName("configCancel");
    m_progress->setObjectName("configProgress");
    m_progress->setFormat("call %v of %m");
    m_progress->hide();
    m_cancel->hide();
    m_settle->setSingleShot(true);
    m_settle->setInterval(kSettleMs);
    m_poll->setInterval(100); // progress at about 10 Hz

    auto* bar = new QHBoxLayout;
    bar->addWidget(m_simulate);
    bar->addWidget(m_reset);
    bar->addWidget(m_progress, 1);
    bar->addWidget(m_cancel);
    bar->addStretch();
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_title);
    layout->addWidget(m_message);
    layout->addWidget(m_table, 1);
    layout->addWidget(m_settings, 1);
    layout->addLayout(bar);

    connect(m_simulate, &QPushButton::clicked, this, &ConfigPanel::simulate);
    connect(m_reset, &QPushButton::clicked, this, &ConfigPanel::reset);
    connect(m_cancel, &QPushButton::clicked, this, &ConfigPanel::cancel);
    connect(m_settle, &QTimer::timeout, this, &ConfigPanel::simulate);
    connect(m_poll, &QTimer::timeout, this, [this] {
        if (!m_job)
            return;
        m_progress->setMaximum(std::max(1, m_job->total.load()));
        m_progress->setValue(m_job->done.load());
    });
    refreshMarks();
    m_session = session;
    connect(session, &ProjectSession::selectionChanged, this, [this](const QString& kind, qlonglong id) {
        if (kind == "run")
            showRun(id);
    });
}

ConfigPanel::~ConfigPanel()
{
    if (m_job) {
        m_job->cancel = true;
        m_watcher->waitForFinished();
    }
}

QStringList ConfigPanel::editedOverrides() const
{
    QStringList out;
    if (!m_loaded)
        return out;
    for (auto it = m_edits.begin(); it != m_edits.end(); ++it)
        out << QString::fromStdString(m_loaded->options[size_t(it.key())].name) + "=" + it.value();
    return out;
}

bool ConfigPanel::busy() const
{
    return m_job != nullptr;
}

void ConfigPanel::showRun(qlonglong runId)
{
    if (m_job) {
        m_job->cancel = true;
        m_job->stale = true;
    }
    m_again = false;
    m_message->hide();
    load(runId, false);
}

void ConfigPanel::load(qlonglong runId, bool keepEdits)
{
    if (!keepEdits) {
        m_edits.clear();
        m_settle->stop();
    }
    m_runId = runId;
    m_title->setText(QString("Loading run %1 ...").arg(runId));
    using Ptr = std::shared_ptr<const Loaded>;
    m_session->load<Ptr>(
        this, m_generation, [runId](storage::Database& db) { return loadConfig(db, runId); },
        [this](Ptr loaded) {
            m_loaded = loaded;
            m_title->setText(loaded->error.isEmpty() ? loaded->title : QString("Run %1").arg(loaded->runId));
            if (!loaded->error.isEmpty()) {
                m_edits.clear();
                m_loaded.reset();
                showMessage(loaded->error, true);
            }
            // Edits that the run now has are no edits.
            for (auto it = m_edits.begin(); m_loaded && it != m_edits.end();) {
                const std::string& value = m_loaded->options[size_t(it.key())].value;
                it = normalized(it.value()) == QString::fromStdString(value) ? m_edits.erase(it) : std::next(it);
            }
            buildForm();
            emit shown();
            if (!loaded->error.isEmpty())
                emit failed(loaded->error);
            else if (!m_edits.isEmpty())
                m_settle->start();
        });
}

std::shared_ptr<const ConfigPanel::Loaded> ConfigPanel::loadConfig(storage::Database& db, qlonglong runId)
{
    auto out = std::make_shared<ConfigPanel::Loaded>();
    out->runId = runId;
    auto run = storage::readRunHeader(db, runId); // the form needs no events
    auto overrides
        = run ? storage::readRunOverrides(db, runId) : storage::Result<std::vector<std::string>>(run.error());
    if (!overrides) {
        out->error = QString::fromStdString(overrides.error().toString());
        return out;
    }
    out->origin = run->row.origin;
    if (out->recorded()) {
        const QString file = QString::fromStdString(run->row.scenarioPath);
        out->title = runLabel(run->row, *overrides) + "\nThis run was recorded from " + file
            + "; a recording has no TorchAir options. "
            + (out->origin.allocatorSettings.empty() ? QString("The file records no allocator settings.")
                                                     : QString("Its allocator settings, as the file records them:"));
        return out;
    }
    out->backend = run->backend;
    out->cuda = run->row.backend == "cuda_graph_trees";
    out->options = out->cuda ? engine::report::cudaRunOptions(run->configJson)
                             : engine::report::runOptions(out->backend, run->configJson);
    out->title = runLabel(run->row, *overrides) + " ("
        + (out->cuda ? QString("cuda_graph_trees: PyTorch's options") : engine::config::backendName(out->backend))
        + ")";
    return out;
}

void ConfigPanel::buildForm()
{
    // The view deletes a replaced editor later; until then it must not pass for the new one.
    for (int row = 0; row < m_table->rowCount(); ++row)
        if (QWidget* old = m_table->cellWidget(row, ValueColumn)) {
            m_table->removeCellWidget(row, ValueColumn);
            old->setObjectName(QString());
            old->disconnect(this);
        }
    m_table->clearContents();
    m_table->setRowCount(m_loaded ? int(m_loaded->options.size()) : 0);
    const bool recorded = m_loaded && m_loaded->recorded();
    m_table->setVisible(!recorded);
    m_settings->setVisible(recorded);
    m_simulate->setVisible(!recorded);
    m_reset->setVisible(!recorded);
    m_settings->clearContents();
    m_settings->setRowCount(recorded ? int(m_loaded->origin.allocatorSettings.size()) : 0);
    for (int row = 0; row < m_settings->rowCount(); ++row) {
        const auto& [name, value] = m_loaded->origin.allocatorSettings[size_t(row)];
        auto* n = new QTableWidgetItem(QString::fromStdString(name));
        auto* v = new QTableWidgetItem(QString::fromStdString(value));
        for (QTableWidgetItem* item : { n, v }) {
            item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable); // read-only: a recording is not re-run
            item->setToolTip(item->text());
        }
        m_settings->setItem(row, 0, n);
        m_settings->setItem(row, 1, v);
    }
    // A CUDA Graph Trees run has PyTorch's options, one spelling each: the first name column holds it.
    m_table->setHorizontalHeaderLabels(
        { m_loaded && m_loaded->cuda ? "PyTorch option" : "torchair", "npugraph_ex", "value", "default", "" });
    for (size_t i = 0; m_loaded && m_loaded->cuda && i < m_loaded->options.size(); ++i)
        cudaRow(int(i));
    for (size_t i = 0; m_loaded && !m_loaded->cuda && i < m_loaded->options.size(); ++i) {
        const engine::report::RunOption& o = m_loaded->options[i];
        const engine::config::OptionSpec& spec = engine::config::optionTable()[o.spec];
        const QString tip = QString::fromStdString(spec.effect) + (spec.inCacheKey ? " (in the compile-cache key)" : "")
            + (spec.torchairName.empty() || spec.npugraphExName.empty()
                    ? QString()
                    : QString::fromStdString(
                        "\n(torchair: " + spec.torchairName + ", npugraph_ex: " + spec.npugraphExName + ")"));
        const int row = int(i);
        // The default is in the names' tooltips too: a narrow dock hides its column (fitColumns).
        const QString nameTip = o.name.empty() ? tip : tip + "\ndefault: " + QString::fromStdString(o.defaultValue);
        m_table->setItem(row, TorchairColumn, textItem(spec.torchairName, nameTip));
        m_table->setItem(row, NpugraphExColumn, textItem(spec.npugraphExName, nameTip));
        m_table->setItem(row, DefaultColumn, textItem(o.name.empty() ? std::string() : o.defaultValue, "default"));
        auto* mark = new QTableWidgetItem;
        mark->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable);
        m_table->setItem(row, MarkColumn, mark);
        if (o.name.empty()) {
            m_table->setItem(row, ValueColumn, textItem({}, {}));
            continue;
        }
        const QString value = m_edits.contains(row) ? m_edits[row] : QString::fromStdString(o.value);
        const bool torchair = m_loaded->backend == engine::config::Backend::TorchAir;
        QWidget* editor = editorFor(row, spec.type, value, torchair ? spec.torchairChoices : spec.npugraphExChoices);
        editor->setObjectName(QString::fromStdString("edit:" + o.name));
        editor->setToolTip(QString::fromStdString(o.name) + ": " + tip);
        editor->setEnabled(m_readOnlyReason.isEmpty());
        m_table->setCellWidget(row, ValueColumn, editor);
    }
    refreshMarks();
    if (!m_readOnlyReason.isEmpty() && m_loaded && !recorded)
        showMessage(m_readOnlyReason, false);
}

QWidget* ConfigPanel::editorFor(
    int row, const std::string& type, const QString& value, const std::vector<engine::PyValue>& choices)
{
    auto commit = [this, row](const QString& v) { edited(row, v); };
    bool isInt = false;
    const int intValue = value.toInt(&isInt);
    if (type == "bool" && (value == "True" || value == "False")) {
        auto* box = new QCheckBox;
        box->setChecked(value == "True");
        connect(box, &QCheckBox::toggled, this, [commit](bool on) { commit(on ? "True" : "False"); });
        return box;
    }
    if (type == "int" && isInt && intValue >= 0) {
        // 0 is allowed where TorchAir refuses it (capture limit), to see TorchAir's message.
        auto* spin = new QSpinBox;
        spin->setRange(0, INT_MAX);
        spin->setValue(intValue);
        connect(
            spin, QOverload<int>::of(&QSpinBox::valueChanged), this, [commit](int v) { commit(QString::number(v)); });
        return spin;
    }
    if (type == "choice" && !choices.empty()) {
        auto* combo = new QComboBox;
        for (const engine::PyValue& c : choices)
            combo->addItem(QString::fromStdString(c.repr()));
        if (combo->findText(normalized(value)) < 0)
            combo->addItem(value);
        combo->setCurrentIndex(
            combo->findText(normalized(value)) >= 0 ? combo->findText(normalized(value)) : combo->count() - 1);
        // As wide as the value it shows (not its longest choice: the dock is narrow; the popup
        // shows every choice whole).
        combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        combo->setMinimumContentsLength(4);
        connect(combo, &QComboBox::currentTextChanged, this, commit);
        return combo;
    }
    auto* edit = new QLineEdit(value);
    edit->setPlaceholderText("a Python literal");
    connect(edit, &QLineEdit::textChanged, this, commit);
    return edit;
}

void ConfigPanel::cudaRow(int row)
{
    const engine::report::RunOption& o = m_loaded->options[size_t(row)];
    const engine::config::CudaOptionSpec& spec = engine::config::cudaOptionTable()[o.spec];
    QString tip = QString::fromStdString(spec.effect + " (" + spec.source + ")");
    if (!spec.modelled)
        tip += "\nAccepted, but it changes nothing the simulator models.";
    m_table->setItem(
        row, TorchairColumn, textItem(o.name, tip + "\ndefault: " + QString::fromStdString(o.defaultValue)));
    m_table->setItem(row, NpugraphExColumn, textItem({}, {}));
    m_table->setItem(row, DefaultColumn, textItem(o.defaultValue, "default"));
    auto* mark = new QTableWidgetItem;
    mark->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable);
    m_table->setItem(row, MarkColumn, mark);
    const QString value = m_edits.contains(row) ? m_edits[row] : QString::fromStdString(o.value);
    QWidget* editor = editorFor(row, spec.type, value, spec.choices);
    editor->setObjectName(QString::fromStdString("edit:" + o.name));
    editor->setToolTip(QString::fromStdString(o.name) + ": " + tip);
    editor->setEnabled(m_readOnlyReason.isEmpty());
    m_table->setCellWidget(row, ValueColumn, editor);
}

void ConfigPanel::setReadOnly(const QString& reason)
{
    if (reason == m_readOnlyReason)
        return;
    m_readOnlyReason = reason;
    if (!reason.isEmpty()) {
        m_settle->stop();
        m_edits.clear();
    }
    m_message->hide();
    buildForm();
}

void ConfigPanel::edited(int option, const QString& value)
{
    if (!m_loaded)
        return;
    if (normalized(value) == QString::fromStdString(m_loaded->options[size_t(option)].value))
        m_edits.remove(option);
    else
        m_edits[option] = value;
    m_message->hide();
    refreshMarks();
    if (m_edits.isEmpty())
        m_settle->stop();
    else
        m_settle->start();
}

void ConfigPanel::refreshMarks()
{
    for (int row = 0; m_loaded && row < m_table->rowCount(); ++row) {
        const engine::report::RunOption& o = m_loaded->options[size_t(row)];
        const bool edited = m_edits.contains(row);
        const QString value = edited ? normalized(m_edits[row]) : QString::fromStdString(o.value);
        const bool nonDefault = !o.name.empty() && value != QString::fromStdString(o.defaultValue);
        setBold(m_table->item(row, TorchairColumn), nonDefault);
        setBold(m_table->item(row, NpugraphExColumn), nonDefault);
        setBold(m_table->cellWidget(row, ValueColumn), nonDefault);
        QTableWidgetItem* mark = m_table->item(row, MarkColumn);
        mark->setText(edited ? "● edited" : QString());
        mark->setToolTip(edited ? "changed here, not simulated yet" : QString());
    }
    m_simulate->setEnabled(!m_edits.isEmpty() && m_readOnlyReason.isEmpty());
    m_reset->setEnabled(!m_edits.isEmpty());
    fitColumns();
}

bool ConfigPanel::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_table->viewport() && event->type() == QEvent::Resize && !m_fitting)
        fitColumns();
    return QWidget::eventFilter(watched, event);
}

/// Sizes the form's columns to what they hold and to the viewport: the value editors and the edit
/// mark get what they need, the default up to a quarter of the width (none in a narrow dock), and
/// the name in the run's backend spelling the rest; the other spelling only where there is room for
/// it whole. Names and defaults narrower than their text wrap (rows grow), so nothing is elided.
void ConfigPanel::fitColumns()
{
    if (m_fitting || !m_loaded || m_loaded->recorded())
        return;
    const QScopedValueRollback<bool> fitting(m_fitting, true);
    // The delegate's text margins, and 2 px for the rounding between font metrics and text layout.
    const int margin = 2 * (style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, m_table) + 1) + 2;
    QHeaderView* header = m_table->horizontalHeader();
    const int headerMargin = 2 * style()->pixelMetric(QStyle::PM_HeaderMargin, nullptr, header);
    QFont bold = m_table->font();
    bold.setBold(true);
    const QFontMetrics plain(m_table->font()), strong(bold);
    auto headerWidth = [&](int c) {
        return header->fontMetrics().horizontalAdvance(m_table->model()->headerData(c, Qt::Horizontal).toString())
            + headerMargin;
    };
    // What each column needs on one line (names may be bold), and its widest unbreakable piece.
    std::vector<int> natural(ColumnCount), piece(ColumnCount);
    const int grid = m_table->showGrid() ? 1 : 0; // a cell is its column less the grid line
    for (int c = 0; c < ColumnCount; ++c)
        natural[size_t(c)] = piece[size_t(c)] = headerWidth(c);
    for (int row = 0; row < m_table->rowCount(); ++row)
        for (int c = 0; c < ColumnCount; ++c) {
            if (QWidget* editor = m_table->cellWidget(row, c)) {
                editor->ensurePolished(); // its style's size, before it is first shown
                // A line edit or combo box as wide as the text it shows (with the combo's arrow).
                const auto* line = qobject_cast<QLineEdit*>(editor);
                const auto* combo = qobject_cast<QComboBox*>(editor);
                const int need = line ? std::max(80, line->fontMetrics().horizontalAdvance(line->text()) + 16)
                    : combo           ? combo->fontMetrics().horizontalAdvance(combo->currentText()) + 32
                                      : editor->sizeHint().width() + grid;
                natural[size_t(c)] = std::max(natural[size_t(c)], need);
                piece[size_t(c)] = std::max(piece[size_t(c)], need);
                continue;
            }
            const QTableWidgetItem* item = m_table->item(row, c);
            if (!item || item->text().isEmpty())
                continue;
            const QFontMetrics& m = item->font().bold() ? strong : plain;
            natural[size_t(c)] = std::max(natural[size_t(c)], m.horizontalAdvance(item->text()) + margin + grid);
            for (const QString& part : SeamWrapDelegate::breakable(item->text()).split(QChar(0x200B)))
                piece[size_t(c)] = std::max(piece[size_t(c)], m.horizontalAdvance(part) + margin + grid);
        }
    const int own
        = m_loaded->cuda || m_loaded->backend == engine::config::Backend::TorchAir ? TorchairColumn : NpugraphExColumn;
    const int other = own == TorchairColumn ? NpugraphExColumn : TorchairColumn;
    m_table->setColumnHidden(MarkColumn, m_edits.isEmpty());
    const int width = m_table->viewport()->width();
    const int mark = m_edits.isEmpty() ? 0 : natural[MarkColumn];
    const int value = natural[ValueColumn];
    // The default only where the name keeps at least 40% of the width beside it (in a narrow dock a
    // wide editor, the mode's combo box, leaves too little): else it is in the name's tooltip, and
    // the names that differ from it are bold.
    int defaults = std::max(piece[DefaultColumn], std::min(natural[DefaultColumn], width / 4));
    const bool showDefault = width - mark - value - defaults >= width * 2 / 5;
    m_table->setColumnHidden(DefaultColumn, !showDefault);
    if (!showDefault)
        defaults = 0;
    const int rest = width - mark - value - defaults;
    const bool both = !m_loaded->cuda && rest >= natural[size_t(own)] + natural[size_t(other)];
    m_table->setColumnHidden(other, !both);
    if (both)
        m_table->setColumnWidth(other, natural[size_t(other)]);
    m_table->setColumnWidth(own, std::max(piece[size_t(own)], both ? rest - natural[size_t(other)] : rest));
    m_table->setColumnWidth(ValueColumn, value);
    if (showDefault)
        m_table->setColumnWidth(DefaultColumn, defaults);
    m_table->setColumnWidth(MarkColumn, mark);
    m_table->resizeRowsToContents();
}

void ConfigPanel::reset()
{
    m_settle->stop();
    m_again = false;
    m_edits.clear();
    m_message->hide();
    buildForm();
}

void ConfigPanel::cancel()
{
    m_again = false;
    if (m_job)
        m_job->cancel = true;
}

void ConfigPanel::simulate()
{
    m_settle->stop();
    if (!m_loaded || m_loaded->runId != m_runId || m_edits.isEmpty() || !m_readOnlyReason.isEmpty())
        return;
    if (m_job) {
        // Newer edits win: stop the running one and start again when it has stopped.
        m_again = true;
        m_job->cancel = true;
        return;
    }
    auto job = std::make_shared<Job>();
    job->base = m_runId;
    job->edits = m_edits;
    storage::ResimulateRequest request;
    request.dbPath = m_session->path().toStdString();
    request.baseRunId = m_runId;
    for (const QString& o : editedOverrides())
        request.overrides.push_back(o.toStdString());
    request.progress = [job](int done, int total) {
        job->done = done;
        job->total = total;
        return job->cancel.load();
    };
    m_job = job;
    auto* watcher = new QFutureWatcher<Outcome>(this);
    m_watcher = watcher;
    connect(watcher, &QFutureWatcher<Outcome>::finished, this, [this, watcher, job] {
        const Outcome outcome = watcher->result();
        watcher->deleteLater();
        finished(job, outcome);
    });
    watcher->setFuture(QtConcurrent::run([request] {
        Outcome o;
        auto r = storage::resimulate(request);
        o.ok = r.ok();
        if (r) {
            o.runId = r->runId;
            o.reused = r->reused;
        } else {
            o.cancelled = r.error().code == engine::ErrorCode::Cancelled;
            o.error = QString::fromStdString(r.error().toString());
        }
        return o;
    }));
    m_progress->setValue(0);
    m_progress->show();
    m_cancel->show();
    m_poll->start();
    showMessage(QString("Simulating run %1 with %2 ...").arg(m_runId).arg(editedOverrides().join(", ")), false);
}

void ConfigPanel::finished(const std::shared_ptr<Job>& job, const Outcome& outcome)
{
    m_job.reset();
    m_watcher = nullptr;
    m_poll->stop();
    m_progress->hide();
    m_cancel->hide();
    if (outcome.ok)
        emit runStored(outcome.runId, job->base, outcome.reused);
    if (!job->stale && outcome.ok) {
        // The edits sent are in the new run; edits made meanwhile stay and are simulated on top of it
        // once it is shown.
        for (auto it = job->edits.begin(); it != job->edits.end(); ++it)
            if (m_edits.value(it.key()) == it.value())
                m_edits.remove(it.key());
        m_again = false;
        showMessage(outcome.reused ? QString("Run %1 already has these settings.").arg(outcome.runId)
                                   : QString("Stored run %1.").arg(outcome.runId),
            false);
        load(outcome.runId, true);
        return;
    }
    if (!job->stale && !outcome.cancelled) {
        showMessage(outcome.error, true);
        emit failed(outcome.error);
    } else if (!job->stale && !m_again) {
        showMessage("Cancelled: nothing was stored.", false);
    }
    if (m_again) {
        m_again = false;
        simulate();
    }
}

void ConfigPanel::showMessage(const QString& text, bool error)
{
    m_message->setText(text);
    m_message->setStyleSheet(
        error ? "QLabel { background: #fde2e1; color: #7a1010; padding: 6px; }" : "QLabel { padding: 6px; }");
    m_message->show();
}

} // namespace gui
