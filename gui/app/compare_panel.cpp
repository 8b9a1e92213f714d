#include "gui/app/compare_panel.h"

#include "engine/report/run_config.h"
#include "gui/app/project_session.h"
#include "gui/app/seam_wrap_delegate.h"
#include "storage/resimulate.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFont>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>
#include <optional>

namespace gui {

QString runLabel(const storage::RunRow& row, const std::vector<std::string>& overrides)
{
    QStringList settings;
    for (const std::string& o : overrides)
        settings << QString::fromStdString(o);
    return QString("run %1 · %2 · %3")
        .arg(row.id)
        .arg(QString::fromStdString(row.scenarioName))
        .arg(row.origin.kind == engine::runtime::RunOriginKind::Recorded ? QString("recorded")
                : settings.isEmpty()                                     ? QString("scenario config")
                                                                         : settings.join(", "));
}

ComparisonModel::ComparisonModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

void ComparisonModel::setComparison(std::shared_ptr<const engine::report::RunComparison> comparison)
{
    beginResetModel();
    m_comparison = std::move(comparison);
    rebuildRows();
    endResetModel();
}

void ComparisonModel::setOnlyDifferences(bool only)
{
    if (only == m_onlyDifferences)
        return;
    beginResetModel();
    m_onlyDifferences = only;
    rebuildRows();
    endResetModel();
}

void ComparisonModel::rebuildRows()
{
    m_rows.clear();
    if (!m_comparison)
        return;
    for (size_t i = 0; i < m_comparison->rows.size(); ++i)
        if (!m_onlyDifferences || m_comparison->rows[i].differs)
            m_rows.push_back(int(i));
}

int ComparisonModel::tableRowOf(int row) const
{
    const auto it = std::find(m_rows.begin(), m_rows.end(), row);
    return it == m_rows.end() ? -1 : int(it - m_rows.begin());
}

int ComparisonModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int ComparisonModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ComparisonModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const engine::report::CompareRow& r = m_comparison->rows[size_t(m_rows[size_t(index.row())])];
    switch (role) {
    case Qt::DisplayRole:
    case Qt::ToolTipRole: {
        const std::string* texts[] = { &r.section, &r.metric, &r.a, &r.b };
        return QString::fromStdString(*texts[index.column()]);
    }
    case Qt::FontRole:
        if (r.differs) {
            QFont bold;
            bold.setBold(true);
            return bold;
        }
        return {};
    case Qt::BackgroundRole:
        return r.differs ? QVariant(QColor(0xfb, 0xe8, 0xb0)) : QVariant();
    case DiffersRole:
        return r.differs;
    case RowRole:
        return m_rows[size_t(index.row())];
    default:
        return {};
    }
}

QVariant ComparisonModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return {};
    if (role == Qt::DisplayRole) {
        static const char* const names[] = { "Section", "Metric", "A", "B" };
        return QString(names[section]);
    }
    if (role == Qt::ToolTipRole && m_comparison && (section == AColumn || section == BColumn))
        return QString::fromStdString(section == AColumn ? m_comparison->labelA : m_comparison->labelB);
    return {};
}

