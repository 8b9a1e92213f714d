// The PDF report written with a QApplication running (the window's File > Export Report): one page
// for each run and one for the comparison, one image for each chart and graph drawing, and refusals of
// what is not a report document. cli.report_pdf reads the PDF's text and pictures back.
#include "gui/report/report_builder.h"
#include "gui/report/report_pdf.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

class ReportPdfTest : public QObject {
    Q_OBJECT
private slots:
    void twoRunsCompared();
    void notAReport();
};

void ReportPdfTest::twoRunsCompared()
{
    gui::report::ReportRequest request;
    request.inputs = { ACLGI_SOURCE_DIR "/resources/samples/07_held_outputs_overwritten.json",
        ACLGI_SOURCE_DIR "/resources/samples/08_held_outputs_cloned.json" };
    request.compare = true;
    auto json = gui::report::buildReportJson(request);
    QVERIFY2(json.ok(), json.ok() ? "" : json.error().toString().c_str());
    auto pdf = gui::report::reportPdf(*json);
    QVERIFY2(pdf.ok(), pdf.ok() ? "" : pdf.error().toString().c_str());
    const QByteArray bytes = QByteArray::fromStdString(*pdf);
    QVERIFY(bytes.startsWith("%PDF-"));
    QVERIFY(bytes.trimmed().endsWith("%%EOF"));
    // One image per inline SVG of the page: each run's memory chart and each FX graph drawn.
    const QJsonObject doc = QJsonDocument::fromJson(QByteArray::fromStdString(*json)).object();
    int svgs = 0;
    for (const QJsonValue run : doc.value("runs").toArray()) {
        ++svgs;
        for (const QJsonValue g : run.toObject().value("fx_graphs").toArray())
            svgs += g.toObject().value("drawing").isObject() ? 1 : 0;
    }
    QCOMPARE(svgs, 6); // 2 runs x (chart + 2 graphs)
    QCOMPARE(bytes.count("/Subtype /Image"), svgs);
    QVERIFY(bytes.count("/Type /Page\n") >= 3); // each run and the comparison start a page
    // The same through the format a path names.
    auto viaFormat = gui::report::renderReport(*json, gui::report::ReportFormat::Pdf);
    QVERIFY(viaFormat.ok() && viaFormat->compare(0, 5, "%PDF-") == 0);
}

void ReportPdfTest::notAReport()
{
    QVERIFY(!gui::report::reportPdf("{}").ok());
    QVERIFY(!gui::report::reportPdf("not json").ok());
}

QTEST_MAIN(ReportPdfTest)
#include "report_pdf_test.moc"
