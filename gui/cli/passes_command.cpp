#include "engine/core/json_text.h"
#include "engine/graph/graph_diff.h"
#include "engine/ingest/source.h"
#include "engine/passes/pipeline.h"
#include "engine/readers/debug_dir.h"
#include "engine/readers/fx_code_writer.h"
#include "engine/readers/torchair_module_writer.h"
#include "engine/report/passes_report.h"
#include "engine/scenario/load.h"
#include "gui/cli/cli_util.h"
#include "gui/cli/commands.h"

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
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
        if (!p.measured)
            out += "   memory: unknown (" + p.unmeasured + ")\n";
        else if (p.peakBytesBefore || p.peakBytesAfter)
            out += "   memory: peak " + std::to_string(p.peakBytesBefore) + " -> " + std::to_string(p.peakBytesAfter)
                + " bytes, written by ops " + std::to_string(p.trafficBytesBefore) + " -> "
                + std::to_string(p.trafficBytesAfter) + " bytes\n";
        if (verbose)
            for (const auto& l : p.log)
                out += "   [DEBUG] " + l + "\n";
    }
    if (verbose)
        for (const auto& l : r.finalLog)
            out += "[DEBUG] " + l + "\n";
    return out;
}

/// How our pass compares with the stage TorchAir dumped after the same pass (debug folders).
struct StageComparison {
    std::string pass; ///< ours
    std::string file; ///< TorchAir's dump, empty when it wrote none
    std::string verdict; ///< "agrees", "differs", "no dump", "disabled here", "dump unreadable"
    engine::GraphDiff diff; ///< ours (before) vs TorchAir's (after)
};

std::vector<StageComparison> compareWithDumps(
    const engine::readers::DebugGroup& group, const engine::passes::PipelineResult& r)
{
    std::vector<StageComparison> out;
    for (const auto& p : r.passes) {
        StageComparison c;
        c.pass = p.name;
        const engine::readers::DebugStage* dump = nullptr;
        for (const auto& st : group.stages)
            if (st.ourPass == p.name)
                dump = &st;
        if (dump)
            c.file = dump->file;
        if (!p.enabled || p.stage < 0)
            c.verdict = dump ? "TorchAir ran it, disabled here" : "disabled here and in TorchAir's dump";
        else if (!dump)
            c.verdict = "no dump: TorchAir did not run this pass";
        else if (!dump->readable())
            c.verdict = "dump unreadable";
        else {
            c.diff = engine::diffGraphs(r.stages[size_t(p.stage)], *dump->graph);
            c.verdict = c.diff.identical() ? "agrees" : "differs";
        }
        out.push_back(std::move(c));
    }
    return out;
}

std::string comparisonText(const engine::readers::DebugGroup& group, const std::vector<StageComparison>& cs)
{
    std::string out = "\ncompared with TorchAir's dumps in " + group.directory + ":\n";
    for (const auto& c : cs) {
        out += "  " + c.pass + ": " + c.verdict + (c.file.empty() ? "" : " (" + c.file + ")") + "\n";
        for (const auto& n : c.diff.removed)
            out += "     only in ours: " + n + "\n";
        for (const auto& n : c.diff.added)
            out += "     only in TorchAir's: " + n + "\n";
        for (const auto& n : c.diff.changed)
            out += "     ours -> TorchAir's: " + n.text() + "\n";
    }
    return out;
}

ordered_json comparisonJson(const std::vector<StageComparison>& cs)
{
    ordered_json a = ordered_json::array();
    for (const auto& c : cs) {
        ordered_json changed = ordered_json::array();
        for (const auto& n : c.diff.changed)
            changed.push_back(n.text());
        a.push_back({ { "pass", c.pass }, { "file", c.file.empty() ? ordered_json() : ordered_json(c.file) },
            { "verdict", c.verdict }, { "only_ours", c.diff.removed }, { "only_torchair", c.diff.added },
            { "changed", changed } });
    }
    return a;
}

/// `passes DIR`: the passes run on the group's first AOT stage (000) with the group's own config
/// (its output_code.py's compile_configs), and each result compared with TorchAir's dump after the
/// same pass.
struct DebugDirInput {
    engine::readers::DebugDir dir;
    size_t group = 0;
    engine::Graph graph;
    std::vector<std::pair<std::string, engine::PyValue>> settings;
    std::optional<engine::config::Backend> backend;
};

