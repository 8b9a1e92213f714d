// The Compiles tab (compiles_panel.h): a TORCH_TRACE's compile ids, a timeline strip and details.
#include "gui/app/compiles_panel.h"

#include "gui/app/project_session.h"
#include "storage/graph_store.h"

#include <QFileInfo>
#include <QHeaderView>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QSplitter>
#include <QStyle>
#include <QTableWidget>
#include <QTextBrowser>
#include <QVBoxLayout>
#include <algorithm>
#include <functional>
#include <map>

namespace gui {

namespace {

enum Column {
    ColSource,
    ColRank,
    ColCompile,
    ColPhase,
    ColStart,
    ColSeconds,
    ColGraphs,
    ColCache,
    ColFailure,
    ColReason,
    ColCount
};

QString qs(const std::string& s)
{
    return QString::fromStdString(s);
}
QString esc(const std::string& s)
{
    return qs(s).toHtmlEscaped();
}

/// The key compiles of one log share: source and rank.
std::pair<int64_t, int> logOf(const storage::StoredTraceCompile& c)
{
    return { c.sourceId, c.rank.value_or(-1) };
}
std::pair<int64_t, int> logOf(const storage::StoredTraceSpan& s)
{
    return { s.sourceId, s.rank.value_or(-1) };
}

QString seconds(double s)
{
    return s < 10 ? QString::number(s, 'f', 3) + " s" : QString::number(s, 'f', 1) + " s";
}

} // namespace

/// One bar per compile of one log on a time axis, the log's runtime spans as ticks below them, the
/// selected compile drawn darker. A click on a bar selects that compile (onPick).
class CompileTimeline : public QWidget {
public:
    explicit CompileTimeline(QWidget* parent = nullptr)
        : QWidget(parent)
    {
        setMinimumHeight(58);
        setMaximumHeight(58);
        setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
        setToolTip("Compiles of the selected compile's log on a time axis (bars; click one to select it) and its "
                   "runtime spans (ticks: CUDAGraphNode.record, ...)");
    }
    struct Bar {
        int index = 0; ///< into the compiles
        double start = 0, end = 0;
        QString label;
        bool failed = false;
    };
    void setData(std::vector<Bar> bars, std::vector<std::pair<double, double>> ticks, double t0, double t1)
    {
        m_bars = std::move(bars);
        m_ticks = std::move(ticks);
        m_t0 = t0;
        m_t1 = std::max(t1, t0 + 1);
        update();
    }
    void setSelected(int index)
    {
        m_selected = index;
        update();
    }
    std::function<void(int)> onPick;

protected:
    void paintEvent(QPaintEvent*) override
    {
        QPainter p(this);
        p.fillRect(rect(), palette().base());
        if (m_bars.empty()) {
            p.setPen(palette().color(QPalette::Disabled, QPalette::Text));
            p.drawText(rect(), Qt::AlignCenter, "no compile with timed spans");
            return;
        }
        const QFontMetrics fm(font());
        for (const Bar& b : m_bars) {
            const QRect r = barRect(b);
            const bool selected = b.index == m_selected;
            const QColor fill = b.failed ? QColor("#d9534f") : selected ? QColor("#1f5fa8") : QColor("#7fa7d8");
            p.fillRect(r, fill);
            p.setPen(selected ? QColor("#0b2e57") : fill.darker(130));
            p.drawRect(r.adjusted(0, 0, -1, -1));
            if (fm.horizontalAdvance(b.label) + 6 < r.width()) {
                p.setPen(selected || b.failed ? Qt::white : Qt::black);
                p.drawText(r, Qt::AlignCenter, b.label);
            }
        }
        // Runtime spans: a tick each (a short bar when it lasts long enough to show).
        p.setPen(QColor("#2e7d32"));
        for (const auto& [s, e] : m_ticks) {
            const int x0 = xOf(s), x1 = std::max(xOf(e), x0 + 1);
            p.fillRect(QRect(x0, kTickTop, x1 - x0, kTickHeight), QColor("#2e7d32"));
        }
        // Axis: seconds from the first span of the log.
        p.setPen(palette().color(QPalette::Text));
        const int axisY = kTickTop + kTickHeight + 3;
        p.drawLine(kMargin, axisY, width() - kMargin, axisY);
        const double span = (m_t1 - m_t0) / 1e6;
        const double steps[] = { 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 200,
            500, 1000, 2000, 5000 };
        double step = steps[std::size(steps) - 1];
        for (double s : steps)
            if (span / s <= std::max(2, (width() - 2 * kMargin) / 90)) {
                step = s;
                break;
            }
        for (double t = 0; t <= span + 1e-9; t += step) {
            const int x = xOf(m_t0 + t * 1e6);
            p.drawLine(x, axisY, x, axisY + 3);
            const QString text = QString::number(t, 'g', 6) + " s";
            const int w = fm.horizontalAdvance(text);
            p.drawText(std::clamp(x - w / 2, 0, std::max(0, width() - w)), axisY + 4 + fm.ascent(), text);
        }
    }
    void mousePressEvent(QMouseEvent* e) override
    {
        for (const Bar& b : m_bars)
            if (barRect(b).adjusted(-2, 0, 2, 0).contains(e->pos())) {
                if (onPick)
                    onPick(b.index);
                return;
            }
    }

private:
    static constexpr int kMargin = 8, kBarTop = 3, kBarHeight = 20, kTickTop = 26, kTickHeight = 8;
    int xOf(double us) const { return kMargin + int(double(width() - 2 * kMargin) * (us - m_t0) / (m_t1 - m_t0)); }
    QRect barRect(const Bar& b) const
    {
        const int x0 = xOf(b.start), x1 = std::max(xOf(b.end), x0 + 3);
        return QRect(x0, kBarTop, x1 - x0, kBarHeight);
    }
    std::vector<Bar> m_bars;
    std::vector<std::pair<double, double>> m_ticks;
    double m_t0 = 0, m_t1 = 1;
    int m_selected = -1;
};

CompilesPanel::CompilesPanel(ProjectSession* session, QWidget* parent)
    : QWidget(parent)
    , m_session(session)
    , m_title(new QLabel)
    , m_filter(new QLineEdit)
    , m_timeline(new CompileTimeline)
    , m_table(new QTableWidget)
    , m_details(new QTextBrowser)
    , m_split(new QSplitter(Qt::Horizontal))
{
    m_title->setWordWrap(true);
    m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_filter->setPlaceholderText("Filter: compile id, recompile reason, source, guard, stack ...");
    m_filter->setClearButtonEnabled(true);
    m_filter->setObjectName("compilesFilter");
    m_table->setObjectName("compilesTable");
    m_table->setColumnCount(ColCount);
    m_table->setHorizontalHeaderLabels(
        { "Log", "Rank", "Compile", "Phase", "Start", "Time", "Graphs", "Cache", "Failure", "Recompile reason" });
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(false);
    m_table->setTextElideMode(Qt::ElideRight);
    m_table->viewport()->installEventFilter(this);
    m_table->setWordWrap(false);
    m_table->setToolTip("Double-click a compile to open its graphs (Graph and Passes views)");
    m_details->setObjectName("compileDetails");
    m_details->setOpenLinks(false);
    m_details->setLineWrapMode(QTextEdit::WidgetWidth);

    auto* left = new QWidget;
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    leftLayout->addWidget(m_title);
    leftLayout->addWidget(m_filter);
    leftLayout->addWidget(m_timeline);
    leftLayout->addWidget(m_table, 1);
    m_split->addWidget(left);
    m_split->addWidget(m_details);
    // Width the panel gains goes to the table; the details keep theirs (word-wrapped).
    m_split->setStretchFactor(0, 1);
    m_split->setStretchFactor(1, 0);
    m_split->setChildrenCollapsible(false);
    m_details->setMinimumWidth(200);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(m_split);

    m_title->setText("No project.");
    connect(m_filter, &QLineEdit::textChanged, this, &CompilesPanel::setFilter);
    connect(m_table, &QTableWidget::currentCellChanged, this, [this](int row, int, int, int) { showDetails(row); });
    connect(m_table, &QTableWidget::cellDoubleClicked, this, [this](int row, int) { activateRow(row); });
    m_timeline->onPick = [this](int index) { selectRow(index); };
    connect(m_split, &QSplitter::splitterMoved, this, [this] { m_userSplit = true; });
    connect(session, &ProjectSession::projectChanged, this, &CompilesPanel::setProject);
    connect(session, &ProjectSession::contentChanged, this, &CompilesPanel::setProject);
    // The compile of the graph the Graph view shows is the current row.
    connect(session, &ProjectSession::graphLoading, this, &CompilesPanel::selectCompileOfGraph);
}

CompilesPanel::~CompilesPanel() = default;

void CompilesPanel::setProject()
{
    m_session->load<std::shared_ptr<const Loaded>>(
        this, m_generation,
        [](storage::Database& db) {
            auto loaded = std::make_shared<Loaded>();
            auto compiles = storage::readTraceCompiles(db);
            auto spans = storage::readTraceSpans(db);
            auto graphs = storage::listGraphs(db);
            if (!compiles || !spans || !graphs) {
                loaded->error = qs((!compiles ? compiles.error() : !spans ? spans.error() : graphs.error()).toString());
                return std::shared_ptr<const Loaded>(loaded);
            }
            loaded->compiles = std::move(compiles.value());
            for (auto& s : *spans)
                if (s.compileId.empty())
                    loaded->spans.push_back(std::move(s)); // runtime spans only: the compiles' are in their bars
            std::map<std::pair<int64_t, std::string>, std::vector<const storage::GraphRow*>> byGroup;
            for (const auto& g : *graphs)
                byGroup[{ g.sourceId, g.group }].push_back(&g);
            for (const auto& c : loaded->compiles) {
                qlonglong open = 0, aot = 0;
                int stages = 0;
                std::vector<qlonglong> all;
                for (const storage::GraphRow* g : byGroup[{ c.sourceId, c.group }]) {
                    all.push_back(g->id);
                    if (g->role != "stage")
                        continue;
                    ++stages;
                    if (!open)
                        open = g->id;
                    if (!aot && g->pass.rfind("aot_", 0) == 0 && !g->error)
                        aot = g->id;
                }
                loaded->graphIds.push_back(aot ? aot : open);
                loaded->graphKinds.push_back("stage");
                loaded->stageCounts.push_back(stages);
                loaded->allGraphs.push_back(std::move(all));
                // What the filter searches, lower-cased once here.
                QString hay
                    = qs(c.compileId + "\n" + c.group + "\n" + c.failType + "\n" + c.failReason + "\n" + c.cache);
                for (const auto& r : c.recompileReasons)
                    hay += "\n" + qs(r);
                for (const auto& s : c.sources)
                    hay += "\n" + qs(s.source + " " + s.dtype + " " + s.size);
                for (const auto& s : c.symbols)
                    hay += "\n" + qs(s.symbol + " " + s.source);
                for (const auto& s : c.stack)
                    hay += "\n" + qs(s);
                hay += "\n" + qs(c.guards);
                loaded->haystacks.push_back(hay.toLower());
            }
            return std::shared_ptr<const Loaded>(loaded);
        },
        [this](std::shared_ptr<const Loaded> loaded) {
            m_loaded = std::move(loaded);
            fill();
            emit shown();
        });
}

const storage::StoredTraceCompile* CompilesPanel::compile(int row) const
{
    if (!m_loaded || row < 0 || row >= int(m_loaded->compiles.size()))
        return nullptr;
    return &m_loaded->compiles[size_t(row)];
}

qlonglong CompilesPanel::graphOf(int row) const
{
    return compile(row) ? m_loaded->graphIds[size_t(row)] : 0;
}

bool CompilesPanel::selectCompileOfGraph(qlonglong graphId)
{
    m_graphShown = graphId; // kept for the next load too
    if (!m_loaded)
        return false;
    for (size_t i = 0; i < m_loaded->allGraphs.size(); ++i)
        for (qlonglong id : m_loaded->allGraphs[i])
            if (id == graphId) {
                if (m_table->isRowHidden(int(i)))
                    m_filter->clear();
                selectRow(int(i));
                return true;
            }
    return false;
}

void CompilesPanel::fill()
{
    m_table->setRowCount(0);
    m_details->clear();
    if (!m_loaded || !m_loaded->error.isEmpty()) {
        m_title->setText(m_loaded ? "Not read: " + m_loaded->error : QString("No project."));
        m_timeline->setData({}, {}, 0, 1);
        return;
    }
    const auto& cs = m_loaded->compiles;
    if (cs.empty()) {
        m_title->setText("No TORCH_TRACE in this project: import a trace log or its folder (TORCH_TRACE=<dir>) to "
                         "see its compiles here.");
        m_timeline->setData({}, {}, 0, 1);
        return;
    }
    // Start times are relative to the first compile of the same log.
    std::map<std::pair<int64_t, int>, double> firstStart;
    bool severalSources = false, anyRank = false;
    for (const auto& c : cs) {
        severalSources |= c.sourceId != cs.front().sourceId;
        anyRank |= c.rank.has_value();
        if (c.startUs) {
            auto [it, added] = firstStart.emplace(logOf(c), *c.startUs);
            if (!added)
                it->second = std::min(it->second, *c.startUs);
        }
    }
    int recompiles = 0, failures = 0;
    m_table->setRowCount(int(cs.size()));
    for (size_t i = 0; i < cs.size(); ++i) {
        const auto& c = cs[i];
        recompiles += !c.recompileReasons.empty();
        failures += !c.failType.empty();
        auto set = [&](int col, const QString& text, const QString& tip = {}) {
            auto* item = new QTableWidgetItem(text);
            item->setToolTip(tip.isEmpty() ? text : tip);
            if (col == ColStart || col == ColSeconds || col == ColGraphs)
                item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            if (col == ColFailure && !c.failType.empty())
                item->setForeground(QColor("#a01010"));
            m_table->setItem(int(i), col, item);
        };
        set(ColSource, QFileInfo(qs(c.sourcePath)).fileName(), qs(c.sourcePath));
        set(ColRank, c.rank ? QString::number(*c.rank) : QString("-"));
        set(ColCompile, qs(c.compileId), qs(c.group));
        set(ColPhase, c.phase.empty() ? QString("-") : qs(c.phase));
        QString start = "-";
        if (c.startUs) {
            const double rel = (*c.startUs - firstStart[logOf(c)]) / 1e6;
            start = "+" + seconds(rel);
        }
        set(ColStart, start);
        set(ColSeconds, c.compileSeconds ? seconds(*c.compileSeconds) : QString("-"));
        set(ColGraphs, QString::number(m_loaded->stageCounts[i]),
            QString("%1 graph stages in the project (%2 graph records in the log)")
                .arg(m_loaded->stageCounts[i])
                .arg(c.graphCount));
        set(ColCache, c.cache.empty() ? QString("-") : qs(c.cache));
        set(ColFailure, c.failType.empty() ? QString("-") : qs(c.failType + ": " + c.failReason));
        const QString reason = c.recompileReasons.empty() ? QString("-") : qs(c.recompileReasons.front());
        set(ColReason,
            c.recompileReasons.size() > 1 ? reason + QString(" (+%1 more)").arg(c.recompileReasons.size() - 1) : reason,
            c.recompileReasons.empty() ? QString("-") : qs(c.recompileReasons.front()));
    }
    m_table->setColumnHidden(ColSource, !severalSources);
    m_table->setColumnHidden(ColRank, !anyRank);
    // One phase for all (the usual inference-only trace): said once in the title, not in a column.
    bool onePhase = true;
    for (const auto& c : cs)
        onePhase &= c.phase == cs.front().phase;
    m_table->setColumnHidden(ColPhase, onePhase);
    m_table->resizeColumnsToContents();
    // A long failure or reason is not allowed to push the others out of sight: it keeps a width the
    // table can show, its whole text in the tooltip and the details.
    for (int col : { int(ColFailure), int(ColReason) })
        m_table->setColumnWidth(col, std::min(m_table->columnWidth(col), 420));
    fitSplit();
    fitReasonColumn();
    m_title->setText(QString("%1 compile%2%3 · %4 recompiled · %5 failed")
                         .arg(cs.size())
                         .arg(cs.size() == 1 ? "" : "s")
                         .arg(onePhase && !cs.front().phase.empty() ? " (" + qs(cs.front().phase) + ")" : QString())
                         .arg(recompiles)
                         .arg(failures));
    // The compile of the graph on screen, else the latest compile: its recompile reasons list every
    // guard that failed before it.
    setFilter(m_filter->text());
    if (!m_graphShown || !selectCompileOfGraph(m_graphShown))
        selectRow(int(cs.size()) - 1);
}

void CompilesPanel::fitSplit()
{
    // The table as wide as its columns (the reason at 240) when the panel has room, the details the
    // rest, at least 300 (200 in a narrow dock) and at most half; once the user moved the splitter,
    // theirs.
    if (m_userSplit || !m_loaded || m_loaded->compiles.empty())
        return;
    int wanted = 2 * m_table->frameWidth() + m_table->verticalScrollBar()->sizeHint().width() + 240;
    for (int col = 0; col < ColReason; ++col)
        if (!m_table->isColumnHidden(col))
            wanted += m_table->columnWidth(col);
    const int total = m_split->width() - m_split->handleWidth();
    if (total <= 0)
        return;
    // In a narrow dock the table keeps its columns up to the graphs in sight, the details at least
    // their minimum.
    int key = 2 * m_table->frameWidth() + m_table->verticalScrollBar()->sizeHint().width();
    for (int col = 0; col <= ColGraphs; ++col)
        if (!m_table->isColumnHidden(col))
            key += m_table->columnWidth(col);
    const int left
        = std::max({ total / 2, std::min(wanted, total - 300), std::min(key, total - m_details->minimumWidth()) });
    m_split->setSizes({ left, total - left });
}

void CompilesPanel::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    fitSplit();
}

