#include "engine/runtime/cgt/cuda_graph_trees.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <utility>

namespace engine::runtime::cgt {

const char* actionName(Action action)
{
    switch (action) {
    case Action::Warmup:
        return "warmup";
    case Action::Record:
        return "record";
    case Action::Replay:
        return "replay";
    case Action::Eager:
        return "eager";
    case Action::Error:
        return "error";
    }
    return "error";
}

// §6 L4 (cudagraph_trees.py format_dealloc_msg 2588-2598): the message of the RuntimeError raised
// by the storage check when a freed output of a warm-up or recording is read.
std::string overwrittenErrorText(const std::string& stackTrace)
{
    std::string trace = stackTrace;
    const auto notSpace = [](unsigned char ch) { return ch != ' ' && ch != '\n' && ch != '\t'; };
    trace.erase(trace.begin(), std::find_if(trace.begin(), trace.end(), notSpace));
    trace.erase(std::find_if(trace.rbegin(), trace.rend(), notSpace).base(), trace.end());
    if (trace.empty())
        trace = "[Could not find stack trace]";
    return "Error: accessing tensor output of CUDAGraphs that has been overwritten by a subsequent "
           "run. Stack trace: "
        + trace
        + ". To prevent overwriting, clone the tensor outside of torch.compile() or call "
          "torch.compiler.cudagraph_mark_step_begin() before each model invocation.";
}

namespace {

// §2 F4 (cudagraph_utils.py:320-346, warning at :343).
std::string dynamicShapeWarning(size_t distinctSizes)
{
    return "CUDAGraph supports dynamic shapes by recording a new graph for each distinct input "
           "size. Recording too many CUDAGraphs may lead to extra overhead. We have observed "
        + std::to_string(distinctSizes)
        + " distinct sizes. Please consider the following options for better performance: a) "
          "padding inputs to a few fixed number of shapes; or b) set "
          "torch._inductor.config.triton.cudagraph_skip_dynamic_graphs=True. Set "
          "torch._inductor.config.triton.cudagraph_dynamic_shape_warn_limit=None to silence this "
          "warning.";
}

// §1 S3: ExecutionState of the manager's path.
enum class PathState { None, Warmup, Recording, Execution };

// §1 S4: a CUDAGraphNode (one capture) or a CUDAWarmupNode (one eager run in the pool).
struct Node {
    int64_t graphId = 0; ///< recordings 0, 1, 2, ...; warm-up nodes -1, -2, ...
    bool warmup = false;
    int fid = 0;
    int parent = -1;
    std::map<int, std::vector<int>> children; ///< FunctionID -> nodes, insertion order
    std::vector<TensorArg> staticInputs; ///< §4 I2 static_input_data_ptrs at record time
    std::map<size_t, uint64_t> managedInputs; ///< §4 I2 cudagraph_managed_idxs -> recorded address
    std::vector<int> expectedDeadBefore; ///< §5 R1 (2): path nodes dead at record time
    std::string recordedBy; ///< label of the call that made the node
};

// The output a call returned (one tensor per call in this model).
struct Output {
    int node = -1; ///< node whose memory it lives in (-1: a normal tensor, or no output)
    Action action = Action::Eager;
    bool poisoned = false; ///< §6 L3: freed by dealloc_current_path_weakrefs
    bool exists = false;
};

// Per compiled graph: cudagraphify_impl's fn_cache and has_warn (§2 F2, F4), and the compile-time
// skip message state (§7).
struct GraphState {
    std::map<std::vector<int64_t>, int> fnCache;
    bool hasWarn = false;
    bool skipLogged = false;
};

// "skipping cudagraphs due to <reason>" (cudagraph_utils.py:206-215 log_cudagraph_skip_and_bump_counter).
std::string skipText(const std::string& reason)
{
    return "skipping cudagraphs due to " + reason;
}

enum class Check { Success, ManagedIdxMismatch, ExpectedDeadMismatch, StaticIdxMismatch };

std::string joinLabels(const std::vector<std::string>& labels)
{
    std::string out;
    for (const std::string& label : labels)
        out += (out.empty() ? "" : ", ") + label;
    return out;
}

class Manager {
public:
    Manager(const std::vector<Call>& calls, const Options& options)
        : calls_(calls)
        , options_(options)
        , outputs_(calls.size())
        , lastRead_(calls.size(), -1)
    {
        // §6 L6 liveness: an output is held until its last read (or to the end if holdsOutput).
        for (size_t k = 0; k < calls.size(); ++k)
            lastRead_[k] = std::max(lastRead_[k], calls[k].heldThrough);
        for (size_t k = 0; k < calls.size(); ++k)
            for (const std::string& of : calls[k].readsAfter) {
                const int i = resolve(of, k);
                if (i >= 0)
                    lastRead_[static_cast<size_t>(i)]
                        = std::max(lastRead_[static_cast<size_t>(i)], static_cast<int>(k));
            }
    }

