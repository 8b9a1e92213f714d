#pragma once
/// The Cache tab: one stored compile-cache entry (storage/cache_store.h). A header with its path
/// parts and whether TorchAir loads it; tabs for TorchAir's checks (coloured by status), TorchAir's
/// log lines, the key options of its signature, a key explanation (settings typed by the user ->
/// computeCacheKey -> matchCacheEntry against the entry's options and folder md5) and readable_cache's
/// text (from a fresh checkCacheFile of the file when it still exists). Loading runs off the UI thread.
#include "storage/cache_store.h"

#include <QColor>
#include <QWidget>
#include <array>
#include <memory>

class QLabel;
class QPlainTextEdit;
class QTableWidget;
class QTabWidget;

namespace gui {

class ProjectSession;

class CachePanel : public QWidget {
    Q_OBJECT
public:
    /// Shows each cache entry `session` reads.
    explicit CachePanel(ProjectSession* session, QWidget* parent = nullptr);
    ~CachePanel() override;

    /// Shows cache entry `entryId` (`entry`; null: `error` says why); shown() follows.
    void showCacheEntry(
        const std::shared_ptr<const storage::StoredCacheEntry>& entry, qlonglong entryId, const QString& error = {});
    /// Sets the key explanation's settings (`name=value` per line, either spelling) and re-evaluates.
    void setKeySettings(const QString& text);
    /// The settings the key explanation starts from for `entry`: npugraph_ex's key options are its
    /// settings, so its option lines; torchair's key spells options its own way, so nothing (the
    /// defaults), with a comment line saying so.
    static QString entrySettings(const storage::StoredCacheEntry& entry);
    /// The key explanation's verdict line ("hit", "miss: clone_input differs", an error, ...).
    QString keyVerdict() const;
    /// The background a check of this status gets in the checks table.
    static QColor statusColor(engine::cache::CacheCheck::Status status);

    /// The entry on screen, null before the first load and after an error.
    const storage::StoredCacheEntry* entry() const { return m_loaded ? &m_loaded->entry : nullptr; }
    QTabWidget* tabs() const { return m_tabs; }

signals:
    /// The entry (or the error reading it) is on screen.
    void shown();

private:
    struct Loaded {
        storage::StoredCacheEntry entry;
        QString readable; ///< readable_cache's text, or why there is none plus the stored texts
        QString error;
    };
    /// The checks table's columns.
    enum ChecksColumn { CheckColumn, StatusColumn, ExceptionColumn, MessageColumn, DetailColumn, CheckColumns };
    void fill();
    void explainKey();
    void fitChecks();
    bool eventFilter(QObject* watched, QEvent* event) override;

    QLabel* m_header;
    QTabWidget* m_tabs;
    QTableWidget* m_checks;
    QPlainTextEdit* m_log;
    QTableWidget* m_options;
    QPlainTextEdit* m_settings;
    QLabel* m_verdict;
    QTableWidget* m_differences;
    QPlainTextEdit* m_explanation;
    QPlainTextEdit* m_readable;
    std::shared_ptr<const Loaded> m_loaded;
    std::array<int, CheckColumns> m_checkWidths {}; ///< each checks column's text on one line
    bool m_fitting = false; ///< fitChecks is running: the resizes it causes are not refitted
    int m_generation = 0;
};

} // namespace gui
