#pragma once
/// The Log tab's data: every log line of a stored run's events, in event order, one row each
/// (RunLogModel), and the filter the tab puts over it (RunLogFilter: minimum level, graph, key,
/// event kind and free text).
#include "engine/runtime/simulator.h"

#include <QAbstractTableModel>
#include <QSortFilterProxyModel>
#include <vector>

namespace gui {

/// One log line of a run, with the event it belongs to.
struct RunLogLine {
    int event = 0; ///< Event::index
    int call = -1; ///< 0-based call, -1 for run-level events
    QString kind; ///< eventKindName ("replay")
    QString graph, key;
    int level = 0; ///< engine::runtime::LogLevel as int (Debug 0, Info 1, Warning 2)
    /// As TorchAir prints it ("UserWarning: ..." for a warnings.warn text); a line read from a log file
    /// starts with "line N · ", N its line in the file.
    QString text;
};

/// The lines of `events` in order (events without log lines give no row).
std::vector<RunLogLine> runLogLines(const std::vector<engine::runtime::Event>& events);

/// A flat table of RunLogLine: columns Call, Event, Kind, Graph, Key, Level, Text. Qt::UserRole on
/// any column gives the row's event index; the Level column's Qt::UserRole + 1 gives the level.
class RunLogModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { CallColumn, EventColumn, KindColumn, GraphColumn, KeyColumn, LevelColumn, TextColumn, ColumnCount };
    static constexpr int EventRole = Qt::UserRole;
    static constexpr int LevelRole = Qt::UserRole + 1;

    explicit RunLogModel(QObject* parent = nullptr);

    /// Replaces every row.
    void setLines(std::vector<RunLogLine> lines);
    const std::vector<RunLogLine>& lines() const { return m_lines; }
    /// The first row of event `event`, or -1 when the event has no line.
    int firstRowOfEvent(int event) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<RunLogLine> m_lines;
};

/// Keeps the rows of a RunLogModel at or above a level whose graph, key and event kind equal the
/// chosen ones (empty: any) and whose text contains the free text (case-insensitive). Row order is
/// the model's; sorting by a clicked column works as QSortFilterProxyModel's.
class RunLogFilter : public QSortFilterProxyModel {
    Q_OBJECT
public:
    explicit RunLogFilter(QObject* parent = nullptr);

    void setMinLevel(int level);
    void setGraph(const QString& graph);
    void setKey(const QString& key);
    void setKind(const QString& kind);
    void setText(const QString& text);

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

private:
    int m_minLevel = 0;
    QString m_graph, m_key, m_kind, m_text;
};

} // namespace gui