    CallResult call(size_t k)
    {
        k_ = k;
        const Call& c = calls_[k];
        CallResult r;
        // §1 S6: mark_step_begin decrements mark_step_counter; entering a torch.compile wrapper
        // increments GenerationTracker.generation (install_generation_tagging_init).
        if (c.markStepBegin)
            --markStepCounter_;
        ++dynamoGeneration_;
        r.newGeneration = currentGen_ != currGeneration();

        GraphState& gs = graphs_[c.graph];
        if (!c.dynamoEager.empty()) {
            // §8 D3: Dynamo skips the frame; the wrapper was entered, so the generation advanced.
            r.action = Action::Eager;
            r.why = c.dynamoEager;
            setOutput(k, Output { -1, Action::Eager, false, true });
            finishReads(r);
            return r;
        }
        if (!c.skipCudagraphs.empty()) {
            // §7 K2-K6: decided at compile time, logged once for the graph (cudagraph_post_compile).
            if (!gs.skipLogged) {
                gs.skipLogged = true;
                r.warnings.push_back(skipText(c.skipCudagraphs));
            }
            r.action = Action::Eager;
            r.why = "graph " + c.graph + " skips cudagraphs (" + c.skipCudagraphs
                + "): the compiled code runs directly, outside the pool (§7)";
            setOutput(k, Output { -1, Action::Eager, false, true });
            finishReads(r);
            return r;
        }
        if (c.dynamicGraph && options_.skip_dynamic_graphs) {
            // §7 K5 (compile_fx.py): decided at compile time, logged once for the graph; the
            // compiled code then runs directly on every call.
            if (!gs.skipLogged && !options_.graph_partition) {
                gs.skipLogged = true;
                r.warnings.push_back(skipText("graph with symbolic shapes inputs "
                                              "and config.triton.cudagraph_skip_dynamic_graphs=True."));
            }
            r.action = Action::Eager;
            r.why = "graph " + c.graph
                + " has symbolic-shape inputs and cudagraph_skip_dynamic_graphs=True: cudagraphs "
                  "skipped, the compiled code runs directly (§7 K5)";
            setOutput(k, Output { -1, Action::Eager, false, true });
            finishReads(r);
            return r;
        }
        if (options_.capture_sizes
            && std::find(options_.capture_sizes->begin(), options_.capture_sizes->end(), c.sizes)
                == options_.capture_sizes->end()) {
            // §2 F6 (is_cudagraph_capture_sizes ≈386-394, use ≈414-415): silent, no function id.
            r.action = Action::Eager;
            r.why = "int key of graph " + c.graph + " not in cudagraph_capture_sizes: runs without cudagraphs (§2 F6)";
            setOutput(k, Output { -1, Action::Eager, false, true });
            finishReads(r);
            return r;
        }
        // §2 F2/F3: (graph, int key) -> FunctionID; a cache miss may warn (F4) and allocates a new
        // function id that add_function runs at once (cudagraph_trees.py:2448).
        int fid = 0;
        auto hit = gs.fnCache.find(c.sizes);
        if (hit != gs.fnCache.end()) {
            fid = hit->second; // cudagraph_trees.py:420
        } else {
            if (!gs.hasWarn) {
                // cudagraph_utils.py:320-346: n = len(fn_cache) + 1; warn if limit truthy and n > it.
                const size_t n = gs.fnCache.size() + 1;
                const std::optional<int64_t>& limit = options_.dynamic_shape_warn_limit;
                if (limit && *limit != 0 && static_cast<int64_t>(n) > *limit) {
                    r.warnings.push_back(dynamicShapeWarning(n));
                    gs.hasWarn = true;
                }
            }
            fid = nextFid_++;
            gs.fnCache[c.sizes] = fid;
            fidGraph_[fid] = c.graph;
        }
        r.fid = fid;
        run(fid, r);
        finishReads(r);
        return r;
    }

private:
    // The latest call at or before `k` with this label (labels may repeat).
    int resolve(const std::string& label, size_t k) const
    {
        for (size_t i = k + 1; i-- > 0;)
            if (calls_[i].label == label)
                return static_cast<int>(i);
        return -1;
    }

