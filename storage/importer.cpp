// Importing files and folders into a project: sniff the kind, hash the content, read everything with
// the engine's readers, then write it in one transaction (storage/importer.h).
#include "storage/importer.h"

#include "engine/cache/cache_scan.h"
#include "engine/config/options.h"
#include "engine/core/json_text.h"
#include "engine/core/md5.h"
#include "engine/ingest/run_log.h"
#include "engine/ingest/source.h"
#include "engine/ingest/trace_groups.h"
#include "engine/ingest/trace_run.h"
#include "engine/passes/pipeline.h"
#include "engine/readers/debug_dir.h"
#include "engine/readers/fx_reader.h"
#include "engine/readers/torch_trace.h"
#include "engine/readers/torchair_module.h"
#include "engine/scenario/load.h"
#include "engine/scenario/scenario.h"
#include "engine/scenario/trace_scenario.h"
#include "engine/snapshot/memory_snapshot.h"
#include "engine/snapshot/snapshot_run.h"
#include "engine/snapshot/snapshot_story.h"
#include "storage/cache_store.h"
#include "storage/graph_store.h"
#include "storage/import_hints.h"
#include "storage/project_db.h"
#include "storage/run_store.h"
#include "storage/store_util.h"
#include "storage/trace_store.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>

namespace storage {

namespace fs = std::filesystem;
using engine::Graph;

const char* statusName(SourceResult::Status s)
{
    static const char* names[] = { "imported", "duplicate", "failed", "cancelled", "skipped" };
    return names[int(s)];
}

namespace {

using engine::ingest::walkFiles;

std::string nowIso()
{
    const std::time_t t = std::time(nullptr);
    std::tm tm {};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

/// What importSource reports of one source: its phase, its rows and how far the phase is where it
/// tells (ImportProgress), that amount at most once per whole percent of its total.
class Reporter {
public:
    Reporter(const ImportOptions& options, size_t index, size_t count, const std::string& path)
        : m_options(options)
    {
        m_p.source = index;
        m_p.sources = count;
        m_p.path = path;
    }
    bool cancelled() const { return m_options.cancelled && m_options.cancelled(); }
    /// A new phase, with no amount so far: reported at once.
    void phase(const char* phase, int64_t rows = 0)
    {
        m_p.phase = phase;
        m_p.rows = rows;
        m_p.done = m_p.total = 0;
        m_p.unit.clear();
        m_percent = -1;
        send();
    }
    /// Rows written so far: reported now when the phase has no total, else with its next amount.
    void rows(int64_t rows)
    {
        m_p.rows = rows;
        if (m_p.unit.empty())
            send();
    }
    /// `done` of `total` `unit`s: reported when it reaches another whole percent. False once the
    /// import is cancelled.
    bool amount(uint64_t done, uint64_t total, const char* unit)
    {
        if (m_p.unit != unit) {
            m_p.unit = unit;
            m_percent = -1;
        }
        m_p.total = total;
        m_p.done = std::min(done, total);
        const int percent = total ? int(m_p.done * 100 / total) : 0;
        if (percent != m_percent) {
            m_percent = percent;
            send();
        }
        return !cancelled();
    }

private:
    void send()
    {
        if (m_options.progress)
            m_options.progress(m_p);
    }
    const ImportOptions& m_options;
    ImportProgress m_p;
    int m_percent = -1;
};

/// What was read from a source, before anything is written.
struct Payload {
    struct GraphItem {
        Graph graph;
        GraphPlace place;
        /// Run the passes on it with these options; none: store the graph alone.
        std::optional<engine::config::Options> passOptions;
        engine::SymbolValues symbols;
        /// The scenario's declared operators (custom schemas, registered in-placeable ops), if any.
        std::shared_ptr<const engine::UserOps> operators;
        /// What the passes did, computed before the transaction starts.
        std::optional<engine::passes::PipelineResult> passes;
    };
    std::vector<GraphItem> graphs;
    std::optional<engine::cache::CacheScan> cache;
    /// A memory snapshot as read: its runs, one per device, are replayed and written step by step
    /// inside the transaction (streamSnapshotRun into a RunStreamWriter), never held whole.
    struct SnapshotItem {
        std::shared_ptr<const engine::snapshot::Snapshot> snapshot;
        std::vector<int> devices; ///< snapshotDevices
        std::vector<engine::snapshot::PoolSummary> pools; ///< summarizePools, every device's
        /// The project's TORCH_TRACEs of the same run (import_hints.h); null when none.
        std::shared_ptr<const engine::snapshot::SnapshotHints> hints;
        std::vector<engine::snapshot::SnapshotStory> stories; ///< summarizePools', one per device
    };
    std::optional<SnapshotItem> snapshot;
    /// A scenario's run under its own config (ImportOptions::simulateScenarios), with its memory.
    struct RunItem {
        engine::runtime::Simulation sim;
        std::unique_ptr<engine::runtime::MemoryTimeline> memory;
        std::string backend;
    };
    std::vector<RunItem> runs;
    /// A TORCH_TRACE as read: its compiles and spans (trace_store.h).
    std::shared_ptr<const std::vector<engine::readers::trace::TorchTrace>> traces;
    /// A run log, read and written inside the transaction (writeLogRuns) in bounded memory.
    std::optional<std::string> logPath;
    std::vector<std::string> diagnostics;
};

std::vector<std::string> diagnosticTexts(const std::vector<engine::readers::Diagnostic>& ds)
{
    std::vector<std::string> out;
    out.reserve(ds.size());
    for (const auto& d : ds)
        out.push_back(d.toString());
    return out;
}

/// Default options of a backend for the passes, or the settings a module/scenario carries.
std::optional<engine::config::Options> passOptionsFor(std::optional<engine::config::Backend> backend,
    const std::vector<std::pair<std::string, engine::PyValue>>& settings, const std::string& path,
    std::vector<std::string>& diagnostics)
{
    const auto b = backend ? *backend : engine::config::guessBackend(settings);
    auto options = engine::config::parseOptions(b, settings);
    if (!options) {
        diagnostics.push_back(
            path + ": warning: passes not run: its config is invalid (" + options.error().message + ")");
        return std::nullopt;
    }
    return std::move(options.value());
}

Result<void> readGraphFile(const std::string& path, Payload& p, bool runPasses)
{
    auto read = engine::ingest::readGraphFile(path);
    if (!read)
        return read.error();
    if (read->graphs.empty())
        return Error { ErrorCode::InvalidArgument, "the whole file holds no FX graph", path };
    p.diagnostics = diagnosticTexts(read->diagnostics);
    std::optional<engine::config::Options> options;
    if (runPasses)
        options = passOptionsFor(std::nullopt, {}, path, p.diagnostics);
    for (Graph& g : read->graphs) {
        Payload::GraphItem item;
        item.place.group = path;
        item.place.file = path;
        item.place.role = "graph";
        item.passOptions = options;
        item.graph = std::move(g);
        p.graphs.push_back(std::move(item));
    }
    return {};
}

Result<void> readModuleFile(const std::string& path, Payload& p, bool runPasses)
{
    auto module = engine::readers::readTorchairModuleFile(path);
    if (!module)
        return module.error();
    p.diagnostics = diagnosticTexts(module->diagnostics);
    Payload::GraphItem item;
    item.place.group = path;
    item.place.file = path;
    item.place.role = "module";
    if (runPasses)
        item.passOptions = passOptionsFor(module->backend, module->settings, path, p.diagnostics);
    item.graph = std::move(module->graph);
    p.graphs.push_back(std::move(item));
    return {};
}

/// The scenario's run under its own config, with its memory, as a run of the source.
void simulateInto(const engine::scenario::Scenario& s, const std::string& path, Payload& p)
{
    auto memory = std::make_unique<engine::runtime::MemoryTimeline>();
    engine::runtime::SimulationOptions sim;
    sim.observeMemory = [&memory](const engine::runtime::Event& e, const engine::memory::DeviceAllocators& a) {
        memory->observe(e.index, a);
    };
    auto run = engine::runtime::simulate(s, sim);
    if (run) {
        for (std::string& note : engine::scenario::assumptionNotes(s))
            run->assumptions.push_back(std::move(note));
        const std::string backend = engine::runtime::runtimeName(run.value());
        p.runs.push_back({ std::move(run.value()), std::move(memory), backend });
    } else
        p.diagnostics.push_back(path + ": warning: not simulated: " + run.error().toString());
}

Result<void> readScenario(const std::string& path, Payload& p, bool runPasses, bool simulate)
{
    auto s = engine::scenario::readScenarioFile(path);
    if (s && s->log) // a scenario of a log: its graphs and calls are the log's run with the job's graphs
        s = engine::scenario::loadScenarioOrGraph(path, {}, 1, false);
    if (!s)
        return s.error();
    p.diagnostics = s->diagnostics;
    if (simulate)
        simulateInto(*s, path, p);
    std::optional<engine::config::Options> options;
    // TorchAir's passes belong to its runtime; a CUDA Graph Trees scenario's graphs are stored as they are.
    if (runPasses && s->runtime == engine::scenario::Runtime::Aclgraph)
        options = passOptionsFor(s->backend, s->config, path, p.diagnostics);
    for (Graph& g : s->graphs) {
        Payload::GraphItem item;
        item.place.group = path;
        item.place.file = path;
        item.place.role = "graph";
        item.passOptions = options;
        item.operators = s->operators;
        for (const auto& c : s->calls)
            if (c.graph == g.id) {
                item.symbols = c.symbols;
                break;
            }
        item.graph = std::move(g);
        p.graphs.push_back(std::move(item));
    }
    return {};
}

/// Groups of stages (a debug folder's, or a TORCH_TRACE's compile ids) into graph items.
void readGraphGroups(Result<engine::readers::DebugDir>& dir, Payload& p, bool runPasses)
{
    for (std::string& d : diagnosticTexts(dir->diagnostics))
        p.diagnostics.push_back(std::move(d));
    for (auto& group : dir->groups) {
        for (std::string& d : diagnosticTexts(group.diagnostics))
            p.diagnostics.push_back(std::move(d));
        const std::string label = group.label().empty() ? group.directory : group.label();
        // The passes run on the first AOT stage (TorchAir's input to them); their result stages
        // sit beside TorchAir's own dumps in the same group.
        bool passInput = runPasses;
        for (size_t i = 0; i < group.stages.size(); ++i) {
            auto& stage = group.stages[i];
            Payload::GraphItem item;
            item.place.group = label;
            item.place.stage = int(i);
            item.place.pass = stage.pass;
            item.place.file = stage.path;
            item.place.role = "stage";
            item.place.diagnostics = diagnosticTexts(stage.diagnostics);
            if (stage.graph) {
                item.graph = std::move(*stage.graph);
                if (passInput && !stage.preAot) {
                    item.passOptions
                        = passOptionsFor(group.module ? std::optional(group.module->backend) : std::nullopt,
                            group.module ? group.module->settings : decltype(group.module->settings) {}, stage.path,
                            p.diagnostics);
                    passInput = false;
                }
            } else {
                item.graph.id = stage.pass;
                item.place.error = stage.error ? stage.error->toString() : stage.note;
            }
            p.graphs.push_back(std::move(item));
        }
        if (group.module) {
            Payload::GraphItem item;
            item.place.group = label;
            item.place.stage = int(group.stages.size());
            item.place.pass = "output_code";
            item.place.file = group.outputCode;
            item.place.role = "module";
            item.place.diagnostics = diagnosticTexts(group.module->diagnostics);
            item.graph = std::move(group.module->graph);
            p.graphs.push_back(std::move(item));
        }
        if (group.inductorCode && group.inductorCode->graph) {
            // Inductor's output_code.py: its call() as a graph (the memory plan), beside the stages.
            Payload::GraphItem item;
            item.place.group = label;
            item.place.stage = int(group.stages.size());
            item.place.pass = "output_code";
            item.place.file = group.inductorCode->path;
            item.place.role = "module";
            item.place.diagnostics = diagnosticTexts(group.inductorCode->diagnostics);
            item.graph = std::move(*group.inductorCode->graph);
            p.graphs.push_back(std::move(item));
        }
    }
}

Result<void> readDebugFolder(const std::string& path, Payload& p, bool runPasses)
{
    auto dir = engine::readers::readDebugDir(path);
    if (!dir)
        return dir.error();
    readGraphGroups(dir, p, runPasses);
    return {};
}

/// A TORCH_TRACE log or folder: each compile id a group of its graphs (engine/ingest/trace_groups.h).
Result<void> readTrace(const std::string& path, Payload& p, bool runPasses, bool simulate, Reporter& reporter)
{
    engine::readers::trace::TraceReadOptions read;
    read.progress = [&](uint64_t done, uint64_t total) { return reporter.amount(done, total, "bytes"); };
    auto traces = engine::readers::trace::readTorchTraceDir(path, read);
    if (!traces)
        return traces.error();
    Result<engine::readers::DebugDir> dir = engine::ingest::traceGraphGroups(*traces);
    readGraphGroups(dir, p, runPasses);
    // A CUDA run's trace is also the scenario of that run (engine/scenario/trace_scenario.h): with
    // --simulate its simulation is stored beside the run's recordings, to compare with them.
    if (simulate && engine::scenario::isCudaTraceRun(engine::ingest::readTraceRun(*traces))) {
        auto s = engine::scenario::loadTraceScenario(*traces, path, {}, 2, false);
        if (s) {
            for (const std::string& d : s->diagnostics)
                p.diagnostics.push_back(d);
            simulateInto(*s, path, p);
        } else {
            p.diagnostics.push_back(path + ": warning: not simulated: " + s.error().toString());
        }
    }
    p.traces = std::make_shared<const std::vector<engine::readers::trace::TorchTrace>>(std::move(traces.value()));
    return {};
}

/// Inductor's output_code.py: its call() as a graph (engine/readers/inductor_code.h).
Result<void> readInductorCode(const std::string& path, Payload& p, bool runPasses)
{
    auto dir = engine::ingest::inductorCodeGroups(path);
    if (!dir)
        return dir.error();
    readGraphGroups(dir, p, runPasses);
    return {};
}

/// A memory snapshot, parsed: a run per device it has memory or a trace for, written later
/// (writeSnapshotRuns; engine/snapshot/snapshot_run.h).
Result<void> readMemorySnapshot(const std::string& path, Payload& p, Reporter& reporter)
{
    engine::snapshot::ReadOptions read;
    read.progress = [&](uint64_t done, uint64_t total) { return reporter.amount(done, total, "bytes"); };
    auto snapshot = engine::snapshot::readSnapshotFile(path, read);
    if (!snapshot)
        return snapshot.error();
    p.diagnostics = snapshot->warnings;
    Payload::SnapshotItem item;
    item.snapshot = std::make_shared<const engine::snapshot::Snapshot>(std::move(snapshot.value()));
    item.devices = engine::snapshot::snapshotDevices(*item.snapshot);
    if (item.devices.empty())
        p.diagnostics.push_back(path + ": warning: the snapshot holds no segment and no trace entry");
    p.snapshot = std::move(item); // summarized once its hints are known (summarizeSnapshot)
    return {};
}

/// A run log: read inside the transaction (writeLogRuns), streamed into the tables.
Result<void> readLogRuns(const std::string& path, Payload& p)
{
    p.logPath = path;
    return {};
}

/// One process of a run log written as it is read (engine::ingest::LogRunSink), through a
/// RunStreamWriter without a memory timeline.
class LogRunWriter : public engine::ingest::LogRunSink {
public:
    LogRunWriter(WriteContext& ctx, RunPlace place)
        : m_writer(ctx, std::move(place))
    {
        m_writer.withoutMemory();
    }
    Result<void> begin(const engine::runtime::Simulation& header) override { return m_writer.begin(header); }
    Result<void> step(const engine::runtime::Event& event) override
    {
        engine::runtime::MemoryDelta none;
        none.event = event.index;
        return m_writer.step(event, none, nullptr);
    }
    Result<void> call(const engine::runtime::CallRecord& call) override { return m_writer.call(call); }
    Result<void> end(const engine::ingest::LogRun& run, int events) override
    {
        if (auto r = m_writer.summary(run.sim); !r)
            return r;
        engine::runtime::RunTotals totals;
        totals.events = events;
        return m_writer.end(totals);
    }

private:
    RunStreamWriter m_writer;
};

/// The log's runs, one per process, streamed into the tables as the file is read: progress in bytes,
/// a cancel (from that progress or a tick of rows) rolls the source back; what the log could not
/// read is a diagnostic.
Result<void> writeLogRuns(
    WriteContext& ctx, int64_t sourceId, const std::string& path, Reporter& reporter, SourceResult& result)
{
    reporter.phase("reading the log");
    engine::ingest::RunLogOptions read;
    read.progress = [&](uint64_t done, uint64_t total) { return reporter.amount(done, total, "bytes"); };
    read.sinks = [&ctx, sourceId]() -> std::unique_ptr<engine::ingest::LogRunSink> {
        RunPlace place;
        place.sourceId = sourceId;
        return std::make_unique<LogRunWriter>(ctx, place);
    };
    auto log = engine::ingest::readRunLog(path, read);
    if (!log)
        return log.error();
    for (const std::string& note : log->notes)
        result.diagnostics.push_back(path + ": note: " + note);
    result.runs += int(log->runs.size());
    // Known only now: the source's row takes them.
    auto update = ctx.db().prepare("UPDATE sources SET diagnostics = ? WHERE id = ?");
    if (!update)
        return update.error();
    update->bind(1, std::string_view(engine::jsonText(nlohmann::json(result.diagnostics), -1))).bind(2, sourceId);
    return update->run();
}

/// Per-pool peaks and names, and each device's story (told with the hints of the project's
/// TORCH_TRACEs of the same run, once: the runs reuse it), before anything is written.
Result<void> summarizeSnapshot(Payload::SnapshotItem& item, Reporter& reporter)
{
    reporter.phase("summarizing");
    auto pools = engine::snapshot::summarizePools(
        *item.snapshot, [&](uint64_t done, uint64_t total) { return reporter.amount(done, total, "entries"); },
        item.hints.get(), &item.stories);
    if (!pools)
        return pools.error();
    item.pools = std::move(pools.value());
    return {};
}

/// The snapshot's runs, one per device, each replayed straight into the tables: progress in trace
/// entries over every device (a device without a trace counts as one), cancel between and within.
Result<void> writeSnapshotRuns(
    WriteContext& ctx, int64_t sourceId, const Payload::SnapshotItem& item, Reporter& reporter, SourceResult& result)
{
    const engine::snapshot::Snapshot& snapshot = *item.snapshot;
    auto entriesOf = [&snapshot](int device) {
        const size_t d = size_t(device);
        return uint64_t(std::max<size_t>(1, d < snapshot.deviceTraces.size() ? snapshot.deviceTraces[d].size() : 0));
    };
    uint64_t all = 0, before = 0;
    for (int device : item.devices)
        all += entriesOf(device);
    reporter.amount(0, all, "entries");
    for (int device : item.devices) {
        if (auto c = ctx.checkpoint(); !c)
            return c;
        const uint64_t entries = entriesOf(device);
        engine::snapshot::SnapshotRunOptions options;
        options.pools = &item.pools;
        options.hints = item.hints.get();
        for (const engine::snapshot::SnapshotStory& story : item.stories)
            if (story.device == device)
                options.story = &story;
        options.progress = [&](uint64_t done, uint64_t total) {
            return reporter.amount(before + (total ? std::min(done, total) * entries / total : 0), all, "entries");
        };
        RunPlace place;
        place.sourceId = sourceId;
        RunStreamWriter writer(ctx, place);
        if (auto r = engine::snapshot::streamSnapshotRun(snapshot, device, writer, options); !r)
            return r;
        if (!writer.ended())
            return Error { ErrorCode::Internal,
                "the run of device " + std::to_string(device) + " ended without its totals", snapshot.path };
        ++result.runs;
        before += entries;
        reporter.amount(before, all, "entries");
    }
    return {};
}

Result<Payload> readSource(SourceKind kind, const std::string& path, const ImportOptions& options, Reporter& reporter)
{
    Payload p;
    Result<void> r;
    switch (kind) {
    case SourceKind::FxGraph:
        r = readGraphFile(path, p, options.runPasses);
        break;
    case SourceKind::TorchairModule:
        r = readModuleFile(path, p, options.runPasses);
        break;
    case SourceKind::Scenario:
        r = readScenario(path, p, options.runPasses, options.simulateScenarios);
        break;
    case SourceKind::DebugDir:
        r = readDebugFolder(path, p, options.runPasses);
        break;
    case SourceKind::MemorySnapshot:
        r = readMemorySnapshot(path, p, reporter);
        break;
    case SourceKind::Folder:
        return Error { ErrorCode::InvalidArgument,
            "a folder holding several kinds of input: import it with importPaths, which takes each member on its own",
            path };
    case SourceKind::InductorCode:
        r = readInductorCode(path, p, options.runPasses);
        break;
    case SourceKind::TorchTrace:
        r = readTrace(path, p, options.runPasses, options.simulateScenarios, reporter);
        break;
    case SourceKind::RunLog:
        r = readLogRuns(path, p);
        break;
    case SourceKind::CacheFile:
    case SourceKind::CacheDir: {
        engine::cache::ScanOptions scan;
        if (options.cancelled)
            scan.progress = [&](size_t, size_t) { return !options.cancelled(); };
        auto read = engine::cache::scanCache(path, scan);
        if (!read)
            return read.error();
        p.cache = std::move(read.value());
        break;
    }
    }
    if (!r)
        return r.error();
    for (Payload::GraphItem& item : p.graphs) {
        if (!item.passOptions || item.place.error)
            continue;
        if (options.cancelled && options.cancelled())
            return Error { ErrorCode::Cancelled, "cancelled", path };
        engine::passes::PassEnvironment env;
        env.userOps = item.operators;
        auto passes = engine::passes::runReduceOverheadPasses(item.graph, *item.passOptions, item.symbols, env);
        if (passes)
            item.passes = std::move(passes.value());
        else
            p.diagnostics.push_back(item.place.file + ": warning: passes not run: " + passes.error().toString());
    }
    return p;
}

Result<void> writePayload(WriteContext& ctx, int64_t sourceId, Payload& p, Reporter& reporter, SourceResult& result)
{
    for (Payload::GraphItem& item : p.graphs) {
        item.place.sourceId = sourceId;
        auto id = writeGraph(ctx, item.graph, item.place);
        if (!id)
            return id.error();
        ++result.graphs;
        if (!item.passes)
            continue;
        auto reports = writePassReports(ctx, *id, *item.passes, item.passOptions->backend);
        if (!reports)
            return reports.error();
        result.passReports += int(reports->size());
        if (auto c = ctx.checkpoint(); !c)
            return c.error();
    }
    for (const Payload::RunItem& run : p.runs) {
        RunPlace place;
        place.sourceId = sourceId;
        place.backend = run.backend;
        auto id = writeRun(ctx, run.sim, place, run.memory.get());
        if (!id)
            return id.error();
        ++result.runs;
    }
    if (p.snapshot)
        if (auto r = writeSnapshotRuns(ctx, sourceId, *p.snapshot, reporter, result); !r)
            return r;
    if (p.traces)
        if (auto r = writeTraceCompiles(ctx, sourceId, *p.traces); !r)
            return r;
    if (p.logPath)
        if (auto r = writeLogRuns(ctx, sourceId, *p.logPath, reporter, result); !r)
            return r;
    if (p.cache) {
        auto ids = writeCacheScan(ctx, sourceId, *p.cache);
        if (!ids)
            return ids.error();
        result.cacheEntries = int(ids->size());
        for (const auto& e : p.cache->entries)
            if (e.report.artifact && e.report.artifact->module)
                ++result.graphs;
    }
    return {};
}

/// The kind and content of `path`. `tick`: how far the hash of a file is.
Result<std::pair<SourceKind, engine::ingest::Content>> examine(const std::string& path, const engine::ingest::HashTick& tick = {})
{
    auto detected = engine::ingest::detectSource(path);
    if (!detected)
        return detected.error();
    auto content = engine::ingest::contentHash(path, tick);
    if (!content)
        return content.error();
    return std::make_pair(detected->kind, std::move(content.value()));
}

} // namespace

Result<SourceKind> detectSourceKind(const std::string& path)
{
    auto d = engine::ingest::detectSource(path);
    if (!d)
        return d.error();
    return d->kind;
}

Result<std::string> contentHash(const std::string& path)
{
    auto c = engine::ingest::contentHash(path);
    if (!c)
        return c.error();
    return c->hash;
}

namespace {

/// importSource, with the traces the same importPaths call has read (`read`, may be null): a
/// snapshot takes its hints from them and the project, a trace imported here is added to them.
SourceResult importOne(Database& db, const std::string& givenPath, const ImportOptions& options, size_t index,
    size_t count, ReadTraces* read)
{
    const auto started = std::chrono::steady_clock::now();
    SourceResult result;
    result.path = detail::absolutePath(givenPath);
    const std::string& path = result.path;
    Reporter reporter(options, index, count, path);
    auto finish = [&](SourceResult::Status status, std::string message = {}) {
        result.status = status;
        result.message = std::move(message);
        result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        reporter.phase("done", result.rows);
        return result;
    };
    if (reporter.cancelled())
        return finish(SourceResult::Status::Cancelled, "cancelled");
    // The content hash (is it imported already?) reads a file whole: for a large one, say so.
    reporter.phase("hashing");
    std::error_code sizeError;
    const uint64_t fileSize = fs::is_regular_file(path, sizeError) ? fs::file_size(path, sizeError) : 0;
    auto examined
        = examine(path, [&](uint64_t bytes) { return reporter.amount(bytes, sizeError ? 0 : fileSize, "bytes"); });
    if (!examined) {
        const bool cancelled = examined.error().code == ErrorCode::Cancelled;
        return finish(cancelled ? SourceResult::Status::Cancelled : SourceResult::Status::Failed,
            cancelled ? "cancelled" : examined.error().toString());
    }
    reporter.phase("reading");
    const auto& [kind, content] = examined.value();
    result.kind = sourceKindName(kind);
    const std::string& hash = content.hash;
    {
        auto q = db.prepare("SELECT id, path FROM sources WHERE kind = ? AND content_hash = ?");
        if (!q)
            return finish(SourceResult::Status::Failed, q.error().toString());
        q->bind(1, std::string_view(result.kind)).bind(2, std::string_view(hash));
        auto row = q->step();
        if (!row)
            return finish(SourceResult::Status::Failed, row.error().toString());
        if (*row) {
            result.sourceId = q->columnInt(0);
            return finish(SourceResult::Status::Duplicate,
                "already imported as source " + std::to_string(result.sourceId) + " (" + q->columnText(1) + ")");
        }
    }
    auto payload = readSource(kind, path, options, reporter);
    if (!payload) {
        const bool cancelled = reporter.cancelled();
        return finish(cancelled ? SourceResult::Status::Cancelled : SourceResult::Status::Failed,
            cancelled ? "cancelled" : payload.error().toString());
    }
    if (payload->snapshot) {
        auto found = projectSnapshotHints(db, *payload->snapshot->snapshot, path, read, options.cancelled);
        if (!found) {
            const bool cancelled = found.error().code == ErrorCode::Cancelled;
            return finish(cancelled ? SourceResult::Status::Cancelled : SourceResult::Status::Failed,
                cancelled ? "cancelled" : found.error().toString());
        }
        payload->snapshot->hints = std::move(found->hints);
        for (std::string& d : found->diagnostics)
            payload->diagnostics.push_back(std::move(d));
        if (auto r = summarizeSnapshot(*payload->snapshot, reporter); !r) {
            const bool cancelled = reporter.cancelled() || r.error().code == ErrorCode::Cancelled;
            return finish(cancelled ? SourceResult::Status::Cancelled : SourceResult::Status::Failed,
                cancelled ? "cancelled" : r.error().toString());
        }
    }
    result.diagnostics = payload->diagnostics;

    reporter.phase("writing");
    auto tx = Transaction::begin(db);
    if (!tx)
        return finish(SourceResult::Status::Failed, tx.error().toString());
    WriteContext ctx(db, [&](int64_t rows) {
        reporter.rows(rows);
        return !reporter.cancelled();
    });
    auto insert = db.prepare("INSERT INTO sources(path, kind, size, content_hash, imported_at, diagnostics) "
                             "VALUES (?, ?, ?, ?, ?, ?)");
    if (!insert)
        return finish(SourceResult::Status::Failed, insert.error().toString());
    insert->bind(1, std::string_view(path))
        .bind(2, std::string_view(result.kind))
        .bind(3, int64_t(content.size))
        .bind(4, std::string_view(hash))
        .bind(5, std::string_view(nowIso()))
        .bind(6, std::string_view(engine::jsonText(nlohmann::json(result.diagnostics), -1)));
    if (auto r = insert->run(); !r)
        return finish(SourceResult::Status::Failed, r.error().toString());
    result.sourceId = db.lastInsertRowId();
    auto written = writePayload(ctx, result.sourceId, *payload, reporter, result);
    result.rows = ctx.rows() + 1;
    if (!written) {
        result.sourceId = 0;
        return finish(written.error().code == ErrorCode::Cancelled ? SourceResult::Status::Cancelled
                                                                   : SourceResult::Status::Failed,
            written.error().code == ErrorCode::Cancelled ? "cancelled" : written.error().toString());
    }
    if (auto r = tx->commit(); !r) {
        result.sourceId = 0;
        return finish(SourceResult::Status::Failed, r.error().toString());
    }
    if (read && payload->traces)
        (*read)[result.sourceId] = payload->traces;
    return finish(SourceResult::Status::Imported);
}

/// importOne, with any exception it lets out (a reader's std::bad_alloc, a std::exception, anything
/// else) turned into that source's failure: the Transaction's destructor has rolled its rows back by
/// the time the catch runs, so nothing of the source stays, and the next source goes on.
SourceResult importGuarded(
    Database& db, const std::string& path, const ImportOptions& options, size_t index, size_t count, ReadTraces* read)
{
    std::string why;
    try {
        return importOne(db, path, options, index, count, read);
    } catch (const std::bad_alloc&) {
        why = "out of memory while importing it (std::bad_alloc)";
    } catch (const std::exception& e) {
        why = std::string("an unexpected error stopped its import (") + e.what() + ")";
    } catch (...) {
        why = "an unexpected error of unknown type stopped its import";
    }
    SourceResult failed;
    failed.path = detail::absolutePath(path);
    failed.status = SourceResult::Status::Failed;
    failed.message = failed.path + ": " + why + "; nothing of it was kept, the other sources go on";
    return failed;
}

} // namespace

SourceResult importSource(
    Database& db, const std::string& path, const ImportOptions& options, size_t index, size_t count)
{
    return importGuarded(db, path, options, index, count, nullptr);
}

ProgressWords progressWords(const ImportProgress& p)
{
    if (p.total > 0 && p.unit == "bytes") {
        const bool mib = p.total >= (uint64_t(1) << 20);
        const uint64_t scale = mib ? uint64_t(1) << 20 : uint64_t(1) << 10;
        auto scaled = [scale](uint64_t bytes) { return std::to_string((bytes + scale / 2) / scale); };
        return { p.phase, scaled(p.done) + "/" + scaled(p.total) + (mib ? " MiB" : " KiB") };
    }
    if (p.total > 0)
        return { p.unit == "entries" && p.phase == "writing" ? "replaying" : p.phase,
            std::to_string(p.done * 100 / p.total) + "%" };
    if (p.rows <= 0)
        return { p.phase, {} };
    std::string digits = std::to_string(p.rows), rows;
    for (size_t i = 0; i < digits.size(); ++i) {
        if (i && (digits.size() - i) % 3 == 0)
            rows += ',';
        rows += digits[i];
    }
    return { p.phase, rows + " rows" };
}

Result<std::vector<SourceResult>> importPaths(
    const std::string& dbPath, const std::vector<std::string>& paths, const ImportOptions& options)
{
    auto db = openProject(dbPath);
    if (!db)
        return db.error();
    // A folder holding several kinds of input is imported member by member (engine/ingest); files
    // below it that are no input are listed as skipped, with why.
    std::vector<std::string> expanded;
    std::vector<SourceResult> results;
    for (const std::string& path : paths) {
        std::error_code ec;
        if (!fs::is_directory(path, ec)) {
            expanded.push_back(path);
            continue;
        }
        auto folder = engine::ingest::examineFolder(path);
        if (!folder || folder->detected.kind != SourceKind::Folder) {
            expanded.push_back(path); // its own kind, or its error, as one source
            continue;
        }
        for (const auto& m : folder->members)
            expanded.push_back(m.path);
        for (const std::string& why : folder->skipped) {
            SourceResult skipped;
            skipped.status = SourceResult::Status::Skipped;
            const size_t colon = why.find(": ");
            skipped.path = why.substr(0, colon);
            skipped.message = colon == std::string::npos ? std::string() : why.substr(colon + 2);
            results.push_back(std::move(skipped));
        }
    }
    // Memory snapshots last, whatever the order given: their owners are named with the hints of
    // the TORCH_TRACEs of the same run, those of this call included (import_hints.h). The results
    // keep the order of the paths.
    std::vector<size_t> order, snapshots;
    for (size_t i = 0; i < expanded.size(); ++i) {
        bool snapshot = false;
        try {
            auto d = engine::ingest::detectSource(expanded[i]);
            snapshot = d && d->kind == SourceKind::MemorySnapshot;
        } catch (...) {
            // importGuarded below reports what stops this source.
        }
        (snapshot ? snapshots : order).push_back(i);
    }
    order.insert(order.end(), snapshots.begin(), snapshots.end());
    std::vector<SourceResult> imported(expanded.size());
    ReadTraces read;
    for (size_t k = 0; k < order.size(); ++k) {
        const size_t i = order[k];
        if (k > 0 && options.cancelled && options.cancelled()) {
            imported[i].path = expanded[i];
            imported[i].status = SourceResult::Status::Cancelled;
            imported[i].message = "cancelled";
            continue;
        }
        imported[i] = importGuarded(*db, expanded[i], options, k, expanded.size(), &read);
    }
    for (SourceResult& r : imported)
        results.push_back(std::move(r));
    return results;
}

ImportJob::ImportJob(std::string dbPath, std::vector<std::string> paths, ImportOptions options)
{
    auto userCancelled = options.cancelled;
    options.cancelled = [this, userCancelled] { return m_cancel.load() || (userCancelled && userCancelled()); };
    m_thread = std::thread([this, dbPath = std::move(dbPath), paths = std::move(paths), options = std::move(options)] {
        try {
            m_result = std::make_unique<Result<std::vector<SourceResult>>>(importPaths(dbPath, paths, options));
        } catch (const std::exception& e) { // each source catches its own; this is the project's open
            m_result = std::make_unique<Result<std::vector<SourceResult>>>(
                Error { ErrorCode::Internal, std::string("the import stopped: ") + e.what(), dbPath });
        } catch (...) {
            m_result = std::make_unique<Result<std::vector<SourceResult>>>(
                Error { ErrorCode::Internal, "the import stopped on an unexpected error", dbPath });
        }
        m_done = true;
    });
}

ImportJob::~ImportJob()
{
    m_cancel = true;
    if (m_thread.joinable())
        m_thread.join();
}

Result<std::vector<SourceResult>> ImportJob::wait()
{
    if (m_thread.joinable())
        m_thread.join();
    return std::move(*m_result);
}

} // namespace storage
