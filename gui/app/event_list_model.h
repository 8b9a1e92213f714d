#pragma once
/// The Events view's data: every event of a stored run as one table row (EventListModel), and the
/// filter the view puts over it (EventFilterModel: one category and a free text). Rows are the run's
/// events in order (row == Event::index), computed on demand in data(), so that a recording of
/// 100,000 events costs one pass at showRun and nothing per row until a row is painted.
///
/// A hazard belongs to the event that shows it (engine::report::hazardEvent): a fallback or an
/// out-of-memory event its own, the replay that overwrote a held output, the input update that wrote
/// a user tensor or read a moved parameter, the capture of a recapture storm.
#include "storage/run_store.h"

#include <QAbstractTableModel>
#include <QSortFilterProxyModel>
#include <array>
#include <memory>
#include <unordered_map>
#include <vector>

namespace gui {

/// What the kind filter offers. An event can be in several (a recapture is also a capture; a replay
/// that overwrote an output is also a hazard).
enum class EventCategory {
    All,
    Hazards, ///< events showing a hazard, and Hazard events
    Captures, ///< capture events, new keys and recaptures
    Recaptures, ///< capture events of a call whose record says recapture
    Replays,
    InputUpdates,
    Compiles,
    EagerFallback, ///< eager runs and fallbacks
    OutOfMemory,
    MemoryTrace, ///< steps of a recorded memory snapshot
};
constexpr int kEventCategoryCount = int(EventCategory::MemoryTrace) + 1;
/// "All", "Hazards", "Captures", "Recaptures", "Replays", "Input updates", "Compiles", "Eager/Fallback",
/// "Out of memory", "Memory trace".
/// The category's name; a CUDA Graph Trees run (`cuda`) says recordings and warm-ups, its own words.
QString eventCategoryName(EventCategory c, bool cuda = false);

class EventListModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { NumberColumn, KindColumn, CallColumn, GraphColumn, KeyColumn, BytesColumn, TextColumn, ColumnCount };
    /// Numbers for sorting: the event number, the call (-1 for none), the bytes; text columns give their text.
    static constexpr int SortRole = Qt::UserRole + 1;
    static constexpr int KindRole = Qt::UserRole + 2; ///< engine::runtime::EventKind as int
    static constexpr int HazardRole = Qt::UserRole + 3; ///< the first hazard the event shows, or -1

    explicit EventListModel(QObject* parent = nullptr);

    /// Replaces every row (null: no rows).
    void setRun(std::shared_ptr<const storage::StoredRun> run);
    const std::shared_ptr<const storage::StoredRun>& run() const { return m_run; }

    /// The hazards event `event` shows (indices into sim.hazards), in hazard order; empty for none.
    const std::vector<int>& hazardsOf(int event) const;
    bool inCategory(int event, EventCategory c) const;
    /// How many events are in `c`.
    int count(EventCategory c) const { return m_counts[size_t(c)]; }
    /// Whether event `event`'s text in any column contains `needle`, ASCII case-insensitively;
    /// `needle` must already be lower case.
    bool matches(int event, const std::string& needle) const;
    /// The text shown in `column` of `event`'s row.
    QString text(int event, int column) const;
    /// The widest text of `column` over all rows (the kind, graph and key columns take their few distinct
    /// values; the number and bytes columns the widest possible), for sizing the column to its content
    /// without measuring every row.
    QString widestText(int column) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    bool isRecapture(int event) const;
    std::string kindText(int event) const;

    std::shared_ptr<const storage::StoredRun> m_run;
    std::unordered_map<int, std::vector<int>> m_hazards; ///< event -> hazards it shows
    std::array<int, kEventCategoryCount> m_counts {};
};

/// Keeps the rows of an EventListModel in one category whose text contains the filter text in any
/// column (case-insensitive). Sorting by a column compares its SortRole value.
class EventFilterModel : public QSortFilterProxyModel {
    Q_OBJECT
public:
    explicit EventFilterModel(QObject* parent = nullptr);

    void setKindFilter(EventCategory category);
    EventCategory kindFilter() const { return m_category; }
    void setTextFilter(const QString& text);
    QString textFilter() const { return m_text; }

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;
    bool lessThan(const QModelIndex& left, const QModelIndex& right) const override;

private:
    const EventListModel* events() const;

    EventCategory m_category = EventCategory::All;
    QString m_text;
    std::string m_needle; ///< m_text lower-cased as UTF-8
};

} // namespace gui
