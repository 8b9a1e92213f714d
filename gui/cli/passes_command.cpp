#include "engine/passes/pipeline.h"
#include "engine/readers/fx_code_writer.h"
#include "engine/scenario/load.h"
#include "gui/cli/cli_util.h"
#include "gui/cli/commands.h"

#include <nlohmann/json.hpp>

#include <ostream>

namespace gui::cli {

namespace {

using nlohmann::ordered_json;

std::string passesText(const engine::Graph& graph, const engine::passes::PipelineResult& r, bool verbose)
{
    std::string out = "graph " + graph.id + ": " + std::to_string(graph.nodes.size()) + " nodes\n";
    int n = 0;
    for (const auto& p : r.passes) {
        out += "\n" + std::to_string(++n) + ". " + p.name + (p.option.empty() ? "" : " (" + p.option + ")");
        if (!p.enabled) {
            out += ": disabled\n";
            continue;
        }
        out += ": " + std::to_string(p.nodesBefore) + " -> " + std::to_string(p.nodesAfter) + " nodes\n";
        for (const auto& w : p.rewritten)
            out += "   rewritten " + w.node + ": " + w.before + " -> " + w.after + "\n";
        for (const auto& s : p.removed)
            out += "   removed " + s + "\n";
        for (const auto& s : p.added)
            out += "   added " + s + "\n";
        for (const auto& s : p.skipped)
            out += "   skipped " + s.node + ": " + s.reason + "\n";
        if (p.peakBytesBefore || p.peakBytesAfter)
            out += "   memory: peak " + std::to_string(p.peakBytesBefore) + " -> " + std::to_string(p.peakBytesAfter)
                + " bytes, written by ops " + std::to_string(p.trafficBytesBefore) + " -> "
                + std::to_string(p.trafficBytesAfter) + " bytes\n";
        if (verbose)
            for (const auto& l : p.log)
                out += "   [DEBUG] " + l + "\n";
    }
    return out;
}

std::string passesJson(const engine::Graph& graph, const engine::passes::PipelineResult& r)
{
    ordered_json passes = ordered_json::array();
    for (const auto& p : r.passes) {
        ordered_json rewritten = ordered_json::array();
        for (const auto& w : p.rewritten)
            rewritten.push_back({ { "node", w.node }, { "before", w.before }, { "after", w.after } });
        ordered_json skipped = ordered_json::array();
        for (const auto& s : p.skipped)
            skipped.push_back({ { "node", s.node }, { "reason", s.reason } });
        passes.push_back({ { "name", p.name }, { "option", p.option }, { "enabled", p.enabled },
            { "rewritten", rewritten }, { "skipped", skipped }, { "removed", p.removed }, { "added", p.added },
            { "nodes_before", p.nodesBefore }, { "nodes_after", p.nodesAfter },
            { "peak_bytes_before", p.peakBytesBefore }, { "peak_bytes_after", p.peakBytesAfter },
            { "traffic_bytes_before", p.trafficBytesBefore }, { "traffic_bytes_after", p.trafficBytesAfter },
            { "log", p.log } });
    }
    ordered_json j = { { "format", "aclgraph-inspector-passes" }, { "version", 1 },
        { "graph", { { "id", graph.id }, { "nodes", graph.nodes.size() } } }, { "passes", passes } };
    return j.dump(2) + "\n";
}

} // namespace

int passesCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    const char* usage = "usage: aclgraph-inspector passes SCENARIO|GRAPH [--graph ID] [--set NAME=VALUE ...] "
                        "[--symbols s0=4,...] [--json] [--verbose] [--emit-code OUT] [-o FILE]\n";
    std::string path, graphId, emitPath, outPath;
    bool json = false, verbose = false;
    std::vector<std::pair<std::string, engine::PyValue>> overrides;
    engine::SymbolValues symbols;
    bool symbolsGiven = false;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        const bool hasValue = i + 1 < args.size();
        if (a == "--json") {
            json = true;
        } else if (a == "--verbose") {
            verbose = true;
        } else if ((a == "--set" || a == "--symbols" || a == "--graph" || a == "--emit-code" || a == "-o") && !hasValue) {
            err << "passes: " << a << " needs a value\n" << usage;
            return 2;
        } else if (a == "--set") {
            if (!parseSetting(args[++i], overrides, err, "passes"))
                return 2;
        } else if (a == "--symbols") {
            if (!parseSymbols(args[++i], symbols, err, "passes"))
                return 2;
            symbolsGiven = true;
        } else if (a == "--graph") {
            graphId = args[++i];
        } else if (a == "--emit-code") {
            emitPath = args[++i];
        } else if (a == "-o") {
            outPath = args[++i];
        } else if (!a.empty() && a[0] == '-') {
            err << "passes: unknown option " << a << "\n" << usage;
            return 2;
        } else if (path.empty()) {
            path = a;
        } else {
            err << usage;
            return 2;
        }
    }
    if (path.empty()) {
        err << usage;
        return 2;
    }
    auto scenario = engine::scenario::loadScenarioOrGraph(path, symbols, 1);
    if (!scenario) {
        err << "error: " << scenario.error().toString() << "\n";
        return 1;
    }
    for (const std::string& d : scenario->diagnostics)
        err << d << "\n";
    const engine::Graph* graph = graphId.empty() ? &scenario->graphs.front() : scenario->graph(graphId);
    if (!graph) {
        err << "error: " << path << ": no graph '" << graphId << "'\n";
        return 1;
    }
    // Sizes for the memory measurement: the scenario's first call of this graph unless given.
    if (!symbolsGiven)
        for (const auto& c : scenario->calls)
            if (c.graph == graph->id) {
                symbols = c.symbols;
                break;
            }
    auto settings = scenario->config;
    settings.insert(settings.end(), overrides.begin(), overrides.end());
    const auto backend = scenario->backend ? *scenario->backend : engine::config::guessBackend(settings);
    auto options = engine::config::parseOptions(backend, settings);
    if (!options) {
        err << "error: " << path << ": $.config." << options.error().context << ": " << options.error().message << "\n";
        return 1;
    }
    auto result = engine::passes::runReduceOverheadPasses(*graph, options.value(), symbols);
    if (!result) {
        err << "error: " << result.error().toString() << "\n";
        return 1;
    }
    if (!emitPath.empty()) {
        if (const int rc = writeResult(engine::readers::writeFxCode(result->stages.back()), emitPath, out, err))
            return rc;
    }
    return writeResult(json ? passesJson(*graph, *result) : passesText(*graph, *result, verbose), outPath, out, err);
}

} // namespace gui::cli
