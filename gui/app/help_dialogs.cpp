#include "gui/app/help_dialogs.h"

#include <QCoreApplication>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileInfo>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace gui {

namespace {
struct Key {
    const char* keys;
    const char* action;
};

QString table(const char* title, std::initializer_list<Key> keys)
{
    QString html = QString("<h3>%1</h3><table cellspacing='0' cellpadding='3'>").arg(title);
    for (const Key& k : keys)
        html += QString("<tr><td style='white-space:nowrap; padding-right:18px'><b>%1</b></td><td>%2</td></tr>")
                    .arg(QString(k.keys).toHtmlEscaped(), QString(k.action).toHtmlEscaped());
    return html + "</table>";
}

void showHtml(QWidget* parent, const QString& title, const QString& html, QSize size)
{
    QDialog dialog(parent);
    dialog.setWindowTitle(title);
    auto* layout = new QVBoxLayout(&dialog);
    auto* text = new QTextBrowser(&dialog);
    text->setOpenExternalLinks(true);
    text->setHtml(html);
    layout->addWidget(text);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, &dialog);
    QObject::connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    layout->addWidget(buttons);
    dialog.resize(size);
    dialog.exec();
}
} // namespace

QString shortcutsHtml()
{
    QString html = "<h2>Keyboard and mouse</h2>";
    html += table("Anywhere in the window",
        {
            { "Ctrl+O", "Open or create a project (File > Open Project)" },
            { "Ctrl+I", "Import files into the project" },
            { "Ctrl+E", "Export a report" },
            { "Ctrl+R", "Simulate the source, graph or cache entry picked in the Project view" },
            { "Ctrl+Q", "Quit" },
            { "Ctrl+1", "Project view" },
            { "Ctrl+2", "Runtime view (the stepper)" },
            { "Ctrl+3", "Memory view" },
            { "Ctrl+4", "Inspector" },
            { "Ctrl+5", "Config view" },
            { "Ctrl+6", "Compare view" },
            { "Ctrl+7", "Log view" },
            { "Ctrl+8", "Passes view" },
            { "Ctrl+9", "Cache view" },
            { "Ctrl+Shift+1", "Compiles view" },
            { "Ctrl+Shift+2", "Events view (every event, hazards explained)" },
            { "F10 / Shift+F10", "Next / previous event (Step menu)" },
            { "F11 / Shift+F11", "Next / previous call" },
            { "F5", "Play / pause" },
            { "F8", "Next hazard" },
            { "Shift+F8", "Previous hazard" },
            { "F9", "Next recapture" },
            { "Shift+F9", "Previous recapture" },
            { "Ctrl+F10", "Next event of the kind in the stepper's Go to box" },
            { "Ctrl+Shift+F10", "Previous event of that kind" },
            { "F7", "Go to the peak of reserved memory" },
            { "Ctrl+Home / Ctrl+End", "First / last event" },
            { "Ctrl+F", "Find a node in the graph" },
            { "Ctrl+0", "Fit the graph to the window" },
            { "Ctrl+Shift+O", "Open every fold of the graph (far out, boxes are drawn as blocks of colour)" },
            { "Ctrl+Shift+L", "Fold the repeated layers again" },
        });
    html += table("In the Runtime view (while it has the focus)",
        {
            { "Right / Left", "Next / previous event" },
            { "Shift+Right / Shift+Left", "Next / previous call" },
            { "PgDown / PgUp", "Next / previous call" },
            { "Space", "Play / pause" },
            { "Home / End", "First / last event" },
            { "P", "Go to the peak of reserved memory" },
        });
    html += table("In the graph",
        {
            { "+ / -", "Zoom in / out" },
            { "0", "Fit the graph" },
            { "Ctrl+wheel", "Zoom" },
            { "Double-click a group", "Open or fold it" },
            { "Esc", "Cancel a layout in progress" },
        });
    html += table("On the memory chart",
        {
            { "Click or drag", "Go to the event under the mouse" },
            { "Shift+drag", "Select a range: zoom to it and sum it up" },
            { "Wheel", "Zoom around the mouse" },
            { "Double-click / Esc", "Show the whole run again" },
        });
    html += table("In the Inspector", { { "Ctrl+C", "Copy the details as indented text" } });
    return html;
}