    // §1 S6 get_curr_generation (2477-2482).
    int64_t currGeneration() const { return markStepCounter_ != 0 ? markStepCounter_ : dynamoGeneration_; }
    // §1 S7 update_generation (2474-2475).
    void updateGeneration() { currentGen_ = currGeneration(); }
    // §1 S8 can_start_new_generation (2488-2495). Inference only: no pending backwards (S9).
    bool canStartNewGeneration() const
    {
        if (currentGen_ == currGeneration())
            return false;
        if (markStepCounter_ != 0)
            return true;
        return true; // (c) unless running_forwards_with_pending_backwards: never in inference
    }

    // §6 L6: an output is alive while the program still holds it at the start of call k_.
    bool held(size_t i) const
    {
        return i < k_ && outputs_[i].exists && !outputs_[i].poisoned
            && (calls_[i].holdsOutput || lastRead_[i] >= static_cast<int>(k_));
    }
    // Every call's output lives in one node; per node the calls whose outputs may still be held (an
    // output no longer held never is again: lastRead_ and holdsOutput are fixed), pruned as it goes,
    // and those not yet freed, so that a long run of replays costs no scan of every earlier call.
    bool nodeOutputsLive(int node) const
    {
        std::vector<size_t>& calls = heldOf_[node];
        calls.erase(
            std::remove_if(calls.begin(), calls.end(), [this](size_t i) { return i < k_ && !held(i); }), calls.end());
        for (size_t i : calls)
            if (held(i))
                return true;
        return false;
    }
    void setOutput(size_t k, Output out)
    {
        outputs_[k] = out;
        if (out.node >= 0) {
            heldOf_[out.node].push_back(k);
            unfreedOf_[out.node].push_back(k);
        }
    }
    std::vector<int> path() const
    {
        std::vector<int> nodes;
        for (int n = current_; n >= 0; n = nodes_[static_cast<size_t>(n)].parent)
            nodes.push_back(n);
        return nodes;
    }
    void setCurrentNone()
    {
        current_ = -1; // §1 S3: the current_node setter also sets path_state NONE
        state_ = PathState::None;
    }

    // §6 L3 dealloc_current_path_weakrefs (2600-2647): frees and poisons the live outputs of every
    // node on the path, replayed nodes a warm-up or recording hangs under included.
    std::vector<std::string> deallocCurrentPath(CallResult& r)
    {
        std::vector<std::string> freed;
        for (int n : path()) {
            for (size_t i : unfreedOf_[n])
                if (i < k_ && !outputs_[i].poisoned) {
                    if (held(i))
                        freed.push_back(calls_[i].label);
                    outputs_[i].poisoned = true;
                }
            unfreedOf_[n].clear();
        }
        // Outputs no longer held were freed by their own deleters when the program dropped them.
        r.freedOutputsOf = freed;
        return freed;
    }

