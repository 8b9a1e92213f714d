#include "gui/app/event_list_model.h"

#include "engine/report/details.h"
#include "engine/report/hazard_explain.h"

#include <QBrush>
#include <QColor>
#include <QFont>
#include <algorithm>
#include <set>

namespace gui {

using engine::runtime::Event;
using engine::runtime::EventKind;

namespace {

const std::vector<int> kNoHazards;

/// ASCII lower case, byte by byte (UTF-8 sequences pass unchanged).
std::string lower(std::string s)
{
    for (char& ch : s)
        if (ch >= 'A' && ch <= 'Z')
            ch = char(ch - 'A' + 'a');
    return s;
}

bool containsLower(const std::string& haystack, const std::string& needle)
{
    if (needle.empty())
        return true;
    const auto it = std::search(haystack.begin(), haystack.end(), needle.begin(), needle.end(),
        [](char a, char b) { return (a >= 'A' && a <= 'Z' ? char(a - 'A' + 'a') : a) == b; });
    return it != haystack.end();
}

} // namespace

QString eventCategoryName(EventCategory c, bool cuda)
{
    static const char* names[] = { "All", "Hazards", "Captures", "Recaptures", "Replays", "Input updates", "Compiles",
        "Eager/Fallback", "Out of memory", "Memory trace" };
    // CUDA Graph Trees records (CUDAGraphNode._record), re-records and warms up (run_eager).
    static const char* cudaNames[] = { "All", "Hazards", "Recordings", "Re-recordings", "Replays", "Input copies",
        "Compiles", "Warm-up/Eager", "Out of memory", "Memory trace" };
    return QString::fromUtf8((cuda ? cudaNames : names)[int(c)]);
}

EventListModel::EventListModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

void EventListModel::setRun(std::shared_ptr<const storage::StoredRun> run)
{
    beginResetModel();
    m_run = std::move(run);
    m_hazards.clear();
    m_counts.fill(0);
    if (m_run) {
        const auto& sim = m_run->sim;
        const std::vector<int> shown = engine::report::hazardEvents(sim);
        for (size_t h = 0; h < shown.size(); ++h)
            if (shown[h] >= 0)
                m_hazards[shown[h]].push_back(int(h));
        for (int e = 0; e < int(sim.events.size()); ++e)
            for (int c = 0; c < kEventCategoryCount; ++c)
                m_counts[size_t(c)] += inCategory(e, EventCategory(c)) ? 1 : 0;
    }
    endResetModel();
}

const std::vector<int>& EventListModel::hazardsOf(int event) const
{
    const auto it = m_hazards.find(event);
    return it == m_hazards.end() ? kNoHazards : it->second;
}

bool EventListModel::isRecapture(int event) const
{
    const Event& e = m_run->sim.events[size_t(event)];
    if (e.kind != EventKind::Capture || e.call < 0)
        return false;
    const auto& calls = m_run->sim.calls;
    if (e.call < int(calls.size()) && calls[size_t(e.call)].index == e.call)
        return calls[size_t(e.call)].action == engine::runtime::CallAction::Recapture;
    for (const auto& c : calls)
        if (c.index == e.call)
            return c.action == engine::runtime::CallAction::Recapture;
    return false;
}

bool EventListModel::inCategory(int event, EventCategory c) const
{
    if (!m_run || event < 0 || event >= int(m_run->sim.events.size()))
        return false;
    const EventKind k = m_run->sim.events[size_t(event)].kind;
    switch (c) {
    case EventCategory::All:
        return true;
    case EventCategory::Hazards:
        return k == EventKind::Hazard || m_hazards.count(event) > 0;
    case EventCategory::Captures:
        return k == EventKind::Capture;
    case EventCategory::Recaptures:
        return isRecapture(event);
    case EventCategory::Replays:
        return k == EventKind::Replay;
    case EventCategory::InputUpdates:
        return k == EventKind::InputUpdate;
    case EventCategory::Compiles:
        return k == EventKind::Compile;
    case EventCategory::EagerFallback:
        return k == EventKind::Eager || k == EventKind::Fallback;
    case EventCategory::OutOfMemory:
        return k == EventKind::OutOfMemory;
    case EventCategory::MemoryTrace:
        return k == EventKind::MemoryTrace;
    }
    return false;
}

std::string EventListModel::kindText(int event) const
{
    const auto& sim = m_run->sim;
    const Event& e = sim.events[size_t(event)];
    std::string base = isRecapture(event) ? "recapture" : engine::runtime::eventKindName(e.kind);
    if (sim.cuda) {
        // CUDA Graph Trees' own words (docs/cuda-graph-trees.md §3): record, re-record, warm-up.
        if (e.kind == EventKind::Capture)
            base = isRecapture(event) ? "re-record" : "record";
        else if (e.kind == EventKind::Eager && e.summary.rfind("warm-up", 0) == 0)
            base = "warm-up";
        else if (e.kind == EventKind::InputUpdate)
            base = "input_copy";
    }
    std::vector<int> hazards = hazardsOf(event);
    if (e.kind == EventKind::Hazard && e.hazard >= 0 && e.hazard < int(sim.hazards.size())
        && std::find(hazards.begin(), hazards.end(), e.hazard) == hazards.end())
        hazards.insert(hazards.begin(), e.hazard);
    if (hazards.empty())
        return base;
    std::vector<std::string> kinds;
    for (int h : hazards) {
        const std::string name = engine::runtime::hazardKindName(sim.hazards[size_t(h)].kind);
        if (std::find(kinds.begin(), kinds.end(), name) == kinds.end())
            kinds.push_back(name);
    }
    std::string names;
    for (const std::string& k : kinds)
        names += (names.empty() ? "" : ", ") + k;
    // A fallback event's hazard is a fallback: "hazard: fallback" says it once.
    const bool same = kinds.size() == 1 && (kinds[0] == base || e.kind == EventKind::Hazard);
    const std::string hazardText = hazards.size() == 1 ? "hazard: " + names
        : kinds.size() == 1                            ? std::to_string(hazards.size()) + " hazards: " + names
                                                       : "hazards: " + names;
    return same ? hazardText : base + " · " + hazardText;
}

QString EventListModel::text(int event, int column) const
{
    if (!m_run || event < 0 || event >= int(m_run->sim.events.size()))
        return {};
    const Event& e = m_run->sim.events[size_t(event)];
    switch (column) {
    case NumberColumn:
        return QString::number(event + 1);
    case KindColumn:
        return QString::fromStdString(kindText(event));
    case CallColumn:
        return e.call >= 0 ? QString::number(e.call) : QString();
    case GraphColumn:
        return QString::fromStdString(e.graph);
    case KeyColumn:
        return QString::fromStdString(e.key);
    case BytesColumn:
        return QString::fromStdString(engine::report::humanBytes(e.deviceReserved));
    case TextColumn:
        return QString::fromStdString(e.summary);
    default:
        return {};
    }
}

bool EventListModel::matches(int event, const std::string& needle) const
{
    if (needle.empty())
        return true;
    if (!m_run || event < 0 || event >= int(m_run->sim.events.size()))
        return false;
    const Event& e = m_run->sim.events[size_t(event)];
    return containsLower(e.summary, needle) || containsLower(e.graph, needle) || containsLower(e.key, needle)
        || containsLower(kindText(event), needle) || containsLower(std::to_string(event + 1), needle)
        || (e.call >= 0 && containsLower(std::to_string(e.call), needle))
        || containsLower(engine::report::humanBytes(e.deviceReserved), needle);
}

QString EventListModel::widestText(int column) const
{
    if (!m_run)
        return {};
    const auto& events = m_run->sim.events;
    switch (column) {
    case NumberColumn:
        return QString(QString::number(events.size()).size(), QChar('8'));
    case CallColumn:
        return QString(QString::number(std::max(1, int(m_run->sim.calls.size()))).size(), QChar('8'));
    case BytesColumn:
        return QStringLiteral("1023.9 MiB");
    case KindColumn: {
        // The kinds of events without hazards are few; the rows with hazards are measured one by one.
        std::string widest = "input_update";
        for (const auto& [event, hazards] : m_hazards)
            if (const std::string t = kindText(event); t.size() > widest.size())
                widest = t;
        for (size_t e = 0; e < events.size(); ++e)
            if (events[e].kind == EventKind::Hazard)
                if (const std::string t = kindText(int(e)); t.size() > widest.size())
                    widest = t;
        return QString::fromStdString(widest);
    }
    case GraphColumn:
    case KeyColumn: {
        // Few distinct values: compare by length, once per distinct string.
        const std::string* widest = nullptr;
        for (const Event& e : events) {
            const std::string& s = column == GraphColumn ? e.graph : e.key;
            if (!widest || s.size() > widest->size())
                widest = &s;
        }
        return widest ? QString::fromStdString(*widest) : QString();
    }
    default:
        return {};
    }
}

int EventListModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() || !m_run ? 0 : int(m_run->sim.events.size());
}

int EventListModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant EventListModel::data(const QModelIndex& index, int role) const
{
    if (!m_run || !index.isValid() || index.row() >= int(m_run->sim.events.size()))
        return {};
    const int row = index.row();
    const int column = index.column();
    const Event& e = m_run->sim.events[size_t(row)];
    const std::vector<int>& hazards = hazardsOf(row);
    const bool hazard = !hazards.empty() || e.kind == EventKind::Hazard;
    switch (role) {
    case Qt::DisplayRole:
        return text(row, column);
    case SortRole:
        switch (column) {
        case NumberColumn:
            return row;
        case CallColumn:
            return e.call;
        case BytesColumn:
            return QVariant::fromValue<qulonglong>(e.deviceReserved);
        default:
            return text(row, column);
        }
    case KindRole:
        return int(e.kind);
    case HazardRole:
        return !hazards.empty() ? hazards.front() : e.kind == EventKind::Hazard ? e.hazard : -1;
    case Qt::ToolTipRole:
        if (column == BytesColumn)
            return QString("device reserved after the event: %1\nallocated: %2")
                .arg(QString::fromStdString(engine::report::bytesText(e.deviceReserved)),
                    QString::fromStdString(engine::report::bytesText(e.deviceAllocated)));
        if (column == KindColumn && hazard) {
            QStringList lines;
            for (int h : hazards)
                lines << QString("%1: %2").arg(engine::runtime::hazardKindName(m_run->sim.hazards[size_t(h)].kind),
                    QString::fromStdString(m_run->sim.hazards[size_t(h)].message));
            return lines.isEmpty() ? text(row, column) : lines.join("\n");
        }
        if (column == KindColumn && isRecapture(row) && e.call < int(m_run->sim.calls.size()))
            return QString("recapture (%1)")
                .arg(QString::fromStdString(m_run->sim.calls[size_t(e.call)].recaptureCause));
        return text(row, column);
    case Qt::TextAlignmentRole:
        if (column == NumberColumn || column == CallColumn || column == BytesColumn)
            return int(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    case Qt::BackgroundRole:
        return hazard ? QBrush(QColor(255, 228, 228)) : QVariant();
    case Qt::ForegroundRole:
        // Dark text on the light tint, whatever the palette's text colour is.
        return hazard ? QBrush(QColor(40, 0, 0)) : QVariant();
    case Qt::FontRole:
        if (hazard && column == KindColumn) {
            QFont bold;
            bold.setBold(true);
            return bold;
        }
        return {};
    default:
        return {};
    }
}

QVariant EventListModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    static const char* names[] = { "#", "kind", "call", "graph", "key", "bytes", "text" };
    static const char* tips[] = { "event number, from 1 as the Runtime tab counts",
        "what the event is; a hazard it shows follows its kind",
        "the call, from 0 as TorchAir's log lines print it; empty for run-level events", "the FX graph (TorchAir name)",
        "the graph key", "device memory reserved after the event (exact number in the tooltip)", "the event in words" };
    if (section < 0 || section >= ColumnCount)
        return {};
    if (role == Qt::DisplayRole)
        return QString::fromUtf8(names[section]);
    if (role == Qt::ToolTipRole)
        return QString::fromUtf8(tips[section]);
    return {};
}

