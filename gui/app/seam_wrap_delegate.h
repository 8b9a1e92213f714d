#pragma once
/// Item delegates for word-wrapped views. SeamWrapDelegate: for word-wrapped views of names and values that have no
/// spaces (dotted option paths, file paths, snake_case names): it draws and measures each text with a line-break chance
/// (a zero-width space) after every '.', '_', '/' and '-', so that a narrow column breaks a long
/// name at its seams instead of eliding it. The model's text is unchanged (copy, tooltips, tests).
#include <QHash>
#include <QHeaderView>
#include <QStyledItemDelegate>
#include <QTimer>
#include <QTreeView>
#include <algorithm>
#include <vector>

namespace gui {

class SeamWrapDelegate : public QStyledItemDelegate {
public:
    using QStyledItemDelegate::QStyledItemDelegate;

    /// `text` with a zero-width space after each seam character, and after every kRun characters of a
    /// longer run without a seam or space (an md5 or a hash in a path).
    static QString breakable(const QString& text)
    {
        constexpr int kRun = 16;
        QString out;
        out.reserve(text.size() + text.size() / 4);
        int run = 0;
        for (const QChar c : text) {
            out += c;
            run = c.isSpace() ? 0 : run + 1;
            if (c == '.' || c == '_' || c == '/' || c == '-' || run == kRun) {
                out += QChar(0x200B);
                run = 0;
            }
        }
        return out;
    }

protected:
    void initStyleOption(QStyleOptionViewItem* option, const QModelIndex& index) const override
    {
        QStyledItemDelegate::initStyleOption(option, index);
        option->text = breakable(option->text);
    }
};

/// Rows of a word-wrapped QTreeView as tall as their text wrapped at the width its column has now
/// (QTreeView asks the delegate for a height without telling it the column's width, so long values
/// would stay one cut line). Long names without spaces break at their seams.
///
/// QTreeView keeps each row's height from when the row was laid out and does not ask again when a
/// column is resized (a stretched column follows the viewport's resize a moment later): the rows
/// are laid out again once the columns have settled at other widths.
///
/// Sizes are cached per text, width, icon and font: a step of the stepper shows mostly the same
/// names and values again, and the view asks for every row's size several times a step.
class WrapToColumn : public SeamWrapDelegate {
public:
    explicit WrapToColumn(QTreeView* view)
        : SeamWrapDelegate(view)
        , m_view(view)
        , m_relayout(new QTimer(this))
    {
        m_relayout->setSingleShot(true);
        m_relayout->setInterval(0);
        connect(m_relayout, &QTimer::timeout, this, [this] {
            if (widths() != m_laidOut)
                relayout();
        });
        connect(view->header(), &QHeaderView::sectionResized, m_relayout, qOverload<>(&QTimer::start));
    }
    /// Lays the rows out again (each asks for its height at the columns' widths now).
    void relayout()
    {
        m_relayout->stop();
        m_laidOut = widths();
        m_view->doItemsLayout();
    }
    QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const override
    {
        // The cell's width now: its column, less the branch indentation of the first column.
        int cell = m_view->columnWidth(index.column());
        if (index.column() == 0) {
            int depth = m_view->rootIsDecorated() ? 1 : 0;
            for (QModelIndex p = index.parent(); p.isValid(); p = p.parent())
                ++depth;
            cell -= depth * m_view->indentation();
        }
        if (option.font != m_font) {
            m_sizes.clear();
            m_font = option.font;
        }
        // Everything the size depends on: the width, an icon and the text.
        const QString text = index.data().toString();
        const QSize icon = index.data(Qt::DecorationRole).isNull() ? QSize() : option.decorationSize;
        const QString key = QString("%1 %2x%3").arg(cell).arg(icon.width()).arg(icon.height()) + QChar(0x1F) + text;
        if (const auto hit = m_sizes.constFind(key); hit != m_sizes.constEnd())
            return *hit;
        if (m_sizes.size() > 4096)
            m_sizes.clear();
        const QSize size = measure(option, index, cell, text, icon);
        m_sizes.insert(key, size);
        return size;
    }

private:
    QSize measure(
        const QStyleOptionViewItem& option, const QModelIndex& index, int cell, const QString& value, QSize icon) const
    {
        // A valid rectangle whatever the caller's: the view asks for a row's height with an empty
        // one, and the style wraps nothing in an empty rectangle (a size cached from such a call
        // would stay one line for every later caller).
        QStyleOptionViewItem wrapped = option;
        wrapped.rect = QRect(0, 0, std::max(1, cell), std::max(1, option.rect.height()));
        wrapped.features |= QStyleOptionViewItem::WrapText;
        QSize size = SeamWrapDelegate::sizeHint(wrapped, index);
        const QString text = breakable(value);
        const int width = cell - 16 - (icon.isValid() ? icon.width() + 6 : 0); // margins, and some to spare
        if (width > 20 && !text.isEmpty()) {
            const QRect lines = option.fontMetrics.boundingRect(QRect(0, 0, width, 100000), Qt::TextWordWrap, text);
            // The style lays lines out a line spacing apart (height plus leading).
            const int count = std::max(1, lines.height() / std::max(1, option.fontMetrics.height()));
            size.setHeight(std::max(size.height(), count * option.fontMetrics.lineSpacing() + 8));
        }
        return size;
    }
    std::vector<int> widths() const
    {
        std::vector<int> out;
        for (int c = 0; c < m_view->header()->count(); ++c)
            out.push_back(m_view->columnWidth(c));
        return out;
    }

    QTreeView* m_view;
    QTimer* m_relayout; ///< lays the rows out again once the column widths have settled
    std::vector<int> m_laidOut; ///< the column widths of the last layout
    mutable QHash<QString, QSize> m_sizes; ///< "width iconWxH\x1Ftext" -> size, in m_font
    mutable QFont m_font;
};

} // namespace gui