    // §3 step 1: try_end_curr_recording (:2180, 2509-2513) / try_end_curr_warmup (:2183, :2541).
    void endPendingWarmupOrRecording(CallResult& r)
    {
        std::string& why = r.why;
        if (state_ != PathState::Recording && state_ != PathState::Warmup)
            return;
        const char* what = state_ == PathState::Recording ? "recording" : "warm-up";
        if (canStartNewGeneration()) {
            const std::vector<std::string> freed = deallocCurrentPath(r);
            why += std::string("new generation ended the ") + what + " path";
            why += freed.empty()
                ? " (§3 step 1); "
                : ", freed and poisoned the held outputs of " + joinLabels(freed) + " (§3 step 1, §6 L3); ";
            setCurrentNone();
        } else if (!nodeOutputsLive(current_)) {
            why += std::string("same generation, outputs of the ") + what
                + " dead: path ended without poisoning (§3 step 1, §6 L6); ";
            setCurrentNone();
        } else {
            // R9 (check_warn_on_unable_to_start_executing) is training-only; the path continues.
            why += std::string("same generation with live outputs: stays on the ") + what + " path (§3 step 1); ";
        }
    }

    // §3 step 5 / step 8 try_end_curr_execution (≈2521-2537): never poisons (§6 L2).
    void tryEndCurrExecution()
    {
        if (current_ < 0 || state_ == PathState::Recording)
            return;
        if (canStartNewGeneration() || !nodeOutputsLive(current_))
            setCurrentNone();
    }

    // §5 R7 exceed_rerecord_limit (≈2150-2159): always false with inline_inbuilt_nn_modules.
    bool exceedRerecordLimit(int64_t nodeKey, int fid) const
    {
        if (options_.inline_inbuilt_nn_modules)
            return false;
        auto it = numRerecord_.find({ nodeKey, fid });
        const int64_t n = it == numRerecord_.end() ? 0 : it->second;
        return n > options_.unexpected_rerecord_limit;
    }
    // The key of num_rerecord: the current node's id, None (here INT64_MIN) at the root level.
    int64_t nodeKey() const { return current_ < 0 ? INT64_MIN : nodes_[static_cast<size_t>(current_)].graphId; }
    static std::string nodeKeyText(int64_t key)
    {
        return key == INT64_MIN ? "None" : "GraphID(id=" + std::to_string(key) + ")";
    }

    // §4 I4 rerecord_if_static_inputs_change.
    bool rerecordIfStaticInputsChange() const
    {
        return options_.inline_inbuilt_nn_modules || options_.support_input_mutation;
    }

    static std::vector<TensorArg> staticInputs(const Call& c)
    {
        std::vector<TensorArg> out;
        for (const TensorArg& t : c.inputs)
            if (t.isStatic)
                out.push_back(t);
        return out;
    }

    // §5 R6 log_data_ptr_mismatch (cudagraph_utils.py:289-317).
    static std::string managedMismatchReason(const Node& node, const Call& c)
    {
        std::string text = "cudagraph managed tensor data pointer changed.\n";
        for (const auto& [index, address] : node.managedInputs)
            if (index < c.inputs.size() && c.inputs[index].address != address)
                text += "input name: " + c.inputs[index].name + ". data pointer changed from " + std::to_string(address)
                    + " to " + std::to_string(c.inputs[index].address) + ". input stack trace: None\n";
        return text;
    }
    static std::string staticMismatchReason(const Node& node, const Call& c)
    {
        std::string text = "static input data pointer changed.\n";
        const std::vector<TensorArg> now = staticInputs(c);
        for (size_t i = 0; i < node.staticInputs.size() && i < now.size(); ++i)
            if (node.staticInputs[i].address != now[i].address)
                text += "input name: " + node.staticInputs[i].name + ". data pointer changed from "
                    + std::to_string(node.staticInputs[i].address) + " to " + std::to_string(now[i].address)
                    + ". input stack trace: None\n";
        return text;
    }
    static std::string firstMovedInput(const Node& node, const Call& c)
    {
        const std::vector<TensorArg> now = staticInputs(c);
        for (size_t i = 0; i < node.staticInputs.size() && i < now.size(); ++i)
            if (node.staticInputs[i].address != now[i].address)
                return node.staticInputs[i].name;
        return node.staticInputs.size() != now.size() ? "(count)" : "";
    }

