#pragma once
/// An item delegate for word-wrapped views of names and values that have no spaces (dotted option
/// paths, file paths, snake_case names): it draws and measures each text with a line-break chance
/// (a zero-width space) after every '.', '_', '/' and '-', so that a narrow column breaks a long
/// name at its seams instead of eliding it. The model's text is unchanged (copy, tooltips, tests).
#include <QStyledItemDelegate>

namespace gui {

class SeamWrapDelegate : public QStyledItemDelegate {
public:
    using QStyledItemDelegate::QStyledItemDelegate;

    /// `text` with a zero-width space after each seam character.
    static QString breakable(const QString& text)
    {
        QString out;
        out.reserve(text.size() + text.size() / 4);
        for (const QChar c : text) {
            out += c;
            if (c == '.' || c == '_' || c == '/' || c == '-')
                out += QChar(0x200B);
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

} // namespace gui
