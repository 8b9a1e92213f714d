#pragma once
/// Internal to engine/runtime/cgt (not used elsewhere): the run of a cuda_graph_trees scenario behind
/// cgt::simulateScenario. Its member functions are split over cgt_run.cpp (set-up, events, memory,
/// input binding, the call flow) and cgt_run_calls.cpp (Dynamo's compile and recompile limit, and
/// what each action does: warm-up, record, replay, eager, the old per-graph cudagraphify, reads).
#include "engine/memory/device_allocators.h"
#include "engine/runtime/cgt/cuda_graph_trees.h"
#include "engine/runtime/graph_analysis.h"
#include "engine/runtime/simulator.h"
#include "engine/scenario/scenario.h"

#include <cstdio>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

namespace engine::runtime::cgt::detail {
// §1 S2: the manager's private pool; the real runs print (0, 1). Its side stream.
constexpr memory::PoolId kPool { 0, 1 };
constexpr memory::StreamId kManagerStream = 1;
constexpr memory::StreamId kUserStream = 0;
// §2 F1: with graph_partition (2.11's default) the functions are named partition_N; one partition
// per graph here.
constexpr const char* kFunction = "partition_0";

struct StopRun : std::runtime_error {
    using std::runtime_error::runtime_error;
};

inline std::string hex(uint64_t v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "0x%llX", static_cast<unsigned long long>(v));
    return buf;
}

inline std::string mib(uint64_t bytes)
{
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.1f MiB", double(bytes) / double(1 << 20));
    return buf;
}

inline std::string callName(int c)
{
    return "call " + std::to_string(c);
}

// "4" for one int, "(2, 16)" for several (cudagraph_trees.py:425 logs the fn_cache key).
inline std::string keyText(const std::vector<int64_t>& sizes)
{
    if (sizes.size() == 1)
        return std::to_string(sizes[0]);
    std::string out = "(";
    for (size_t i = 0; i < sizes.size(); ++i)
        out += (i ? ", " : "") + std::to_string(sizes[i]);
    return out + ")";
}

inline int deviceIndex(const std::string& device)
{
    const auto colon = device.find(':');
    return colon == std::string::npos ? 0 : std::atoi(device.c_str() + colon + 1);
}

// §7 K4: ops that make a graph cudagraph-unsafe when partitioning cannot split them out
// (utils.get_first_incompatible_cudagraph_node).
inline bool incompatibleOp(const std::string& target)
{
    static const std::set<std::string> ops = { "aten._local_scalar_dense.default", "aten._assert_scalar.default",
        "aten.item.default", "run_with_rng_state", "aten._fused_moving_avg_obs_fq_helper.default" };
    return ops.count(target) > 0;
}

struct GraphInfo {
    const Graph* graph = nullptr;
    GraphAnalysis analysis;
    int record = -1; ///< Simulation::graphs
    std::string frame;
    std::string compileId; ///< "f/n", assigned at its first call
    bool compiled = false;
    std::string skip; ///< §7: the compile-time reason cudagraphs are skipped ("" = none)
    std::string dynamoEager; ///< §8 D3: Dynamo runs the frame eagerly for this graph
    std::vector<int> tensorPositions; ///< placeholder positions of tensor inputs, in order
    std::vector<size_t> mutated; ///< indices into tensorPositions the graph mutates
    std::vector<int> symPositions; ///< SymInt placeholder positions
    std::string stackTrace; ///< of its first output (§6 L4)
    std::set<int> fidsSeen;
    std::set<int> fidsRecorded;
    int rerecords = 0;
    bool stormReported = false;
    bool limitReported = false;
    std::map<SymbolValues, std::vector<uint64_t>> inputBytes; ///< per symbol values: bytes of each tensor input
};

struct Storage {
    uint64_t address = 0;
    uint64_t bytes = 0;
};

class Run {
public:
    Run(const scenario::Scenario& sc, const SimulationOptions& options, config::CudaOptions co);
    Result<Simulation> run();

private:
    // --- set-up ---------------------------------------------------------------------------------
    Result<void> prepareGraphs();

    // §7 K2-K4, decided when Inductor compiles the graph (cudagraph_utils.py:172-197, compile_fx.py).
    static std::string compileTimeSkip(const Graph& g);

    // The calls as cgt::Tree sees them, without the addresses that depend on earlier calls.
    void buildTree();

    Options treeOptions() const;

    // --- events, log, owners, memory ----------------------------------------------------------------
    void beginEvent(EventKind kind, const std::string& graph, const std::string& key, std::string summary);

    void finishEvent();

    void log(LogLevel level, const std::string& text);

    int addHazard(HazardKind kind, const std::string& graph, const std::string& key, std::string concerns,
        std::string message, int madeAtCall = -1);

    memory::OwnerId owner(OwnerKind kind, const std::string& graph, const std::string& key, const std::string& tensor);

    memory::CachingAllocator& alloc() { return m_devices.at(0); }

    uint64_t allocate(memory::PoolId pool, memory::StreamId stream, uint64_t bytes, memory::OwnerId who);

    void freeBlock(uint64_t address);

    void updatePeaks();

    uint64_t poolReserved() const;

    // A private pool `id` that graph `g` uses, made on first use: the tree manager's (§1 S2, made
    // at the first cudagraphified call), or one old-style cudagraphify graph's own.
    void ensurePool(const GraphInfo& g, memory::PoolId id = kPool);

