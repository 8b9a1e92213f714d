// The report printed to PDF from its HTML view (report_pdf.h).
//
// Why QTextDocument and not a browser: the report must be written by the headless `report` command
// on a machine without a display, without starting another program, and from the window's Export
// Report on the same code path. QTextDocument knows a subset of HTML and CSS (tables, colours, bold,
// page breaks between table rows) and nothing of SVG, so the page is adapted for it: each inline
// <svg> becomes an image that QSvgRenderer draws at the PDF's resolution (300 dpi), and the page's CSS classes for
// highlighted rows and hazard kinds, which QTextDocument's CSS does not apply, become the inline attributes it does
// know.
#include "gui/report/report_pdf.h"

#include "engine/report/report_html.h"

#include <QAbstractTextDocumentLayout>
#include <QBuffer>
#include <QGuiApplication>
#include <QJsonDocument>
#include <QJsonObject>
#include <QPainter>
#include <QPdfWriter>
#include <QSvgRenderer>
#include <QTextBlock>
#include <QTextCursor>
#include <QTextDocument>
#include <QTextObjectInterface>
#include <algorithm>
#include <vector>

namespace gui::report {

using engine::ErrorCode;
using engine::makeError;
using engine::Result;

namespace {

constexpr int kDrawingObject = QTextFormat::UserObject + 71;
constexpr int kDrawingIndex = QTextFormat::UserProperty + 71;
constexpr double kResolution = 300; // the PDF's device units per inch (its content is vector)
constexpr double kCssPixelsPerInch = 96; // an SVG's and a CSS pixel
const char* kDrawingScheme = "aclgi-drawing:";

/// What QTextDocument does not take from the page's own CSS: tables' borders and padding, and the
/// highlighted rows and hazard kinds (class selectors on rows are not applied to their cells). Colours
/// are the page's (engine/report/report_html.cpp).
constexpr const char* kPrintStyle = R"(
body { font-family: sans-serif; font-size: 8.5pt; color: #212121; }
h1 { font-size: 15pt; color: #283593; }
h2 { font-size: 12pt; color: #283593; margin-top: 14px; }
h3 { font-size: 10.5pt; margin-top: 10px; }
table { border-collapse: collapse; margin-top: 4px; margin-bottom: 8px; }
th { background-color: #eceff1; font-weight: bold; }
th, td { border: 1px solid #d0d0d0; padding: 2px; }
code { font-family: monospace; font-size: 8pt; }
)";

/// Each inline SVG drawing of the page as an image at the PDF's resolution, drawn where
/// QTextDocument lays out a placeholder object of the image's size.
class DrawingHandler : public QObject, public QTextObjectInterface {
    Q_OBJECT
    Q_INTERFACES(QTextObjectInterface)
public:
    std::vector<QImage> drawings; ///< one device unit a pixel

    QSizeF intrinsicSize(QTextDocument*, int, const QTextFormat& format) override
    {
        const int i = format.intProperty(kDrawingIndex);
        return i >= 0 && size_t(i) < drawings.size() ? QSizeF(drawings[size_t(i)].size()) : QSizeF();
    }

    void drawObject(QPainter* painter, const QRectF& rect, QTextDocument*, int, const QTextFormat& format) override
    {
        const int i = format.intProperty(kDrawingIndex);
        if (i >= 0 && size_t(i) < drawings.size())
            painter->drawImage(rect, drawings[size_t(i)]);
    }
};

/// The drawing rendered at the PDF's resolution: an image, not vectors, because QtSvg's text drawn
/// straight onto a 300 dpi PDF device comes out at the wrong size for anchored text.
QImage renderDrawing(QSvgRenderer& svg, const QSize& pixels)
{
    QImage image(pixels, QImage::Format_RGB32);
    image.fill(Qt::white);
    QPainter painter(&image);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setRenderHint(QPainter::TextAntialiasing);
    svg.render(&painter, QRectF(QPointF(0, 0), QSizeF(pixels)));
    return image;
}

/// The page's CSS rules for SVG content ("svg text { ... }"), written for a standalone SVG file.
std::string svgStyle(const std::string& html)
{
    const size_t open = html.find("<style>"), close = html.find("</style>");
    if (open == std::string::npos || close == std::string::npos || close < open)
        return {};
    std::string rules;
    for (size_t pos = open + 7; pos < close;) {
        const size_t end = html.find('}', pos);
        if (end == std::string::npos || end > close)
            break;
        std::string rule = html.substr(pos, end + 1 - pos);
        rule.erase(0, rule.find_first_not_of(" \n\t"));
        if (rule.compare(0, 4, "svg ") == 0)
            rules += rule.substr(4) + "\n";
        pos = end + 1;
    }
    return rules;
}

/// A drawing as a standalone SVG document: the SVG namespace, the page's SVG rules, and the one HTML
/// entity that XML lacks.
QByteArray standaloneSvg(std::string svg, const std::string& style)
{
    const size_t tagEnd = svg.find('>');
    if (svg.substr(0, tagEnd).find("xmlns=") == std::string::npos)
        svg.insert(4, " xmlns=\"http://www.w3.org/2000/svg\"");
    if (!style.empty())
        svg.insert(svg.find('>') + 1, "<style type=\"text/css\">" + style + "</style>");
    for (size_t p = svg.find("&nbsp;"); p != std::string::npos; p = svg.find("&nbsp;", p))
        svg.replace(p, 6, "&#160;");
    return QByteArray::fromStdString(svg);
}

/// Replaces every <svg>...</svg> of `html` by an <img> placeholder naming its index in `handler`
/// (or a note where QtSvg cannot read the drawing). Drawings wider than `page` or taller than it
/// are scaled down to fit, keeping their proportions.
std::string extractDrawings(const std::string& html, const QSizeF& page, DrawingHandler& handler)
{
    const std::string style = svgStyle(html);
    std::string out;
    size_t pos = 0;
    for (;;) {
        size_t start = html.find("<svg", pos);
        while (start != std::string::npos && start + 4 < html.size() && !std::isspace(html[start + 4])
            && html[start + 4] != '>')
            start = html.find("<svg", start + 4);
        if (start == std::string::npos)
            break;
        // The matching </svg>, counting nested <svg> elements.
        size_t end = start + 4;
        for (int depth = 1; depth > 0;) {
            const size_t nextOpen = html.find("<svg", end), nextClose = html.find("</svg>", end);
            if (nextClose == std::string::npos) {
                end = html.size();
                break;
            }
            if (nextOpen != std::string::npos && nextOpen < nextClose) {
                ++depth;
                end = nextOpen + 4;
            } else {
                --depth;
                end = nextClose + 6;
            }
        }
        out.append(html, pos, start - pos);
        QSvgRenderer svg(standaloneSvg(html.substr(start, end - start), style));
        QSizeF size = svg.defaultSize();
        if (size.isEmpty())
            size = svg.viewBoxF().size();
        if (!svg.isValid() || size.isEmpty()) {
            out += "<p><i>(a drawing that cannot be printed)</i></p>";
        } else {
            size *= kResolution / kCssPixelsPerInch;
            const double fit = std::min({ 1.0, page.width() / size.width(), page.height() / size.height() });
            const int index = int(handler.drawings.size());
            handler.drawings.push_back(renderDrawing(svg, (size * fit).toSize()));
            out += "<p><img src=\"" + std::string(kDrawingScheme) + std::to_string(index) + "\"></p>";
        }
        pos = end;
    }
    out.append(html, pos, std::string::npos);
    return out;
}

/// The page for QTextDocument: its style sheet left out (kPrintStyle replaces it), and its class
/// attributes that QTextDocument would not apply as attributes it does.
std::string adaptForPrint(std::string html)
{
    const size_t style = html.find("<style>"), styleEnd = html.find("</style>");
    if (style != std::string::npos && styleEnd != std::string::npos && style < styleEnd)
        html.erase(style, styleEnd + 8 - style);
    const std::pair<const char*, const char*> replacements[] = {
        { "<tr class=\"nondefault\">", "<tr bgcolor=\"#fff3c4\" style=\"font-weight: bold\">" },
        { "<tr class=\"differs\">", "<tr bgcolor=\"#fff3c4\" style=\"font-weight: bold\">" },
        { "<span class=\"kind\">", "<span style=\"color: #c62828; font-weight: bold\">" },
        { "<p class=\"muted\">", "<p style=\"color: #616161\">" },
        { "<td class=\"num\">", "<td align=\"right\">" },
    };
    // Each run after the first, and the comparison, starts a page.
    const std::string section = "<section>\n<h2>";
    size_t sectionAt = html.find(section);
    if (sectionAt != std::string::npos)
        sectionAt = html.find(section, sectionAt + 1);
    for (; sectionAt != std::string::npos; sectionAt = html.find(section, sectionAt + 1))
        html.insert(sectionAt + section.size() - 1, " style=\"page-break-before: always\"");
    // A table's first row of headings repeats on each page the table runs onto.
    for (size_t p = html.find("<table><tr><th>"); p != std::string::npos; p = html.find("<table><tr><th>", p + 1)) {
        html.insert(p + 7, "<thead>");
        const size_t rowEnd = html.find("</tr>", p);
        if (rowEnd != std::string::npos)
            html.insert(rowEnd + 5, "</thead>");
    }
    // Long dotted option names in narrow table columns: a line may break after a dot or an underscore
    // (a zero-width space, which the PDF does not keep as text) rather than anywhere.
    for (size_t p = html.find("<code>"); p != std::string::npos; p = html.find("<code>", p)) {
        size_t end = std::min(html.find("</code>", p), html.size());
        for (size_t i = p + 6; i < end; ++i)
            if ((html[i] == '.' || html[i] == '_') && i + 1 < end && html[i + 1] != '.' && html[i + 1] != '_') {
                html.insert(i + 1, "\u200B"); // three bytes of UTF-8
                i += 3;
                end += 3;
            }
        p = end;
    }
    for (const auto& [from, to] : replacements) {
        const std::string a = from, b = to;
        for (size_t p = html.find(a); p != std::string::npos; p = html.find(a, p + b.size()))
            html.replace(p, a.size(), b);
    }
    return html;
}

/// The <img> placeholders of the drawings turned into objects that `handler` draws.
void placeDrawings(QTextDocument& doc)
{
    std::vector<std::pair<int, int>> found; // position, drawing index
    for (QTextBlock b = doc.begin(); b.isValid(); b = b.next())
        for (auto it = b.begin(); !it.atEnd(); ++it) {
            const QTextFragment f = it.fragment();
            const QString name = f.charFormat().toImageFormat().name();
            if (f.charFormat().isImageFormat() && name.startsWith(QLatin1String(kDrawingScheme)))
                found.push_back({ f.position(), name.mid(int(qstrlen(kDrawingScheme))).toInt() });
        }
    for (const auto& [position, index] : found) {
        QTextCursor c(&doc);
        c.setPosition(position);
        c.setPosition(position + 1, QTextCursor::KeepAnchor);
        QTextCharFormat format;
        format.setObjectType(kDrawingObject);
        format.setProperty(kDrawingIndex, index);
        c.setCharFormat(format);
    }
}

/// A QGuiApplication for the call when none runs (the headless command): offscreen, unless the
/// environment names a platform.
class GuiGuard {
public:
    GuiGuard()
    {
        if (QCoreApplication::instance())
            return;
        static int argc = 3;
        static char arg0[] = "aclgraph-inspector", arg1[] = "-platform", arg2[] = "offscreen";
        static char* argv[] = { arg0, arg1, arg2, nullptr };
        if (!qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
            argc = 1;
        m_app = std::make_unique<QGuiApplication>(argc, argv);
    }

private:
    std::unique_ptr<QGuiApplication> m_app;
};

/// Lays `doc` out on the writer's pages and prints them, each with a footer: the title and the page.
void printPages(QTextDocument& doc, QPdfWriter& writer, double footerHeight)
{
    QPainter painter(&writer);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setRenderHint(QPainter::LosslessImageRendering);
    const QSizeF body(writer.width(), writer.height() - footerHeight);
    const int pages = doc.pageCount();
    QFont footerFont = doc.defaultFont();
    footerFont.setPointSizeF(7.5);
    const QString title = doc.metaInformation(QTextDocument::DocumentTitle);
    for (int page = 0; page < pages; ++page) {
        if (page > 0)
            writer.newPage();
        painter.save();
        painter.translate(0, -page * body.height());
        const QRectF view(QPointF(0, page * body.height()), body);
        painter.setClipRect(view);
        QAbstractTextDocumentLayout::PaintContext context;
        context.clip = view;
        context.palette.setColor(QPalette::Text, Qt::black);
        doc.documentLayout()->draw(&painter, context);
        painter.restore();
        painter.setFont(footerFont);
        painter.setPen(QColor("#616161"));
        const QRectF footer(0, writer.height() - footerHeight, writer.width(), footerHeight);
        painter.drawText(footer, Qt::AlignLeft | Qt::AlignBottom, title);
        painter.drawText(
            footer, Qt::AlignRight | Qt::AlignBottom, QStringLiteral("page %1 of %2").arg(page + 1).arg(pages));
    }
}

} // namespace

Result<std::string> reportPdf(const std::string& reportJsonText)
{
    auto html = engine::report::reportHtml(reportJsonText);
    if (!html)
        return html.error();
    const QJsonObject json = QJsonDocument::fromJson(QByteArray::fromStdString(reportJsonText)).object();
    GuiGuard gui;

    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    QPdfWriter writer(&buffer);
    writer.setResolution(int(kResolution));
    writer.setPageLayout(QPageLayout(
        QPageSize(QPageSize::A4), QPageLayout::Portrait, QMarginsF(15, 14, 15, 12), QPageLayout::Millimeter));
    writer.setTitle(json.value("title").toString());
    writer.setCreator(json.value("generator").toString());

    QTextDocument doc;
    DrawingHandler handler;
    doc.documentLayout()->setPaintDevice(&writer);
    doc.documentLayout()->registerHandler(kDrawingObject, &handler);
    doc.setDefaultStyleSheet(QString::fromUtf8(kPrintStyle));
    doc.setDocumentMargin(0);
    const double footerHeight = kResolution * 0.3; // 0.3 inch: a line of 7.5 pt and space above it
    const QSizeF body(writer.width(), writer.height() - footerHeight);
    doc.setHtml(QString::fromStdString(adaptForPrint(extractDrawings(*html, body * 0.98, handler))));
    placeDrawings(doc);
    doc.setPageSize(body);
    printPages(doc, writer, footerHeight);
    buffer.close();
    if (bytes.isEmpty())
        return makeError(ErrorCode::Io, "the PDF could not be written");
    return bytes.toStdString();
}

} // namespace gui::report

#include "report_pdf.moc"
