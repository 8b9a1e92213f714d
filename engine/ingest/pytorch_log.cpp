// PyTorch's TORCH_LOGS lines (cudagraphs, recompiles, perf_hints, cudagraph_static_inputs, graph_breaks)
// back into the CUDA Graph Trees run they tell (run_log.h). The texts are PyTorch 2.11's, as the
// simulator writes them (engine/runtime/cgt) and as the real logs in tests/data/real show them;
// docs/run-logs.md "PyTorch's lines" gives each rule and its source.
#include "engine/ingest/run_log_impl.h"

#include <algorithm>
#include <cctype>
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

namespace {

enum class Py {
    Other, ///< a compile-time line (static inputs, partitions, graph breaks, ...): before its call
    Tree, ///< "Recording cudagraph tree for graph without symints" / "... for symint key K"
    Checkpoint, ///< "Checkpointing cuda caching allocator state. Number of checkpoints N"
    Recompile, ///< "Recompiling function F in P:L" and its guard failures
    ReRecord, ///< "Re-recording function=F, reason=R"
    ReRecordInput, ///< its "input name: N. data pointer changed from A to B. ..." lines
    Warmup, ///< "Running warmup function=F": a call
    Record, ///< "Recording function=F, cuda_graph_id=N, inputs: ...": a call
    LimitHit, ///< "torch._dynamo hit config.recompile_limit (N)": a call Dynamo runs eagerly
    Skip, ///< "skipping cudagraphs due to R"
};

bool starts(std::string_view s, std::string_view p)
{
    return s.substr(0, p.size()) == p;
}

/// The compile id at the start of a message ("[0/1] Running warmup ..."), taken off.
std::string takeCompileId(std::string& m)
{
    if (m.size() < 5 || m[0] != '[')
        return {};
    const size_t close = m.find("] ");
    if (close == std::string::npos || close > 24 || !std::isdigit(static_cast<unsigned char>(m[1])))
        return {};
    std::string id = m.substr(1, close - 1);
    m.erase(0, close + 2);
    return id;
}

Py classify(const std::string& m)
{
    if (starts(m, "Recording cudagraph tree for "))
        return Py::Tree;
    if (starts(m, "Checkpointing cuda caching allocator state"))
        return Py::Checkpoint;
    if (starts(m, "Running warmup function="))
        return Py::Warmup;
    if (starts(m, "Re-recording function="))
        return Py::ReRecord;
    if (starts(m, "input name: "))
        return Py::ReRecordInput;
    if (starts(m, "Recording function="))
        return Py::Record;
    if (starts(m, "Recompiling function ") || starts(m, "    triggered by the following guard") || starts(m, "    - "))
        return Py::Recompile;
    if (starts(m, "torch._dynamo hit config."))
        return Py::LimitHit;
    if (m.find("skipping cudagraphs due to ") != std::string::npos)
        return Py::Skip;
    return Py::Other;
}

class PyTorchBuilder : public RunBuilder {
public:
    explicit PyTorchBuilder(const std::string& path)
    {
        m_run.sim.origin.kind = runtime::RunOriginKind::Recorded;
        m_run.sim.origin.log = true;
        m_run.sim.origin.recordedAs = "PyTorch log";
        m_run.sim.scenarioPath = path;
        m_run.sim.profile = memory::Profile::Cuda;
        m_run.sim.cuda = config::CudaOptions {}; // a CUDA Graph Trees run; its options are not logged
        m_run.sim.sizesUnknown = "PyTorch's TORCH_LOGS do not tell memory (a memory snapshot of the same job does)";
    }

    void add(const LogEntry& e) override;
    runtime::Simulation finish() override;

private:
    struct Pending {
        LogEntry entry;
        Py kind;
        std::string compileId;
    };
    struct Call {
        bool open = false;
        int simCall = -1;
        CallRecord rec;
        bool defined = false; ///< a warm-up, recording or limit hit made it a call
        int reRecords = 0;
        int firstLine = 0;
    };

