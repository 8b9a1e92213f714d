// The first window: it simulates the chosen scenario off the UI thread and shows the result, or an
// inline error for a bad file.
#include "gui/app/main_window.h"

#include <QLabel>
#include <QListWidget>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

class MainWindowTest : public QObject {
    Q_OBJECT
private slots:
    void showsCallsAndHazardsOfASample()
    {
        const QString sample = ACLGI_SOURCE_DIR "/resources/samples/07_held_outputs_overwritten.json";
        gui::MainWindow window({ sample });
        QSignalSpy shown(&window, &gui::MainWindow::resultShown);
        window.show();
        QVERIFY(shown.wait(20000));
        auto* calls = window.findChild<QTableWidget*>();
        QVERIFY(calls);
        QCOMPARE(calls->rowCount(), 7); // 1 prompt + 6 decode calls
        QCOMPARE(calls->item(1, 3)->text(), QString("capture"));
        QCOMPARE(calls->item(2, 3)->text(), QString("replay"));
        const auto lists = window.findChildren<QListWidget*>();
        QListWidget* hazards = nullptr;
        for (auto* l : lists)
            if (l->count() && l->item(0)->text().contains("output_overwritten"))
                hazards = l;
        QVERIFY(hazards);
        QCOMPARE(hazards->count(), 5);
    }

    void badFileShowsAnInlineError()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("broken.json");
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{\"format\": \"aclgraph-inspector-scenario\",\n \"version\": 1, \"graphs\": [");
        f.close();
        gui::MainWindow window({ path });
        QSignalSpy shown(&window, &gui::MainWindow::resultShown);
        window.show();
        QVERIFY(shown.wait(20000));
        bool banner = false;
        for (auto* label : window.findChildren<QLabel*>())
            if (label->isVisible() && label->text().contains("broken.json:2:"))
                banner = true;
        QVERIFY(banner);
        QCOMPARE(window.findChild<QTableWidget*>()->rowCount(), 0);
    }
};

QTEST_MAIN(MainWindowTest)
#include "main_window_test.moc"
