#include "gui/app/cache_panel.h"

#include "engine/cache/cache_checks.h"
#include "engine/cache/cache_key.h"
#include "gui/app/panel_loader.h"
#include "gui/app/project_session.h"
#include "gui/app/seam_wrap_delegate.h"

#include <QEvent>
#include <QFileInfo>
#include <QFontDatabase>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QScopedValueRollback>
#include <QSplitter>
#include <QStyle>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>

namespace gui {

namespace {

QString q(const std::string& s)
{
    return QString::fromStdString(s);
}

QTableWidget* makeTable(const char* name, const QStringList& headers)
{
    auto* table = new QTableWidget(0, headers.size());
    table->setObjectName(name);
    table->setHorizontalHeaderLabels(headers);
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    table->setWordWrap(true);
    table->verticalHeader()->hide();
    table->horizontalHeader()->setStretchLastSection(true);
    return table;
}

QPlainTextEdit* makeText(const char* name, bool readOnly = true)
{
    auto* text = new QPlainTextEdit;
    text->setObjectName(name);
    text->setReadOnly(readOnly);
    text->setLineWrapMode(QPlainTextEdit::NoWrap);
    text->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    return text;
}

QTableWidgetItem* cell(const QString& text)
{
    auto* item = new QTableWidgetItem(text);
    item->setToolTip(text);
    return item;
}

/// The header's rich text: where the entry sits and what TorchAir makes of it.
QString headerText(const storage::StoredCacheEntry& e)
{
    QStringList parts;
    if (e.layoutKnown) {
        parts << QString("<b>%1</b>").arg(q(e.model.className).toHtmlEscaped())
              << (e.model.dynamic ? "dynamic" : "static");
        if (!e.model.kind.empty())
            parts << q(e.model.kind);
        parts << QString("md5 <tt>%1</tt>").arg(q(e.model.md5));
        if (e.dist.world)
            parts << QString("world %1, rank %2 (tp %3, pp %4)")
                         .arg(*e.dist.world)
                         .arg(e.dist.globalRank.value_or(-1))
                         .arg(e.dist.tpRank.value_or(-1))
                         .arg(e.dist.ppRank.value_or(-1));
        parts << QString("func <b>%1</b>").arg(q(e.func).toHtmlEscaped());
    } else {
        parts << "<i>path outside TorchAir's cache layout</i>";
    }
    parts << QString("backend %1").arg(q(e.backend));
    const QString verdict = e.loads
        ? QString("<span style='color:#1a7f37'><b>TorchAir loads it</b></span>")
        : QString("<span style='color:#b42318'><b>TorchAir does not load it</b></span>%1")
              .arg(e.firstFailure ? QString(" (%1 failed)").arg(q(*e.firstFailure).toHtmlEscaped()) : QString());
    QString meta;
    if (!e.metaName.empty())
        meta = QString("<br>%1 &middot; %2 &middot; version %3 &middot; Python %4")
                   .arg(q(e.metaName).toHtmlEscaped(), q(e.metaDate).toHtmlEscaped(), q(e.version).toHtmlEscaped(),
                       q(e.python).toHtmlEscaped());
    // The path breaks at its slashes and underscores in a narrow dock.
    return QString("<tt>%1</tt><br>%3<br>%2%4")
        .arg(SeamWrapDelegate::breakable(q(e.relativePath.empty() ? e.path : e.relativePath)).toHtmlEscaped(),
            parts.join(" &middot; "), verdict, meta);
}

/// readable_cache's text for the entry, read afresh from its file; the stored texts when it is gone.
QString readableFor(const storage::StoredCacheEntry& e)
{
    auto stored = [&] {
        return QString("\n---- signature (stored) ----\n%1\n---- py_code (stored) ----\n%2")
            .arg(e.signature.empty() ? QString("(none)") : q(e.signature),
                e.pyCode.empty() ? QString("(none)") : q(e.pyCode));
    };
    if (!QFileInfo::exists(q(e.path)))
        return QString("The file %1 is gone: readable_cache cannot read it.\n").arg(q(e.path)) + stored();
    engine::cache::CheckOptions options;
    options.purpose = engine::cache::Purpose::Readable;
    const engine::cache::CacheFileReport report = engine::cache::checkCacheFile(e.path, options);
    if (report.artifact) {
        QString text = q(engine::cache::readableText(*report.artifact));
        if (const auto* failed = report.firstFailure())
            text = QString("Note: readable_cache raises %1: %2\n\n").arg(q(failed->exception), q(failed->message))
                + text;
        return text;
    }
    QString why = q(report.readError);
    if (const auto* failed = report.firstFailure())
        why = QString("%1: %2").arg(q(failed->exception), q(failed->message));
    return QString("readable_cache cannot read %1: %2\n").arg(q(e.path), why) + stored();
}

} // namespace

CachePanel::CachePanel(ProjectSession* session, QWidget* parent)
    : QWidget(parent)
    , m_header(new QLabel("A compile cache (a .torchair_cache folder, File > Import Folder...) lists its entries "
                          "under \"Compile caches\" in the Project view: pick one to see why it hits or misses."))
    , m_tabs(new QTabWidget)
    , m_checks(makeTable("cacheChecks", { "Check", "Status", "Exception", "TorchAir's message", "Detail" }))
    , m_log(makeText("cacheLog"))
    , m_options(makeTable("cacheOptions", { "Key option", "Value" }))
    , m_settings(makeText("keySettings", false))
    , m_verdict(new QLabel)
    , m_differences(makeTable("keyDifferences", { "Option", "In the cache entry", "In these settings" }))
    , m_explanation(makeText("keyExplanation"))
    , m_readable(makeText("cacheReadable"))
{
    m_header->setObjectName("cacheHeader");
    m_header->setWordWrap(true);
    m_header->setTextFormat(Qt::RichText);
    m_header->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_verdict->setObjectName("keyVerdict");
    m_verdict->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_verdict->setWordWrap(true);
    m_settings->setPlaceholderText("name=value per line, in either spelling, e.g.\nclone_input=False\n"
                                   "debug.aclgraph.disable_mempool_reuse_in_same_fx=True\n(empty: the defaults)");
    m_explanation->setLineWrapMode(QPlainTextEdit::WidgetWidth);
    m_explanation->setMaximumHeight(110);
    m_checks->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    // The checks fit the dock's width (fitChecks): messages, paths and details wrap (paths at their
    // slashes) and the rows grow, instead of a message running off to the right.
    m_checks->setItemDelegate(new SeamWrapDelegate(m_checks));
    m_checks->setTextElideMode(Qt::ElideNone);
    m_checks->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_checks->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOn); // a steady width to fit to
    m_checks->horizontalHeader()->setStretchLastSection(false);
    m_checks->viewport()->installEventFilter(this);