    void line(const Pending& p, EventKind kind, const std::string& summary);
    void openCall(const Pending& first);
    void closeCall();
    void flushPrelude(bool intoCall);
    void splitReplayedChecks(const std::string& inputLine);
    void replayedChecks(size_t end);
    void checksWithoutRecording();
    GraphRecord& graph(const std::string& compileId);
    void note(const std::string& text) { m_run.note(text); }

    Call m_call;
    std::vector<Pending> m_prelude; ///< lines before the call they lead to
    /// The re-record checks in the prelude: "<input name> <old address>".
    std::set<std::string> m_preludeChecks;
    std::map<std::string, int> m_graphs; ///< compile id -> index in m_run.sim.graphs
    std::set<std::string> m_warned;
    std::map<std::string, std::pair<size_t, int>> m_skips; ///< compile id and reason -> (hazard, times)
    std::map<std::string, std::pair<size_t, int>> m_limits; ///< limit -> (hazard, calls over it)
    RecompileTracker m_recompiles { "warms up and records again" };
    std::map<std::string, std::vector<std::string>> m_unrecorded; ///< per compile id: sizes warmed up, not recorded
    std::map<std::string, std::set<std::string>> m_recorded; ///< per compile id: sizes recorded
};

GraphRecord& PyTorchBuilder::graph(const std::string& compileId)
{
    auto [it, added] = m_graphs.emplace(compileId, int(m_run.sim.graphs.size()));
    if (added) {
        GraphRecord g;
        g.name = compileId;
        m_run.sim.graphs.push_back(g);
    }
    return m_run.sim.graphs[size_t(it->second)];
}

void PyTorchBuilder::line(const Pending& p, EventKind kind, const std::string& summary)
{
    const int call = m_call.open ? m_call.rec.index : -1;
    if (!m_run.hasOpenEvents() || m_run.lastEvent().kind != kind || m_run.lastEvent().call != call
        || kind == EventKind::Capture || kind == EventKind::Eager) {
        Event& ev = m_run.newEvent();
        ev.call = call;
        ev.kind = kind;
        ev.graph = p.compileId;
        ev.summary = summary;
    }
    Event& ev = m_run.lastEvent();
    if (ev.graph.empty())
        ev.graph = p.compileId;
    if (p.entry.timeUs >= 0)
        ev.timeUs = p.entry.timeUs;
    const std::string text = p.compileId.empty() || p.entry.format == LogFormat::Foreign
        ? p.entry.message
        : "[" + p.compileId + "] " + p.entry.message;
    m_run.addLine(ev, LogLine { p.entry.level, text, p.entry.category, p.entry.line });
    if ((p.entry.level >= LogLevel::Warning || !p.entry.category.empty()) && m_warned.insert(text).second)
        m_run.sim.warnings.push_back(p.entry.category.empty() ? text : p.entry.category + ": " + text);
}

void PyTorchBuilder::openCall(const Pending& first)
{
    closeCall();
    m_call = Call {};
    m_call.open = true;
    m_call.simCall = first.entry.call;
    m_call.firstLine = first.entry.line;
    m_run.flushSteps(); // the run-level steps before it are whole
    m_call.rec.index = m_run.callCount();
    m_call.rec.firstEvent = m_run.eventCount();
}

/// The lines waiting for their call: into the call now open, or run-level (call -1) when none follows.
void PyTorchBuilder::flushPrelude(bool intoCall)
{
    std::vector<Pending> lines = std::move(m_prelude);
    m_prelude.clear();
    for (const Pending& p : lines) {
        if (intoCall && m_call.open && m_call.rec.graph.empty() && !p.compileId.empty())
            m_call.rec.graph = p.compileId;
        switch (p.kind) {
        case Py::Tree: {
            const size_t at = p.entry.message.find("symint key ");
            if (intoCall && at != std::string::npos)
                m_call.rec.key = p.entry.message.substr(at + 11);
            line(p, EventKind::KeyLookup, "a new function: its tree starts");
            break;
        }
        case Py::Checkpoint:
            line(p, EventKind::Rollback, "allocator checkpoint");
            break;
        case Py::ReRecord:
        case Py::ReRecordInput:
            line(p, EventKind::KeyLookup, "a recording's check failed: re-record");
            break;
        case Py::Recompile:
            line(p, EventKind::Compile, "Dynamo recompiles");
            break;
        case Py::Skip:
            line(p, EventKind::Compile, "cudagraphs skipped");
            break;
        default:
            line(p, EventKind::Compile, "compile");
        }
    }
}

void PyTorchBuilder::add(const LogEntry& e)
{
    if (m_prelude.size() >= kMaxStepLines && !m_call.open) { // lines of no call, without end: run-level
        flushPrelude(false);
        m_run.flushSteps();
    }
    Pending p { e, Py::Other, e.compileId };
    if (e.format == LogFormat::Foreign) { // a continuation of the line before (a stack, "input name: ...")
        if (starts(e.message, "input name: ")) {
            p.kind = Py::ReRecordInput;
        } else if (m_prelude.empty() && m_run.hasOpenEvents() && !m_run.lastEvent().log.empty()) {
            m_run.lastEvent().log.back().text += "\n" + e.message;
            if (!m_run.streaming() && !m_run.sim.log.empty())
                m_run.sim.log.back().text += "\n" + e.message;
            return;
        } else if (m_prelude.empty()) {
            return; // the step it continues has gone out already (streamed): dropped
        }
        if (!m_prelude.empty())
            p.compileId = m_prelude.back().compileId;
    }
    if (std::string id = takeCompileId(p.entry.message); !id.empty())
        p.compileId = id;
    if (p.kind == Py::Other)
        p.kind = classify(p.entry.message);
    if (p.kind == Py::ReRecordInput && e.call < 0)
        splitReplayedChecks(p.entry.message);
    if (p.kind == Py::Recompile)
        m_recompiles.add(p.entry.message, p.compileId, m_run.callCount(), m_run.sim.hazards);
    if (p.kind == Py::Skip) {
        // One hazard per compile and reason, counting how often the log repeats it.
        std::string reason = p.entry.message.substr(p.entry.message.find("skipping cudagraphs due to ") + 27);
        reason = reason.substr(0, reason.find(". Found from"));
        const std::string key = p.compileId + "\n" + reason;
        auto [it, added] = m_skips.emplace(key, std::make_pair(m_run.sim.hazards.size(), 0));
        ++it->second.second;
        if (added) {
            runtime::Hazard h;
            h.kind = HazardKind::CudagraphsSkipped;
            h.call = m_run.callCount();
            h.graph = p.compileId;
            h.concerns = reason;
            m_run.sim.hazards.push_back(h);
        }
        runtime::Hazard& h = m_run.sim.hazards[it->second.first];
        h.message = (p.compileId.empty() ? std::string("a compile") : "compile " + p.compileId)
            + " runs without CUDA graphs: skipping cudagraphs due to " + reason
            + (it->second.second > 1 ? " (logged " + std::to_string(it->second.second) + " times)" : std::string());
    }
    const bool defines = p.kind == Py::Warmup || p.kind == Py::Record || p.kind == Py::LimitHit;
    // Where a call starts: the simulator's form says it; else at a line that defines a call when the
    // call open already has one, and at a line that comes before a call once one is defined.
    bool fresh;
    if (e.call >= 0)
        fresh = !m_call.open || e.call != m_call.simCall;
    else
        fresh = defines ? !m_call.open || m_call.defined : m_call.open && m_call.defined;
    if (fresh && !defines && e.call < 0) {
        closeCall();
        m_prelude.push_back(p);
        return;
    }
    if (!defines && e.call < 0) {
        m_prelude.push_back(p);
        return;
    }
    if (fresh)
        openCall(p);
    if (!defines) { // the simulator's form, a line of the open call
        m_prelude.push_back(p);
        flushPrelude(true);
        if (p.kind == Py::ReRecord)
            ++m_call.reRecords;
        return;
    }
    m_preludeChecks.clear();
    if (p.kind != Py::Record && e.call < 0) { // checks before a warm-up are an earlier call's
        closeCall();
        checksWithoutRecording();
        openCall(m_prelude.empty() ? p : m_prelude.front());
    }
    for (const Pending& q : m_prelude)
        m_call.reRecords += q.kind == Py::ReRecord;
    flushPrelude(true);
    Call& c = m_call;
    c.defined = true;
    if (!p.compileId.empty())
        c.rec.graph = p.compileId;
    GraphRecord& g = graph(c.rec.graph);
    if (!c.rec.key.empty() && std::find(g.allKeys.begin(), g.allKeys.end(), c.rec.key) == g.allKeys.end())
        g.allKeys.push_back(c.rec.key);
    switch (p.kind) {
    case Py::Warmup:
        c.rec.action = CallAction::Warmup;
        m_unrecorded[c.rec.graph].push_back(c.rec.key);
        ++g.eagerCalls;
        g.counters["warmups"]++;
        line(p, EventKind::Eager, "warm-up");
        break;
    case Py::Record: {
        // Which size: cudagraph_trees.py records the oldest size warmed up and not yet recorded
        // (docs/cuda-graph-trees.md; engine/scenario/trace_scenario.cpp takes the same rule).
        auto& waiting = m_unrecorded[c.rec.graph];
        if (c.rec.key.empty() && !waiting.empty())
            c.rec.key = waiting.front();
        if (auto it = std::find(waiting.begin(), waiting.end(), c.rec.key); it != waiting.end())
            waiting.erase(it);
        const bool again = c.reRecords > 0 || !m_recorded[c.rec.graph].insert(c.rec.key).second;
        c.rec.action = again ? CallAction::Recapture : CallAction::Capture;
        ++g.captures;
        if (again) {
            // cudagraph_trees.py: a function recorded before records again when a recording's check
            // failed (its Re-recording lines say why) or when its recordings' outputs are expected dead.
            c.rec.recaptureCause = c.reRecords > 0 ? "input_moved" : "expected_dead";
            ++g.recapturesMutatedInput;
            g.counters["rerecords"]++;
            if (g.counters["rerecords"]
                == kRepeatHazard) { // the simulator's rule (engine/runtime/cgt/cgt_run_calls.cpp)
                runtime::Hazard h;
                h.kind = HazardKind::RecaptureStorm;
                h.call = c.rec.index;
                h.graph = c.rec.graph;
                h.key = c.rec.key;
                h.concerns = "re-records";
                h.message = "compile " + c.rec.graph + " has been recorded again 3 times by call "
                    + std::to_string(c.rec.index) + " of the log: every recording stays in the pool; keep static "
                    + "inputs (weights, KV caches) at fixed addresses";
                m_run.sim.hazards.push_back(h);
            }
        }
        g.counters["recordings"]++;
        if (std::find(g.keys.begin(), g.keys.end(), c.rec.key) == g.keys.end())
            g.keys.push_back(c.rec.key);
        const size_t id = p.entry.message.find("cuda_graph_id=");
        line(p, EventKind::Capture,
            std::string(again ? "re-record" : "record")
                + (id == std::string::npos
                        ? ""
                        : " cuda_graph_id=" + std::to_string(std::atoi(p.entry.message.c_str() + id + 14))));
        break;
    }
    case Py::LimitHit: {
        c.rec.action = CallAction::Eager;
        ++g.eagerCalls;
        // convert_frame.py: "torch._dynamo hit config.<limit> (<n>)": one hazard per limit, counting the
        // calls it sent to eager.
        const size_t paren = p.entry.message.find(" (");
        const std::string limit = p.entry.message.substr(25, paren == std::string::npos ? paren : paren - 25);
        const std::string value = paren == std::string::npos ? std::string() : p.entry.message.substr(paren);
        auto [it, added] = m_limits.emplace(limit, std::make_pair(m_run.sim.hazards.size(), 0));
        ++it->second.second;
        if (added) {
            g.fallbackToEager = true;
            g.fallbackCall = c.rec.index;
            runtime::Hazard h;
            h.kind = HazardKind::RecompileLimit;
            h.call = c.rec.index;
            h.graph = c.rec.graph;
            h.concerns = "torch._dynamo.config." + limit;
            m_run.sim.hazards.push_back(h);
        }
        runtime::Hazard& h = m_run.sim.hazards[it->second.first];
        h.message = "Dynamo hit torch._dynamo.config." + limit + value + " at compile " + h.graph + ": "
            + std::to_string(it->second.second)
            + (it->second.second == 1 ? " call needing a new compile ran" : " calls needing a new compile ran")
            + " eagerly, without CUDA graphs (or raised, with fullgraph=True)";
        line(p, EventKind::Compile, "over the recompile limit: eager");
        break;
    }
    default:
        break;
    }
}

/// One call checks each recording once, in order, each against that call's address of the input: a
/// check of the same input from the same old address again belongs to the next call, and the checks
/// before it to a call that replayed a recording whose check passed (no recording follows them).
/// Those lines become that call.
void PyTorchBuilder::splitReplayedChecks(const std::string& message)
{
    const size_t from = message.find("data pointer changed from ");
    const size_t dot = message.find(". ", 12);
    if (from == std::string::npos || dot == std::string::npos)
        return;
    const size_t end = message.find(' ', from + 26);
    const std::string check = message.substr(12, dot - 12) + " " + message.substr(from + 26, end - from - 26);
    if (m_preludeChecks.insert(check).second)
        return;
    m_preludeChecks.clear();
    m_preludeChecks.insert(check);
    size_t header = m_prelude.size();
    while (header > 0 && m_prelude[header - 1].kind != Py::ReRecord)
        --header;
    if (header == 0)
        return;
    replayedChecks(header - 1); // the current check's "Re-recording" line starts the current call's lines
}

void PyTorchBuilder::replayedChecks(size_t end)
{
    std::vector<Pending> rest(m_prelude.begin() + long(end), m_prelude.end());
    m_prelude.resize(end);
    if (!m_prelude.empty()) {
        closeCall();
        openCall(m_prelude.front());
        for (const Pending& q : m_prelude)
            m_call.reRecords += q.kind == Py::ReRecord;
        flushPrelude(true);
        closeCall();
    }
    m_prelude = std::move(rest);
}

/// The prelude's re-record checks, when no recording follows them (a warm-up, another compile, the
/// end of the log): a call that replayed.
void PyTorchBuilder::checksWithoutRecording()
{
    size_t last = m_prelude.size();
    while (last > 0 && m_prelude[last - 1].kind != Py::ReRecord && m_prelude[last - 1].kind != Py::ReRecordInput)
        --last;
    if (last > 0)
        replayedChecks(last);
    m_preludeChecks.clear();
}

void PyTorchBuilder::closeCall()
{
    if (!m_call.open)
        return;
    Call& c = m_call;
    c.open = false;
    if (!c.defined) {
        // Re-recording lines with no recording after them: the call replayed another recording that
        // matched (PyTorch logs no replay).
        if (c.reRecords > 0) {
            c.rec.action = CallAction::Replay;
            note("line " + std::to_string(c.firstLine) + ": re-record checks failed and no recording follows: the "
                + "call replayed a recording whose check passed (inferred)");
        } else {
            for (int i = c.rec.firstEvent; i < m_run.eventCount(); ++i)
                m_run.event(i).call = -1; // nothing a call does: its lines are run-level
            return;
        }
        ++graph(c.rec.graph).replays;
    }
    c.rec.eventCount = m_run.eventCount() - c.rec.firstEvent;
    for (int i = c.rec.firstEvent; i < m_run.eventCount(); ++i) {
        m_run.event(i).graph = c.rec.graph;
        m_run.event(i).key = c.rec.key;
    }
    m_run.addCall(c.rec);
}

runtime::Simulation PyTorchBuilder::finish()
{
    closeCall();
    checksWithoutRecording();
    flushPrelude(false);
    m_run.finish();
    m_run.sim.assumptions.insert(m_run.sim.assumptions.begin(),
        "read from a PyTorch log: " + std::to_string(m_run.callCount())
            + " calls logged (warm-ups, recordings, calls over the recompile limit); PyTorch logs no replay, so "
              "replays are not counted"
            + (m_recompiles.count() ? "; " + std::to_string(m_recompiles.count()) + " recompiles" : ""));
    return std::move(m_run.sim);
}

} // namespace

std::unique_ptr<RunBuilder> makePyTorchBuilder(const std::string& path)
{
    return std::make_unique<PyTorchBuilder>(path);
}

} // namespace engine::ingest::detail
