// The user's own run as a scenario: a TorchAir / npugraph_ex log's run and the job's graphs. The rules
// and their sources are in docs/run-logs.md "A log as a scenario"; torchair-behavior.md §2.2 (graph key,
// get_unupdated_sym_input_index), §2.3 (is_need_to_recapture, the capture limit) and §2.6
// (reconstruct_outputs) are what each inference inverts.
#include "engine/scenario/log_scenario.h"

#include "engine/config/options.h"
#include "engine/runtime/graph_analysis.h"
#include "engine/scenario/load.h"
#include "engine/scenario/scenario_json.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>

namespace engine::scenario {

namespace {

using runtime::CallAction;
using runtime::CallRecord;

/// A graph key as TorchAir prints it: "no_updated_input" or a Python list ("[4]", "[4, [4, 7]]"), then,
/// with frozen_parameter off and parameters present, str(hash(parameter addresses)) glued on.
struct ParsedKey {
    bool ok = false;
    struct Entry {
        bool list = false;
        int64_t value = 0;
        std::vector<int64_t> dims;
    };
    std::vector<Entry> entries;
    std::string hash; ///< the digits after the list ("" = none)
};

bool readInt(const std::string& s, size_t& i, int64_t& out)
{
    size_t j = i;
    if (j < s.size() && s[j] == '-')
        ++j;
    const size_t digits = j;
    while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j])))
        ++j;
    if (j == digits || j - digits > 18)
        return false;
    out = std::stoll(s.substr(i, j - i));
    i = j;
    return true;
}

void skipSpaces(const std::string& s, size_t& i)
{
    while (i < s.size() && s[i] == ' ')
        ++i;
}

/// Past the spaces, one comma and the spaces after it that separate two items of a list.
void skipSeparator(const std::string& s, size_t& i)
{
    skipSpaces(s, i);
    if (i < s.size() && s[i] == ',')
        ++i;
    skipSpaces(s, i);
}

ParsedKey parseKey(const std::string& key)
{
    ParsedKey k;
    size_t i = 0;
    if (key.rfind("no_updated_input", 0) == 0) {
        i = 16;
    } else {
        if (key.empty() || key[0] != '[')
            return k;
        ++i;
        skipSpaces(key, i);
        while (i < key.size() && key[i] != ']') {
            ParsedKey::Entry e;
            if (key[i] == '[') {
                e.list = true;
                ++i;
                skipSpaces(key, i);
                while (i < key.size() && key[i] != ']') {
                    int64_t v = 0;
                    if (!readInt(key, i, v))
                        return k;
                    e.dims.push_back(v);
                    skipSeparator(key, i);
                }
                if (i >= key.size())
                    return k;
                ++i;
            } else if (!readInt(key, i, e.value)) {
                return k;
            }
            k.entries.push_back(std::move(e));
            skipSeparator(key, i);
        }
        if (i >= key.size())
            return k;
        ++i;
    }
    k.hash = key.substr(i);
    for (size_t j = 0; j < k.hash.size(); ++j)
        if (!(std::isdigit(static_cast<unsigned char>(k.hash[j])) || (j == 0 && k.hash[j] == '-')))
            return k;
    k.ok = true;
    return k;
}

std::string baseName(const std::string& path)
{
    return path.substr(path.find_last_of('/') + 1);
}

std::string callText(const CallRecord& rec)
{
    return "call " + std::to_string(rec.index) + " (" + rec.graph + ", graph key {" + rec.key + "})";
}

/// What the scenario needs of one call of the log: its record (without its memory states) and the few
/// texts it reads, so that a log of any length is read in bounded memory per call.
struct CallFacts {
    CallRecord rec;
    bool outputsAlive = false; ///< "All output tensors weak ref are valid" (torchair-behavior.md §2.6)
    bool noReuse = false; ///< "memory pool reuse is disable", "no mempool reuse in fx_graph" (§3)
    std::string captureInfo; ///< "AclGraph{id: ..} ... has {p} parameters and {m} mutated_inputs, ..."
};

/// One run of the log as the scenario reads it.
struct RunFacts {
    std::string label;
    std::string recordedAs;
    bool cuda = false;
    std::vector<runtime::Hazard> hazards;
    std::vector<CallFacts> calls;
};

