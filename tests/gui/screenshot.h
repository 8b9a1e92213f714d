#pragma once
// Saves a grab of a widget as NAME under $ACLGI_SCREENSHOTS when it is set (for looking at a panel
// on fixture data); does nothing otherwise.
#include <QDir>
#include <QPixmap>
#include <QWidget>
#include <QtTest>

inline void screenshot(QWidget& w, const char* name)
{
    const QString dir = qEnvironmentVariable("ACLGI_SCREENSHOTS");
    if (dir.isEmpty())
        return;
    QTest::qWait(50); // pending layout requests (a label that grew) are handled before the grab
    QVERIFY(w.grab().save(QDir(dir).filePath(name)));
}
