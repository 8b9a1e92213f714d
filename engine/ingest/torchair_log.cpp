// TorchAir's / npugraph_ex's log lines back into the run they tell (run_log.h). The texts are those of
// engine/runtime/torchair_text.cpp (torchair-behavior.md §7, TorchAir's acl_graph.py and utils.py);
// docs/run-logs.md lists, per text, what it tells and which rule below reads it.
#include "engine/ingest/run_log_impl.h"
#include "engine/runtime/torchair_text.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <map>
#include <set>

namespace engine::ingest::detail {

using runtime::CallAction;
using runtime::CallRecord;
using runtime::Event;
using runtime::EventKind;
using runtime::GraphRecord;
using runtime::HazardKind;
using runtime::LogLevel;
using runtime::LogLine;
using runtime::PoolCallState;

namespace {

/// What a TorchAir message is. The order within a call (kPhase) is the order TorchAir prints them:
/// AclGraph.__call__ computes the key, looks it up, captures, then process_input copies, the graph
/// replays and reconstruct_outputs hands the outputs back.
enum class Msg {
    Other,
    KeyPhase, ///< debug_time "generate graph_key": the first line of a call at DEBUG
    Found,
    NeedsRecapture,
    NoRecapture,
    StartCapture,
    CaptureLimit,
    ResetBefore,
    ResetAfter,
    StartOriginal,
    AfterOriginal,
    CaptureInfo,
    Captured,
    AfterCapture,
    Counters,
    InputCopy,
    InputPhase,
    UpdateStream,
    ParamsPhase,
    ParamsUpdated,
    Retained,
    OutputsAlive,
    BeforeRebuild,
    AfterRebuild,
    OverwriteWarning,
    StaticKernel,
};

constexpr int kNoPhase = -1;

int phaseOf(Msg m)
{
    switch (m) {
    case Msg::KeyPhase:
        return 0;
    case Msg::Found:
        return 10;
    case Msg::NeedsRecapture:
    case Msg::NoRecapture:
        return 20;
    case Msg::StartCapture:
    case Msg::CaptureLimit:
        return 30;
    case Msg::ResetBefore:
        return 31;
    case Msg::ResetAfter:
        return 32;
    case Msg::StartOriginal:
        return 40;
    case Msg::AfterOriginal:
        return 41;
    case Msg::CaptureInfo:
        return 50;
    case Msg::Captured:
        return 60;
    case Msg::AfterCapture:
        return 70;
    case Msg::Counters:
        return 80;
    case Msg::InputCopy:
        return 90;
    case Msg::InputPhase:
        return 91;
    case Msg::UpdateStream:
        return 100;
    case Msg::ParamsPhase:
        return 101;
    case Msg::ParamsUpdated:
        return 102;
    case Msg::Retained:
    case Msg::OutputsAlive:
    case Msg::BeforeRebuild:
        return 110;
    case Msg::AfterRebuild:
        return 111;
    case Msg::StaticKernel:
        return 30;
    case Msg::OverwriteWarning:
    case Msg::Other:
        break;
    }
    return kNoPhase;
}

EventKind eventOf(Msg m)
{
    const int p = phaseOf(m);
    if (m == Msg::CaptureLimit || m == Msg::ResetBefore || m == Msg::ResetAfter)
        return EventKind::Fallback;
    if (m == Msg::StaticKernel)
        return EventKind::Eager;
    if (p >= 0 && p < 30)
        return EventKind::KeyLookup;
    if (p >= 30 && p < 90)
        return EventKind::Capture;
    if (p >= 90 && p < 100)
        return EventKind::InputUpdate;
    if (p >= 100 && p < 110)
        return EventKind::Replay;
    return EventKind::Outputs;
}

struct Parsed {
    Msg kind = Msg::Other;
    std::string graph, key;
    std::string state; ///< a memory state's "(...)" lines
    bool hasState = false;
    std::array<int64_t, 4> counts { -1, -1, -1, -1 }; ///< counters: captures, mutated, core limit, force
    double seconds = -1;
    std::string option; ///< capture limit: the option's name; outputs retained: the option it names
    int64_t limit = -1;
    std::string pool; ///< reset: "(0, 2)"
};

bool starts(std::string_view s, std::string_view p)
{
    return s.substr(0, p.size()) == p;
}

/// The word after `marker` (up to a space, ',' or '.' at the end).
std::string wordAfter(std::string_view s, std::string_view marker)
{
    const size_t at = s.find(marker);
    if (at == std::string_view::npos)
        return {};
    size_t i = at + marker.size(), j = i;
    while (j < s.size() && s[j] != ' ' && s[j] != ',')
        ++j;
    std::string w(s.substr(i, j - i));
    if (!w.empty() && w.back() == '.')
        w.pop_back();
    return w;
}

/// The text inside the braces after "graph key {" or "graph key{", matched by depth.
std::string braced(std::string_view s, std::string_view marker)
{
    size_t at = s.find(marker);
    if (at == std::string_view::npos)
        return {};
    size_t i = at + marker.size();
    int depth = 1;
    for (size_t j = i; j < s.size(); ++j) {
        if (s[j] == '{')
            ++depth;
        else if (s[j] == '}' && --depth == 0)
            return std::string(s.substr(i, j - i));
    }
    return std::string(s.substr(i));
}

std::string graphKey(std::string_view s)
{
    if (s.find("graph key {") != std::string_view::npos)
        return braced(s, "graph key {");
    return braced(s, "graph key{");
}

/// The memory state after "memory state is {": the text up to the closing "}".
bool memoryState(std::string_view s, std::string& out)
{
    const size_t at = s.find("memory state is {");
    if (at == std::string_view::npos)
        return false;
    out = braced(s.substr(at), "memory state is {");
    return true;
}

int64_t numberAfter(std::string_view s, std::string_view marker)
{
    const size_t at = s.find(marker);
    if (at == std::string_view::npos)
        return -1;
    return std::strtoll(std::string(s.substr(at + marker.size(), 20)).c_str(), nullptr, 10);
}

Parsed classify(std::string_view m)
{
    Parsed p;
    auto withGraph = [&](Msg kind, std::string_view graphMarker) {
        p.kind = kind;
        p.graph = wordAfter(m, graphMarker);
        p.key = graphKey(m);
        p.hasState = memoryState(m, p.state);
    };
    if (starts(m, "The operation of [npugraph_ex overhead] ")) {
        if (m.find(" generate graph_key phase") != std::string_view::npos)
            p.kind = Msg::KeyPhase;
        else if (m.find(" process input phase") != std::string_view::npos)
            p.kind = Msg::InputPhase;
        else if (m.find(" get updated params phase") != std::string_view::npos)
            p.kind = Msg::ParamsPhase;
        return p;
    }
    if (starts(m, "Find captured AclGraph{"))
        withGraph(Msg::Found, "of fx_graph ");
    else if (starts(m, "The current AclGraph needs to be recaptured "))
        withGraph(Msg::NeedsRecapture, "for fx_graph ");
    else if (starts(m, "The current AclGraph no needs to be recaptured "))
        withGraph(Msg::NoRecapture, "for fx_graph ");
    else if (starts(m, "No find captured AclGraph{"))
        withGraph(Msg::StartCapture, "of fx_graph ");
    else if (starts(m, "Start setting to original memory state "))
        withGraph(Msg::StartOriginal, "for fx_graph ");
    else if (starts(m, "After setting to original memory state "))
        withGraph(Msg::AfterOriginal, "for fx_graph ");
    else if (starts(m, "AclGraph{id: ") && m.find("} of fx_graph ") != std::string_view::npos)
        withGraph(Msg::CaptureInfo, "of fx_graph ");
    else if (starts(m, "Success to capture fx_graph "))
        withGraph(Msg::Captured, "capture fx_graph ");
    else if (starts(m, "After capturing fx_graph "))
        withGraph(Msg::AfterCapture, "capturing fx_graph ");
    else if (starts(m, "When mempool reuse is enabled in fx_graph "))
        withGraph(Msg::Retained, "in fx_graph ");
    else if (starts(m, "When config.") && m.find("no mempool reuse in fx_graph ") != std::string_view::npos) {
        withGraph(Msg::Retained, "reuse in fx_graph ");
        p.option = wordAfter(m, "When ");
    } else if (starts(m, "All output tensors weak ref are valid"))
        withGraph(Msg::OutputsAlive, "for fx_graph ");
    else if (starts(m, "Before reconstructing fx_graph "))
        withGraph(Msg::BeforeRebuild, "reconstructing fx_graph ");
    else if (starts(m, "After reconstructing fx_graph "))
        withGraph(Msg::AfterRebuild, "reconstructing fx_graph ");
    else if (starts(m, "For graph ") && m.find(" : the count of captures is ") != std::string_view::npos) {
        p.kind = Msg::Counters;
        p.graph = wordAfter(m, "For graph ");
        p.counts[0] = numberAfter(m, "the count of captures is ");
        p.counts[1] = numberAfter(m, "caused by mutated inputs changed is ");
        p.counts[2] = numberAfter(m, "caused by global limit changed is ");
        p.counts[3] = numberAfter(m, "caused by force_recapture is ");
    } else if (starts(m, "Current fx_graph ") && m.find(" memory pool is ") != std::string_view::npos) {
        p.kind = m.find(". Before reset,") != std::string_view::npos ? Msg::ResetBefore : Msg::ResetAfter;
        p.graph = wordAfter(m, "Current fx_graph ");
        const size_t at = m.find(" memory pool is ");
        const size_t end = m.find(')', at);
        if (end != std::string_view::npos)
            p.pool = std::string(m.substr(at + 16, end + 1 - (at + 16)));
        p.hasState = memoryState(m, p.state);
    } else if (starts(m, "The ") && m.find(" reached when capturing fx_graph ") != std::string_view::npos) {
        p.kind = Msg::CaptureLimit;
        p.option = wordAfter(m, "The ");
        p.graph = wordAfter(m, "capturing fx_graph ");
        const size_t at = m.find(" with graph key ");
        const size_t end = m.find(", we will fall back", at);
        if (at != std::string_view::npos && end != std::string_view::npos)
            p.key = std::string(m.substr(at + 16, end - at - 16));
        p.limit = numberAfter(m, " The current " + p.option + " is ");
    } else if (starts(m, "Update the stream for parameter, "))
        p.kind = Msg::UpdateStream;
    else if (starts(m, "Replay AclGraph and update input params successfully"))
        p.kind = Msg::ParamsUpdated;
    else if (m.find(" process inputs foreach copy took ") != std::string_view::npos) {
        p.kind = Msg::InputCopy;
        p.graph = std::string(m.substr(0, m.find(' ')));
        p.seconds = std::strtod(std::string(m.substr(m.find(" took ") + 6, 32)).c_str(), nullptr);
    } else if (starts(m, "Because acl graph fixes memory addresses"))
        p.kind = Msg::OverwriteWarning;
    else if (starts(m, "Start to compile static shape kernel for fx graph ")
        || starts(m, "Skip compile static shape kernel for fx graph ")) {
        p.kind = Msg::StaticKernel;
        p.graph = wordAfter(m, "for fx graph ");
        if (!p.graph.empty() && p.graph.back() == ',')
            p.graph.pop_back();
    }
    return p;
}

/// debug_mem_state's lines, one "({'device': d}, {'stream': s}, {'pool_id': (a, b)}, {'block_num': n},
/// {'activate_num': n}, {'total_size': n}, {'allocated_size': n})" per segment, grouped per pool in
/// order of appearance.
std::vector<PoolCallState> parseState(std::string_view state)
{
    std::vector<PoolCallState> pools;
    size_t pos = 0;
    while ((pos = state.find("({'device': ", pos)) != std::string_view::npos) {
        const size_t end = state.find("})", pos);
        const std::string_view seg = state.substr(pos, end == std::string_view::npos ? state.size() - pos : end - pos);
        pos += 12;
        const int device = int(numberAfter(seg, "'device': "));
        const size_t pid = seg.find("'pool_id': (");
        if (pid == std::string_view::npos)
            continue;
        memory::PoolId pool;
        pool.first = uint64_t(std::max<int64_t>(0, numberAfter(seg, "'pool_id': (")));
        pool.second = uint64_t(std::max<int64_t>(0, numberAfter(seg.substr(pid), ", ")));
        PoolCallState::Segment s;
        s.stream = int(numberAfter(seg, "'stream': "));
        s.blockNum = int(numberAfter(seg, "'block_num': "));
        s.activateNum = int(numberAfter(seg, "'activate_num': "));
        s.totalSize = uint64_t(std::max<int64_t>(0, numberAfter(seg, "'total_size': ")));
        s.allocatedSize = uint64_t(std::max<int64_t>(0, numberAfter(seg, "'allocated_size': ")));
        auto it = std::find_if(
            pools.begin(), pools.end(), [&](const PoolCallState& p) { return p.device == device && p.pool == pool; });
        if (it == pools.end()) {
            pools.push_back({});
            it = pools.end() - 1;
            it->device = device;
            it->pool = pool;
        }
        it->blockNum += s.blockNum;
        it->activateNum += s.activateNum;
        it->totalSize += s.totalSize;
        it->allocatedSize += s.allocatedSize;
        it->segments.push_back(s);
    }
    return pools;
}

std::string plural(int n, const char* one, const char* many)
{
    return std::to_string(n) + " " + (n == 1 ? one : many);
}

class TorchairBuilder : public RunBuilder {
public:
    explicit TorchairBuilder(const std::string& path)
        : m_path(path)
    {
        m_run.sim.origin.kind = runtime::RunOriginKind::Recorded;
        m_run.sim.origin.log = true;
        m_run.sim.origin.recordedAs = "TorchAir log"; // npugraph_ex's when its lines are all NPUGRAPH_EX's
        m_run.sim.scenarioPath = path;
        m_run.sim.profile = memory::Profile::Npu;
    }

