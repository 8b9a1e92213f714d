// A CUDA run's TORCH_TRACE as the scenario of that run (engine/scenario/trace_scenario.h).
#include "engine/scenario/trace_scenario.h"

#include "engine/config/cuda_options.h"
#include "engine/scenario/scenario_json.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

namespace engine::scenario {

namespace {

using ingest::TraceRun;
using ingest::TraceRunStep;
using nlohmann::json;

/// A dumped config value (JSON text) as the Python value it was.
PyValue pyOf(const json& v)
{
    if (v.is_boolean())
        return PyValue::boolean(v.get<bool>());
    if (v.is_number_integer())
        return PyValue::integer(v.get<int64_t>());
    if (v.is_number())
        return PyValue::real(v.get<double>());
    if (v.is_string())
        return PyValue::str(v.get<std::string>());
    if (v.is_array()) {
        std::vector<PyValue> items;
        for (const json& x : v)
            items.push_back(pyOf(x));
        return PyValue::list(std::move(items));
    }
    return PyValue::none();
}

/// Dynamo's input name ("L_kv0_", "L_self_modules_lm_head_parameters_weight_") without the frame
/// prefix and the closing underscore: "kv0", "self_modules_lm_head_parameters_weight".
std::string shortName(const std::string& dynamoName)
{
    std::string n = dynamoName;
    if (n.size() > 2 && (n.rfind("L_", 0) == 0 || n.rfind("l_", 0) == 0 || n.rfind("G_", 0) == 0))
        n = n.substr(2);
    while (n.size() > 1 && n.back() == '_')
        n.pop_back();
    return n;
}

std::string shapeText(const TensorMeta& m)
{
    std::string s = dtypeShortName(m.dtype) + "[";
    for (size_t i = 0; i < m.shape.size(); ++i)
        s += (i ? "," : "") + m.shape[i].text();
    return s + "]";
}

/// The compile id of a graph read from the trace ("0/1/inference" -> "0/1"; the rank prefix of several
/// ranks' graphs is taken off before, in nameGraphs).
std::string compileIdOf(const std::string& graphId)
{
    std::string id = graphId;
    const size_t slash = id.rfind('/');
    if (slash != std::string::npos) {
        const std::string tail = id.substr(slash + 1);
        if (tail == "inference" || tail == "forward" || tail == "backward")
            id = id.substr(0, slash);
    }
    // The attempt that made the graph ("0/0_1", after a graph break restarted the analysis): the
    // runtime spans and the simulator name the compile without it.
    const size_t last = id.rfind('/');
    const size_t attempt = id.rfind('_');
    if (id.rfind('!', 0) != 0 && last != std::string::npos && attempt != std::string::npos && attempt > last)
        id = id.substr(0, attempt);
    return id;
}

class Builder {
public:
    Builder(Scenario& s, const std::vector<readers::trace::TorchTrace>& traces, const TraceRun& run,
        const std::map<std::string, std::vector<std::string>>& dynamoInputs, const SymbolValues& symbols)
        : m_s(s)
        , m_traces(traces)
        , m_run(run)
        , m_dynamoInputs(dynamoInputs)
        , m_symbols(symbols)
        , m_where(run.path.empty() ? s.path : run.path)
    {
    }

    Result<void> build(int rounds, const std::string& callList)
    {
        m_s.runtime = Runtime::CudaGraphTrees;
        m_s.backend.reset();
        m_s.device = DeviceSpec {};
        m_s.device.profile = memory::Profile::Cuda;
        m_s.device.capacityBytes = 80ull << 30;
        m_s.config.clear();
        note(std::string("assumed: the runtime is CUDA Graph Trees (torch.compile(mode=\"reduce-overhead\")): ")
            + (m_run.cudagraphs ? "the trace has cudagraphify spans (the compiled code ran under CUDA graphs)"
                                : m_run.deviceFrom
                        + "; the trace shows no CUDA graph activity (no cudagraphify span): "
                          "mode may not have been reduce-overhead, cudagraphs may have been "
                          "skipped or triton.cudagraph_trees off, or the code never ran"));
        note("assumed: the device is one CUDA device of 80 GiB (the trace does not record its memory; set "
             "device.capacity in a scenario to change it)");
        nameGraphs();
        configure();
        if (!callList.empty())
            return listedCalls(callList);
        if (!impliedCalls())
            everyGraph(rounds);
        for (const std::string& u : m_run.unknown)
            note("unknown: " + u);
        return {};
    }

private:
    void note(const std::string& text) { m_s.diagnostics.push_back(m_where + ": note: " + text); }

