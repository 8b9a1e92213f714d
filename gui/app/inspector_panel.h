#pragma once
/// The Inspector: the details of whatever the user selected last (a graph node, a run's event, a
/// memory block, a compile-cache entry) as a Property / Value tree, top-level rows open, long values
/// elided (the tooltip has them whole), and "Copy" (context menu or Ctrl+C) putting the same details
/// on the clipboard as indented text. The panel only shows what it is given: the caller builds the
/// Details with engine/report/details.h from the data its view already holds; a cache entry is read
/// from the project off the UI thread.
#include "engine/report/details.h"
#include "storage/cache_store.h"

#include <QString>
#include <QWidget>

class QLabel;
class QStackedWidget;
class QTreeView;

namespace gui {

class InspectorModel;
class ProjectSession;

/// A stored cache entry as Inspector rows: path, model folder and rank, backend, func, whether
/// TorchAir loads it and the first failed check, meta, version and Python, each check (status,
/// exception, message, detail), key options, TorchAir's log and the graph read from its py_code.
/// In gui and not in engine::report because StoredCacheEntry is storage's type.
engine::report::Details cacheEntryDetails(const storage::StoredCacheEntry& entry);

class InspectorPanel : public QWidget {
    Q_OBJECT
public:
    /// A row with more children than this opens folded.
    static constexpr int kOpenRowsUpTo = 40;
    /// Details the session's current event at each step and each cache entry it reads; a node or
    /// block picked in another view is shown through showDetails.
    explicit InspectorPanel(ProjectSession* session, QWidget* parent = nullptr);
    ~InspectorPanel() override;

    /// Shows `details` (an empty Details shows the empty state).
    void showDetails(const engine::report::Details& details);
    /// Shows cache entry `entryId`'s details (`entry`), or the error reading it (null `entry`).
    void showCacheEntry(
        const std::shared_ptr<const storage::StoredCacheEntry>& entry, qlonglong entryId, const QString& error = {});
    /// Back to the empty state ("Select a node, block, event or cache entry").
    void clear();

    const engine::report::Details& details() const;
    InspectorModel* model() const { return m_model; }
    QTreeView* view() const { return m_view; }
    /// What "Copy" puts on the clipboard: detailsText() of what is shown (empty in the empty state).
    QString copyText() const;
    /// "Copy": copyText() to the clipboard.
    void copyToClipboard() const;

signals:
    /// The details (or the empty state, or a load error) are on screen: after every showDetails,
    /// clear and showCacheEntry.
    void shown();

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void display(const engine::report::Details& details);
    void fitColumns();

    QLabel* m_title;
    QStackedWidget* m_pages;
    QLabel* m_empty;
    QTreeView* m_view;
    InspectorModel* m_model;
    qlonglong m_awaitedEntry = -1; ///< the cache entry picked and not yet shown (-1: none)
};

} // namespace gui
