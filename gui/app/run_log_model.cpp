#include "gui/app/run_log_model.h"

#include <QBrush>
#include <QColor>
#include <QFont>

namespace gui {

std::vector<RunLogLine> runLogLines(const std::vector<engine::runtime::Event>& events)
{
    std::vector<RunLogLine> out;
    for (const auto& e : events)
        for (const auto& line : e.log) {
            RunLogLine l;
            l.event = e.index;
            l.call = e.call;
            l.kind = QString::fromUtf8(engine::runtime::eventKindName(e.kind));
            l.graph = QString::fromStdString(e.graph);
            l.key = QString::fromStdString(e.key);
            l.level = int(line.level);
            l.text = line.category.empty() ? QString::fromStdString(line.text)
                                           : QString::fromStdString(line.category + ": " + line.text);
            if (line.sourceLine > 0) // a recorded log's line: where it stands in the file
                l.text = QString("line %1 · ").arg(line.sourceLine) + l.text;
            out.push_back(std::move(l));
        }
    return out;
}

RunLogModel::RunLogModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

void RunLogModel::setLines(std::vector<RunLogLine> lines)
{
    beginResetModel();
    m_lines = std::move(lines);
    endResetModel();
}

int RunLogModel::firstRowOfEvent(int event) const
{
    for (size_t i = 0; i < m_lines.size(); ++i)
        if (m_lines[i].event == event)
            return int(i);
    return -1;
}

int RunLogModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_lines.size());
}

int RunLogModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant RunLogModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= int(m_lines.size()) || index.column() >= ColumnCount)
        return {};
    const RunLogLine& l = m_lines[size_t(index.row())];
    if (role == EventRole)
        return l.event;
    if (role == LevelRole)
        return l.level;
    if (role == Qt::ForegroundRole) {
        if (l.level == int(engine::runtime::LogLevel::Error))
            return QBrush(QColor(0xb0, 0x00, 0x00));
        if (l.level == int(engine::runtime::LogLevel::Warning))
            return QBrush(QColor(0xa0, 0x40, 0x00));
        if (l.level == int(engine::runtime::LogLevel::Debug))
            return QBrush(QColor(0x70, 0x70, 0x70));
        return {};
    }
    if (role == Qt::TextAlignmentRole && (index.column() == CallColumn || index.column() == EventColumn))
        return int(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ToolTipRole && index.column() == TextColumn) // the columns a narrow view hides, too
        return QString("call %1, event %2 (%3), graph %4, key %5\n%6")
            .arg(l.call < 0 ? QString("-") : QString::number(l.call))
            .arg(l.event)
            .arg(l.kind, l.graph.isEmpty() ? QString("-") : l.graph, l.key.isEmpty() ? QString("-") : l.key, l.text);
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole)
        return {};
    switch (Column(index.column())) {
    case CallColumn:
        return l.call < 0 ? QVariant(QString("-")) : QVariant(l.call);
    case EventColumn:
        return l.event;
    case KindColumn:
        return l.kind;
    case GraphColumn:
        return l.graph;
    case KeyColumn:
        return l.key;
    case LevelColumn:
        return QString::fromUtf8(engine::runtime::logLevelName(engine::runtime::LogLevel(l.level)));
    case TextColumn:
        return l.text;
    case ColumnCount:
        break;
    }
    return {};
}

QVariant RunLogModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    static const char* const names[] = { "Call", "Event", "Kind", "Graph", "Key", "Level", "Text" };
    return section >= 0 && section < ColumnCount ? QVariant(QString(names[section])) : QVariant();
}

RunLogFilter::RunLogFilter(QObject* parent)
    : QSortFilterProxyModel(parent)
{
}

void RunLogFilter::setMinLevel(int level)
{
    m_minLevel = level;
    invalidateFilter();
}

void RunLogFilter::setGraph(const QString& graph)
{
    m_graph = graph;
    invalidateFilter();
}

void RunLogFilter::setKey(const QString& key)
{
    m_key = key;
    invalidateFilter();
}

void RunLogFilter::setKind(const QString& kind)
{
    m_kind = kind;
    invalidateFilter();
}

void RunLogFilter::setText(const QString& text)
{
    m_text = text;
    invalidateFilter();
}

bool RunLogFilter::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const
{
    const auto* model = qobject_cast<const RunLogModel*>(sourceModel());
    if (!model || sourceParent.isValid() || sourceRow >= int(model->lines().size()))
        return true;
    const RunLogLine& l = model->lines()[size_t(sourceRow)];
    return l.level >= m_minLevel && (m_graph.isEmpty() || l.graph == m_graph) && (m_key.isEmpty() || l.key == m_key)
        && (m_kind.isEmpty() || l.kind == m_kind) && (m_text.isEmpty() || l.text.contains(m_text, Qt::CaseInsensitive));
}

} // namespace gui