QString viewsGuideHtml()
{
    struct View {
        const char* name;
        const char* text;
    };
    static const View views[] = {
        { "Graph",
            "The window's centre: the FX graph picked in the Project view, grouped and laid out by "
            "Graphviz. Double-click a group to open it; it follows the stepper and outlines the nodes "
            "the current event touches (captured, copied, returned, hazard)." },
        { "Project (Ctrl+1)",
            "What the project holds: sources, graphs by group with the stages of the passes, "
            "caches by model folder and rank, runs. Pick an item to open it in the other views; "
            "File > Import adds files or folders." },
        { "Runtime (Ctrl+2)",
            "The stepper: a run stepped event by event or call by call (buttons, slider, play, "
            "keys), with each event's summary, TorchAir's log lines and the inputs it copied." },
        { "Memory (Ctrl+3)",
            "Every pool's segments and blocks to scale for the current event, coloured by owner; "
            "a breakdown by category, owner or site; and a chart of reserved and allocated memory "
            "over the whole run with zoom and range selection." },
        { "Inspector (Ctrl+4)",
            "The details of the last node, event, memory block or cache entry you picked, as "
            "a property tree; Ctrl+C copies it." },
        { "Config (Ctrl+5)",
            "The run's options as a form. Change one and the run is simulated again with it "
            "(a new run in the Project view, compared with the first in Compare)." },
        { "Compare (Ctrl+6)",
            "Two runs side by side: config, totals, graphs, pools and hazards per kind; a "
            "simulated run can be compared with a recorded memory snapshot." },
        { "Log (Ctrl+7)",
            "Every log line of the run, filterable by level, graph, key, event kind and text. It "
            "follows the stepper; double-click a line to step there." },
        { "Passes (Ctrl+8)",
            "The stored pass reports of a graph and what each pass changed, and a diff of any "
            "two stages." },
        { "Cache (Ctrl+9)",
            "A compiled cache entry: its path parts, TorchAir's checks, its log, the key's "
            "options, and an explanation of the key for settings you type." },
        { "Compiles (Ctrl+Shift+1)",
            "A TORCH_TRACE's compiles as tlparse lists them: a timeline, a table with "
            "compile times, cache hits and recompile reasons, and the details of one." },
        { "Events",
            "The run's events of note (hazards, recaptures, fallbacks, out-of-memory) in one list, with "
            "an explanation of each hazard: what happened, why, and what to change." },
    };
    QString html = "<h2>The views</h2><p>Every view but the Graph is a dock: move it, tab it, close it; "
                   "View &gt; Reset Layout brings the default back.</p><dl>";
    for (const View& v : views)
        html += QString("<dt><b>%1</b></dt><dd style='margin-bottom:8px'>%2</dd>")
                    .arg(QString(v.name).toHtmlEscaped(), QString(v.text).toHtmlEscaped());
    return html + "</dl>";
}

void showShortcuts(QWidget* parent)
{
    showHtml(parent, "Keyboard Shortcuts", shortcutsHtml(), QSize(620, 640));
}

void showViewsGuide(QWidget* parent)
{
    showHtml(parent, "The Views", viewsGuideHtml(), QSize(640, 640));
}

QString docPath(const QString& name)
{
    const QString installed = QDir(QCoreApplication::applicationDirPath()).filePath("../share/doc/aclgraph-inspector");
    // The source tree: the samples' folder is resources/samples under it (ACLGI_SAMPLES_DIR).
    const QString source = QDir(QStringLiteral(ACLGI_SAMPLES_DIR)).filePath("../..");
    for (const QString& dir : { installed, source }) {
        for (const QString& sub : { QString(), QString("docs") }) {
            const QFileInfo f(QDir(QDir(dir).filePath(sub)).filePath(name));
            if (f.isFile())
                return f.canonicalFilePath();
        }
    }
    return QString();
}

} // namespace gui
