// Storages, capture and eager execution, and pool rollbacks of the simulated runtime.
#include "engine/runtime/graph_device.h"
#include "engine/runtime/simulator_impl.h"
#include "engine/runtime/torchair_text.h"

#include <algorithm>

namespace engine::runtime::detail {

namespace {

/// Bytes of a contiguous copy (torch.empty_like(..., memory_format=contiguous)).
uint64_t contiguousBytes(const TensorMeta& meta, const SymbolValues& syms)
{
    auto shape = meta.concreteShape(syms);
    if (!shape)
        return 0;
    uint64_t n = 1;
    for (int64_t d : *shape)
        n *= uint64_t(std::max<int64_t>(d, 0));
    return n * dtypeSize(meta.dtype);
}

void mergeRanges(std::vector<std::pair<uint64_t, uint64_t>>& ranges)
{
    std::sort(ranges.begin(), ranges.end());
    std::vector<std::pair<uint64_t, uint64_t>> merged;
    for (const auto& r : ranges) {
        if (!merged.empty() && r.first <= merged.back().second)
            merged.back().second = std::max(merged.back().second, r.second);
        else
            merged.push_back(r);
    }
    ranges.swap(merged);
}

} // namespace

memory::OwnerId Simulator::owner(
    OwnerKind kind, const std::string& graph, const std::string& key, const std::string& tensor)
{
    auto cacheKey = std::make_tuple(int(kind), graph, key, tensor);
    auto it = m_ownerCache.find(cacheKey);
    if (it != m_ownerCache.end())
        return it->second;
    OwnerInfo info;
    info.kind = kind;
    info.graph = graph;
    info.key = key;
    info.tensor = tensor;
    info.call = m_call;
    m_sim.owners.push_back(std::move(info));
    const memory::OwnerId id = memory::OwnerId(m_sim.owners.size()) - 1;
    m_ownerCache.emplace(std::move(cacheKey), id);
    return id;
}

uint64_t Simulator::allocate(int device, memory::PoolId pool, int stream, uint64_t bytes, memory::OwnerId ownerId)
{
    auto r = alloc(device).allocate(pool, stream, bytes, ownerId);
    if (!r)
        throw OutOfMemory(r.error().message);
    if (!pool.isDefault())
        updatePeaks(device, pool);
    return r.value();
}

int Simulator::newStorage(int device, memory::PoolId pool, int stream, uint64_t bytes, OwnerKind kind,
    const std::string& graph, const std::string& key, const std::string& tensor)
{
    RtStorage st;
    st.bytes = bytes;
    st.device = device;
    st.pool = pool;
    st.label = tensor;
    if (bytes > 0) {
        st.owner = owner(kind, graph, key, tensor);
        st.address = allocate(device, pool, stream, bytes, st.owner);
    }
    m_storages.push_back(std::move(st));
    const int id = int(m_storages.size()) - 1;
    if (bytes > 0 && !pool.isDefault())
        m_poolStorageAt[m_storages[id].address] = id;
    return id;
}

void Simulator::addRef(int storage)
{
    if (storage >= 0)
        ++m_storages[storage].refs;
}

void Simulator::releaseRef(int storage)
{
    if (storage < 0)
        return;
    RtStorage& st = m_storages[storage];
    if (--st.refs > 0 || st.freed)
        return;
    st.freed = true;
    if (st.stale || st.bytes == 0)
        return; // a stale storage's deleter is a no-op: its memory already belongs to the pool
    freeBlock(st.address);
    if (!st.pool.isDefault())
        m_poolStorageAt.erase(st.address);
}

int Simulator::newTensor(int storage, int graph, const std::string& key, int output)
{
    m_tensors.push_back(RtTensor { storage, m_call, graph, key, output, 0 });
    return int(m_tensors.size()) - 1;
}

void Simulator::holdTensor(int tensor)
{
    if (tensor < 0)
        return;
    if (m_tensors[tensor].refs++ == 0)
        addRef(m_tensors[tensor].storage);
}

void Simulator::releaseTensor(int tensor)
{
    if (tensor < 0 || m_tensors[tensor].refs == 0)
        return;
    if (--m_tensors[tensor].refs == 0)
        releaseRef(m_tensors[tensor].storage);
}

uint64_t Simulator::dataPtr(int position) const
{
    const int s = m_args[position];
    if (s < 0)
        return 0;
    const RtStorage& st = m_storages[s];
    // There is no tensor behind a zero-byte storage: a fixed address keeps keys stable.
    return st.address;
}

const std::vector<uint64_t>& Simulator::storageBytes(RtGraph& g)
{
    // Sizes depend only on the symbols that shapes mention; other symbols (a KV length fed to an
    // updatable op) change every call and must not split the cache.
    SymbolValues relevant;
    for (const auto& [name, value] : m_callSpec->symbols)
        if (g.shapeSymbols.count(name))
            relevant.emplace(name, value);
    auto it = g.storageBytes.find(relevant);
    if (it != g.storageBytes.end())
        return it->second;
    const GraphAnalysis& a = g.analysis;
    std::vector<uint64_t> bytes(a.storages.size(), 0);
    for (size_t s = 0; s < a.storages.size(); ++s) {
        const auto& plan = a.storages[s];
        const Node& node = g.graph->nodes[plan.node];
        if (size_t(plan.output) >= node.outputs.size() || !node.outputs[plan.output].onDevice())
            continue;
        auto b = node.outputs[plan.output].storageBytes(relevant);
        bytes[s] = b ? b.value() : 0;
    }
    return g.storageBytes.emplace(std::move(relevant), std::move(bytes)).first->second;
}

void Simulator::bindInputs(RtGraph& g)
{
    const GraphAnalysis& a = g.analysis;
    const Graph& graph = *g.graph;
    const std::vector<uint64_t>& planned = storageBytes(g);
    m_args.assign(a.placeholders.size(), -1);
    for (size_t pos = 0; pos < a.placeholders.size(); ++pos) {
        const InputInfo& info = g.inputs[pos];
        if (!info.tensor)
            continue;
        const int placeholder = a.placeholders[pos];
        const uint64_t bytes = info.constantBytes ? info.bytes : planned[a.nodeStorages[placeholder][0]];
        // The caller's tensor lives on the device its metadata names (the graph's where it names none).
        const int device = inputDevice(graph.nodes[placeholder].outputs[0], g.device);
        scenario::Binding b;
        if (!m_callSpec->inputs.empty()) {
            auto it = m_callSpec->inputs.find(graph.nodes[placeholder].name);
            if (it != m_callSpec->inputs.end())
                b = it->second;
        }
        if (b.kind == scenario::Binding::Kind::Default) {
            if (info.defaultStorage.empty()) {
                b.kind = scenario::Binding::Kind::New;
            } else if (g.defaultBound[pos] >= 0) {
                m_args[pos] = g.defaultBound[pos];
                continue;
            } else {
                b.kind = scenario::Binding::Kind::Named;
                b.name = info.defaultStorage;
            }
        }
        int s = -1;
        switch (b.kind) {
        case scenario::Binding::Kind::New:
            s = newStorage(device, {}, 0, bytes, info.kind, {}, {},
                graph.nodes[placeholder].name + "@call" + std::to_string(m_call));
            addRef(s);
            m_callRefs.push_back(s);
            break;
        case scenario::Binding::Kind::Named: {
            auto named = m_named.find(b.name);
            if (named == m_named.end()) {
                s = newStorage(device, {}, 0, bytes, info.kind, {}, {}, b.name);
                m_storages[s].named = true;
                addRef(s); // the caller keeps a named storage for the whole run
                m_named[b.name] = s;
            } else {
                s = named->second;
                if (bytes > m_storages[s].bytes)
                    log(LogLevel::Warning,
                        "aclgraph-inspector: storage '" + b.name + "' has " + std::to_string(m_storages[s].bytes)
                            + " bytes but input " + graph.nodes[placeholder].name + " of call " + std::to_string(m_call)
                            + " needs " + std::to_string(bytes) + "; the simulation keeps the smaller storage.");
            }
            if (b.name == info.defaultStorage)
                g.defaultBound[pos] = s;
            break;
        }
        case scenario::Binding::Kind::OutputOf: {
            const auto& returned = m_returned[b.call];
            const int t = b.index < int(returned.size()) ? returned[b.index] : -1;
            s = t >= 0 ? m_tensors[t].storage : -1;
            break;
        }
        case scenario::Binding::Kind::Default:
            break;
        }
        m_args[pos] = s;
        checkInputDevice(g, int(pos), s, b);
    }
}

std::vector<int> Simulator::execute(RtGraph& g, const std::vector<int>& args, memory::PoolId pool, int stream,
    const std::string& key, std::vector<std::pair<uint64_t, uint64_t>>* writeSet)
{
    const GraphAnalysis& a = g.analysis;
    const Graph& graph = *g.graph;
    const SymbolValues& syms = m_callSpec->symbols;
    const bool eager = pool.isDefault();
    const std::vector<uint64_t>& planned = storageBytes(g);
    std::vector<memory::OwnerId>& owners = g.owners[key];
    if (owners.empty())
        owners.assign(graph.nodes.size() * 2, memory::kNoOwner);
    auto ownerOf = [&](size_t node, OwnerKind kind) {
        memory::OwnerId& o = owners[node * 2 + (kind == OwnerKind::Workspace ? 1 : 0)];
        if (o == memory::kNoOwner)
            o = owner(kind, g.name, key, graph.nodes[node].name);
        return o;
    };
    std::vector<uint64_t> addr(a.storages.size(), 0);
    std::vector<int> rt(a.storages.size(), -1);
    for (size_t s = 0; s < a.storages.size(); ++s)
        if (a.storages[s].inputPosition >= 0)
            rt[s] = args[a.storages[s].inputPosition];

    auto written = [&](uint64_t address) {
        if (!writeSet || !address)
            return;
        const auto block = m_devices.owning(address).blockAt(address);
        writeSet->emplace_back(address, address + (block ? block->size : 0));
    };
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
        const Node& node = graph.nodes[i];
        for (int s : a.nodeStorages[i]) {
            const auto& plan = a.storages[s];
            if (plan.node != int(i) || plan.inputPosition >= 0 || rt[s] >= 0 || addr[s])
                continue;
            const uint64_t bytes = planned[s];
            if (bytes == 0)
                continue;
            if (plan.liveUntil == INT_MAX) {
                rt[s] = newStorage(g.device, pool, stream, bytes, eager ? OwnerKind::EagerTensor : OwnerKind::Output,
                    g.name, key, node.name);
                addr[s] = m_storages[rt[s]].address;
            } else {
                addr[s] = allocate(g.device, pool, stream, bytes,
                    ownerOf(i, eager ? OwnerKind::EagerTensor : OwnerKind::Intermediate));
            }
            written(addr[s]);
        }
        if (auto w = node.workspaceBytes.eval(syms); w && w.value() > 0) {
            const uint64_t ws = allocate(g.device, pool, stream, uint64_t(w.value()), ownerOf(i, OwnerKind::Workspace));
            written(ws);
            freeBlock(ws);
        }
        for (int s : a.freeAfter[i])
            if (addr[s] && rt[s] < 0) {
                freeBlock(addr[s]);
                addr[s] = 0;
            }
    }
    std::vector<int> outs;
    for (int s : a.outputs)
        outs.push_back(s >= 0 ? rt[s] : -1);
    return outs;
}

