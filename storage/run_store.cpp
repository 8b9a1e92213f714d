// Writing a simulation run into the project database (run_store.h). One prepared statement per
// table, rebound per row; every row counts in the WriteContext so a cancel stops at once.
#include "storage/run_store.h"

#include "engine/core/json_text.h"
#include "engine/report/simulation_report.h"
#include "storage/run_store_text.h"
#include "storage/store_util.h"

#include <algorithm>
#include <array>
#include <cinttypes>
#include <cstdio>
#include <ctime>
#include <unordered_map>

namespace storage {

using namespace engine::runtime;
using runtext::Json;

namespace runtext {

std::optional<engine::memory::PoolId> parsePool(const std::string& text)
{
    unsigned long long first = 0, second = 0;
    int end = 0;
    if (std::sscanf(text.c_str(), "(%llu, %llu)%n", &first, &second, &end) != 2 || size_t(end) != text.size())
        return std::nullopt;
    return engine::memory::PoolId { first, second };
}

std::string poolStatesJson(const std::vector<PoolCallState>& pools)
{
    std::string out = "[";
    for (const PoolCallState& p : pools) {
        out += out.size() > 1 ? ",{" : "{";
        field(out, "id", p.pool.str(), true);
        field(out, "block_num", p.blockNum);
        field(out, "activate_num", p.activateNum);
        field(out, "total_size", p.totalSize);
        field(out, "allocated_size", p.allocatedSize);
        out += ",\"segments\":[";
        for (size_t i = 0; i < p.segments.size(); ++i) {
            const auto& seg = p.segments[i];
            out += i ? ",{" : "{";
            field(out, "stream", seg.stream, true);
            field(out, "block_num", seg.blockNum);
            field(out, "activate_num", seg.activateNum);
            field(out, "total_size", seg.totalSize);
            field(out, "allocated_size", seg.allocatedSize);
            out += '}';
        }
        out += "]}";
    }
    return out + "]";
}

bool readPoolStates(const std::string& text, std::vector<PoolCallState>& out)
{
    const Json j = Json::parse(text, nullptr, false);
    if (!j.is_array())
        return false;
    try {
        for (const Json& p : j) {
            PoolCallState ps;
            auto pool = parsePool(p.at("id").get<std::string>());
            if (!pool)
                return false;
            ps.pool = *pool;
            ps.blockNum = p.at("block_num").get<int>();
            ps.activateNum = p.at("activate_num").get<int>();
            ps.totalSize = p.at("total_size").get<uint64_t>();
            ps.allocatedSize = p.at("allocated_size").get<uint64_t>();
            for (const Json& s : p.at("segments"))
                ps.segments.push_back(
                    { s.at("stream").get<int>(), s.at("block_num").get<int>(), s.at("activate_num").get<int>(),
                        s.at("total_size").get<uint64_t>(), s.at("allocated_size").get<uint64_t>() });
            out.push_back(std::move(ps));
        }
    } catch (const Json::exception&) {
        return false;
    }
    return true;
}

} // namespace runtext

namespace {

std::string utcNow()
{
    const std::time_t t = std::time(nullptr);
    std::tm tm {};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

std::string stringsJson(const std::vector<std::string>& items)
{
    std::string out = "[";
    for (size_t i = 0; i < items.size(); ++i) {
        if (i)
            out += ',';
        engine::appendJsonString(out, items[i]);
    }
    return out + "]";
}

std::string logJson(const std::vector<LogLine>& log)
{
    std::string out = "[";
    for (size_t i = 0; i < log.size(); ++i) {
        out += i ? ",{" : "{";
        runtext::field(out, "level", logLevelName(log[i].level), true);
        runtext::field(out, "text", log[i].text);
        runtext::field(out, "category", log[i].category);
        if (log[i].sourceLine > 0)
            out += ",\"line\":" + std::to_string(log[i].sourceLine);
        out += '}';
    }
    return out + "]";
}

std::string inputsJson(const std::vector<InputAction>& inputs)
{
    std::string out = "[";
    for (size_t i = 0; i < inputs.size(); ++i) {
        out += i ? ",{" : "{";
        runtext::field(out, "input", inputs[i].input, true);
        runtext::field(out, "action", inputs[i].action);
        runtext::field(out, "bytes", inputs[i].bytes);
        runtext::field(out, "detail", inputs[i].detail);
        out += '}';
    }
    return out + "]";
}

bool sameInputs(const std::vector<InputAction>& a, const std::vector<InputAction>& b)
{
    return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const InputAction& x, const InputAction& y) {
        return x.bytes == y.bytes && x.input == y.input && x.action == y.action && x.detail == y.detail;
    });
}

/// Runs the bound statement, readies it for the next row and counts the row.
Result<void> insert(Statement& s, WriteContext& ctx)
{
    auto r = s.run();
    s.reset();
    if (!r)
        return r.error();
    return ctx.row();
}

/// Prepares `INSERT INTO table VALUES (?, ?, ...)` with `columns` placeholders.
Result<Statement> prepareInsert(Database& db, const char* table, int columns)
{
    std::string sql = std::string("INSERT INTO ") + table + " VALUES (";
    for (int i = 0; i < columns; ++i)
        sql += i ? ", ?" : "?";
    return db.prepare(sql + ")");
}

int64_t i64(uint64_t v)
{
    return int64_t(v);
}

/// The runs row's counts over the run's graphs: captures, recaptures, replays, eager calls.
std::array<int, 4> graphTotals(const Simulation& sim)
{
    std::array<int, 4> t { 0, 0, 0, 0 };
    for (const GraphRecord& g : sim.graphs) {
        t[0] += g.captures;
        t[1] += g.recapturesMutatedInput + g.recapturesCoreLimit + g.recapturesForce;
        t[2] += g.replays;
        t[3] += g.eagerCalls;
    }
    return t;
}

/// Inserts the runs row with the summary counts of `sim` (its events, peaks and warnings: a
/// RunStreamWriter sets those again in end()).
Result<int64_t> insertRunRow(WriteContext& ctx, const Simulation& sim, const RunPlace& place, int keyframeInterval)
{
    const auto [captures, recaptures, replays, eager] = graphTotals(sim);
    auto s
        = ctx.db().prepare("INSERT INTO runs (source_id, scenario_path, scenario_name, created_at, backend, "
                           "profile, capacity_bytes, config, overrides, calls, events, captures, recaptures, "
                           "replays, eager_calls, hazards, peak_reserved, peak_allocated, out_of_memory, "
                           "cancelled, keyframe_interval, warnings, origin, recorded_as, allocator_settings, "
                           "capacity_known, categories, assumptions) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
                           "?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    if (!s)
        return s.error();
    if (place.sourceId)
        s->bind(1, *place.sourceId);
    s->bind(2, sim.scenarioPath.empty() ? std::string() : detail::absolutePath(sim.scenarioPath))
        .bind(3, sim.scenarioName)
        .bind(4, utcNow());
    const bool recorded = sim.origin.kind == engine::runtime::RunOriginKind::Recorded;
    s->bind(5, recorded ? std::string() : place.backend.empty() ? engine::runtime::runtimeName(sim) : place.backend);
    s->bind(6, std::string_view(engine::memory::profileName(sim.profile))).bind(7, i64(sim.capacityBytes));
    // A recording has no TorchAir config: its allocator settings go to allocator_settings.
    s->bind(8, recorded ? std::string("{}") : engine::report::simulationConfigJson(sim));
    s->bind(9, stringsJson(place.overrides));
    s->bind(10, int64_t(sim.callsSimulated)).bind(11, int64_t(sim.events.size())).bind(12, int64_t(captures));
    s->bind(13, int64_t(recaptures)).bind(14, int64_t(replays)).bind(15, int64_t(eager));
    s->bind(16, int64_t(sim.hazards.size())).bind(17, i64(sim.peakDeviceReserved));
    s->bind(18, i64(sim.peakDeviceAllocated)).bind(19, int64_t(sim.outOfMemory)).bind(20, int64_t(sim.cancelled));
    s->bind(21, int64_t(keyframeInterval)).bind(22, stringsJson(sim.warnings));
    s->bind(23, std::string_view(engine::runtime::runOriginKindName(sim.origin.kind))).bind(24, sim.origin.recordedAs);
    s->bind(25, runtext::pairsJson(sim.origin.allocatorSettings))
        .bind(26, int64_t(!recorded || sim.origin.capacityKnown))
        .bind(27, stringsJson(sim.categories))
        .bind(28, stringsJson(sim.assumptions));
    if (auto r = insert(*s, ctx); !r)
        return r.error();
    return ctx.db().lastInsertRowId();
}

} // namespace

namespace detail {

/// The rows of one run, one row at a time: each writer below binds and inserts one row (or one
/// event's changes) through a statement prepared on first use. writeRun (a whole run) and
/// RunStreamWriter (a run as it is delivered) both write through it, so both store the same rows.
class RunRows {
public:
    RunRows(WriteContext& ctx, int64_t runId)
        : m_ctx(ctx)
        , m_run(runId)
    {
    }

