#include "gui/app/memory_view.h"

#include "gui/app/memory_breakdown.h"

#include "engine/snapshot/snapshot_story.h"

#include "engine/report/details.h"
#include "engine/report/simulation_report.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>
#include <set>

namespace gui {

namespace {

constexpr int kMargin = 6;
constexpr int kLegendLine = 20;
constexpr int kHeaderHeight = 22;
constexpr int kRowHeight = 18;
constexpr int kLabelWidth = 230;
constexpr int kMinBlockWidth = 4;

const std::vector<engine::runtime::OwnerKind>& legendKinds()
{
    using K = engine::runtime::OwnerKind;
    static const std::vector<K> kinds = { K::Parameter, K::MutatedInput, K::UserInput, K::Staging, K::Intermediate,
        K::Workspace, K::Output, K::EagerTensor, K::Recorded };
    return kinds;
}

const char* legendName(engine::runtime::OwnerKind k)
{
    using K = engine::runtime::OwnerKind;
    switch (k) {
    case K::Parameter:
        return "parameter";
    case K::MutatedInput:
        return "mutated input / KV cache";
    case K::UserInput:
        return "user input";
    case K::Staging:
        return "staging input";
    case K::Intermediate:
        return "intermediate";
    case K::Workspace:
        return "workspace";
    case K::Output:
        return "output";
    case K::EagerTensor:
        return "eager";
    case K::Recorded:
        return "recorded (snapshot)";
    }
    return "";
}

QString poolHeader(const engine::runtime::PoolSnapshot& p, const engine::runtime::Simulation* sim)
{
    QString graphs;
    if (p.pool.isDefault())
        graphs = "default pool";
    else if (sim)
        for (const auto& rec : sim->pools)
            if (rec.pool == p.pool) {
                for (const auto& g : rec.graphs)
                    graphs += (graphs.isEmpty() ? "" : ", ") + QString::fromStdString(g);
                if (sim->origin.kind == engine::runtime::RunOriginKind::Recorded)
                    graphs += " (" + QString::fromStdString(engine::report::poolKindName(rec, sim->origin.kind)) + ")";
                else if (rec.custom)
                    graphs += " (custom pool)";
            }
    return QString("%1 %2 · reserved %3 · allocated %4 · %5 segment%6")
        .arg(QString::fromStdString(p.pool.str()), graphs, formatBytes(p.reserved), formatBytes(p.allocated))
        .arg(p.segments.size())
        .arg(p.segments.size() == 1 ? "" : "s");
}

struct LegendItem {
    QColor fill;
    QString name;
    bool hatched = false;
    QRect rect; ///< swatch and name
};

/// The categories a recording's owners have, in the story's order (ownerCategoryOrder); empty for
/// a simulation (its legend is the owner kinds).
std::vector<std::string> categoriesOf(const engine::runtime::Simulation* sim)
{
    std::set<std::string> present;
    if (sim)
        for (const auto& o : sim->owners)
            if (o.kind == engine::runtime::OwnerKind::Recorded && !o.category.empty())
                present.insert(o.category);
    std::vector<std::string> out;
    for (const std::string& c : engine::snapshot::ownerCategoryOrder())
        if (present.erase(c))
            out.push_back(c);
    out.insert(out.end(), present.begin(), present.end()); // words this build does not know, last
    return out;
}

/// The legend's entries laid out left to right, wrapping at `width`: the owner kinds, or a
/// recording's categories when it has them.
std::vector<LegendItem> legendItems(
    const QFont& font, int width, const std::vector<std::string>& categories, const QString& perColour = {})
{
    std::vector<LegendItem> items;
    if (!perColour.isEmpty()) // colours by hash: one legend line says what they stand for
        items.push_back({ QColor::fromHsv(200, 120, 220), perColour, false, {} });
    for (const auto& c : categories)
        if (perColour.isEmpty())
            items.push_back({ recordedCategoryColor(c), QString::fromStdString(c), false, {} });
    if (categories.empty() && perColour.isEmpty())
        for (auto k : legendKinds())
            items.push_back({ ownerKindColor(k), legendName(k), false, {} });
    items.push_back({ freeBlockColor(), "free", false, {} });
    items.push_back({ QColor(0xb0, 0xb0, 0xb0), "allocated, no owner", true, {} });
    const QFontMetrics fm(font);
    int x = kMargin, y = kMargin;
    for (auto& item : items) {
        const int w = 16 + fm.horizontalAdvance(item.name) + 4;
        if (x > kMargin && x + w > width - kMargin) {
            x = kMargin;
            y += kLegendLine;
        }
        item.rect = QRect(x, y, w, kLegendLine);
        x += w + 10;
    }
    return items;
}

QString perColourText(MemoryView::ColourBy by)
{
    switch (by) {
    case MemoryView::ColourBy::Owner:
        return "a colour per owner";
    case MemoryView::ColourBy::Site:
        return "a colour per allocation site";
    case MemoryView::ColourBy::Allocation:
        return "a colour per allocation";
    case MemoryView::ColourBy::Category:
        break;
    }
    return {};
}

QFont smallFont(const QFont& base)
{
    QFont small = base;
    small.setPointSizeF(std::max(7.0, base.pointSizeF() * 0.9));
    return small;
}

} // namespace

QColor ownerKindColor(engine::runtime::OwnerKind kind)
{
    using K = engine::runtime::OwnerKind;
    switch (kind) {
    case K::Parameter:
        return QColor(0x4e, 0x79, 0xa7);
    case K::MutatedInput:
        return QColor(0x9c, 0x5f, 0xb5);
    case K::UserInput:
        return QColor(0x59, 0xa1, 0x4f);
    case K::Staging:
        return QColor(0x3f, 0xb8, 0xaf);
    case K::Intermediate:
        return QColor(0xf2, 0x8e, 0x2b);
    case K::Workspace:
        return QColor(0xed, 0xc9, 0x48);
    case K::Output:
        return QColor(0xe1, 0x57, 0x59);
    case K::EagerTensor:
        return QColor(0x9d, 0x75, 0x5d);
    case K::Recorded:
        return QColor(0x76, 0x8f, 0xa6);
    }
    return Qt::gray;
}

QColor recordedCategoryColor(const std::string& category)
{
    static const std::vector<std::pair<const char*, QColor>> colours {
        { "graph tensor", QColor(0xe1, 0x57, 0x59) }, { "warm-up", QColor(0xf2, 0x8e, 0x2b) },
        { "static input copy", QColor(0x3f, 0xb8, 0xaf) }, { "capture", QColor(0xb0, 0x7a, 0xa1) },
        { "autotuning", QColor(0xed, 0xc9, 0x48) }, { "library workspace", QColor(0x9c, 0x75, 0x5f) },
        { "checkpoint restore", QColor(0xff, 0x9d, 0xa7) }, { "eager", QColor(0x4e, 0x79, 0xa7) },
        { "unknown", QColor(0x76, 0x8f, 0xa6) } };
    for (const auto& [name, colour] : colours)
        if (category == name)
            return colour;
    // A category this build does not know: a stable colour of its own.
    return QColor::fromHsv(int(qHash(QString::fromStdString(category)) % 360), 90, 200);
}

QColor freeBlockColor()
{
    return QColor(0xe4, 0xe4, 0xe4);
}

QString formatBytes(uint64_t bytes)
{
    return QString::fromStdString(engine::report::humanBytes(bytes));
}

MemoryView::MemoryView(QWidget* parent)
    : QWidget(parent)
    , m_message("No run.")
{
    setMouseTracking(false);
    setAttribute(Qt::WA_OpaquePaintEvent);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Minimum);
}