bool CompilesPanel::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_table->viewport() && event->type() == QEvent::Resize)
        fitReasonColumn();
    return QWidget::eventFilter(watched, event);
}

void CompilesPanel::fitReasonColumn()
{
    // The first recompile reason fills what the other columns leave and is elided there ("..."): it
    // is whole in its tooltip and in the details.
    int others = 0;
    for (int col = 0; col < ColReason; ++col)
        if (!m_table->isColumnHidden(col))
            others += m_table->columnWidth(col);
    // At least its title: in a narrow dock it runs past the viewport (a horizontal scroll away).
    QHeaderView* header = m_table->horizontalHeader();
    const int title = header->fontMetrics().horizontalAdvance(m_table->horizontalHeaderItem(ColReason)->text())
        + 2 * header->style()->pixelMetric(QStyle::PM_HeaderMargin, nullptr, header) + 4;
    m_table->setColumnWidth(ColReason, std::max({ 120, title, m_table->viewport()->width() - others - 2 }));
}

void CompilesPanel::setFilter(const QString& text)
{
    if (m_filter->text() != text)
        m_filter->setText(text); // comes back here through textChanged
    if (!m_loaded)
        return;
    const QString needle = text.trimmed().toLower();
    int firstShown = -1;
    for (int row = 0; row < m_table->rowCount() && row < int(m_loaded->haystacks.size()); ++row) {
        const bool show = needle.isEmpty() || m_loaded->haystacks[size_t(row)].contains(needle);
        m_table->setRowHidden(row, !show);
        if (show && firstShown < 0)
            firstShown = row;
    }
    if (m_table->currentRow() < 0 || m_table->isRowHidden(m_table->currentRow()))
        selectRow(firstShown);
}

