#pragma once
/// The first-run page (issue 21): what the app does, how to open or import something, the bundled
/// samples one click away, the recent projects, and where the guide is. The window shows it in the
/// centre while no project item is picked, and again from Help > Welcome. The page only asks (its
/// signals); the window opens, imports and selects.
///
/// Its content sits in a scroll area at a readable width, so nothing is cut at 1366x768.
#include <QPair>
#include <QStringList>
#include <QVector>
#include <QWidget>

class QLabel;
class QVBoxLayout;

namespace gui {

class WelcomePage : public QWidget {
    Q_OBJECT
public:
    explicit WelcomePage(QWidget* parent = nullptr);

    /// One row per sample: its scenario name and one line of what it shows.
    void setSamples(const QVector<QPair<QString, QString>>& nameAndLine);
    void setRecentProjects(const QStringList& paths);

    /// The bundled samples of `dir` (every *.json scenario, by file name): each one's "name" and the
    /// first sentence of its "comment". Files that are not scenarios with a name are skipped.
    static QVector<QPair<QString, QString>> readSamples(const QString& dir);
    /// Where the bundled samples are: $ACLGI_SAMPLES_DIR, else PREFIX/share/aclgraph-inspector/samples
    /// beside the executable, else the source tree's resources/samples (as main.cpp looks).
    static QString samplesDir();
    /// The first sentence of `text` (up to ". " not after "e.g" or "i.e"; the whole text if none).
    static QString firstSentence(const QString& text);

signals:
    void openProjectRequested();
    void importFilesRequested();
    void importFolderRequested();
    void sampleRequested(const QString& sampleName);
    void recentRequested(const QString& path);

private:
    QVBoxLayout* m_samples = nullptr;
    QVBoxLayout* m_recent = nullptr;
    QLabel* m_noRecent = nullptr;
};

} // namespace gui
