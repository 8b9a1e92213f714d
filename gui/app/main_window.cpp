#include "gui/app/main_window.h"

#include "engine/report/simulation_report.h"
#include "engine/runtime/simulator.h"
#include "engine/scenario/load.h"
#include "gui/app/app_resources.h"
#include "gui/app/cache_panel.h"
#include "gui/app/graph_panel.h"
#include "gui/app/log_panel.h"
#include "gui/app/panel_loader.h"
#include "gui/app/passes_panel.h"
#include "gui/app/runtime_panel.h"

#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>

namespace gui {

namespace {

struct Outcome {
    std::shared_ptr<const engine::runtime::Simulation> sim;
    QString error;
};

QString mib(uint64_t bytes)
{
    return QString::number(double(bytes) / (1024.0 * 1024.0), 'f', 2) + " MiB";
}

} // namespace

MainWindow::MainWindow(const QStringList& files, QWidget* parent)
    : QMainWindow(parent)
{
    setWindowTitle("aclgraph-inspector");
    resize(1280, 800);
    // Project files are opened; everything else is imported into the project and, when it is a
    // scenario or graph file, listed for simulation.
    QStringList projects, others;
    for (const QString& f : files)
        (f.endsWith(".aclgi") ? projects : others) << f;
    m_files = new QListWidget;
    for (const QString& f : others) {
        auto* item = new QListWidgetItem(QFileInfo(f).completeBaseName(), m_files);
        item->setData(Qt::UserRole, f);
        item->setToolTip(f);
    }
    m_calls = new QTableWidget(0, 8);
    m_calls->setObjectName("callsTable");
    m_calls->setHorizontalHeaderLabels(
        { "call", "graph", "key", "action", "inputs copied", "bytes copied", "pools reserved", "device reserved" });
    m_calls->horizontalHeader()->setStretchLastSection(true);
    m_calls->verticalHeader()->hide();
    m_calls->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_calls->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_hazards = new QListWidget;
    m_hazards->setWordWrap(true);
    m_log = new QPlainTextEdit;
    m_log->setReadOnly(true);
    m_log->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_banner = new QLabel;
    m_banner->setWordWrap(true);
    m_banner->setStyleSheet("QLabel { background: #fde2e1; color: #7a1010; padding: 6px; }");
    m_banner->hide();

    auto* right = new QSplitter(Qt::Vertical);
    right->addWidget(m_calls);
    right->addWidget(m_hazards);
    right->addWidget(m_log);
    right->setSizes({ 360, 140, 300 });
    m_graphPanel = new GraphPanel;
    m_tabs = new QTabWidget;
    m_tabs->addTab(right, "Run");
    m_tabs->addTab(m_graphPanel, "Graph");
    m_runtimePanel = new RuntimePanel;
    m_tabs->addTab(m_runtimePanel, "Runtime");
    m_logPanel = new LogPanel;
    m_tabs->addTab(m_logPanel, "Log");
    m_passesPanel = new PassesPanel;
    m_tabs->addTab(m_passesPanel, "Passes");
    m_cachePanel = new CachePanel;
    m_tabs->addTab(m_cachePanel, "Cache");
    // The log and the stepper follow each other.
    connect(m_runtimePanel, &RuntimePanel::stepChanged, m_logPanel, &LogPanel::selectEvent);
    connect(m_logPanel, &LogPanel::eventActivated, this, [this](int event) {
        m_runtimePanel->setStep(event);
        m_tabs->setCurrentWidget(m_runtimePanel);
    });
    setWindowIcon(appIcon());
    auto* split = new QSplitter(Qt::Horizontal);
    split->addWidget(m_files);
    split->addWidget(m_tabs);
    split->setSizes({ 260, 1020 });
    auto* central = new QWidget;
    auto* layout = new QVBoxLayout(central);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_banner);
    layout->addWidget(split);
    setCentralWidget(central);

    connect(m_files, &QListWidget::currentItemChanged, this, [this](QListWidgetItem* item) {
        if (item)
            openScenario(item->data(Qt::UserRole).toString());
    });
    buildProjectDock();
    buildMenus();
    QSettings settings;
    restoreGeometry(settings.value("window/geometry").toByteArray());
    restoreState(settings.value("window/state").toByteArray());
    openProject(projects.isEmpty() ? defaultProjectPath() : projects.front(), others);
    if (m_files->count())
        m_files->setCurrentRow(0);
    else
        m_files->hide(); // nothing to simulate from files: the project is the window
}

MainWindow::~MainWindow() = default;

int MainWindow::scenarioCount() const
{
    return m_files->count();
}

void MainWindow::openScenario(const QString& path)
{
    statusBar()->showMessage("Simulating " + path + " ...");
    loadLatest<Outcome>(
        this, m_generation,
        [path]() -> Outcome {
            auto scenario = engine::scenario::loadScenarioOrGraph(path.toStdString());
            if (!scenario)
                return { nullptr, QString::fromStdString(scenario.error().toString()) };
            auto sim = engine::runtime::simulate(scenario.value());
            if (!sim)
                return { nullptr, QString::fromStdString(sim.error().toString()) };
            return { std::make_shared<const engine::runtime::Simulation>(std::move(sim.value())), {} };
        },
        [this, path](const Outcome& o) {
            if (!o.error.isEmpty())
                showError(o.error);
            else
                showSimulation(path, o.sim);
            emit resultShown();
        });
}

void MainWindow::showError(const QString& message)
{
    m_banner->setText(message);
    m_banner->show();
    m_calls->setRowCount(0);
    m_hazards->clear();
    m_log->clear();
    statusBar()->showMessage("Could not simulate: see the message above.");
}

void MainWindow::showSimulation(const QString& path, std::shared_ptr<const engine::runtime::Simulation> sim)
{
    m_banner->hide();
    m_calls->setRowCount(int(sim->calls.size()));
    for (int r = 0; r < int(sim->calls.size()); ++r) {
        const auto& c = sim->calls[r];
        uint64_t poolReserved = 0;
        for (const auto& p : c.pools)
            poolReserved += p.totalSize;
        QString action = engine::runtime::callActionName(c.action);
        if (!c.recaptureCause.empty())
            action += " (" + QString::fromStdString(c.recaptureCause) + ")";
        const QStringList cells = { QString::number(c.index), QString::fromStdString(c.graph + " " + c.graphId),
            QString::fromStdString(c.key), action, QString::number(c.inputsCopied), QString::number(c.bytesCopied),
            mib(poolReserved), mib(c.deviceReserved) };
        for (int col = 0; col < cells.size(); ++col)
            m_calls->setItem(r, col, new QTableWidgetItem(cells[col]));
    }
    m_calls->resizeColumnsToContents();
    m_hazards->clear();
    for (const auto& h : sim->hazards)
        m_hazards->addItem(QString("call %1  %2: %3")
                               .arg(h.call)
                               .arg(engine::runtime::hazardKindName(h.kind))
                               .arg(QString::fromStdString(h.message)));
    if (sim->hazards.empty())
        m_hazards->addItem("No hazards.");
    m_log->setPlainText(QString::fromStdString(engine::report::simulationText(*sim, engine::runtime::LogLevel::Info)));
    statusBar()->showMessage(QString("%1: %2 calls, %3 hazards, peak device reserved %4")
                                 .arg(QFileInfo(path).fileName())
                                 .arg(sim->callsSimulated)
                                 .arg(sim->hazards.size())
                                 .arg(mib(sim->peakDeviceReserved)));
}

} // namespace gui