void Simulator::capture(RtGraph& g, KeyMeta& meta)
{
    const config::Options& o = m_sim.options;
    const GraphAnalysis& a = g.analysis;
    const Graph& graph = *g.graph;
    const SymbolValues& syms = m_callSpec->symbols;
    alloc(g.device).increfPool(g.pool); // beginAllocateToPool: this capture's NPUGraph holds the pool

    std::vector<int> args = m_args;
    std::vector<int> staging;
    std::string metaText = "{";
    for (int pos : a.userInputs) {
        const Node& node = graph.nodes[a.placeholders[pos]];
        if (a.mutatedUserInputs.count(node.name) || a.aliasInputs.count(pos))
            continue;
        KeyMeta::UserInput ui;
        ui.position = pos;
        ui.name = node.name;
        ui.onDevice = node.outputs[0].onDevice();
        ui.bytes = contiguousBytes(node.outputs[0], syms);
        const int s = m_args[pos];
        if (o.cloneInput && ui.onDevice && ui.bytes > 0) {
            // torch.empty_like(input) (acl_graph.py:1209) is on the input's device; only the graph's own
            // device allocates into its pool (beginAllocateToPool is per device), another's takes its default pool.
            const int device = s >= 0 ? m_storages[s].device : g.device;
            const bool own = device == g.device;
            const int st = newStorage(device, own ? g.pool : memory::PoolId {}, own ? g.stream : 0, ui.bytes,
                OwnerKind::Staging, g.name, meta.key, node.name);
            addRef(st); // retained_userinputs
            staging.push_back(st);
            args[pos] = st;
            ui.stagingAddress = m_storages[st].address;
            ui.dataPtr = ui.stagingAddress;
            if (const auto block = m_devices.owning(ui.stagingAddress).blockAt(ui.stagingAddress))
                meta.writeSet.emplace_back(block->address, block->address + block->size);
        } else {
            addRef(s); // retained_userinputs keeps the user's own tensor
            ui.retainedStorage = s;
            ui.dataPtr = s >= 0 ? m_storages[s].address : 0;
        }
        if (metaText.size() > 1)
            metaText += ", ";
        metaText += std::to_string(pos) + ": TensorMetadata(nbytes=" + std::to_string(ui.bytes)
            + ", dtype=" + dtypeShortName(node.outputs[0].dtype) + ", data_ptr=" + std::to_string(ui.dataPtr) + ")";
        meta.userInputs.push_back(ui);
    }
    metaText += "}";
    if (logging())
        log(LogLevel::Debug,
            text::captureInfo(g.aclGraphId, g.name, meta.key, int(a.parameterInputs.size()),
                int(meta.capturedMutated.size()), int(a.aliasInputs.size()), metaText));

    const std::vector<int> outs = execute(g, args, g.pool, g.stream, meta.key, &meta.writeSet);
    mergeRanges(meta.writeSet);
    log(LogLevel::Info, text::successCapture(g.name, meta.key, g.aclGraphId, a.updatedNodeCount));

    std::vector<int> captured;
    for (size_t k = 0; k < outs.size(); ++k) {
        const int s = outs[k];
        const int storageIn = a.outputs[k] >= 0 ? a.storages[a.outputs[k]].inputPosition : -1;
        meta.outAliasInput.push_back(storageIn);
        meta.outAddress.push_back(s >= 0 ? m_storages[s].address : 0);
        meta.outBytes.push_back(s >= 0 ? m_storages[s].bytes : 0);
        int t = -1;
        if (s >= 0) {
            t = newTensor(s, g.record, meta.key, int(k));
            holdTensor(t);
        }
        captured.push_back(t);
    }
    meta.outputsWeak.assign(outs.size(), -1);
    meta.memAfterCapture = alloc(g.device).checkpoint(g.pool);
    updatePeaks(g.device, g.pool);
    if (logging())
        log(LogLevel::Debug, text::afterCapturing(g.name, meta.key, g.aclGraphId, o.reuseInSameFx, memState()));
    for (int st : staging)
        releaseRef(st); // retained_userinputs.clear(): staging memory goes back to the pool
    if (o.reuseInSameFx && g.metas.size() > 1) {
        for (int t : captured)
            releaseTensor(t); // del captured outputs: rebuilt after each replay instead
    } else {
        meta.retainedOutputs = captured;
    }
}