    /// What a run's header holds besides its runs row: graphs, pools, calls and hazards.
    Result<void> header(const Simulation& sim)
    {
        for (size_t i = 0; i < sim.graphs.size(); ++i)
            if (auto r = graph(int64_t(i), sim.graphs[i]); !r)
                return r;
        for (const PoolRecord& p : sim.pools)
            if (auto r = pool(p); !r)
                return r;
        for (const CallRecord& c : sim.calls)
            if (auto r = call(c); !r)
                return r;
        for (size_t i = 0; i < sim.hazards.size(); ++i)
            if (auto r = hazard(int64_t(i), sim.hazards[i]); !r)
                return r;
        return {};
    }

    Result<void> graph(int64_t pos, const GraphRecord& g)
    {
        return insertRow(Graphs, [&](Statement& s) {
            s.bind(1, m_run).bind(2, pos).bind(3, g.name).bind(4, g.id).bind(5, g.pool.str());
            s.bind(6, stringsJson(g.keys)).bind(7, stringsJson(g.allKeys)).bind(8, int64_t(g.captures));
            s.bind(9, int64_t(g.recapturesMutatedInput)).bind(10, int64_t(g.recapturesCoreLimit));
            s.bind(11, int64_t(g.recapturesForce)).bind(12, int64_t(g.replays)).bind(13, int64_t(g.eagerCalls));
            if (g.fallbackToEager)
                s.bind(14, int64_t(g.fallbackCall));
            s.bind(15, g.counters.empty() ? std::string("{}") : engine::jsonText(Json(g.counters), -1));
        });
    }