    void add(const LogEntry& e) override;
    /// Dynamo's recompile lines of this job (TORCH_LOGS=recompiles): a recompile_per_call hazard.
    void dynamo(const LogEntry& e) override
    {
        std::string message = e.message;
        if (message.rfind("[__recompiles] ", 0) == 0)
            message = message.substr(15);
        m_recompiles.add(
            message, e.compileId, m_run.callCount() + (m_call.open ? 1 : 0), m_run.sim.hazards, &m_lateHazard);
    }
    runtime::Simulation finish() override;

private:
    RecompileTracker m_recompiles { "captures again, into a new memory pool" };
    struct GraphState {
        int record = -1;
        std::vector<std::string> captured; ///< keys captured and not reset, in capture order
        std::array<int64_t, 4> counts { 0, 0, 0, 0 }; ///< the last counters line's
        bool stormReported = false;
        bool poolKnown = false;
    };
    /// A recompile per call, as a TorchAir log shows it: new FX graphs (graph_<N>) after an earlier graph
    /// was called again. Before that, new graphs may be the pieces of one call (graph breaks): the log
    /// cannot tell, and the hazard is not raised.
    bool m_cameBack = false;
    std::vector<std::pair<std::string, int>> m_lateGraphs; ///< (graph, call)
    size_t m_lateHazard = SIZE_MAX;
    void lateGraph(const CallRecord& rec);
    struct Call {
        bool open = false;
        int phase = kNoPhase;
        int simCall = -1; ///< the simulator form's call number
        CallRecord rec;
        bool found = false, capturing = false, captured = false, fallback = false, counters = false;
        std::array<int64_t, 4> counts { 0, 0, 0, 0 };
        std::vector<PoolCallState> state;
        bool hasState = false;
        int firstLine = 0;
        double copySeconds = -1;
        std::string limitOption;
        int64_t limit = -1;
    };

