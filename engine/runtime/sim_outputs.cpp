// Input update (process_input), replay and output reconstruction of the simulated runtime, and the
// hazards found there (torchair-behavior.md §2.4-2.6).
#include "engine/runtime/simulator_impl.h"
#include "engine/runtime/torchair_text.h"

#include <algorithm>

namespace engine::runtime::detail {

namespace {

bool overlaps(const std::vector<std::pair<uint64_t, uint64_t>>& ranges, uint64_t begin, uint64_t end)
{
    auto it = std::upper_bound(ranges.begin(), ranges.end(), std::make_pair(begin, UINT64_MAX));
    if (it != ranges.begin() && std::prev(it)->second > begin)
        return true;
    return it != ranges.end() && it->first < end;
}

std::string hex(uint64_t v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
    return buf;
}

} // namespace

bool Simulator::callerSees(int storage) const
{
    if (storage < 0)
        return false;
    if (m_storages[storage].named)
        return true;
    return std::any_of(
        m_holds.begin(), m_holds.end(), [&](const Hold& h) { return m_tensors[h.tensor].storage == storage; });
}

void Simulator::processInput(RtGraph& g, KeyMeta& meta, CallRecord& rec)
{
    const config::Options& o = m_sim.options;
    const GraphAnalysis& a = g.analysis;
    const Graph& graph = *g.graph;
    const bool words = logging(); // detail texts only when someone will read them
    beginEvent(EventKind::InputUpdate, &g, meta.key, {});
    std::vector<InputAction> actions;
    auto userInput = meta.userInputs.begin();
    for (size_t pos = 0; pos < a.placeholders.size(); ++pos) {
        const InputInfo& info = g.inputs[pos];
        if (!info.tensor)
            continue;
        const Node& node = graph.nodes[a.placeholders[pos]];
        InputAction act;
        const uint64_t ptr = dataPtr(int(pos));
        const int s = m_args[pos];
        while (userInput != meta.userInputs.end() && userInput->position < int(pos))
            ++userInput;
        const bool isUserInput = userInput != meta.userInputs.end() && userInput->position == int(pos);
        if (info.parameter) {
            act.action = "parameter";
            const uint64_t was = meta.capturedParameter[int(pos)];
            if (words)
                act.detail = "used in place at " + hex(ptr);
            if (o.frozenParameter && was != ptr) {
                if (words)
                    act.detail += "; captured at " + hex(was) + ": the graph still reads the old address";
                if (m_staleParamReported.insert({ g.record, meta.key, int(pos) }).second) {
                    addHazard(HazardKind::StaleParameter, g.name, meta.key, node.name,
                        "parameter " + node.name + " moved from " + hex(was) + " to " + hex(ptr) + " but "
                            + o.optionName("frozen_parameter") + " is on: the key ignores parameter addresses, so "
                            + g.name + " replays with the old address and reads stale weights.");
                }
            }
        } else if (info.mutated) {
            act.action = "in_place";
            if (words)
                act.detail = "mutated input: used in place at " + hex(ptr) + ", never copied";
        } else if (info.alias) {
            const uint64_t first = g.userinputRefDataPtr[int(pos)];
            if (first != ptr) {
                act.action = "copy_into_alias";
                act.bytes = s >= 0 ? m_storages[s].bytes : 0;
                if (words)
                    act.detail = "aliased by an output; address differs from the first capture's " + hex(first);
            } else {
                act.action = "unchanged";
                if (words)
                    act.detail = "aliased by an output; same address as at the first capture";
            }
        } else if (isUserInput) {
            const KeyMeta::UserInput& ui = *userInput;
            if (o.cloneInput && ui.onDevice && ui.stagingAddress) {
                act.action = "copy_to_staging";
                act.bytes = ui.bytes;
                if (words)
                    act.detail = "copied into the staging buffer at " + hex(ui.stagingAddress);
            } else if (ui.dataPtr != ptr) {
                act.action = "copy_into_first_tensor";
                act.bytes = s >= 0 ? m_storages[s].bytes : 0;
                const RtStorage& first = m_storages[ui.retainedStorage];
                if (words)
                    act.detail = "address " + hex(ptr) + " differs from the captured " + hex(ui.dataPtr)
                        + ": copied into the first call's tensor '" + first.label + "'";
                if (callerSees(ui.retainedStorage) && ui.retainedStorage != s
                    && m_inputOverwriteReported.insert({ g.record, meta.key, int(pos) }).second) {
                    addHazard(HazardKind::UserInputOverwritten, g.name, meta.key, first.label,
                        "with " + o.optionName("clone_input") + " off, call " + std::to_string(m_call)
                            + " copies input " + node.name + " into '" + first.label + "', the tensor captured at call "
                            + std::to_string(meta.captureCall) + ", which the caller still uses: its contents are "
                            + "overwritten (and at every later call whose input moves).");
                }
            } else {
                act.action = "unchanged";
                if (words)
                    act.detail = "same address as captured: no copy";
            }
        } else {
            act.action = "unchanged";
        }
        if (act.bytes) {
            ++rec.inputsCopied;
            rec.bytesCopied += act.bytes;
        }
        if (words) {
            act.input = node.name;
            actions.push_back(std::move(act));
        }
    }
    const double copySeconds = double(rec.bytesCopied) / m_scenario.device.copyBytesPerSecond + 2e-6 * rec.inputsCopied;
    if (rec.inputsCopied && words)
        log(LogLevel::Info, text::processInputsTook(g.name, copySeconds));
    if (words) // debug_time around process_input: its modelled copies are its cost here
        log(LogLevel::Debug, text::overheadPhase("process input", "process_input", copySeconds));
    if (words) {
        Event& e = m_sim.events.back();
        e.summary = "input update: " + std::to_string(rec.inputsCopied) + " copies, " + std::to_string(rec.bytesCopied)
            + " bytes";
        e.inputs = std::move(actions);
    }
    finishEvent();
}

void Simulator::replay(RtGraph& g, KeyMeta& meta)
{
    const config::Options& o = m_sim.options;
    ++m_sim.graphs[g.record].replays;
    beginEvent(EventKind::Replay, &g, meta.key, "replay " + g.name + " graph key {" + meta.key + "}");
    for (const Hold& h : m_holds) {
        const RtTensor& t = m_tensors[h.tensor];
        if (h.returnedAt >= m_call || t.storage < 0)
            continue;
        const RtStorage& st = m_storages[t.storage];
        if (st.bytes == 0 || st.pool.isDefault() || !overlaps(meta.writeSet, st.address, st.address + st.bytes))
            continue;
        if (!m_overwriteReported.insert({ h.tensor, h.returnedAt }).second)
            continue;
        const RtGraph& from = m_graphs[size_t(t.graph) < m_graphs.size() ? t.graph : 0];
        const std::string outName = t.graph >= 0 && size_t(t.output) < from.analysis.outputNames.size()
            ? from.analysis.outputNames[t.output]
            : std::string("?");
        addHazard(HazardKind::OutputOverwritten, g.name, meta.key,
            "output " + std::to_string(t.output) + " (" + outName + ") of call " + std::to_string(h.returnedAt),
            "output " + std::to_string(t.output) + " (" + outName + ") returned by call " + std::to_string(h.returnedAt)
                + " (" + m_sim.graphs[t.graph].name + " key {" + t.key + "}, at " + hex(st.address)
                + ") is still held by the caller and is overwritten by call " + std::to_string(m_call) + "'s replay of "
                + g.name + " key {" + meta.key + "}. Clone it before the next call, or set "
                + o.optionName("clone_output") + "=True.",
            h.returnedAt);
    }
    if (g.analysis.updatedNodeCount > 0 && !m_updateStreamSwapped) {
        m_updateStreamSwapped = true;
        log(LogLevel::Info, text::updateStream(g.stream, m_nextStream++));
    }
    // CapturedGraphUpdateAndReplay.forward: after the replay, debug_time around the updated-params function
    // (gen_updated_input_func's `func`, called also when nothing is updated), then the update itself.
    if (logging())
        log(LogLevel::Debug, text::overheadPhase("get updated params", "func", -1));
    if (g.analysis.updatedNodeCount > 0 && logging())
        log(LogLevel::Info, text::paramsUpdated());
    finishEvent();
}

void Simulator::markStaleRetained(RtGraph& g, const std::vector<int>& tensors)
{
    // set_stale_storages_ptr_exclude_ref_userinputs
    for (size_t k = 0; k < tensors.size(); ++k)
        if (tensors[k] >= 0 && m_storages[m_tensors[tensors[k]].storage].pool == g.pool)
            g.staleStoragesPtr.insert(m_tensors[tensors[k]].storage);
}

std::vector<int> Simulator::reconstructOutputs(RtGraph& g, KeyMeta& meta, CallRecord& rec)
{
    const config::Options& o = m_sim.options;
    beginEvent(EventKind::Outputs, &g, meta.key, {});
    std::vector<int> ret;
    std::string how;
    if (!o.reuseInSameFx || g.metas.size() == 1) {
        if (logging() && !o.reuseInSameFx)
            log(LogLevel::Debug, text::retainedNoReuse(o.backend, g.name, meta.key));
        else if (logging())
            log(LogLevel::Debug, text::retainedOneKey(g.name, meta.key));
        markStaleRetained(g, meta.retainedOutputs);
        ret = meta.retainedOutputs;
        how = "retained outputs returned (the same tensors every call of this key)";
    } else {
        bool allAlive = true;
        for (size_t k = 0; k < meta.outAddress.size(); ++k)
            if (meta.outAddress[k] && !tensorAlive(meta.outputsWeak[k]))
                allAlive = false;
        if (allAlive) {
            if (logging())
                log(LogLevel::Debug, text::outputsAlive(g.name, meta.key));
            ret = meta.outputsWeak;
            how = "outputs still alive: returned as they are";
        } else {
            // set_to_original_state_bofore_reconstruct
            std::vector<int> stale;
            for (const auto& m : g.metas)
                for (size_t k = 0; k < m.outputsWeak.size(); ++k) {
                    const int t = m.outputsWeak[k];
                    if (tensorAlive(t) && m.outAliasInput[k] < 0 && g.staleStoragesPtr.count(m_tensors[t].storage))
                        stale.push_back(m_tensors[t].storage);
                }
            restorePool(g, g.original, stale);
            g.staleStoragesPtr.clear();
            if (logging())
                log(LogLevel::Debug, text::beforeReconstruct(g.name, meta.key, memState()));
            std::map<uint64_t, int> rebuilt;
            for (size_t k = 0; k < meta.outAddress.size(); ++k) {
                int t = -1;
                if (meta.outAliasInput[k] >= 0) {
                    auto it = g.capturedUserinputRef.find(meta.outAliasInput[k]);
                    if (it != g.capturedUserinputRef.end())
                        t = newTensor(it->second, g.record, meta.key, int(k));
                } else if (meta.outAddress[k]) {
                    auto it = rebuilt.find(meta.outAddress[k]);
                    if (it == rebuilt.end()) {
                        RtStorage st;
                        st.address = meta.outAddress[k];
                        st.bytes = meta.outBytes[k];
                        st.device = g.device;
                        st.pool = g.pool;
                        st.label = g.analysis.outputNames[k];
                        st.stale = true; // owns no block until a deleter is attached
                        m_storages.push_back(st);
                        it = rebuilt.emplace(st.address, int(m_storages.size()) - 1).first;
                    }
                    t = newTensor(it->second, g.record, meta.key, int(k));
                    ++rec.outputsRebuilt;
                }
                meta.outputsWeak[k] = t;
                ret.push_back(t);
            }
            if (!o.cloneOutput) {
                // set_reconstructed_outputs_deleter: back to this key's after-capture state; the rebuilt
                // outputs (and, with clone_input, the freshly rebuilt staging inputs) own their blocks.
                auto r = alloc(g.device).restore(meta.memAfterCapture);
                if (!r)
                    throw OutOfMemory("internal: " + r.error().toString());
                const std::set<uint64_t> created(r->created.begin(), r->created.end());
                for (const auto& [address, s] : rebuilt) {
                    if (!created.count(address))
                        continue;
                    RtStorage& st = m_storages[s];
                    st.stale = false;
                    st.owner = owner(OwnerKind::Output, g.name, meta.key, st.label);
                    mustSucceed(alloc(g.device).setOwner(address, st.owner));
                    m_poolStorageAt[address] = s;
                    g.staleStoragesPtr.insert(s);
                }
                for (const auto& ui : meta.userInputs)
                    if (ui.stagingAddress && created.count(ui.stagingAddress) && !rebuilt.count(ui.stagingAddress))
                        freeBlock(ui.stagingAddress); // the rebuilt staging tensor dies at once
                updatePeaks(g.device, g.pool);
                if (logging())
                    log(LogLevel::Debug, text::afterReconstruct(g.name, meta.key, memState()));
                log(LogLevel::Warning, text::outputOverwriteWarning(o.backend), "UserWarning");
            }
            how = "outputs rebuilt at their captured addresses (" + std::to_string(rec.outputsRebuilt) + ")";
        }
    }
    if (o.cloneOutput) {
        int cloned = 0;
        for (size_t k = 0; k < ret.size(); ++k) {
            if (ret[k] < 0 || meta.outAliasInput[k] >= 0)
                continue;
            const RtStorage& src = m_storages[m_tensors[ret[k]].storage];
            const int s = newStorage(g.device, {}, 0, src.bytes, OwnerKind::Output, g.name, meta.key,
                g.analysis.outputNames[k] + " (clone)");
            ret[k] = newTensor(s, g.record, meta.key, int(k));
            ++cloned;
        }
        how += "; " + std::to_string(cloned) + " cloned (" + o.optionName("clone_output") + ")";
    }
    if (logging())
        m_sim.events.back().summary = how;
    finishEvent();
    return ret;
}

void Simulator::returnOutputs(RtGraph& g, const std::vector<int>& tensors)
{
    m_returned[m_call] = tensors;
    const int keep = m_callSpec->keepOutputs;
    for (size_t k = 0; k < tensors.size(); ++k) {
        if (tensors[k] < 0)
            continue;
        int until = keep < 0 ? INT_MAX : m_call + keep;
        auto it = m_lastUse.find({ m_call, int(k) });
        if (it != m_lastUse.end())
            until = std::max(until, it->second);
        holdTensor(tensors[k]);
        m_holds.push_back(Hold { tensors[k], until, m_call });
    }
    (void)g;
}

} // namespace engine::runtime::detail