void MemoryView::setSimulation(std::shared_ptr<const engine::runtime::Simulation> sim)
{
    m_sim = std::move(sim);
    m_categories = categoriesOf(m_sim.get());
    clear(m_sim ? "Reading memory ..." : "No run.");
}

void MemoryView::setColourBy(ColourBy by)
{
    if (by == m_colourBy)
        return;
    m_colourBy = by;
    update();
}

void MemoryView::setHighlight(const QString& text)
{
    if (text == m_highlight)
        return;
    m_highlight = text;
    update();
}

void MemoryView::setMemory(int event, std::shared_ptr<const std::vector<engine::runtime::PoolSnapshot>> pools)
{
    m_event = event;
    m_pools = std::move(pools);
    m_stale = false;
    m_message.clear();
    layoutRows();
    updateGeometry();
    update();
}

void MemoryView::setStale(bool stale)
{
    if (m_stale == stale)
        return;
    m_stale = stale;
    update();
}

void MemoryView::clear(const QString& message)
{
    m_pools.reset();
    m_event = -1;
    m_stale = false;
    m_message = message;
    layoutRows();
    updateGeometry();
    update();
}

const std::vector<engine::runtime::PoolSnapshot>& MemoryView::shown() const
{
    static const std::vector<engine::runtime::PoolSnapshot> none;
    return m_pools ? *m_pools : none;
}