    // §5 R1 check_invariants (≈1742-1811): the first failing check wins, in PyTorch's order.
    Check checkInvariants(const Node& node, const Call& c) const
    {
        // (1) cudagraph_managed_idxs: pool outputs fed back as inputs keep their recorded address.
        for (const auto& [index, address] : node.managedInputs)
            if (index >= c.inputs.size() || c.inputs[index].address != address)
                return Check::ManagedIdxMismatch;
        // (2) expected_dead_indices_before_graph must still be dead.
        for (int dead : node.expectedDeadBefore)
            if (nodeOutputsLive(dead))
                return Check::ExpectedDeadMismatch;
        // (3) static input data pointers, only if rerecord_if_static_inputs_change (I5).
        if (rerecordIfStaticInputsChange() && !firstMovedInput(node, c).empty())
            return Check::StaticIdxMismatch;
        return Check::Success;
    }

    // §4 I4: every non-static input that is not cudagraph-managed is copied before a replay.
    static uint64_t nonStaticBytes(const Node& node, const Call& c)
    {
        uint64_t bytes = 0;
        for (size_t i = 0; i < c.inputs.size(); ++i)
            if (!c.inputs[i].isStatic && node.managedInputs.count(i) == 0)
                bytes += c.inputs[i].bytes;
        return bytes;
    }

    // §4 I2: inputs whose storage is a live output of a node on the current path.
    std::map<size_t, uint64_t> managedInputs(const Call& c) const
    {
        std::map<size_t, uint64_t> managed;
        const std::vector<int> nodes = path();
        for (size_t i = 0; i < c.inputs.size(); ++i) {
            if (c.inputs[i].outputOf.empty())
                continue;
            const int from = resolve(c.inputs[i].outputOf, k_);
            if (from < 0 || static_cast<size_t>(from) >= k_)
                continue;
            const Output& out = outputs_[static_cast<size_t>(from)];
            if (!out.poisoned && std::find(nodes.begin(), nodes.end(), out.node) != nodes.end())
                managed[i] = c.inputs[i].address;
        }
        return managed;
    }

    std::string fnText(int fid) const
    {
        const Call& c = calls_[k_];
        std::string text = "graph " + fidGraph_.at(fid);
        if (!c.sizes.empty()) {
            text += " at size (";
            for (size_t i = 0; i < c.sizes.size(); ++i)
                text += (i ? ", " : "") + std::to_string(c.sizes[i]);
            text += ")";
        }
        return text;
    }

    // §7 K1: mutated inputs that are neither static nor pool-managed (cudagraph-managed outputs of
    // the current path may be mutated, cudagraph_support_input_mutation).
    size_t unmanagedMutations(const Call& c) const
    {
        if (c.mutatedInputs.empty())
            return 0;
        const std::map<size_t, uint64_t> managed = managedInputs(c);
        size_t n = 0;
        for (size_t i : c.mutatedInputs)
            if (i < c.inputs.size() && !c.inputs[i].isStatic
                && !(options_.support_input_mutation && managed.count(i) > 0))
                ++n;
        return n;
    }

    void runEagerOutsidePool(CallResult& r)
    {
        r.action = Action::Eager;
        setOutput(k_, Output { -1, Action::Eager, false, true });
    }

