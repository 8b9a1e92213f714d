// The Help menu's pages (issue 21): the shortcuts table holds the keys the window binds, and the
// views guide names every view.
#include "gui/app/help_dialogs.h"

#include <QFile>
#include <QRegularExpression>
#include <QtTest>

class HelpDialogsTest : public QObject {
    Q_OBJECT
private slots:
    void shortcutsListTheKeysTheCodeBinds();
    void viewsGuideNamesEveryView();
    void guideIsFound();
};

void HelpDialogsTest::shortcutsListTheKeysTheCodeBinds()
{
    const QString html = gui::shortcutsHtml();
    // Every QKeySequence("...") string of the window's code is in the table.
    QStringList keys;
    for (const char* file : { "/gui/app/main_window.cpp", "/gui/app/main_window_project.cpp" }) {
        QFile f(QString(ACLGI_SOURCE_DIR) + file);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QString code = QString::fromUtf8(f.readAll());
        auto it = QRegularExpression("QKeySequence\\(\"([^\"]+)\"\\)").globalMatch(code);
        while (it.hasNext())
            keys << it.next().captured(1);
    }
    QVERIFY(keys.size() >= 10);
    for (const QString& k : keys)
        QVERIFY2(html.contains("<b>" + k), qPrintable(k));
    for (const char* k : { "F10", "Shift+F11", "F5", "Ctrl+Home", "Space", "PgDown", "Shift+drag", "Ctrl+F" })
        QVERIFY2(html.contains(k), k);
}

void HelpDialogsTest::viewsGuideNamesEveryView()
{
    const QString html = gui::viewsGuideHtml();
    for (const char* v : { "Graph", "Project", "Runtime", "Memory", "Inspector", "Config", "Compare", "Log", "Passes",
             "Cache", "Compiles", "Events" })
        QVERIFY2(html.contains(QString("<b>%1").arg(v)), v);
    QVERIFY(html.contains("Ctrl+Shift+1"));
}

void HelpDialogsTest::guideIsFound()
{
    const QString guide = gui::docPath("guide.md");
    QVERIFY(guide.endsWith("docs/guide.md"));
    QVERIFY(gui::docPath("README.md").endsWith("README.md"));
    QVERIFY(gui::docPath("no-such-file.md").isEmpty());
}

QTEST_MAIN(HelpDialogsTest)
#include "help_dialogs_test.moc"
