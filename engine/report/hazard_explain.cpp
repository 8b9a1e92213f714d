#include "engine/report/hazard_explain.h"

#include "engine/config/options.h"
#include "engine/report/cgt_hazard_explain.h"

#include <algorithm>
#include <cstdlib>
#include <set>

namespace engine::report {

using runtime::CallAction;
using runtime::CallRecord;
using runtime::Event;
using runtime::EventKind;
using runtime::Hazard;
using runtime::HazardKind;
using runtime::LogLevel;
using runtime::Simulation;

namespace {

/// Which front end's words to use. A recording (a memory snapshot) says nothing about TorchAir, and
/// may come from CUDA Graph Trees: its advice names both backends' options and says so.
enum class Front { TorchAir, NpugraphEx, Unknown };

Front frontOf(const Simulation& sim)
{
    if (sim.origin.kind == runtime::RunOriginKind::Recorded)
        return Front::Unknown;
    return sim.options.backend == config::Backend::NpugraphEx ? Front::NpugraphEx : Front::TorchAir;
}

const config::OptionSpec* specOf(const std::string& npugraphExName)
{
    for (const config::OptionSpec& s : config::optionTable())
        if (s.npugraphExName == npugraphExName)
            return &s;
    return nullptr;
}

/// The option's name in the run's spelling: "debug.aclgraph.enable_output_clone" (torchair),
/// "clone_output" (npugraph_ex), both when the backend is not known, and "(npugraph_ex only)" for an
/// option torchair lacks.
std::string optionName(Front f, const std::string& npugraphExName)
{
    const config::OptionSpec* s = specOf(npugraphExName);
    const std::string torchair = s ? s->torchairName : std::string();
    switch (f) {
    case Front::NpugraphEx:
        return npugraphExName;
    case Front::TorchAir:
        return torchair.empty() ? npugraphExName + " (npugraph_ex only)" : torchair;
    case Front::Unknown:
        break;
    }
    return torchair.empty() ? npugraphExName + " (npugraph_ex)"
                            : torchair + " (torchair) or " + npugraphExName + " (npugraph_ex)";
}

/// The setting that gives the npugraph_ex option `npugraphExName` the meaning `value`, in the run's
/// spelling: torchair's inverted names take the opposite value ("disable_mempool_reuse_in_same_fx=True"
/// for reuse_graph_pool_in_same_fx=False).
std::string setting(Front f, const std::string& npugraphExName, bool value)
{
    const config::OptionSpec* s = specOf(npugraphExName);
    const bool inverted = s && s->inverted;
    const std::string torchair = s ? s->torchairName : std::string();
    auto py = [](bool b) { return std::string(b ? "True" : "False"); };
    const std::string ex = npugraphExName + "=" + py(value);
    const std::string ta = torchair.empty() ? std::string() : torchair + "=" + py(inverted ? !value : value);
    switch (f) {
    case Front::NpugraphEx:
        return ex;
    case Front::TorchAir:
        return ta.empty() ? ex + " (npugraph_ex only)" : ta;
    case Front::Unknown:
        break;
    }
    return ta.empty() ? ex + " (npugraph_ex)" : ta + " (torchair) or " + ex + " (npugraph_ex)";
}

std::string frontName(Front f)
{
    return f == Front::NpugraphEx ? "npugraph_ex" : f == Front::TorchAir ? "TorchAir" : "the runtime";
}

std::string callText(int call)
{
    return "call " + std::to_string(call);
}

std::string keyText(const std::string& graph, const std::string& key)
{
    return key.empty() ? graph : graph + " key {" + key + "}";
}

const CallRecord* callRecord(const Simulation& sim, int call)
{
    if (call >= 0 && call < int(sim.calls.size()) && sim.calls[size_t(call)].index == call)
        return &sim.calls[size_t(call)];
    for (const CallRecord& c : sim.calls)
        if (c.index == call)
            return &c;
    return nullptr;
}

const runtime::GraphRecord* graphRecord(const Simulation& sim, const std::string& name)
{
    for (const auto& g : sim.graphs)
        if (g.name == name)
            return &g;
    return nullptr;
}

/// The events of `call` as [first, last): its record's range when the record has one that fits the
/// event list, else a scan (the call an OOM ended has no record).
std::pair<int, int> eventsOfCall(const Simulation& sim, int call)
{
    const int n = int(sim.events.size());
    if (const CallRecord* c = callRecord(sim, call); c && c->eventCount > 0 && c->firstEvent >= 0
        && c->firstEvent + c->eventCount <= n && sim.events[size_t(c->firstEvent)].call == call)
        return { c->firstEvent, c->firstEvent + c->eventCount };
    int first = -1, last = -1;
    for (int i = 0; i < n; ++i)
        if (sim.events[size_t(i)].call == call) {
            if (first < 0)
                first = i;
            last = i + 1;
        }
    return first < 0 ? std::pair<int, int> { 0, 0 } : std::pair<int, int> { first, last };
}

/// The text between `from` and `to` in `s` ("" when either is missing).
std::string between(const std::string& s, const std::string& from, const std::string& to)
{
    const size_t a = s.find(from);
    if (a == std::string::npos)
        return {};
    const size_t b = s.find(to, a + from.size());
    return b == std::string::npos ? std::string() : s.substr(a + from.size(), b - a - from.size());
}

/// A log line as the run printed it: "UserWarning: <text>" for a warnings.warn text, "[LEVEL] <text>"
/// for a logger line.
std::string quoteOf(const runtime::LogLine& l)
{
    return l.category.empty() ? "[" + std::string(runtime::logLevelName(l.level)) + "] " + l.text
                              : l.category + ": " + l.text;
}

/// Collects quotes, each text once: TorchAir prints its capture-limit warning twice (warnings.warn and
/// logger.warning), which says nothing more the second time.
struct Quotes {
    std::vector<std::string> lines;
    std::set<std::string> texts;
    void add(const runtime::LogLine& l)
    {
        if (texts.insert(l.text).second)
            lines.push_back(quoteOf(l));
    }
    /// The lines of event `e` at `min` or above that contain `needle` (any line when empty).
    void addFrom(const Event& e, LogLevel min, const std::string& needle = {})
    {
        for (const runtime::LogLine& l : e.log)
            if (int(l.level) >= int(min) && (needle.empty() || l.text.find(needle) != std::string::npos))
                add(l);
    }
};

struct Ctx {
    const Simulation& sim;
    const Hazard& h;
    int index;
    Front front;
    HazardExplanation out;