/// Takes what a step of a call tells into `f`.
void readStep(const runtime::Event& e, CallFacts& f)
{
    for (const runtime::LogLine& l : e.log) {
        const std::string& t = l.text;
        f.outputsAlive |= t.rfind("All output tensors weak ref are valid", 0) == 0;
        f.noReuse |= t.find("memory pool reuse is disable") != std::string::npos
            || t.find("no mempool reuse in fx_graph") != std::string::npos;
        if (f.captureInfo.empty() && t.find(" mutated_inputs, and {") != std::string::npos)
            f.captureInfo = t.substr(0, t.find(" all the input meta info"));
    }
}

RunFacts factsOf(const ingest::LogRun& run)
{
    RunFacts out;
    out.label = run.label;
    out.recordedAs = run.sim.origin.recordedAs;
    out.cuda = bool(run.sim.cuda);
    out.hazards = run.sim.hazards;
    for (const CallRecord& rec : run.sim.calls) {
        CallFacts f;
        f.rec = rec;
        f.rec.pools.clear();
        for (int i = rec.firstEvent; i < rec.firstEvent + rec.eventCount && i < int(run.sim.events.size()); ++i)
            readStep(run.sim.events[size_t(i)], f);
        out.calls.push_back(std::move(f));
    }
    return out;
}

/// Collects a run's facts as the reader streams it (ingest::RunLogOptions::sinks).
class FactsSink : public ingest::LogRunSink {
public:
    explicit FactsSink(std::vector<RunFacts>& runs)
        : m_runs(runs)
    {
    }
    Result<void> begin(const runtime::Simulation& header) override
    {
        m_facts.cuda = bool(header.cuda);
        return {};
    }
    Result<void> step(const runtime::Event& e) override
    {
        if (e.call >= 0)
            readStep(e, m_pending);
        return {};
    }
    Result<void> call(const CallRecord& rec) override
    {
        m_pending.rec = rec;
        m_pending.rec.pools.clear();
        m_facts.calls.push_back(std::move(m_pending));
        m_pending = CallFacts();
        return {};
    }
    Result<void> end(const ingest::LogRun& run, int events) override
    {
        (void)events;
        m_facts.label = run.label;
        m_facts.recordedAs = run.sim.origin.recordedAs;
        m_facts.hazards = run.sim.hazards;
        m_runs.push_back(std::move(m_facts));
        return {};
    }

private:
    std::vector<RunFacts>& m_runs;
    RunFacts m_facts;
    CallFacts m_pending;
};

/// What the scenario knows of one FX graph of the log.
struct GraphState {
    const Graph* graph = nullptr;
    runtime::GraphAnalysis analysis;
    std::vector<std::string> symbols; ///< every symbol the graph uses
    SymbolValues last; ///< the values its call before had
    std::map<std::string, Binding> bound; ///< bindings that persist (moved inputs)
    int moves = 0; ///< mutated-input moves so far
    std::vector<std::string> hashes; ///< parameter-address hashes in order of first sight
    std::string hash; ///< the hash of its call before
    std::map<std::string, int> keyCall; ///< key -> scenario call that last ran it
};

class Builder {
public:
    Builder(Scenario& s, const RunFacts& run, const std::string& logPath, const SymbolValues& given)
        : m_s(s)
        , m_run(run)
        , m_path(logPath)
        , m_given(given)
    {
    }

    Result<void> build();

private:
    void note(const std::string& what, const std::string& text)
    {
        m_s.diagnostics.push_back(m_path + ": note: " + what + ": " + text);
    }
    /// A note said of one call that may repeat at many calls: said once, the repeats counted (a long log
    /// would otherwise give a note per call).
    void noteEach(const std::string& kind, const std::string& what, const std::string& text)
    {
        auto [it, added] = m_repeats.emplace(kind, std::make_pair(m_s.diagnostics.size(), 0));
        if (added)
            note(what, text);
        else
            ++it->second.second;
    }
    Result<void> mapGraphs();
    void keySymbols(GraphState& g, const CallRecord& rec, const ParsedKey& key, Call& call);
    void otherSymbols(GraphState& g, const CallRecord& rec, Call& call);
    void bindings(GraphState& g, const CallRecord& rec, const ParsedKey& key, Call& call);
    void outputs(GraphState& g, const CallFacts& f, int callIndex);
    void options();
    void set(const std::string& torchair, const std::string& npugraphEx, PyValue v, const std::string& from);

