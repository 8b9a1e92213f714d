#include "engine/runtime/cgt/cgt_run_impl.h"
#include "engine/runtime/hazard_rules.h"

#include <algorithm>

namespace engine::runtime::cgt::detail {

bool Run::compile(GraphInfo& g, CallRecord& rec)
{
    int& count = m_frameCompiles[g.frame];
    if (!m_frameIndex.count(g.frame))
        m_frameIndex.emplace(g.frame, int(m_frameIndex.size()));
    // Every attempt takes the frame's next compile id, failed ones too (real d_recompile_limit:
    // [0/3] ... [0/8] for six calls over the limit).
    const std::string attempt = std::to_string(m_frameIndex.at(g.frame)) + "/" + std::to_string(count);
    if (g.record < 0) {
        GraphRecord gr;
        gr.name = attempt;
        gr.id = g.graph->id;
        gr.pool = kPool;
        m_sim.graphs.push_back(gr);
        g.record = int(m_sim.graphs.size()) - 1;
        g.compileId = attempt;
    }
    m_graphName = g.compileId;
    ++count;
    ++m_totalCompiles;
    // §8 D1-D3 (convert_frame.py): the (limit + 1)-th entry of a frame hits the limit.
    const bool frameHit = count > m_co.recompileLimit;
    const bool totalHit = m_totalCompiles > m_co.accumulatedRecompileLimit;
    if (!frameHit && !totalHit) {
        g.compiled = true;
        g.compileId = attempt;
        m_sim.graphs[size_t(g.record)].name = attempt;
        m_graphName = attempt;
        beginEvent(EventKind::Compile, attempt, {},
            "Dynamo compiles frame '" + g.frame + "' for graph " + g.graph->id + ": compile id [" + attempt + "]");
        finishEvent();
        if (!g.skip.empty())
            addHazard(HazardKind::CudagraphsSkipped, g.compileId, {}, g.skip,
                "graph " + g.graph->id + " runs without CUDA graphs on every call: skipping cudagraphs due to "
                    + g.skip);
        return true;
    }
    --m_totalCompiles; // the attempt made no entry
    const std::string limitType = frameHit ? "recompile_limit" : "accumulated_recompile_limit";
    const int64_t limit = frameHit ? m_co.recompileLimit : m_co.accumulatedRecompileLimit;
    const bool raises = m_co.failOnRecompileLimitHit || m_co.fullgraph;
    beginEvent(EventKind::Compile, g.compileId, {},
        "Dynamo would compile frame '" + g.frame + "' again for graph " + g.graph->id + " [" + attempt
            + "]: over torch._dynamo.config." + limitType);
    // convert_frame.py: log.warning("torch._dynamo hit config.%s (%s)\n   function: %s\n   last reason:
    // %s\n..."); the file, line and guard are not in a scenario.
    log(LogLevel::Warning,
        "[" + attempt + "] torch._dynamo hit config." + limitType + " (" + std::to_string(limit) + ")\n   function: '"
            + g.frame
            + "' (<file>:<line>: not in the scenario)\n   last reason: <the guard that failed: not in the "
              "scenario>\nTo log all recompilation reasons, use TORCH_LOGS=\"recompiles\".\nTo diagnose "
              "recompilation issues, see "
              "https://docs.pytorch.org/docs/main/user_guide/torch_compiler/compile/"
              "programming_model.recompilation.html");
    finishEvent();
    if (!g.limitReported) {
        g.limitReported = true;
        m_sim.graphs[size_t(g.record)].fallbackToEager = true;
        m_sim.graphs[size_t(g.record)].fallbackCall = m_call;
        addHazard(HazardKind::RecompileLimit, g.compileId, {}, "torch._dynamo.config." + limitType,
            "graph " + g.graph->id + " would be compile " + std::to_string(count) + " of frame '" + g.frame
                + "', over torch._dynamo.config." + limitType + " (" + std::to_string(limit) + ")"
                + (raises ? ": every call that needs it raises FailOnRecompileLimitHit"
                          : ": Dynamo runs every call that needs it eagerly, without CUDA graphs"));
    }
    if (raises) {
        const std::string text = "torch._dynamo.exc.FailOnRecompileLimitHit: "
            + (m_co.failOnRecompileLimitHit
                    ? limitType + " reached, because fail_on_recompile_limit_hit = True this is a HARD failure"
                    : limitType
                        + " reached with fullgraph=True. Excessive recompilations can degrade performance due "
                          "to the compilation overhead of each recompilation. To monitor recompilations, enable "
                          "TORCH_LOGS=recompiles. If recompilations are expected, consider increasing "
                          "torch._dynamo.config.cache_size_limit to an appropriate value.");
        raised(g, text, rec);
    } else {
        beginEvent(EventKind::Eager, g.compileId, {},
            "Dynamo runs the frame eagerly: no compiled graph, no CUDA graphs (§8 D3)");
        std::vector<uint64_t> inputAddress;
        std::vector<TensorArg> args;
        bindInputs(g, inputAddress, args);
        std::vector<uint64_t>& blocks = m_outputBlocks[m_call];
        m_outputs.resize(size_t(m_call) + 1);
        m_outputs[size_t(m_call)]
            = execute(g, memory::PoolId {}, kUserStream, OwnerKind::EagerTensor, inputAddress, blocks);
        finishEvent();
        rec.action = CallAction::Eager;
        ++m_sim.graphs[size_t(g.record)].eagerCalls;
    }
    return false;
}

void Run::raised(GraphInfo& g, const std::string& text, CallRecord& rec)
{
    beginEvent(EventKind::Eager, g.compileId, m_key, "the call raises " + text.substr(0, text.find(':')));
    finishEvent();
    rec.action = CallAction::Raised;
    addHazard(HazardKind::CallRaised, g.compileId, m_key, text.substr(0, text.find(':')),
        "call " + std::to_string(m_call) + " raises " + text
            + " (the program stops here unless it catches it; the simulation goes on as if it did)");
}

void Run::oldCudagraphify(GraphInfo& g, CallRecord& rec)
{
    const Call& t = m_tree->call(size_t(m_call));
    std::vector<uint64_t> inputAddress;
    std::vector<TensorArg> args;
    bindInputs(g, inputAddress, args);
    const std::string fn = g.graph->id + "|" + m_key;
    auto it = m_oldGraphs.find(fn);
    m_outputs.resize(size_t(m_call) + 1);
    CallResult r;
    if (it == m_oldGraphs.end()) {
        OldGraph og;
        og.pool = memory::PoolId { uint64_t(m_oldGraphs.size() + 1), 0 };
        for (const TensorArg& a : args)
            if (a.isStatic)
                og.staticAddresses.push_back(a.address);
        beginEvent(EventKind::Capture, g.compileId, m_key,
            "cudagraphify (trees off): runs once eagerly, then records into pool " + og.pool.str()
                + " in the same call");
        std::vector<uint64_t> scratch;
        execute(g, memory::PoolId {}, kUserStream, OwnerKind::EagerTensor, inputAddress, scratch);
        for (uint64_t b : scratch)
            freeBlock(b);
        ensurePool(g, og.pool);
        std::vector<uint64_t> addresses = inputAddress;
        for (size_t i = 0; i < args.size(); ++i)
            if (!args[i].isStatic)
                addresses[size_t(g.tensorPositions[i])] = allocate(og.pool, kManagerStream, args[i].bytes,
                    owner(OwnerKind::Staging, g.compileId, m_key, args[i].name));
        std::vector<uint64_t> kept;
        og.outputs = execute(g, og.pool, kManagerStream, OwnerKind::Output, addresses, kept);
        finishEvent();
        it = m_oldGraphs.emplace(fn, std::move(og)).first;
        rec.action = CallAction::Capture;
        ++m_sim.graphs[size_t(g.record)].captures;
    } else {
        std::vector<uint64_t> now;
        for (const TensorArg& a : args)
            if (a.isStatic)
                now.push_back(a.address);
        if (now != it->second.staticAddresses) {
            raised(g, "AssertionError: ", rec);
            return;
        }
        uint64_t bytes = 0;
        for (const TensorArg& a : args)
            bytes += a.isStatic ? 0 : a.bytes;
        beginEvent(EventKind::InputUpdate, g.compileId, m_key,
            "copy " + std::to_string(bytes) + " bytes of non-static inputs into the graph's static inputs");
        finishEvent();
        beginEvent(EventKind::Replay, g.compileId, m_key, "replay (trees off): the same static outputs again");
        finishEvent();
        rec.action = CallAction::Replay;
        rec.bytesCopied = bytes;
        ++m_sim.graphs[size_t(g.record)].replays;
    }
    m_outputs[size_t(m_call)] = it->second.outputs;
    it->second.calls.push_back(m_call);
    // Every call of the function returns the same static output tensors.
    for (const std::string& label : t.readsAfter) {
        ReadResult read;
        read.of = label;
        const int from = std::stoi(label.substr(5));
        for (const auto& [key, og] : m_oldGraphs)
            if (std::find(og.calls.begin(), og.calls.end(), from) != og.calls.end() && og.calls.back() != from) {
                read.status = ReadResult::Status::OverwrittenSilently;
                read.overwrittenBy = callName(og.calls.back());
            }
        r.reads.push_back(read);
    }
    reads(g, r.reads);
}

void Run::lookupEvent(GraphInfo& g, const CallResult& r)
{
    const bool newFunction = r.fid >= 0 && g.fidsSeen.insert(r.fid).second;
    std::string summary;
    if (r.fid < 0)
        summary = "no CUDA graph function: " + r.why;
    else if (newFunction)
        summary = "new function id " + std::to_string(r.fid) + " for graph " + g.graph->id
            + (m_key.empty() ? std::string() : " at size " + m_key);
    else
        summary = "function id " + std::to_string(r.fid) + (m_key.empty() ? std::string() : " (size " + m_key + ")");
    if (r.fid >= 0 && g.record >= 0) {
        GraphRecord& gr = m_sim.graphs[size_t(g.record)];
        if (std::find(gr.allKeys.begin(), gr.allKeys.end(), m_key) == gr.allKeys.end())
            gr.allKeys.push_back(m_key); // every int key seen, recorded or not
    }
    beginEvent(EventKind::KeyLookup, g.compileId, m_key, summary);
    if (newFunction)
        log(LogLevel::Info,
            m_key.empty() ? "Recording cudagraph tree for graph without symints"
                          : "Recording cudagraph tree for symint key " + m_key);
    for (const std::string& w : r.warnings)
        if (r.action != Action::Error)
            log(LogLevel::Warning, w);
    for (const std::string& reason : r.rerecordReasons) {
        std::string text = reason;
        while (!text.empty() && text.back() == '\n')
            text.pop_back();
        log(LogLevel::Debug, "[" + g.compileId + "] Re-recording function=" + kFunction + ", reason=" + text);
    }
    finishEvent();
    if (r.action == Action::Eager && !r.warnings.empty() && r.fid >= 0)
        addHazard(HazardKind::CudagraphsSkipped, g.compileId, m_key, r.warnings.front(),
            "graph " + g.graph->id + (m_key.empty() ? std::string() : " at size " + m_key)
                + " runs without CUDA graphs: " + r.warnings.front());
}

void Run::checkpointEvent(const GraphInfo& g)
{
    ++m_checkpoints;
    beginEvent(EventKind::Rollback, g.compileId, m_key,
        "allocator checkpoint: the replayed path's live outputs are kept before the pool is used again");
    log(LogLevel::Debug,
        "Checkpointing cuda caching allocator state. Number of checkpoints " + std::to_string(m_checkpoints));
    finishEvent();
}

std::vector<uint64_t> Run::warmup(GraphInfo& g, const CallResult& r, const std::vector<uint64_t>& inputAddress)
{
    ensurePool(g);
    if (r.checkpoint)
        checkpointEvent(g);
    beginEvent(EventKind::Eager, g.compileId, m_key, "warm-up: " + r.why);
    log(LogLevel::Debug, "[" + g.compileId + "] Running warmup function=" + kFunction);
    std::vector<uint64_t>& blocks = m_outputBlocks[m_call];
    std::vector<uint64_t> outs = execute(g, kPool, kManagerStream, OwnerKind::Output, inputAddress, blocks);
    finishEvent();
    ++m_sim.graphs[size_t(g.record)].eagerCalls;
    m_sim.graphs[size_t(g.record)].counters["warmups"]++;
    return outs;
}

std::string Run::recordingInputs(const GraphInfo& g, const Call& t) const
{
    std::string out;
    const SymbolValues& symbols = m_sc.calls[size_t(m_call)].symbols;
    for (size_t i = 0; i < t.inputs.size(); ++i) {
        const Node& n = g.graph->nodes[size_t(g.analysis.placeholders[size_t(g.tensorPositions[i])])];
        const TensorMeta& meta = n.outputs[0];
        std::string size = "[", stride = "(";
        auto shape = meta.concreteShape(symbols);
        if (shape) {
            int64_t s = 1;
            std::vector<int64_t> strides(shape.value().size());
            for (size_t d = shape.value().size(); d-- > 0;) {
                strides[d] = s;
                s *= std::max<int64_t>(shape.value()[d], 1);
            }
            for (size_t d = 0; d < shape.value().size(); ++d) {
                size += (d ? ", " : "") + std::to_string(shape.value()[d]);
                stride += (d ? ", " : "") + std::to_string(strides[d]);
            }
            if (shape.value().size() == 1)
                stride += ",";
        }
        out += (out.empty() ? "" : ", ") + std::string("[") + std::to_string(i) + "]: Tensor(size=" + size
            + "], stride=" + stride + "), dtype=" + torchDTypeName(meta.dtype)
            + ", data_ptr=" + hex(t.inputs[i].address) + ")";
    }
    return out;
}

std::vector<uint64_t> Run::record(
    GraphInfo& g, const CallResult& r, const Call& t, const std::vector<uint64_t>& inputAddress, CallRecord& rec)
{
    ensurePool(g);
    if (r.checkpoint)
        checkpointEvent(g);
    const bool rerecord = g.fidsRecorded.count(r.fid) > 0;
    rec.action = rerecord ? CallAction::Recapture : CallAction::Capture;
    rec.recaptureCause = rerecord ? (r.rerecordReasons.empty() ? "expected_dead" : "input_moved") : "";
    beginEvent(EventKind::Capture, g.compileId, m_key,
        std::string(rerecord ? "re-record" : "record") + " cuda_graph_id=" + std::to_string(r.node) + ": " + r.why);
    log(LogLevel::Debug,
        "[" + g.compileId + "] Recording function=" + kFunction + ", cuda_graph_id=" + std::to_string(r.node)
            + ", inputs: " + recordingInputs(g, t));
    // §4 I3: the recording's own buffers for every non-static, non-managed tensor input, in the pool,
    // with the call's values copied in (_allocate_and_copy_recording_inputs). The compiled code
    // clears its inputs, so the capture frees each at its last use (CUDAGraphNode._record: "running
    // model should reclaim memory"; the real 2.11 snapshots show them freed during _record); the
    // recording keeps their addresses for its replays.
    std::vector<uint64_t> addresses = inputAddress;
    std::set<int> owned;
    for (size_t i = 0; i < t.inputs.size(); ++i) {
        const TensorArg& in = t.inputs[i];
        if (in.isStatic || !in.outputOf.empty() || in.bytes == 0) // static, a pool output (§4 I2), or on the CPU
            continue;
        const uint64_t buffer
            = allocate(kPool, kManagerStream, in.bytes, owner(OwnerKind::Staging, g.compileId, m_key, in.name));
        addresses[size_t(g.tensorPositions[i])] = buffer;
        owned.insert(g.tensorPositions[i]);
        ++rec.inputsCopied;
        rec.bytesCopied += in.bytes;
    }
    std::vector<uint64_t>& blocks = m_outputBlocks[m_call];
    std::vector<uint64_t> outs = execute(g, kPool, kManagerStream, OwnerKind::Output, addresses, blocks, owned);
    m_recordings[r.node].outputs = outs;
    finishEvent();
    GraphRecord& gr = m_sim.graphs[size_t(g.record)];
    ++gr.captures;
    if (rerecord) {
        ++gr.recapturesMutatedInput;
        ++g.rerecords;
        gr.counters["rerecords"]++;
    }
    gr.counters["recordings"]++;
    if (std::find(gr.keys.begin(), gr.keys.end(), m_key) == gr.keys.end())
        gr.keys.push_back(m_key);
    g.fidsRecorded.insert(r.fid);
    if (rerecord && !r.rerecordReasons.empty()) {
        const std::string moved = firstMovedName(r.rerecordReasons.front());
        if (m_movedReported.insert({ g.graph->id, moved }).second)
            addHazard(HazardKind::StaticInputMoved, g.compileId, m_key, moved,
                "static input " + moved + " of graph " + g.graph->id
                    + " moved since its recording: PyTorch records the function again (cuda_graph_id="
                    + std::to_string(r.node)
                    + ") and keeps the old recording and its memory; an old address coming back replays the old "
                      "one (docs/cuda-graph-trees.md §5 R1, R3)");
    }
    if (g.rerecords >= rules::kStormAt && !g.stormReported) {
        g.stormReported = true;
        addHazard(HazardKind::RecaptureStorm, g.compileId, m_key, "re-records",
            "graph " + g.graph->id + " has been recorded again " + std::to_string(g.rerecords) + " times by call "
                + std::to_string(m_call)
                + ": every recording stays in the pool; keep static inputs (weights, KV caches) at fixed "
                  "addresses");
    }
    return outs;
}

std::string Run::firstMovedName(const std::string& reason)
{
    const std::string tag = "input name: ";
    const auto at = reason.find(tag);
    if (at == std::string::npos)
        return "an input";
    const auto end = reason.find('.', at + tag.size());
    return reason.substr(at + tag.size(), end == std::string::npos ? std::string::npos : end - at - tag.size());
}

std::vector<uint64_t> Run::replay(GraphInfo& g, const CallResult& r, const Call& t, CallRecord& rec)
{
    // §4 I4: one _foreach_copy_ of every non-static, non-managed input into the recording's buffers.
    beginEvent(EventKind::InputUpdate, g.compileId, m_key,
        "copy " + std::to_string(r.bytesCopied) + " bytes of non-static inputs into the recording's buffers");
    // Static inputs (weights, marked caches) are read where they are: only the others are listed.
    for (const TensorArg& in : t.inputs) {
        if (in.isStatic)
            continue;
        InputAction a;
        a.input = in.name;
        if (!in.outputOf.empty()) {
            a.action = "unchanged";
            a.detail = "output of " + in.outputOf + " in the pool: not copied";
        } else {
            a.action = "copy_to_staging";
            a.bytes = in.bytes;
            a.detail = "copied into the recording's input buffer";
            ++rec.inputsCopied;
        }
        if (m_options.recordEvents)
            m_sim.events.back().inputs.push_back(std::move(a));
    }
    rec.bytesCopied = r.bytesCopied;
    finishEvent();
    beginEvent(EventKind::Replay, g.compileId, m_key,
        "replay cuda_graph_id=" + std::to_string(r.node) + " (recorded by " + r.replays + "): " + r.why);
    finishEvent();
    ++m_sim.graphs[size_t(g.record)].replays;
    // §6 L1: the replay's outputs are the recording's tensors, at its addresses.
    auto it = m_recordings.find(r.node);
    std::vector<uint64_t> outs = it == m_recordings.end() ? std::vector<uint64_t> {} : it->second.outputs;
    // A held output of an earlier replay of the same recording now holds this call's values.
    std::vector<int>& held = m_heldReplays[r.node];
    held.erase(std::remove_if(held.begin(), held.end(), [this](int i) { return m_heldThrough[size_t(i)] < m_call; }),
        held.end());
    for (int i : held)
        if (!readsLater(i, m_call) && m_overwriteReported.insert(i).second)
            addHazard(HazardKind::OutputOverwritten, g.compileId, m_key, callName(i),
                callName(i) + "'s output is still held, and this replay of the same recording (cuda_graph_id="
                    + std::to_string(r.node) + ") writes its values over it silently",
                i);
    m_heldReplays[r.node].push_back(m_call);
    return outs;
}

std::vector<uint64_t> Run::eager(GraphInfo& g, const CallResult& r, const std::vector<uint64_t>& inputAddress)
{
    beginEvent(EventKind::Eager, g.compileId, m_key, "runs without CUDA graphs: " + r.why);
    std::vector<uint64_t>& blocks = m_outputBlocks[m_call];
    std::vector<uint64_t> outs
        = execute(g, memory::PoolId {}, kUserStream, OwnerKind::EagerTensor, inputAddress, blocks);
    finishEvent();
    ++m_sim.graphs[size_t(g.record)].eagerCalls;
    return outs;
}

void Run::reads(const GraphInfo& g, const std::vector<ReadResult>& results)
{
    for (const ReadResult& read : results) {
        const int from = std::stoi(read.of.substr(5));
        std::string summary = "the program reads " + read.of + "'s output: ";
        if (read.status == ReadResult::Status::Ok)
            summary += "its own values";
        else if (read.status == ReadResult::Status::OverwrittenSilently)
            summary += "silently the values of " + read.overwrittenBy + "'s replay";
        else
            summary += "RuntimeError";
        // The RuntimeError goes to the program, not to a logger: it is in the event and the hazard.
        beginEvent(EventKind::Outputs, g.compileId, m_key,
            read.status == ReadResult::Status::Error ? summary + ": " + read.text : summary);
        finishEvent();
        if (read.status == ReadResult::Status::OverwrittenSilently)
            addHazard(HazardKind::OutputOverwritten, g.compileId, m_key, read.of,
                read.of + "'s output, read after " + callName(m_call) + ", holds the values of " + read.overwrittenBy
                    + "'s replay of the same recording: replays return the same tensor and overwrite it "
                      "silently (docs/cuda-graph-trees.md §6 L1)",
                from);
        else if (read.status == ReadResult::Status::Error)
            addHazard(HazardKind::OverwrittenError, g.compileId, m_key, read.of,
                "reading " + read.of + "'s output after " + callName(m_call) + " raises RuntimeError: " + read.text,
                from);
    }
}

} // namespace engine::runtime::cgt::detail