    // CUDAGraphTreeManager._run (§3, cudagraph_trees.py ≈2166-2303), steps in PyTorch's order.
    void run(int fid, CallResult& r)
    {
        const Call& c = calls_[k_];
        // Step 1 (:2180 / :2183).
        endPendingWarmupOrRecording(r);
        // §6 L4: an input that is an output freed by this call's step 1 (or earlier) is read at once:
        // record_function's debug line formats its inputs unconditionally (format_inputs_log, before
        // the logger's level is looked at), a warm-up runs on it, a replay copies it. Reading it raises
        // PyTorch's overwritten error (real cudagraph_cases_g/g_feedback: a warm-up's output fed back).
        for (const TensorArg& in : c.inputs) {
            const int i = in.outputOf.empty() || k_ == 0 ? -1 : resolve(in.outputOf, k_ - 1);
            if (i < 0 || !outputs_[static_cast<size_t>(i)].poisoned)
                continue;
            r.action = Action::Error;
            r.warnings.push_back(
                "RuntimeError: " + overwrittenErrorText(calls_[static_cast<size_t>(i)].outputStackTrace));
            r.why += "input " + in.name + " is the output of " + in.outputOf
                + ", freed when this call began a new generation (§6 L3): reading it raises (§6 L4)";
            setOutput(k_, Output {});
            return;
        }
        // Step 2 (:2185-2195): mutation hint (§7 K1, check_for_mutation, cudagraph_utils.py ≈130-162)
        // and the re-record limit early exit.
        if (const size_t mutated = unmanagedMutations(c); mutated > 0) {
            runEagerOutsidePool(r);
            if (warnedMutation_.insert(fid).second)
                r.warnings.push_back(skipText("mutated inputs (" + std::to_string(mutated) + " instances)"));
            r.why += "the graph mutates " + std::to_string(mutated)
                + " input(s) that are neither static nor outputs of the pool: runs eagerly outside the "
                  "pool (§3 step 2, §7 K1)";
            return;
        }
        if (exceedRerecordLimit(nodeKey(), fid)) {
            runEagerOutsidePool(r);
            r.why += "function " + std::to_string(fid) + " exceeded the re-record limit on node "
                + nodeKeyText(nodeKey()) + ": runs eagerly outside the pool (§3 step 2, §5 R7)";
            return;
        }
        // Step 3 (:2197-2217): warm-up.
        const bool warm = warmedUp_.count(fid) > 0;
        if (!(warm || options_.skip_cudagraph_warmup) || state_ == PathState::Warmup
            || options_.force_cudagraphs_warmup) {
            const bool checkpoint = state_ == PathState::Execution; // W6, :2215
            warmedUp_.insert(fid);
            Node node;
            node.graphId = nextWarmupId_--;
            node.warmup = true;
            node.fid = fid;
            node.parent = current_;
            node.recordedBy = c.label;
            nodes_.push_back(node);
            current_ = static_cast<int>(nodes_.size()) - 1;
            state_ = PathState::Warmup;
            updateGeneration();
            r.action = Action::Warmup;
            r.node = node.graphId;
            r.checkpoint = checkpoint;
            setOutput(k_, Output { current_, Action::Warmup, false, true });
            if (!warm)
                r.why += "first call of " + fnText(fid) + ": warm-up (§3 step 3, W1)";
            else if (options_.force_cudagraphs_warmup)
                r.why += "force_cudagraphs_warmup: warm-up (§3 step 3)";
            else
                r.why += "inside a warm-up path of this generation: runs eagerly in the pool "
                         "(§3 step 3)";
            if (checkpoint)
                r.why += "; after a replay: allocator checkpoint first, hung under the replayed "
                         "node (W6, :2215)";
            return;
        }
        // Step 4 (≈2220-2250): try the existing nodes of this function, in insertion order.
        bool unexpected = false;
        std::string reason;
        if (state_ != PathState::Recording) {
            std::vector<int>& candidates
                = current_ < 0 ? roots_[fid] : nodes_[static_cast<size_t>(current_)].children[fid];
            const std::vector<int> list = candidates; // copy: execution never appends
            for (int n : list) {
                const Node& node = nodes_[static_cast<size_t>(n)];
                const Check status = checkInvariants(node, c);
                if (status == Check::Success) {
                    executeNode(n, r);
                    return;
                }
                if (status == Check::StaticIdxMismatch || status == Check::ManagedIdxMismatch) {
                    unexpected = true; // R5: only these two count
                    if (status == Check::ManagedIdxMismatch) {
                        reason = managedMismatchReason(node, c);
                        r.rerecordReasons.push_back(reason);
                        r.why += "a pool-managed input moved since " + node.recordedBy + "'s recording (§5 R1 (1)); ";
                    } else {
                        reason = staticMismatchReason(node, c);
                        r.rerecordReasons.push_back(reason);
                        r.why += "static input " + firstMovedInput(node, c) + " moved since " + node.recordedBy
                            + "'s recording (§5 R1 (3)); ";
                    }
                    if (options_.debug_cudagraphs_logging && !c.sizes.empty()) {
                        // R6: with DEBUG logging the reason is built at once and its length
                        // assertion fails for a graph with int inputs (d_dynamic_warn, logs run).
                        r.action = Action::Error;
                        r.why += "re-record reason evaluated under DEBUG logging fails for a graph "
                                 "with int inputs (§5 R6)";
                        r.warnings.push_back("AssertionError: length mismatch between inputs, "
                                             "recorded_data_ptr, and placeholders");
                        setOutput(k_, Output {});
                        return;
                    }
                } else {
                    r.why += "outputs dead at " + node.recordedBy + "'s recording are live now (§5 R1 (2), R5); ";
                }
            }
            // Step 5 (:2257-2262): leave the replay path and retry from the roots.
            if (current_ >= 0 && roots_.count(fid) > 0) {
                tryEndCurrExecution();
                if (current_ < 0) {
                    r.why += "left the replay path (new generation or dead outputs, no poisoning, "
                             "§3 step 5, §6 L2), retry from the roots; ";
                    run(fid, r);
                    return;
                }
            }
            // Step 7 (≈2270-2287): count the unexpected re-record.
            if (unexpected) {
                const int64_t key = nodeKey();
                ++numRerecord_[{ key, fid }];
                if (exceedRerecordLimit(key, fid)) {
                    runEagerOutsidePool(r);
                    // R7 text (cudagraph_trees.py ≈2270-2287; "cudagraph", singular).
                    r.warnings.push_back("skipping cudagraph due to function " + std::to_string(fid)
                        + " exceeding max re-recording limit (=" + std::to_string(options_.unexpected_rerecord_limit)
                        + ") on cudagraph node " + nodeKeyText(key) + " due to " + reason + ".");
                    r.why += "re-record limit exceeded: runs eagerly (§3 step 7, §5 R7)";
                    return;
                }
            }
        }
        // Step 8 (:2280-2303): record.
        tryEndCurrExecution();
        const bool child = current_ >= 0;
        Node node;
        node.graphId = nextGraphId_++;
        node.fid = fid;
        node.parent = current_;
        node.staticInputs = staticInputs(c);
        node.managedInputs = managedInputs(c);
        node.recordedBy = c.label;
        for (int n : path())
            if (!nodeOutputsLive(n))
                node.expectedDeadBefore.push_back(n);
        nodes_.push_back(node);
        const int id = static_cast<int>(nodes_.size()) - 1;
        if (child)
            nodes_[static_cast<size_t>(current_)].children[fid].push_back(id);
        else
            roots_[fid].push_back(id);
        current_ = id;
        state_ = PathState::Recording;
        updateGeneration();
        r.action = Action::Record;
        r.node = node.graphId;
        r.checkpoint = child; // W7: apply_checkpoint_execution_state_in_allocator before a child
        setOutput(k_, Output { id, Action::Record, false, true });
        if (unexpected)
            r.why += "new sibling recording of " + fnText(fid)
                + ", earlier recordings kept (§5 R3, W3: already warm, no warm-up)";
        else
            r.why += "second call of " + fnText(fid) + ", no recording matches: record (W2)";
        r.why += child ? " as a child, after an allocator checkpoint (W7)" : " as a root (§1 S4)";
    }

