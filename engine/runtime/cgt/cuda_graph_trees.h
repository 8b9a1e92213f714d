#pragma once
/// The call-level decision model of Inductor's CUDA Graph Trees (torch.compile(mode=
/// "reduce-overhead"), PyTorch 2.11): for every call of a compiled function, whether it warms up,
/// records, replays or runs eagerly, which recording a replay replays, the warnings PyTorch prints,
/// and what reading a held output gives. The rules and their PyTorch source lines are in
/// docs/cuda-graph-trees.md (cited as "§n Xn" in the code).
///
/// Scope: one device (one CUDAGraphTreeManager, one pool; multi-device is not modelled yet),
/// inference only (every function is compiled under torch.no_grad(): no FORWARD/BACKWARD mode, no
/// pending backwards, §1 S9), no input mutation of non-static tensors (§7 K1), no Dynamo recompile
/// limit (§8; the compiled graph of each call is an input), no memory (§9).
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace engine::runtime::cgt {

/// The options that change call-level decisions, with PyTorch's names and 2.11 defaults (§10).
struct Options {
    /// torch._inductor.config.triton.cudagraph_dynamic_shape_warn_limit (8). Python truthiness, as
    /// PyTorch: nullopt (None) or 0 never warns; a negative value is truthy and warns (§2 F4).
    std::optional<int64_t> dynamic_shape_warn_limit = 8;
    /// triton.cudagraph_unexpected_rerecord_limit (128); only enforced when
    /// inline_inbuilt_nn_modules is false (§5 R7).
    int64_t unexpected_rerecord_limit = 128;
    /// torch._dynamo.config.inline_inbuilt_nn_modules (true): disables the re-record limit (R7) and
    /// makes a static input's address change re-record (§4 I5).
    bool inline_inbuilt_nn_modules = true;
    /// triton.cudagraph_support_input_mutation (true, open-source build): also makes a static input
    /// address change re-record (I5).
    bool support_input_mutation = true;
    /// triton.cudagraph_skip_dynamic_graphs (false): a graph with int (size) inputs runs without
    /// cudagraphs (§7 K5).
    bool skip_dynamic_graphs = false;
    /// triton.cudagraph_capture_sizes (None): when set, only these int keys are captured; other
    /// calls run the compiled code directly, silently (§2 F6). A key is a Call's `sizes`.
    std::optional<std::vector<std::vector<int64_t>>> capture_sizes;
    /// triton.force_cudagraphs_warmup (false): always warm up (§3 step 3).
    bool force_cudagraphs_warmup = false;
    /// triton.skip_cudagraph_warmup (false): record on the first call (§3 step 3).
    bool skip_cudagraph_warmup = false;
    /// graph_partition (True in 2.11): a dynamic graph under skip_dynamic_graphs becomes one
    /// non-cudagraphable partition and nothing is logged (real f_skip_dynamic_graphs); without
    /// partitioning compile_fx logs the K5 skip text.
    bool graph_partition = true;
    /// TORCH_LOGS=+cudagraphs (DEBUG on the cudagraphs logger): re-record reasons are evaluated at
    /// once, and for a graph with int inputs that assertion fails (§5 R6, "Checked against the real
    /// runs", d_dynamic_warn).
    bool debug_cudagraphs_logging = false;
};

struct TensorArg {
    std::string name;
    uint64_t address = 0;
    uint64_t bytes = 0;
    bool isStatic = false; ///< parameter, buffer or mark_static_address (§4 I1)
    /// Label of the earlier call whose output this tensor is: when that output lives in the pool on
    /// the current path at record time, the input is cudagraph-managed (§4 I2): not copied, and its
    /// address is checked first at replay (§5 R1 (1)). Empty: not an output of a compiled call.
    std::string outputOf;
};

struct Call {
    std::string label;
    std::string function; ///< the compiled function object (torch.compile wrapper)
    std::string graph; ///< the compiled graph it runs, e.g. Dynamo compile id "0/1"
    /// The int (size) inputs: the dynamic-size key; empty for a static graph (§2 F2).
    std::vector<int64_t> sizes;
    bool dynamicGraph = false; ///< the graph has symbolic-shape inputs (K5)
    std::vector<TensorArg> inputs;
    bool markStepBegin = false; ///< torch.compiler.cudagraph_mark_step_begin() before the call
    /// Labels of earlier calls (or this one) whose held output the program reads right after it.
    std::vector<std::string> readsAfter;
    /// The program holds this call's output through call index `heldThrough` (-1: only until its
    /// last read), e.g. a scenario's keep_outputs or a later call that takes it as an input.
    int heldThrough = -1;
    /// The program keeps this call's output to the end; otherwise it holds it only until its last
    /// read (liveness, §6 L6).
    bool holdsOutput = false;
    /// The FX stack trace of the output (the user frame), quoted in the overwritten error (§6 L4).
    std::string outputStackTrace;
    /// Indices into `inputs` the graph mutates (§7 K1): a mutated input that is neither static nor
    /// pool-managed makes the call run eagerly outside the pool, warned once per function id.
    std::vector<size_t> mutatedInputs;
    /// §7 K2-K6: the compiled graph skips cudagraphs at compile time; PyTorch's message without the
    /// "skipping cudagraphs due to " prefix, logged once per graph. The call runs the compiled code.
    std::string skipCudagraphs;
    /// Non-empty: the call runs without the tree, in words: Dynamo runs it without the compiled graph
    /// (recompile limit hit, §8 D3), or cudagraphs are off (mode "default"). The generation still
    /// advances (the torch.compile wrapper is entered).
    std::string dynamoEager;
};

enum class Action { Warmup, Record, Replay, Eager, Error };
const char* actionName(Action action);

struct ReadResult {
    std::string of;
    enum class Status { Ok, OverwrittenSilently, Error } status = Status::Ok;
    std::string overwrittenBy; ///< label of the call whose replay wrote it
    std::string text; ///< PyTorch's error text for Error (the RuntimeError's message)
};

struct CallResult {
    Action action = Action::Eager;
    std::string replays; ///< for a replay: label of the call that recorded it
    std::string why; ///< in words, citing the rule
    uint64_t bytesCopied = 0; ///< non-static tensor inputs copied before a replay (§4 I4)
    std::vector<std::string> warnings; ///< PyTorch's exact texts
    bool newGeneration = false; ///< the call starts a new generation (§1 S6, S8)
    std::vector<ReadResult> reads;
    int fid = -1; ///< the FunctionID the call ran as (-1: no cudagraph function, §2 F3)
    /// The tree node it ran: cuda_graph_id for a record or replay (0, 1, ...), the warm-up node's id
    /// (-1, -2, ...) for a warm-up; 0 otherwise (see action).
    int64_t node = 0;
    /// Labels of the calls whose outputs dealloc_current_path_weakrefs freed at the start of this
    /// call (§6 L3), held or not: their blocks go back to the pool.
    std::vector<std::string> freedOutputsOf;
    /// apply_checkpoint_execution_state_in_allocator ran before this call's warm-up or child
    /// recording (W6, W7): the live outputs of the replayed path become allocations again.
    bool checkpoint = false;
    /// The re-record reasons (§5 R6 texts, "static input data pointer changed.\n...") of the
    /// recordings that failed their checks, in the order tried: one DEBUG line each.
    std::vector<std::string> rerecordReasons;
};

/// The same model driven one call at a time, so a caller can give each call's input addresses
/// only once the calls before it have run (an output fed back as an input lives where its call put
/// it). Labels and readsAfter must be known up front (liveness, §6 L6).
class Tree {
public:
    Tree(std::vector<Call> calls, Options options);
    ~Tree();
    Tree(const Tree&) = delete;
    Tree& operator=(const Tree&) = delete;
    /// Call k, to complete before run(k).
    Call& call(size_t k);
    /// Runs call k; calls run in order 0, 1, 2, ...
    CallResult run(size_t k);

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

/// Pure and deterministic: the calls in program order on one device.
std::vector<CallResult> simulateCalls(const std::vector<Call>& calls, const Options& options);

/// §6 L4: the RuntimeError message of reading a freed (poisoned) output.
std::string overwrittenErrorText(const std::string& stackTrace);

} // namespace engine::runtime::cgt