    auto* key = new QWidget;
    auto* keyLayout = new QVBoxLayout(key);
    keyLayout->setContentsMargins(0, 0, 0, 0);
    auto* split = new QSplitter(Qt::Horizontal);
    auto* left = new QWidget;
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    auto* settingsLabel = new QLabel("Settings of the config you compile with:");
    settingsLabel->setWordWrap(true);
    leftLayout->addWidget(settingsLabel);
    leftLayout->addWidget(m_settings, 1);
    auto* right = new QWidget;
    auto* rightLayout = new QVBoxLayout(right);
    rightLayout->setContentsMargins(0, 0, 0, 0);
    rightLayout->addWidget(m_verdict);
    rightLayout->addWidget(m_differences, 1);
    rightLayout->addWidget(m_explanation);
    split->addWidget(left);
    split->addWidget(right);
    split->setStretchFactor(1, 2);
    keyLayout->addWidget(split);

    m_tabs->addTab(m_checks, "Checks");
    m_tabs->addTab(m_log, "TorchAir log");
    m_tabs->addTab(m_options, "Key options");
    m_tabs->addTab(key, "Key explanation");
    m_tabs->addTab(m_readable, "Readable");

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_header);
    layout->addWidget(m_tabs, 1);
    connect(m_settings, &QPlainTextEdit::textChanged, this, &CachePanel::explainKey);
    connect(session, &ProjectSession::cacheEntryLoaded, this, [this, session] {
        showCacheEntry(session->cacheEntry(), session->cacheEntryId(), session->cacheEntryError());
    });
}

CachePanel::~CachePanel() = default;

QColor CachePanel::statusColor(engine::cache::CacheCheck::Status status)
{
    using S = engine::cache::CacheCheck::Status;
    switch (status) {
    case S::Passed:
        return QColor(0xd4, 0xf0, 0xd8);
    case S::Failed:
        return QColor(0xf8, 0xc8, 0xc4);
    case S::Warning:
        return QColor(0xfb, 0xe8, 0xb0);
    case S::NotReached:
        break;
    }
    return QColor(0xe4, 0xe4, 0xe4);
}