    /// Graph ids become compile ids; inputs get aliases and, when static, storages named by source.
    void nameGraphs()
    {
        // Several ranks: their graphs are named "rank N: 0/1/..." (trace_groups.h); only the first
        // trace's rank is the run (one process, one device modelled).
        if (!m_traces.empty() && m_traces.size() > 1) {
            const std::string mine
                = "rank " + (m_traces.front().rank ? std::to_string(*m_traces.front().rank) : "?") + ": ";
            size_t dropped = 0;
            std::vector<Graph> kept;
            for (Graph& g : m_s.graphs) {
                if (g.id.rfind("rank ", 0) == 0 && g.id.rfind(mine, 0) != 0) {
                    ++dropped;
                    continue;
                }
                if (g.id.rfind(mine, 0) == 0)
                    g.id = g.id.substr(mine.size());
                kept.push_back(std::move(g));
            }
            m_s.graphs = std::move(kept);
            if (dropped)
                note("assumed: the run is " + mine.substr(0, mine.size() - 2) + "'s; the " + std::to_string(dropped)
                    + " graphs of the other ranks are left out");
        }
        std::map<std::string, std::string> frameNames; // frame id -> name used
        std::set<std::string> usedNames;
        for (Graph& g : m_s.graphs) {
            const auto dynamo = m_dynamoInputs.find(g.id);
            g.id = compileIdOf(g.id);
            const ingest::TraceRunCompile* rc = m_run.compile(g.id);
            const std::string frameId = rc && rc->frame >= 0 ? std::to_string(rc->frame) : g.id;
            if (!frameNames.count(frameId)) {
                std::string name = rc && !rc->frameName.empty() ? rc->frameName : "forward";
                if (usedNames.count(name))
                    name += " (frame " + frameId + ")";
                usedNames.insert(name);
                frameNames[frameId] = name;
            }
            m_s.frames[g.id] = frameNames[frameId];
            aliasInputs(g, dynamo == m_dynamoInputs.end() ? std::vector<std::string> {} : dynamo->second);
        }
    }

    void aliasInputs(Graph& g, const std::vector<std::string>& dynamoNames)
    {
        const std::vector<int> inputs = g.placeholders();
        if (dynamoNames.size() != inputs.size()) {
            note("unknown: which Python object each input of graph " + g.id
                + " is (Dynamo's graph has a different number of inputs, or none in the trace): inputs are named "
                  "argN_1 only, and no tensor is taken as shared with another compile");
            return;
        }
        for (size_t pos = 0; pos < inputs.size(); ++pos) {
            Node& n = g.nodes[size_t(inputs[pos])];
            const std::string& dn = dynamoNames[pos];
            m_aliases[g.id][dn] = n.name;
            m_aliases[g.id][shortName(dn)] = n.name;
            if (n.inputKind == InputKind::SymInt || n.outputs.empty())
                continue;
            if (n.inputKind == InputKind::Parameter || n.inputKind == InputKind::Buffer
                || n.inputKind == InputKind::StaticAddress) {
                n.storage = shortName(dn) + " " + shapeText(n.outputs[0]);
                m_sharedInputs = true;
            }
        }
    }