QRect MemoryView::blockRect(int pool, int segment, int block) const
{
    for (const auto& b : m_blocks)
        if (b.pool == pool && b.segment == segment && b.block == block)
            return b.rect;
    return {};
}

int MemoryView::contentHeight() const
{
    if (m_rows.empty())
        return m_top + kHeaderHeight + kMargin;
    return m_rows.back().rect.bottom() + 1 + kMargin;
}

QSize MemoryView::sizeHint() const
{
    return QSize(720, contentHeight());
}

QSize MemoryView::minimumSizeHint() const
{
    return QSize(kLabelWidth + 200, contentHeight());
}

void MemoryView::resizeEvent(QResizeEvent*)
{
    layoutRows();
}

void MemoryView::layoutRows()
{
    m_rows.clear();
    m_blocks.clear();
    const auto& pools = shown();
    uint64_t largest = 1;
    for (const auto& p : pools)
        for (const auto& s : p.segments)
            largest = std::max(largest, s.totalSize);
    const int barLeft = kMargin + kLabelWidth;
    const int barWidth = std::max(100, width() - barLeft - kMargin);
    const double scale = double(barWidth) / double(largest);
    const auto legend = legendItems(smallFont(font()), width(), m_categories, perColourText(m_colourBy));
    m_top = legend.back().rect.bottom() + 1 + 6;
    int y = m_top;
    for (int pi = 0; pi < int(pools.size()); ++pi) {
        m_rows.push_back({ QRect(kMargin, y, width() - 2 * kMargin, kHeaderHeight), pi, -1, {} });
        y += kHeaderHeight;
        const auto& segments = pools[size_t(pi)].segments;
        for (int si = 0; si < int(segments.size()); ++si) {
            const auto& seg = segments[size_t(si)];
            m_rows.push_back({ QRect(kMargin, y, width() - 2 * kMargin, kRowHeight), pi, si, {} });
            // Each block gets its share of the bar to scale but at least kMinBlockWidth pixels (1 when
            // a segment has more blocks than that allows); the bar grows by what the minimums add.
            const int n = int(seg.blocks.size());
            const int segWidth = std::max(1, int(double(seg.totalSize) * scale + 0.5));
            const int minWidth = n * kMinBlockWidth <= barWidth ? kMinBlockWidth : 1;
            double x = barLeft;
            for (int bi = 0; bi < n; ++bi) {
                const auto& b = seg.blocks[size_t(bi)];
                const double w = std::max(double(minWidth), double(b.size) * scale);
                int left = int(x + 0.5), right = int(x + w + 0.5);
                right = std::min(right, barLeft + std::max(segWidth, barWidth));
                m_blocks.push_back({ pi, si, bi, QRect(left, y + 2, std::max(1, right - left), kRowHeight - 4) });
                x += w;
            }
            const int barRight = n ? m_blocks.back().rect.right() + 1 : barLeft + segWidth;
            m_rows.back().bar = QRect(barLeft, y + 2, std::max(1, barRight - barLeft), kRowHeight - 4);
            y += kRowHeight;
        }
        y += 4;
    }
    if (minimumHeight() != contentHeight())
        setMinimumHeight(contentHeight());
}

const engine::runtime::OwnerInfo* MemoryView::ownerOf(const engine::memory::BlockInfo& b) const
{
    if (!m_sim || b.owner < 0 || size_t(b.owner) >= m_sim->owners.size())
        return nullptr;
    return &m_sim->owners[size_t(b.owner)];
}

const MemoryView::BlockPlace* MemoryView::blockAt(const QPoint& p) const
{
    for (const auto& b : m_blocks)
        if (b.rect.adjusted(0, -2, 0, 2).contains(p))
            return &b;
    return nullptr;
}