void CompilesPanel::selectRow(int row)
{
    if (row < 0 || row >= m_table->rowCount()) {
        m_table->setCurrentCell(-1, -1);
        showDetails(-1);
        return;
    }
    m_table->setCurrentCell(row, ColCompile);
    m_table->scrollToItem(m_table->item(row, ColCompile));
    showDetails(row);
}

void CompilesPanel::activateRow(int row)
{
    const qlonglong id = graphOf(row);
    if (id)
        emit graphActivated(m_loaded->graphKinds[size_t(row)], id);
}

void CompilesPanel::showDetails(int row)
{
    const storage::StoredTraceCompile* c = compile(row);
    if (!c) {
        m_details->clear();
        m_timeline->setSelected(-1);
        return;
    }
    // The timeline shows the log of the selected compile.
    std::vector<CompileTimeline::Bar> bars;
    std::vector<std::pair<double, double>> ticks;
    double t0 = 0, t1 = 0;
    bool any = false;
    auto widen = [&](double s, double e) {
        t0 = any ? std::min(t0, s) : s;
        t1 = any ? std::max(t1, e) : e;
        any = true;
    };
    const auto log = logOf(*c);
    for (size_t i = 0; i < m_loaded->compiles.size(); ++i) {
        const auto& o = m_loaded->compiles[i];
        if (logOf(o) != log || !o.startUs || !o.endUs)
            continue;
        bars.push_back({ int(i), *o.startUs, *o.endUs, qs(o.compileId), !o.failType.empty() });
        widen(*o.startUs, *o.endUs);
    }
    for (const auto& s : m_loaded->spans)
        if (logOf(s) == log) {
            ticks.emplace_back(s.startUs, s.endUs);
            widen(s.startUs, s.endUs);
        }
    m_timeline->setData(std::move(bars), std::move(ticks), t0, t1);
    m_timeline->setSelected(row);
    m_details->setHtml(detailsHtml(*c));
}