void CachePanel::showCacheEntry(
    const std::shared_ptr<const storage::StoredCacheEntry>& entry, qlonglong entryId, const QString& error)
{
    m_header->setText(QString("Reading cache entry %1 ...").arg(entryId));
    using Ptr = std::shared_ptr<const Loaded>;
    auto load = [entry, error]() -> Ptr {
        auto out = std::make_shared<Loaded>();
        if (!entry) {
            out->error = error;
            return out;
        }
        out->entry = *entry;
        out->readable = readableFor(out->entry);
        return out;
    };
    loadLatest<Ptr>(this, m_generation, load, [this](Ptr loaded) {
        m_loaded = loaded->error.isEmpty() ? loaded : nullptr;
        if (!m_loaded)
            m_header->setText(loaded->error.toHtmlEscaped());
        fill();
        emit shown();
    });
}

void CachePanel::fill()
{
    m_checks->setRowCount(0);
    m_options->setRowCount(0);
    m_log->clear();
    m_readable->clear();
    if (!m_loaded) {
        explainKey();
        return;
    }
    const storage::StoredCacheEntry& e = m_loaded->entry;
    m_header->setText(headerText(e));

    m_checks->setRowCount(int(e.checks.size()));
    for (int row = 0; row < int(e.checks.size()); ++row) {
        const auto& c = e.checks[size_t(row)];
        const QColor colour = statusColor(c.status);
        // The message as Python prints the exception ("PermissionError: Permissions must be 600"):
        // one column less for a narrow dock; the exception column is kept for its tooltip and copy.
        const QString message = c.exception.empty() ? q(c.message) : q(c.exception + ": " + c.message);
        const QString texts[] = { q(c.name), QString::fromUtf8(engine::cache::statusName(c.status)), q(c.exception),
            message, q(c.detail) };
        for (int col = 0; col < 5; ++col) {
            auto* item = cell(texts[col]);
            item->setBackground(colour);
            m_checks->setItem(row, col, item);
        }
    }
    // Each column's text on one line (the view measures it unwrapped); the exception is in the
    // message, and a detail column with nothing in it is hidden.
    m_checks->resizeColumnsToContents();
    for (int col = 0; col < CheckColumns; ++col) {
        m_checkWidths[size_t(col)] = m_checks->columnWidth(col);
        bool empty = true;
        for (int row = 0; row < m_checks->rowCount() && empty; ++row)
            empty = m_checks->item(row, col)->text().isEmpty();
        m_checks->setColumnHidden(col, col == ExceptionColumn || (empty && col == DetailColumn));
    }
    fitChecks();

    QStringList log;
    for (const auto& line : e.log)
        log << q(line);
    if (e.readError)
        log << QString("(reading the file: %1)").arg(q(*e.readError));
    m_log->setPlainText(log.isEmpty() ? QString("(TorchAir prints nothing for this entry)") : log.join('\n'));

    m_options->setRowCount(int(e.options.size()));
    for (int row = 0; row < int(e.options.size()); ++row) {
        m_options->setItem(row, 0, cell(q(e.options[size_t(row)].first)));
        m_options->setItem(row, 1, cell(q(e.options[size_t(row)].second)));
    }
    m_options->resizeColumnsToContents();
    m_readable->setPlainText(m_loaded->readable);
    m_settings->setPlainText(entrySettings(e)); // -> explainKey
}

void CachePanel::fitChecks()
{
    // The check and its status on one line; TorchAir's message and our detail share the rest
    // (three to two, each at least as wide as its title) and wrap.
    if (!m_loaded || m_fitting)
        return;
    const QScopedValueRollback<bool> fitting(m_fitting, true);
    QHeaderView* header = m_checks->horizontalHeader();
    const auto natural = [this](int col) { return m_checks->isColumnHidden(col) ? 0 : m_checkWidths[size_t(col)]; };
    const auto title = [header, this](int col) {
        return header->fontMetrics().horizontalAdvance(m_checks->horizontalHeaderItem(col)->text())
            + 2 * header->style()->pixelMetric(QStyle::PM_HeaderMargin, nullptr, header) + 4;
    };
    const int rest = m_checks->viewport()->width() - natural(CheckColumn) - natural(StatusColumn);
    const int detail = m_checks->isColumnHidden(DetailColumn)
        ? 0
        : std::max(title(DetailColumn), std::min(natural(DetailColumn), rest * 2 / 5));
    const int message = std::max(title(MessageColumn), rest - detail);
    m_checks->setColumnWidth(CheckColumn, natural(CheckColumn));
    m_checks->setColumnWidth(StatusColumn, natural(StatusColumn));
    m_checks->setColumnWidth(MessageColumn, message);
    if (detail > 0)
        m_checks->setColumnWidth(DetailColumn, detail);
    m_checks->resizeRowsToContents();
}

