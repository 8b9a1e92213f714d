#include "engine/runtime/cgt/cgt_run.h"

#include "engine/runtime/cgt/cgt_run_impl.h"

#include <algorithm>
#include <climits>

namespace engine::runtime::cgt {

namespace detail {

namespace {

/// The FX code's comment "# File: PATH:LINE in FUNC, code: CODE" (torch/fx/graph.py prints it from
/// node.meta["stack_trace"]) back in the traceback form that meta holds and PyTorch quotes in the
/// overwritten error: `File "PATH", line LINE, in FUNC` and the code indented on the next line (real
/// cudagraph_cases_g/g_feedback.log). Anything else is kept as it is.
std::string tracebackOf(const std::string& provenance)
{
    const std::string head = "# File: ";
    const size_t code = provenance.find(", code: ");
    if (provenance.rfind(head, 0) != 0 || code == std::string::npos)
        return provenance;
    const std::string where = provenance.substr(head.size(), code - head.size());
    const size_t in = where.rfind(" in ");
    const size_t colon = in == std::string::npos ? std::string::npos : where.rfind(':', in);
    if (colon == std::string::npos || colon + 1 >= in)
        return provenance;
    const std::string line = where.substr(colon + 1, in - colon - 1);
    if (line.find_first_not_of("0123456789") != std::string::npos)
        return provenance;
    return "File \"" + where.substr(0, colon) + "\", line " + line + ", in " + where.substr(in + 4) + "\n    "
        + provenance.substr(code + 8);
}

} // namespace

Run::Run(const scenario::Scenario& sc, const SimulationOptions& options, config::CudaOptions co)
    : m_sc(sc)
    , m_options(options)
    , m_co(std::move(co))
    , m_devices(
          [&] {
              memory::AllocatorConfig c;
              c.profile = sc.device.profile;
              c.capacityBytes = sc.device.capacityBytes;
              return c;
          }(),
          [&sc](int device) { return sc.device.capacityOf(device); })
{
    m_sim.scenarioPath = sc.path;
    m_sim.scenarioName = sc.name;
    m_sim.cuda = m_co;
    m_sim.profile = sc.device.profile;
    m_sim.capacityBytes = sc.device.capacityOf(0);
    m_sim.warnings = {};
    m_sim.options.mode = m_co.mode;
    for (const std::string& note : m_co.notes)
        m_sim.assumptions.push_back(note);
}

Result<Simulation> Run::run()
{
    if (auto r = prepareGraphs(); !r)
        return r.error();
    const int total = int(m_sc.calls.size());
    buildTree();
    try {
        for (int c = 0; c < total; ++c) {
            if (m_options.progress && !m_options.progress(c, total)) {
                m_sim.cancelled = true;
                break;
            }
            m_sim.callsSimulated = c + 1;
            simulateCall(c);
            if (!m_sim.failure.empty())
                break;
        }
    } catch (const StopRun&) {
    }
    if (m_options.progress && !m_sim.cancelled)
        m_options.progress(total, total);
    finish();
    return std::move(m_sim);
}

Result<void> Run::prepareGraphs()
{
    for (const Graph& g : m_sc.graphs) {
        auto a = analyzeGraph(g);
        if (!a) {
            Error e = a.error();
            e.context = m_sc.path + ": graph '" + g.id + "'";
            return e;
        }
        GraphInfo info;
        info.graph = &g;
        info.analysis = std::move(a).value();
        auto f = m_sc.frames.find(g.id);
        info.frame = f == m_sc.frames.end() ? "forward" : f->second;
        const std::vector<std::string> mutated = g.mutatedInputs();
        for (size_t pos = 0; pos < info.analysis.placeholders.size(); ++pos) {
            const Node& n = g.nodes[size_t(info.analysis.placeholders[pos])];
            if (n.inputKind == InputKind::SymInt) {
                info.symPositions.push_back(int(pos));
                continue;
            }
            if (n.outputs.empty())
                continue;
            if (std::find(mutated.begin(), mutated.end(), n.name) != mutated.end())
                info.mutated.push_back(info.tensorPositions.size());
            info.tensorPositions.push_back(int(pos));
        }
        // §7 K2-K4: with graph_partition (2.11's default) the unsafe ops get partitions of their own and
        // the rest is still captured (real d_cpu_input: warm-up, record, replay).
        if (!m_co.graphPartition)
            info.skip = compileTimeSkip(g);
        const int out = g.outputNode();
        if (out >= 0)
            for (const Arg& arg : g.nodes[size_t(out)].args) {
                const Arg* first = &arg;
                if (first->kind == Arg::Kind::List && !first->items.empty())
                    first = &first->items[0];
                if (first->kind == Arg::Kind::NodeRef && first->node >= 0) {
                    info.stackTrace = tracebackOf(g.nodes[size_t(first->node)].provenance);
                    break;
                }
            }
        m_graphs.emplace(g.id, std::move(info));
    }
    return {};
}

std::string Run::compileTimeSkip(const Graph& g)
{
    std::set<int> devices;
    for (const Node& n : g.nodes) {
        for (const TensorMeta& t : n.outputs) {
            if (!t.onDevice())
                return "cpu device (" + n.name + ")"; // K2
            devices.insert(deviceIndex(t.device));
        }
        if (n.op == NodeOp::CallFunction && incompatibleOp(n.target))
            return "disabling cudagraphs due to incompatible op " + n.target; // K4
    }
    if (devices.size() > 1) {
        std::string list;
        for (int d : devices)
            list += (list.empty() ? "" : ", ") + std::string("device(type='cuda', index=") + std::to_string(d) + ")";
        return "multiple devices: " + list; // K3
    }
    return {};
}

void Run::buildTree()
{
    const int total = int(m_sc.calls.size());
    m_heldThrough.assign(size_t(total), -1);
    for (int c = 0; c < total; ++c) {
        const scenario::Call& sc = m_sc.calls[size_t(c)];
        int& through = m_heldThrough[size_t(c)];
        through = sc.keepOutputs < 0 ? INT_MAX : c + sc.keepOutputs;
        for (int r : sc.reads)
            if (r <= c)
                m_heldThrough[size_t(r)] = std::max(m_heldThrough[size_t(r)], c);
        for (const auto& [name, b] : sc.inputs)
            if (b.kind == scenario::Binding::Kind::OutputOf && b.call >= 0 && b.call < c)
                m_heldThrough[size_t(b.call)] = std::max(m_heldThrough[size_t(b.call)], c);
    }
    // When the program drops each call's outputs, and the last call that reads each (a read of a
    // freed or overwritten output is reported at the read, not before).
    m_releaseAt.assign(size_t(total), {});
    m_lastReadBy.assign(size_t(total), -1);
    for (int c = 0; c < total; ++c) {
        const int through = m_heldThrough[size_t(c)];
        if (through != INT_MAX)
            m_releaseAt[size_t(std::max(through, c))].push_back(c);
        for (int r : m_sc.calls[size_t(c)].reads)
            if (r <= c)
                m_lastReadBy[size_t(r)] = std::max(m_lastReadBy[size_t(r)], c);
    }
    std::vector<Call> calls(static_cast<size_t>(total));
    for (int c = 0; c < total; ++c) {
        const scenario::Call& sc = m_sc.calls[size_t(c)];
        const GraphInfo& g = m_graphs.at(sc.graph);
        Call& t = calls[size_t(c)];
        t.label = callName(c);
        t.function = g.frame;
        t.graph = sc.graph;
        for (int pos : g.symPositions) {
            const Node& n = g.graph->nodes[size_t(g.analysis.placeholders[size_t(pos)])];
            auto v = n.symbol.eval(sc.symbols);
            t.sizes.push_back(v ? v.value() : 0);
        }
        t.dynamicGraph = g.graph->dynamic && !g.symPositions.empty();
        t.markStepBegin = sc.markStepBegin;
        for (int r : sc.reads)
            t.readsAfter.push_back(callName(r));
        const int through = m_heldThrough[size_t(c)];
        t.holdsOutput = through == INT_MAX;
        if (!t.holdsOutput && through > c)
            t.heldThrough = through;
        t.outputStackTrace = g.stackTrace;
        t.mutatedInputs = g.mutated;
        t.skipCudagraphs = g.skip;
    }
    m_tree = std::make_unique<Tree>(std::move(calls), treeOptions());
}

Options Run::treeOptions() const
{
    Options o;
    o.dynamic_shape_warn_limit = m_co.dynamicShapeWarnLimit;
    o.unexpected_rerecord_limit = m_co.unexpectedRerecordLimit;
    o.inline_inbuilt_nn_modules = m_co.inlineInbuiltNnModules;
    o.support_input_mutation = m_co.supportInputMutation;
    o.skip_dynamic_graphs = m_co.skipDynamicGraphs;
    o.capture_sizes = m_co.captureSizes;
    o.force_cudagraphs_warmup = m_co.forceCudagraphsWarmup;
    o.skip_cudagraph_warmup = m_co.skipCudagraphWarmup;
    o.debug_cudagraphs_logging = m_co.debugCudagraphsLogging();
    o.graph_partition = m_co.graphPartition;
    return o;
}

void Run::beginEvent(EventKind kind, const std::string& graph, const std::string& key, std::string summary)
{
    if (!m_options.recordEvents)
        return;
    Event e;
    e.index = int(m_sim.events.size());
    e.call = m_call;
    e.kind = kind;
    e.graph = graph;
    e.key = key;
    e.summary = std::move(summary);
    m_sim.events.push_back(std::move(e));
}

void Run::finishEvent()
{
    updatePeaks();
    if (!m_options.recordEvents || m_sim.events.empty())
        return;
    Event& e = m_sim.events.back();
    e.deviceReserved = m_devices.reservedBytes();
    e.deviceAllocated = m_devices.allocatedBytes();
    if (m_options.recordMemory)
        e.memory = poolSnapshots(m_devices);
    if (m_options.observeMemory)
        m_options.observeMemory(e, m_devices);
}

void Run::log(LogLevel level, const std::string& text)
{
    if (level == LogLevel::Warning)
        m_sim.warnings.push_back(text);
    if (!m_options.recordEvents)
        return;
    LogLine l { level, text, {} };
    m_sim.log.push_back(l);
    if (!m_sim.events.empty())
        m_sim.events.back().log.push_back(std::move(l));
}

int Run::addHazard(HazardKind kind, const std::string& graph, const std::string& key, std::string concerns,
    std::string message, int madeAtCall)
{
    Hazard h;
    h.kind = kind;
    h.call = m_call;
    h.graph = graph;
    h.key = key;
    h.concerns = std::move(concerns);
    h.message = std::move(message);
    h.madeAtCall = madeAtCall;
    m_sim.hazards.push_back(std::move(h));
    const int index = int(m_sim.hazards.size()) - 1;
    beginEvent(EventKind::Hazard, graph, key, std::string(hazardKindName(kind)) + ": " + m_sim.hazards.back().message);
    if (m_options.recordEvents)
        m_sim.events.back().hazard = index;
    finishEvent();
    return index;
}

memory::OwnerId Run::owner(OwnerKind kind, const std::string& graph, const std::string& key, const std::string& tensor)
{
    const auto id = std::make_tuple(int(kind), graph, key, tensor);
    auto it = m_ownerCache.find(id);
    if (it != m_ownerCache.end())
        return it->second;
    OwnerInfo o;
    o.kind = kind;
    o.graph = graph;
    o.key = key;
    o.tensor = tensor;
    o.call = m_call;
    m_sim.owners.push_back(std::move(o));
    const memory::OwnerId oid = memory::OwnerId(m_sim.owners.size() - 1);
    m_ownerCache.emplace(id, oid);
    return oid;
}

uint64_t Run::allocate(memory::PoolId pool, memory::StreamId stream, uint64_t bytes, memory::OwnerId who)
{
    auto r = alloc().allocate(pool, stream, std::max<uint64_t>(bytes, 1), who);
    if (r) {
        updatePeaks();
        return r.value();
    }
    if (r.error().code != ErrorCode::OutOfMemory)
        throw std::logic_error("internal: " + r.error().toString());
    m_sim.outOfMemory = true;
    if (m_sim.devices.empty())
        m_deviceRecord.outOfMemory = true;
    beginEvent(EventKind::OutOfMemory, m_graphName, m_key, "the device cannot hold the call's memory");
    log(LogLevel::Warning, r.error().message);
    finishEvent();
    addHazard(HazardKind::OutOfMemory, m_graphName, m_key, mib(bytes), r.error().message);
    m_sim.failure = "torch.OutOfMemoryError: " + r.error().message;
    throw StopRun("oom");
}

void Run::freeBlock(uint64_t address)
{
    if (auto r = alloc().free(address); !r)
        throw std::logic_error("internal: " + r.error().toString());
}

void Run::updatePeaks()
{
    const memory::CachingAllocator* a = m_devices.find(0);
    if (!a)
        return;
    m_deviceRecord.peakReserved = std::max(m_deviceRecord.peakReserved, a->reservedBytes());
    m_deviceRecord.peakAllocated = std::max(m_deviceRecord.peakAllocated, a->allocatedBytes());
    m_sim.peakDeviceReserved = m_deviceRecord.peakReserved;
    m_sim.peakDeviceAllocated = m_deviceRecord.peakAllocated;
    for (auto& [id, pool] : m_pools) {
        const memory::PoolTotals t = a->totals(id);
        pool.peakReserved = std::max(pool.peakReserved, t.reserved);
        pool.peakAllocated = std::max(pool.peakAllocated, t.allocated);
    }
}

uint64_t Run::poolReserved() const
{
    const memory::CachingAllocator* a = m_devices.find(0);
    return a && m_pools.count(kPool) ? a->totals(kPool).reserved : 0;
}

void Run::ensurePool(const GraphInfo& g, memory::PoolId id)
{
    auto [it, made] = m_pools.try_emplace(id);
    PoolRecord& pool = it->second;
    if (made) {
        alloc().increfPool(id);
        pool.device = 0;
        pool.pool = id;
    }
    if (std::find(pool.graphs.begin(), pool.graphs.end(), g.compileId) == pool.graphs.end())
        pool.graphs.push_back(g.compileId); // a warm-up or recording of it used the pool
}

std::vector<uint64_t> Run::execute(GraphInfo& g, memory::PoolId pool, memory::StreamId stream, OwnerKind outputKind,
    const std::vector<uint64_t>& inputAddress, std::vector<uint64_t>& blocks, const std::set<int>& owned)
{
    const GraphAnalysis& a = g.analysis;
    const Graph& graph = *g.graph;
    const SymbolValues& symbols = m_sc.calls[size_t(m_call)].symbols;
    std::vector<uint64_t> address(a.storages.size(), 0);
    for (size_t s = 0; s < a.storages.size(); ++s)
        if (a.storages[s].inputPosition >= 0 && size_t(a.storages[s].inputPosition) < inputAddress.size())
            address[s] = inputAddress[size_t(a.storages[s].inputPosition)];
    std::set<int> outputStorages(a.outputs.begin(), a.outputs.end());
    std::map<int, std::vector<uint64_t>> ownedFreeAt; // node -> owned input buffers dying after it
    for (size_t s = 0; s < a.storages.size(); ++s) {
        const int position = a.storages[s].inputPosition;
        if (position < 0 || !owned.count(position) || address[s] == 0 || outputStorages.count(int(s)))
            continue;
        const int last = a.storages[s].liveUntil;
        if (last < 0)
            freeBlock(address[s]); // never read
        else
            ownedFreeAt[last].push_back(address[s]);
    }
    for (size_t n = 0; n < graph.nodes.size(); ++n) {
        if (n < a.nodeStorages.size())
            for (int s : a.nodeStorages[n]) {
                if (s < 0 || address[size_t(s)] != 0)
                    continue;
                const auto& plan = a.storages[size_t(s)];
                if (plan.inputPosition >= 0 || plan.node != int(n))
                    continue;
                const Node& node = graph.nodes[n];
                if (size_t(plan.output) >= node.outputs.size() || !node.outputs[size_t(plan.output)].onDevice())
                    continue;
                auto bytes = node.outputs[size_t(plan.output)].storageBytes(symbols);
                if (!bytes || bytes.value() == 0)
                    continue;
                const bool out = outputStorages.count(s) > 0;
                address[size_t(s)] = allocate(pool, stream, bytes.value(),
                    owner(out ? outputKind : OwnerKind::Intermediate, g.compileId, m_key, node.name));
            }
        if (auto it = ownedFreeAt.find(int(n)); it != ownedFreeAt.end())
            for (uint64_t buffer : it->second)
                freeBlock(buffer);
        if (n < a.freeAfter.size())
            for (int s : a.freeAfter[n])
                if (s >= 0 && address[size_t(s)] != 0 && a.storages[size_t(s)].inputPosition < 0
                    && !outputStorages.count(s)) {
                    freeBlock(address[size_t(s)]);
                    address[size_t(s)] = 0;
                }
    }
    std::vector<uint64_t> outs;
    for (int s : a.outputs) {
        const bool own = s >= 0 && a.storages[size_t(s)].inputPosition < 0 && address[size_t(s)] != 0;
        outs.push_back(s >= 0 ? address[size_t(s)] : 0);
        if (own && std::find(blocks.begin(), blocks.end(), address[size_t(s)]) == blocks.end())
            blocks.push_back(address[size_t(s)]);
    }
    return outs;
}

void Run::bindInputs(GraphInfo& g, std::vector<uint64_t>& inputAddress, std::vector<TensorArg>& args)
{
    const scenario::Call& call = m_sc.calls[size_t(m_call)];
    const GraphAnalysis& a = g.analysis;
    inputAddress.assign(a.placeholders.size(), 0);
    // Input sizes depend only on the call's symbol values: worked out once per distinct values.
    auto cached = g.inputBytes.find(call.symbols);
    if (cached == g.inputBytes.end()) {
        std::vector<uint64_t> sizes;
        for (int pos : g.tensorPositions) {
            auto b = g.graph->nodes[size_t(a.placeholders[size_t(pos)])].outputs[0].storageBytes(call.symbols);
            sizes.push_back(b ? b.value() : 0);
        }
        cached = g.inputBytes.emplace(call.symbols, std::move(sizes)).first;
    }
    args.reserve(g.tensorPositions.size());
    for (size_t i = 0; i < g.tensorPositions.size(); ++i) {
        const int pos = g.tensorPositions[i];
        const Node& n = g.graph->nodes[size_t(a.placeholders[size_t(pos)])];
        const uint64_t bytes = cached->second[i];
        const bool isStatic = n.inputKind == InputKind::Parameter || n.inputKind == InputKind::Buffer
            || n.inputKind == InputKind::StaticAddress;
        scenario::Binding binding;
        if (auto it = call.inputs.find(n.name); it != call.inputs.end())
            binding = it->second;
        TensorArg t;
        t.name = n.name;
        t.bytes = bytes;
        t.isStatic = isStatic;
        if (!n.outputs[0].onDevice()) {
            // A CPU tensor is not an input of the cudagraphed partition (its device copy is made by
            // a partition of its own): no device memory, nothing copied, no address to check.
            t.bytes = 0;
            args.push_back(std::move(t));
            continue;
        }
        if (binding.kind == scenario::Binding::Kind::Default) {
            if (!n.storage.empty()) {
                binding.kind = scenario::Binding::Kind::Named;
                binding.name = n.storage;
            } else if (isStatic) {
                binding.kind = scenario::Binding::Kind::Named;
                binding.name = g.graph->id + "." + n.name;
            } else {
                binding.kind = scenario::Binding::Kind::New;
            }
        }
        const OwnerKind kind = isStatic ? OwnerKind::Parameter : OwnerKind::UserInput;
        switch (binding.kind) {
        case scenario::Binding::Kind::Named: {
            auto it = m_named.find(binding.name);
            if (it == m_named.end())
                it = m_named
                         .emplace(binding.name,
                             Storage {
                                 allocate(memory::PoolId {}, kUserStream, bytes, owner(kind, {}, {}, binding.name)),
                                 bytes })
                         .first;
            t.address = it->second.address;
            break;
        }
        case scenario::Binding::Kind::OutputOf: {
            const auto& outs = m_outputs[size_t(binding.call)];
            t.address = size_t(binding.index) < outs.size() ? outs[size_t(binding.index)] : 0;
            t.outputOf = callName(binding.call);
            break;
        }
        case scenario::Binding::Kind::New:
        case scenario::Binding::Kind::Default:
            t.address = allocate(memory::PoolId {}, kUserStream, bytes,
                owner(kind, {}, {}, "call " + std::to_string(m_call) + " " + n.name));
            m_callStorages.push_back(t.address);
            break;
        }
        inputAddress[size_t(pos)] = t.address;
        args.push_back(std::move(t));
    }
}

void Run::simulateCall(int c)
{
    m_call = c;
    m_callStorages.clear();
    const scenario::Call& call = m_sc.calls[size_t(c)];
    GraphInfo& g = m_graphs.at(call.graph);
    m_graphName = g.compileId;
    m_key.clear();
    CallRecord rec;
    rec.index = c;
    rec.graphId = g.graph->id;
    rec.firstEvent = int(m_sim.events.size());
    if (!g.compiled && !compile(g, rec)) {
        rec.graph = g.compileId;
        releaseCallTensors(c);
        recordCall(rec);
        return;
    }
    if (!m_co.cudagraphTrees) {
        rec.graph = g.compileId;
        oldCudagraphify(g, rec);
        releaseCallTensors(c);
        recordCall(rec);
        return;
    }
    m_graphName = g.compileId;
    rec.graph = g.compileId;
    Call& t = m_tree->call(size_t(c));
    t.graph = g.compileId;
    t.dynamoEager = g.dynamoEager;
    if (t.dynamoEager.empty() && !m_co.cudagraphs)
        t.dynamoEager = "mode=\"" + m_co.mode
            + "\" leaves triton.cudagraphs off: Inductor's code runs directly, without CUDA graphs";
    if (!t.sizes.empty())
        m_key = keyText(t.sizes);
    rec.key = m_key;
    std::vector<uint64_t> inputAddress;
    t.inputs.clear();
    bindInputs(g, inputAddress, t.inputs);
    const CallResult r = m_tree->run(size_t(c));
    m_outputs.resize(size_t(c) + 1);

    // §6 L3: a new generation ended a warm-up or recording path: its held outputs are freed.
    if (!r.freedOutputsOf.empty()) {
        std::string list;
        for (const std::string& label : r.freedOutputsOf) {
            list += (list.empty() ? "" : ", ") + label;
            releaseOutputs(std::stoi(label.substr(5)));
        }
        beginEvent(EventKind::Outputs, g.compileId, m_key,
            "new generation: the held outputs of " + list
                + " (a warm-up or recording path) are freed; reading them now raises");
        finishEvent();
        for (const std::string& label : r.freedOutputsOf) {
            const int from = std::stoi(label.substr(5));
            if (m_heldThrough[size_t(from)] > c && !readsLater(from, c))
                addHazard(HazardKind::OverwrittenError, g.compileId, m_key, label,
                    label + "'s output is still held but call " + std::to_string(c)
                        + " started a new generation and freed it: reading it raises \""
                        + overwrittenErrorText(g.stackTrace) + "\"",
                    from);
        }
    }
    lookupEvent(g, r);
    const uint64_t reservedBefore = poolReserved();
    std::vector<uint64_t> outs;
    switch (r.action) {
    case Action::Warmup:
        outs = warmup(g, r, inputAddress);
        rec.action = CallAction::Warmup;
        break;
    case Action::Record:
        outs = record(g, r, t, inputAddress, rec);
        break;
    case Action::Replay:
        outs = replay(g, r, t, rec);
        rec.action = CallAction::Replay;
        break;
    case Action::Eager:
        outs = eager(g, r, inputAddress);
        rec.action = CallAction::Eager;
        break;
    case Action::Error:
        raised(g, r.warnings.empty() ? "RuntimeError: " + r.why : r.warnings.back(), rec);
        break;
    }
    m_outputs[size_t(c)] = outs;
    if (r.action == Action::Warmup || r.action == Action::Record) {
        // §9 M6: the first function sizes the pool; a later distinct size that needs more grows it.
        const uint64_t grown = poolReserved() - std::min(poolReserved(), reservedBefore);
        if (grown > 0 && m_growthSeen && m_growthReported.insert(r.fid).second)
            addHazard(HazardKind::PoolGrowth, g.compileId, m_key, mib(grown),
                "the pool grew by " + mib(grown) + " to " + mib(poolReserved()) + " for graph " + g.graph->id
                    + (m_key.empty() ? std::string() : " at size " + m_key)
                    + ": each distinct size warms up and records in the shared pool, whose segments are never "
                      "returned (docs/cuda-graph-trees.md §9 M1, M6)");
        if (grown > 0)
            m_growthSeen = true;
    }
    reads(g, r.reads);
    releaseCallTensors(c);
    recordCall(rec);
}

void Run::releaseCallTensors(int c)
{
    for (uint64_t address : m_callStorages)
        freeBlock(address);
    m_callStorages.clear();
    for (int i : m_releaseAt[size_t(c)])
        releaseOutputs(i);
}

bool Run::readsLater(int from, int c) const
{
    return m_lastReadBy[size_t(from)] >= c;
}

void Run::releaseOutputs(int call)
{
    auto it = m_outputBlocks.find(call);
    if (it == m_outputBlocks.end())
        return;
    for (uint64_t address : it->second)
        freeBlock(address);
    m_outputBlocks.erase(it);
}

void Run::recordCall(CallRecord& rec)
{
    if (const memory::CachingAllocator* a = m_devices.find(0)) {
        rec.pools = poolCallStates(*a, 0);
        rec.deviceReserved = a->reservedBytes();
        rec.deviceAllocated = a->allocatedBytes();
    }
    rec.eventCount = int(m_sim.events.size()) - rec.firstEvent;
    m_sim.calls.push_back(std::move(rec));
}

void Run::finish()
{
    m_deviceRecord.index = 0;
    m_deviceRecord.name = memory::deviceName(m_sc.device.profile, 0);
    m_deviceRecord.capacityBytes = m_sc.device.capacityOf(0);
    m_sim.devices.push_back(m_deviceRecord);
    for (const auto& [id, pool] : m_pools)
        m_sim.pools.push_back(pool);
    // Warnings once each, in order (PyTorch's logger repeats; the summary lists each once).
    std::vector<std::string> unique;
    for (const std::string& w : m_sim.warnings)
        if (std::find(unique.begin(), unique.end(), w) == unique.end())
            unique.push_back(w);
    m_sim.warnings = std::move(unique);
}

} // namespace detail

Result<Simulation> simulateScenario(const scenario::Scenario& scenario, const SimulationOptions& options)
{
    std::vector<std::pair<std::string, PyValue>> settings = scenario.config;
    settings.insert(settings.end(), options.overrides.begin(), options.overrides.end());
    auto parsed = config::parseCudaOptions(settings);
    if (!parsed) {
        Error e = parsed.error();
        e.context = scenario.path + ": $.config" + (e.context.empty() ? "" : "." + e.context);
        return e;
    }
    detail::Run run(scenario, options, std::move(parsed).value());
    return run.run();
}

} // namespace engine::runtime::cgt