    Scenario& m_s;
    const RunFacts& m_run;
    std::string m_path;
    SymbolValues m_given;
    std::map<std::string, SymbolValues> m_defaults; ///< per graph id: its first call's symbols in the source
    std::map<std::string, GraphState> m_graphs; ///< by the log's graph name
    std::optional<CoreLimit> m_core;
    bool m_npugraphEx = false;
    std::set<std::string> m_noted;
    std::map<std::string, std::pair<size_t, int>> m_repeats; ///< noteEach: kind -> (its note, repeats)
};

/// What the log shows of one FX graph that a source graph must fit: its keys' entries and the
/// parameter and mutated-input counts of its capture line ("has {p} parameters and {m} mutated_inputs").
struct LogGraphShape {
    std::vector<ParsedKey> keys;
    int parameters = -1, mutated = -1;
};

int64_t braceNumberAfter(const std::string& text, const std::string& marker)
{
    const size_t at = text.find(marker);
    return at == std::string::npos ? -1 : std::atoll(text.c_str() + at + marker.size());
}

/// The user inputs whose address TorchAir records at capture and checks before each replay
/// (captured_mutated_inputs: user inputs named in mutated_user_inputs; never parameters).
std::vector<std::string> checkedMutatedInputs(const Graph& g, const runtime::GraphAnalysis& a)
{
    std::vector<std::string> out;
    for (int pos : a.userInputs) {
        const std::string& name = g.nodes[size_t(a.placeholders[size_t(pos)])].name;
        if (a.mutatedUserInputs.count(name))
            out.push_back(name);
    }
    return out;
}

bool fits(const LogGraphShape& shape, const Graph& g, const runtime::GraphAnalysis& a)
{
    for (const ParsedKey& k : shape.keys) {
        if (!k.ok || k.entries.size() != a.keyEntries.size())
            return false;
        for (size_t i = 0; i < k.entries.size(); ++i)
            if (k.entries[i].list == a.keyEntries[i].isSym)
                return false;
        if (!k.hash.empty() && a.parameterInputs.empty())
            return false;
    }
    return (shape.parameters < 0 || shape.parameters == int(a.parameterInputs.size()))
        && (shape.mutated < 0 || shape.mutated == int(checkedMutatedInputs(g, a).size()));
}