bool CachePanel::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_checks->viewport() && event->type() == QEvent::Resize)
        fitChecks();
    return QWidget::eventFilter(watched, event);
}

QString CachePanel::entrySettings(const storage::StoredCacheEntry& entry)
{
    if (entry.backend != "npugraph_ex")
        return "# the defaults; add name=value lines to try other settings\n";
    QStringList lines { "# this entry's own options; change one to see the miss" };
    for (const auto& [k, v] : entry.options)
        lines << QString("%1=%2").arg(q(k), q(v));
    return lines.join('\n') + '\n';
}

void CachePanel::setKeySettings(const QString& text)
{
    m_settings->setPlainText(text); // textChanged -> explainKey
}

QString CachePanel::keyVerdict() const
{
    return m_verdict->text();
}

void CachePanel::explainKey()
{
    m_differences->setRowCount(0);
    m_explanation->clear();
    if (!m_loaded) {
        m_verdict->setText("No cache entry.");
        return;
    }
    const storage::StoredCacheEntry& e = m_loaded->entry;
    engine::cache::Settings settings;
    const QStringList lines = m_settings->toPlainText().split('\n');
    for (int i = 0; i < lines.size(); ++i) {
        const QString line = lines[i].trimmed();
        if (line.isEmpty() || line.startsWith('#'))
            continue;
        const int eq = line.indexOf('=');
        if (eq <= 0) {
            m_verdict->setText(QString("Line %1: expected name=value, got '%2'").arg(i + 1).arg(line));
            return;
        }
        const std::string value = line.mid(eq + 1).trimmed().toStdString();
        auto parsed = engine::parsePyLiteral(value);
        // A bare word (O3, reduce-overhead) is taken as the string it spells.
        settings.emplace_back(
            line.left(eq).trimmed().toStdString(), parsed ? parsed.value() : engine::PyValue::str(value));
    }
    const auto backend
        = e.backend == "npugraph_ex" ? engine::config::Backend::NpugraphEx : engine::config::Backend::TorchAir;
    auto key = engine::cache::computeCacheKey(backend, settings);
    if (!key) {
        m_verdict->setText(QString("Invalid settings: %1").arg(q(key.error().toString())));
        return;
    }
    std::vector<std::string> entryOptions;
    for (const auto& [k, v] : e.options)
        entryOptions.push_back(k + "=" + v);
    const auto match = engine::cache::matchCacheEntry(key.value(), entryOptions, e.layoutKnown ? e.model.md5 : "");
    QStringList differing;
    m_differences->setRowCount(int(match.differences.size()));
    for (int row = 0; row < int(match.differences.size()); ++row) {
        const auto& [name, cached, config] = match.differences[size_t(row)];
        differing << q(name);
        m_differences->setItem(row, 0, cell(q(name)));
        m_differences->setItem(row, 1, cell(q(cached)));
        m_differences->setItem(row, 2, cell(q(config)));
    }
    m_differences->resizeColumnsToContents();
    QString verdict = QString::fromUtf8(engine::cache::verdictName(match.verdict));
    if (!differing.isEmpty())
        verdict += QString(": %1 differ%2").arg(differing.join(", ")).arg(differing.size() == 1 ? "s" : "");
    const char* colour = match.verdict == engine::cache::KeyMatch::Verdict::Hit ? "#1a7f37"
        : match.verdict == engine::cache::KeyMatch::Verdict::Miss               ? "#b42318"
                                                                                : "#7a5b00";
    m_verdict->setText(QString("<b style='color:%1'>%2</b>").arg(colour, verdict.toHtmlEscaped()));
    QStringList notes { q(match.explanation) };
    for (const auto& s : key->settingsOutsideKey)
        notes << QString("%1 is not part of the key: changing it reuses this cache.").arg(q(s));
    for (const auto& n : key->notes)
        notes << QString("Note: %1").arg(q(n));
    m_explanation->setPlainText(notes.join('\n'));
}

} // namespace gui