EventFilterModel::EventFilterModel(QObject* parent)
    : QSortFilterProxyModel(parent)
{
    setSortRole(EventListModel::SortRole);
}

const EventListModel* EventFilterModel::events() const
{
    return qobject_cast<const EventListModel*>(sourceModel());
}

void EventFilterModel::setKindFilter(EventCategory category)
{
    if (category == m_category)
        return;
    m_category = category;
    invalidateFilter();
}

void EventFilterModel::setTextFilter(const QString& text)
{
    if (text == m_text)
        return;
    m_text = text;
    m_needle = lower(text.trimmed().toStdString());
    invalidateFilter();
}

bool EventFilterModel::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const
{
    const EventListModel* m = events();
    if (!m || sourceParent.isValid())
        return true;
    return m->inCategory(sourceRow, m_category) && m->matches(sourceRow, m_needle);
}

bool EventFilterModel::lessThan(const QModelIndex& left, const QModelIndex& right) const
{
    const QVariant a = left.data(EventListModel::SortRole);
    const QVariant b = right.data(EventListModel::SortRole);
    switch (left.column()) {
    case EventListModel::NumberColumn:
    case EventListModel::CallColumn:
        if (a.toLongLong() != b.toLongLong())
            return a.toLongLong() < b.toLongLong();
        break;
    case EventListModel::BytesColumn:
        if (a.toULongLong() != b.toULongLong())
            return a.toULongLong() < b.toULongLong();
        break;
    default:
        if (const int c = QString::compare(a.toString(), b.toString(), Qt::CaseInsensitive))
            return c < 0;
        break;
    }
    return left.row() < right.row(); // equal values keep the run's order
}

} // namespace gui