    // execute_node (≈2364-2370) and CUDAGraphNode.run.
    void executeNode(int n, CallResult& r)
    {
        const Call& c = calls_[k_];
        current_ = n;
        state_ = PathState::Execution;
        updateGeneration();
        const Node& node = nodes_[static_cast<size_t>(n)];
        r.action = Action::Replay;
        r.node = node.graphId;
        r.replays = node.recordedBy;
        r.bytesCopied = nonStaticBytes(node, c); // §4 I4
        setOutput(k_, Output { n, Action::Replay, false, true });
        r.why += "replays " + node.recordedBy + "'s recording: static inputs at its addresses "
            + "(§3 step 4, §5 R1, R3)";
        if (!rerecordIfStaticInputsChange() && !firstMovedInput(node, c).empty()) {
            // §4 I5 check_static_inputs_are_stable (≈1113-1131): raises when re-recording on a
            // static address change is disabled.
            r.action = Action::Error;
            r.warnings.push_back("RuntimeError: " + staticMismatchReason(node, c));
            r.why += "; static input moved and re-recording on it is disabled (§4 I5)";
        }
    }

    // §6 L1-L5: what reading a held output gives right after this call.
    void finishReads(CallResult& r)
    {
        for (const std::string& of : calls_[k_].readsAfter) {
            ReadResult read;
            read.of = of;
            const int i = resolve(of, k_);
            if (i < 0 || !outputs_[static_cast<size_t>(i)].exists) {
                read.status = ReadResult::Status::Error;
                read.text = "(model) no output of a call labelled " + of;
                r.reads.push_back(read);
                continue;
            }
            const Output& out = outputs_[static_cast<size_t>(i)];
            if (out.poisoned) {
                read.status = ReadResult::Status::Error; // L3, L4
                read.text = overwrittenErrorText(calls_[static_cast<size_t>(i)].outputStackTrace);
            } else if (out.action == Action::Replay) {
                // L1: every replay of a node returns the same cached tensor.
                for (size_t j = k_ + 1; j-- > static_cast<size_t>(i) + 1;)
                    if (outputs_[j].node == out.node && outputs_[j].action == Action::Replay) {
                        read.status = ReadResult::Status::OverwrittenSilently;
                        read.overwrittenBy = calls_[j].label;
                        break;
                    }
            }
            r.reads.push_back(read);
        }
    }

