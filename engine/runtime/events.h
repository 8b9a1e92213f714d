#pragma once
/// The event stream a simulation produces: one entry per thing TorchAir does (compile, key lookup,
/// capture, pool rollback, input update, replay, output handling, fallback) plus the hazards the
/// simulator finds. Views step through it; the CLI prints its log lines.
#include "engine/memory/caching_allocator.h"

#include <cstdint>
#include <string>
#include <vector>

namespace engine::runtime {

/// Error occurs only in recorded runs (a log's ERROR lines); the simulator prints none.
enum class LogLevel { Debug, Info, Warning, Error };
const char* logLevelName(LogLevel l); ///< "DEBUG", "INFO", "WARNING", "ERROR"

/// One line as TorchAir would print it. A non-empty `category` ("UserWarning", "DeprecationWarning")
/// marks a `warnings.warn` text, printed as "<category>: <text>" and shown once per process.
struct LogLine {
    LogLevel level = LogLevel::Info;
    std::string text;
    std::string category;
    /// Recorded runs read from a log (engine/ingest/run_log.h): the 1-based line of the file the line
    /// starts on; 0 for a simulated line.
    int sourceLine = 0;
};

enum class EventKind {
    Compile, ///< first call of an FX graph: name, pool, compile-time warnings, empty capture
    KeyLookup, ///< graph key computed; found or not; recapture decision
    Rollback, ///< pool set back to a checkpoint (original state, or a key's after-capture state)
    Capture, ///< a key captured (new key or recapture)
    InputUpdate, ///< process_input: per-input copy or not
    Replay, ///< graph replayed (and updatable params patched)
    Outputs, ///< outputs returned: retained, weakref-valid, or rebuilt
    Eager, ///< forward run op by op (force_eager or after fallback)
    Fallback, ///< capture limit reached: graphs reset, eager from now on
    Hazard, ///< something that will bite the user (see Hazard)
    OutOfMemory, ///< the device cannot hold what the call needs; the run stops
    MemoryTrace, ///< one entry of a recorded memory snapshot's trace (engine/snapshot/snapshot_run.h)
};
const char* eventKindName(EventKind k); ///< "compile", "key_lookup", ...

/// What a block of device memory is, for colouring and for the per-block owner listing.
/// Recorded: a block of a real device's memory snapshot, owned by the trace entry that allocated it.
enum class OwnerKind {
    Parameter,
    MutatedInput,
    UserInput,
    Staging,
    Intermediate,
    Workspace,
    Output,
    EagerTensor,
    Recorded
};
const char* ownerKindName(OwnerKind k);

/// Who owns an allocator block (engine::memory::OwnerId indexes Simulation::owners).
struct OwnerInfo {
    OwnerKind kind = OwnerKind::Intermediate;
    std::string graph; ///< TorchAir name ("graph_1"), empty for user storages
    std::string key; ///< graph key, for pool-allocated tensors
    std::string tensor; ///< node or placeholder name, or the user's storage name
    int call = -1; ///< call that created it
    /// Recorded owners only (a memory snapshot's allocation; engine/snapshot/snapshot_story.h):
    /// what the allocation is ("graph tensor", "warm-up", "static input copy", "autotuning",
    /// "library workspace", "checkpoint restore", "eager", "capture", "compilation", "unknown"), the full
    /// stack as text (innermost first, one "file:line name" per line), and why it was attributed so.
    std::string category;
    std::string stack;
    std::string evidence;
};

struct InputAction {
    std::string input; ///< placeholder name
    std::string action; ///< "copy_to_staging", "copy_into_first_tensor", "unchanged", "in_place", "parameter"
    uint64_t bytes = 0; ///< bytes copied
    std::string detail; ///< human words
};

/// Memory of one pool at one instant, as TorchAir's debug_mem_state lines show it, plus blocks.
struct PoolSnapshot {
    int device = 0; ///< the device whose allocator holds the pool
    memory::PoolId pool;
    std::vector<memory::SegmentInfo> segments;
    uint64_t reserved = 0;
    uint64_t allocated = 0;
};

/// One device's totals at one instant (runs on more than one device list them per device).
struct DeviceMemory {
    int device = 0;
    uint64_t reserved = 0;
    uint64_t allocated = 0;
};

struct Event {
    int index = 0;
    int call = -1; ///< 0-based call index, -1 for run-level events
    EventKind kind = EventKind::Compile;
    std::string graph; ///< TorchAir name
    std::string key;
    std::string summary; ///< one line in words
    std::vector<LogLine> log; ///< what TorchAir prints at this step
    std::vector<InputAction> inputs; ///< InputUpdate
    int hazard = -1; ///< Hazard: index into Simulation::hazards
    /// Device memory after the event, every pool (only when SimulationOptions::recordMemory).
    std::vector<PoolSnapshot> memory;
    uint64_t deviceReserved = 0; ///< all pools of all devices, after the event
    uint64_t deviceAllocated = 0;
    /// Per device, after the event: only in runs that use more than one device (Simulation::devices).
    std::vector<DeviceMemory> devices;
    /// Recorded runs: the time of the (last) trace entry of the step, microseconds as the file
    /// gives them (time_us: since the epoch on CUDA); -1 when unknown or simulated.
    int64_t timeUs = -1;
    /// Recorded runs: the allocated bytes after the step split by owner category, indexed like
    /// Simulation::categories (empty when the run has none): the chart's stacked layers.
    std::vector<uint64_t> categoryBytes;
};

} // namespace engine::runtime