    GraphState& graph(const std::string& name);
    void openCall(const LogEntry& e);
    void closeCall();
    void event(EventKind kind, const std::string& summary);
    void note(const std::string& text);
    void pools(const std::vector<PoolCallState>& state, int line);

    std::string m_path;
    int m_captures = 0;
    std::map<std::string, GraphState> m_graphs;
    std::set<memory::PoolId> m_poolsSeen;
    std::map<memory::PoolId, size_t> m_poolIndex;
    Call m_call;
    bool m_eventOpen = false;
    std::set<std::string> m_warned;
    bool m_npugraphEx = false, m_torchair = false;
    bool m_anyState = false;
    std::string m_lastText; ///< the last line's message
};

TorchairBuilder::GraphState& TorchairBuilder::graph(const std::string& name)
{
    GraphState& g = m_graphs[name];
    if (g.record < 0) {
        g.record = int(m_run.sim.graphs.size());
        GraphRecord r;
        r.name = name;
        m_run.sim.graphs.push_back(r);
    }
    return g;
}

void TorchairBuilder::lateGraph(const CallRecord& rec)
{
    m_lateGraphs.emplace_back(rec.graph, rec.index);
    if (int(m_lateGraphs.size()) < kRepeatHazard)
        return;
    if (m_lateHazard == SIZE_MAX) {
        m_lateHazard = m_run.sim.hazards.size();
        runtime::Hazard h;
        h.kind = HazardKind::RecompilePerCall;
        h.call = rec.index;
        h.graph = rec.graph;
        h.key = rec.key;
        m_run.sim.hazards.push_back(h);
    }
    if (m_recompiles.raised())
        return; // Dynamo's own recompile lines tell it better
    std::string list;
    for (size_t i = 0; i < m_lateGraphs.size() && i < 8; ++i)
        list += (i ? ", " : "") + m_lateGraphs[i].first + " at call " + std::to_string(m_lateGraphs[i].second);
    if (m_lateGraphs.size() > 8)
        list += ", ...";
    m_run.sim.hazards[m_lateHazard].message = std::to_string(m_lateGraphs.size())
        + " new FX graphs after the run's graphs were called again (" + list
        + "): Dynamo compiled a new graph for these calls, each with its own captures and memory pool "
          "(dynamic=False with a changing shape, or a guard that fails each call)";
}

void TorchairBuilder::note(const std::string& text)
{
    m_run.note(text);
}

void TorchairBuilder::event(EventKind kind, const std::string& summary)
{
    Event& e = m_run.newEvent();
    e.call = m_call.open ? m_call.rec.index : -1;
    e.kind = kind;
    e.graph = m_call.open ? m_call.rec.graph : std::string();
    e.key = m_call.open ? m_call.rec.key : std::string();
    e.summary = summary;
    m_eventOpen = true;
}

void TorchairBuilder::openCall(const LogEntry& e)
{
    closeCall();
    m_call = Call {};
    m_call.open = true;
    m_call.simCall = e.call;
    m_call.firstLine = e.line;
    m_run.flushSteps(); // the run-level steps before it are whole
    m_call.rec.index = m_run.callCount();
    m_call.rec.firstEvent = m_run.eventCount();
    m_eventOpen = false;
}

void TorchairBuilder::pools(const std::vector<PoolCallState>& state, int line)
{
    for (const PoolCallState& p : state) {
        auto [it, added] = m_poolIndex.emplace(p.pool, m_run.sim.pools.size());
        if (added) {
            runtime::PoolRecord r;
            r.device = p.device;
            r.pool = p.pool;
            m_run.sim.pools.push_back(r);
            // A pool first listed after a graph's first capture is that graph's (inferred).
            if (m_call.open && m_call.capturing && !m_call.rec.graph.empty()) {
                GraphState& g = graph(m_call.rec.graph);
                if (!g.poolKnown) {
                    g.poolKnown = true;
                    m_run.sim.graphs[size_t(g.record)].pool = p.pool;
                    m_run.sim.pools.back().graphs.push_back(m_call.rec.graph);
                    note(m_call.rec.graph + "'s pool " + p.pool.str() + ": inferred, the pool first listed in a memory "
                        + "state after its first capture (line " + std::to_string(line) + ")");
                }
            }
        }
        runtime::PoolRecord& r = m_run.sim.pools[it->second];
        r.peakReserved = std::max(r.peakReserved, p.totalSize);
        r.peakAllocated = std::max(r.peakAllocated, p.allocatedSize);
        m_poolsSeen.insert(p.pool);
    }
    m_anyState = true;
}

void TorchairBuilder::add(const LogEntry& e)
{
    if (e.logger == "NPUGRAPH_EX" && !m_npugraphEx) {
        m_npugraphEx = true;
        if (!m_torchair)
            m_run.sim.origin.recordedAs = "npugraph_ex log";
    } else if (e.logger == "TORCHAIR")
        m_torchair = true;
    const Parsed p = classify(e.message);
    // The capture limit is told twice, by warnings.warn and by the logger's WARNING, in either order
    // (stderr and stdout): the second of the twins belongs to the call of the first.
    const bool twin = m_call.open && e.message == m_lastText;
    m_lastText = e.message;
    const int phase = twin ? kNoPhase : phaseOf(p.kind);
    // A new call: the simulator form says so; else a text that comes earlier in a call than the last
    // one (or again), or one that names another FX graph.
    bool fresh = false;
    if (phase != kNoPhase) {
        if (!m_call.open)
            fresh = true;
        else if (e.call >= 0 && m_call.simCall >= 0)
            fresh = e.call != m_call.simCall;
        else
            fresh = phase <= m_call.phase
                || (!p.graph.empty() && !m_call.rec.graph.empty() && p.graph != m_call.rec.graph);
    } else if (e.call >= 0 && (!m_call.open || e.call != m_call.simCall)) {
        fresh = true;
    }
    if (fresh)
        openCall(e);
    Call& c = m_call;
    if (c.open && c.simCall < 0 && e.call >= 0)
        c.simCall = e.call;
    if (phase != kNoPhase)
        c.phase = phase;
    if (c.open && c.rec.graph.empty() && !p.graph.empty())
        c.rec.graph = p.graph;
    if (c.open && c.rec.key.empty() && !p.key.empty())
        c.rec.key = p.key;

    // The step the text belongs to.
    // Lines before the first call (warnings at import, the config's): a run-level step.
    const EventKind kind = !c.open          ? EventKind::Compile
        : phase != kNoPhase || !m_eventOpen ? eventOf(p.kind)
                                            : m_run.lastEvent().kind;
    if (!m_eventOpen || m_run.lastEvent().kind != kind || m_run.lastEvent().call != (c.open ? c.rec.index : -1)) {
        std::string summary;
        switch (kind) {
        case EventKind::KeyLookup:
            summary = "key lookup";
            break;
        case EventKind::Capture:
            summary = "capture";
            break;
        case EventKind::Fallback:
            summary = "capture limit reached: eager from now on";
            break;
        case EventKind::InputUpdate:
            summary = "input update";
            break;
        case EventKind::Replay:
            summary = "replay";
            break;
        case EventKind::Eager:
            summary = "eager (static shape kernel)";
            break;
        case EventKind::Compile:
            summary = "before the first call";
            break;
        default:
            summary = "outputs";
        }
        event(kind, summary);
    }
    Event& ev = m_run.lastEvent();
    if (ev.graph.empty())
        ev.graph = c.rec.graph;
    if (ev.key.empty())
        ev.key = c.rec.key;
    if (e.timeUs >= 0)
        ev.timeUs = e.timeUs;
    m_run.addLine(ev, LogLine { e.level, e.message, e.category, e.line });
    if ((e.level >= LogLevel::Warning || !e.category.empty()) && m_warned.insert(e.message).second)
        m_run.sim.warnings.push_back(e.category.empty() ? e.message : e.category + ": " + e.message);

    switch (p.kind) {
    case Msg::Found:
        c.found = true;
        ev.summary = "graph key {" + p.key + "}: found";
        break;
    case Msg::NeedsRecapture:
        ev.summary = "graph key {" + p.key + "}: found, recapture";
        break;
    case Msg::NoRecapture:
        ev.summary = "graph key {" + p.key + "}: found, replay";
        break;
    case Msg::StartCapture:
        c.capturing = true;
        ev.summary = "capture graph key {" + c.rec.key + "}";
        break;
    case Msg::Captured:
        c.capturing = c.captured = true;
        ev.summary = "capture graph key {" + c.rec.key + "}";
        break;
    case Msg::Counters:
        c.counters = true;
        for (size_t i = 0; i < 4; ++i)
            c.counts[i] = std::max<int64_t>(0, p.counts[i]);
        break;
    case Msg::CaptureLimit:
        c.fallback = true;
        c.limitOption = p.option;
        c.limit = p.limit;
        break;
    case Msg::ResetBefore:
    case Msg::ResetAfter:
        if (!p.graph.empty() && !p.pool.empty()) {
            GraphState& g = graph(p.graph);
            const memory::PoolId pool { uint64_t(std::max<int64_t>(0, numberAfter(p.pool, "("))),
                uint64_t(std::max<int64_t>(0, numberAfter(p.pool, ", "))) };
            m_run.sim.graphs[size_t(g.record)].pool = pool;
            g.poolKnown = true;
        }
        break;
    case Msg::InputCopy:
        c.copySeconds = p.seconds;
        ev.summary = "input update: foreach copy took " + std::to_string(p.seconds) + " s";
        break;
    case Msg::Retained:
        ev.summary = "outputs retained";
        break;
    case Msg::OutputsAlive:
        ev.summary = "outputs alive: not reconstructed";
        break;
    case Msg::BeforeRebuild:
    case Msg::AfterRebuild:
        ev.summary = "outputs reconstructed";
        break;
    default:
        break;
    }
    if (p.hasState) {
        c.state = parseState(p.state);
        c.hasState = true;
        ev.memory.clear();
        for (const PoolCallState& s : c.state) {
            runtime::PoolSnapshot snap;
            snap.device = s.device;
            snap.pool = s.pool;
            snap.reserved = s.totalSize;
            snap.allocated = s.allocatedSize;
            ev.memory.push_back(snap);
        }
        pools(c.state, e.line);
    }
}

void TorchairBuilder::closeCall()
{
    if (!m_call.open)
        return;
    Call& c = m_call;
    c.open = false;
    m_eventOpen = false;
    CallRecord& rec = c.rec;
    rec.eventCount = m_run.eventCount() - rec.firstEvent;
    if (rec.graph.empty()) {
        // Only lines that name no FX graph (a DEBUG timing line, a log cut mid-call): no call we can tell.
        note("line " + std::to_string(c.firstLine) + ": a call whose lines name no FX graph (kept, graph unknown)");
    }
    const bool newGraph = !m_graphs.count(rec.graph);
    GraphState& g = graph(rec.graph);
    GraphRecord& gr = m_run.sim.graphs[size_t(g.record)];
    if (!newGraph)
        m_cameBack = true;
    else if (m_cameBack && !rec.graph.empty())
        lateGraph(rec);
    const bool known = std::find(g.captured.begin(), g.captured.end(), rec.key) != g.captured.end();
    if (!rec.key.empty() && std::find(gr.allKeys.begin(), gr.allKeys.end(), rec.key) == gr.allKeys.end())
        gr.allKeys.push_back(rec.key);
    if (c.fallback) {
        rec.action = CallAction::Eager;
        ++gr.eagerCalls;
        gr.fallbackToEager = true;
        gr.fallbackCall = rec.index;
        g.captured.clear();
        gr.keys.clear();
        gr.counters.clear(); // TorchAir pops the graph's counters when it falls back
        runtime::Hazard h;
        h.kind = HazardKind::Fallback;
        h.call = rec.index;
        h.graph = rec.graph;
        h.key = rec.key;
        h.concerns = c.limitOption;
        h.message = rec.graph + " reached " + c.limitOption
            + (c.limit >= 0 ? "=" + std::to_string(c.limit) : std::string()) + " at call " + std::to_string(rec.index)
            + " (graph key {" + rec.key + "}) and runs eagerly for every later call: TorchAir logs nothing for "
            + "those calls, so the log does not tell how many there were.";
        m_run.sim.hazards.push_back(h);
        note(rec.graph + ": calls after its fallback at call " + std::to_string(rec.index)
            + " run eagerly and TorchAir logs nothing for them: they are not in this run");
    } else if (c.capturing && !c.captured) {
        // "No find captured ..., and start to capture it." and no "Success to capture": the capture did
        // not finish (it raised: out of memory, say) or the log ends there.
        rec.action = CallAction::Raised;
        note("call " + std::to_string(rec.index) + " (line " + std::to_string(c.firstLine) + "): " + rec.graph
            + " started to capture graph key {" + rec.key + "} and no \"Success to capture\" follows: the capture "
            + "raised, or the log ends there");
    } else if (c.capturing) {
        const bool recapture = c.found || known;
        rec.action = recapture ? CallAction::Recapture : CallAction::Capture;
        ++gr.captures;
        ++gr.replays;
        if (recapture) {
            if (c.counters) {
                if (c.counts[1] > g.counts[1])
                    rec.recaptureCause = "mutated_input", ++gr.recapturesMutatedInput;
                else if (c.counts[2] > g.counts[2])
                    rec.recaptureCause = "core_limit", ++gr.recapturesCoreLimit;
                else if (c.counts[3] > g.counts[3])
                    rec.recaptureCause = "force", ++gr.recapturesForce;
            }
            if (rec.recaptureCause.empty())
                note("call " + std::to_string(rec.index) + " (line " + std::to_string(c.firstLine)
                    + "): a recapture whose cause no DEBUG counters line tells (cause unknown)");
            const int n = gr.recapturesMutatedInput + gr.recapturesCoreLimit + gr.recapturesForce;
            if (n >= runtime::rules::kStormAt && !g.stormReported) {
                g.stormReported = true;
                runtime::Hazard h;
                h.kind = HazardKind::RecaptureStorm;
                h.call = rec.index;
                h.graph = rec.graph;
                h.key = rec.key;
                h.concerns = rec.recaptureCause;
                h.message = runtime::rules::recaptureStorm(rec.graph, rec.index, gr.recapturesMutatedInput,
                    gr.recapturesCoreLimit, gr.recapturesForce, "the capture limit");
                m_run.sim.hazards.push_back(h);
            }
        }
        if (!known && !rec.key.empty()) {
            g.captured.push_back(rec.key);
            gr.keys.push_back(rec.key);
        }
    } else {
        rec.action = CallAction::Replay;
        ++gr.replays;
        if (!known && !rec.key.empty()) {
            note("graph " + rec.graph + " key {" + rec.key + "}: replayed at line " + std::to_string(c.firstLine)
                + " but its capture is not in the log (the log starts after it)");
            g.captured.push_back(rec.key);
            gr.keys.push_back(rec.key);
        }
    }
    if (c.counters) {
        g.counts = c.counts;
        gr.counters[runtime::text::capturedCounter(rec.graph)] = c.counts[0];
        if (c.counts[1])
            gr.counters[runtime::text::mutatedRecaptureCounter(rec.graph)] = c.counts[1];
        if (c.counts[2])
            gr.counters[runtime::text::coreLimitRecaptureCounter(rec.graph)] = c.counts[2];
        if (c.counts[3])
            gr.counters[runtime::text::forceRecaptureCounter(rec.graph)] = c.counts[3];
    }
    if (c.hasState)
        rec.pools = c.state; // the call's last logged state; the device's totals are not logged
    for (int i = rec.firstEvent; i < m_run.eventCount(); ++i) {
        m_run.event(i).graph = rec.graph;
        m_run.event(i).key = rec.key;
    }
    m_captures += rec.action == CallAction::Capture || rec.action == CallAction::Recapture;
    m_run.addCall(rec);
}

runtime::Simulation TorchairBuilder::finish()
{
    closeCall();
    m_run.finish();
    const std::string tool = m_npugraphEx && !m_torchair ? "npugraph_ex" : "TorchAir";
    m_run.sim.origin.recordedAs = tool + " log";
    // The device's totals are not logged: its peaks stay 0 (origin.log says "not logged"); the pools'
    // highest logged states are in m_run.sim.pools.
    if (!m_anyState)
        m_run.sim.sizesUnknown = "the log has no memory-state line (TorchAir prints them at DEBUG: "
                                 "TORCHAIR_LOG_LEVEL or set_logger_level('DEBUG') would give the pools' sizes)";
    else
        m_run.sim.assumptions.push_back("memory figures are the graph pools' as the DEBUG memory-state lines give "
                                        "them; the default pool and the device's capacity are not in the log");
    for (GraphRecord& g : m_run.sim.graphs)
        if (!m_graphs[g.name].poolKnown && !g.name.empty())
            m_run.sim.assumptions.push_back(
                g.name + "'s pool: unknown (no memory-state line after its first capture, no reset line)");
    m_run.sim.assumptions.insert(m_run.sim.assumptions.begin(),
        "read from a " + tool + " log: " + plural(m_run.callCount(), "call", "calls") + " logged, "
            + plural(m_captures, "capture", "captures") + "; calls TorchAir does not log (eager) are not counted");
    return std::move(m_run.sim);
}

} // namespace

std::unique_ptr<RunBuilder> makeTorchairBuilder(const std::string& path)
{
    return std::make_unique<TorchairBuilder>(path);
}

} // namespace engine::ingest::detail