    void configure()
    {
        if (m_sharedInputs)
            note("assumed: a parameter, buffer or static input with the same Dynamo name and shape in several compiles "
                 "is one tensor (storage \"<name> <shape>\"): the trace names inputs, not objects");
        if (m_run.cudagraphs)
            m_s.config.emplace_back("mode", PyValue::str("reduce-overhead"));
        const std::string inductorPrefix = "torch._inductor.config.";
        const std::string dynamoPrefix = "torch._dynamo.config.";
        for (const config::CudaOptionSpec& spec : config::cudaOptionTable()) {
            const std::map<std::string, std::string>* dump = nullptr;
            std::string key;
            if (spec.name.rfind(inductorPrefix, 0) == 0) {
                dump = &m_run.inductorConfig;
                key = spec.name.substr(inductorPrefix.size());
            } else if (spec.name.rfind(dynamoPrefix, 0) == 0) {
                dump = &m_run.dynamoConfig;
                key = spec.name.substr(dynamoPrefix.size());
            } else {
                continue;
            }
            if (key == "automatic_dynamic_shapes" || key == "triton.cudagraphs")
                continue; // set by torch.compile's dynamic= and mode= (below), not by the user
            auto it = dump->find(key);
            if (it == dump->end())
                continue;
            const PyValue v = pyOf(json::parse(it->second, nullptr, false));
            if (v.pyEquals(spec.defaultValue))
                continue;
            m_s.config.emplace_back(spec.name, v);
            note("assumed: " + spec.name + " = " + v.repr() + " (from " + m_run.configFrom + ", which differs from "
                + spec.defaultValue.repr() + ", 2.11's default)");
        }
        std::optional<bool> dynamic;
        bool known = false, mixed = false, limitRaised = false;
        for (const auto& c : m_run.compiles) {
            if (c.failType == "FailOnRecompileLimitHit")
                limitRaised = true;
            if (!c.dynamicKnown)
                continue;
            if (known && c.dynamic != dynamic)
                mixed = true;
            if (!known)
                dynamic = c.dynamic;
            known = true;
        }
        if (known) {
            m_s.config.emplace_back("dynamic", dynamic ? PyValue::boolean(*dynamic) : PyValue::none());
            note(std::string("assumed: torch.compile(dynamic=") + (dynamic ? (*dynamic ? "True" : "False") : "None")
                + ") from the first compile's Dynamo config (assume_static_by_default, automatic_dynamic_shapes)"
                + (mixed ? "; other compiles were made with another dynamic= (several torch.compile calls), which one "
                           "scenario cannot hold"
                         : ""));
        }
        const auto fail = m_run.dynamoConfig.find("fail_on_recompile_limit_hit");
        if (limitRaised && (fail == m_run.dynamoConfig.end() || fail->second != "true")) {
            m_s.config.emplace_back("fullgraph", PyValue::boolean(true));
            note("assumed: fullgraph=True: a compile failed with FailOnRecompileLimitHit while "
                 "torch._dynamo.config.fail_on_recompile_limit_hit was False, which only fullgraph does");
        } else if (!limitRaised) {
            note("unknown: torch.compile(fullgraph=) is not in a trace; taken as False (it matters only when the "
                 "recompile limit is hit)");
        }
        for (const auto& c : m_run.compiles)
            if (!c.hasGraph)
                note("unknown: compile " + c.compileId + " left no graph"
                    + (c.failType.empty() ? std::string() : " (it failed: " + c.failType + ")")
                    + "; the call that made it is not simulated");
    }

    Call callOf(const Graph& g, const SymbolValues& symbols, const std::string& why)
    {
        Call c;
        c.graph = g.id;
        for (const std::string& sym : detail::graphSymbols(g)) {
            auto it = symbols.find(sym);
            if (it != symbols.end())
                c.symbols[sym] = it->second;
        }
        c.note = why;
        c.sourcePath = "(implied by the trace)";
        return c;
    }

    /// Symbol values of graph `g`'s first size: the user's, else the ones create_symbol recorded.
    SymbolValues firstSizes(const Graph& g) const
    {
        SymbolValues out;
        for (const std::string& sym : detail::graphSymbols(g))
            if (auto it = m_symbols.find(sym); it != m_symbols.end())
                out[sym] = it->second;
        return out;
    }

    static std::string sizesText(const SymbolValues& v)
    {
        std::string out;
        for (const auto& [sym, value] : v)
            out += (out.empty() ? "" : ", ") + sym + "=" + std::to_string(value);
        return out;
    }