    Result<void> pool(const PoolRecord& pool)
    {
        return insertRow(Pools, [&](Statement& p) {
            p.bind(1, m_run).bind(2, pool.pool.str()).bind(3, stringsJson(pool.graphs)).bind(4, int64_t(pool.custom));
            p.bind(5, i64(pool.peakReserved)).bind(6, i64(pool.peakAllocated));
        });
    }

    Result<void> call(const CallRecord& c)
    {
        return insertRow(Calls, [&](Statement& s) {
            s.bind(1, m_run).bind(2, int64_t(c.index)).bind(3, c.graph).bind(4, c.graphId).bind(5, c.key);
            s.bind(6, std::string_view(callActionName(c.action))).bind(7, c.recaptureCause);
            s.bind(8, int64_t(c.inputsCopied)).bind(9, i64(c.bytesCopied)).bind(10, int64_t(c.outputsRebuilt));
            s.bind(11, i64(c.deviceReserved)).bind(12, i64(c.deviceAllocated)).bind(13, int64_t(c.firstEvent));
            s.bind(14, int64_t(c.eventCount)).bind(15, runtext::poolStatesJson(c.pools));
        });
    }

    Result<void> hazard(int64_t index, const Hazard& h)
    {
        return insertRow(Hazards, [&](Statement& s) {
            s.bind(1, m_run).bind(2, index).bind(3, std::string_view(hazardKindName(h.kind)));
            s.bind(4, int64_t(h.call)).bind(5, h.graph).bind(6, h.key).bind(7, h.concerns).bind(8, h.message);
            if (h.madeAtCall >= 0)
                s.bind(9, int64_t(h.madeAtCall));
        });
    }

