#pragma once
/// The simulated TorchAir reduce-overhead runtime (torchair-behavior.md §2-3): for every call of a
/// scenario it computes the graph key, decides capture / recapture / replay / eager, models the
/// memory each capture takes from the FX graph's private pool (or the shared custom pool), copies
/// inputs as process_input does, reconstructs outputs as reconstruct_outputs does, and reports
/// hazards: held outputs overwritten by later replays, user tensors overwritten because clone_input
/// is off, parameters that moved under frozen_parameter, recapture storms, fallback and OOM.
///
/// Thread contract: a Simulation is built in one call and is immutable afterwards; it may be shared
/// between threads as std::shared_ptr<const Simulation>.
#include "engine/config/cuda_options.h"
#include "engine/config/options.h"
#include "engine/core/result.h"
#include "engine/memory/device_allocators.h"
#include "engine/runtime/events.h"
#include "engine/scenario/scenario.h"

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace engine::runtime {

struct SimulationOptions {
    /// Extra settings applied after the scenario's config (`--set NAME=VALUE`), same rules.
    std::vector<std::pair<std::string, PyValue>> overrides;
    /// Keep a full memory snapshot (segments and blocks of every pool) in each event. The GUI wants
    /// it; the CLI's summary and the benchmark do not.
    bool recordMemory = false;
    /// Called after each event with the allocators (one per device used) as the event left them (needs
    /// recordEvents); the project database records memory changes through it (runtime/memory_timeline.h).
    std::function<void(const Event& event, const memory::DeviceAllocators& allocators)> observeMemory;
    /// Keep the event list at all (the benchmark turns it off to measure the runtime model alone).
    bool recordEvents = true;
    /// Progress (calls done, calls total) and cancel; may be empty.
    std::function<bool(int done, int total)> progress;
};

enum class HazardKind {
    OutputOverwritten, ///< an output the caller still holds is overwritten by a later replay
    UserInputOverwritten, ///< clone_input off: the first call's user tensor receives later inputs
    StaleParameter, ///< frozen_parameter on and a parameter moved: the graph reads the old address
    StaleCheckpoint, ///< a live tensor freed by a rollback that TorchAir was not told about
    RecaptureStorm, ///< an FX graph keeps being recaptured
    Fallback, ///< capture limit reached: the FX graph runs eagerly from now on
    OutOfMemory, ///< the device would run out of memory
    /// A call binds a tensor on another device than the graph's (an output of a graph on another
    /// device, say): TorchAir checks no device; what the capture and replay do is not modelled.
    CrossDeviceInput,
    // CUDA Graph Trees (engine/runtime/cgt, docs/cuda-graph-trees.md):
    OverwrittenError, ///< a held output of a warm-up or recording was freed: reading it raises (§6 L3, L4)
    StaticInputMoved, ///< a static input moved: the function records again, the old recording stays (§5)
    CudagraphsSkipped, ///< a graph or function runs without CUDA graphs (§7), with PyTorch's reason
    PoolGrowth, ///< a later distinct size grew the shared pool, which never shrinks (§9)
    RecompileLimit, ///< Dynamo hit torch._dynamo.config.recompile_limit (§8)
    CallRaised, ///< the call raises to the program (FailOnRecompileLimitHit, an AssertionError in the tree)
    /// Found in a run's log (engine/ingest/run_log.h): one function keeps being recompiled, a new FX
    /// graph on call after call (a shape that is not dynamic, a guard that fails each call).
    RecompilePerCall,
};
const char* hazardKindName(HazardKind k); ///< "output_overwritten", ...

struct Hazard {
    HazardKind kind = HazardKind::OutputOverwritten;
    int call = -1; ///< where it arises
    std::string graph;
    std::string key;
    std::string concerns; ///< the tensor or option it is about
    std::string message; ///< in words: what, made where, by which call, what to do
    int madeAtCall = -1; ///< OutputOverwritten: call that returned the output
};

struct PoolCallState {
    int device = 0;
    memory::PoolId pool;
    int blockNum = 0;
    int activateNum = 0;
    uint64_t totalSize = 0;
    uint64_t allocatedSize = 0;
    /// Per segment, in address order: (block_num, activate_num, total_size, allocated_size).
    struct Segment {
        int stream = 0;
        int blockNum = 0;
        int activateNum = 0;
        uint64_t totalSize = 0;
        uint64_t allocatedSize = 0;
    };
    std::vector<Segment> segments;
};

/// Warmup: CUDA Graph Trees' first run of a function, eagerly inside the pool; Raised: the call
/// raised to the program (the simulation goes on as if the program caught it). Neither occurs in a
/// TorchAir run.
enum class CallAction { Capture, Recapture, Replay, Eager, Warmup, Raised };
const char* callActionName(CallAction a); ///< "capture", "recapture", "replay", "eager", "warmup", "raised"

struct CallRecord {
    int index = 0;
    std::string graph; ///< TorchAir name
    std::string graphId; ///< scenario id
    std::string key;
    CallAction action = CallAction::Replay;
    std::string recaptureCause; ///< "mutated_input", "core_limit", "force" for recaptures
    int inputsCopied = 0;
    uint64_t bytesCopied = 0;
    int outputsRebuilt = 0; ///< outputs re-materialised at their captured addresses
    std::vector<PoolCallState> pools; ///< every private pool after the call, device by device
    uint64_t deviceReserved = 0; ///< all devices together
    uint64_t deviceAllocated = 0;
    std::vector<DeviceMemory> devices; ///< per device, only in runs on more than one device
    int firstEvent = 0; ///< index of its first event
    int eventCount = 0;
};

struct GraphRecord {
    std::string name; ///< graph_<N>
    std::string id; ///< scenario id
    int device = 0; ///< the device it is captured on (GraphDevice)
    memory::PoolId pool;
    std::vector<std::string> keys; ///< keys currently captured, in capture order (empty after fallback)
    std::vector<std::string> allKeys; ///< every key ever seen, in first-seen order
    int captures = 0; ///< capture events (new keys and recaptures)
    int recapturesMutatedInput = 0;
    int recapturesCoreLimit = 0;
    int recapturesForce = 0;
    int replays = 0;
    int eagerCalls = 0;
    bool fallbackToEager = false;
    int fallbackCall = -1;
    /// TorchAir's counters["npugraph_ex"] entries for this graph as they stand at the end
    /// (popped on fallback, as TorchAir pops them).
    std::map<std::string, int64_t> counters;
};

struct PoolRecord {
    int device = 0; ///< a private pool belongs to one device's allocator
    memory::PoolId pool;
    std::vector<std::string> graphs; ///< TorchAir names using it
    bool custom = false;
    uint64_t peakReserved = 0;
    uint64_t peakAllocated = 0;
};

/// Where a run came from (issue 18): simulated by this product with a backend and options, or
/// recorded by a real device and read from a file (a memory snapshot; later a log). Reports,
/// Compare and Config show what applies to each: a recording has no TorchAir options.
enum class RunOriginKind { Simulated, Recorded };
const char* runOriginKindName(RunOriginKind k); ///< "simulated" / "recorded"

struct RunOrigin {
    RunOriginKind kind = RunOriginKind::Simulated;
    /// Recorded: what wrote the file, in words ("memory snapshot (torch.cuda.memory._dump_snapshot)").
    std::string recordedAs;
    /// Recorded: the allocator's settings as the file gives them (allocator_settings), in file order.
    std::vector<std::pair<std::string, std::string>> allocatorSettings;
    /// Recorded: whether the file tells the device's capacity (capacityBytes is then that); when
    /// false capacityBytes is 0 and reports say "not recorded".
    bool capacityKnown = false;
    /// Recorded from a run log (engine/ingest/run_log.h; recordedAs then ends in " log"): its calls,
    /// keys, actions and the pools' logged states are known; the device's totals and peaks between
    /// logged states, the bytes each call copies and the scenario's graph ids are not.
    bool log = false;
};

/// A file the run writes (cache_compile's cache, graph dumps), as the run's outputs.
struct RunFile {
    std::string path; ///< as TorchAir builds it; unknown parts in <angle brackets>
    std::string what; ///< "cache_compile's compiled_module", ...
    int writtenAtCall = -1; ///< the call that wrote it; -1: on disk before the run
    int removedAtCall = -1; ///< the call that removed it; -1: still there at the end
    std::string why; ///< why it was removed, or why it was not written
};

/// One device a run used: its allocator's capacity and peaks. A single-device run has one.
struct DeviceRecord {
    int index = 0;
    std::string name; ///< "npu:1"
    uint64_t capacityBytes = 0;
    uint64_t peakReserved = 0;
    uint64_t peakAllocated = 0;
    bool outOfMemory = false; ///< the run stopped because this device was full
};

struct Simulation {
    RunOrigin origin;
    std::string scenarioPath;
    std::string scenarioName;
    /// TorchAir's options (the aclgraph runtime); default-constructed in a cuda_graph_trees run.
    config::Options options;
    /// Present when the run went through Inductor's CUDA Graph Trees (engine/runtime/cgt): PyTorch's
    /// options as parsed. Events then use the same kinds as TorchAir's with the CUDA meanings
    /// (Capture: a recording, Eager: a warm-up or a run outside the pool, Rollback: an allocator
    /// checkpoint applied), CallRecord::action Capture/Recapture/Replay/Eager/Warmup likewise.
    std::optional<config::CudaOptions> cuda;
    memory::Profile profile = memory::Profile::Npu;
    uint64_t capacityBytes = 0;
    std::vector<Event> events;
    std::vector<CallRecord> calls;
    std::vector<GraphRecord> graphs; ///< in compile order
    std::vector<PoolRecord> pools;
    std::vector<Hazard> hazards;
    std::vector<OwnerInfo> owners; ///< indexed by memory::OwnerId
    /// Recorded runs: the owner categories that Event::categoryBytes indexes, in a fixed order.
    std::vector<std::string> categories;
    std::vector<std::string> warnings; ///< UserWarning and WARNING texts, in order, each once
    std::vector<LogLine> log; ///< every line, in order (also split per event)
    /// The highest peak of any one device (the device's own, in a single-device run).
    uint64_t peakDeviceReserved = 0;
    uint64_t peakDeviceAllocated = 0;
    /// Every device the run used, by index (simulated runs; at least npu:0 once a call ran).
    std::vector<DeviceRecord> devices;
    bool multiDevice() const { return devices.size() > 1; }
    bool outOfMemory = false;
    bool cancelled = false;
    int callsSimulated = 0;
    /// Non-empty when some graph has inputs without tensor metadata: every byte figure is then
    /// unknown (the inputs were simulated as 0-byte tensors), and this says why and what would give
    /// the sizes. Reports print "unknown (" + sizesUnknown + ")" in place of byte figures.
    std::string sizesUnknown;
    /// What the simulation had to assume because its inputs did not say (an input's kind told by
    /// nothing, ...), each with its consequence; printed beside the warnings, never as TorchAir's.
    std::vector<std::string> assumptions;
    /// Files the run writes or removes (cache_compile's cache folder), in the order it touches them.
    std::vector<RunFile> files;
    /// The exception that ended the run, as Python prints it ("AssertionError: expected size ..."),
    /// with where it comes from; "" when the run did not raise.
    std::string failure;
};

/// The assumption for a graph whose tensor inputs' kinds nothing told ("" when every kind is known).
std::string unknownKindsNote(const Graph& g);

/// "unknown (<sizesUnknown>)" when the simulation's sizes are unknown, else "".
std::string unknownSizesText(const Simulation& sim);
/// The note for a graph's missing metadata ("" when it has all): the reader's reason, else the inputs named.
std::string missingMetadataNote(const Graph& g);

/// The private pools of one device's allocator as they stand (CallRecord::pools).
std::vector<PoolCallState> poolCallStates(const memory::CachingAllocator& allocator, int device);
/// Every pool of every device as it stands (Event::memory).
std::vector<PoolSnapshot> poolSnapshots(const memory::DeviceAllocators& devices);

/// "torchair", "npugraph_ex" or "cuda_graph_trees": the runtime a simulated run went through ("" for a
/// recording).
std::string runtimeName(const Simulation& sim);

/// Runs the scenario. Fails (with TorchAir's message) only when the configuration itself is
/// invalid; runtime trouble such as OOM ends the run early and is reported inside the Simulation.
Result<Simulation> simulate(const scenario::Scenario& scenario, const SimulationOptions& options = {});

/// The graph key TorchAir would compute — exposed for tests and for the cache-key explanation.
/// CPython's hash of a tuple of ints (3.8+ xxHash-based tuple hash), as TorchAir appends it.
int64_t pythonTupleHash(const std::vector<int64_t>& items);

} // namespace engine::runtime