void Simulator::runEager(RtGraph& g)
{
    beginEvent(EventKind::Eager, &g, {},
        "run " + g.name + " eagerly, op by op"
            + (m_sim.options.forceEager ? " (" + m_sim.options.optionName("force_eager") + ")" : " (fallback)"));
    if (m_sim.options.forceEager && m_sim.options.staticKernel)
        staticKernelCompile(g);
    const std::vector<int> outs = execute(g, m_args, {}, 0, "eager", nullptr);
    std::vector<int> tensors;
    for (size_t k = 0; k < outs.size(); ++k)
        tensors.push_back(outs[k] >= 0 ? newTensor(outs[k], g.record, {}, int(k)) : -1);
    finishEvent();
    returnOutputs(g, tensors);
}

// AclGraph.run_eagerly_compile (torchair-behavior.md §1.4): under force_eager the static kernel is
// compiled once per new tuple of the SymInt inputs that enter the key, unless a value range is given
// and the tuple's entry at the sym index is not in it (an index past the tuple skips too).
void Simulator::staticKernelCompile(RtGraph& g)
{
    const GraphAnalysis& a = g.analysis;
    std::vector<int64_t> values;
    std::string dict = "{";
    for (const auto& e : a.keyEntries) {
        if (!e.isSym)
            continue;
        const auto v = g.graph->nodes[size_t(a.placeholders[size_t(e.index)])].symbol.eval(m_callSpec->symbols);
        if (!v)
            return; // a symbol without a value: nothing can be said of this call
        dict += (values.empty() ? "" : ", ") + std::to_string(e.index) + ": " + std::to_string(*v);
        values.push_back(*v);
    }
    dict += "}";
    if (!g.staticKernelTuples.insert(values).second)
        return;
    const auto& range = m_sim.options.staticKernelSymRange;
    const int64_t index = m_sim.options.staticKernelSymIndex;
    const bool compile = !range
        || (index >= 0 && size_t(index) < values.size()
            && std::find(range->begin(), range->end(), values[size_t(index)]) != range->end());
    if (!logging())
        return;
    if (compile) {
        log(LogLevel::Info, text::startStaticKernel(g.name, dict));
        return;
    }
    std::string r = "[";
    for (size_t i = 0; i < range->size(); ++i)
        r += (i ? ", " : "") + std::to_string((*range)[i]);
    log(LogLevel::Info, text::skipStaticKernel(g.name, dict, index, r + "]"));
}