QString CompilesPanel::detailsHtml(const storage::StoredTraceCompile& c) const
{
    QString h;
    h += "<h3>Compile " + esc(c.compileId) + (c.rank ? QString(" · rank %1").arg(*c.rank) : QString()) + "</h3>";
    h += "<p>" + (c.phase.empty() ? QString("no AOT graph") : esc(c.phase)) + " · graph group <b>" + esc(c.group)
        + "</b> · " + QFileInfo(qs(c.log.empty() ? c.sourcePath : c.log)).fileName().toHtmlEscaped()
        + QString(":%1").arg(c.firstLine);
    if (c.compileSeconds)
        h += " · compiled in " + seconds(*c.compileSeconds);
    if (!c.cache.empty())
        h += " · cache: " + esc(c.cache);
    h += "</p>";
    if (!c.failType.empty())
        h += "<p style='color:#a01010'><b>Failed:</b> " + esc(c.failType) + (c.failReason.empty() ? "" : ": ")
            + esc(c.failReason) + "</p>";
    h += "<h4>Recompile reasons</h4>";
    if (c.recompileReasons.empty())
        h += "<p>none (the first compile of its frame, or the log has no recompile_reasons)</p>";
    else {
        h += "<ul>";
        for (const auto& r : c.recompileReasons)
            h += "<li>" + esc(r) + "</li>";
        h += "</ul>";
    }
    if (!c.symbols.empty()) {
        h += "<h4>Symbols</h4><ul>";
        for (const auto& s : c.symbols)
            h += "<li><b>" + esc(s.symbol) + "</b> = " + esc(s.source) + " · hint "
                + (s.hint ? QString::number(*s.hint) : QString("-")) + "</li>";
        h += "</ul>";
    }
    h += QString("<h4>Sources (%1)</h4>").arg(c.sources.size());
    if (!c.sources.empty()) {
        h += "<ul>";
        for (const auto& s : c.sources) {
            const bool isInput = s.source.rfind("L['", 0) == 0 && s.source.find("._parameters[") == std::string::npos
                && s.source.find("._buffers[") == std::string::npos;
            const QString kind = s.isParameter                     ? "parameter"
                : s.source.find("._buffers[") != std::string::npos ? "buffer"
                : isInput                                          ? "input"
                                                                   : "other";
            h += "<li>" + esc(s.source) + " · <i>" + kind + "</i> · "
                + esc(s.dtype.rfind("torch.", 0) == 0 ? s.dtype.substr(6) : s.dtype) + " " + esc(s.size) + "</li>";
        }
        h += "</ul>";
    }
    if (!c.stack.empty()) {
        h += "<h4>Stack (innermost last)</h4><p style='white-space:pre-wrap'>";
        for (const auto& s : c.stack)
            h += esc(s) + "<br>";
        h += "</p>";
    }
    if (!c.artifacts.empty()) {
        QStringList names;
        for (const auto& a : c.artifacts)
            if (!names.contains(qs(a)))
                names << qs(a);
        h += "<h4>Other records</h4><p>" + names.join(", ").toHtmlEscaped() + "</p>";
    }
    if (!c.metricsJson.empty()) {
        const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(c.metricsJson));
        const QString text = doc.isNull() ? qs(c.metricsJson) : QString::fromUtf8(doc.toJson(QJsonDocument::Indented));
        h += "<h4>Metrics (compilation_metrics)</h4><pre style='white-space:pre-wrap'>" + text.toHtmlEscaped()
            + "</pre>";
    }
    if (!c.guards.empty()) {
        constexpr int kShown = 64 * 1024;
        QString g = qs(c.guards);
        if (g.size() > kShown)
            g = g.left(kShown)
                + QString("\n... (%1 more characters; the filter searches them all)").arg(g.size() - kShown);
        h += "<h4>Guards</h4><pre style='white-space:pre-wrap'>" + g.toHtmlEscaped() + "</pre>";
    }
    return h;
}

} // namespace gui
