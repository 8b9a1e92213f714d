// MainWindow's views: the Graph view in the middle, the other views in docks, and the wiring that
// keeps them in step (see main_window.h). The project side (outline, import, recent projects) is in
// main_window_project.cpp.
#include "gui/app/main_window.h"

#include "engine/report/details.h"
#include "gui/app/app_resources.h"
#include "gui/app/cache_panel.h"
#include "gui/app/compare_panel.h"
#include "gui/app/compiles_panel.h"
#include "gui/app/config_panel.h"
#include "gui/app/events_panel.h"
#include "gui/app/graph_panel.h"
#include "gui/app/inspector_panel.h"
#include "gui/app/log_panel.h"
#include "gui/app/memory_view.h"
#include "gui/app/passes_panel.h"
#include "gui/app/project_model.h"
#include "gui/app/project_session.h"
#include "gui/app/runtime_panel.h"
#include "gui/app/welcome_page.h"
#include "storage/cache_store.h"
#include "storage/run_store.h"

#include <QAction>
#include <QDockWidget>
#include <QGuiApplication>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QScreen>
#include <QSettings>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTableWidget>
#include <QTreeView>
#include <QVBoxLayout>

namespace gui {

MainWindow::MainWindow(const QStringList& files, QWidget* parent)
    : QMainWindow(parent)
{
    setWindowTitle("aclgraph-inspector");
    setWindowIcon(appIcon());
    // 1400x900, or the screen when it is smaller (a 1366x768 laptop).
    QSize size(1400, 900);
    if (const QScreen* screen = QGuiApplication::primaryScreen())
        size = size.boundedTo(screen->availableGeometry().size());
    resize(size);
    setDockNestingEnabled(true);
    setDockOptions(dockOptions() | QMainWindow::AllowTabbedDocks | QMainWindow::GroupedDragging);
    QStringList projects, others;
    for (const QString& f : files)
        (f.endsWith(".aclgi") ? projects : others) << f;
    buildViews();
    buildDocks();
    connectViews();
    buildMenus();
    m_defaultState = saveState();
    QSettings settings;
    restoreGeometry(settings.value("window/geometry").toByteArray());
    restoreState(settings.value("window/state").toByteArray());
    statusBar()->showMessage(
        "Pick a run, graph or cache entry in the Project view; drop files on the window to import them.");
    // Opened with no project named (the bundled samples): the welcome page says what to open.
    m_welcomeShown = projects.isEmpty();
    showWelcome(m_welcomeShown);
    openProject(projects.isEmpty() ? defaultProjectPath() : projects.front(), others);
}

MainWindow::~MainWindow() = default;

void MainWindow::buildViews()
{
    m_banner = new QLabel;
    m_banner->setObjectName("banner");
    m_banner->setWordWrap(true);
    m_banner->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_banner->setStyleSheet("QLabel { background: #fde2e1; color: #7a1010; padding: 6px; }");
    m_banner->hide();
    m_session = new ProjectSession(this);
    m_graphPanel = new GraphPanel(m_session);
    auto* central = new QWidget;
    auto* layout = new QVBoxLayout(central);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addWidget(m_banner);
    m_welcome = new WelcomePage;
    m_welcome->setObjectName("welcomePage");
    m_centre = new QStackedWidget;
    m_centre->addWidget(m_graphPanel);
    m_centre->addWidget(m_welcome);
    layout->addWidget(m_centre, 1);
    setCentralWidget(central);

    // Every view subscribes to the session: it shows the session's run, graph, cache entry and step.
    m_runtimePanel = new RuntimePanel(m_session);
    m_logPanel = new LogPanel(m_session);
    m_passesPanel = new PassesPanel(m_session);
    m_cachePanel = new CachePanel(m_session);
    m_inspector = new InspectorPanel(m_session);
    m_configPanel = new ConfigPanel(m_session);
    m_comparePanel = new ComparePanel(m_session);
    m_compilesPanel = new CompilesPanel(m_session);
    m_eventsPanel = new EventsPanel(m_session);
}

QDockWidget* MainWindow::addDock(const QString& title, QWidget* view, Qt::DockWidgetArea area, const QKeySequence& keys)
{
    auto* dock = new QDockWidget(title, this);
    dock->setObjectName(title.toLower() + "Dock"); // saveState() names docks by objectName
    dock->setWidget(view);
    addDockWidget(area, dock);
    m_docks[title] = dock;
    // Ctrl+<digit> shows the view (also when it was closed), brings its tab to the front and gives
    // it the focus; the View menu's check boxes show and hide.
    auto* go = new QAction(title, this);
    go->setShortcut(keys);
    go->setShortcutContext(Qt::WindowShortcut);
    connect(go, &QAction::triggered, dock, [dock] {
        dock->show();
        dock->raise();
        if (dock->widget())
            dock->widget()->setFocus();
    });
    addAction(go);
    m_goActions.push_back(go);
    return dock;
}

QDockWidget* MainWindow::dock(const QString& title) const
{
    const auto it = m_docks.find(title);
    return it == m_docks.end() ? nullptr : it->second;
}

QString MainWindow::bannerText() const
{
    return m_banner->isVisible() ? m_banner->text() : QString();
}

void MainWindow::showBanner(const QString& text)
{
    m_banner->setText(text);
    m_banner->setVisible(!text.isEmpty());
}

void MainWindow::buildDocks()
{
    buildProjectDock(); // "Project", left
    QWidget* memoryPane = m_runtimePanel->takeMemoryPane();
    QDockWidget* runtime = addDock("Runtime", m_runtimePanel, Qt::BottomDockWidgetArea, QKeySequence("Ctrl+2"));
    QDockWidget* memory = addDock("Memory", memoryPane, Qt::BottomDockWidgetArea, QKeySequence("Ctrl+3"));
    QDockWidget* events = addDock("Events", m_eventsPanel, Qt::BottomDockWidgetArea, QKeySequence("Ctrl+Shift+2"));
    QDockWidget* inspector = addDock("Inspector", m_inspector, Qt::RightDockWidgetArea, QKeySequence("Ctrl+4"));
    QDockWidget* config = addDock("Config", m_configPanel, Qt::RightDockWidgetArea, QKeySequence("Ctrl+5"));
    QDockWidget* compare = addDock("Compare", m_comparePanel, Qt::RightDockWidgetArea, QKeySequence("Ctrl+6"));
    QDockWidget* log = addDock("Log", m_logPanel, Qt::BottomDockWidgetArea, QKeySequence("Ctrl+7"));
    QDockWidget* passes = addDock("Passes", m_passesPanel, Qt::BottomDockWidgetArea, QKeySequence("Ctrl+8"));
    QDockWidget* cache = addDock("Cache", m_cachePanel, Qt::BottomDockWidgetArea, QKeySequence("Ctrl+9"));
    QDockWidget* compiles
        = addDock("Compiles", m_compilesPanel, Qt::BottomDockWidgetArea, QKeySequence("Ctrl+Shift+1"));
    // Stepper and memory side by side under the graph; the log, passes and cache browser as tabs
    // beside the stepper; inspector, config and compare as tabs on the right.
    splitDockWidget(runtime, memory, Qt::Horizontal);
    tabifyDockWidget(runtime, events);
    tabifyDockWidget(runtime, log);
    tabifyDockWidget(runtime, passes);
    tabifyDockWidget(runtime, cache);
    tabifyDockWidget(runtime, compiles);
    tabifyDockWidget(inspector, config);
    tabifyDockWidget(inspector, compare);
    runtime->raise();
    inspector->raise();
    resizeDocks({ runtime, memory }, { 600, 800 }, Qt::Horizontal);
    resizeDocks({ runtime }, { 380 }, Qt::Vertical);
    resizeDocks({ inspector }, { 420 }, Qt::Horizontal);
}

void MainWindow::resetLayout()
{
    for (auto& [title, d] : m_docks) {
        d->setFloating(false);
        d->show();
    }
    restoreState(m_defaultState);
}

void MainWindow::connectViews()
{
    // The views follow the session's step themselves (graph outlines, Inspector, Log); the window
    // adds the status bar.
    connect(m_session, &ProjectSession::stepChanged, this, &MainWindow::onStep);
    // A recording takes the centre from the graph canvas (the Events list follows the session itself).
    connect(m_session, &ProjectSession::runLoaded, this, &MainWindow::fitLayoutToContent);
    // Whatever is picked takes the centre from the welcome page.
    connect(m_session, &ProjectSession::selectionChanged, this, [this](const QString& kind) {
        if (kind.isEmpty())
            return;
        showWelcome(false);
        if (kind != "run") // a graph or cache entry is drawn in the centre
            centralWidget()->show();
    });
    connect(m_logPanel, &LogPanel::eventActivated, this, [this](int event) {
        m_session->setStep(event);
        m_docks["Runtime"]->raise();
    });
    connect(m_runtimePanel->memoryView(), &MemoryView::blockClicked, this,
        [this](int pool, int segment, int block, const engine::runtime::OwnerInfo*) {
            onBlockClicked(pool, segment, block);
        });
    connect(m_graphPanel, &GraphPanel::nodeSelected, this, [this](int node) {
        const engine::Graph* g = m_graphPanel->graph();
        if (!g || node < 0)
            return;
        m_inspector->showDetails(engine::report::nodeDetails(*g, node, m_graphPanel->rewrittenBy(node)));
        statusBar()->showMessage(
            QString("%1 · node %2")
                .arg(QString::fromStdString(g->id), QString::fromStdString(g->nodes[size_t(node)].name)),
            5000);
    });
    // A re-simulated configuration becomes a run of the project: select it and compare it.
    connect(
        m_configPanel, &ConfigPanel::runStored, this, [this](qlonglong runId, qlonglong /*baseRunId*/, bool reused) {
            statusBar()->showMessage(reused
                    ? QString("Run %1 already had these settings: shown, not simulated again").arg(runId)
                    : QString("Simulated with the new settings: run %1").arg(runId),
                8000);
            // Selecting it steps it and compares it with its scenario's base run (ComparePanel::showRun).
            m_selectKind = "run";
            m_selectId = runId;
            reloadOutline();
            m_docks["Compare"]->raise();
        });
    connect(m_configPanel, &ConfigPanel::failed, this,
        [this](const QString& message) { statusBar()->showMessage("Not simulated: " + message, 8000); });
    // A cache entry's graph (read from its py_code) is drawn, and its passes listed.
    connect(m_session, &ProjectSession::cacheEntryLoaded, this, [this] {
        if (const auto entry = m_session->cacheEntry(); entry && entry->graphId)
            m_graphPanel->showGraph(*entry->graphId);
    });
    // A call picked in Compare (the first the runs disagree on, once compared): the run showing it
    // (A, the log, when it has the call) is stepped to the call's first step.
    connect(
        m_comparePanel, &ComparePanel::callPicked, this, [this](qlonglong runA, int callA, qlonglong runB, int callB) {
            m_pickedRun = callA >= 0 ? runA : runB;
            m_pickedCall = callA >= 0 ? callA : callB;
            if (m_session->runId() == m_pickedRun && m_session->run())
                stepToPickedCall();
            else
                selectProjectItem("run", m_pickedRun);
        });
    connect(m_session, &ProjectSession::runLoaded, this, &MainWindow::stepToPickedCall);
    connect(m_comparePanel, &ComparePanel::failed, this,
        [this](const QString& message) { statusBar()->showMessage("Not compared: " + message, 8000); });
    // A TORCH_TRACE's compiles (listed with each project): brought to the front the first time a
    // project shows some and has no run to step; a double-click opens the compile's graphs.
    connect(m_compilesPanel, &CompilesPanel::shown, this, [this] {
        if (m_compilesPanel->compileCount() == 0 || m_compilesRaisedFor == m_projectPath)
            return;
        m_compilesRaisedFor = m_projectPath;
        const QModelIndexList runs = m_projectModel->match(m_projectModel->index(0, 0), ProjectModel::KindRole, "run",
            1, Qt::MatchExactly | Qt::MatchRecursive | Qt::MatchWrap);
        if (runs.isEmpty()) {
            // Nothing to step: the compiles take two thirds of the bottom row from the empty Memory view,
            // and, unless something is picked already, the window opens the selected compile's graph.
            if (!m_projectTree->currentIndex().isValid())
                if (const qlonglong graph = m_compilesPanel->graphOf(m_compilesPanel->table()->currentRow()))
                    selectProjectItem("stage", graph);
            m_docks["Compiles"]->show();
            m_docks["Compiles"]->raise();
            if (!m_docks["Compiles"]->isFloating() && !m_docks["Memory"]->isFloating()
                && dockWidgetArea(m_docks["Compiles"]) == dockWidgetArea(m_docks["Memory"]))
                resizeDocks(
                    { m_docks["Compiles"], m_docks["Memory"] }, { width() * 2 / 3, width() / 3 }, Qt::Horizontal);
        }
    });
    // A recording has no FX graph to draw: the first time one is shown, its memory gets the room
    // (most of the window's height for the bottom row, most of that row for the Memory dock).
    connect(m_runtimePanel, &RuntimePanel::runShown, this, [this] {
        const storage::StoredRun* run = m_runtimePanel->run();
        if (!run || run->sim.origin.kind != engine::runtime::RunOriginKind::Recorded)
            return;
        const QString key = m_projectPath + "#" + QString::number(run->row.id);
        if (m_roomGivenFor == key)
            return;
        m_roomGivenFor = key;
        QDockWidget* runtime = m_docks["Runtime"];
        QDockWidget* memory = m_docks["Memory"];
        if (runtime->isFloating() || memory->isFloating() || dockWidgetArea(runtime) != dockWidgetArea(memory))
            return;
        resizeDocks({ memory }, { height() * 3 / 5 }, Qt::Vertical);
        resizeDocks({ runtime, memory }, { width() / 4, width() * 3 / 4 }, Qt::Horizontal);
    });
    connect(m_compilesPanel, &CompilesPanel::graphActivated, this, [this](const QString& kind, qlonglong id) {
        if (selectProjectItem(kind, id))
            m_docks["Passes"]->raise(); // the compile's stages
    });
}

void MainWindow::onProjectItem(const QString& kind, qlonglong id)
{
    // The session reads what was picked, once, for every view that shows it.
    m_session->select(kind, id);
    if (kind == "run")
        m_docks["Runtime"]->raise();
    else if (kind == "cache_entry")
        m_docks["Cache"]->raise();
}

void MainWindow::onStep(int event)
{
    if (m_session->run() && event >= 0)
        statusBar()->showMessage(m_runtimePanel->positionText());
}

void MainWindow::onBlockClicked(int pool, int segment, int block)
{
    auto run = m_session->run();
    const auto& pools = m_runtimePanel->shown();
    if (!run || pool < 0 || pool >= int(pools.size()))
        return;
    m_inspector->showDetails(engine::report::blockDetails(run->sim, pools, pool, segment, block));
    m_docks["Inspector"]->raise();
    // The block's tensor, when it is a node of an imported graph: select it there too.
    const auto& segments = pools[size_t(pool)].segments;
    if (segment < 0 || segment >= int(segments.size()) || block < 0
        || block >= int(segments[size_t(segment)].blocks.size()))
        return;
    const auto owner = segments[size_t(segment)].blocks[size_t(block)].owner;
    if (owner == engine::memory::kNoOwner || size_t(owner) >= run->sim.owners.size())
        return;
    const auto& info = run->sim.owners[size_t(owner)];
    // Only in the graph on screen: the Graph view stays on the stepper's graph (the Inspector names
    // the block's graph).
    const auto graph = run->graphIds.find(info.graph);
    if (graph != run->graphIds.end() && graph->second == m_graphPanel->graphId())
        m_graphPanel->selectNode(graph->second, QString::fromStdString(info.tensor), false);
}

void MainWindow::buildStepMenu(QMenu* menu)
{
    // Window-wide keys (the stepper's own arrow keys work while it has the focus).
    auto add = [this, menu](const QString& text, const QKeySequence& keys, auto slot) {
        QAction* a = menu->addAction(text, m_runtimePanel, slot);
        a->setShortcut(keys);
        a->setShortcutContext(Qt::WindowShortcut);
        addAction(a);
        return a;
    };
    add("&Next Event", QKeySequence(Qt::Key_F10), &RuntimePanel::stepForward);
    add("&Previous Event", QKeySequence(Qt::SHIFT + Qt::Key_F10), &RuntimePanel::stepBack);
    add("Next &Call", QKeySequence(Qt::Key_F11), &RuntimePanel::nextCall);
    add("Previous C&all", QKeySequence(Qt::SHIFT + Qt::Key_F11), &RuntimePanel::previousCall);
    add("P&lay / Pause", QKeySequence(Qt::Key_F5), &RuntimePanel::togglePlay);
    menu->addSeparator();
    // Next/previous of a kind, from the run's marks (the navigator's kind box has the others).
    auto mark = [this](engine::report::MarkKind kind, bool forward) {
        return [this, kind, forward] {
            const auto marks = m_runtimePanel->marks();
            const int at = m_session->step();
            if (!marks)
                return;
            const int to = forward ? marks->next(kind, at) : marks->previous(kind, at);
            if (to >= 0)
                m_session->setStep(to);
            else
                statusBar()->showMessage(QString("No %1 %2 event %3")
                                             .arg(forward ? "next" : "previous", engine::report::markKindName(kind))
                                             .arg(at + 1),
                    4000);
        };
    };
    using engine::report::MarkKind;
    add("Next &Hazard", QKeySequence("F8"), mark(MarkKind::Hazard, true));
    add("Previous Ha&zard", QKeySequence("Shift+F8"), mark(MarkKind::Hazard, false));
    add("Next &Recapture", QKeySequence("F9"), mark(MarkKind::Recapture, true));
    add("Previous Reca&pture", QKeySequence("Shift+F9"), mark(MarkKind::Recapture, false));
    add("Next of the &Navigator's Kind", QKeySequence("Ctrl+F10"), &RuntimePanel::navigatorNext);
    add("Previous of the Na&vigator's Kind", QKeySequence("Ctrl+Shift+F10"), &RuntimePanel::navigatorPrevious);
    add("Go to the P&eak", QKeySequence("F7"), [this] {
        if (const auto marks = m_runtimePanel->marks(); marks && marks->count(MarkKind::PeakReserved))
            m_session->setStep(marks->of(MarkKind::PeakReserved).front());
    });
    menu->addSeparator();
    add("&First Event", QKeySequence(Qt::CTRL + Qt::Key_Home), [this] { m_runtimePanel->setStep(0); });
    add("&Last Event", QKeySequence(Qt::CTRL + Qt::Key_End),
        [this] { m_runtimePanel->setStep(m_runtimePanel->eventCount() - 1); });
}

void MainWindow::stepToPickedCall()
{
    const auto run = m_session->run();
    if (m_pickedRun < 0 || !run || m_session->runId() != m_pickedRun)
        return;
    for (const auto& c : run->sim.calls)
        if (c.index == m_pickedCall) {
            m_session->setStep(c.firstEvent);
            statusBar()->showMessage(
                QString("Run %1 at call %2: the call picked in Compare").arg(m_pickedRun).arg(m_pickedCall), 8000);
        }
    m_pickedRun = -1;
    m_pickedCall = -1;
}

} // namespace gui
