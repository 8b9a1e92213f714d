// Two runs as rows of a comparison (run_compare.h). Each section collects (metric, A, B) with the
// values still as numbers where they are numbers, so that `differs` never depends on rounding in
// what is printed.
#include "engine/report/run_compare.h"

#include "engine/core/json_text.h"
#include "engine/report/cgt_steps.h"
#include "engine/report/simulation_report.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <utility>

namespace engine::report {

namespace {

using runtime::GraphRecord;
using runtime::PoolRecord;
using runtime::Simulation;

const char* const kNone = "—";

class RowBuilder {
public:
    explicit RowBuilder(RunComparison& out)
        : m_out(out)
    {
    }
    void section(const char* name) { m_section = name; }

    void text(const std::string& metric, const std::optional<std::string>& a, const std::optional<std::string>& b)
    {
        add(metric, a.value_or(kNone), b.value_or(kNone), a != b);
    }
    void count(const std::string& metric, std::optional<int64_t> a, std::optional<int64_t> b)
    {
        auto str = [](std::optional<int64_t> v) { return v ? std::to_string(*v) : std::string(kNone); };
        add(metric, str(a), str(b), a != b);
    }
    /// Bytes as MiB (below 1 MiB as bytes); exact bytes too when both round to the same text but differ.
    void bytes(const std::string& metric, std::optional<uint64_t> a, std::optional<uint64_t> b)
    {
        auto str = [](std::optional<uint64_t> v) {
            return !v ? std::string(kNone) : *v < (1u << 20) ? std::to_string(*v) + " B" : formatMiB(*v);
        };
        std::string x = str(a), y = str(b);
        if (a && b && *a != *b && x == y) {
            x += " (" + std::to_string(*a) + " B)";
            y += " (" + std::to_string(*b) + " B)";
        }
        add(metric, x, y, a != b);
    }

    CompareRow& last() { return m_out.rows.back(); }
    RunComparison& result() { return m_out; }

    /// A row whose difference the caller decides.
    void flagged(const std::string& metric, const std::string& a, const std::string& b, bool differs)
    {
        add(metric, a, b, differs);
    }