Result<void> Builder::mapGraphs()
{
    std::vector<std::string> names;
    std::map<std::string, LogGraphShape> shapes;
    std::set<std::pair<std::string, std::string>> keys; // (graph, key): each distinct key once
    for (const CallFacts& f : m_run.calls) {
        const CallRecord& rec = f.rec;
        if (rec.graph.empty())
            continue;
        if (std::find(names.begin(), names.end(), rec.graph) == names.end())
            names.push_back(rec.graph);
        LogGraphShape& shape = shapes[rec.graph];
        if (!rec.key.empty() && keys.emplace(rec.graph, rec.key).second)
            shape.keys.push_back(parseKey(rec.key));
        const std::string& info = f.captureInfo;
        if (!info.empty()) {
            shape.parameters = int(braceNumberAfter(info, "}, has {"));
            shape.mutated = int(braceNumberAfter(info, "} parameters and {"));
        }
    }
    if (names.empty())
        return makeError(ErrorCode::InvalidArgument, "the log's run shows no call of an FX graph to simulate", m_path);
    // The source's graphs in the order its own calls first run them (how the simulator numbers them
    // graph_1, graph_2, ...), then the ones it never calls.
    std::vector<const Graph*> order;
    for (const Call& c : m_s.calls)
        if (const Graph* g = m_s.graph(c.graph); g && std::find(order.begin(), order.end(), g) == order.end())
            order.push_back(g);
    for (const Graph& g : m_s.graphs)
        if (std::find(order.begin(), order.end(), &g) == order.end())
            order.push_back(&g);
    std::map<const Graph*, runtime::GraphAnalysis> analyses;
    for (const Graph* g : order) {
        auto analysis = runtime::analyzeGraph(*g);
        if (!analysis)
            return makeError(analysis.error().code, "graph '" + g->id + "': " + analysis.error().message, m_s.path);
        analyses.emplace(g, std::move(*analysis));
    }
    std::set<const Graph*> taken;
    std::map<std::string, const Graph*> byName;
    for (const std::string& n : names)
        if (const Graph* g = m_s.graph(n)) {
            byName[n] = g;
            taken.insert(g);
        }
    std::string assumed;
    for (const std::string& n : names) {
        if (byName.count(n))
            continue;
        const Graph* pick = nullptr;
        for (const Graph* g : order)
            if (!taken.count(g) && fits(shapes[n], *g, analyses.at(g))) {
                pick = g;
                break;
            }
        if (!pick)
            continue;
        byName[n] = pick;
        taken.insert(pick);
        assumed += (assumed.empty() ? "" : ", ") + n + " is '" + pick->id + "'";
    }
    if (!assumed.empty())
        note("assumed",
            "the log's FX graphs are the source's graphs that fit their keys and capture lines, in the order the "
            "source first calls them ("
                + assumed
                + "): the source does not name them as the log does (TorchAir's generated module names its graph "
                  "by fx_graph_name)");
    for (const std::string& n : names) {
        auto it = byName.find(n);
        if (it == byName.end()) {
            int calls = 0;
            for (const CallFacts& f : m_run.calls)
                calls += f.rec.graph == n;
            note("unknown",
                n + " (" + std::to_string(calls) + (calls == 1 ? " call" : " calls")
                    + ") fits no graph of the source left (its keys, parameters and mutated inputs): its calls are "
                      "left out; give the graphs of every FX graph the job compiled");
            continue;
        }
        GraphState g;
        g.graph = it->second;
        g.analysis = analyses.at(it->second);
        g.symbols = detail::graphSymbols(*g.graph);
        m_graphs.emplace(n, std::move(g));
    }
    return {};
}

void Builder::keySymbols(GraphState& g, const CallRecord& rec, const ParsedKey& key, Call& call)
{
    const auto& entries = g.analysis.keyEntries;
    if (!key.ok || key.entries.size() != entries.size()) {
        if (!rec.key.empty())
            noteEach("key " + g.graph->id, "unknown",
                callText(rec) + ": the key does not read as " + g.graph->id + "'s " + std::to_string(entries.size())
                    + " key entries (TorchAir's unupdated_sym_input_index): its " + "symbols are taken as below");
        return;
    }
    const Graph& graph = *g.graph;
    for (size_t i = 0; i < entries.size(); ++i) {
        const Node& n = graph.nodes[size_t(g.analysis.placeholders[size_t(entries[i].index)])];
        const ParsedKey::Entry& e = key.entries[i];
        if (entries[i].isSym != !e.list)
            continue;
        if (entries[i].isSym) {
            if (auto sym = n.symbol.singleSymbol())
                call.symbols[*sym] = e.value;
            continue;
        }
        if (n.outputs.empty())
            continue;
        const auto& shape = n.outputs[0].shape;
        for (size_t d = 0; d < shape.size() && d < e.dims.size(); ++d)
            if (auto sym = shape[d].singleSymbol())
                call.symbols[*sym] = e.dims[d];
    }
}