QString MemoryView::tooltip(const BlockPlace& place) const
{
    const auto& b = shown()[size_t(place.pool)].segments[size_t(place.segment)].blocks[size_t(place.block)];
    QString t = QString("<b>0x%1</b><br>size %2 (%3 B)<br>requested %4")
                    .arg(b.address, 0, 16)
                    .arg(formatBytes(b.size))
                    .arg(b.size)
                    .arg(formatBytes(b.requested));
    if (!b.allocated)
        return t + "<br>free";
    const auto* o = ownerOf(b);
    if (!o)
        return t + "<br>allocated, no owner (re-created by a rollback)";
    t += QString("<br>%1").arg(
        o->category.empty() ? QString(legendName(o->kind)) : QString::fromStdString(o->category).toHtmlEscaped());
    if (!o->tensor.empty())
        t += QString(" <b>%1</b>").arg(QString::fromStdString(o->tensor).toHtmlEscaped());
    if (!o->graph.empty())
        t += QString("<br>graph %1").arg(QString::fromStdString(o->graph));
    if (!o->key.empty())
        t += QString(" key %1").arg(QString::fromStdString(o->key).toHtmlEscaped());
    if (o->call >= 0)
        t += QString("<br>made by call %1").arg(o->call);
    if (!o->evidence.empty())
        t += QString("<br><i>why: %1</i>").arg(QString::fromStdString(o->evidence).toHtmlEscaped());
    if (!o->stack.empty()) {
        // The whole stack, innermost first, as memory_viz shows it on hover (long ones cut at 24 frames).
        const QStringList frames = QString::fromStdString(o->stack).split('\n', Qt::SkipEmptyParts);
        t += "<br><b>stack</b>";
        for (int i = 0; i < frames.size() && i < 24; ++i)
            t += "<br>&nbsp;&nbsp;" + frames[i].toHtmlEscaped();
        if (frames.size() > 24)
            t += QString("<br>&nbsp;&nbsp;... %1 more").arg(frames.size() - 24);
    }
    return t;
}

bool MemoryView::event(QEvent* e)
{
    if (e->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(e);
        if (const BlockPlace* b = blockAt(help->pos()))
            QToolTip::showText(help->globalPos(), tooltip(*b), this, b->rect);
        else
            QToolTip::hideText();
        return true;
    }
    return QWidget::event(e);
}

void MemoryView::mousePressEvent(QMouseEvent* e)
{
    const BlockPlace* b = blockAt(e->pos());
    if (!b || e->button() != Qt::LeftButton)
        return QWidget::mousePressEvent(e);
    const auto& block = shown()[size_t(b->pool)].segments[size_t(b->segment)].blocks[size_t(b->block)];
    emit blockClicked(b->pool, b->segment, b->block, block.allocated ? ownerOf(block) : nullptr);
}

