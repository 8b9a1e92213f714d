#include "engine/scenario/load.h"

#include "engine/cache/cache_artifact.h"
#include "engine/core/file_io.h"
#include "engine/ingest/source.h"
#include "engine/ingest/trace_groups.h"
#include "engine/ingest/trace_run.h"
#include "engine/readers/debug_dir.h"
#include "engine/readers/fx_reader.h"
#include "engine/readers/torch_trace.h"
#include "engine/readers/torchair_module.h"
#include "engine/scenario/log_scenario.h"
#include "engine/scenario/trace_scenario.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <set>

namespace engine::scenario {

namespace {

constexpr uint64_t kMaxGraphFileBytes = uint64_t(256) << 20;

std::string baseName(const std::string& path)
{
    std::string name = path.substr(path.find_last_of('/') + 1);
    const auto dot = name.find('.');
    return dot == 0 || dot == std::string::npos ? name : name.substr(0, dot);
}

} // namespace

namespace {

/// Symbols a graph's sizes and SymInt inputs use.
std::set<std::string> symbolsOf(const Graph& g)
{
    std::set<std::string> needed;
    for (const Node& n : g.nodes) {
        for (const TensorMeta& m : n.outputs)
            for (const auto* dims : { &m.shape, &m.stride })
                for (const SymExpr& d : *dims)
                    for (const std::string& sym : d.symbols())
                        needed.insert(sym);
        if (n.op == NodeOp::Placeholder && n.inputKind == InputKind::SymInt)
            for (const std::string& sym : n.symbol.symbols())
                needed.insert(sym);
    }
    return needed;
}

bool sameSettings(
    const std::vector<std::pair<std::string, PyValue>>& a, const std::vector<std::pair<std::string, PyValue>>& b)
{
    if (a.size() != b.size())
        return false;
    for (size_t i = 0; i < a.size(); ++i)
        if (a[i].first != b[i].first || a[i].second.repr() != b[i].second.repr())
            return false;
    return true;
}

/// A debug folder's graphs: per group, the generated module (its graph carries TorchAir's own input
/// classification and the last pass dump's metadata) or, without one, the last readable stage.
/// `cuda`: the groups are a CUDA run's (trace_scenario.h), which TorchAir's config does not run.
/// `dynamoInputs` (when given): per graph id, the placeholder names of its group's Dynamo graph.
Result<void> addGroupGraphs(Scenario& s, Result<readers::DebugDir>& dir, const std::string& path, bool cuda = false,
    std::map<std::string, std::vector<std::string>>* dynamoInputs = nullptr)
{
    for (const auto& d : dir->diagnostics)
        s.diagnostics.push_back(d.toString());
    bool configured = false;
    for (auto& group : dir->groups) {
        if (group.phase == "backward")
            continue; // inference only: the runtime never replays a backward graph
        for (const auto& d : group.diagnostics)
            s.diagnostics.push_back(d.toString());
        Graph g;
        if (group.module) {
            for (const auto& d : group.module->diagnostics)
                s.diagnostics.push_back(d.toString());
            if (!configured) {
                s.backend = group.module->backend;
                s.config = group.module->settings;
                configured = true;
            } else if (!sameSettings(group.module->settings, s.config)) {
                s.diagnostics.push_back(group.outputCode
                    + ": warning: its compile_configs differ from the first graph's; the first graph's are used");
            }
            g = std::move(group.module->graph);
        } else {
            int last = -1;
            for (size_t i = 0; i < group.stages.size(); ++i)
                if (group.stages[i].readable() && !group.stages[i].preAot)
                    last = int(i);
            if (last < 0) {
                s.diagnostics.push_back(group.directory + ": warning: no readable stage; the group is skipped");
                continue;
            }
            g = std::move(*group.stages[size_t(last)].graph);
            if (!cuda)
                s.diagnostics.push_back(group.stages[size_t(last)].path
                    + (group.backend == "inductor" ? ": note: this graph (" + group.stages[size_t(last)].pass
                                + ") is simulated with TorchAir's default config"
                                                   : ": note: no output_code.py; this last pass dump is simulated with "
                                                     "the default config"));
        }
        g.id = group.label().empty() ? "graph_" + std::to_string(s.graphs.size() + 1) : group.label();
        if (dynamoInputs)
            for (const auto& stage : group.stages)
                if (stage.preAot && stage.graph) {
                    auto& names = (*dynamoInputs)[g.id];
                    for (int i : stage.graph->placeholders())
                        names.push_back(stage.graph->nodes[size_t(i)].name);
                    break;
                }
        s.graphs.push_back(std::move(g));
    }
    if (s.graphs.empty())
        return makeError(ErrorCode::NotFound, "no forward graph with a readable stage in this folder", path);
    return {};
}

Result<void> addDebugDirGraphs(Scenario& s, const std::string& path)
{
    auto dir = readers::readDebugDir(path);
    if (!dir)
        return dir.error();
    return addGroupGraphs(s, dir, path);
}

/// A TORCH_TRACE's compile ids (engine/ingest/trace_groups.h); dynamic sizes take the hints the log
/// recorded (create_symbol) when the caller gave no value, each said in a note.
Result<void> addTraceGraphs(Scenario& s, const std::vector<readers::trace::TorchTrace>& traces, const std::string& path,
    SymbolValues& hinted, bool cuda, std::map<std::string, std::vector<std::string>>* dynamoInputs)
{
    for (const auto& t : traces)
        for (const auto& c : t.compiles)
            for (const auto& sym : c.symbols)
                if (sym.hint && !hinted.count(sym.symbol)) {
                    hinted[sym.symbol] = *sym.hint;
                    s.diagnostics.push_back(t.path + ":" + std::to_string(sym.place.line) + ": note: " + sym.symbol
                        + " = " + std::to_string(*sym.hint) + " (the value compile " + c.id.text() + " saw for "
                        + sym.source + ", from create_symbol); --symbols overrides it");
                }
    Result<readers::DebugDir> dir = ingest::traceGraphGroups(traces);
    if (dir->groups.empty())
        return makeError(ErrorCode::NotFound, "the trace holds no compile with a graph", path);
    return addGroupGraphs(s, dir, path, cuda, dynamoInputs);
}

/// Each call runs every graph once, in order (a model whose graph breaks split it in pieces), `calls`
/// times; or the calls of `callList`.
Result<void> addRounds(Scenario& s, const SymbolValues& symbols, int calls, bool requireSymbols,
    const std::string& callList, const std::string& path)
{
    std::vector<Call> round;
    for (const Graph& g : s.graphs) {
        const std::set<std::string> needed = symbolsOf(g);
        for (const std::string& sym : needed)
            if (!symbols.count(sym)) {
                if (requireSymbols)
                    return makeError(ErrorCode::InvalidArgument,
                        "graph '" + g.id + "' uses symbol " + sym
                            + ", and nothing in the whole file gives its value: give it, e.g. --symbols " + sym + "=4",
                        path);
                s.diagnostics.push_back(path + ": note: graph '" + g.id + "' uses symbol " + sym
                    + ", which has no value: figures that need its sizes (memory, bytes) are unknown; give it with "
                      "--symbols "
                    + sym + "=N");
            }
        Call c;
        c.graph = g.id;
        for (const auto& [name, value] : symbols)
            if (needed.count(name))
                c.symbols[name] = value;
        c.sourcePath = "(command line)";
        round.push_back(std::move(c));
    }
    for (int i = 0; i < std::max(1, calls); ++i)
        s.calls.insert(s.calls.end(), round.begin(), round.end());
    if (!callList.empty())
        return readCallList(s, callList);
    return {};
}

} // namespace

Result<Scenario> loadScenarioOrGraph(const std::string& path, const SymbolValues& givenSymbols, int calls,
    bool requireSymbols, const std::string& callList)
{
    auto detected = ingest::detectSource(path);
    if (!detected)
        return detected.error();
    using ingest::SourceKind;
    switch (detected->kind) {
    case SourceKind::Scenario: {
        auto s = readScenarioFile(path);
        if (s && s->log) {
            // A scenario of a log: its graphs and calls are built from the log; the file's own config
            // (later wins) and name apply on top.
            auto built = loadLogScenario(s->log->file, s->log->graphs, s->log->run, givenSymbols);
            if (!built)
                return built.error();
            for (auto& [name, value] : s->config) {
                auto same = std::find_if(built->config.begin(), built->config.end(),
                    [&name = name](const auto& kv) { return kv.first == name; });
                if (same != built->config.end())
                    same->second = value;
                else
                    built->config.emplace_back(name, value);
            }
            if (s->backend)
                built->backend = s->backend;
            built->path = path;
            if (!s->name.empty())
                built->name = s->name;
            built->log = s->log;
            if (!callList.empty())
                if (auto listed = readCallList(*built, callList); !listed)
                    return listed.error();
            return built;
        }
        if (!s || callList.empty())
            return s;
        if (auto listed = readCallList(*s, callList); !listed)
            return listed.error();
        return s;
    }
    case SourceKind::MemorySnapshot:
        return makeError(ErrorCode::InvalidArgument,
            "a memory snapshot (" + detected->evidence
                + ") is a recording, not a graph to simulate: open it with `snapshot`, or `import` it and step it "
                  "beside a simulation",
            path);
    case SourceKind::RunLog:
        return makeError(ErrorCode::InvalidArgument,
            "a run log (" + detected->evidence
                + ") is a recording, not a graph to simulate: `import` it and step it, set it beside a simulation "
                  "with `report LOG SCENARIO --compare`, or simulate the run it tells with `simulate LOG --graphs "
                  "SRC` (SRC: the job's debug folder, generated module, cache file or FX graph)",
            path);
    case SourceKind::CacheDir:
        return makeError(ErrorCode::InvalidArgument,
            "a TorchAir compile cache folder: `cache` reads it; simulate one of its compiled_module files", path);
    case SourceKind::Folder: {
        auto folder = ingest::examineFolder(path);
        std::string members;
        if (folder)
            for (size_t i = 0; i < folder->members.size() && i < 6; ++i)
                members += "\n  " + folder->members[i].path + " (" + ingest::sourceKindName(folder->members[i].detected.kind) + ")";
        return makeError(ErrorCode::InvalidArgument,
            "a folder holding several inputs: give one of them (`import` takes the whole folder):" + members, path);
    }
    default:
        break;
    }
    Scenario s;
    s.path = path;
    s.name = baseName(path);
    SymbolValues symbols = givenSymbols;
    if (detected->kind == SourceKind::DebugDir) {
        auto added = addDebugDirGraphs(s, path);
        if (!added)
            return added.error();
    } else if (detected->kind == SourceKind::TorchTrace) {
        auto traces = readers::trace::readTorchTraceDir(path);
        if (!traces)
            return traces.error();
        return loadTraceScenario(*traces, path, givenSymbols, calls, requireSymbols, callList);
    } else if (detected->kind == SourceKind::InductorCode) {
        auto dir = ingest::inductorCodeGroups(path);
        if (!dir)
            return dir.error();
        auto added = addGroupGraphs(s, dir, path);
        if (!added)
            return added.error();
    } else {
        auto text = readTextFile(path, kMaxGraphFileBytes, "graph files");
        if (!text)
            return text.error();
        Graph g;
        if (!text->empty() && static_cast<unsigned char>((*text)[0]) == 0x80) {
            // A pickle: a compile-cache file (compiled_module), whose py_code is the generated module.
            auto artifact = cache::readCacheArtifact(*text, path);
            if (!artifact)
                return artifact.error();
            if (!artifact->isArtifact)
                return makeError(ErrorCode::InvalidArgument,
                    "this pickle is no TorchAir cache file (its top object is " + artifact->topClass + ")", path);
            // moduleError names the file and the place in py_code ("FILE [py_code]:3:1: ...").
            if (!artifact->module && artifact->hasCompiledFx && !artifact->moduleError.empty())
                return makeError(ErrorCode::InvalidArgument,
                    artifact->moduleError + " (the cache file's py_code, TorchAir's generated module, does not read)");
            if (!artifact->module)
                return makeError(ErrorCode::InvalidArgument,
                    artifact->hasCompiledFx
                        ? "$.compiled_fx.py_code: our reader did not read it"
                        : "$.compiled_fx: the cache file has no compiled_fx (TorchAir would recompile it)",
                    path);
            for (const std::string& p : artifact->problems)
                s.diagnostics.push_back(path + ": warning: " + p);
            for (const auto& d : artifact->module->diagnostics)
                s.diagnostics.push_back(d.toString());
            s.backend = artifact->module->backend;
            s.config = artifact->module->settings;
            g = std::move(artifact->module->graph);
        } else if (readers::looksLikeTorchairModule(*text)) {
            // TorchAir's generated module carries its own configuration: use it, and its graph name.
            auto module = readers::readTorchairModule(*text, path);
            if (!module)
                return module.error();
            for (const auto& d : module->diagnostics)
                s.diagnostics.push_back(d.toString());
            s.backend = module->backend;
            s.config = module->settings;
            g = std::move(module->graph);
        } else {
            auto read = ingest::readGraphText(*text, path);
            if (!read)
                return read.error();
            if (read->graphs.empty())
                return makeError(ErrorCode::InvalidArgument, "the whole file holds no FX graph", path);
            for (const auto& d : read->diagnostics)
                s.diagnostics.push_back(d.toString());
            g = std::move(read->graphs.front());
            g.id = s.name;
        }
        s.graphs.push_back(std::move(g));
    }
    if (auto rounds = addRounds(s, symbols, calls, requireSymbols, callList, path); !rounds)
        return rounds.error();
    return s;
}

Result<Scenario> loadTraceScenario(const std::vector<readers::trace::TorchTrace>& traces, const std::string& path,
    const SymbolValues& givenSymbols, int calls, bool requireSymbols, const std::string& callList)
{
    Scenario s;
    s.path = path;
    s.name = baseName(path);
    SymbolValues symbols = givenSymbols;
    // A CUDA run: the scenario of that run (its runtime, config and calls), trace_scenario.h.
    const ingest::TraceRun run = ingest::readTraceRun(traces);
    const bool cuda = isCudaTraceRun(run);
    std::map<std::string, std::vector<std::string>> dynamoInputs;
    if (auto added = addTraceGraphs(s, traces, path, symbols, cuda, cuda ? &dynamoInputs : nullptr); !added)
        return added.error();
    auto made = cuda ? makeTraceRunScenario(s, traces, run, dynamoInputs, symbols, calls, callList)
                     : addRounds(s, symbols, calls, requireSymbols, callList, path);
    if (!made)
        return made.error();
    return s;
}

namespace {

struct KindSpec {
    std::vector<std::string> names;
    std::vector<std::pair<int, int>> positions; ///< inclusive ranges
    bool all = false;
    InputKind kind = InputKind::UserInput;
};

Result<KindSpec> parseKindSpec(const std::string& spec)
{
    const std::string where = "--input-kind " + spec;
    const size_t eq = spec.rfind('=');
    if (eq == std::string::npos || eq == 0)
        return makeError(ErrorCode::InvalidArgument, "expected SEL=KIND, e.g. arg0_1,#2-26=parameter", where);
    KindSpec k;
    const std::string kind = spec.substr(eq + 1);
    if (kind == "parameter")
        k.kind = InputKind::Parameter;
    else if (kind == "buffer")
        k.kind = InputKind::Buffer;
    else if (kind == "static_address")
        k.kind = InputKind::StaticAddress;
    else if (kind == "user_input")
        k.kind = InputKind::UserInput;
    else
        return makeError(ErrorCode::InvalidArgument,
            "unknown input kind '" + kind + "' (expected parameter, buffer, static_address or user_input)", where);
    std::string sel = spec.substr(0, eq);
    size_t start = 0;
    while (start <= sel.size()) {
        size_t comma = sel.find(',', start);
        if (comma == std::string::npos)
            comma = sel.size();
        const std::string item = sel.substr(start, comma - start);
        start = comma + 1;
        if (item.empty())
            return makeError(ErrorCode::InvalidArgument, "an empty selector", where);
        if (item == "*") {
            k.all = true;
        } else if (item[0] == '#') {
            const size_t dash = item.find('-');
            try {
                size_t used = 0;
                const int from = std::stoi(item.substr(1, dash == std::string::npos ? std::string::npos : dash - 1), &used);
                const int to = dash == std::string::npos ? from : std::stoi(item.substr(dash + 1));
                if (from < 0 || to < from)
                    throw std::out_of_range("range");
                k.positions.emplace_back(from, to);
            } catch (const std::exception&) {
                return makeError(ErrorCode::InvalidArgument, "'" + item + "' is no position (#N) or range (#N-M)", where);
            }
        } else {
            k.names.push_back(item);
        }
    }
    return k;
}

} // namespace

Result<void> checkInputKindSpec(const std::string& spec)
{
    auto k = parseKindSpec(spec);
    if (!k)
        return k.error();
    return {};
}

Result<int> applyInputKinds(Graph& g, const std::vector<std::string>& specs)
{
    int set = 0;
    for (const std::string& spec : specs) {
        auto k = parseKindSpec(spec);
        if (!k)
            return k.error();
        const std::vector<int> inputs = g.placeholders();
        for (size_t pos = 0; pos < inputs.size(); ++pos) {
            Node& n = g.nodes[size_t(inputs[pos])];
            if (n.inputKind == InputKind::SymInt)
                continue;
            bool chosen = std::find(k->names.begin(), k->names.end(), n.name) != k->names.end();
            for (const auto& [from, to] : k->positions)
                chosen = chosen || (int(pos) >= from && int(pos) <= to);
            chosen = chosen || (k->all && n.inputKindFrom.empty() && n.inputKind == InputKind::UserInput);
            if (!chosen)
                continue;
            n.inputKind = k->kind;
            n.inputKindFrom = "--input-kind " + spec;
            ++set;
        }
    }
    return set;
}

Result<void> applyInputKinds(Scenario& s, const std::vector<std::string>& specs)
{
    for (const std::string& spec : specs) {
        auto k = parseKindSpec(spec);
        if (!k)
            return k.error();
        for (const std::string& name : k->names) {
            bool found = false;
            for (const Graph& g : s.graphs) {
                const int i = g.find(name);
                found = found || (i >= 0 && g.nodes[size_t(i)].op == NodeOp::Placeholder);
            }
            if (!found)
                return makeError(ErrorCode::InvalidArgument, "no graph has an input named '" + name + "'",
                    "--input-kind " + spec);
        }
    }
    for (Graph& g : s.graphs)
        if (auto r = applyInputKinds(g, specs); !r)
            return r.error();
    return {};
}

std::vector<std::string> assumptionNotes(const Scenario& s)
{
    std::vector<std::string> out;
    for (const std::string& d : s.diagnostics)
        if (d.find(": note: assumed: ") != std::string::npos || d.find(": note: unknown: ") != std::string::npos)
            out.push_back(d);
    return out;
}

} // namespace engine::scenario
