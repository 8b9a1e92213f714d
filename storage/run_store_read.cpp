// Reading simulation runs back from the project database (run_store.h): the list, one run as a
// Simulation, and device memory at any event from the nearest keyframe.
#include "storage/run_store.h"
#include "storage/run_store_text.h"
#include "storage/store_util.h"

#include <algorithm>
#include <map>

namespace storage {

using namespace engine::runtime;
using runtext::Json;

bool detail::fromRunLog(std::string_view origin, std::string_view recordedAs)
{
    return origin == "recorded" && recordedAs.size() > 4 && recordedAs.substr(recordedAs.size() - 4) == " log";
}

namespace {

constexpr const char* kRunColumns
    = "id, source_id, scenario_path, scenario_name, created_at, backend, profile, calls, events, captures, "
      "recaptures, replays, eager_calls, hazards, peak_reserved, peak_allocated, capacity_bytes, out_of_memory, "
      "cancelled, origin, recorded_as, allocator_settings, capacity_known";

RunRow runRow(const Statement& s)
{
    RunRow r;
    r.id = s.columnInt(0);
    if (!s.columnIsNull(1))
        r.sourceId = s.columnInt(1);
    r.scenarioPath = s.columnText(2);
    r.scenarioName = s.columnText(3);
    r.createdAt = s.columnText(4);
    r.backend = s.columnText(5);
    r.profile = s.columnText(6);
    r.calls = int(s.columnInt(7));
    r.events = int(s.columnInt(8));
    r.captures = int(s.columnInt(9));
    r.recaptures = int(s.columnInt(10));
    r.replays = int(s.columnInt(11));
    r.eagerCalls = int(s.columnInt(12));
    r.hazards = int(s.columnInt(13));
    r.peakReserved = uint64_t(s.columnInt(14));
    r.peakAllocated = uint64_t(s.columnInt(15));
    r.capacityBytes = uint64_t(s.columnInt(16));
    r.outOfMemory = s.columnInt(17) != 0;
    r.cancelled = s.columnInt(18) != 0;
    r.origin.kind = s.columnText(19) == "recorded" ? RunOriginKind::Recorded : RunOriginKind::Simulated;
    r.origin.recordedAs = s.columnText(20);
    r.origin.log = detail::fromRunLog(s.columnText(19), r.origin.recordedAs);
    if (!runtext::readPairs(s.columnText(21), r.origin.allocatorSettings))
        r.origin.allocatorSettings.clear(); // a malformed list reads as none rather than failing the run
    r.origin.capacityKnown = r.origin.kind == RunOriginKind::Recorded && s.columnInt(22) != 0;
    return r;
}

/// Steps `s` to its end, handing each row to `row`, which returns an empty string or what is wrong
/// with the row (reported after `where`).
template <typename F> Result<void> forEachRow(Statement& s, Database& db, const std::string& where, F&& row)
{
    for (;;) {
        auto more = s.step();
        if (!more)
            return more.error();
        if (!*more)
            return {};
        if (std::string bad = row(s); !bad.empty())
            return Error { ErrorCode::ParseError, where + ": " + bad, db.path() };
    }
}

/// The rows of `sql`, whose one parameter is the run id.
template <typename F> Result<void> eachRow(Database& db, int64_t runId, const std::string& sql, F&& row)
{
    auto s = db.prepare(sql);
    if (!s)
        return s.error();
    s->bind(1, runId);
    return forEachRow(*s, db, "run " + std::to_string(runId), std::forward<F>(row));
}

std::vector<std::string> stringList(const std::string& text, bool& ok)
{
    const Json j = Json::parse(text, nullptr, false);
    std::vector<std::string> out;
    ok = j.is_array();
    for (size_t i = 0; ok && i < j.size(); ++i) {
        ok = j[i].is_string();
        if (ok)
            out.push_back(j[i].get<std::string>());
    }
    return out;
}

bool readLog(const std::string& text, std::vector<LogLine>& out)
{
    const Json j = Json::parse(text, nullptr, false);
    if (!j.is_array())
        return false;
    for (const Json& l : j) {
        if (!l.is_object() || !l.value("level", Json()).is_string())
            return false;
        auto level = runtext::parseName(l["level"].get<std::string>(), logLevelName, runtext::kLogLevels);
        if (!level)
            return false;
        const Json line = l.value("line", Json());
        out.push_back({ *level, l.value("text", std::string()), l.value("category", std::string()),
            line.is_number_integer() ? line.get<int>() : 0 });
    }
    return true;
}

bool readInputs(const std::string& text, std::vector<InputAction>& out)
{
    const Json j = Json::parse(text, nullptr, false);
    if (!j.is_array())
        return false;
    for (const Json& a : j) {
        if (!a.is_object())
            return false;
        out.push_back({ a.value("input", std::string()), a.value("action", std::string()),
            a.value("bytes", uint64_t(0)), a.value("detail", std::string()) });
    }
    return true;
}

Result<void> readGraphsAndPools(Database& db, int64_t runId, Simulation& sim)
{
    auto r = eachRow(db, runId,
        "SELECT name, graph, pool, keys, all_keys, captures, recaptures_mutated_input, recaptures_core_limit, "
        "recaptures_force, replays, eager_calls, fallback_call, counters FROM run_graphs WHERE run_id = ? "
        "ORDER BY pos",
        [&](const Statement& s) -> std::string {
            GraphRecord g;
            g.name = s.columnText(0);
            g.id = s.columnText(1);
            auto pool = runtext::parsePool(s.columnText(2));
            bool keysOk = false, allOk = false;
            g.keys = stringList(s.columnText(3), keysOk);
            g.allKeys = stringList(s.columnText(4), allOk);
            const Json counters = Json::parse(s.columnText(12), nullptr, false);
            if (!pool || !keysOk || !allOk || !counters.is_object())
                return "graph " + g.name + " is malformed";
            g.pool = *pool;
            g.captures = int(s.columnInt(5));
            g.recapturesMutatedInput = int(s.columnInt(6));
            g.recapturesCoreLimit = int(s.columnInt(7));
            g.recapturesForce = int(s.columnInt(8));
            g.replays = int(s.columnInt(9));
            g.eagerCalls = int(s.columnInt(10));
            g.fallbackToEager = !s.columnIsNull(11);
            g.fallbackCall = g.fallbackToEager ? int(s.columnInt(11)) : -1;
            for (const auto& [name, value] : counters.items())
                if (value.is_number_integer())
                    g.counters[name] = value.get<int64_t>();
            sim.graphs.push_back(std::move(g));
            return {};
        });
    if (!r)
        return r;
    r = eachRow(db, runId, "SELECT pool, graphs, custom, peak_reserved, peak_allocated FROM run_pools WHERE run_id = ?",
        [&](const Statement& s) -> std::string {
            PoolRecord p;
            auto pool = runtext::parsePool(s.columnText(0));
            bool ok = false;
            p.graphs = stringList(s.columnText(1), ok);
            if (!pool || !ok)
                return "pool " + s.columnText(0) + " is malformed";
            p.pool = *pool;
            p.custom = s.columnInt(2) != 0;
            p.peakReserved = uint64_t(s.columnInt(3));
            p.peakAllocated = uint64_t(s.columnInt(4));
            sim.pools.push_back(std::move(p));
            return {};
        });
    // Pools were made as their first graph compiled, and graphs are in compile order.
    auto firstGraph = [&](const PoolRecord& p) {
        for (size_t i = 0; i < sim.graphs.size(); ++i)
            if (!p.graphs.empty() && sim.graphs[i].name == p.graphs.front())
                return i;
        return sim.graphs.size();
    };
    std::stable_sort(sim.pools.begin(), sim.pools.end(), [&](const PoolRecord& a, const PoolRecord& b) {
        const size_t x = firstGraph(a), y = firstGraph(b);
        return x != y ? x < y : a.pool < b.pool;
    });
    return r;
}

Result<void> readCallsAndEvents(Database& db, int64_t runId, Simulation& sim)
{
    auto r = eachRow(db, runId,
        "SELECT idx, graph, graph_id, key, action, recapture_cause, inputs_copied, bytes_copied, outputs_rebuilt, "
        "device_reserved, device_allocated, first_event, event_count, pools FROM run_calls WHERE run_id = ? "
        "ORDER BY idx",
        [&](const Statement& s) -> std::string {
            CallRecord c;
            c.index = int(s.columnInt(0));
            c.graph = s.columnText(1);
            c.graphId = s.columnText(2);
            c.key = s.columnText(3);
            auto action = runtext::parseName(s.columnText(4), callActionName, runtext::kCallActions);
            if (!action || !runtext::readPoolStates(s.columnText(13), c.pools))
                return "call " + std::to_string(c.index) + " is malformed";
            c.action = *action;
            c.recaptureCause = s.columnText(5);
            c.inputsCopied = int(s.columnInt(6));
            c.bytesCopied = uint64_t(s.columnInt(7));
            c.outputsRebuilt = int(s.columnInt(8));
            c.deviceReserved = uint64_t(s.columnInt(9));
            c.deviceAllocated = uint64_t(s.columnInt(10));
            c.firstEvent = int(s.columnInt(11));
            c.eventCount = int(s.columnInt(12));
            sim.calls.push_back(std::move(c));
            return {};
        });
    if (!r)
        return r;
    std::map<int64_t, std::vector<InputAction>> inputSets;
    return eachRow(db, runId,
        "SELECT e.idx, e.call, e.kind, e.graph, e.key, e.summary, e.log, i.inputs, e.hazard, e.device_reserved, "
        "e.device_allocated, e.inputs_set, e.time_us, e.category_bytes FROM run_events e LEFT JOIN run_input_sets i ON i.run_id = "
        "e.run_id AND "
        "i.id = e.inputs_set WHERE e.run_id = ? ORDER BY e.idx",
        [&](const Statement& s) -> std::string {
            Event e;
            e.index = int(s.columnInt(0));
            e.call = int(s.columnInt(1));
            auto kind = runtext::parseName(s.columnText(2), eventKindName, runtext::kEventKinds);
            if (!kind || !readLog(s.columnText(6), e.log))
                return "event " + std::to_string(e.index) + " is malformed";
            if (!s.columnIsNull(11)) {
                // Parsed once per input set: thousands of replays share a few.
                auto cached = inputSets.find(s.columnInt(11));
                if (cached == inputSets.end()) {
                    std::vector<InputAction> inputs;
                    if (s.columnIsNull(7) || !readInputs(s.columnText(7), inputs))
                        return "event " + std::to_string(e.index) + " names input set "
                            + std::to_string(s.columnInt(11)) + ", which is missing or malformed";
                    cached = inputSets.emplace(s.columnInt(11), std::move(inputs)).first;
                }
                e.inputs = cached->second;
            }
            e.kind = *kind;
            e.graph = s.columnText(3);
            e.key = s.columnText(4);
            e.summary = s.columnText(5);
            e.hazard = s.columnIsNull(8) ? -1 : int(s.columnInt(8));
            e.deviceReserved = uint64_t(s.columnInt(9));
            e.deviceAllocated = uint64_t(s.columnInt(10));
            e.timeUs = s.columnIsNull(12) ? -1 : s.columnInt(12);
            if (!s.columnIsNull(13) && !runtext::readNumbers(s.columnText(13), e.categoryBytes))
                return "event " + std::to_string(e.index) + ": its bytes by category are malformed";
            sim.log.insert(sim.log.end(), e.log.begin(), e.log.end());
            sim.events.push_back(std::move(e));
            return {};
        });
}

Result<void> readHazardsAndOwners(Database& db, int64_t runId, Simulation& sim)
{
    auto r = eachRow(db, runId,
        "SELECT kind, call, graph, key, concerns, message, made_at_call FROM run_hazards WHERE run_id = ? "
        "ORDER BY idx",
        [&](const Statement& s) -> std::string {
            Hazard h;
            auto kind = runtext::parseName(s.columnText(0), hazardKindName, runtext::kHazardKinds);
            if (!kind)
                return "hazard " + std::to_string(sim.hazards.size()) + " has an unknown kind";
            h.kind = *kind;
            h.call = int(s.columnInt(1));
            h.graph = s.columnText(2);
            h.key = s.columnText(3);
            h.concerns = s.columnText(4);
            h.message = s.columnText(5);
            h.madeAtCall = s.columnIsNull(6) ? -1 : int(s.columnInt(6));
            sim.hazards.push_back(std::move(h));
            return {};
        });
    if (!r)
        return r;
    return eachRow(db, runId,
        "SELECT owner, kind, graph, key, tensor, call, category, stack, evidence FROM run_owners WHERE run_id = ? "
        "ORDER BY owner",
        [&](const Statement& s) -> std::string {
            OwnerInfo o;
            auto kind = runtext::parseName(s.columnText(1), ownerKindName, runtext::kOwnerKinds);
            if (!kind || s.columnInt(0) != int64_t(sim.owners.size()))
                return "owner " + std::to_string(s.columnInt(0)) + " is malformed";
            o.kind = *kind;
            o.graph = s.columnText(2);
            o.key = s.columnText(3);
            o.tensor = s.columnText(4);
            o.call = int(s.columnInt(5));
            o.category = s.columnText(6);
            o.stack = s.columnText(7);
            o.evidence = s.columnText(8);
            sim.owners.push_back(std::move(o));
            return {};
        });
}

Result<void> readGraphIds(Database& db, int64_t runId, std::map<std::string, int64_t>& out)
{
    // The simulator names a run's graphs by their scenario id (run_graphs.graph), which is not always
    // the imported graph's name: a graph file's is its base name (the import keeps the FX graph's
    // name), a debug folder's or TORCH_TRACE's is its group ("model__0/forward"). So, among the
    // source's graphs as imported (stage 0, not our passes' results): the simulated file's graph of
    // that name (a cache entry), else the graph of that name (a scenario's, output_code.py's
    // fx_graph_name); else the group's graph TorchAir's passes ran on (its first AOT stage), else its
    // first stage; else the simulated file's first graph (a graph file simulates its first).
    // A CUDA run's graphs are named by compile id ("0/1"; engine/scenario/trace_scenario.h), the
    // TORCH_TRACE's group by compile id and phase ("0/1/inference").
    const std::string group
        = "(g.grp = rg.graph OR g.grp = rg.graph || '/inference' OR g.grp = rg.graph || '/forward')";
    return eachRow(db, runId,
        "SELECT rg.name, g.id FROM run_graphs rg JOIN runs r ON r.id = rg.run_id "
        "JOIN graphs g ON g.source_id = r.source_id AND g.role <> 'pass_result' "
        "AND ((g.stage = 0 AND (g.name = rg.graph OR g.file = r.scenario_path)) OR "
            + group
            + ") "
              "WHERE rg.run_id = ? ORDER BY rg.name, CASE WHEN g.stage = 0 AND g.name = rg.graph AND "
              "g.file = r.scenario_path THEN 0 WHEN g.stage = 0 AND g.name = rg.graph THEN 1 "
              "WHEN "
            + group
            + " AND EXISTS (SELECT 1 FROM pass_reports p WHERE p.graph_id = g.id) THEN 2 "
              "WHEN "
            + group + " THEN 3 ELSE 4 END, g.stage, g.id",
        [&](const Statement& s) -> std::string {
            out.emplace(s.columnText(0), s.columnInt(1)); // the first row of each name is the best
            return {};
        });
}

/// A log names its graphs as the job did: PyTorch by compile id ("0/1"), TorchAir by its FX graph name
/// ("graph_2"). A log's own source has no graphs, so a graph the project holds from another source of
/// the same job joins it by that name: a TORCH_TRACE's group of the compile id ("0/1/inference"), or a
/// graph with that name (TorchAir's generated module names its graph by fx_graph_name); the newest
/// such source first. Names `out` has already are kept.
Result<void> readLogGraphIds(Database& db, int64_t runId, std::map<std::string, int64_t>& out)
{
    return eachRow(db, runId,
        "SELECT rg.name, g.id FROM run_graphs rg JOIN graphs g ON g.role <> 'pass_result' AND "
        "((g.stage = 0 AND g.name = rg.name) OR g.grp = rg.name || '/inference' OR g.grp = rg.name || '/forward') "
        "WHERE rg.run_id = ? AND rg.name <> '' ORDER BY rg.name, g.source_id DESC, g.stage, g.id",
        [&](const Statement& s) -> std::string {
            out.emplace(s.columnText(0), s.columnInt(1));
            return {};
        });
}

} // namespace

Result<std::vector<RunRow>> listRuns(Database& db)
{
    auto s = db.prepare(std::string("SELECT ") + kRunColumns + " FROM runs ORDER BY id");
    if (!s)
        return s.error();
    std::vector<RunRow> out;
    auto r = forEachRow(*s, db, "runs", [&out](const Statement& row) {
        out.push_back(runRow(row));
        return std::string();
    });
    if (!r)
        return r.error();
    return out;
}

Result<RunHeader> readRunHeader(Database& db, int64_t runId)
{
    auto s = detail::selectRun(db, runId, std::string(kRunColumns) + ", config, warnings, categories, assumptions");
    if (!s)
        return s.error();
    RunHeader header;
    header.row = runRow(*s);
    header.backend = header.row.backend == engine::config::backendName(engine::config::Backend::NpugraphEx)
        ? engine::config::Backend::NpugraphEx
        : engine::config::Backend::TorchAir;
    header.configJson = s->columnText(23);
    bool ok = false;
    header.warnings = stringList(s->columnText(24), ok);
    if (!ok)
        return Error { ErrorCode::ParseError, "run " + std::to_string(runId) + ": warnings are malformed", db.path() };
    header.categories = stringList(s->columnText(25), ok);
    if (!ok)
        return Error { ErrorCode::ParseError, "run " + std::to_string(runId) + ": categories are malformed", db.path() };
    header.assumptions = stringList(s->columnText(26), ok);
    if (!ok)
        return Error { ErrorCode::ParseError, "run " + std::to_string(runId) + ": assumptions are malformed",
            db.path() };
    return header;
}

Result<StoredRun> readRun(Database& db, int64_t runId)
{
    auto header = readRunHeader(db, runId);
    if (!header)
        return header.error();
    StoredRun run;
    run.sim.options.backend = header->backend;
    // A CUDA run (the settings as written are in configJson), or PyTorch's log of one.
    if (header->row.backend == "cuda_graph_trees"
        || (header->row.origin.log && header->row.origin.recordedAs.rfind("PyTorch", 0) == 0))
        run.sim.cuda = engine::config::CudaOptions {};
    run.row = std::move(header->row);
    run.configJson = std::move(header->configJson);
    Simulation& sim = run.sim;
    sim.warnings = std::move(header->warnings);
    sim.categories = std::move(header->categories);
    sim.assumptions = std::move(header->assumptions);
    sim.scenarioPath = run.row.scenarioPath;
    sim.scenarioName = run.row.scenarioName;
    sim.profile = run.row.profile == engine::memory::profileName(engine::memory::Profile::Cuda)
        ? engine::memory::Profile::Cuda
        : engine::memory::Profile::Npu;
    sim.origin = run.row.origin;
    sim.capacityBytes = run.row.capacityBytes;
    sim.peakDeviceReserved = run.row.peakReserved;
    sim.peakDeviceAllocated = run.row.peakAllocated;
    sim.outOfMemory = run.row.outOfMemory;
    sim.cancelled = run.row.cancelled;
    sim.callsSimulated = run.row.calls;
    if (auto r = readGraphsAndPools(db, runId, sim); !r)
        return r.error();
    if (auto r = readCallsAndEvents(db, runId, sim); !r)
        return r.error();
    if (auto r = readHazardsAndOwners(db, runId, sim); !r)
        return r.error();
    if (auto r = readGraphIds(db, runId, run.graphIds); !r)
        return r.error();
    if (sim.origin.log)
        if (auto r = readLogGraphIds(db, runId, run.graphIds); !r)
            return r.error();
    return run;
}

Result<std::vector<PoolSnapshot>> memoryAt(Database& db, int64_t runId, int event)
{
    const std::string what = "run " + std::to_string(runId) + " event " + std::to_string(event);
    auto run = detail::selectRun(db, runId, "events, keyframe_interval, origin, recorded_as");
    if (!run)
        return run.error();
    const int64_t events = run->columnInt(0);
    if (run->columnInt(1) <= 0) {
        const std::string as = run->columnText(3);
        if (detail::fromRunLog(run->columnText(2), as))
            return Error { ErrorCode::NotFound,
                "run " + std::to_string(runId) + " is a " + as + ": a log has no block-level memory; "
                    + (as.rfind("PyTorch", 0) == 0
                            ? "PyTorch's TORCH_LOGS tell no memory either (a memory snapshot of the same job does)"
                            : "TorchAir's DEBUG memory-state lines give each graph pool's segments, shown with each "
                              "call (Inspector) and in Compare"),
                db.path() };
        return Error { ErrorCode::NotFound, "run " + std::to_string(runId) + " was stored without its memory timeline",
            db.path() };
    }
    if (event < 0 || event >= events)
        return Error { ErrorCode::InvalidArgument,
            what + ": out of range (the run has " + std::to_string(events) + " events)", db.path() };

    auto key = db.prepare(
        "SELECT event, state FROM run_keyframes WHERE run_id = ? AND event <= ? ORDER BY event DESC LIMIT 1");
    if (!key)
        return key.error();
    key->bind(1, runId).bind(2, int64_t(event));
    auto hasKey = key->step();
    if (!hasKey)
        return hasKey.error();
    if (!*hasKey)
        return Error { ErrorCode::NotFound, what + ": no memory keyframe at or before it", db.path() };
    const int64_t keyEvent = key->columnInt(0);
    auto state = MemoryState::decode(key->columnBlob(1));
    if (!state)
        return Error { ErrorCode::ParseError,
            what + ": the keyframe at event " + std::to_string(keyEvent) + " is corrupt: " + state.error().message,
            db.path() };

    const std::string range = " WHERE run_id = ? AND event > ? AND event <= ? ORDER BY event, address";
    auto segs = db.prepare("SELECT address, present, pool, stream, small, total_size FROM run_segment_changes" + range);
    auto blocks = db.prepare(
        "SELECT address, present, segment, size, requested, allocated, owner FROM run_block_changes" + range);
    if (!segs || !blocks)
        return !segs ? segs.error() : blocks.error();
    segs->bind(1, runId).bind(2, keyEvent).bind(3, int64_t(event));
    blocks->bind(1, runId).bind(2, keyEvent).bind(3, int64_t(event));
    auto r = forEachRow(*segs, db, what, [&](const Statement& s) -> std::string {
        const uint64_t address = uint64_t(s.columnInt(0));
        if (!s.columnInt(1)) {
            state->segments.erase(address);
            return {};
        }
        auto pool = runtext::parsePool(s.columnText(2));
        if (!pool)
            return "a segment change names no pool";
        state->segments[address]
            = { *pool, engine::memory::StreamId(s.columnInt(3)), s.columnInt(4) != 0, uint64_t(s.columnInt(5)) };
        return {};
    });
    if (!r)
        return r.error();
    r = forEachRow(*blocks, db, what, [&](const Statement& s) -> std::string {
        const uint64_t address = uint64_t(s.columnInt(0));
        if (!s.columnInt(1))
            state->blocks.erase(address);
        else
            state->blocks[address] = { uint64_t(s.columnInt(2)), uint64_t(s.columnInt(3)), uint64_t(s.columnInt(4)),
                s.columnInt(5) != 0, s.columnInt(6) };
        return {};
    });
    if (!r)
        return r.error();
    return state->snapshot();
}

} // namespace storage