void Builder::otherSymbols(GraphState& g, const CallRecord& rec, Call& call)
{
    for (const std::string& sym : g.symbols) {
        if (call.symbols.count(sym))
            continue;
        std::string from;
        if (auto it = g.last.find(sym); it != g.last.end()) {
            call.symbols[sym] = it->second;
            continue; // the value the graph's call before had (said once, below, when first taken)
        }
        if (auto it = m_given.find(sym); it != m_given.end()) {
            call.symbols[sym] = it->second;
            from = "the value given (--symbols)";
        } else if (auto d = m_defaults.find(g.graph->id); d != m_defaults.end() && d->second.count(sym)) {
            call.symbols[sym] = d->second.at(sym);
            from = "the value the graphs' source gives its first call";
        }
        const std::string key = g.graph->id + "\n" + sym;
        if (!m_noted.insert(key).second)
            continue;
        if (!from.empty())
            note("assumed",
                "symbol " + sym + " of '" + g.graph->id + "' is not in its graph key, so the log does not tell it: "
                    + from + " (" + std::to_string(call.symbols[sym]) + ") from " + callText(rec)
                    + " on, each later call keeping its call before's");
        else
            note("unknown",
                "symbol " + sym + " of '" + g.graph->id + "' is not in its graph key and nothing gives it: the sizes "
                    + "that need it stay unknown; give it with --symbols " + sym + "=N");
    }
    for (const auto& [sym, v] : call.symbols)
        g.last[sym] = v;
}

void Builder::bindings(GraphState& g, const CallRecord& rec, const ParsedKey& key, Call& call)
{
    const Graph& graph = *g.graph;
    auto placeholder
        = [&](int position) -> const Node& { return graph.nodes[size_t(g.analysis.placeholders[size_t(position)])]; };
    std::string cause = rec.recaptureCause;
    if (rec.action == CallAction::Recapture && cause.empty()) {
        // An INFO log, or one cut before the counters line: TorchAir's DEBUG counters line tells the cause.
        cause = checkedMutatedInputs(graph, g.analysis).empty() ? "core_limit" : "mutated_input";
        if (m_noted.insert(graph.id + "\ncause").second)
            note("assumed",
                callText(rec) + ": a recapture whose cause the log does not tell (TorchAir's DEBUG counters line "
                    + "does), taken as "
                    + (cause == "mutated_input" ? "a moved mutated input, the usual cause"
                                                : "a changed core limit ('" + graph.id + "' has no mutated user input)")
                    + "; so are " + graph.id + "'s later recaptures of unknown cause");
    }
    if (rec.action == CallAction::Recapture && cause == "mutated_input") {
        ++g.moves;
        std::string names;
        for (const std::string& name : checkedMutatedInputs(graph, g.analysis)) {
            Binding b;
            b.kind = Binding::Kind::Named;
            b.name = graph.id + "." + name + "@move" + std::to_string(g.moves);
            g.bound[name] = b;
            names += (names.empty() ? "" : ", ") + name;
        }
        if (names.empty())
            noteEach("no mutated " + graph.id, "unknown",
                callText(rec) + ": recaptured for a moved mutated input, and '" + graph.id
                    + "' has no mutated user input as TorchAir derives them: the simulation replays instead");
        else
            noteEach("moved " + graph.id, "assumed",
                callText(rec) + ": recaptured for a moved mutated input; the log does not say which (it "
                    + "prints no address of a mutated input): every mutated user input of '" + graph.id
                    + "' is taken as moved (" + names + ")");
    }
    if (rec.action == CallAction::Recapture && cause == "core_limit") {
        CoreLimit next;
        const bool full = !m_core || (m_core->cube == m_s.device.cubeCores && m_core->vector == m_s.device.vectorCores);
        next.cube = full ? std::max(1, m_s.device.cubeCores / 2) : m_s.device.cubeCores;
        next.vector = full ? std::max(1, m_s.device.vectorCores / 2) : m_s.device.vectorCores;
        m_core = next;
        call.coreLimit = next;
        noteEach("core limit", "assumed",
            callText(rec) + ": recaptured for a changed stream core limit, whose numbers the log does not "
                + "print: set_stream_limit(" + std::to_string(next.cube) + ", " + std::to_string(next.vector)
                + ") before it");
    }
    if (!key.ok || key.hash.empty() || g.analysis.parameterInputs.empty()) {
        if (!key.hash.empty() && g.analysis.parameterInputs.empty())
            noteEach("hash unused " + graph.id, "unknown",
                callText(rec) + ": the key ends in a hash of parameter addresses, and '" + graph.id
                    + "' has no parameter input: the hash is not used");
    } else if (key.hash != g.hash) {
        auto it = std::find(g.hashes.begin(), g.hashes.end(), key.hash);
        const size_t which = size_t(it - g.hashes.begin());
        if (it == g.hashes.end())
            g.hashes.push_back(key.hash);
        const bool first = g.hash.empty() && which == 0;
        g.hash = key.hash;
        if (!first) {
            for (int pos : g.analysis.parameterInputs) {
                const Node& n = placeholder(pos);
                Binding b;
                if (which == 0) {
                    g.bound.erase(n.name);
                    continue;
                }
                b.kind = Binding::Kind::Named;
                b.name = graph.id + "." + n.name + "@params" + std::to_string(which);
                g.bound[n.name] = b;
            }
            noteEach("hash " + graph.id, "assumed",
                callText(rec) + ": the key's parameter-address hash " + key.hash
                    + (which + 1 == g.hashes.size() && it == g.hashes.end() ? " is new" : " is an earlier one")
                    + ": the parameters moved; the log gives only the hash, so every parameter input of '" + graph.id
                    + "' is taken as at " + (which == 0 ? "its first addresses" : "new addresses"));
        }
    }
    for (const auto& [name, b] : g.bound)
        call.inputs[name] = b;
}