    /// A row that states something rather than compares: never differs.
    void note(const std::string& metric, const std::string& a, const std::string& b) { add(metric, a, b, false); }

private:
    void add(const std::string& metric, std::string a, std::string b, bool differs)
    {
        m_out.rows.push_back({ m_section, metric, std::move(a), std::move(b), differs });
        m_out.differing += differs ? 1 : 0;
    }
    RunComparison& m_out;
    std::string m_section;
};

using Settings = std::vector<std::pair<std::string, std::string>>;

/// A run read from a log (Simulation::origin.log): what a log does not tell is "not logged" there and
/// never counts as a difference.
bool fromLog(const Simulation& sim)
{
    return sim.origin.kind == RunOrigin::Recorded && sim.origin.log;
}

const char* const kNotLogged = "not logged";

/// What a run was: "recorded: memory snapshot (...)" or "simulated".
std::string originOf(const Simulation& sim)
{
    if (sim.origin.kind != RunOrigin::Recorded)
        return runtime::runOriginKindName(sim.origin.kind);
    return std::string("recorded") + (sim.origin.recordedAs.empty() ? "" : ": " + sim.origin.recordedAs);
}

void compareConfig(
    RowBuilder& rows, const Simulation& a, const Simulation& b, const Settings& configA, const Settings& configB)
{
    rows.section("config");
    const bool aRecorded = a.origin.kind == RunOrigin::Recorded, bRecorded = b.origin.kind == RunOrigin::Recorded;
    rows.text("origin", originOf(a), originOf(b));
    auto backend = [](const Simulation& sim, bool recorded) {
        return recorded ? std::optional<std::string>() : std::optional<std::string>(runtime::runtimeName(sim));
    };
    rows.text("backend", backend(a, aRecorded), backend(b, bRecorded)); // the runtime, for CUDA Graph Trees
    // A recording's config is its allocator's settings; a simulation's, its TorchAir options.
    const Settings& x = aRecorded ? a.origin.allocatorSettings : configA;
    const Settings& y = bRecorded ? b.origin.allocatorSettings : configB;
    if (aRecorded != bRecorded) {
        // Nothing to compare: each side's settings are stated beside what the other did not have.
        for (const auto& [name, value] : x)
            rows.note(name, value, aRecorded ? "not simulated" : "not recorded");
        for (const auto& [name, value] : y)
            rows.note(name, bRecorded ? "not simulated" : "not recorded", value);
        return;
    }
    std::vector<std::string> names;
    for (const auto* config : { &x, &y })
        for (const auto& [name, value] : *config)
            if (std::find(names.begin(), names.end(), name) == names.end())
                names.push_back(name);
    auto find = [](const Settings& config, const std::string& name) {
        for (const auto& [n, v] : config)
            if (n == name)
                return std::optional<std::string>(v);
        return std::optional<std::string>();
    };
    for (const std::string& name : names)
        rows.text(name, find(x, name), find(y, name));
}

struct Totals {
    int captures = 0, mutatedInput = 0, coreLimit = 0, force = 0, replays = 0, eager = 0, fallback = 0;
    int inputsCopied = 0, outputsRebuilt = 0;
    uint64_t bytesCopied = 0;
};

Totals totalsOf(const Simulation& sim)
{
    Totals t;
    for (const GraphRecord& g : sim.graphs) {
        t.captures += g.captures;
        t.mutatedInput += g.recapturesMutatedInput;
        t.coreLimit += g.recapturesCoreLimit;
        t.force += g.recapturesForce;
        t.replays += g.replays;
        t.eager += g.eagerCalls;
        t.fallback += g.fallbackToEager ? 1 : 0;
    }
    for (const runtime::CallRecord& c : sim.calls) {
        t.inputsCopied += c.inputsCopied;
        t.bytesCopied += c.bytesCopied;
        t.outputsRebuilt += c.outputsRebuilt;
    }
    return t;
}

void compareTotals(RowBuilder& rows, const Simulation& a, const Simulation& b)
{
    rows.section("totals");
    const Totals x = totalsOf(a), y = totalsOf(b);
    if (fromLog(a) != fromLog(b)) // a log has the calls it shows; the calls section lines them up
        rows.note("calls", std::to_string(a.callsSimulated) + (fromLog(a) ? " logged" : ""),
            std::to_string(b.callsSimulated) + (fromLog(b) ? " logged" : ""));
    else
        rows.count("calls", a.callsSimulated, b.callsSimulated);
    rows.count("captures", x.captures, y.captures);
    rows.count("recaptures (mutated_input)", x.mutatedInput, y.mutatedInput);
    rows.count("recaptures (core_limit)", x.coreLimit, y.coreLimit);
    rows.count("recaptures (force)", x.force, y.force);
    rows.count("replays", x.replays, y.replays);
    if (fromLog(a) != fromLog(b)) // the eager calls after a fallback print nothing
        rows.note("eager calls", std::to_string(x.eager) + (fromLog(a) ? " logged" : ""),
            std::to_string(y.eager) + (fromLog(b) ? " logged" : ""));
    else
        rows.count("eager calls", x.eager, y.eager);
    rows.count("graphs fallen back to eager", x.fallback, y.fallback);
    if (fromLog(a) || fromLog(b)) {
        auto said = [](const Simulation& sim, int64_t v) { return fromLog(sim) ? kNotLogged : std::to_string(v); };
        rows.note("inputs copied", said(a, x.inputsCopied), said(b, y.inputsCopied));
        rows.note("bytes copied", said(a, int64_t(x.bytesCopied)), said(b, int64_t(y.bytesCopied)));
        rows.note("outputs rebuilt", said(a, x.outputsRebuilt), said(b, y.outputsRebuilt));
    } else {
        rows.count("inputs copied", x.inputsCopied, y.inputsCopied);
        rows.bytes("bytes copied", x.bytesCopied, y.bytesCopied);
        rows.count("outputs rebuilt", x.outputsRebuilt, y.outputsRebuilt);
    }
    rows.text("out of memory", a.outOfMemory ? "yes" : "no", b.outOfMemory ? "yes" : "no");
}

const GraphRecord* graphNamed(const Simulation& sim, const std::string& name)
{
    for (const GraphRecord& g : sim.graphs)
        if (g.name == name)
            return &g;
    return nullptr;
}

void compareGraphs(RowBuilder& rows, const Simulation& a, const Simulation& b)
{
    rows.section("graphs");
    std::vector<std::string> names;
    for (const Simulation* sim : { &a, &b })
        for (const GraphRecord& g : sim->graphs)
            if (std::find(names.begin(), names.end(), g.name) == names.end())
                names.push_back(g.name);
    for (const std::string& name : names) {
        const GraphRecord* x = graphNamed(a, name);
        const GraphRecord* y = graphNamed(b, name);
        auto field = [&](const GraphRecord* g, auto get) { return g ? std::optional<int64_t>(get(*g)) : std::nullopt; };
        auto fallback = [](const GraphRecord* g) -> std::optional<std::string> {
            if (!g)
                return std::nullopt;
            return g->fallbackToEager ? "at call " + std::to_string(g->fallbackCall) : std::string("no");
        };
        if (fromLog(a) || fromLog(b))
            rows.note(name + " scenario id",
                !x               ? kNone
                    : fromLog(a) ? kNotLogged
                                 : x->id,
                !y               ? kNone
                    : fromLog(b) ? kNotLogged
                                 : y->id);
        else
            rows.text(name + " scenario id", x ? std::optional(x->id) : std::nullopt,
                y ? std::optional(y->id) : std::nullopt);
        rows.count(name + " keys", field(x, [](auto& g) { return g.allKeys.size(); }),
            field(y, [](auto& g) { return g.allKeys.size(); }));
        rows.count(name + " captures", field(x, [](auto& g) { return g.captures; }),
            field(y, [](auto& g) { return g.captures; }));
        auto recaptures
            = [](const GraphRecord& g) { return g.recapturesMutatedInput + g.recapturesCoreLimit + g.recapturesForce; };
        rows.count(name + " recaptures", field(x, recaptures), field(y, recaptures));
        rows.count(name + " replays", field(x, [](auto& g) { return g.replays; }),
            field(y, [](auto& g) { return g.replays; }));
        if (fromLog(a) != fromLog(b)) { // a log shows only the call that fell back, not the eager ones after
            auto eager = [](const Simulation& sim, const GraphRecord* g) -> std::string {
                return !g ? kNone : std::to_string(g->eagerCalls) + (fromLog(sim) ? " logged" : "");
            };
            rows.note(name + " eager calls", eager(a, x), eager(b, y));
        } else {
            rows.count(name + " eager calls", field(x, [](auto& g) { return g.eagerCalls; }),
                field(y, [](auto& g) { return g.eagerCalls; }));
        }
        rows.text(name + " fallback", fallback(x), fallback(y));
    }
}

/// Pools of both runs grouped by the graphs using them: two pools share a group when some graph
/// uses both (one in each run), so a custom pool lines up with the private pools it replaces.
struct PoolGroup {
    std::vector<std::string> graphs; ///< in first-seen order
    std::vector<const PoolRecord*> a, b;
};

std::vector<PoolGroup> poolGroups(const Simulation& a, const Simulation& b)
{
    std::vector<PoolGroup> groups;
    auto groupOf = [&](const std::string& graph) {
        for (size_t i = 0; i < groups.size(); ++i)
            if (std::find(groups[i].graphs.begin(), groups[i].graphs.end(), graph) != groups[i].graphs.end())
                return int(i);
        return -1;
    };
    for (int side = 0; side < 2; ++side)
        for (const PoolRecord& p : (side == 0 ? a : b).pools) {
            // Every group one of its graphs is in merges into the first of them.
            int into = -1;
            for (const std::string& g : p.graphs) {
                const int at = groupOf(g);
                if (at < 0 || at == into)
                    continue;
                if (into < 0) {
                    into = at;
                    continue;
                }
                PoolGroup& target = groups[size_t(into)];
                PoolGroup& from = groups[size_t(at)];
                target.graphs.insert(target.graphs.end(), from.graphs.begin(), from.graphs.end());
                target.a.insert(target.a.end(), from.a.begin(), from.a.end());
                target.b.insert(target.b.end(), from.b.begin(), from.b.end());
                groups.erase(groups.begin() + at);
                into = at < into ? into - 1 : into;
            }
            if (into < 0) {
                groups.emplace_back();
                into = int(groups.size() - 1);
            }
            PoolGroup& g = groups[size_t(into)];
            for (const std::string& graph : p.graphs)
                if (std::find(g.graphs.begin(), g.graphs.end(), graph) == g.graphs.end())
                    g.graphs.push_back(graph);
            (side == 0 ? g.a : g.b).push_back(&p);
        }
    return groups;
}

/// The rows of one pool, or of pools that face each other as one: each run's pools (summed when
/// several) under one label.
struct PoolRows {
    std::string label;
    std::vector<const PoolRecord*> a, b;
    bool kind = true; ///< with a "kind" row (private / custom): two runs of the simulator
};

std::string joined(const std::vector<std::string>& parts)
{
    std::string out;
    for (size_t i = 0; i < parts.size(); ++i)
        out += (i ? ", " : "") + parts[i];
    return out;
}

/// Two simulated runs (or two recordings): pools grouped by the graphs using them.
std::vector<PoolRows> poolsByGraphs(const Simulation& a, const Simulation& b)
{
    std::vector<PoolRows> out;
    for (PoolGroup& g : poolGroups(a, b))
        out.push_back({ "pool of " + joined(g.graphs), std::move(g.a), std::move(g.b) });
    return out;
}

/// A recorded pool by its id and the capture code its frames show: "pool (0, 1) [torch.cuda.graph
/// capture from train.py:42]", "pool (0, 0) [default]".
std::string recordedPoolName(const PoolRecord& p)
{
    const std::string name = "pool " + p.pool.str();
    if (p.pool.isDefault())
        return name + " [default]";
    return p.graphs.empty() ? name : name + " [" + joined(p.graphs) + "]";
}

/// A simulated pool by the TorchAir graphs using it: "graph_1's pool", "custom pool of graph_1, graph_2".
std::string simulatedPoolName(const PoolRecord& p)
{
    if (p.pool.isDefault())
        return "default pool";
    if (p.graphs.empty())
        return "pool " + p.pool.str();
    return p.custom ? "custom pool of " + joined(p.graphs) : joined(p.graphs) + "'s pool";
}

/// A recording against a simulation (run_compare.h): the default pool faces the default pool, the
/// recording's private pools in pool-id order face the simulation's in creation order, one by one;
/// a custom pool the simulation shares among its graphs faces all of the recording's private pools.
std::vector<PoolRows> poolsByCreation(const Simulation& recorded, const Simulation& simulated, bool recordedIsA)
{
    using Pools = std::vector<const PoolRecord*>;
    Pools recordedDefault, simulatedDefault, recordedPrivate, simulatedPrivate, simulatedCustom;
    for (const PoolRecord& p : recorded.pools)
        (p.pool.isDefault() ? recordedDefault : recordedPrivate).push_back(&p);
    for (const PoolRecord& p : simulated.pools)
        (p.pool.isDefault() ? simulatedDefault : p.custom ? simulatedCustom : simulatedPrivate).push_back(&p);
    // (0, uid) handles (what TorchAir takes) by uid, then captures without a handle, (uid, 0), by uid.
    std::stable_sort(recordedPrivate.begin(), recordedPrivate.end(),
        [](const PoolRecord* x, const PoolRecord* y) { return x->pool < y->pool; });

    std::vector<std::pair<Pools, Pools>> pairs; // (recorded, simulated)
    if (!recordedDefault.empty() || !simulatedDefault.empty())
        pairs.emplace_back(recordedDefault, simulatedDefault);
    if (!simulatedCustom.empty())
        pairs.emplace_back(std::exchange(recordedPrivate, {}), simulatedCustom);
    for (size_t i = 0; i < std::max(recordedPrivate.size(), simulatedPrivate.size()); ++i)
        pairs.emplace_back(i < recordedPrivate.size() ? Pools { recordedPrivate[i] } : Pools {},
            i < simulatedPrivate.size() ? Pools { simulatedPrivate[i] } : Pools {});

    auto names = [](const Pools& pools, std::string (*name)(const PoolRecord&)) {
        std::vector<std::string> parts;
        for (const PoolRecord* p : pools)
            parts.push_back(name(*p));
        return parts.empty() ? std::string(kNone) : joined(parts);
    };
    std::vector<PoolRows> out;
    for (auto& [rec, sim] : pairs) {
        const std::string r = names(rec, recordedPoolName), s = names(sim, simulatedPoolName);
        PoolRows rows { recordedIsA ? r + " ~ " + s : s + " ~ " + r, {}, {}, false };
        (recordedIsA ? rows.a : rows.b) = std::move(rec);
        (recordedIsA ? rows.b : rows.a) = std::move(sim);
        out.push_back(std::move(rows));
    }
    return out;
}

/// A pool's peak beside a log's highest logged state ("≥ 16.00 MiB (highest logged)").
void loggedPeak(RowBuilder& rows, const std::string& metric, std::optional<uint64_t> a, bool logA,
    std::optional<uint64_t> b, bool logB)
{
    auto words = [](std::optional<uint64_t> v, bool log) {
        return !v ? std::string(kNone) : log ? "≥ " + formatMiB(*v) + " (highest logged)" : formatMiB(*v);
    };
    const bool differs = !a || !b || (logA && !logB && *a > *b) || (logB && !logA && *b > *a);
    rows.flagged(metric, words(a, logA), words(b, logB), differs);
}

void compareMemory(RowBuilder& rows, const Simulation& a, const Simulation& b)
{
    const RunOrigin originA = a.origin.kind, originB = b.origin.kind;
    rows.section("memory");
    const bool logA = fromLog(a), logB = fromLog(b);
    if (logA || logB) {
        rows.note("peak device reserved", logA ? kNotLogged : formatMiB(a.peakDeviceReserved),
            logB ? kNotLogged : formatMiB(b.peakDeviceReserved));
        rows.note("peak device allocated", logA ? kNotLogged : formatMiB(a.peakDeviceAllocated),
            logB ? kNotLogged : formatMiB(b.peakDeviceAllocated));
    } else {
        rows.bytes("peak device reserved", a.peakDeviceReserved, b.peakDeviceReserved);
        rows.bytes("peak device allocated", a.peakDeviceAllocated, b.peakDeviceAllocated);
    }
    // A recording's capacity only where the file told it.
    auto capacity = [](const Simulation& sim) {
        return sim.origin.kind == RunOrigin::Recorded && !sim.origin.capacityKnown
            ? std::nullopt
            : std::optional<uint64_t>(sim.capacityBytes);
    };
    if (logA || logB)
        rows.note("device capacity", logA ? kNotLogged : formatMiB(a.capacityBytes),
            logB ? kNotLogged : formatMiB(b.capacityBytes));
    else
        rows.bytes("device capacity", capacity(a), capacity(b));
    std::vector<PoolRows> groups;
    if (logA || logB) {
        // A log names each pool's graph (a reset line, or the pool first listed after its first capture).
        groups = poolsByGraphs(a, b);
    } else if (originA != originB) {
        const bool recordedIsA = originA == RunOrigin::Recorded;
        rows.note("pools paired by order of creation (a recording cannot name TorchAir graphs)",
            recordedIsA ? "recorded" : "simulated", recordedIsA ? "simulated" : "recorded");
        groups = recordedIsA ? poolsByCreation(a, b, true) : poolsByCreation(b, a, false);
    } else {
        groups = poolsByGraphs(a, b);
    }
    for (const PoolRows& g : groups) {
        auto kind = [](const std::vector<const PoolRecord*>& pools, RunOrigin origin) -> std::optional<std::string> {
            if (pools.empty())
                return std::nullopt;
            std::vector<std::string> kinds;
            for (const PoolRecord* p : pools)
                if (std::string k = poolKindName(*p, origin); std::find(kinds.begin(), kinds.end(), k) == kinds.end())
                    kinds.push_back(std::move(k));
            const std::string what = joined(kinds);
            return pools.size() == 1 ? what : std::to_string(pools.size()) + " pools, " + what;
        };
        // Several pools of one run in a group: the sum of their peaks (an upper bound of the group's peak).
        auto sum = [](const std::vector<const PoolRecord*>& pools, uint64_t PoolRecord::*field) {
            if (pools.empty())
                return std::optional<uint64_t>();
            uint64_t total = 0;
            for (const PoolRecord* p : pools)
                total += p->*field;
            return std::optional<uint64_t>(total);
        };
        if (g.kind && (logA || logB)) // a log does not tell a private pool from a custom one
            rows.note(g.label + " kind", logA ? kNotLogged : kind(g.a, originA).value_or(kNone),
                logB ? kNotLogged : kind(g.b, originB).value_or(kNone));
        else if (g.kind)
            rows.text(g.label + " kind", kind(g.a, originA), kind(g.b, originB));
        if (logA || logB) {
            // A log's figure is the highest state it printed: the peak is at least that. It disagrees
            // only when it is above the other run's peak.
            loggedPeak(rows, g.label + " peak reserved", sum(g.a, &PoolRecord::peakReserved), logA,
                sum(g.b, &PoolRecord::peakReserved), logB);
            loggedPeak(rows, g.label + " peak allocated", sum(g.a, &PoolRecord::peakAllocated), logA,
                sum(g.b, &PoolRecord::peakAllocated), logB);
            continue;
        }
        rows.bytes(
            g.label + " peak reserved", sum(g.a, &PoolRecord::peakReserved), sum(g.b, &PoolRecord::peakReserved));
        rows.bytes(
            g.label + " peak allocated", sum(g.a, &PoolRecord::peakAllocated), sum(g.b, &PoolRecord::peakAllocated));
    }
}

void compareHazards(RowBuilder& rows, const Simulation& a, const Simulation& b)
{
    rows.section("hazards");
    std::map<int, std::pair<int64_t, int64_t>> byKind;
    for (const runtime::Hazard& h : a.hazards)
        ++byKind[int(h.kind)].first;
    for (const runtime::Hazard& h : b.hazards)
        ++byKind[int(h.kind)].second;
    rows.count("all", int64_t(a.hazards.size()), int64_t(b.hazards.size()));
    for (const auto& [kind, counts] : byKind)
        rows.count(runtime::hazardKindName(runtime::HazardKind(kind)), counts.first, counts.second);
}

/// CUDA Graph Trees runs (simulated, or a recording whose snapshot shows warm-ups and recordings):
/// their warm-ups and recordings side by side, in order (report/cgt_steps.h). Replays allocate
/// nothing, so a snapshot shows none: only these steps can be lined up.
void compareCgtSteps(RowBuilder& rows, const Simulation& a, const Simulation& b)
{
    const std::vector<CgtStep> x = cgtSteps(a), y = cgtSteps(b);
    if (x.empty() && y.empty())
        return;
    rows.section("CUDA graph steps");
    auto words = [](const std::vector<CgtStep>& steps, size_t i) -> std::optional<std::string> {
        if (i >= steps.size())
            return std::nullopt;
        const CgtStep& s = steps[i];
        return (s.action == "warmup" ? "warm-up " : "record ") + s.compileId
            + (s.call >= 0 ? " (call " + std::to_string(s.call) + ")" : "");
    };
    // The call is the simulation's alone: compare what was done, not when.
    for (size_t i = 0; i < std::max(x.size(), y.size()); ++i) {
        const auto wa = words(x, i), wb = words(y, i);
        const bool same
            = i < x.size() && i < y.size() && x[i].action == y[i].action && x[i].compileId == y[i].compileId;
        if (same)
            rows.note("step " + std::to_string(i + 1), *wa, *wb);
        else
            rows.text("step " + std::to_string(i + 1), wa, wb);
    }
}

/// A call in words: "graph_2 {[16]} recapture (mutated_input)"; an unknown key or cause is said so.
std::string callWords(const runtime::CallRecord& c)
{
    std::string s = (c.graph.empty() ? std::string("graph ?") : c.graph) + " {" + (c.key.empty() ? "?" : c.key) + "} "
        + runtime::callActionName(c.action);
    if (c.action == runtime::CallAction::Recapture)
        s += " (" + (c.recaptureCause.empty() ? std::string("cause unknown") : c.recaptureCause) + ")";
    return s;
}

/// What two records of one call disagree on; what either side does not know (an empty key or cause)
/// is no disagreement.
bool callsDisagree(const runtime::CallRecord& x, const runtime::CallRecord& y)
{
    auto differ = [](const std::string& p, const std::string& q) { return !p.empty() && !q.empty() && p != q; };
    return differ(x.graph, y.graph) || differ(x.key, y.key) || x.action != y.action
        || differ(x.recaptureCause, y.recaptureCause);
}

/// The calls a run's log shows: all of a simulation's whose steps print a line (TorchAir prints nothing
/// for an eager call after a fallback), every call of a recording.
std::vector<const runtime::CallRecord*> shownCalls(const Simulation& sim, bool onlyLogged)
{
    std::vector<const runtime::CallRecord*> out;
    for (const runtime::CallRecord& c : sim.calls) {
        bool said = !onlyLogged;
        for (int i = c.firstEvent; !said && i < c.firstEvent + c.eventCount && i < int(sim.events.size()); ++i)
            said = !sim.events[size_t(i)].log.empty();
        if (said)
            out.push_back(&c);
    }
    return out;
}

/// Call by call, when either run is a log (a recording with calls): the calls the log shows face the
/// simulation's in order, every disagreement a row of its own, and a summary row first.
void compareCalls(RowBuilder& rows, const Simulation& a, const Simulation& b)
{
    const bool logA = a.origin.kind == RunOrigin::Recorded && !a.calls.empty();
    const bool logB = b.origin.kind == RunOrigin::Recorded && !b.calls.empty();
    if (!logA && !logB)
        return;
    rows.section("calls");
    const auto x = shownCalls(a, logB && !logA), y = shownCalls(b, logA && !logB);
    const size_t n = std::max(x.size(), y.size());
    size_t agree = 0;
    std::vector<size_t> differing;
    for (size_t i = 0; i < n; ++i) {
        if (i < x.size() && i < y.size() && !callsDisagree(*x[i], *y[i]))
            ++agree;
        else
            differing.push_back(i);
    }
    auto shown = [](const Simulation& sim, size_t count, bool log) {
        std::string s = std::to_string(count) + (log ? " logged" : " shown in a log");
        if (!log && count != sim.calls.size())
            s += " of " + std::to_string(sim.calls.size()) + " (the rest print nothing)";
        return s;
    };
    rows.note("calls a log shows", shown(a, x.size(), logA), shown(b, y.size(), logB));
    const std::string agreeing = std::to_string(agree) + " of " + std::to_string(n) + " agree";
    rows.note("calls side by side", agreeing, agreeing);
    for (size_t i : differing) {
        auto words = [](const std::vector<const runtime::CallRecord*>& calls, size_t k) -> std::optional<std::string> {
            if (k >= calls.size())
                return std::nullopt;
            return "call " + std::to_string(calls[k]->index) + ": " + callWords(*calls[k]);
        };
        rows.text("call " + std::to_string(i), words(x, i), words(y, i));
        CompareRow& row = rows.last();
        row.callA = i < x.size() ? x[i]->index : -1;
        row.callB = i < y.size() ? y[i]->index : -1;
        if (rows.result().firstCallDisagreement < 0)
            rows.result().firstCallDisagreement = int(rows.result().rows.size()) - 1;
    }
}

/// Display width of UTF-8 text: code points, so "—" counts as one column.
size_t columns(const std::string& s)
{
    return size_t(
        std::count_if(s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

std::string padded(const std::string& s, size_t width)
{
    const size_t w = columns(s);
    return w >= width ? s : s + std::string(width - w, ' ');
}

} // namespace

RunOrigin runOriginOf(const Simulation& sim)
{
    return sim.origin.kind;
}

RunComparison compareRuns(const Simulation& a, const Simulation& b, const std::string& labelA,
    const std::string& labelB, const Settings& configA, const Settings& configB)
{
    RunComparison out;
    out.labelA = labelA;
    out.labelB = labelB;
    RowBuilder rows(out);
    compareConfig(rows, a, b, configA, configB);
    compareTotals(rows, a, b);
    compareGraphs(rows, a, b);
    compareMemory(rows, a, b);
    compareHazards(rows, a, b);
    compareCgtSteps(rows, a, b);
    compareCalls(rows, a, b);
    return out;
}

std::string comparisonText(const RunComparison& c)
{
    size_t widths[4] = { columns("section"), columns("metric"), columns("A"), columns("B") };
    for (const CompareRow& r : c.rows) {
        widths[0] = std::max(widths[0], columns(r.section));
        widths[1] = std::max(widths[1], columns(r.metric));
        widths[2] = std::max(widths[2], columns(r.a));
        widths[3] = std::max(widths[3], columns(r.b));
    }
    auto line
        = [&](const std::string& s, const std::string& m, const std::string& a, const std::string& b, bool differs) {
              std::string out = padded(s, widths[0]) + "  " + padded(m, widths[1]) + "  " + padded(a, widths[2]) + "  ";
              out += differs ? padded(b, widths[3]) + "  *" : b;
              while (!out.empty() && out.back() == ' ')
                  out.pop_back();
              return out + "\n";
          };
    std::string out = "A: " + c.labelA + "\nB: " + c.labelB + "\n\n";
    out += line("section", "metric", "A", "B", false);
    for (const CompareRow& r : c.rows)
        out += line(r.section, r.metric, r.a, r.b, r.differs);
    out += "\n" + std::to_string(c.differing) + " of " + std::to_string(c.rows.size()) + " rows differ\n";
    return out;
}

std::string comparisonJson(const RunComparison& c, int indent)
{
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    for (const CompareRow& r : c.rows)
        rows.push_back(
            { { "section", r.section }, { "metric", r.metric }, { "a", r.a }, { "b", r.b }, { "differs", r.differs } });
    nlohmann::ordered_json j = { { "format", "aclgraph-inspector-comparison" }, { "version", 1 }, { "a", c.labelA },
        { "b", c.labelB }, { "differing", c.differing }, { "rows", rows } };
    return jsonText(j, indent);
}

} // namespace engine::report