    /// The event's row, and its input actions' run_input_sets row the first time that list appears.
    Result<void> event(const Event& e)
    {
        Statement *s = nullptr, *sets = nullptr;
        if (auto r = statement(Events, s); !r)
            return r;
        s->bind(1, m_run).bind(2, int64_t(e.index)).bind(3, int64_t(e.call));
        s->bind(4, std::string_view(eventKindName(e.kind))).bind(5, e.graph).bind(6, e.key).bind(7, e.summary);
        s->bind(8, logJson(e.log));
        if (!e.inputs.empty()) {
            // A replay's actions are nearly always those of the previous input update of the same
            // graph and key: compare with that first, and only build the JSON text when they differ.
            m_setKey.assign(e.graph).append(1, '\0').append(e.key);
            auto& last = m_lastSet.try_emplace(m_setKey, std::vector<InputAction> {}, -1).first->second;
            if (last.second < 0 || !sameInputs(last.first, e.inputs)) {
                std::string json = inputsJson(e.inputs);
                auto [it, added] = m_setIds.emplace(std::move(json), int64_t(m_setIds.size()));
                if (added) {
                    if (auto r = statement(InputSets, sets); !r)
                        return r;
                    sets->bind(1, m_run).bind(2, it->second).bind(3, std::string_view(it->first));
                    if (auto r = insert(*sets, m_ctx); !r)
                        return r;
                }
                last = { e.inputs, it->second };
            }
            s->bind(9, last.second);
        }
        if (e.hazard >= 0)
            s->bind(10, int64_t(e.hazard));
        s->bind(11, i64(e.deviceReserved)).bind(12, i64(e.deviceAllocated));
        if (e.timeUs >= 0)
            s->bind(13, int64_t(e.timeUs));
        if (!e.categoryBytes.empty())
            s->bind(14, runtext::numbersText(e.categoryBytes));
        return insert(*s, m_ctx);
    }

    Result<void> owner(int64_t index, const OwnerInfo& w)
    {
        return insertRow(Owners, [&](Statement& o) {
            o.bind(1, m_run).bind(2, index).bind(3, std::string_view(ownerKindName(w.kind)));
            o.bind(4, w.graph).bind(5, w.key).bind(6, w.tensor).bind(7, int64_t(w.call));
            o.bind(8, w.category).bind(9, w.stack).bind(10, w.evidence);
        });
    }

    /// One event's segment and block changes (the pools need no rows: a keyframe stands at every
    /// event that changed them). A removed segment or block is written with present = 0 and the
    /// columns' default values.
    Result<void> changes(const MemoryDelta& d)
    {
        Statement *seg = nullptr, *blk = nullptr;
        if (!d.segments.empty())
            if (auto r = statement(Segments, seg); !r)
                return r;
        if (!d.blocks.empty())
            if (auto r = statement(Blocks, blk); !r)
                return r;
        for (const auto& [address, s] : d.segments) {
            seg->bind(1, m_run).bind(2, int64_t(d.event)).bind(3, i64(address)).bind(4, int64_t(s ? 1 : 0));
            const MemoryState::Segment v = s.value_or(MemoryState::Segment {});
            seg->bind(5, s ? v.pool.str() : std::string()).bind(6, int64_t(v.stream)).bind(7, int64_t(v.small));
            seg->bind(8, i64(v.totalSize));
            if (auto r = insert(*seg, m_ctx); !r)
                return r;
        }
        for (const auto& [address, b] : d.blocks) {
            blk->bind(1, m_run).bind(2, int64_t(d.event)).bind(3, i64(address)).bind(4, int64_t(b ? 1 : 0));
            const MemoryState::Block v = b.value_or(MemoryState::Block {});
            blk->bind(5, i64(v.segment)).bind(6, i64(v.size)).bind(7, i64(v.requested));
            blk->bind(8, int64_t(v.allocated)).bind(9, v.owner);
            if (auto r = insert(*blk, m_ctx); !r)
                return r;
        }
        return {};
    }