    /// The calls the trace's runtime spans imply. cudagraphify.get_container runs once per compiled
    /// function, that is per (graph, distinct integer inputs) (compile_fx.py cudagraphify keeps one
    /// function per int key): a graph's later first runs are new sizes. A recording records the
    /// oldest size warmed up and not yet recorded; a recording with none left follows a failed check
    /// before replay (docs/cuda-graph-trees.md §5 R1).
    bool impliedCalls()
    {
        struct State {
            std::vector<SymbolValues> sizes; ///< in order of their first run
            size_t recorded = 0; ///< sizes[0..recorded) have been recorded
            int records = 0;
            int moves = 0;
        };
        std::map<std::string, State> state;
        bool backward = false;
        for (const TraceRunStep& step : m_run.steps) {
            if (step.backward) {
                backward = true;
                continue;
            }
            const Graph* g = m_s.graph(step.compileId);
            if (!g) {
                note("unknown: the trace runs compile " + step.compileId
                    + ", whose graph it does not hold; its calls are "
                      "left out");
                continue;
            }
            State& st = state[g->id];
            const SymbolValues first = firstSizes(*g);
            if (step.kind == TraceRunStep::Kind::FirstRun) {
                SymbolValues size = first;
                if (!st.sizes.empty()) {
                    for (auto& [sym, value] : size)
                        value += int64_t(st.sizes.size());
                    note("assumed: first run " + std::to_string(st.sizes.size() + 1) + " of graph " + g->id
                        + " is a new size (one compiled function per distinct integer input); which size is not in a "
                          "trace: taken as "
                        + (size.empty() ? std::string("the same sizes (the graph has no symbol)") : sizesText(size)));
                }
                st.sizes.push_back(size);
                m_s.calls.push_back(callOf(*g, size, "a first run (cudagraphify.get_container)"));
                continue;
            }
            ++st.records;
            if (st.sizes.empty()) {
                st.sizes.push_back(first); // a recording with no first run in the trace (a cut log)
                note("unknown: recording " + std::to_string(st.records) + " of graph " + g->id
                    + " has no first run before it in the trace (a cut log?)");
            }
            if (st.recorded < st.sizes.size()) {
                m_s.calls.push_back(callOf(*g, st.sizes[st.recorded], "a recording (CUDAGraphNode.record)"));
                ++st.recorded;
                continue;
            }
            // Every size is recorded already: a check before replay failed. The usual cause is a static
            // input at a new address; the trace does not say.
            ++st.moves;
            Call c = callOf(*g, st.sizes.back(), "a recording (CUDAGraphNode.record): static inputs moved (assumed)");
            std::vector<std::string> moved;
            for (InputKind kind : { InputKind::StaticAddress, InputKind::Parameter, InputKind::Buffer }) {
                for (int i : g->placeholders()) {
                    const Node& n = g->nodes[size_t(i)];
                    if (n.inputKind != kind || n.outputs.empty())
                        continue;
                    Binding b;
                    b.kind = Binding::Kind::Named;
                    b.name = (n.storage.empty() ? g->id + "." + n.name : n.storage) + " #" + std::to_string(st.moves);
                    c.inputs[n.name] = b;
                    moved.push_back(n.name);
                }
                if (!moved.empty())
                    break;
            }
            note("assumed: recording " + std::to_string(st.records) + " of graph " + g->id
                + " follows a failed check before replay; why is not in a trace (a static input moved, a managed "
                  "input changed, or outputs of an earlier call were still live): taken as its "
                + (moved.empty() ? std::string("inputs unchanged (it has no static input)")
                                 : std::to_string(moved.size()) + " "
                            + inputKindName(g->nodes[size_t(g->find(moved.front()))].inputKind)
                            + " inputs at new addresses")
                + "; list the calls with --call-list to say otherwise");
            m_s.calls.push_back(std::move(c));
        }
        if (backward)
            note("unknown: the backward graphs' runs (training): the CUDA Graph Trees runtime here simulates forward "
                 "graphs only");
        if (m_s.calls.empty())
            return false;
        note("assumed: the calls are the ones the trace shows, in time order: each compiled function's first run and "
             "one call per recording ("
            + std::to_string(m_s.calls.size()) + " calls)");
        return true;
    }

    void everyGraph(int rounds)
    {
        for (int r = 0; r < std::max(1, rounds); ++r)
            for (const Graph& g : m_s.graphs)
                m_s.calls.push_back(callOf(g, firstSizes(g), "every graph in order (assumed)"));
        note(
            "unknown: the trace shows no run of the compiled code (no cudagraphify span); the calls are every graph in "
            "compile order, "
            + std::to_string(std::max(1, rounds)) + " times (--calls N), with the sizes the first compile saw");
    }

    Result<void> listedCalls(const std::string& path)
    {
        auto read = readCallList(m_s, path, m_aliases);
        if (!read)
            return read.error();
        note("the calls are the " + std::to_string(m_s.calls.size()) + " listed in " + path);
        return {};
    }

    Scenario& m_s;
    const std::vector<readers::trace::TorchTrace>& m_traces;
    const TraceRun& m_run;
    const std::map<std::string, std::vector<std::string>>& m_dynamoInputs;
    const SymbolValues& m_symbols;
    std::string m_where;
    std::map<std::string, std::map<std::string, std::string>> m_aliases;
    bool m_sharedInputs = false;
};

} // namespace

bool isCudaTraceRun(const ingest::TraceRun& run)
{
    return run.cudagraphs || run.cudaDevice;
}

Result<void> makeTraceRunScenario(Scenario& s, const std::vector<readers::trace::TorchTrace>& traces,
    const ingest::TraceRun& run, const std::map<std::string, std::vector<std::string>>& dynamoInputs,
    const SymbolValues& symbols, int rounds, const std::string& callList)
{
    return Builder(s, traces, run, dynamoInputs, symbols).build(rounds, callList);
}

} // namespace engine::scenario
