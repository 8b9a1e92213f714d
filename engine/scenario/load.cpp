#include "engine/scenario/load.h"

#include "engine/cache/cache_artifact.h"
#include "engine/core/file_io.h"
#include "engine/readers/debug_dir.h"
#include "engine/readers/fx_reader.h"
#include "engine/readers/torchair_module.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <set>

namespace engine::scenario {

namespace {

constexpr uint64_t kMaxGraphFileBytes = uint64_t(256) << 20;

bool looksLikeJson(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    char c = 0;
    while (in.get(c))
        if (!std::isspace(static_cast<unsigned char>(c)))
            return c == '{';
    return false;
}

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
Result<void> addDebugDirGraphs(Scenario& s, const std::string& path)
{
    auto dir = readers::readDebugDir(path);
    if (!dir)
        return dir.error();
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
            s.diagnostics.push_back(group.stages[size_t(last)].path
                + ": note: no output_code.py; this last pass dump is simulated with the default config");
        }
        g.id = group.label().empty() ? "graph_" + std::to_string(s.graphs.size() + 1) : group.label();
        s.graphs.push_back(std::move(g));
    }
    if (s.graphs.empty())
        return makeError(ErrorCode::NotFound, "no forward graph with a readable stage in this folder", path);
    return {};
}

} // namespace

Result<Scenario> loadScenarioOrGraph(const std::string& path, const SymbolValues& symbols, int calls)
{
    std::error_code ec;
    const bool directory = std::filesystem::is_directory(path, ec);
    if (!directory && looksLikeJson(path))
        return readScenarioFile(path);
    Scenario s;
    s.path = path;
    s.name = baseName(path);
    if (directory) {
        auto added = addDebugDirGraphs(s, path);
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
            if (!artifact->module)
                return makeError(ErrorCode::InvalidArgument,
                    artifact->hasCompiledFx ? "its py_code does not read: " + artifact->moduleError
                                            : "the cache file has no compiled_fx (TorchAir would recompile it)",
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
            auto read = readers::readFxText(*text, path);
            if (!read)
                return read.error();
            if (read->graphs.empty())
                return makeError(ErrorCode::InvalidArgument, "the file holds no FX graph", path);
            for (const auto& d : read->diagnostics)
                s.diagnostics.push_back(d.toString());
            g = std::move(read->graphs.front());
            g.id = s.name;
        }
        s.graphs.push_back(std::move(g));
    }
    // Each call runs every graph once, in order (a model whose graph breaks split it in pieces).
    std::set<std::string> allNeeded;
    std::vector<Call> round;
    for (const Graph& g : s.graphs) {
        const std::set<std::string> needed = symbolsOf(g);
        for (const std::string& sym : needed)
            if (!symbols.count(sym))
                return makeError(ErrorCode::InvalidArgument,
                    "graph '" + g.id + "' uses symbol " + sym + ": give its value, e.g. --symbols " + sym + "=4", path);
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
    return s;
}

} // namespace engine::scenario
