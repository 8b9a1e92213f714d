// Simulating a file, or an imported source's file, and storing the run (simulate_source.h).
#include "storage/simulate_source.h"

#include "engine/config/setting_text.h"
#include "engine/ingest/source.h"
#include "engine/scenario/load.h"
#include "engine/scenario/log_scenario.h"
#include "storage/importer.h"
#include "storage/project_db.h"
#include "storage/resimulate.h"
#include "storage/store_util.h"

#include <filesystem>
#include <set>

namespace storage {

namespace {

using engine::config::Setting;

/// Symbols each graph uses that no call gives a value, with what they stand for where a
/// placeholder tells (a SymInt input first, else a dimension of a tensor input).
void neededSymbols(const engine::scenario::Scenario& s, SimulatableSource& out)
{
    std::set<std::string> given;
    for (const auto& c : s.calls)
        for (const auto& [name, value] : c.symbols)
            given.insert(name);
    std::set<std::string> needed;
    auto note = [&](const std::string& sym, const std::string& meaning, bool strong) {
        if (given.count(sym))
            return;
        needed.insert(sym);
        auto it = out.symbolMeanings.find(sym);
        if (it == out.symbolMeanings.end())
            out.symbolMeanings.emplace(sym, meaning);
        else if (strong)
            it->second = meaning;
    };
    for (const engine::Graph& g : s.graphs)
        for (const engine::Node& n : g.nodes) {
            const bool input = n.op == engine::NodeOp::Placeholder;
            if (input && n.inputKind == engine::InputKind::SymInt)
                for (const std::string& sym : n.symbol.symbols())
                    note(sym, "the SymInt input " + n.name, true);
            for (const engine::TensorMeta& m : n.outputs)
                for (size_t d = 0; d < m.shape.size(); ++d)
                    for (const std::string& sym : m.shape[d].symbols())
                        note(sym, input ? "dim " + std::to_string(d) + " of input " + n.name : "a size in the graph",
                            false);
        }
    out.symbols.assign(needed.begin(), needed.end());
}

/// Why a source of this kind cannot be simulated (empty when it may be, after reading).
std::string whyNot(const std::string& kind)
{
    using engine::ingest::SourceKind;
    if (kind == engine::ingest::sourceKindName(SourceKind::MemorySnapshot))
        return "a memory snapshot is a recording of what happened, not a graph to simulate: step its runs, or "
               "compare them with a simulation";
    if (kind == engine::ingest::sourceKindName(SourceKind::CacheDir))
        return "a TorchAir compile cache as a whole is not simulated: pick one of its entries (a compiled_module "
               "file) in the Project view";
    if (kind == engine::ingest::sourceKindName(SourceKind::Folder))
        return "a folder of several inputs: simulate one of them";
    return {};
}

/// Reads the file (symbols not required) to tell whether it simulates and which symbols it needs.
void examine(SimulatableSource& out)
{
    out.why = whyNot(out.kind);
    if (!out.why.empty())
        return;
    std::error_code ec;
    if (!std::filesystem::exists(out.path, ec)) {
        out.why = out.path + " is no longer there (moved or deleted since it was imported)";
        return;
    }
    auto scenario = engine::scenario::loadScenarioOrGraph(out.path, {}, 1, false);
    if (!scenario) {
        out.why = scenario.error().toString();
        return;
    }
    out.simulatable = true;
    neededSymbols(*scenario, out);
}

/// `sql`'s row for `id` (its last parameter, after `text` when given); NotFound naming `what` without one.
Result<Statement> selectOne(
    Database& db, const char* sql, int64_t id, const std::string& what, const char* text = nullptr)
{
    auto s = db.prepare(sql);
    if (!s)
        return s.error();
    if (text)
        s->bind(1, std::string(text));
    s->bind(text ? 2 : 1, id);
    auto row = s->step();
    if (!row)
        return row.error();
    if (!*row)
        return Error { ErrorCode::NotFound, "no " + what + " " + std::to_string(id) + " in the project", db.path() };
    return std::move(*s);
}

/// A row of (source id, path, kind) as a SimulatableSource, examined.
Result<SimulatableSource> describeRow(
    Database& db, const char* sql, int64_t id, const std::string& what, const char* kind = nullptr)
{
    auto s = selectOne(db, sql, id, what, kind);
    if (!s)
        return s.error();
    SimulatableSource out;
    out.sourceId = s->columnInt(0);
    out.path = s->columnText(1);
    out.kind = s->columnText(2);
    examine(out);
    return out;
}

Result<int64_t> firstInt(Database& db, const char* sql, int64_t id, const std::string& what)
{
    auto s = selectOne(db, sql, id, what);
    if (!s)
        return s.error();
    return s->columnInt(0);
}

/// The source's file still as imported: there, with the content hash it had.
Result<void> checkUnchanged(Database& db, int64_t sourceId)
{
    auto s = selectOne(db, "SELECT path, content_hash FROM sources WHERE id = ?", sourceId, "source");
    if (!s)
        return s.error();
    const std::string path = s->columnText(0);
    std::error_code ec;
    if (!std::filesystem::exists(path, ec))
        return Error { ErrorCode::NotFound,
            "the file of source " + std::to_string(sourceId) + " is no longer there (moved or deleted)", path };
    auto hash = contentHash(path);
    if (!hash)
        return hash.error();
    if (*hash != s->columnText(1))
        return Error { ErrorCode::InvalidArgument,
            "the file of source " + std::to_string(sourceId)
                + " changed since it was imported: import it again to simulate what it holds now",
            path };
    return {};
}

} // namespace

Result<SimulatedFile> simulateFile(const SimulateFileRequest& request)
{
    auto scenario = request.graphs.empty()
        ? engine::scenario::loadScenarioOrGraph(request.path, request.symbols, request.calls, true, request.callList)
        : engine::scenario::loadLogScenario(request.path, request.graphs, request.run, request.symbols);
    if (!scenario)
        return scenario.error();
    if (auto kinds = engine::scenario::applyInputKinds(*scenario, request.inputKinds); !kinds)
        return kinds.error();
    std::vector<Setting> overrides;
    for (const std::string& text : request.overrides) {
        auto s = engine::config::parseSetting(text);
        if (!s)
            return s.error();
        overrides.push_back(std::move(s.value()));
    }
    // TorchAir's own check first, so that the error names the option rather than the scenario's config.
    std::vector<Setting> settings = scenario->config;
    settings.insert(settings.end(), overrides.begin(), overrides.end());
    if (scenario->runtime == engine::scenario::Runtime::CudaGraphTrees) {
        if (auto options = engine::config::parseCudaOptions(settings); !options)
            return options.error();
    } else {
        const auto backend = scenario->backend ? *scenario->backend : engine::config::guessBackend(settings);
        if (auto options = engine::config::parseOptions(backend, settings); !options)
            return options.error();
    }

    SimulatedFile out;
    out.diagnostics = scenario->diagnostics;
    engine::runtime::SimulationOptions options;
    options.overrides = std::move(overrides);
    if (request.recordMemory) {
        out.timeline = std::make_unique<engine::runtime::MemoryTimeline>();
        options.observeMemory = [timeline = out.timeline.get()](const engine::runtime::Event& e,
                                    const engine::memory::DeviceAllocators& a) { timeline->observe(e.index, a); };
    }
    if (request.progress)
        options.progress = [&request](int done, int total) { return !request.progress(done, total); };
    auto sim = engine::runtime::simulate(*scenario, options);
    if (!sim)
        return sim.error();
    if (sim->cancelled)
        return Error { ErrorCode::Cancelled, "cancelled", request.path };
    out.sim = std::move(sim.value());
    for (std::string& note : engine::scenario::assumptionNotes(*scenario))
        out.sim.assumptions.push_back(std::move(note));
    return out;
}

Result<SimulateSourceResult> simulateSource(const SimulateSourceRequest& request)
{
    Database::OpenOptions existing;
    existing.create = false;
    auto db = openProject(request.dbPath, existing);
    if (!db)
        return db.error();
    auto source
        = request.cacheEntryId ? describeCacheEntry(*db, request.cacheEntryId) : describeSource(*db, request.sourceId);
    if (!source)
        return source.error();
    if (request.cacheEntryId && source->sourceId != request.sourceId && request.sourceId)
        return Error { ErrorCode::InvalidArgument,
            "cache entry " + std::to_string(request.cacheEntryId) + " is not of source "
                + std::to_string(request.sourceId),
            request.dbPath };
    if (auto r = checkUnchanged(*db, source->sourceId); !r)
        return r.error();
    if (!source->simulatable)
        return Error { ErrorCode::InvalidArgument, source->why, source->path };

    SimulateFileRequest file;
    file.path = source->path;
    file.overrides = request.overrides;
    file.symbols = request.symbols;
    file.calls = request.calls;
    file.inputKinds = request.inputKinds;
    file.progress = request.progress;
    auto simulated = simulateFile(file);
    if (!simulated)
        return simulated.error();
    auto id
        = storeSimulation(*db, source->path, simulated->sim, *simulated->timeline, request.overrides, source->sourceId);
    if (!id)
        return id.error();
    return SimulateSourceResult { *id, std::move(simulated->diagnostics) };
}

Result<SimulatableSource> describeSource(Database& db, int64_t sourceId)
{
    return describeRow(db, "SELECT id, path, kind FROM sources WHERE id = ?", sourceId, "source");
}

Result<SimulatableSource> describeCacheEntry(Database& db, int64_t entryId)
{
    auto out = describeRow(db, "SELECT source_id, path, ? FROM cache_entries WHERE id = ?", entryId, "cache entry",
        engine::ingest::sourceKindName(engine::ingest::SourceKind::CacheFile));
    if (out)
        out->cacheEntryId = entryId;
    return out;
}

Result<int64_t> sourceOfGraph(Database& db, int64_t graphId)
{
    return firstInt(db, "SELECT source_id FROM graphs WHERE id = ?", graphId, "graph");
}

Result<int64_t> sourceOfCacheEntry(Database& db, int64_t entryId)
{
    return firstInt(db, "SELECT source_id FROM cache_entries WHERE id = ?", entryId, "cache entry");
}

} // namespace storage