namespace {

struct RunList {
    std::vector<std::pair<qlonglong, QString>> runs; ///< id, label
    std::vector<std::string> paths; ///< each run's scenario path
    std::vector<bool> own; ///< each run has settings of its own (overrides)
    QString error;
};

/// showRun's pair: the base run of `runId`'s scenario, -1 when no other run comes from the same
/// file (then the user picks A: a run of another source is not guessed).
qlonglong baseRunOf(const RunList& list, qlonglong runId)
{
    size_t at = list.runs.size();
    for (size_t i = 0; i < list.runs.size(); ++i)
        if (list.runs[i].first == runId)
            at = i;
    if (at == list.runs.size())
        return -1;
    qlonglong sameFile = -1;
    for (size_t i = 0; i < list.runs.size(); ++i) {
        if (i == at || list.paths[i] != list.paths[at])
            continue;
        if (!list.own[i])
            return list.runs[i].first;
        if (sameFile < 0)
            sameFile = list.runs[i].first;
    }
    return sameFile;
}

std::shared_ptr<const RunList> listRunLabels(storage::Database& db)
{
    auto out = std::make_shared<RunList>();
    auto runs = storage::listRuns(db);
    if (!runs) {
        out->error = QString::fromStdString(runs.error().toString());
        return out;
    }
    for (const storage::RunRow& row : *runs) {
        auto overrides = storage::readRunOverrides(db, row.id);
        out->runs.emplace_back(row.id, runLabel(row, overrides ? *overrides : std::vector<std::string> {}));
        out->paths.push_back(row.scenarioPath);
        out->own.push_back(overrides && !overrides->empty());
    }
    return out;
}

struct Compared {
    std::shared_ptr<const engine::report::RunComparison> comparison;
    QString error;
};

/// Compares runs `runA` and `runB`, reading from `db` those that are not `held` (the session's run,
/// read once already for every view).
Compared compareStored(
    storage::Database& db, qlonglong runA, qlonglong runB, const std::shared_ptr<const storage::StoredRun>& held)
{
    std::string labels[2];
    std::vector<std::pair<std::string, std::string>> configs[2];
    std::shared_ptr<const storage::StoredRun> runs[2];
    const qlonglong ids[2] = { runA, runB };
    for (int i = 0; i < 2; ++i) {
        if (held && held->row.id == ids[i]) {
            runs[i] = held;
        } else {
            auto run = storage::readRun(db, ids[i]);
            if (!run)
                return { nullptr, QString::fromStdString(run.error().toString()) };
            runs[i] = std::make_shared<const storage::StoredRun>(std::move(run.value()));
        }
        auto overrides = storage::readRunOverrides(db, ids[i]);
        if (!overrides)
            return { nullptr, QString::fromStdString(overrides.error().toString()) };
        labels[i] = runLabel(runs[i]->row, *overrides).toStdString();
        configs[i] = engine::report::runConfigPairs(runs[i]->sim, runs[i]->configJson);
    }
    return { std::make_shared<const engine::report::RunComparison>(
                 engine::report::compareRuns(runs[0]->sim, runs[1]->sim, labels[0], labels[1], configs[0], configs[1])),
        {} };
}

QComboBox* runCombo(const char* name)
{
    auto* combo = new QComboBox;
    combo->setObjectName(name);
    combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    combo->setMinimumContentsLength(12); // the dock stays narrow; the popup shows whole labels
    return combo;
}

} // namespace