void MemoryView::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    const QFont small = smallFont(font());
    // Legend, in as many lines as the width needs.
    p.setFont(small);
    for (const auto& item : legendItems(small, width(), m_categories, perColourText(m_colourBy))) {
        const QRect r(item.rect.left(), item.rect.top() + 4, 12, 12);
        p.fillRect(r, item.fill);
        if (item.hatched)
            p.fillRect(r, QBrush(QColor(0x60, 0x60, 0x60), Qt::BDiagPattern));
        p.setPen(QColor(0x80, 0x80, 0x80));
        p.drawRect(r.adjusted(0, 0, -1, -1));
        p.setPen(palette().text().color());
        p.drawText(item.rect.adjusted(16, 0, 0, 0), Qt::AlignVCenter | Qt::AlignLeft, item.name);
    }
    if (!m_message.isEmpty()) {
        p.setFont(font());
        p.setPen(palette().text().color());
        // A long message (why a run has no memory to show) wraps over the view's width.
        p.drawText(QRect(kMargin, m_top, width() - 2 * kMargin, std::max(kHeaderHeight, height() - m_top)),
            Qt::AlignTop | Qt::AlignLeft | Qt::TextWordWrap, m_message);
        return;
    }
    const auto& pools = shown();
    QFont bold = font();
    bold.setBold(true);
    const QFontMetrics smallMetrics(small);
    for (const auto& row : m_rows) {
        const auto& pool = pools[size_t(row.pool)];
        if (row.segment < 0) {
            p.setFont(bold);
            p.setPen(palette().text().color());
            const QString text = poolHeader(pool, m_sim.get())
                + (pool.segments.empty() ? QString(" (held by its use count, no segment)") : QString());
            p.drawText(row.rect, Qt::AlignBottom | Qt::AlignLeft,
                QFontMetrics(bold).elidedText(text, Qt::ElideRight, row.rect.width()));
            continue;
        }
        const auto& seg = pool.segments[size_t(row.segment)];
        p.setFont(small);
        p.setPen(palette().text().color());
        const QString label = QString("%1%2 · 0x%3")
                                  .arg(formatBytes(seg.totalSize))
                                  .arg(seg.small ? " small" : "")
                                  .arg(seg.address, 0, 16);
        p.drawText(QRect(row.rect.left() + 8, row.rect.top(), kLabelWidth - 12, row.rect.height()),
            Qt::AlignVCenter | Qt::AlignLeft, smallMetrics.elidedText(label, Qt::ElideRight, kLabelWidth - 12));
    }
    // Each segment's extent, outlined, under its blocks.
    p.setPen(QColor(0xa0, 0xa0, 0xa0));
    for (const auto& row : m_rows)
        if (row.segment >= 0 && !row.bar.isEmpty())
            p.drawRect(row.bar.adjusted(-1, -1, 0, 0));
    for (const auto& place : m_blocks) {
        const auto& b = pools[size_t(place.pool)].segments[size_t(place.segment)].blocks[size_t(place.block)];
        const auto* owner = ownerOf(b);
        QColor fill = !b.allocated ? freeBlockColor()
            : !owner                 ? QColor(0xb0, 0xb0, 0xb0)
            : owner->kind == engine::runtime::OwnerKind::Recorded && !owner->category.empty()
            ? recordedCategoryColor(owner->category)
            : ownerKindColor(owner->kind);
        if (b.allocated && owner && m_colourBy != ColourBy::Category) {
            // A stable colour of its own per owner name, site or allocation (hue from a hash).
            const uint qkey = m_colourBy == ColourBy::Allocation ? qHash(qulonglong(b.owner))
                : m_colourBy == ColourBy::Owner                  ? qHash(QString::fromStdString(owner->graph))
                                                                 : qHash(QString::fromStdString(owner->tensor));
            fill = QColor::fromHsv(int(qkey % 360), 120 + int(qkey / 360 % 80), 200 + int(qkey / 29000 % 40));
        }
        const bool marked = !m_highlight.isEmpty() && b.allocated && owner && ownerMatches(*owner, m_highlight);
        if (!m_highlight.isEmpty() && !marked) // faded: not what the filter looks for
            fill = QColor((fill.red() + 3 * 255) / 4, (fill.green() + 3 * 255) / 4, (fill.blue() + 3 * 255) / 4);
        p.fillRect(place.rect, fill);
        if (marked) {
            p.setPen(QPen(QColor(0x10, 0x10, 0x10), 2));
            p.drawRect(place.rect.adjusted(1, 1, -1, -1));
        }
        if (b.allocated && !owner)
            p.fillRect(place.rect, QBrush(QColor(0x60, 0x60, 0x60), Qt::BDiagPattern));
        if (place.rect.width() >= 3) {
            p.setPen(QColor(255, 255, 255, 200));
            p.drawLine(place.rect.topRight(), place.rect.bottomRight());
        }
        // The owner's tensor name inside blocks wide enough to hold it.
        if (owner && b.allocated && place.rect.width() > 40 && !owner->tensor.empty()) {
            p.setFont(small);
            p.setPen(fill.lightness() > 150 ? Qt::black : Qt::white);
            const QString name = smallMetrics.elidedText(
                QString::fromStdString(owner->tensor), Qt::ElideRight, place.rect.width() - 6);
            if (name != QStringLiteral("…"))
                p.drawText(place.rect.adjusted(3, 0, -3, 0), Qt::AlignVCenter | Qt::AlignLeft, name);
        }
    }
    if (m_stale) {
        p.fillRect(rect(), QColor(255, 255, 255, 150));
        p.setFont(bold);
        p.setPen(QColor(0x50, 0x50, 0x50));
        p.drawText(QRect(kMargin, m_top, width() - 2 * kMargin, kHeaderHeight), Qt::AlignRight | Qt::AlignVCenter,
            "reading memory ...");
    }
}

} // namespace gui