    Result<void> keyframe(int event, const MemoryState& state)
    {
        return insertRow(
            Keyframes, [&](Statement& key) { key.bind(1, m_run).bind(2, int64_t(event)).bindBlob(3, state.encode()); });
    }

private:
    enum Table { Graphs, Pools, Calls, Events, InputSets, Hazards, Owners, Segments, Blocks, Keyframes, kTables };

    /// The INSERT of `table`, prepared the first time it is asked for.
    Result<void> statement(Table table, Statement*& out)
    {
        static constexpr struct {
            const char* name;
            int columns;
        } kInsert[kTables] = { { "run_graphs", 15 }, { "run_pools", 6 }, { "run_calls", 15 }, { "run_events", 14 },
            { "run_input_sets", 3 }, { "run_hazards", 9 }, { "run_owners", 10 }, { "run_segment_changes", 8 },
            { "run_block_changes", 9 }, { "run_keyframes", 3 } };
        std::optional<Statement>& s = m_statements[table];
        if (!s) {
            auto prepared = prepareInsert(m_ctx.db(), kInsert[table].name, kInsert[table].columns);
            if (!prepared)
                return prepared.error();
            s = std::move(prepared.value());
        }
        out = &*s;
        return {};
    }

    /// One row of `table`: `bind(statement)` binds its values, then it is inserted and counted.
    template <typename Bind> Result<void> insertRow(Table table, Bind&& bind)
    {
        Statement* s = nullptr;
        if (auto r = statement(table, s); !r)
            return r;
        bind(*s);
        return insert(*s, m_ctx);
    }