/// "All output tensors weak ref are valid" at a key's call: the caller still held the outputs its call
/// before of that key returned; "After reconstructing": it did not (torchair-behavior.md §2.6).
void Builder::outputs(GraphState& g, const CallFacts& f, int callIndex)
{
    const CallRecord& rec = f.rec;
    auto before = g.keyCall.find(rec.key);
    if (before != g.keyCall.end() && f.outputsAlive) {
        Call& earlier = m_s.calls[size_t(before->second)];
        earlier.keepOutputs = std::max(earlier.keepOutputs, callIndex - before->second);
        earlier.note = "outputs kept until call " + std::to_string(callIndex) + " (the log's line: outputs alive)";
    }
    g.keyCall[rec.key] = callIndex;
}

void Builder::set(const std::string& torchair, const std::string& npugraphEx, PyValue v, const std::string& from)
{
    const std::string& name = m_npugraphEx ? npugraphEx : torchair;
    for (auto& [k, value] : m_s.config)
        if (k == torchair || k == npugraphEx) {
            if (value.repr() != v.repr())
                note("assumed",
                    name + "=" + v.repr() + " (" + from + "), not the graphs' source's " + k + "=" + value.repr()
                        + ": the log tells what ran");
            k = name;
            value = v;
            return;
        }
    m_s.config.emplace_back(name, v);
    note("assumed", name + "=" + v.repr() + ", from " + from);
}

void Builder::options()
{
    // The capture limit, from the fallback's warning text (torchair-behavior.md §2.3).
    for (const runtime::Hazard& h : m_run.hazards) {
        if (h.kind != runtime::HazardKind::Fallback)
            continue;
        const size_t at = h.message.find(h.concerns + "=");
        if (at == std::string::npos)
            continue;
        const int64_t limit = std::atoll(h.message.c_str() + at + h.concerns.size() + 1);
        if (limit > 0) {
            set("debug.aclgraph.static_capture_size_limit", "capture_limit", PyValue::integer(limit),
                "the fallback warning of call " + std::to_string(h.call) + " (\"The current " + h.concerns + " is "
                    + std::to_string(limit) + "\")");
            break;
        }
    }
    bool withHash = false, withoutHash = false, noReuse = false, force = false;
    for (const CallFacts& f : m_run.calls) {
        auto it = m_graphs.find(f.rec.graph);
        if (it == m_graphs.end())
            continue;
        const ParsedKey key = parseKey(f.rec.key);
        if (key.ok && !it->second.analysis.parameterInputs.empty())
            (key.hash.empty() ? withoutHash : withHash) = true;
        noReuse |= f.noReuse;
        force |= f.rec.recaptureCause == "force";
    }
    if (withHash != withoutHash)
        set("experimental_config.frozen_parameter", "frozen_parameter", PyValue::boolean(withoutHash),
            withoutHash ? "graph keys of graphs with parameters without a parameter-address hash"
                        : "graph keys that end in a parameter-address hash");
    else if (withHash)
        note("unknown",
            "some graph keys carry a parameter-address hash and some do not: frozen_parameter is "
            "taken from the graphs' source");
    if (noReuse)
        set("debug.aclgraph.disable_mempool_reuse_in_same_fx", "reuse_graph_pool_in_same_fx",
            PyValue::boolean(!m_npugraphEx), "the log's \"memory pool reuse is disable\"");
    if (force)
        set("force_recapture", "force_recapture", PyValue::boolean(true), "recaptures the log counts as forced");
}

