#include "engine/runtime/simulator.h"

#include "engine/runtime/cgt/cgt_run.h"
#include "engine/runtime/graph_device.h"
#include "engine/runtime/hazard_rules.h"
#include "engine/runtime/simulator_impl.h"
#include "engine/runtime/torchair_text.h"

#include <algorithm>
#include <cstdlib>

namespace engine::runtime {

namespace {

// The function get_unupdated_input_fn returns (acl_graph.py), whose name debug_time prints: none of the
// inputs enters the key, only SymInts do, tensors' shapes too, or (frozen_parameter off, with
// parameter inputs) the key also hashes the parameters' addresses.
std::string keyFunctionName(const detail::RtGraph& g, const config::Options& o)
{
    const GraphAnalysis& a = g.analysis;
    if (!o.frozenParameter && !a.parameterInputs.empty())
        return "gen_input_key_with_parameter_addr";
    if (a.keyEntries.empty())
        return "empty_input_key";
    for (const auto& e : a.keyEntries)
        if (!e.isSym)
            return "gen_unupdated_input_key";
    return "gen_unupdated_sym_input_key";
}

} // namespace

int64_t pythonTupleHash(const std::vector<int64_t>& items)
{
    // CPython >= 3.8 tuplehash (xxHash64 lanes) over int hashes; int hash is the value modulo
    // 2**61 - 1 with the sign kept, and -1 is mapped to -2.
    constexpr uint64_t prime1 = 11400714785074694791ull;
    constexpr uint64_t prime2 = 14029467366897019727ull;
    constexpr uint64_t prime5 = 2870177450012600261ull;
    constexpr uint64_t modulus = (1ull << 61) - 1;
    uint64_t acc = prime5;
    for (int64_t v : items) {
        const uint64_t mag = v < 0 ? uint64_t(0) - uint64_t(v) : uint64_t(v);
        int64_t h = int64_t(mag % modulus);
        if (v < 0)
            h = -h;
        if (h == -1)
            h = -2;
        acc += uint64_t(h) * prime2;
        acc = (acc << 31) | (acc >> 33);
        acc *= prime1;
    }
    acc += uint64_t(items.size()) ^ (prime5 ^ 3527539ull);
    if (acc == uint64_t(-1))
        return 1546275796;
    return int64_t(acc);
}

namespace detail {

Simulator::Simulator(const scenario::Scenario& scenario, const SimulationOptions& options, config::Options effective)
    : m_scenario(scenario)
    , m_options(options)
    , m_devices(
          [&] {
              memory::AllocatorConfig c;
              c.profile = scenario.device.profile;
              c.capacityBytes = scenario.device.capacityBytes;
              return c;
          }(),
          [&scenario](int device) { return scenario.device.capacityOf(device); })
{
    m_sim.scenarioPath = scenario.path;
    m_sim.scenarioName = scenario.name;
    m_sim.options = std::move(effective);
    m_sim.profile = scenario.device.profile;
    m_sim.capacityBytes = scenario.device.capacityBytes;
    m_cube = scenario.device.cubeCores;
    m_vector = scenario.device.vectorCores;
    // A pool handle the user created before compiling came from the same uid counter.
    if (m_sim.options.customPool)
        m_nextPoolUid = std::max<uint64_t>(m_nextPoolUid, m_sim.options.customPool->second + 1);
    if (scenario.cacheCompile) {
        m_cache = std::make_unique<CacheCompileModel>(scenario, m_sim.options, m_sim);
        // ModelCacheSaver puts _aclnn_static_shape_kernel.use_cache_compile="1" in the compile configs, so
        // compile_static_kernel installs or builds run packages in the cache folder instead of warning
        // (T/inference/_cache_compiler.py:437-442, TA/static_kernel.py:44-53).
        auto& w = m_sim.options.warnings;
        w.erase(std::remove_if(w.begin(), w.end(),
                    [](const std::string& x) {
                        return x.find("now supports caching run packages from static kernel") != std::string::npos;
                    }),
            w.end());
    }
    // Devices the calls will use: each graph's, and those its inputs name. Known before the first call, so
    // every event of a multi-device run lists every device.
    for (const scenario::Call& call : scenario.calls)
        if (const Graph* graph = scenario.graph(call.graph)) {
            const int device = graphDevice(*graph, scenario.device.profile).index;
            m_runDevices.insert(device);
            for (const Node& n : graph->nodes)
                if (n.op == NodeOp::Placeholder && !n.outputs.empty() && n.outputs[0].onDevice())
                    m_runDevices.insert(inputDevice(n.outputs[0], device));
        }
    m_multiDevice = m_runDevices.size() > 1;
    for (size_t c = 0; c < scenario.calls.size(); ++c)
        for (const auto& [name, b] : scenario.calls[c].inputs)
            if (b.kind == scenario::Binding::Kind::OutputOf) {
                auto& last = m_lastUse[{ b.call, b.index }];
                last = std::max(last, int(c));
            }
}

Simulation Simulator::run()
{
    const int total = int(m_scenario.calls.size());
    m_returned.assign(total, {});
    for (int c = 0; c < total; ++c) {
        if (m_options.progress && !m_options.progress(c, total)) {
            m_sim.cancelled = true;
            break;
        }
        try {
            simulateCall(c);
            if (!m_sim.failure.empty()) {
                m_sim.callsSimulated = c + 1;
                break;
            }
        } catch (const OutOfMemory& oom) {
            m_sim.outOfMemory = true;
            const RtGraph* g = m_callSpec ? &graphFor(m_callSpec->graph) : nullptr;
            // The allocator's text names the device that was full ("NPU 1; ..."); so does the hazard.
            const std::string what = oom.what();
            const auto at = what.find(m_scenario.device.profile == memory::Profile::Cuda ? "(GPU " : "(NPU ");
            const int full = at == std::string::npos ? (g ? g->device : 0) : std::atoi(what.c_str() + at + 5);
            m_deviceRecords[full].outOfMemory = true;
            const int idx = addHazard(HazardKind::OutOfMemory, g ? g->name : std::string(), {},
                m_multiDevice ? deviceName(full) + " memory" : std::string("device memory"), what);
            beginEvent(EventKind::OutOfMemory, g, {}, oom.what());
            if (!m_sim.events.empty())
                m_sim.events.back().hazard = idx;
            finishEvent();
            m_sim.callsSimulated = c + 1;
            break;
        }
        m_sim.callsSimulated = c + 1;
    }
    for (auto& g : m_graphs) {
        GraphRecord& r = m_sim.graphs[g.record];
        r.keys.clear();
        for (const auto& m : g.metas)
            r.keys.push_back(m.key);
    }
    for (auto& p : m_sim.pools)
        if (p.peakReserved == 0)
            updatePeaks(p.device, p.pool);
    for (int d : m_devices.devices())
        m_runDevices.insert(d);
    if (m_runDevices.empty())
        m_runDevices.insert(0);
    for (int d : m_runDevices) {
        DeviceRecord& r = m_deviceRecords[d];
        r.index = d;
        r.name = deviceName(d);
        r.capacityBytes = m_scenario.device.capacityOf(d);
        if (const memory::CachingAllocator* a = m_devices.find(d))
            r.peakReserved = std::max(r.peakReserved, a->peakReservedBytes());
        m_sim.peakDeviceReserved = std::max(m_sim.peakDeviceReserved, r.peakReserved);
        m_sim.devices.push_back(r);
    }
    return std::move(m_sim);
}

RtGraph& Simulator::graphFor(const std::string& id)
{
    auto it = m_graphById.find(id);
    if (it != m_graphById.end())
        return m_graphs[it->second];
    RtGraph g;
    g.graph = m_scenario.graph(id);
    const GraphDevice device = graphDevice(*g.graph, m_scenario.device.profile);
    g.device = device.index;
    if (!device.note.empty())
        m_sim.assumptions.push_back(device.note);
    auto analysis = analyzeGraph(*g.graph);
    if (analysis)
        g.analysis = std::move(analysis.value());
    const GraphAnalysis& a = g.analysis;
    g.inputs.resize(a.placeholders.size());
    g.defaultBound.assign(a.placeholders.size(), -1);
    for (size_t pos = 0; pos < a.placeholders.size(); ++pos) {
        const Node& n = g.graph->nodes[a.placeholders[pos]];
        InputInfo& info = g.inputs[pos];
        info.tensor = n.inputKind != InputKind::SymInt && !n.outputs.empty();
        info.parameter = n.inputKind == InputKind::Parameter || n.inputKind == InputKind::Buffer
            || n.inputKind == InputKind::StaticAddress;
        info.mutated = !info.parameter && a.mutatedUserInputs.count(n.name) > 0;
        info.alias = a.aliasInputs.count(int(pos)) > 0;
        info.kind = info.parameter ? OwnerKind::Parameter
            : info.mutated         ? OwnerKind::MutatedInput
                                   : OwnerKind::UserInput;
        info.defaultStorage = !n.storage.empty() ? n.storage
            : info.parameter || info.mutated     ? g.graph->id + "." + n.name
                                                 : std::string();
        if (info.tensor && !n.outputs[0].isSymbolic()) {
            auto bytes = n.outputs[0].storageBytes({});
            info.constantBytes = bytes.ok();
            info.bytes = bytes.ok() ? bytes.value() : 0;
        }
    }
    for (const Node& n : g.graph->nodes)
        for (const TensorMeta& m : n.outputs)
            for (const auto* dims : { &m.shape, &m.stride })
                for (const SymExpr& d : *dims)
                    for (const std::string& s : d.symbols())
                        g.shapeSymbols.insert(s);
    m_graphs.push_back(std::move(g));
    m_graphById[id] = int(m_graphs.size()) - 1;
    return m_graphs.back();
}

void Simulator::compileGraph(RtGraph& g)
{
    const config::Options& o = m_sim.options;
    const int number = int(m_sim.graphs.size()) + 1; // _GLOBAL_GRAPH_ID is incremented before use
    g.name = "graph_" + std::to_string(number);
    g.aclGraphId = number;
    g.stream = m_nextStream++;
    if (o.customPool) {
        g.pool = { o.customPool->first, o.customPool->second };
    } else {
        // optimize_graph_without_runtime builds a throw-away AclGraph whose load() takes a handle,
        // then the generated module's load() takes the FX graph's own (torchair-behavior.md §3).
        ++m_nextPoolUid;
        g.pool = { 0, m_nextPoolUid++ };
    }
    GraphRecord rec;
    rec.name = g.name;
    rec.id = g.graph->id;
    rec.device = g.device;
    rec.pool = g.pool;
    g.record = int(m_sim.graphs.size());
    m_sim.graphs.push_back(rec);
    // A private pool belongs to one device's allocator: a custom pool handle shared by graphs on two
    // devices is two pools.
    auto pit = m_poolRecord.find({ g.device, g.pool });
    if (pit == m_poolRecord.end()) {
        PoolRecord pr;
        pr.device = g.device;
        pr.pool = g.pool;
        pr.custom = bool(o.customPool);
        pit = m_poolRecord.emplace(std::make_pair(g.device, g.pool), int(m_sim.pools.size())).first;
        m_sim.pools.push_back(pr);
    }
    m_sim.pools[pit->second].graphs.push_back(g.name);

    beginEvent(EventKind::Compile, &g, {},
        "compile FX graph '" + g.graph->id + "' as " + g.name + (o.forceEager ? " (force eager: never captured)" : "")
            + ", memory pool " + g.pool.str() + (m_multiDevice ? " on " + deviceName(g.device) : std::string()));
    for (const std::string& w : o.warnings)
        logConfigWarning(w);
    if (o.graphDumpType == "py") {
        // _NpuFxCompiler._gen_compiled_gm dumps the graph before the passes (T/npu_fx_compiler.py:689-690),
        // optimize_graph_without_runtime after them (TA/fx2acl_converter.py:310-311), each to
        // _Dump.full_path: "<path or .>/<name>_rank_<rank>_pid_<pid>_ts_<UTC timestamp>.py"
        // (T/configs/debug_config.py:26-36). The rank is 0 without torch.distributed.
        const std::string dir = o.graphDumpPath.empty() ? "." : o.graphDumpPath;
        for (const std::string& name :
            { "dynamo_original_graph_" + std::to_string(number), "dynamo_optimized_" + g.name })
            m_sim.files.push_back({ dir + "/" + name + "_rank_0_pid_<pid>_ts_<timestamp>.py",
                std::string("debug.graph_dump of ") + g.name + " (print_readable)", m_call, -1, {} });
    }
    if (!o.forceEager) {
        // AclGraph.compile's empty capture creates the pool; its checkpoint is _original_mem_state.
        alloc(g.device).increfPool(g.pool);
        g.tempGraphAlive = true;
        g.original = alloc(g.device).checkpoint(g.pool);
    }
    finishEvent();
}

std::string Simulator::graphKey(const RtGraph& g) const
{
    const GraphAnalysis& a = g.analysis;
    const Graph& graph = *g.graph;
    const SymbolValues& syms = m_callSpec->symbols;
    std::string key;
    if (a.keyEntries.empty()) {
        key = "no_updated_input";
    } else {
        key = "[";
        for (size_t i = 0; i < a.keyEntries.size(); ++i) {
            const auto& e = a.keyEntries[i];
            const Node& n = graph.nodes[a.placeholders[e.index]];
            if (i)
                key += ", ";
            if (e.isSym) {
                auto v = n.symbol.eval(syms);
                key += v ? std::to_string(v.value()) : "?";
            } else {
                auto shape = n.outputs[0].concreteShape(syms);
                key += "[";
                if (shape)
                    for (size_t d = 0; d < shape->size(); ++d)
                        key += (d ? ", " : "") + std::to_string((*shape)[d]);
                key += "]";
            }
        }
        key += "]";
    }
    if (!m_sim.options.frozenParameter && !a.parameterInputs.empty()) {
        std::vector<int64_t> ptrs;
        for (int pos : a.parameterInputs)
            ptrs.push_back(int64_t(dataPtr(pos)));
        key += std::to_string(pythonTupleHash(ptrs));
    }
    return key;
}

std::string Simulator::recaptureCause(RtGraph& g, KeyMeta& meta)
{
    GraphRecord& rec = m_sim.graphs[g.record];
    if (m_sim.options.backend == config::Backend::NpugraphEx && m_sim.options.forceRecapture) {
        ++rec.recapturesForce;
        return "force";
    }
    for (const auto& [pos, ptr] : meta.capturedMutated)
        if (dataPtr(pos) != ptr) {
            ++rec.recapturesMutatedInput;
            return "mutated_input";
        }
    if (meta.cube != m_cube || meta.vector != m_vector) {
        ++rec.recapturesCoreLimit;
        return "core_limit";
    }
    return {};
}

void Simulator::simulateCall(int c)
{
    m_call = c;
    m_callSpec = &m_scenario.calls[c];
    // The caller lets go of outputs it no longer holds before making this call.
    for (auto it = m_holds.begin(); it != m_holds.end();) {
        if (it->until < c) {
            releaseTensor(it->tensor);
            it = m_holds.erase(it);
        } else {
            ++it;
        }
    }
    if (m_callSpec->coreLimit) {
        m_cube = m_callSpec->coreLimit->cube;
        m_vector = m_callSpec->coreLimit->vector;
    }
    const int firstEvent = int(m_sim.events.size());
    if (m_cache && !cacheStep(c, true))
        return;
    RtGraph& g = graphFor(m_callSpec->graph);
    if (g.record < 0)
        compileGraph(g);
    GraphRecord& grec = m_sim.graphs[g.record];

    CallRecord rec;
    rec.index = c;
    rec.graph = g.name;
    rec.graphId = g.graph->id;
    rec.firstEvent = firstEvent;

    bindInputs(g);
    std::vector<int> outputs;
    if (m_sim.options.forceEager || g.fallback) {
        rec.action = CallAction::Eager;
        runEager(g);
        ++grec.eagerCalls;
    } else {
        const std::string key = graphKey(g);
        rec.key = key;
        if (std::find(grec.allKeys.begin(), grec.allKeys.end(), key) == grec.allKeys.end())
            grec.allKeys.push_back(key);
        KeyMeta* meta = g.find(key);
        std::string cause;
        bool capture = meta == nullptr;
        beginEvent(EventKind::KeyLookup, &g, key, "graph key {" + key + "}");
        if (logging())
            log(LogLevel::Debug, text::overheadPhase("generate graph_key", keyFunctionName(g, m_sim.options), -1));
        if (meta) {
            if (logging())
                log(LogLevel::Info, text::findCaptured(g.aclGraphId, g.name, key));
            cause = recaptureCause(g, *meta);
            if (cause.empty()) {
                if (logging())
                    log(LogLevel::Debug, text::noNeedsRecapture(g.name, key));
                if (logging())
                    m_sim.events.back().summary += ": found, replay";
            } else {
                log(LogLevel::Debug, text::needsRecapture(g.name, key));
                capture = true;
                if (logging())
                    m_sim.events.back().summary += ": found, recapture (" + cause + ")";
            }
        } else if (logging()) {
            m_sim.events.back().summary += ": not captured yet";
        }
        finishEvent();
        if (capture) {
            rec.action = cause.empty() ? CallAction::Capture : CallAction::Recapture;
            rec.recaptureCause = cause;
            if (!captureKey(g, key, cause)) {
                rec.action = CallAction::Eager;
                runEager(g);
                ++grec.eagerCalls;
            }
        }
        if (!g.fallback) {
            KeyMeta& m = *g.find(key);
            processInput(g, m, rec);
            replay(g, m);
            outputs = reconstructOutputs(g, m, rec);
            returnOutputs(g, outputs);
        }
    }
    for (int s : m_callRefs)
        releaseRef(s);
    m_callRefs.clear();
    if (m_cache)
        cacheStep(c, false);
    recordCall(rec);
}

bool Simulator::cacheStep(int c, bool before)
{
    const Graph* graph = m_scenario.graph(m_callSpec->graph);
    if (!graph || !m_cache->covers(graph->id))
        return true;
    const size_t lines = m_sim.log.size();
    const size_t warnings = m_sim.warnings.size();
    beginEvent(EventKind::Compile, nullptr, {}, "cache_compile");
    auto logFn
        = [this](LogLevel level, const std::string& text, const std::string& category) { log(level, text, category); };
    std::string failure;
    if (before)
        failure = m_cache->beforeCall(c, *graph, m_callSpec->symbols, logFn);
    else
        m_cache->afterCall(c, *graph, logFn);
    // The exception is the call's outcome, not a line TorchAir logs: it ends the run and names the event.
    m_sim.failure = failure;
    const bool said = m_sim.log.size() != lines || m_sim.warnings.size() != warnings || !failure.empty();
    if (logging() && !m_sim.events.empty()) {
        if (said) {
            const auto& eventLog = m_sim.events.back().log;
            m_sim.events.back().summary
                = "cache_compile: " + (failure.empty() ? eventLog[0].text : "the call raises " + failure);
        } else {
            m_sim.events.pop_back(); // nothing happened at this step: no event
            m_eventOpen = false;
        }
    }
    if (said)
        finishEvent();
    return failure.empty(); // a call that raised has no CallRecord, as one that ran out of memory
}

bool Simulator::captureKey(RtGraph& g, const std::string& key, const std::string& cause)
{
    const config::Options& o = m_sim.options;
    GraphRecord& grec = m_sim.graphs[g.record];
    // 1. Retained-output hand-off (only with reuse and exactly one key).
    if (o.reuseInSameFx && g.metas.size() == 1) {
        KeyMeta& only = g.metas.front();
        if (only.key != key)
            only.outputsWeak = only.retainedOutputs;
        std::vector<int> retained;
        retained.swap(only.retainedOutputs);
        for (int t : retained)
            releaseTensor(t);
    }
    // 2. Capture limit: counts the keys held, for recaptures too.
    if (int64_t(g.metas.size()) == o.captureLimit) {
        fallBack(g, key);
        return false;
    }
    // 3. compile_for_graph_key.
    std::vector<int> stale;
    for (const auto& m : g.metas)
        for (int t : m.outputsWeak)
            if (tensorAlive(t) && g.staleStoragesPtr.count(m_tensors[t].storage))
                stale.push_back(m_tensors[t].storage);
    const bool recapture = !cause.empty();
    KeyMeta fresh;
    fresh.key = key;
    fresh.captureCall = m_call;
    KeyMeta old;
    KeyMeta* slot = g.find(key);
    if (slot) {
        old = std::move(*slot);
        *slot = std::move(fresh);
    } else {
        g.metas.push_back(std::move(fresh));
        slot = &g.metas.back();
    }
    KeyMeta& meta = *slot;
    // The replaced GraphMeta's Python references go with it.
    for (int t : old.retainedOutputs)
        releaseTensor(t);
    for (const auto& ui : old.userInputs)
        if (ui.retainedStorage >= 0)
            releaseRef(ui.retainedStorage);
    grec.counters[text::capturedCounter(g.name)] = int64_t(g.metas.size());
    for (int pos : g.analysis.parameterInputs)
        meta.capturedParameter[pos] = dataPtr(pos);
    const Graph& graph = *g.graph;
    for (int pos : g.analysis.userInputs)
        if (g.analysis.mutatedUserInputs.count(graph.nodes[g.analysis.placeholders[pos]].name))
            meta.capturedMutated[pos] = dataPtr(pos);
    for (const auto& [pos, outs] : g.analysis.aliasInputs) {
        const int s = m_args[pos];
        addRef(s);
        auto it = g.capturedUserinputRef.find(pos);
        if (it != g.capturedUserinputRef.end())
            releaseRef(it->second);
        g.capturedUserinputRef[pos] = s;
        g.userinputRefDataPtr.emplace(pos, dataPtr(pos));
    }

    beginEvent(EventKind::Capture, &g, key,
        std::string(recapture ? "recapture" : "capture") + " graph key {" + key + "}"
            + (recapture ? " (" + cause + ")" : ""));
    log(LogLevel::Debug, text::startCapture(g.aclGraphId, g.name, key));
    if (o.reuseInSameFx && g.metas.size() > 1) {
        if (logging())
            log(LogLevel::Debug, text::startSettingOriginal(g.name, key, memState()));
        restorePool(g, g.original, stale);
        for (int s : stale)
            g.staleStoragesPtr.erase(s);
        if (logging())
            log(LogLevel::Debug, text::afterSettingOriginal(g.name, key, memState()));
    }
    meta.cube = m_cube;
    meta.vector = m_vector;
    capture(g, meta);
    ++grec.captures;
    if (recapture) {
        alloc(g.device).releasePool(g.pool); // the old NPUGraph is reset after the new capture
        const int recaptures = grec.recapturesMutatedInput + grec.recapturesCoreLimit + grec.recapturesForce;
        if (recaptures >= rules::kStormAt && !g.stormReported) {
            g.stormReported = true;
            addHazard(HazardKind::RecaptureStorm, g.name, key, cause,
                rules::recaptureStorm(g.name, m_call, grec.recapturesMutatedInput, grec.recapturesCoreLimit,
                    grec.recapturesForce, o.optionName("capture_limit")));
        }
    }
    if (g.tempGraphAlive) {
        alloc(g.device).releasePool(g.pool);
        g.tempGraphAlive = false;
    }
    if (logging())
        log(LogLevel::Debug,
            text::counters(o.backend, g.name, int(grec.counters[text::capturedCounter(g.name)]),
                grec.recapturesMutatedInput, grec.recapturesCoreLimit, grec.recapturesForce));
    // TorchAir's counters dict has the recapture entries only once they were incremented.
    if (grec.recapturesMutatedInput)
        grec.counters[text::mutatedRecaptureCounter(g.name)] = grec.recapturesMutatedInput;
    if (grec.recapturesCoreLimit)
        grec.counters[text::coreLimitRecaptureCounter(g.name)] = grec.recapturesCoreLimit;
    if (grec.recapturesForce)
        grec.counters[text::forceRecaptureCounter(g.name)] = grec.recapturesForce;
    finishEvent();
    return true;
}

void Simulator::fallBack(RtGraph& g, const std::string& key)
{
    const config::Options& o = m_sim.options;
    GraphRecord& grec = m_sim.graphs[g.record];
    beginEvent(EventKind::Fallback, &g, key, g.name + " reached the capture limit: eager from now on");
    const std::string warning = text::captureLimitWarning(o.backend, g.name, key, o.captureLimit);
    log(LogLevel::Warning, warning, "UserWarning");
    log(LogLevel::Warning, warning);
    g.fallback = true;
    grec.fallbackToEager = true;
    grec.fallbackCall = m_call;
    if (logging())
        log(LogLevel::Info, text::resetBefore(g.name, g.pool, memState()));
    grec.counters.erase(text::capturedCounter(g.name));
    grec.counters.erase(text::mutatedRecaptureCounter(g.name));
    grec.counters.erase(text::coreLimitRecaptureCounter(g.name));
    if (o.backend == config::Backend::NpugraphEx)
        grec.counters.erase(text::forceRecaptureCounter(g.name));
    for (auto& m : g.metas) {
        alloc(g.device).releasePool(g.pool);
        for (int t : m.retainedOutputs)
            releaseTensor(t);
        for (const auto& ui : m.userInputs)
            if (ui.retainedStorage >= 0)
                releaseRef(ui.retainedStorage);
    }
    g.metas.clear();
    for (const auto& [pos, s] : g.capturedUserinputRef)
        releaseRef(s);
    g.capturedUserinputRef.clear();
    if (g.tempGraphAlive) {
        alloc(g.device).releasePool(g.pool);
        g.tempGraphAlive = false;
    }
    m_devices.emptyCache(); // torch.npu.empty_cache() releases the cache of every device used
    if (logging())
        log(LogLevel::Info, text::resetAfter(g.name, g.pool, memState()));
    const int idx = addHazard(HazardKind::Fallback, g.name, key, o.optionName("capture_limit"),
        g.name + " reached " + o.optionName("capture_limit") + "=" + std::to_string(o.captureLimit) + " at call "
            + std::to_string(m_call) + " (graph key {" + key
            + "}) and runs eagerly for every later call: no more replays.");
    if (logging())
        m_sim.events.back().hazard = idx;
    finishEvent();
}

} // namespace detail

Result<Simulation> simulate(const scenario::Scenario& scenario, const SimulationOptions& options)
{
    if (scenario.runtime == scenario::Runtime::CudaGraphTrees)
        return cgt::simulateScenario(scenario, options);
    std::vector<std::pair<std::string, PyValue>> settings = scenario.config;
    settings.insert(settings.end(), options.overrides.begin(), options.overrides.end());
    const config::Backend backend = scenario.backend ? *scenario.backend : config::guessBackend(settings);
    auto parsed = config::parseOptions(backend, settings);
    if (!parsed) {
        Error e = parsed.error();
        e.context = scenario.path + ": $.config" + (e.context.empty() ? "" : "." + e.context);
        return e;
    }
    // Inputs without tensor metadata (print(gm.graph), unannotated code) are simulated as tensors of
    // unknown dtype and no elements (0 bytes), on a copy of the scenario; the run says that its byte
    // figures are unknown instead of printing zeros as if they were measured.
    std::optional<scenario::Scenario> completed;
    std::string sizesUnknown;
    for (const Graph& g : scenario.graphs) {
        const std::string note = missingMetadataNote(g);
        if (note.empty())
            continue;
        if (!completed)
            completed = scenario;
        sizesUnknown += (sizesUnknown.empty() ? "" : "; ") + std::string("graph '") + g.id + "': " + note;
    }
    if (completed)
        for (Graph& g : completed->graphs)
            for (Node& n : g.nodes)
                if (n.op == NodeOp::Placeholder && n.inputKind != InputKind::SymInt && n.outputs.empty()) {
                    TensorMeta unknown;
                    unknown.dtype = DType::Unknown;
                    unknown.device.clear();
                    n.outputs.push_back(std::move(unknown));
                }
    const scenario::Scenario& run = completed ? *completed : scenario;
    for (const Graph& g : run.graphs) {
        auto a = analyzeGraph(g);
        if (!a) {
            Error e = a.error();
            e.context = scenario.path + ": graph '" + g.id + "'";
            return e;
        }
    }
    detail::Simulator sim(run, options, std::move(parsed.value()));
    Simulation result = sim.run();
    result.sizesUnknown = sizesUnknown;
    for (const Graph& g : scenario.graphs) {
        const std::string note = unknownKindsNote(g);
        if (!note.empty())
            result.assumptions.push_back(note);
    }
    return result;
}

std::string unknownKindsNote(const Graph& g)
{
    const std::vector<std::string> unknown = g.inputKindsUnknown();
    if (unknown.empty())
        return {};
    size_t tensors = 0;
    for (const Node& n : g.nodes)
        if (n.op == NodeOp::Placeholder && n.inputKind != InputKind::SymInt)
            ++tensors;
    std::string names;
    for (size_t i = 0; i < unknown.size() && i < 4; ++i)
        names += (i ? ", " : "") + unknown[i];
    if (unknown.size() > 4)
        names += ", ...";
    return "graph '" + g.id + "': nothing tells the kind of " + std::to_string(unknown.size()) + " of its "
        + std::to_string(tensors) + " tensor inputs (" + names
        + "): they are treated as user inputs, so any weights among them are staged (copied) on every replay; "
          "give their kinds with --input-kind NAME=parameter|buffer|static_address|user_input, in a scenario, or "
          "import the TORCH_TRACE of the same compile";
}

std::string unknownSizesText(const Simulation& sim)
{
    return sim.sizesUnknown.empty() ? std::string() : "unknown (" + sim.sizesUnknown + ")";
}

std::string missingMetadataNote(const Graph& g)
{
    if (!g.metadataMissing.empty())
        return g.metadataMissing;
    const std::vector<std::string> missing = g.inputsWithoutMetadata();
    if (missing.empty())
        return {};
    std::string names;
    for (size_t i = 0; i < missing.size() && i < 5; ++i)
        names += (i ? ", " : "") + missing[i];
    if (missing.size() > 5)
        names += ", ... (" + std::to_string(missing.size()) + " in all)";
    return "the file has no tensor metadata for input(s) " + names
        + ": a form with annotations (print_readable(), fx_graph_readable.py) or the TORCH_TRACE of the same compile gives it";
}

} // namespace engine::runtime
