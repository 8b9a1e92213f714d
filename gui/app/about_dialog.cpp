#include "gui/app/about_dialog.h"

#include "gui/app/app_resources.h"
#include "gui/graph/graph_layout.h"

#include <QDialogButtonBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>
#include <sqlite3.h>

namespace gui {

AboutDialog::AboutDialog(const QString& version, QWidget* parent)
    : QDialog(parent)
{
    setObjectName("aboutDialog");
    setWindowTitle("About aclgraph-inspector");
    const QIcon icon = appIcon();
    setWindowIcon(icon);

    m_versions = QString("aclgraph-inspector %1\nQt %2\nGraphviz %3\nSQLite %4")
                     .arg(version.isEmpty() ? QString("(unknown version)") : version, qtVersion(), graphvizVersion(),
                         sqliteVersion());

    auto* picture = new QLabel;
    picture->setPixmap(icon.pixmap(64, 64));
    picture->setAlignment(Qt::AlignTop);
    auto* text = new QLabel(
        QString("<h3>aclgraph-inspector %1</h3>"
                "<p>A debugger for TorchAir / PyTorch graph capture and replay:<br>"
                "FX graphs and passes, compile caches, and the captured runtime's memory.</p>"
                "<table cellspacing='4'>"
                "<tr><td>Qt</td><td>%2</td></tr>"
                "<tr><td>Graphviz</td><td>%3</td></tr>"
                "<tr><td>SQLite</td><td>%4</td></tr></table>")
            .arg(version.toHtmlEscaped(), qtVersion(), graphvizVersion().toHtmlEscaped(), sqliteVersion()));
    text->setObjectName("aboutText");
    text->setTextFormat(Qt::RichText);
    text->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto* row = new QHBoxLayout;
    row->addWidget(picture);
    row->addWidget(text, 1);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(row);
    layout->addWidget(buttons);
}

QString AboutDialog::qtVersion()
{
    return QString::fromLatin1(qVersion());
}

QString AboutDialog::graphvizVersion()
{
    return QString::fromStdString(graph::graphvizVersion());
}

QString AboutDialog::sqliteVersion()
{
    return QString::fromLatin1(sqlite3_libversion());
}

} // namespace gui
