#pragma once
/// The Memory view of the Runtime tab: device memory after one event, every pool's segments drawn to
/// scale as horizontal bars (one row per segment, under a pool header with its reserved and allocated
/// totals), blocks coloured by owner kind, free blocks light grey, allocated blocks without an owner
/// (re-created by a rollback) hatched. Every block is at least a few pixels wide so that small ones
/// stay visible and clickable. Tooltips name a block's address, sizes and owner; a click emits
/// blockClicked. The view only paints what it is given (setMemory); fetching is the panel's job.
#include "engine/runtime/simulator.h"

#include <QColor>
#include <QRect>
#include <QString>
#include <QWidget>
#include <memory>
#include <vector>

namespace gui {

/// Fill colour of a block by owner kind (the legend's colours).
QColor ownerKindColor(engine::runtime::OwnerKind kind);
/// Fill colour of a recorded block by its owner's category ("graph tensor", "autotuning", ...).
QColor recordedCategoryColor(const std::string& category);
/// Light grey of a free block.
QColor freeBlockColor();
/// "1.5 MiB", "512 B", "38.0 MiB".
QString formatBytes(uint64_t bytes);

class MemoryView : public QWidget {
    Q_OBJECT
public:
    explicit MemoryView(QWidget* parent = nullptr);

    /// The run whose memory is shown: its owners (that blocks' owner ids index) and its pools' graphs
    /// (for the pool headers). Clears what is shown.
    void setSimulation(std::shared_ptr<const engine::runtime::Simulation> sim);
    std::shared_ptr<const engine::runtime::Simulation> simulation() const { return m_sim; }
    /// Shows memory after event `event`; clears the stale mark.
    void setMemory(int event, std::shared_ptr<const std::vector<engine::runtime::PoolSnapshot>> pools);
    /// Greys what is shown (the previous step) while the current one is being read.
    void setStale(bool stale);
    /// How blocks are coloured: by owner kind or a recording's category (the legend's colours), or
    /// one colour per owner name, per allocation site, or per allocation (as memory_viz does).
    enum class ColourBy { Category, Owner, Site, Allocation };
    void setColourBy(ColourBy by);
    ColourBy colourBy() const { return m_colourBy; }
    /// Marks the blocks whose owner matches `text` (gui::ownerMatches) and fades the others; empty:
    /// none marked.
    void setHighlight(const QString& text);
    QString highlight() const { return m_highlight; }
    /// Nothing to show (no run, or the run has no memory timeline): paints `message`.
    void clear(const QString& message);

    /// The pools drawn now (empty when cleared).
    const std::vector<engine::runtime::PoolSnapshot>& shown() const;
    /// The event whose memory is shown, -1 when none.
    int shownEvent() const { return m_event; }
    bool stale() const { return m_stale; }
    /// Where block `block` of segment `segment` of the `pool`-th shown pool is drawn, in this
    /// widget's coordinates; empty when there is no such block.
    QRect blockRect(int pool, int segment, int block) const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

signals:
    /// A block was clicked: its place in shown() and its owner (nullptr for none).
    void blockClicked(int pool, int segment, int block, const engine::runtime::OwnerInfo* owner);

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    bool event(QEvent* event) override;

private:
    struct BlockPlace {
        int pool, segment, block;
        QRect rect;
    };
    struct RowPlace {
        QRect rect; ///< the header line or the segment's label and bar
        int pool, segment; ///< segment -1: the pool header
        QRect bar; ///< the segment's bar (its blocks' extent)
    };
    void layoutRows();
    const engine::runtime::OwnerInfo* ownerOf(const engine::memory::BlockInfo& b) const;
    const BlockPlace* blockAt(const QPoint& p) const;
    QString tooltip(const BlockPlace& place) const;
    int contentHeight() const;

    std::shared_ptr<const engine::runtime::Simulation> m_sim;
    std::vector<std::string> m_categories; ///< a recording's owner categories, for the legend
    QString m_highlight;
    ColourBy m_colourBy = ColourBy::Category;
    std::shared_ptr<const std::vector<engine::runtime::PoolSnapshot>> m_pools;
    QString m_message;
    int m_event = -1;
    int m_top = 30; ///< below the legend
    bool m_stale = false;
    std::vector<RowPlace> m_rows;
    std::vector<BlockPlace> m_blocks;
};

} // namespace gui
