#include "gui/app/welcome_page.h"

#include "gui/app/help_dialogs.h"

#include <QCommandLinkButton>
#include <QCoreApplication>
#include <QDesktopServices>
#include <QDir>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QUrl>
#include <QVBoxLayout>

namespace gui {

namespace {
QLabel* heading(const QString& text, QWidget* parent)
{
    auto* l = new QLabel(text, parent);
    QFont f = l->font();
    f.setBold(true);
    f.setPointSizeF(f.pointSizeF() * 1.15);
    l->setFont(f);
    l->setContentsMargins(0, 12, 0, 2);
    return l;
}

/// Removes and deletes every widget of `layout`.
void clear(QVBoxLayout* layout)
{
    while (QLayoutItem* item = layout->takeAt(0)) {
        delete item->widget();
        delete item;
    }
}

/// A link to a local document when it is found, else where to find it.
QString docLink(const QString& name, const QString& words)
{
    const QString path = docPath(name);
    if (path.isEmpty())
        return QString("%1 (%2 in the source tree)").arg(words, name == "README.md" ? "README.md" : "docs/" + name);
    return QString("<a href=\"%1\">%2</a>").arg(QUrl::fromLocalFile(path).toString(), words);
}
} // namespace

WelcomePage::WelcomePage(QWidget* parent)
    : QWidget(parent)
{
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    auto* scroll = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    outer->addWidget(scroll);
    auto* page = new QWidget(scroll);
    scroll->setWidget(page);
    // The content at a readable width, centred.
    auto* centre = new QHBoxLayout(page);
    auto* content = new QWidget(page);
    content->setMaximumWidth(760);
    centre->addStretch(1);
    centre->addWidget(content, 10);
    centre->addStretch(1);
    auto* col = new QVBoxLayout(content);
    col->setContentsMargins(16, 16, 16, 16);
    col->setSpacing(6);

    auto* title = new QLabel("aclgraph-inspector", content);
    QFont tf = title->font();
    tf.setPointSizeF(tf.pointSizeF() * 1.8);
    tf.setBold(true);
    title->setFont(tf);
    col->addWidget(title);
    auto* what
        = new QLabel("See what TorchAir's aclgraph and CUDA Graph Trees do with your model: the captured graphs, "
                     "every capture, replay and recapture step by step, the device memory they take, and the "
                     "hazards that would bite you, explained.",
            content);
    what->setWordWrap(true);
    col->addWidget(what);

    col->addWidget(heading("Open", content));
    auto* open = new QHBoxLayout;
    auto button = [&](const QString& text, const QString& tip, void (WelcomePage::*signal)()) {
        auto* b = new QPushButton(text, content);
        b->setToolTip(tip);
        connect(b, &QPushButton::clicked, this, signal);
        open->addWidget(b);
        return b;
    };
    button("Open project…", "Open or create a project database (.aclgi)", &WelcomePage::openProjectRequested)
        ->setObjectName("openProject");
    button("Import files…", "FX graph dumps, scenarios, memory snapshots, TORCH_TRACE logs, caches",
        &WelcomePage::importFilesRequested)
        ->setObjectName("importFiles");
    button(
        "Import folder…", "A debug folder, a cache folder or a folder of traces", &WelcomePage::importFolderRequested)
        ->setObjectName("importFolder");
    open->addStretch(1);
    col->addLayout(open);

    col->addWidget(heading("Samples", content));
    auto* samplesNote
        = new QLabel("Simulated runs that show one behaviour each; click one to step through it.", content);
    samplesNote->setWordWrap(true);
    col->addWidget(samplesNote);
    m_samples = new QVBoxLayout;
    m_samples->setSpacing(0);
    col->addLayout(m_samples);

    col->addWidget(heading("Recent projects", content));
    m_recent = new QVBoxLayout;
    m_recent->setSpacing(0);
    col->addLayout(m_recent);
    m_noRecent = new QLabel("None yet.", content);
    col->addWidget(m_noRecent);

    col->addWidget(heading("Learn more", content));
    auto* docs = new QLabel(QString("%1 (opening, stepping, hazards, long recordings, comparing, keys) and %2. "
                                    "Help &gt; Keyboard Shortcuts and Help &gt; The Views list every key and view.")
                                .arg(docLink("guide.md", "The user guide"), docLink("README.md", "the README")),
        content);
    docs->setObjectName("docs");
    docs->setWordWrap(true);
    docs->setTextFormat(Qt::RichText);
    connect(docs, &QLabel::linkActivated, this, [](const QString& url) { QDesktopServices::openUrl(QUrl(url)); });
    col->addWidget(docs);
    col->addStretch(1);
}

void WelcomePage::setSamples(const QVector<QPair<QString, QString>>& nameAndLine)
{
    clear(m_samples);
    for (const auto& [name, line] : nameAndLine) {
        auto* b = new QCommandLinkButton(name, line, m_samples->parentWidget());
        b->setObjectName("sample");
        b->setToolTip("Step through the run of this sample");
        connect(b, &QCommandLinkButton::clicked, this, [this, name = name] { emit sampleRequested(name); });
        m_samples->addWidget(b);
    }
}

void WelcomePage::setRecentProjects(const QStringList& paths)
{
    clear(m_recent);
    for (const QString& path : paths) {
        auto* b = new QCommandLinkButton(
            QFileInfo(path).fileName(), QDir::toNativeSeparators(path), m_recent->parentWidget());
        b->setObjectName("recent");
        connect(b, &QCommandLinkButton::clicked, this, [this, path] { emit recentRequested(path); });
        m_recent->addWidget(b);
    }
    m_noRecent->setVisible(paths.isEmpty());
}

QString WelcomePage::firstSentence(const QString& text)
{
    const QString t = text.simplified();
    for (int at = t.indexOf(". "); at >= 0; at = t.indexOf(". ", at + 1)) {
        const QString before = t.left(at);
        if (!before.endsWith("e.g") && !before.endsWith("i.e"))
            return t.left(at + 1);
    }
    return t;
}

QVector<QPair<QString, QString>> WelcomePage::readSamples(const QString& dir)
{
    QVector<QPair<QString, QString>> samples;
    const QDir d(dir);
    for (const QString& f : d.entryList({ "*.json" }, QDir::Files, QDir::Name)) {
        QFile file(d.filePath(f));
        if (!file.open(QIODevice::ReadOnly))
            continue;
        const QJsonObject o = QJsonDocument::fromJson(file.readAll()).object();
        const QString name = o.value("name").toString();
        if (name.isEmpty())
            continue;
        samples.push_back({ name, firstSentence(o.value("comment").toString()) });
    }
    return samples;
}

QString WelcomePage::samplesDir()
{
    const QString env = qEnvironmentVariable("ACLGI_SAMPLES_DIR");
    if (!env.isEmpty())
        return env;
    const QDir installed(QDir(QCoreApplication::applicationDirPath()).filePath("../share/aclgraph-inspector/samples"));
    return installed.exists() ? installed.absolutePath() : QStringLiteral(ACLGI_SAMPLES_DIR);
}

} // namespace gui