ComparePanel::ComparePanel(ProjectSession* session, QWidget* parent)
    : QWidget(parent)
    , m_session(session)
    , m_runA(runCombo("compareRunA"))
    , m_runB(runCombo("compareRunB"))
    , m_onlyDifferences(new QCheckBox("only differences"))
    , m_summary(new QLabel("Pick two runs."))
    , m_error(new QLabel)
    , m_view(new QTableView)
    , m_model(new ComparisonModel(this))
{
    m_onlyDifferences->setObjectName("compareOnlyDifferences");
    m_summary->setObjectName("compareSummary");
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_error->setObjectName("compareError");
    m_error->setWordWrap(true);
    m_summary->setWordWrap(true); // long run labels must not widen the dock
    m_error->setStyleSheet("QLabel { background: #fde2e1; color: #7a1010; padding: 6px; }");
    m_error->hide();
    m_view->setObjectName("compareTable");
    m_view->setModel(m_model);
    connect(m_view->selectionModel(), &QItemSelectionModel::selectionChanged, this, &ComparePanel::rowSelected);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    // Long values and names wrap at their seams (fitColumns); the tooltip shows each whole.
    m_view->setItemDelegate(new SeamWrapDelegate(m_view));
    m_view->setWordWrap(true);
    m_view->setTextElideMode(Qt::ElideMiddle);
    m_view->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_view->verticalHeader()->hide();
    m_view->verticalHeader()->setDefaultSectionSize(m_view->fontMetrics().height() + 6);
    m_view->horizontalHeader()->setStretchLastSection(true);

    m_view->viewport()->installEventFilter(this);
    // Two rows, so that the run boxes and the filter fit a 400 px dock.
    auto* bar = new QGridLayout;
    bar->addWidget(new QLabel("A"), 0, 0);
    bar->addWidget(m_runA, 0, 1, 1, 2);
    bar->addWidget(new QLabel("B"), 1, 0);
    bar->addWidget(m_runB, 1, 1);
    bar->addWidget(m_onlyDifferences, 1, 2);
    bar->setColumnStretch(1, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(bar);
    layout->addWidget(m_error);
    layout->addWidget(m_summary);
    layout->addWidget(m_view, 1);

    connect(m_onlyDifferences, &QCheckBox::toggled, m_model, &ComparisonModel::setOnlyDifferences);
    for (QComboBox* combo : { m_runA, m_runB })
        connect(combo, QOverload<int>::of(&QComboBox::currentIndexChanged), this, [this] { compareSelected(); });
    // The project's runs are listed whenever a project is opened; a run picked is compared with
    // its scenario's base run.
    connect(session, &ProjectSession::projectChanged, this, &ComparePanel::setProject);
    connect(session, &ProjectSession::contentChanged, this, &ComparePanel::setProject);
    connect(session, &ProjectSession::selectionChanged, this, [this](const QString& kind, qlonglong id) {
        // A run of the pair compared (stepped to a call picked here, say) keeps the comparison.
        if (kind == "run" && !(m_model->comparison() && (id == m_pairA || id == m_pairB)))
            showRun(id);
    });
}

ComparePanel::~ComparePanel() = default;

void ComparePanel::selectRun(QComboBox* combo, qlonglong runId)
{
    const QSignalBlocker block(combo);
    combo->setCurrentIndex(combo->findData(runId));
}

void ComparePanel::setProject()
{
    using Loaded = std::shared_ptr<const RunList>;
    m_session->load<Loaded>(
        this, m_listGeneration, [](storage::Database& db) { return listRunLabels(db); },
        [this](Loaded list) {
            for (QComboBox* combo : { m_runA, m_runB }) {
                const QSignalBlocker block(combo);
                combo->clear();
                // Nothing is compared until both sides name a run.
                combo->addItem(combo == m_runA ? "(pick a run to compare with)" : "(pick a run)", qlonglong(-1));
                for (const auto& [id, label] : list->runs)
                    combo->addItem(label, id);
            }
            const qlonglong focus = m_focusRun;
            m_focusRun = -1;
            if (focus >= 0) {
                // B is the run picked; A its scenario's base run, or nothing when it has none.
                selectRun(m_runA, baseRunOf(*list, focus));
                selectRun(m_runB, focus);
            } else {
                // The runs last compared (or asked for before the list came), where still listed.
                selectRun(m_runA, m_runA->findData(m_pairA) > 0 ? m_pairA : -1);
                selectRun(m_runB, m_runB->findData(m_pairB) > 0 ? m_pairB : -1);
            }
            m_error->setVisible(!list->error.isEmpty());
            m_error->setText(list->error);
            emit runsListed();
            if (!list->error.isEmpty())
                emit failed(list->error);
            else if (focus >= 0 || m_pairA < 0 || m_pairB < 0)
                compareSelected();
            // else the pair compare() was given is compared already, or being compared.
        });
}

void ComparePanel::showRun(qlonglong runId)
{
    m_focusRun = runId;
    setProject();
}

void ComparePanel::compareSelected()
{
    const qlonglong a = m_runA->currentData().toLongLong(), b = m_runB->currentData().toLongLong();
    if (m_runA->currentIndex() < 0 || m_runB->currentIndex() < 0 || a < 0 || b < 0) {
        ++m_compareGeneration; // a comparison still being read is no longer wanted
        m_model->setComparison(nullptr);
        m_summary->setText(b >= 0 ? QString("Pick run A to compare run %1 with: no other run comes from its "
                                            "source, so none is picked for you.")
                                        .arg(b)
                                  : QString("Pick two runs to compare."));
        return;
    }
    compare(a, b);
}

void ComparePanel::compare(qlonglong runA, qlonglong runB)
{
    m_pairA = runA;
    m_pairB = runB;
    selectRun(m_runA, runA);
    selectRun(m_runB, runB);
    m_summary->setText(QString("Comparing run %1 with run %2 ...").arg(runA).arg(runB));
    m_session->load<Compared>(
        this, m_compareGeneration,
        [runA, runB, held = m_session->run()](storage::Database& db) { return compareStored(db, runA, runB, held); },
        [this](Compared result) {
            m_error->setVisible(!result.error.isEmpty());
            m_error->setText(result.error);
            if (!result.error.isEmpty()) {
                m_summary->setText("No comparison.");
                m_model->setComparison(nullptr);
                emit failed(result.error);
                return;
            }
            const auto& c = *result.comparison;
            m_summary->setText(QString("A: %1\nB: %2\n%3 of %4 rows differ")
                                   .arg(QString::fromStdString(c.labelA), QString::fromStdString(c.labelB))
                                   .arg(c.differing)
                                   .arg(c.rows.size()));
            m_model->setComparison(result.comparison);
            fitColumns();
            // A log beside a simulation: the first call they disagree on is selected (rowSelected
            // steps the window there).
            if (const int row = m_model->tableRowOf(c.firstCallDisagreement); row >= 0) {
                m_view->selectRow(row);
                // Once the rows have their heights (fitColumns wraps them), the row at the top.
                QTimer::singleShot(0, this,
                    [this, row] { m_view->scrollTo(m_model->index(row, 0), QAbstractItemView::PositionAtTop); });
            }
            emit compared();
        });
}

void ComparePanel::rowSelected()
{
    const QModelIndexList rows = m_view->selectionModel()->selectedRows();
    const auto* c = m_model->comparison();
    if (rows.size() != 1 || !c)
        return;
    const int row = rows.front().data(ComparisonModel::RowRole).toInt();
    const engine::report::CompareRow& r = c->rows[size_t(row)];
    if (r.callA >= 0 || r.callB >= 0)
        emit callPicked(m_pairA, r.callA, m_pairB, r.callB);
}

bool ComparePanel::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_view->viewport() && event->type() == QEvent::Resize)
        fitColumns();
    return QWidget::eventFilter(watched, event);
}