Result<void> Builder::build()
{
    if (m_run.cuda || m_run.recordedAs.rfind("PyTorch", 0) == 0)
        return makeError(ErrorCode::InvalidArgument,
            "a PyTorch log of a CUDA run: its scenario comes from the job's TORCH_TRACE (simulate the trace; "
            "`report LOG TRACE --compare` sets the log beside it)",
            m_path);
    // npugraph_ex's logger, its capture limit's name, or recaptures it counts as forced (only npugraph_ex
    // has force_recapture): the run went through npugraph_ex.
    m_npugraphEx = m_run.recordedAs.rfind("npugraph_ex", 0) == 0;
    for (const runtime::Hazard& h : m_run.hazards)
        m_npugraphEx |= h.kind == runtime::HazardKind::Fallback && h.concerns == "capture_limit";
    for (const CallFacts& f : m_run.calls)
        m_npugraphEx |= f.rec.recaptureCause == "force";
    if (m_npugraphEx && m_s.backend != config::Backend::NpugraphEx) {
        if (m_s.backend)
            note("assumed", "the backend is npugraph_ex, as the log says, not the graphs' source's torchair");
        m_s.backend = config::Backend::NpugraphEx;
    }
    if (!m_npugraphEx && !m_s.backend)
        m_s.backend = config::Backend::TorchAir;
    m_npugraphEx = m_s.backend == config::Backend::NpugraphEx;
    for (const Call& c : m_s.calls)
        m_defaults.emplace(c.graph, c.symbols);
    m_s.calls.clear();
    if (auto mapped = mapGraphs(); !mapped)
        return mapped;
    options();
    int skipped = 0, eager = 0;
    for (const CallFacts& f : m_run.calls) {
        const CallRecord& rec = f.rec;
        auto it = m_graphs.find(rec.graph);
        if (it == m_graphs.end()) {
            ++skipped;
            continue;
        }
        GraphState& g = it->second;
        const ParsedKey key = parseKey(rec.key);
        Call call;
        call.graph = g.graph->id;
        call.sourcePath = m_path + ": call " + std::to_string(rec.index);
        keySymbols(g, rec, key, call);
        otherSymbols(g, rec, call);
        bindings(g, rec, key, call);
        if (rec.action == CallAction::Raised)
            noteEach("raised", "unknown",
                callText(rec) + ": its capture did not finish in the log (it raised, or the log ends): the "
                    + "simulation runs it as the options say");
        eager += rec.action == CallAction::Eager;
        const int index = int(m_s.calls.size());
        m_s.calls.push_back(std::move(call));
        outputs(g, f, index);
    }
    if (m_s.calls.empty()) {
        std::string graphs;
        for (const Graph& g : m_s.graphs)
            graphs += (graphs.empty() ? "'" : ", '") + g.id + "'";
        return makeError(ErrorCode::InvalidArgument,
            "no FX graph of the log's run fits a graph of " + m_s.path + " (" + (graphs.empty() ? "none" : graphs)
                + ") by id, or by its keys, parameters and mutated inputs: give the graphs of the same job",
            m_path);
    }
    for (const auto& [kind, said] : m_repeats)
        if (said.second > 0)
            m_s.diagnostics[said.first] += " (and at " + std::to_string(said.second) + " more calls)";
    if (skipped)
        note("unknown", std::to_string(skipped) + " calls of graphs the source lacks are left out");
    if (eager)
        note("unknown",
            "calls after a fallback to eager print nothing in TorchAir's log: the scenario has none of them, so the "
            "what-if of a higher capture limit shows only the calls the log shows");
    note("assumed",
        "the caller drops each call's outputs before its next call unless the log shows them alive at their key's "
        "next call (\"All output tensors weak ref are valid\"), and inputs that are not mutated are new tensors at "
        "each call (their addresses are copied, not checked, so the log does not show them)");
    if (m_s.name.empty())
        m_s.name = m_run.label.empty() ? "run of the log" : "run of the log, " + m_run.label;
    m_s.comment = "The run " + m_path + (m_run.label.empty() ? "" : " (" + m_run.label + ")")
        + " tells, as a scenario: its calls, keys and causes from the log, its graphs from " + m_s.path + ".";
    return {};
}