    const std::vector<Call>& calls_;
    const Options options_;
    std::vector<Output> outputs_;
    mutable std::map<int, std::vector<size_t>> heldOf_; ///< node -> calls whose outputs may still be held
    std::map<int, std::vector<size_t>> unfreedOf_; ///< node -> calls whose outputs are not yet freed
    std::vector<int> lastRead_;
    size_t k_ = 0;

    std::map<std::string, GraphState> graphs_;
    std::map<int, std::string> fidGraph_;
    int nextFid_ = 0;
    std::vector<Node> nodes_;
    std::map<int, std::vector<int>> roots_;
    std::set<int> warmedUp_;
    std::set<int> warnedMutation_; ///< warned_mutation: function ids warned about mutation (K1)
    std::map<std::pair<int64_t, int>, int64_t> numRerecord_;
    int current_ = -1;
    PathState state_ = PathState::None;
    int64_t currentGen_ = -1;
    int64_t dynamoGeneration_ = 0;
    int64_t markStepCounter_ = 0;
    int64_t nextGraphId_ = 0;
    int64_t nextWarmupId_ = -1;
};

} // namespace

struct Tree::Impl {
    Impl(std::vector<Call> c, const Options& options)
        : calls(std::move(c))
        , manager(calls, options)
    {
    }
    std::vector<Call> calls; // before manager: it keeps a reference
    Manager manager;
};

Tree::Tree(std::vector<Call> calls, Options options)
    : m_impl(std::make_unique<Impl>(std::move(calls), options))
{
}
Tree::~Tree() = default;
Call& Tree::call(size_t k)
{
    return m_impl->calls.at(k);
}
CallResult Tree::run(size_t k)
{
    return m_impl->manager.call(k);
}

std::vector<CallResult> simulateCalls(const std::vector<Call>& calls, const Options& options)
{
    Tree tree(calls, options);
    std::vector<CallResult> results;
    results.reserve(calls.size());
    for (size_t k = 0; k < calls.size(); ++k)
        results.push_back(tree.run(k));
    return results;
}

} // namespace engine::runtime::cgt