    WriteContext& m_ctx;
    int64_t m_run;
    std::optional<Statement> m_statements[kTables];
    // Each distinct list of input actions is stored once; events name it (event()).
    std::unordered_map<std::string, int64_t> m_setIds;
    /// Per graph and key, the last input update's actions and their set (-1: none yet).
    std::unordered_map<std::string, std::pair<std::vector<InputAction>, int64_t>> m_lastSet;
    std::string m_setKey;
};

} // namespace detail

Result<int64_t> writeRun(WriteContext& ctx, const Simulation& sim, const RunPlace& place, const MemoryTimeline* memory)
{
    auto id = insertRunRow(ctx, sim, place, memory ? memory->keyframeInterval() : 0);
    if (!id)
        return id.error();
    detail::RunRows rows(ctx, *id);
    if (auto r = rows.header(sim); !r)
        return r.error();
    for (const Event& e : sim.events)
        if (auto r = rows.event(e); !r)
            return r.error();
    for (size_t i = 0; i < sim.owners.size(); ++i)
        if (auto r = rows.owner(int64_t(i), sim.owners[i]); !r)
            return r.error();
    if (!memory)
        return *id;
    for (const MemoryDelta& d : memory->deltas())
        if (auto r = rows.changes(d); !r)
            return r.error();
    for (const auto& [event, state] : memory->keyframes())
        if (auto r = rows.keyframe(event, state); !r)
            return r.error();
    return *id;
}

RunStreamWriter::RunStreamWriter(WriteContext& ctx, RunPlace place)
    : m_ctx(ctx)
    , m_place(std::move(place))
{
}

RunStreamWriter::~RunStreamWriter() = default;

Result<void> RunStreamWriter::outOfOrder(const std::string& what) const
{
    return Error { ErrorCode::InvalidArgument, "run " + std::to_string(m_runId) + " streamed out of order: " + what,
        m_ctx.db().path() };
}

Result<void> RunStreamWriter::begin(const Simulation& header)
{
    if (m_rows)
        return outOfOrder("begin() called twice");
    if (!header.events.empty() || !header.owners.empty())
        return outOfOrder("the header holds events or owners (they come through step() and owner())");
    auto id = insertRunRow(m_ctx, header, m_place, m_memory ? KeyframeRule().interval() : 0);
    if (!id)
        return id.error();
    m_runId = *id;
    m_warnings = header.warnings;
    m_rows = std::make_unique<detail::RunRows>(m_ctx, m_runId);
    return m_rows->header(header);
}

Result<void> RunStreamWriter::owner(engine::memory::OwnerId id, const OwnerInfo& owner)
{
    if (!m_rows || m_ended)
        return outOfOrder("an owner outside begin() ... end()");
    if (id != m_owners)
        return outOfOrder("owner " + std::to_string(id) + " where owner " + std::to_string(m_owners) + " was due");
    ++m_owners;
    return m_rows->owner(id, owner);
}

Result<void> RunStreamWriter::step(const Event& event, const MemoryDelta& delta, const MemoryState* keyframe)
{
    if (!m_rows || m_ended)
        return outOfOrder("a step outside begin() ... end()");
    if (event.index != m_events || delta.event != event.index)
        return outOfOrder("event " + std::to_string(event.index) + " (changes of event " + std::to_string(delta.event)
            + ") where event " + std::to_string(m_events) + " was due");
    if (m_memory && m_events == 0 && !keyframe)
        return outOfOrder("the first step has no keyframe");
    ++m_events;
    if (auto r = m_rows->event(event); !r)
        return r;
    if (!m_memory)
        return {};
    if (auto r = m_rows->changes(delta); !r)
        return r;
    return keyframe ? m_rows->keyframe(event.index, *keyframe) : Result<void> {};
}

Result<void> RunStreamWriter::call(const CallRecord& call)
{
    if (!m_rows || m_ended)
        return outOfOrder("a call outside begin() ... end()");
    return m_rows->call(call);
}

Result<void> RunStreamWriter::summary(const Simulation& sim)
{
    if (!m_rows || m_ended)
        return outOfOrder("a summary outside begin() ... end()");
    Simulation header = sim;
    header.calls.clear(); // streamed through call()
    if (auto r = m_rows->header(header); !r)
        return r;
    const auto [captures, recaptures, replays, eager] = graphTotals(sim);
    auto s = m_ctx.db().prepare(
        "UPDATE runs SET scenario_name = ?, calls = ?, captures = ?, recaptures = ?, "
        "replays = ?, eager_calls = ?, hazards = ?, recorded_as = ?, assumptions = ? WHERE id = ?");
    if (!s)
        return s.error();
    s->bind(1, sim.scenarioName).bind(2, int64_t(sim.callsSimulated)).bind(3, int64_t(captures));
    s->bind(4, int64_t(recaptures)).bind(5, int64_t(replays)).bind(6, int64_t(eager));
    s->bind(7, int64_t(sim.hazards.size())).bind(8, sim.origin.recordedAs).bind(9, stringsJson(sim.assumptions));
    s->bind(10, m_runId);
    if (auto r = s->run(); !r)
        return r;
    m_warnings = sim.warnings;
    return {};
}

Result<void> RunStreamWriter::end(const RunTotals& totals)
{
    if (!m_rows || m_ended)
        return outOfOrder("end() without begin() or twice");
    if (totals.events != m_events)
        return outOfOrder(
            std::to_string(totals.events) + " events in the totals, " + std::to_string(m_events) + " streamed");
    m_warnings.insert(m_warnings.end(), totals.warnings.begin(), totals.warnings.end());
    auto s = m_ctx.db().prepare(
        "UPDATE runs SET events = ?, peak_reserved = ?, peak_allocated = ?, warnings = ? WHERE id = ?");
    if (!s)
        return s.error();
    s->bind(1, int64_t(m_events)).bind(2, i64(totals.peakReserved)).bind(3, i64(totals.peakAllocated));
    s->bind(4, stringsJson(m_warnings)).bind(5, m_runId);
    if (auto r = s->run(); !r)
        return r;
    m_ended = true;
    m_warnings.clear();
    return {};
}

} // namespace storage