/// The run of `runs` that `label` names: "" = the only one; "rank 1" or "1"; "pid 4242".
Result<const RunFacts*> pickRun(const std::vector<RunFacts>& runs, const std::string& label, const std::string& path)
{
    std::string names;
    for (const RunFacts& r : runs)
        names += (names.empty() ? "" : ", ") + (r.label.empty() ? std::string("(one process)") : r.label);
    if (label.empty()) {
        if (runs.size() == 1)
            return &runs[0];
        return makeError(ErrorCode::InvalidArgument,
            "the log holds " + std::to_string(runs.size()) + " runs (" + names + "): say which with --run LABEL", path);
    }
    for (const RunFacts& r : runs)
        if (r.label == label || r.label == "rank " + label)
            return &r;
    return makeError(ErrorCode::NotFound, "the log has no run '" + label + "'; its runs: " + names, path);
}

} // namespace

Result<void> makeLogRunScenario(
    Scenario& s, const ingest::LogRun& run, const std::string& logPath, const SymbolValues& symbols)
{
    const RunFacts facts = factsOf(run);
    Builder b(s, facts, logPath, symbols);
    return b.build();
}

Result<Scenario> loadLogScenario(
    const std::string& logPath, const std::string& graphsPath, const std::string& runLabel, const SymbolValues& symbols)
{
    // Streamed: each run keeps its calls' records and the few texts the scenario reads, not its steps.
    std::vector<RunFacts> runs;
    ingest::RunLogOptions options;
    options.sinks = [&runs]() { return std::make_unique<FactsSink>(runs); };
    auto log = ingest::readRunLog(logPath, options);
    if (!log)
        return log.error();
    auto run = pickRun(runs, runLabel, logPath);
    if (!run)
        return run.error();
    auto graphs = loadScenarioOrGraph(graphsPath, symbols, 1, false);
    if (!graphs)
        return graphs.error();
    Scenario s = std::move(*graphs);
    if (s.runtime != Runtime::Aclgraph)
        return makeError(ErrorCode::InvalidArgument,
            "the graphs' source is a CUDA Graph Trees run; a TorchAir log needs the graphs TorchAir compiled",
            graphsPath);
    for (std::string& d : s.diagnostics)
        d = d.rfind(graphsPath, 0) == 0 ? d : graphsPath + ": " + d;
    Builder builder(s, **run, logPath, symbols);
    if (auto made = builder.build(); !made)
        return made.error();
    // The source's own "graph G uses symbol S, which has no value" (load.cpp, for a graph file) is moot:
    // the log gives S, or the scenario's own note says that nothing does (Builder::otherSymbols).
    s.diagnostics.erase(std::remove_if(s.diagnostics.begin(), s.diagnostics.end(),
                            [](const std::string& d) {
                                return d.find("' uses symbol ") != std::string::npos
                                    && d.find(", which has no value") != std::string::npos;
                            }),
        s.diagnostics.end());
    s.name = baseName(logPath) + ((*run)->label.empty() ? "" : " " + (*run)->label) + " as a scenario";
    return s;
}

std::string logScenarioFileText(const LogSource& source, const std::string& name)
{
    nlohmann::ordered_json log;
    log["file"] = source.file;
    log["graphs"] = source.graphs;
    if (!source.run.empty())
        log["run"] = source.run;
    nlohmann::ordered_json j;
    j["format"] = "aclgraph-inspector-scenario";
    j["version"] = kFormatVersion;
    j["name"] = name;
    j["log"] = log;
    return j.dump(2) + "\n";
}

} // namespace engine::scenario