    // --- one call ---------------------------------------------------------------------------------
    // Runs the graph's nodes the way the caching allocator sees an eager run: each result is
    // allocated before its node and freed after its last use; returned tensors stay. Returns the
    // blocks of the outputs (per output position, 0 for a non-tensor or an input's storage).
    // `owned`: input positions whose buffers this run allocated (a recording's input buffers): they
    // are freed after their last use, as the compiled code clears its inputs (§4 I3).
    std::vector<uint64_t> execute(GraphInfo& g, memory::PoolId pool, memory::StreamId stream, OwnerKind outputKind,
        const std::vector<uint64_t>& inputAddress, std::vector<uint64_t>& blocks, const std::set<int>& owned = {});

    // The caller's tensor for each input (placeholder position -> address), and its TensorArg.
    void bindInputs(GraphInfo& g, std::vector<uint64_t>& inputAddress, std::vector<TensorArg>& args);

    // Dynamo compiles the graph's frame entry (first call), or tries again after hitting the
    // recompile limit. Returns false when the call does not get the compiled graph: it raised
    // (FailOnRecompileLimitHit) or Dynamo runs it eagerly; `rec` then says which.
    bool compile(GraphInfo& g, CallRecord& rec);

    // The call raised to the program: an event, a hazard, and the run goes on as if it was caught.
    void raised(GraphInfo& g, const std::string& text, CallRecord& rec);

    void simulateCall(int c);

    // The program drops what it does not keep: new input tensors, and outputs whose hold ends.
    void releaseCallTensors(int c);

    // triton.cudagraph_trees=False: compile_fx.cudagraphify_impl, one CUDA graph per (graph, int
    // key) in a pool of its own. The first call runs eagerly once and records in the same call; later
    // calls copy the non-static inputs and replay; the same static output tensors come back every time
    // (real f_trees_off). A static input at another address fails its assert.
    void oldCudagraphify(GraphInfo& g, CallRecord& rec);

    bool readsLater(int from, int c) const;

    void releaseOutputs(int call);

    // The fn_cache lookup (§2 F2) and what PyTorch logs there.
    void lookupEvent(GraphInfo& g, const CallResult& r);

    void checkpointEvent(const GraphInfo& g);

    std::vector<uint64_t> warmup(GraphInfo& g, const CallResult& r, const std::vector<uint64_t>& inputAddress);

    std::string recordingInputs(const GraphInfo& g, const Call& t) const;

    std::vector<uint64_t> record(
        GraphInfo& g, const CallResult& r, const Call& t, const std::vector<uint64_t>& inputAddress, CallRecord& rec);

    static std::string firstMovedName(const std::string& reason);

    std::vector<uint64_t> replay(GraphInfo& g, const CallResult& r, const Call& t, CallRecord& rec);

    std::vector<uint64_t> eager(GraphInfo& g, const CallResult& r, const std::vector<uint64_t>& inputAddress);

    void reads(const GraphInfo& g, const std::vector<ReadResult>& results);

    void recordCall(CallRecord& rec);

    void finish();

    struct OldGraph {
        memory::PoolId pool;
        std::vector<uint64_t> staticAddresses;
        std::vector<uint64_t> outputs;
        std::vector<int> calls;
    };
    std::map<std::string, OldGraph> m_oldGraphs; ///< trees off: by graph id and int key
    struct Recording {
        std::vector<uint64_t> outputs;
    };
    const scenario::Scenario& m_sc;
    const SimulationOptions& m_options;
    config::CudaOptions m_co;
    Simulation m_sim;
    memory::DeviceAllocators m_devices;
    DeviceRecord m_deviceRecord;
    std::map<memory::PoolId, PoolRecord> m_pools; ///< private pools used, by id
    bool m_growthSeen = false;
    std::map<std::string, GraphInfo> m_graphs;
    std::map<std::string, int> m_frameIndex;
    std::map<std::string, int> m_frameCompiles;
    int64_t m_totalCompiles = 0;
    std::unique_ptr<Tree> m_tree;
    std::vector<int> m_heldThrough; ///< per call: the last call through which the program holds its outputs
    std::map<std::string, Storage> m_named;
    std::vector<uint64_t> m_callStorages; ///< "new" inputs of the current call
    std::vector<std::vector<uint64_t>> m_outputs; ///< per call: its outputs' addresses
    std::map<int, std::vector<uint64_t>> m_outputBlocks; ///< per call: blocks its outputs hold
    std::map<int64_t, Recording> m_recordings; ///< by cuda_graph_id
    /// Per recording (cuda_graph_id): the calls that replayed it whose outputs may still be held.
    std::map<int64_t, std::vector<int>> m_heldReplays;
    std::vector<std::vector<int>> m_releaseAt; ///< per call: the calls whose outputs the program drops after it
    std::vector<int> m_lastReadBy; ///< per call: the last call after which the program reads its output (-1: none)
    std::set<std::pair<std::string, std::string>> m_movedReported;
    std::set<int> m_growthReported; ///< function ids whose pool growth was reported
    std::set<int> m_overwriteReported; ///< calls whose held replay output was reported overwritten
    std::map<std::tuple<int, std::string, std::string, std::string>, memory::OwnerId> m_ownerCache;
    int m_checkpoints = 0;
    int m_call = -1;
    std::string m_graphName;
    std::string m_key;
};

} // namespace engine::runtime::cgt::detail
