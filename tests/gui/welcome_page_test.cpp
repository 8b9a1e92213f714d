// The welcome page (issue 21): the bundled samples read from their folder (name and first sentence
// of the comment), one clickable row each; the open and import buttons and the recent projects ask
// the window through signals; the page scrolls rather than cutting anything at 1366x768.
#include "gui/app/welcome_page.h"
#include "tests/gui/screenshot.h"

#include <QCommandLinkButton>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QSignalSpy>
#include <QtTest>

class WelcomePageTest : public QObject {
    Q_OBJECT
private slots:
    void readsTheBundledSamples();
    void firstSentence();
    void rowsAndButtonsAsk();
    void fitsLaptopAndDesktop();
};

void WelcomePageTest::readsTheBundledSamples()
{
    const auto samples = gui::WelcomePage::readSamples(QString(ACLGI_SOURCE_DIR) + "/resources/samples");
    QCOMPARE(samples.size(), 13);
    QCOMPARE(samples[3].first, QString("The KV cache moves: recapture storm"));
    QCOMPARE(samples[3].second, QString("Layer 0's K cache is a mutated input."));
    QCOMPARE(samples[8].first, QString("Capture limit reached: fallback to eager"));
    QCOMPARE(samples[12].first, QString("CUDA Graph Trees: one recording per batch size"));
    for (const auto& s : samples) {
        QVERIFY(!s.second.isEmpty());
        QVERIFY2(s.second.endsWith('.'), qPrintable(s.second));
    }
    QVERIFY(gui::WelcomePage::readSamples("/nonexistent").isEmpty());
}

void WelcomePageTest::firstSentence()
{
    QCOMPARE(gui::WelcomePage::firstSentence("One. Two."), QString("One."));
    QCOMPARE(gui::WelcomePage::firstSentence("Kept for checks (e.g. speculative decoding). Then"),
        QString("Kept for checks (e.g. speculative decoding)."));
    QCOMPARE(gui::WelcomePage::firstSentence("no full stop"), QString("no full stop"));
}

void WelcomePageTest::rowsAndButtonsAsk()
{
    gui::WelcomePage page;
    page.setSamples({ { "Sample A", "What A shows." }, { "Sample B", "What B shows." } });
    page.setRecentProjects({ "/tmp/one.aclgi", "/home/u/two.aclgi" });
    const auto samples = page.findChildren<QCommandLinkButton*>("sample");
    QCOMPARE(samples.size(), 2);
    QCOMPARE(samples[1]->text(), QString("Sample B"));
    QCOMPARE(samples[1]->description(), QString("What B shows."));
    QSignalSpy sample(&page, &gui::WelcomePage::sampleRequested);
    samples[1]->click();
    QCOMPARE(sample.count(), 1);
    QCOMPARE(sample.at(0).at(0).toString(), QString("Sample B"));

    QSignalSpy recent(&page, &gui::WelcomePage::recentRequested);
    const auto recents = page.findChildren<QCommandLinkButton*>("recent");
    QCOMPARE(recents.size(), 2);
    QCOMPARE(recents[0]->text(), QString("one.aclgi"));
    recents[1]->click();
    QCOMPARE(recent.at(0).at(0).toString(), QString("/home/u/two.aclgi"));

    QSignalSpy open(&page, &gui::WelcomePage::openProjectRequested);
    QSignalSpy files(&page, &gui::WelcomePage::importFilesRequested);
    QSignalSpy folder(&page, &gui::WelcomePage::importFolderRequested);
    page.findChild<QPushButton*>("openProject")->click();
    page.findChild<QPushButton*>("importFolder")->click();
    QCOMPARE(open.count(), 1);
    QCOMPARE(files.count(), 0);
    QCOMPARE(folder.count(), 1);

    // Setting them again replaces the rows; no recent project says so.
    page.setSamples({ { "Only", "One." } });
    page.setRecentProjects({});
    QCOMPARE(page.findChildren<QCommandLinkButton*>("sample").size(), 1);
    QCOMPARE(page.findChildren<QCommandLinkButton*>("recent").size(), 0);
    // The guide is found in the source tree and linked.
    QVERIFY(page.findChild<QLabel*>("docs")->text().contains("guide.md\">"));
}

void WelcomePageTest::fitsLaptopAndDesktop()
{
    gui::WelcomePage page;
    page.setSamples(gui::WelcomePage::readSamples(QString(ACLGI_SOURCE_DIR) + "/resources/samples"));
    page.setRecentProjects({ "/home/u/projects/llama.aclgi" });
    // The centre of the window at 1600x1000, then what is left of it at 1366x768 beside the docks.
    for (const QSize size : { QSize(1000, 620), QSize(700, 420) }) {
        page.resize(size);
        page.show();
        QTest::qWait(20);
        auto* scroll = page.findChild<QScrollArea*>();
        // Nothing wider than the view (no horizontal scrolling); what is taller scrolls.
        QVERIFY2(scroll->widget()->width() <= scroll->viewport()->width(),
            qPrintable(QString("%1 > %2").arg(scroll->widget()->width()).arg(scroll->viewport()->width())));
        QVERIFY(scroll->widget()->height() >= scroll->widget()->minimumSizeHint().height());
        for (auto* b : page.findChildren<QCommandLinkButton*>("sample"))
            QVERIFY(b->width() >= 300 && b->geometry().right() <= scroll->viewport()->width()); // not cut
        screenshot(page, size.width() == 1000 ? "welcome_1600.png" : "welcome_1366.png");
    }
}

QTEST_MAIN(WelcomePageTest)
#include "welcome_page_test.moc"
