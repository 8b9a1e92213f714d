// Help > About: the versions of the application, Qt, Graphviz and SQLite; the icon resource renders.
#include "gui/app/about_dialog.h"
#include "gui/app/app_resources.h"
#include "tests/gui/screenshot.h"

#include <QDir>
#include <QFile>
#include <QImage>
#include <QLabel>
#include <QStandardPaths>
#include <QtTest>
#include <sqlite3.h>

class AboutDialogTest : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
    void versions();
    void iconAndDesktopEntry();
};

void AboutDialogTest::versions()
{
    gui::AboutDialog dialog("1.2.3");
    const QString text = dialog.versionsText();
    QVERIFY(text.contains("aclgraph-inspector 1.2.3"));
    QVERIFY(text.contains(QString("Qt ") + qVersion()));
    QVERIFY(text.contains(QString("SQLite ") + sqlite3_libversion()));
    const QString graphviz = gui::AboutDialog::graphvizVersion();
    QVERIFY(!graphviz.isEmpty());
    QVERIFY2(graphviz != "unknown" && graphviz.at(0).isDigit(), qPrintable(graphviz));
    QVERIFY(text.contains("Graphviz " + graphviz));
    const QString shown = dialog.findChild<QLabel*>("aboutText")->text();
    QVERIFY(shown.contains(qVersion()));
    QVERIFY(shown.contains(graphviz));
    QVERIFY(shown.contains(sqlite3_libversion()));
    QVERIFY(shown.contains("1.2.3"));
    dialog.show();
    screenshot(dialog, "about_dialog.png");
}

void AboutDialogTest::iconAndDesktopEntry()
{
    gui::initResources();
    QImage image(":/icons/aclgraph-inspector.svg");
    QVERIFY2(!image.isNull(), "the SVG icon does not render (Qt's svg image plugin missing?)");
    const QIcon icon = gui::appIcon();
    QVERIFY(!icon.isNull());
    const QImage pixmap = icon.pixmap(48, 48).toImage();
    QVERIFY(!pixmap.isNull());
    // Not blank: the centre (the graph's edges) differs from the corner (outside the rounded square).
    QVERIFY(pixmap.pixelColor(0, 0) != pixmap.pixelColor(24, 20));
    QFile desktop(":/aclgraph-inspector.desktop");
    QVERIFY(desktop.open(QIODevice::ReadOnly));
    const QString entry = QString::fromUtf8(desktop.readAll());
    QVERIFY(entry.startsWith("[Desktop Entry]"));
    QVERIFY(entry.contains("Exec=aclgraph-inspector %F"));
    QVERIFY(entry.contains("Categories=Development;Debugger;"));
    const QString dir = qEnvironmentVariable("ACLGI_SCREENSHOTS");
    if (!dir.isEmpty())
        QVERIFY(icon.pixmap(128, 128).save(QDir(dir).filePath("icon.png")));
}

QTEST_MAIN(AboutDialogTest)
#include "about_dialog_test.moc"
