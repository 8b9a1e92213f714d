#include "gui/app/graph_panel.h"

#include "gui/app/panel_loader.h"
#include "gui/app/project_session.h"
#include "gui/graph/async_layout.h"
#include "gui/graph/graph_canvas.h"
#include "gui/graph/graph_items.h"
#include "gui/graph/graph_palette.h"
#include "gui/graph/graph_scene.h"
#include "gui/graph/graph_svg.h"
#include "gui/graph/graph_view_widget.h"
#include "storage/graph_store.h"
#include "storage/project_db.h"
#include "storage/run_store.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>
#include <map>
#include <set>

namespace gui {

using engine::runtime::FocusRole;

namespace {

/// When several focused nodes fold into one group, the group shows the role that matters most.
int rank(FocusRole r)
{
    switch (r) {
    case FocusRole::Hazard:
        return 4;
    case FocusRole::Copied:
        return 3;
    case FocusRole::Rebuilt:
        return 2;
    case FocusRole::Returned:
        return 1;
    case FocusRole::Kept:
        return 0;
    }
    return 0;
}

} // namespace

QColor GraphPanel::focusColor(FocusRole role)
{
    return graph::paletteColor(graph::focusRgb(role));
}

GraphPanel::GraphPanel(ProjectSession* session, QWidget* parent)
    : QWidget(parent)
    , m_session(session)
    , m_title(new QLabel("Pick a graph in the Project view."))
    , m_focusLine(new QLabel)
    , m_follow(new QCheckBox("Follow the stepper"))
    , m_view(new graph::GraphViewWidget)
{
    m_title->setObjectName("graphTitle");
    m_title->setWordWrap(true);
    m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_focusLine->setObjectName("graphFocus");
    m_focusLine->setTextFormat(Qt::RichText);
    m_focusLine->setWordWrap(true);
    m_follow->setChecked(true);
    m_follow->setToolTip("Show the graph of the stepper's current event and outline the nodes it concerns");
    auto* top = new QHBoxLayout;
    top->addWidget(m_title, 1);
    top->addWidget(m_follow);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(top);
    layout->addWidget(m_focusLine);
    layout->addWidget(m_view, 1);
    connect(m_view->scene(), &graph::GraphScene::groupActivated, this, &GraphPanel::toggleGroup);
    connect(m_view->scene(), &graph::GraphScene::itemSelected, this, [this](int item) {
        if (item < 0 || item >= int(m_current.items.size()))
            return;
        const auto& it = m_current.items[size_t(item)];
        emit nodeSelected(it.kind == engine::view::ViewItem::Kind::Node ? it.index : -1);
    });
    connect(m_view, &graph::GraphViewWidget::viewShown, this, &GraphPanel::onViewShown);
    connect(m_view->layouter(), &graph::AsyncLayout::started, this, &GraphPanel::applyTitle);
    m_view->setFinder([this](const QString& text) { findNode(text); });
    connect(m_view, &graph::GraphViewWidget::layoutCancelled, this, [this] {
        m_selectNode = -1;
        if (m_shownGraphId != m_graphId) { // the scene shows another graph: show none
            m_current = {};
            m_view->setView(m_current);
            return;
        }
        m_expanded = m_shownExpanded; // back to the view on screen
        m_current = m_view->scene()->view();
    });
    connect(m_follow, &QCheckBox::toggled, this, [this](bool on) {
        if (!on) {
            m_focus.clear();
            m_focusText.clear();
            m_focusLine->clear();
            applyMarks();
            emit focusChanged();
        }
    });
    subscribe();
}

GraphPanel::~GraphPanel() = default;

void GraphPanel::setFollowing(bool on)
{
    m_follow->setChecked(on);
}

bool GraphPanel::following() const
{
    return m_follow->isChecked();
}

void GraphPanel::showGraph(qlonglong graphId)
{
    m_pending = {};
    m_focus.clear();
    m_focusText.clear();
    m_focusLine->clear();
    loadGraph(graphId);
}

void GraphPanel::subscribe()
{
    // A graph the session reads for someone else (a pick in the Project view) replaces the one
    // shown, outlines and all; the one asked for here keeps what is pending on it.
    connect(m_session, &ProjectSession::graphLoading, this, [this](qlonglong graphId) {
        if (graphId == m_graphId)
            return;
        m_pending = {};
        m_focus.clear();
        m_focusText.clear();
        m_focusLine->clear();
        m_graphId = graphId;
        m_title->setText(QString("Loading graph %1 ...").arg(graphId));
    });
    connect(m_session, &ProjectSession::graphLoaded, this, &GraphPanel::foldLoaded);
    connect(m_session, &ProjectSession::stepChanged, this, [this](int event) { followEvent(m_session->run(), event); });
}

void GraphPanel::loadGraph(qlonglong graphId)
{
    m_graphId = graphId;
    m_title->setText(QString("Loading graph %1 ...").arg(graphId));
    if (m_session->graphId() == graphId && m_session->graph())
        foldLoaded(); // read already
    else
        m_session->showGraph(graphId);
}

void GraphPanel::foldLoaded()
{
    const std::shared_ptr<const ProjectSession::StoredGraph> stored = m_session->graph();
    if (!stored)
        return;
    m_graphId = stored->id;
    using Ptr = std::shared_ptr<const Loaded>;
    loadLatest<Ptr>(
        this, m_generation,
        [stored]() -> Ptr {
            auto out = std::make_shared<Loaded>();
            if (!stored->graph) {
                out->error = stored->error;
                return out;
            }
            out->graph = *stored->graph;
            for (const auto& r : stored->reports)
                for (const auto& rw : r.report.rewritten) {
                    out->rewrittenBy[rw.node].push_back(r.report.name);
                    out->rewritten.insert(rw.node);
                }
            // Grouped and first viewed here, off the UI thread, as the reports draw it.
            auto folded = graph::foldGraph(out->graph, out->rewritten);
            out->grouping = std::move(folded.grouping);
            out->folded = std::move(folded.view);
            out->title = QString("%1: %2 nodes%3")
                             .arg(QString::fromStdString(out->graph.id))
                             .arg(out->graph.nodes.size())
                             .arg(out->grouping.method == "none"
                                     ? QString()
                                     : QString(" (layers: %1)").arg(QString::fromStdString(out->grouping.method)));
            return out;
        },
        [this](Ptr loaded) {
            m_expanded.clear();
            m_selectNode = -1;
            if (!loaded->error.isEmpty()) {
                m_title->setText(loaded->error);
                m_loaded.reset();
                m_pending = {};
                m_current = {};
                m_view->setView(m_current);
                return;
            }
            m_loaded = loaded;
            m_title->setText(loaded->title);
            if (m_pending.run) {
                applyFocus();
            } else { // outlines name nodes of the graph they were made for
                m_focus.clear();
                m_focusText.clear();
                m_focusLine->clear();
                if (!m_pending.selectName.isEmpty())
                    openAround(m_pending.selectName);
            }
            m_pending = {};
            if (m_expanded.empty()) { // the folded first view, built with the grouping
                m_current = m_loaded->folded;
                m_view->setView(m_current);
            } else {
                rebuild();
            }
        });
}

void GraphPanel::toggleGroup(int groupId)
{
    if (!m_loaded)
        return;
    if (!m_expanded.erase(groupId))
        m_expanded.insert(groupId);
    m_revealGroup = groupId;
    rebuild();
}

void GraphPanel::setAllFoldsOpen(bool open)
{
    if (!m_loaded)
        return;
    std::set<int> all;
    if (open)
        for (int g = 0; g < int(m_loaded->grouping.groups.size()); ++g)
            all.insert(g);
    if (all == m_expanded)
        return;
    m_expanded = std::move(all);
    rebuild();
}

void GraphPanel::rebuild()
{
    m_current = engine::view::buildView(m_loaded->graph, m_loaded->grouping, m_expanded, m_loaded->rewritten);
    m_view->setView(m_current);
}

void GraphPanel::onViewShown()
{
    const bool newGraph = m_shownGraphId != m_graphId;
    m_shownExpanded = m_expanded;
    m_shownGraphId = m_graphId;
    applyTitle();
    applyMarks();
    if (newGraph) // the top of the graph at a legible zoom (the scene may have shown another graph)
        m_view->showTop();
    const int revealGroup = m_revealGroup;
    m_revealGroup = -1;
    if (m_selectNode >= 0 && m_selectNode < int(m_current.itemOfNode.size())) {
        const int node = m_selectNode;
        m_selectNode = -1;
        m_view->reveal(m_current.itemOfNode[size_t(node)], false);
        if (m_selectNotify)
            emit nodeSelected(node);
    } else if (m_loaded && revealGroup >= 0 && revealGroup < int(m_loaded->grouping.groups.size())) {
        // What the click opened or folded stays in sight: the item that now shows its first node.
        const int first = m_loaded->grouping.groups[size_t(revealGroup)].firstNode;
        if (first >= 0 && first < int(m_current.itemOfNode.size()))
            if (auto* box = m_view->scene()->boxItem(m_current.itemOfNode[size_t(first)]))
                m_view->canvas()->ensureVisible(box);
    }
    if (!m_findStatus.isEmpty()) {
        m_view->setStatusText(m_findStatus);
        m_findStatus.clear();
    }
    emit graphShown();
}

void GraphPanel::applyTitle()
{
    if (m_loaded && m_loaded->error.isEmpty())
        m_title->setText(headerText());
}

QString GraphPanel::headerText() const
{
    if (!m_loaded)
        return {};
    const engine::Graph& g = m_loaded->graph;
    const engine::view::Grouping& gr = m_loaded->grouping;
    QString text = QString("%1 · %2 nodes").arg(QString::fromStdString(g.id)).arg(g.nodes.size());
    std::vector<int> stacks;
    bool allOpen = true; // every layer stack opened (Graph > Open All Folds)
    for (int g = 0; g < int(gr.groups.size()); ++g)
        if (gr.groups[size_t(g)].kind == "layers") {
            stacks.push_back(gr.groups[size_t(g)].repeat);
            allOpen = allOpen && m_expanded.count(g);
        }
    if (stacks.empty())
        return text + " · no repeated layers found";
    QStringList counts;
    int layers = 0;
    for (int r : stacks) {
        counts << QString::number(r);
        layers += r;
    }
    const QString state = allOpen ? "opened (Ctrl+Shift+L folds them)" : "folded";
    text += stacks.size() == 1
        ? QString(" · %1 repeated layers %2").arg(layers).arg(state)
        : QString(" · %1 stacks of repeated layers (%2) %3").arg(stacks.size()).arg(counts.join(" + ")).arg(state);
    // How they were found, in the user's terms: the names' numbering, or a block of ops that repeats.
    const QString method = QString::fromStdString(gr.method);
    const QString names = "node names: ";
    if (method.startsWith(names)) {
        QStringList examples;
        for (QString pattern : method.mid(names.size()).split(", ")) {
            const QString first = QString(pattern).replace("<n>", "0") + "_";
            const QString second = pattern.replace("<n>", "1") + "_";
            examples << first + ", " + second + " …";
        }
        text += QString(" (found from node names %1)").arg(examples.join("; "));
    } else if (method.startsWith("repeated op sequence of ")) {
        const QStringList words = method.split(' ');
        text += QString(" (found as a block of %1 ops that repeats)").arg(words.value(4));
    }
    return text;
}

int GraphPanel::findNode(const QString& text)
{
    const QString query = text.trimmed();
    if (!m_loaded || query.isEmpty())
        return -1;
    const engine::Graph& g = m_loaded->graph;
    if (query != m_findQuery) {
        m_findQuery = query;
        m_findMatches.clear();
        m_findPos = -1;
        for (size_t n = 0; n < g.nodes.size(); ++n)
            if (QString::fromStdString(g.nodes[n].name).contains(query, Qt::CaseInsensitive)
                || QString::fromStdString(g.nodes[n].target).contains(query, Qt::CaseInsensitive))
                m_findMatches.push_back(int(n));
    }
    if (m_findMatches.empty()) {
        m_view->setStatusText(QString("no node matches \"%1\"").arg(query));
        return -1;
    }
    m_findPos = (m_findPos + 1) % int(m_findMatches.size());
    const int node = m_findMatches[size_t(m_findPos)];
    QStringList inside; // the groups around the match, outermost first
    for (int grp = m_loaded->grouping.groupOf[size_t(node)]; grp >= 0;
         grp = m_loaded->grouping.groups[size_t(grp)].parent)
        inside.prepend(QString::fromStdString(m_loaded->grouping.groups[size_t(grp)].label));
    m_findStatus = QString("%1 of %2").arg(m_findPos + 1).arg(m_findMatches.size());
    if (!inside.isEmpty())
        m_findStatus += QString(" (inside %1)").arg(inside.join(" › "));
    m_selectNotify = true;
    if (openAround(QString::fromStdString(g.nodes[size_t(node)].name)))
        rebuild(); // selected and centred when the new view is on screen
    else
        onViewShown();
    return node;
}

std::vector<std::string> GraphPanel::rewrittenBy(int node) const
{
    if (!m_loaded || node < 0 || node >= int(m_loaded->graph.nodes.size()))
        return {};
    const auto it = m_loaded->rewrittenBy.find(m_loaded->graph.nodes[size_t(node)].name);
    return it == m_loaded->rewrittenBy.end() ? std::vector<std::string> {} : it->second;
}

void GraphPanel::followEvent(std::shared_ptr<const storage::StoredRun> run, int event)
{
    if (!following() || !run || event < 0 || event >= int(run->sim.events.size()))
        return;
    const auto& e = run->sim.events[size_t(event)];
    if (e.graph.empty()) { // run-level: keep the graph, drop the outlines
        m_focus.clear();
        m_focusText = m_loaded
            ? QString("event %1 · %2: an event of the whole run, of no FX graph; %3 stays drawn, without outlines")
                  .arg(event + 1)
                  .arg(engine::runtime::eventKindName(e.kind), QString::fromStdString(m_loaded->graph.id))
            : QString("event %1 · %2: an event of the whole run, of no FX graph")
                  .arg(event + 1)
                  .arg(engine::runtime::eventKindName(e.kind));
        m_focusLine->setText(m_focusText.toHtmlEscaped());
        applyMarks();
        emit focusChanged();
        return;
    }
    const auto id = run->graphIds.find(e.graph);
    if (id == run->graphIds.end()) {
        // Another graph left on screen would pass for this one: the canvas is emptied.
        m_focus.clear();
        m_focusText = QString("event %1 · %2 was not imported into this project, so it cannot be drawn "
                              "(import the FX graph or the scenario it came from)")
                          .arg(event + 1)
                          .arg(QString::fromStdString(e.graph));
        m_focusLine->setText(m_focusText.toHtmlEscaped());
        ++m_generation; // a graph still being folded is no longer wanted
        m_graphId = -1;
        m_loaded.reset();
        m_current = {};
        m_view->setView(m_current);
        m_title->setText(QString("%1: no graph in the project").arg(QString::fromStdString(e.graph)));
        emit focusChanged();
        return;
    }
    m_pending = { run, event, {} };
    if (id->second != m_graphId) {
        loadGraph(id->second);
        return;
    }
    if (m_loaded) { // else the load under way applies it
        applyFocus();
        m_pending = {};
    }
}

void GraphPanel::applyFocus()
{
    const auto& run = m_pending.run;
    const int event = m_pending.event;
    const auto& e = run->sim.events[size_t(event)];
    m_focus = engine::runtime::eventFocus(m_loaded->graph, run->sim, event);
    // "event 17 · input update of graph_2 (decode) key {4}: copied x · kept w, kv"
    std::map<FocusRole, QStringList> byRole;
    for (const auto& f : m_focus)
        byRole[f.role] << QString::fromStdString(m_loaded->graph.nodes[size_t(f.node)].name);
    QString html = QString("event %1 · %2 of %3 (%4)")
                       .arg(event + 1)
                       .arg(QString(engine::runtime::eventKindName(e.kind)).replace('_', ' '))
                       .arg(QString::fromStdString(e.graph), QString::fromStdString(m_loaded->graph.id));
    if (!e.key.empty())
        html += QString(" key {%1}").arg(QString::fromStdString(e.key)).toHtmlEscaped();
    QString plain = html;
    for (const auto& [role, names] : byRole) {
        // Long lists (an update keeps every parameter) name the first few; the Inspector has all.
        constexpr int kNamed = 5;
        QString words = QString(engine::runtime::focusRoleName(role)) + " " + names.mid(0, kNamed).join(", ");
        if (names.size() > kNamed)
            words += QString(" and %1 more").arg(names.size() - kNamed);
        plain += " · " + words;
        html += QString(" · <span style=\"color:%1\"><b>%2</b></span>")
                    .arg(focusColor(role).name(), words.toHtmlEscaped());
    }
    m_focusText = plain;
    m_focusLine->setText(html);
    applyMarks();
    emit focusChanged();
}

void GraphPanel::applyMarks()
{
    std::map<int, FocusRole> items; // view item -> strongest role folded into it
    for (const auto& f : m_focus) {
        if (f.node < 0 || f.node >= int(m_current.itemOfNode.size()))
            continue;
        const int item = m_current.itemOfNode[size_t(f.node)];
        auto [it, fresh] = items.emplace(item, f.role);
        if (!fresh && rank(f.role) > rank(it->second))
            it->second = f.role;
    }
    std::vector<std::pair<int, QColor>> marks;
    std::set<FocusRole> shown;
    for (const auto& [item, role] : items) {
        marks.emplace_back(item, focusColor(role));
        shown.insert(role);
    }
    m_view->scene()->mark(marks);
    std::vector<graph::GraphViewWidget::LegendLine> legend;
    for (FocusRole role : graph::kFocusRoles)
        if (shown.count(role))
            legend.push_back({ graph::focusText(role), focusColor(role), true });
    m_view->setMarkLegend(legend);
}

QString GraphPanel::focusText() const
{
    return m_focusText;
}

bool GraphPanel::openAround(const QString& name)
{
    const int node = m_loaded->graph.find(name.toStdString());
    if (node < 0)
        return false;
    // Open every group around the node so that it is drawn on its own.
    bool opened = false;
    for (int g = m_loaded->grouping.groupOf[size_t(node)]; g >= 0; g = m_loaded->grouping.groups[size_t(g)].parent)
        opened |= m_expanded.insert(g).second;
    m_selectNode = node;
    return opened;
}

bool GraphPanel::selectNode(qlonglong graphId, const QString& name, bool notify)
{
    m_selectNotify = notify;
    if (graphId != m_graphId || !m_loaded) {
        m_pending = { nullptr, -1, name };
        if (graphId != m_graphId)
            loadGraph(graphId);
        return true; // selected when it arrives
    }
    if (m_loaded->graph.find(name.toStdString()) < 0)
        return false;
    if (openAround(name))
        rebuild(); // selected when the new view is on screen
    else if (!m_current.items.empty() && !m_view->layouter()->busy())
        onViewShown();
    return true;
}

} // namespace gui