engine::Result<DebugDirInput> debugDirInput(const std::string& path, const std::string& model)
{
    auto dir = engine::readers::readDebugDir(path);
    if (!dir)
        return dir.error();
    DebugDirInput in;
    std::vector<size_t> candidates;
    for (size_t i = 0; i < dir->groups.size(); ++i) {
        const auto& g = dir->groups[i];
        if (g.phase == "backward")
            continue;
        if (model.empty() || g.label() == model || g.model == model)
            candidates.push_back(i);
    }
    if (candidates.empty())
        return engine::makeError(engine::ErrorCode::NotFound,
            model.empty() ? "no forward group in this folder" : "no group '" + model + "'", path);
    if (candidates.size() > 1)
        return engine::makeError(engine::ErrorCode::InvalidArgument,
            "the folder has " + std::to_string(candidates.size()) + " graphs: pick one with --graph (e.g. --graph "
                + dir->groups[candidates[0]].label() + ")",
            path);
    in.group = candidates[0];
    const auto& g = dir->groups[in.group];
    const engine::readers::DebugStage* first = nullptr;
    for (const auto& st : g.stages)
        if (!st.preAot && st.kind == engine::readers::DebugStage::Kind::FxCode && st.readable()) {
            first = &st;
            break;
        }
    if (!first)
        return engine::makeError(engine::ErrorCode::NotFound, "no readable AOT stage", g.directory);
    in.graph = *first->graph;
    in.graph.id = g.label();
    if (g.module) {
        in.settings = g.module->settings;
        in.backend = g.module->backend;
    }
    in.dir = std::move(dir.value());
    return in;
}

} // namespace

int passesCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    const char* usage
        = "usage: aclgraph-inspector passes SCENARIO|GRAPH|DEBUG_DIR [--graph ID] [--set NAME=VALUE ...] "
          "[--symbols s0=4,...] [--input-kind SEL=KIND ...] [--cann VERSION] [--json] [--verbose] [--emit-code OUT] "
          "[--emit-module OUT] [-o FILE]\n";
    std::string path, graphId, emitPath, modulePath, outPath;
    bool json = false, verbose = false;
    std::vector<std::pair<std::string, engine::PyValue>> overrides;
    engine::SymbolValues symbols;
    bool symbolsGiven = false;
    std::vector<std::string> inputKinds;
    engine::passes::PassEnvironment env;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        const bool hasValue = i + 1 < args.size();
        if (a == "--json") {
            json = true;
        } else if (a == "--verbose") {
            verbose = true;
        } else if ((a == "--set" || a == "--symbols" || a == "--graph" || a == "--emit-code" || a == "--emit-module"
                       || a == "-o" || a == "--cann")
            && !hasValue) {
            err << "passes: " << a << " needs a value\n" << usage;
            return 2;
        } else if (a == "--set") {
            if (!parseSetting(args[++i], overrides, err, "passes"))
                return 2;
        } else if (a == "--symbols") {
            if (!parseSymbols(args[++i], symbols, err, "passes"))
                return 2;
            symbolsGiven = true;
        } else if (a == "--input-kind") {
            if (!hasValue) {
                err << "passes: --input-kind needs SEL=KIND\n" << usage;
                return 2;
            }
            if (!checkInputKind(args[i + 1], err, "passes"))
                return 2;
            inputKinds.push_back(args[++i]);
        } else if (a == "--cann") {
            // The CANN version the passes' version checks compare with ("8.3.RC1", "9.0.0").
            env.cann = args[++i];
            if (env.cann.empty() || env.cann[0] < '0' || env.cann[0] > '9') {
                err << "passes: --cann needs a CANN version such as 8.3.RC1 or 9.0.0, not '" << env.cann << "'\n";
                return 2;
            }
        } else if (a == "--graph") {
            graphId = args[++i];
        } else if (a == "--emit-code") {
            emitPath = args[++i];
        } else if (a == "--emit-module") {
            modulePath = args[++i];
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
    std::optional<DebugDirInput> folder;
    std::optional<engine::scenario::Scenario> scenario;
    const engine::Graph* graph = nullptr;
    std::vector<std::pair<std::string, engine::PyValue>> settings;
    std::optional<engine::config::Backend> scenarioBackend;
    auto detected = engine::ingest::detectSource(path);
    if (!detected) {
        err << "error: " << detected.error().toString() << "\n";
        return 1;
    }
    if (detected->kind == engine::ingest::SourceKind::DebugDir) {
        auto in = debugDirInput(path, graphId);
        if (!in) {
            err << "error: " << in.error().toString() << "\n";
            return 1;
        }
        folder = std::move(in.value());
        graph = &folder->graph;
        // The user's own passes ran when TorchAir dumped their result: take it as their effect.
        for (const auto& st : folder->dir.groups[folder->group].stages)
            if ((st.pass == "post_grad_custom_pre_pass" || st.pass == "post_grad_custom_post_pass") && st.readable())
                env.userPassResults[st.pass] = *st.graph;
        settings = folder->settings;
        scenarioBackend = folder->backend;
    } else {
        auto loaded = engine::scenario::loadScenarioOrGraph(path, symbols, 1, false);
        if (!loaded) {
            err << "error: " << loaded.error().toString() << "\n";
            return 1;
        }
        scenario = std::move(loaded.value());
        for (const std::string& d : scenario->diagnostics)
            err << d << "\n";
        if (auto kinds = engine::scenario::applyInputKinds(*scenario, inputKinds); !kinds) {
            err << "passes: " << kinds.error().toString() << "\n";
            return 2;
        }
        graph = graphId.empty() ? &scenario->graphs.front() : scenario->graph(graphId);
        if (!graph) {
            std::string ids;
            for (const auto& g : scenario->graphs)
                ids += (ids.empty() ? "" : ", ") + g.id;
            err << "error: " << path << ": no graph '" << graphId << "' in the whole file (its graphs: " << ids
                << ")\n";
            return 1;
        }
        // Sizes for the memory measurement: the scenario's first call of this graph unless given.
        if (!symbolsGiven)
            for (const auto& c : scenario->calls)
                if (c.graph == graph->id) {
                    symbols = c.symbols;
                    break;
                }
        // TorchAir's passes take TorchAir's options; a CUDA Graph Trees run's are PyTorch's.
        if (scenario->runtime == engine::scenario::Runtime::CudaGraphTrees)
            err << path
                << ": note: a CUDA Graph Trees run: TorchAir's passes run on its graph with TorchAir's "
                   "default config (its PyTorch options are not TorchAir's)\n";
        else
            settings = scenario->config;
        scenarioBackend = scenario->backend;
        env.userOps = scenario->operators;
    }
    settings.insert(settings.end(), overrides.begin(), overrides.end());
    const auto backend = scenarioBackend ? *scenarioBackend : engine::config::guessBackend(settings);
    auto options = engine::config::parseOptions(backend, settings);
    if (!options) {
        err << "error: " << path << ": $.config." << options.error().context << ": " << options.error().message << "\n";
        return 1;
    }
    auto result = engine::passes::runReduceOverheadPasses(*graph, options.value(), symbols, env);
    if (!result) {
        err << "error: " << result.error().toString() << "\n";
        return 1;
    }
    if (!emitPath.empty()) {
        if (const int rc = writeResult(engine::readers::writeFxCode(result->stages.back()), emitPath, out, err))
            return rc;
    }
    if (!modulePath.empty()) {
        // The module TorchAir's codegen writes for the graph after its passes; mutated_user_inputs is
        // TorchAir's, computed on the graph before them (torchair-behavior.md §2.1 step 3).
        engine::readers::ModuleSpec spec;
        spec.backend = backend;
        spec.settings = settings;
        spec.mutatedUserInputs = graph->mutatedInputs();
        auto written = engine::readers::writeTorchairModule(result->stages.back(), spec);
        if (!written) {
            err << "error: " << modulePath << ": " << written.error().toString() << "\n";
            return 1;
        }
        if (const int rc = writeResult(written->text, modulePath, out, err))
            return rc;
    }
    if (!folder)
        return writeResult(json ? engine::report::passesJson(*graph, *result) : passesText(*graph, *result, verbose),
            outPath, out, err);
    const auto& group = folder->dir.groups[folder->group];
    const auto comparisons = compareWithDumps(group, *result);
    if (json) {
        auto j = ordered_json::parse(engine::report::passesJson(*graph, *result));
        j["torchair_dumps"] = comparisonJson(comparisons);
        return writeResult(engine::jsonText(j) + "\n", outPath, out, err);
    }
    return writeResult(passesText(*graph, *result, verbose) + comparisonText(group, comparisons), outPath, out, err);
}

} // namespace gui::cli