    std::string opt(const std::string& name) const { return optionName(front, name); }
    std::string set(const std::string& name, bool value) const { return setting(front, name, value); }
    /// The events of the hazard's call that belong to its graph (or to no graph), of one of `kinds`.
    template <typename F> void forCallEvents(std::initializer_list<EventKind> kinds, F&& f) const
    {
        const auto [first, last] = eventsOfCall(sim, h.call);
        for (int i = first; i < last; ++i) {
            const Event& e = sim.events[size_t(i)];
            if ((e.graph.empty() || e.graph == h.graph) && std::find(kinds.begin(), kinds.end(), e.kind) != kinds.end())
                f(e);
        }
    }
    /// The last call at or before the hazard's that captured its graph's key.
    int captureCall() const
    {
        int found = -1;
        for (const CallRecord& c : sim.calls)
            if (c.index <= h.call && c.graph == h.graph && c.key == h.key
                && (c.action == CallAction::Capture || c.action == CallAction::Recapture))
                found = c.index;
        return found;
    }
};

void outputOverwritten(Ctx& c)
{
    const Hazard& h = c.h;
    const CallRecord* made = callRecord(c.sim, h.madeAtCall);
    const bool sameGraph = made && made->graph == h.graph;
    const bool sameKey = sameGraph && made->key == h.key;
    c.out.title = "Output overwritten by a later replay";
    std::string madeBy = made ? keyText(made->graph, made->key) : std::string("its graph");
    // concerns reads "output 0 (logits) of call 1"; the call is said with its graph and key below.
    std::string output = h.concerns.empty() ? std::string("an output") : h.concerns;
    if (const size_t of = output.rfind(" of call "); of != std::string::npos)
        output.erase(of);
    c.out.what = "The caller still held " + output + ", returned by " + callText(h.madeAtCall) + " (" + madeBy
        + "), when " + callText(h.call) + " replayed " + keyText(h.graph, h.key)
        + ". The replay writes the memory that output lives in, so the tensor the caller " + "holds now has "
        + callText(h.call) + "'s result.";
    std::string why = "A captured graph replays at the memory addresses fixed when it was captured, and with "
        + c.opt("clone_output")
        + " off TorchAir returns its outputs at those addresses without a copy: with one key (or with memory "
          "reuse in the FX graph off) the same tensor objects on every call, with several keys tensors rebuilt at "
          "the captured addresses. Every replay writes that memory again.";
    if (sameGraph && !sameKey)
        why += " Before it captures another key of an FX graph, TorchAir rolls the graph's pool back to its state "
               "before the first capture (_npu_setCheckpointPoolState with _original_mem_state), so every key is "
               "captured into the same memory, and outputs of other keys still alive are declared stale: their "
               "blocks count as free.";
    else if (made && !sameGraph)
        why += " " + h.graph + " and " + made->graph + " use the same memory pool (a custom pool: "
            + c.opt("use_graph_pool") + "), and " + h.graph + "'s captured memory covers the held output.";
    c.out.why = why;

    c.out.avoid.push_back("Clone what you keep before the next call of " + h.graph
        + " (out = out.clone(), or copy it to the host), or stop holding the output past that call.");
    c.out.avoid.push_back("Set " + c.set("clone_output", true)
        + ": every returned tensor is cloned into fresh memory outside the graph's pool (one copy per output per "
          "call), unless it aliases a user input.");
    if (sameGraph && !sameKey)
        c.out.avoid.push_back("Or set " + c.set("reuse_graph_pool_in_same_fx", false) + ": each key of " + h.graph
            + " keeps its own memory, so one key's replay no longer writes another key's outputs; the pool then grows "
              "with every key, and a key's replay still overwrites its own earlier outputs.");
    if (c.front == Front::Unknown)
        c.out.avoid.push_back("Under CUDA Graph Trees the rule is the same between generations (a new torch.compile "
                              "invocation, or torch.compiler.cudagraph_mark_step_begin()): PyTorch raises \"Error: "
                              "accessing tensor output of CUDAGraphs that has been overwritten by a subsequent run\" "
                              "when the old output is used; clone it before the next invocation.");

    // TorchAir's warning comes from reconstruct_outputs when it rebuilds outputs, once per process.
    const std::string warning = "Because acl graph fixes memory addresses";
    Quotes q;
    c.forCallEvents({ EventKind::Outputs }, [&](const Event& e) { q.addFrom(e, LogLevel::Warning, warning); });
    if (q.lines.empty()) {
        int printedAt = -1;
        for (const Event& e : c.sim.events) {
            if (e.kind != EventKind::Outputs)
                continue;
            q.addFrom(e, LogLevel::Warning, warning);
            if (!q.lines.empty()) {
                printedAt = e.call;
                break;
            }
        }
        c.out.what += printedAt >= 0 ? " " + frontName(c.front) + " printed its warning at " + callText(printedAt)
                + " only (a UserWarning shows once per process)."
                                     : " " + frontName(c.front)
                + " printed no warning for it: its warning comes only when it rebuilds outputs (more than one key of "
                  "an FX graph with memory reuse on), once per process.";
    }
    c.out.quotes = std::move(q.lines);
    c.out.source = "torchair-behavior.md §2.6 (TA/acl_graph.py: reconstruct_outputs) and §3 (same-FX reuse); the "
                   "simulator's Simulator::replay (engine/runtime/sim_outputs.cpp); docs/simulator.md \"Hazards\"";
}

void userInputOverwritten(Ctx& c)
{
    const Hazard& h = c.h;
    std::string input;
    c.forCallEvents({ EventKind::InputUpdate }, [&](const Event& e) {
        for (const runtime::InputAction& a : e.inputs)
            if (input.empty() && a.action == "copy_into_first_tensor"
                && a.detail.find("'" + h.concerns + "'") != std::string::npos)
                input = a.input;
    });
    const int captured = c.captureCall();
    c.out.title = "User tensor overwritten by a later call's input";
    c.out.what = "With " + c.opt("clone_input") + " off, " + callText(h.call) + " passed "
        + (input.empty() ? std::string("an input") : "input " + input) + " of " + keyText(h.graph, h.key)
        + " at another address than at the capture, so TorchAir copied it into the tensor captured "
        + (captured >= 0 ? "at " + callText(captured) + ", " : std::string()) + "'" + h.concerns
        + "', which the caller still uses: it now holds " + callText(h.call)
        + "'s input, and every later call whose input moves writes it again.";
    c.out.why = "With " + c.opt("clone_input")
        + " off TorchAir keeps no staging buffer: the captured graph reads the user's own tensor of the capturing "
          "call (retained_userinputs), and process_input copies each later input whose address differs into that "
          "tensor, since the graph reads only that address.";
    c.out.avoid.push_back("Set " + c.set("clone_input", true)
        + " (the default): each user input gets a staging buffer in the graph's pool and every call copies its "
          "input there; the caller's tensors are never written (one copy per input per call).");
    c.out.avoid.push_back("Or pass the same tensor on every call of " + keyText(h.graph, h.key)
        + ": write the new values into it in place (x.copy_(new)) before the call, so its address never changes "
          "and nothing is copied.");
    c.out.avoid.push_back(
        "Or stop using '" + h.concerns + "' after its first call: treat it as the graph's buffer from then on.");
    c.out.source = "torchair-behavior.md §2.2 (capture: retained_userinputs) and §2.4 (TA/acl_graph.py: "
                   "process_input); the simulator's Simulator::processInput (engine/runtime/sim_outputs.cpp)";
}

void staleParameter(Ctx& c)
{
    const Hazard& h = c.h;
    const std::string moved = between(h.message, "moved from ", " but");
    const int captured = c.captureCall();
    c.out.title = "Stale parameter: the graph reads a weight's old address";
    c.out.what = "Parameter " + h.concerns + (moved.empty() ? " moved" : " moved from " + moved) + " by "
        + callText(h.call) + ", but " + c.opt("frozen_parameter") + " was on: " + keyText(h.graph, h.key)
        + " replays with the address captured" + (captured >= 0 ? " at " + callText(captured) : std::string())
        + " and computes with whatever that memory holds, not with the new weights.";
    c.out.why = "With " + c.opt("frozen_parameter")
        + " on, TorchAir leaves parameter addresses out of the graph key (without it the key ends in a hash of "
          "every parameter's data_ptr), never compares them before a replay (is_need_to_recapture checks only "
          "mutated inputs and core limits), and never copies parameters in process_input: the captured graph keeps "
          "reading the addresses of its capture.";
    c.out.avoid.push_back("Keep every parameter at one address for the life of the program: update weights in place "
                          "(under torch.no_grad(): p.copy_(new)) instead of assigning new tensors, reloading or moving "
                          "the module after the first call.");
    c.out.avoid.push_back("Or set " + c.set("frozen_parameter", false)
        + ": a parameter at a new address then gives a new graph key, a fresh capture (each one counts against "
        + c.opt("capture_limit") + ").");
    Quotes q;
    for (const Event& e : c.sim.events)
        if (e.kind == EventKind::Compile)
            q.addFrom(e, LogLevel::Warning, "When enable frozen_parameter");
    c.out.quotes = std::move(q.lines);
    c.out.source = "torchair-behavior.md §1.3 (the frozen_parameter warning), §2.2 (graph key), §2.3 "
                   "(is_need_to_recapture), §2.4 (process_input); the simulator's Simulator::processInput "
                   "(engine/runtime/sim_outputs.cpp)";
}

void staleCheckpoint(Ctx& c)
{
    const Hazard& h = c.h;
    c.out.title = "Live tensor freed by a pool rollback";
    c.out.what = "Tensor '" + h.concerns + "' was still alive when a rollback of " + h.graph + "'s pool at "
        + callText(h.call)
        + " freed its memory, and it was not among the stale storages passed to _npu_setCheckpointPoolState.";
    c.out.why = "_npu_setCheckpointPoolState frees every allocated block of the pool and re-creates the blocks of the "
                "checkpoint; the freed pointers that are not re-created must be covered by the stale storages passed, "
                "else torch_npu fails. TorchAir passes the storages of its own still-alive outputs. TorchAir's own "
                "flow does not reach this: the simulator reports it as a check on its model, so the scenario that "
                "reaches it is worth a look.";
    c.out.avoid.push_back("Set " + c.set("reuse_graph_pool_in_same_fx", false) + ": no rollback runs in " + h.graph
        + "'s pool (the pool then grows with every key).");
    c.out.avoid.push_back("Or drop '" + h.concerns + "' before " + callText(h.call) + ".");
    c.out.quotes.push_back("Any stale tensors which are being manually freed must be passed to set checkpoint");
    c.out.quotesFrom = "torch_npu (the error its allocator would raise)";
    c.out.source = "npu-caching-allocator.md §3.2-3.3 (setCheckpointPoolState) and §3.5; torchair-behavior.md §2.2, "
                   "§2.6; the simulator's Simulator::restorePool (engine/runtime/sim_exec.cpp); docs/simulator.md "
                   "\"Hazards\"";
}

/// The names of the in-place (mutated) inputs of `graph` whose address at call `call` differs from the
/// previous call of the same key: the InputUpdate details name each one's address.
std::vector<std::string> movedMutatedInputs(const Simulation& sim, const CallRecord& call)
{
    const CallRecord* before = nullptr;
    for (const CallRecord& c : sim.calls)
        if (c.index < call.index && c.graph == call.graph && c.key == call.key)
            before = &c;
    auto actions = [&](const CallRecord* rec) -> const std::vector<runtime::InputAction>* {
        if (!rec)
            return nullptr;
        for (int i = rec->firstEvent; i < rec->firstEvent + rec->eventCount && i < int(sim.events.size()); ++i)
            if (sim.events[size_t(i)].kind == EventKind::InputUpdate)
                return &sim.events[size_t(i)].inputs;
        return nullptr;
    };
    const auto* now = actions(&call);
    const auto* then = actions(before);
    std::vector<std::string> moved;
    if (!now || !then)
        return moved;
    for (const runtime::InputAction& a : *now)
        for (const runtime::InputAction& b : *then)
            if (a.action == "in_place" && b.action == "in_place" && a.input == b.input && !a.detail.empty()
                && a.detail != b.detail)
                moved.push_back(a.input);
    return moved;
}

void recaptureStorm(Ctx& c)
{
    const Hazard& h = c.h;
    int mutated = 0, core = 0, force = 0;
    std::set<std::string> moved;
    for (const CallRecord& rec : c.sim.calls) {
        if (rec.index > h.call || rec.graph != h.graph || rec.action != CallAction::Recapture)
            continue;
        if (rec.recaptureCause == "mutated_input") {
            ++mutated;
            for (const std::string& name : movedMutatedInputs(c.sim, rec))
                moved.insert(name);
        } else if (rec.recaptureCause == "core_limit") {
            ++core;
        } else if (rec.recaptureCause == "force") {
            ++force;
        }
    }
    const int total = mutated + core + force;
    c.out.title = "Recapture storm: a graph keeps being captured again";
    c.out.what = h.graph + " was recaptured " + std::to_string(total) + " times by " + callText(h.call)
        + " (mutated input moved: " + std::to_string(mutated) + ", core limit changed: " + std::to_string(core)
        + ", force_recapture: " + std::to_string(force) + ")";
    if (!moved.empty()) {
        std::string names;
        for (const std::string& n : moved)
            names += (names.empty() ? "" : ", ") + n;
        c.out.what += "; the mutated inputs that moved: " + names;
    }
    c.out.what += ".";
    std::string why;
    if (mutated)
        why += "Before each replay TorchAir compares the address of every input the graph writes in place "
               "(captured_mutated_inputs) with the call's: at another address the captured graph would write the "
               "old tensor, so the key is captured again. ";
    if (core)
        why += "It recaptures when the stream's cube or vector core limit differs from the one saved at the capture. ";
    if (force)
        why += "npugraph_ex's force_recapture recaptures an existing key on every call. ";
    why += "Each recapture is a whole capture, and it counts: once the FX graph holds as many keys as "
        + c.opt("capture_limit") + " allows, the next recapture makes it fall back to eager for good.";
    c.out.why = why;
    if (mutated)
        c.out.avoid.push_back("Keep every input the graph mutates (a KV cache, a running buffer) at one address: "
                              "allocate it once before the first call and update it in place; never pass a new tensor "
                              "in its place.");
    if (core)
        c.out.avoid.push_back(
            "Set the stream's core limit once, before the first call of " + h.graph + ", and keep it.");
    if (force)
        c.out.avoid.push_back("Set " + c.set("force_recapture", false) + ".");
    c.out.avoid.push_back("If the recaptures are expected, raise " + c.opt("capture_limit")
        + " above the number of keys " + h.graph + " holds, so that a recapture never reaches it.");
    if (c.front == Front::Unknown)
        c.out.avoid.push_back("Under CUDA Graph Trees a re-record counts against "
                              "triton.cudagraph_unexpected_rerecord_limit (default 128), beyond which the function "
                              "runs eagerly.");
    Quotes q;
    c.forCallEvents({ EventKind::KeyLookup, EventKind::Capture }, [&](const Event& e) {
        q.addFrom(e, LogLevel::Debug, "AclGraph needs to be recaptured");
        q.addFrom(e, LogLevel::Debug, "For graph " + h.graph + " : the count of captures");
    });
    c.out.quotes = std::move(q.lines);
    c.out.source = "torchair-behavior.md §2.3 (TA/acl_graph.py: is_need_to_recapture, the capture limit) and §3 "
                   "item 4; the simulator's Simulator::captureKey (engine/runtime/simulator.cpp): reported at the "
                   "third recapture";
}

void recompilePerCall(Ctx& c)
{
    c.out.title = "A recompile on call after call: a new FX graph each time";
    c.out.what = c.h.message;
    c.out.why
        = "TorchAir compiles each FX graph Dynamo makes into its own AclGraph, with its own memory pool, keys and "
          "counters (graph_<N>, N counting every FX graph the process compiled). A new graph_<N> on call after "
          "call means Dynamo recompiles each time: with dynamic=False every new input shape is a new FX graph, "
          "and a guard that fails on each call does the same. Each one captures again and keeps its pool.";
    c.out.avoid = { "Compile with dynamic=True (or torch._dynamo.mark_dynamic on the changing dimension) so new sizes "
                    "are keys of one FX graph, not new graphs.",
        "Find the failing guard with TORCH_LOGS=recompiles and keep what it checks constant." };
    c.out.source = "torchair-behavior.md §2.2 (graph key; dynamic=False); docs/run-logs.md";
}

void fallback(Ctx& c)
{
    const Hazard& h = c.h;
    const std::string limitText = between(h.message, h.concerns + "=", " ");
    const long long limit = limitText.empty() ? -1 : std::atoll(limitText.c_str());
    std::set<std::string> keysBefore;
    int recaptures = 0, eagerAfter = 0;
    for (const CallRecord& rec : c.sim.calls) {
        if (rec.graph != h.graph)
            continue;
        if (rec.index < h.call && !rec.key.empty())
            keysBefore.insert(rec.key);
        if (rec.index < h.call && rec.action == CallAction::Recapture)
            ++recaptures;
        if (rec.index >= h.call && rec.action == CallAction::Eager)
            ++eagerAfter;
    }
    const bool recapture = keysBefore.count(h.key) > 0;
    const std::string limitName = c.opt("capture_limit");
    c.out.title = "Capture limit reached: the graph runs eagerly from now on";
    c.out.what = h.graph + " reached " + limitName + (limit >= 0 ? "=" + std::to_string(limit) : std::string()) + " at "
        + callText(h.call) + ": it held that many keys and graph key {" + h.key + "} needed "
        + (recapture ? "a recapture" : "a new capture") + ". TorchAir reset every captured graph of " + h.graph
        + ", and this call and every later call of it run eagerly (" + std::to_string(eagerAfter)
        + (eagerAfter == 1 ? " eager call" : " eager calls") + " of " + h.graph + " in this run from "
        + callText(h.call) + " on).";
    c.out.why = "Before every capture, of a new key or a recapture, TorchAir checks whether the FX graph already holds "
        + limitName
        + " keys; when it does it warns, resets every captured graph of the FX graph, pops its counters, empties the "
          "cache and runs the graph eagerly for good. So a limit of L allows L distinct keys: the next key, or any "
          "recapture while L keys are held, falls back.";
    c.out.avoid.push_back("If " + h.graph + " needs more keys, raise " + limitName + " to at least "
        + std::to_string(keysBefore.size() + (recapture ? 0 : 1)) + ", the number of distinct keys it had seen by "
        + callText(h.call) + ", or to what the whole program needs.");
    c.out.avoid.push_back("Or give " + h.graph
        + " fewer keys: each distinct tuple of the key's symbol values (dynamic shapes) is a capture of its own, so "
          "pad or bucket those sizes to a few values.");
    if (recaptures || recapture)
        c.out.avoid.push_back("Keep the inputs " + h.graph
            + " mutates at one address: with the limit's keys held, any recapture falls back.");
    if (c.front == Front::Unknown)
        c.out.avoid.push_back("Under CUDA Graph Trees the counterpart is triton.cudagraph_unexpected_rerecord_limit "
                              "(default 128) for re-records of one function.");
    Quotes q;
    for (const Event& e : c.sim.events)
        if (e.hazard == c.index)
            q.addFrom(e, LogLevel::Warning);
    if (q.lines.empty())
        c.forCallEvents({ EventKind::Fallback }, [&](const Event& e) { q.addFrom(e, LogLevel::Warning); });
    c.out.quotes = std::move(q.lines);
    c.out.source = "torchair-behavior.md §2.3 (TA/acl_graph.py: AclGraph.compile, reset_captured_graph) and §7; the "
                   "simulator's Simulator::fallBack (engine/runtime/simulator.cpp)";
}

void outOfMemory(Ctx& c)
{
    const Hazard& h = c.h;
    const bool cuda = h.message.rfind("CUDA", 0) == 0;
    c.out.title = "Out of memory: the device cannot hold the next segment";
    c.out.what = "Call " + std::to_string(h.call) + (h.graph.empty() ? std::string() : " (" + h.graph + ")")
        + " needed a new " + "segment of " + (h.concerns.empty() ? std::string("device memory") : h.concerns)
        + " that does not fit in the device's capacity, even after the cached free segments were released; the run "
          "stops there.";
    c.out.why = "When no cached free block of the right pool and stream fits a request, the caching allocator asks "
                "the device for a new segment (2 MiB for small requests, 20 MiB up to 10 MiB, else the request "
                "rounded up to 2 MiB); outside a capture it first releases its cached free segments and retries. "
                "Each FX graph's private pool keeps its segments while any of its captured graphs lives, so the "
                "pools of all captured graphs add up.";
    c.out.avoid.push_back("Keep " + c.set("reuse_graph_pool_in_same_fx", true)
        + " (the default): the keys of one FX graph then share their memory, so its pool's peak is about its largest "
          "key's instead of the sum.");
    c.out.avoid.push_back("Capture fewer or smaller graphs: fewer distinct keys (shapes), smaller batch or sequence "
                          "sizes for the captured calls.");
    if (c.sim.origin.kind == runtime::RunOriginKind::Simulated)
        c.out.avoid.push_back("If the simulated capacity is not the real device's, set the scenario's "
                              "device.capacity (device.per_device for one device).");
    c.out.quotes.push_back(h.message);
    c.out.quotesFrom = cuda ? "PyTorch's CUDA caching allocator" : "torch_npu's caching allocator";
    c.out.source = "npu-caching-allocator.md §1.4-1.5 (segment sizes, the OOM retry) and §2.3 (private pools); "
                   "engine/memory/caching_allocator.cpp (the text); docs/simulator.md \"Hazards\" and \"Devices\"";
}

void crossDeviceInput(Ctx& c)
{
    const Hazard& h = c.h;
    const runtime::GraphRecord* g = graphRecord(c.sim, h.graph);
    const std::string graphDevice = between(h.message, "(captured on ", ")");
    const std::string is = between(h.message, ") is ", ". TorchAir checks");
    c.out.title = "Input on another device than its graph";
    c.out.what = "Call " + std::to_string(h.call) + " binds input " + h.concerns + " of " + h.graph
        + (graphDevice.empty() ? std::string() : " (captured on " + graphDevice + ")") + " to "
        + (is.empty() ? std::string("a tensor on another device") : is)
        + ". The simulation keeps the tensor where it is and does not model what the capture and replay of ops "
          "that mix two devices do.";
    c.out.why = "TorchAir never checks a tensor's device: it captures on the device current when the AclGraph was "
                "built (TA/acl_graph.py:791). With clone_input its staging copy is torch.empty_like(input), on the "
                "input's device, and process_input copies each call's input into it with copy_. Eager PyTorch "
                "refuses most ops that mix two devices.";
    const std::string target = !graphDevice.empty() ? graphDevice
        : g ? (c.sim.profile == memory::Profile::Cuda ? "cuda:" : "npu:") + std::to_string(g->device)
            : std::string("the graph's device");
    c.out.avoid.push_back(
        "Move the tensor to " + target + " before the call: " + h.concerns + ".to(\"" + target + "\").");
    c.out.source = "docs/simulator.md \"Devices\" (TA/acl_graph.py:791, 1209, 1290-1359 at fced8842); the "
                   "simulator's Simulator::checkInputDevice (engine/runtime/sim_exec.cpp)";
}

/// The event kinds in which the simulator finds each hazard that has no event of its own, in order of
/// preference.
std::vector<EventKind> foundIn(HazardKind k)
{
    switch (k) {
    case HazardKind::OutputOverwritten:
        return { EventKind::Replay };
    case HazardKind::UserInputOverwritten:
    case HazardKind::StaleParameter:
        return { EventKind::InputUpdate };
    case HazardKind::RecaptureStorm:
        return { EventKind::Capture };
    case HazardKind::StaleCheckpoint:
        return { EventKind::Capture, EventKind::Outputs, EventKind::Rollback };
    case HazardKind::Fallback:
        return { EventKind::Fallback };
    case HazardKind::OutOfMemory:
        return { EventKind::OutOfMemory };
    case HazardKind::CrossDeviceInput:
    case HazardKind::OverwrittenError:
    case HazardKind::StaticInputMoved:
    case HazardKind::CudagraphsSkipped:
    case HazardKind::PoolGrowth:
    case HazardKind::RecompileLimit:
    case HazardKind::CallRaised:
        break;
    case HazardKind::RecompilePerCall:
        return { EventKind::Compile };
    }
    return {};
}

int hazardEventIn(const Simulation& sim, int hazardIndex, std::pair<int, int> range)
{
    const Hazard& h = sim.hazards[size_t(hazardIndex)];
    const auto [first, last] = range;
    for (int i = first; i < last; ++i)
        if (sim.events[size_t(i)].hazard == hazardIndex)
            return i;
    for (EventKind kind : foundIn(h.kind))
        for (int i = first; i < last; ++i)
            if (sim.events[size_t(i)].kind == kind && sim.events[size_t(i)].graph == h.graph)
                return i;
    for (int i = first; i < last; ++i)
        if (sim.events[size_t(i)].graph == h.graph)
            return i;
    return first < last ? first : -1;
}

} // namespace

int hazardEvent(const Simulation& sim, int hazardIndex)
{
    if (hazardIndex < 0 || hazardIndex >= int(sim.hazards.size()) || sim.events.empty())
        return -1;
    return hazardEventIn(sim, hazardIndex, eventsOfCall(sim, sim.hazards[size_t(hazardIndex)].call));
}

std::vector<int> hazardEvents(const Simulation& sim)
{
    std::vector<int> out(sim.hazards.size(), -1);
    for (size_t i = 0; i < sim.hazards.size(); ++i)
        out[i] = hazardEvent(sim, int(i));
    return out;
}

HazardExplanation explainHazard(const Simulation& sim, int hazardIndex)
{
    if (hazardIndex < 0 || hazardIndex >= int(sim.hazards.size())) {
        HazardExplanation none;
        none.title = "hazard " + std::to_string(hazardIndex) + " is not in the run ("
            + std::to_string(sim.hazards.size()) + (sim.hazards.size() == 1 ? " hazard)" : " hazards)");
        return none;
    }
    if (sim.cuda)
        return explainCudaHazard(sim, hazardIndex);
    Ctx c { sim, sim.hazards[size_t(hazardIndex)], hazardIndex, frontOf(sim), {} };
    switch (c.h.kind) {
    case HazardKind::OutputOverwritten:
        outputOverwritten(c);
        break;
    case HazardKind::UserInputOverwritten:
        userInputOverwritten(c);
        break;
    case HazardKind::StaleParameter:
        staleParameter(c);
        break;
    case HazardKind::StaleCheckpoint:
        staleCheckpoint(c);
        break;
    case HazardKind::RecaptureStorm:
        recaptureStorm(c);
        break;
    case HazardKind::Fallback:
        fallback(c);
        break;
    case HazardKind::OutOfMemory:
        outOfMemory(c);
        break;
    case HazardKind::CrossDeviceInput:
        crossDeviceInput(c);
        break;
    case HazardKind::OverwrittenError:
    case HazardKind::StaticInputMoved:
    case HazardKind::CudagraphsSkipped:
    case HazardKind::PoolGrowth:
    case HazardKind::RecompileLimit:
    case HazardKind::CallRaised:
        return explainCudaHazard(sim, hazardIndex); // CUDA Graph Trees' own
    case HazardKind::RecompilePerCall:
        recompilePerCall(c);
        break;
    }
    if (c.out.quotesFrom.empty())
        c.out.quotesFrom = frontName(c.front);
    if (c.front == Front::Unknown)
        c.out.avoid.insert(c.out.avoid.begin(),
            "The run does not record its backend ("
                + (sim.origin.recordedAs.empty() ? "a recording" : sim.origin.recordedAs)
                + "): each option is named as torchair and as npugraph_ex spell it.");
    return c.out;
}

Detail explanationRow(const HazardExplanation& x)
{
    std::vector<Detail> children;
    addNonEmpty(children, "what", x.what);
    addNonEmpty(children, "why", x.why);
    if (!x.avoid.empty()) {
        std::vector<Detail> ways;
        for (size_t i = 0; i < x.avoid.size(); ++i)
            ways.push_back({ std::to_string(i + 1), x.avoid[i], {} });
        children.push_back(
            { "avoid", std::to_string(x.avoid.size()) + (x.avoid.size() == 1 ? " way" : " ways"), std::move(ways) });
    }
    if (!x.what.empty()) {
        std::vector<Detail> quotes;
        for (const std::string& q : x.quotes)
            quotes.push_back({ "quote", q, {} });
        std::string count = quotes.empty() ? std::string("nothing for this")
                                           : std::to_string(quotes.size()) + (quotes.size() == 1 ? " line" : " lines");
        children.push_back({ (x.quotesFrom.empty() ? std::string("TorchAir") : x.quotesFrom) + " says",
            std::move(count), std::move(quotes) });
    }
    addNonEmpty(children, "source", x.source);
    return { "explanation", x.title, std::move(children) };
}

std::string explanationText(const HazardExplanation& x)
{
    std::string out = x.title + "\n";
    if (!x.what.empty())
        out += "What: " + x.what + "\n";
    if (!x.why.empty())
        out += "Why: " + x.why + "\n";
    if (!x.avoid.empty()) {
        out += "How to avoid:\n";
        for (const std::string& a : x.avoid)
            out += "  - " + a + "\n";
    }
    if (!x.quotes.empty()) {
        out += x.quotesFrom + " says:\n";
        for (const std::string& q : x.quotes)
            out += "  " + q + "\n";
    }
    if (!x.source.empty())
        out += "Source: " + x.source + "\n";
    return out;
}

} // namespace engine::report
