// Loading a report's inputs (report_inputs.h).
#include "gui/report/report_inputs.h"

#include "engine/core/text_codec.h"
#include "engine/ingest/run_log.h"
#include "engine/ingest/snapshot_hints.h"
#include "engine/ingest/source.h"
#include "engine/passes/pipeline.h"
#include "engine/readers/torch_trace.h"
#include "engine/scenario/load.h"
#include "engine/snapshot/snapshot_run.h"
#include "gui/graph/graph_layout.h"
#include "gui/graph/graph_svg.h"
#include "storage/cache_store.h"
#include "storage/graph_store.h"
#include "storage/project_db.h"
#include "storage/run_store.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

namespace gui::report {

using engine::ErrorCode;
using engine::makeError;
using engine::Result;
namespace fs = std::filesystem;

namespace {

/// The passes and the drawing of each FX graph a run simulated, `graphOf` giving the graph (or
/// null, with why) and `passesOf` its reports.
template <typename GraphOf, typename PassesOf> void addGraphs(LoadedRun& run, GraphOf graphOf, PassesOf passesOf)
{
    for (const engine::runtime::GraphRecord& g : run.sim.graphs) {
        std::string why;
        const engine::Graph* graph = graphOf(g, why);
        if (!graph) {
            run.notes[g.name] = why;
            continue;
        }
        auto reports = passesOf(g, *graph, why);
        if (!why.empty())
            run.notes[g.name] = why;
        auto drawing = drawGraph(*graph, reports);
        if (drawing)
            run.drawings[g.name] = std::move(drawing.value());
        else
            run.notes[g.name]
                += (run.notes[g.name].empty() ? "" : " ") + std::string("Not drawn: ") + drawing.error().message + ".";
        if (!reports.empty())
            run.passes[g.name] = std::move(reports);
    }
}

/// The project's cache entries as a scan of the project: the stored checks, log and key options.
LoadedCaches storedCaches(const std::string& path, const std::vector<storage::StoredCacheEntry>& stored)
{
    LoadedCaches c;
    c.source = path;
    c.fromProject = true;
    c.scan.root = path;
    c.scan.rootKind = "project";
    for (const storage::StoredCacheEntry& s : stored) {
        engine::cache::CacheEntry e;
        e.path = s.path;
        e.relativePath = s.relativePath.empty() ? s.path : s.relativePath;
        e.layoutKnown = s.layoutKnown;
        e.model = s.model;
        e.dist = s.dist;
        e.func = s.func;
        e.report.path = s.path;
        e.report.loader
            = s.backend == "npugraph_ex" ? engine::config::Backend::NpugraphEx : engine::config::Backend::TorchAir;
        e.report.checks = s.checks;
        e.report.loads = s.loads;
        e.report.log = s.log;
        e.report.readError
            = s.readError.value_or("the project keeps the checks, log and key options, not the file's contents");
        std::vector<std::string> options;
        for (const auto& [k, v] : s.options)
            options.push_back(k + "=" + v);
        c.entryOptions.push_back(std::move(options));
        c.scan.entries.push_back(std::move(e));
    }
    return c;
}

} // namespace

std::string traceAmong(const std::vector<std::string>& inputs)
{
    for (const std::string& other : inputs) {
        if (engine::endsWith(other, ".aclgi"))
            continue;
        auto detected = engine::ingest::detectSource(other);
        if (detected && detected->kind == engine::ingest::SourceKind::TorchTrace)
            return other;
    }
    return {};
}

Result<void> loadSnapshot(
    const std::string& path, LoadedInputs& into, const std::vector<engine::readers::trace::TorchTrace>* trace)
{
    auto snapshot = engine::snapshot::readSnapshotFile(path);
    if (!snapshot)
        return snapshot.error();
    engine::snapshot::SnapshotRunOptions options;
    engine::snapshot::SnapshotHints hints;
    if (trace) {
        hints = engine::ingest::snapshotHints(*trace);
        options.hints = &hints;
    }
    for (int device : engine::snapshot::snapshotDevices(*snapshot)) {
        auto run = engine::snapshot::snapshotAsRun(*snapshot, device, options);
        if (!run)
            return run.error();
        std::string label = run->sim.scenarioName;
        into.runs.push_back({ std::move(run->sim), std::move(label), {}, {}, {}, {} });
    }
    return {};
}

Result<void> loadRunLog(const std::string& path, LoadedInputs& into)
{
    auto log = engine::ingest::readRunLog(path);
    if (!log)
        return log.error();
    for (engine::ingest::LogRun& run : log->runs) {
        std::string label = run.sim.scenarioName;
        into.runs.push_back({ std::move(run.sim), std::move(label), {}, {}, {}, {} });
    }
    return {};
}

Result<engine::report::GraphDrawing> drawGraph(
    const engine::Graph& graph, const std::vector<engine::passes::PassReport>& reports)
{
    std::set<std::string> rewritten;
    for (const auto& r : reports)
        for (const auto& w : r.rewritten)
            rewritten.insert(w.node);
    const graph::FoldedGraph folded = graph::foldGraph(graph, rewritten);
    const graph::LayoutOptions options;
    auto layout = graph::layoutView(folded.view, options);
    if (!layout)
        return layout.error();
    engine::report::GraphDrawing d;
    d.nodes = int(graph.nodes.size());
    d.items = int(folded.view.items.size());
    for (const auto& item : folded.view.items)
        d.folded |= item.kind == engine::view::ViewItem::Kind::Group;
    d.svg = graph::drawViewSvg(folded.view, layout.value(), options);
    return d;
}

Result<void> loadProject(const std::string& path, const std::vector<int64_t>& only, LoadedInputs& into)
{
    storage::Database::OpenOptions readOnly;
    readOnly.readOnly = true;
    readOnly.create = false;
    auto db = storage::openProject(path, readOnly);
    if (!db)
        return db.error();
    auto list = storage::listRuns(*db);
    if (!list)
        return list.error();
    std::vector<storage::RunRow> rows;
    for (int64_t id : only) {
        auto row = std::find_if(list->begin(), list->end(), [id](const storage::RunRow& r) { return r.id == id; });
        if (row == list->end())
            return engine::makeError(engine::ErrorCode::NotFound, "no run " + std::to_string(id), path);
        rows.push_back(*row);
    }
    if (only.empty())
        rows = std::move(*list);
    std::map<int64_t, engine::Graph> graphs; // runs of one source share its graphs
    for (const storage::RunRow& row : rows) {
        auto run = storage::readRun(*db, row.id);
        if (!run)
            return run.error();
        const std::string name = row.scenarioName.empty() ? row.scenarioPath : row.scenarioName;
        LoadedRun& loaded = into.runs.emplace_back();
        loaded.sim = std::move(run->sim);
        loaded.label = "run " + std::to_string(row.id) + " · " + name;
        loaded.configJson = run->configJson;
        const auto& graphIds = run->graphIds;
        auto graphOf = [&](const engine::runtime::GraphRecord& g, std::string& why) -> const engine::Graph* {
            const auto id = graphIds.find(g.name);
            if (id == graphIds.end()) {
                why = "The project keeps no graph for " + g.name + " (the run's source was not imported).";
                return nullptr;
            }
            if (!graphs.count(id->second)) {
                auto read = storage::readGraph(*db, id->second);
                if (!read) {
                    why = "Graph " + std::to_string(id->second) + " cannot be read: " + read.error().toString();
                    return nullptr;
                }
                graphs.emplace(id->second, std::move(read.value()));
            }
            return &graphs.at(id->second);
        };
        auto passesOf = [&](const engine::runtime::GraphRecord& g, const engine::Graph&, std::string& why) {
            std::vector<engine::passes::PassReport> out;
            auto stored = storage::readPassReports(*db, graphIds.at(g.name));
            if (stored)
                for (auto& s : *stored)
                    out.push_back(std::move(s.report));
            if (out.empty())
                why = "The project keeps no pass reports for this graph (run the passes on it in the window).";
            return out;
        };
        addGraphs(into.runs.back(), graphOf, passesOf);
    }
    auto entries = storage::listCacheEntries(*db);
    if (!entries)
        return entries.error();
    if (!entries->empty())
        into.caches.push_back(storedCaches(path, *entries));
    return {};
}

Result<void> loadSimulated(const std::string& input, const std::vector<engine::config::Setting>& settings,
    LoadedInputs& into, const std::vector<engine::readers::trace::TorchTrace>* trace)
{
    auto scenario
        = trace ? engine::scenario::loadTraceScenario(*trace, input) : engine::scenario::loadScenarioOrGraph(input);
    if (!scenario)
        return scenario.error();
    const std::string name = scenario->name.empty() ? fs::path(input).filename().string() : scenario->name;
    const engine::scenario::Scenario& sc = scenario.value();
    // As `passes SCENARIO --graph ID` does: the run's options, sizes from the graph's first call.
    auto graphOf = [&sc](const engine::runtime::GraphRecord& g, std::string& why) {
        const engine::Graph* graph = sc.graph(g.id);
        if (!graph)
            why = "The scenario has no graph '" + g.id + "'.";
        return graph;
    };
    auto passesFor = [&sc](const engine::runtime::Simulation& sim) {
        return [&sc, &sim](const engine::runtime::GraphRecord& g, const engine::Graph& graph, std::string& why) {
            engine::SymbolValues symbols;
            for (const auto& c : sc.calls)
                if (c.graph == g.id) {
                    symbols = c.symbols;
                    break;
                }
            engine::passes::PassEnvironment env;
            env.userOps = sc.operators;
            auto result = engine::passes::runReduceOverheadPasses(graph, sim.options, symbols, env);
            if (!result) {
                why = "The passes failed: " + result.error().toString() + ".";
                return std::vector<engine::passes::PassReport>();
            }
            return std::move(result->passes);
        };
    };
    const std::vector<std::string> assumed = engine::scenario::assumptionNotes(sc);
    auto sim = engine::runtime::simulate(sc);
    if (!sim)
        return sim.error();
    sim->assumptions.insert(sim->assumptions.end(), assumed.begin(), assumed.end());
    into.runs.push_back({ std::move(sim.value()), name, {}, {}, {}, {} });
    addGraphs(into.runs.back(), graphOf, passesFor(into.runs.back().sim));
    if (settings.empty())
        return {};
    engine::runtime::SimulationOptions options;
    options.overrides = settings;
    auto other = engine::runtime::simulate(sc, options);
    if (!other)
        return other.error();
    other->assumptions.insert(other->assumptions.end(), assumed.begin(), assumed.end());
    std::string label = name + " [";
    for (size_t i = 0; i < settings.size(); ++i)
        label += (i ? ", " : "") + engine::config::settingText(settings[i]);
    into.runs.push_back({ std::move(other.value()), label + "]", {}, {}, {}, {} });
    addGraphs(into.runs.back(), graphOf, passesFor(into.runs.back().sim));
    return {};
}

Result<void> loadCache(const std::string& path, LoadedInputs& into)
{
    engine::cache::ScanOptions options;
    options.check.purpose = engine::cache::Purpose::Load;
    auto scan = engine::cache::scanCache(path, options);
    if (!scan)
        return scan.error();
    LoadedCaches c;
    c.source = path;
    c.scan = std::move(scan.value());
    into.caches.push_back(std::move(c));
    return {};
}

} // namespace gui::report