/// The values are what is compared: A and B as wide as their widest value, the section as its
/// contents up to a fifth of the width, and the metric the rest (elided in the middle, whole in its
/// tooltip), so that B stays in sight in a 400 px dock.
void ComparePanel::fitColumns()
{
    QHeaderView* header = m_view->horizontalHeader();
    header->setStretchLastSection(false);
    const int width = m_view->viewport()->width();
    int used = 0;
    for (int c : { ComparisonModel::SectionColumn, ComparisonModel::AColumn, ComparisonModel::BColumn }) {
        m_view->resizeColumnToContents(c); // the header's and the cells' (bold where they differ) text
        int need = m_view->columnWidth(c) + 4; // the grid line, and rounding between metrics and layout
        if (c == ComparisonModel::SectionColumn)
            need = std::min(need, std::max(header->sectionSizeHint(c), width / 5));
        else // A and B share what the section and a quarter for the metric leave; longer values wrap
            need = std::min(need,
                std::max(header->sectionSizeHint(c),
                    (width * 3 / 4 - m_view->columnWidth(ComparisonModel::SectionColumn)) / 2));
        m_view->setColumnWidth(c, need);
        used += need;
    }
    m_view->setColumnWidth(
        ComparisonModel::MetricColumn, std::max(header->sectionSizeHint(ComparisonModel::MetricColumn), width - used));
    m_view->resizeRowsToContents();
}

} // namespace gui
