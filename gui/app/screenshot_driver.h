#pragma once
/// Drives the window to one view for a screenshot (docs/screenshots, the GUI bench): waits for the
/// project and its imports, picks a project item, steps a run, selects a node, brings a dock to
/// the front, waits until nothing is loading any more, then grabs the window into a PNG and quits.
#include <QObject>
#include <QString>
#include <QStringList>

namespace gui {

class MainWindow;

struct ScreenshotRequest {
    QString file; ///< PNG to write
    QString select; ///< project item label to pick (empty: what the window opens on)
    static constexpr int kPeak = -2; ///< `step`: the event of the run's peak reserved memory
    int step = 0; ///< event of the selected run to show
    QString filter; ///< the memory breakdown's frame filter
    QString breakdown; ///< what the memory breakdown groups by: "category" (default), "owner", "site"
    QString node; ///< node of the shown graph to select (the Inspector shows it)
    bool openFolds = false; ///< open every fold of the graph shown
    bool fit = false; ///< then fit the graph to the window (Ctrl+0)
    QStringList docks; ///< dock titles to bring to the front, in order
    QStringList tabs; ///< then the tabs (by text) to make current in every QTabWidget that has one
    /// Runs to compare in the Compare view (A, B; 0: none), its table scrolled to its last section
    /// (a CUDA Graph Trees run's steps beside a recording's).
    qlonglong compareA = 0, compareB = 0;
};

class ScreenshotDriver : public QObject {
    Q_OBJECT
public:
    /// Starts at once: the window must be constructed (it may still be importing).
    ScreenshotDriver(MainWindow& window, ScreenshotRequest request);

signals:
    /// The PNG is written (ok) or could not be (message on stderr); the application may quit.
    void done(bool ok);

private:
    void onProject();
    void afterSelection();
    void waitIdle(int quietPolls);
    void shoot();
    void compareRuns();

    MainWindow& m_window;
    ScreenshotRequest m_request;
    bool m_started = false;
};

} // namespace gui