void Simulator::checkInputDevice(RtGraph& g, int position, int storage, const scenario::Binding& binding)
{
    if (storage < 0 || m_storages[storage].bytes == 0 || m_storages[storage].device == g.device
        || !g.crossDeviceReported.insert(position).second)
        return;
    const RtStorage& st = m_storages[storage];
    const std::string input = g.graph->nodes[g.analysis.placeholders[position]].name;
    const std::string what = binding.kind == scenario::Binding::Kind::OutputOf
        ? "output " + std::to_string(binding.index) + " of call " + std::to_string(binding.call)
        : "tensor '" + st.label + "'";
    addHazard(HazardKind::CrossDeviceInput, g.name, {}, input,
        "input " + input + " of " + g.name + " (captured on " + deviceName(g.device) + ") is " + what + ", on "
            + deviceName(st.device)
            + ". TorchAir checks no device: it captures on the AclGraph's device (acl_graph.py:791); with "
              "clone_input its staging copy is torch.empty_like(input) (line 1209), on "
            + deviceName(st.device)
            + ", and process_input copies each call's input into it with copy_ (lines 1290-1359). Whether the "
              "capture and replay of ops mixing two devices succeed is not modelled (eager PyTorch refuses most "
              "such ops): the tensor stays on "
            + deviceName(st.device) + " and the graph's own memory is on " + deviceName(g.device)
            + ". Move the tensor with .to(\"" + deviceName(g.device) + "\") before the call.");
}

void Simulator::restorePool(RtGraph& g, const memory::PoolCheckpoint& state, const std::vector<int>& stale)
{
    auto r = alloc(g.device).restore(state);
    if (!r)
        throw OutOfMemory("internal: " + r.error().toString());
    const std::set<int> declared(stale.begin(), stale.end());
    for (auto it = m_poolStorageAt.begin(); it != m_poolStorageAt.end();) {
        RtStorage& st = m_storages[it->second];
        if (st.pool != g.pool || st.device != g.device) {
            ++it;
            continue;
        }
        // Every allocated block of the pool was freed: a live storage's memory now belongs to the pool.
        st.stale = true;
        if (!st.freed && !declared.count(it->second)) {
            addHazard(HazardKind::StaleCheckpoint, g.name, std::string(), st.label,
                "tensor '" + st.label
                    + "' is alive but was not passed as stale to _npu_setCheckpointPoolState; "
                      "the allocator would fail with \"Any stale tensors which are being manually freed must be "
                      "passed to set checkpoint\".");
        }
        it = m_poolStorageAt.erase(it);
    }
}

} // namespace engine::runtime::detail
