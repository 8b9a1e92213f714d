#pragma once
/// Internal to the runtime simulator (not installed, not used outside engine/runtime/): the state
/// the simulated TorchAir keeps per FX graph and per graph key, and the Python-side objects
/// (storages, tensors, caller references) whose lifetimes decide what the allocator frees.
#include "engine/runtime/graph_analysis.h"
#include "engine/runtime/simulator.h"

#include <climits>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace engine::runtime::detail {

/// A device storage as Python sees it. `refs` counts what keeps it alive: tensors, the caller's
/// named bindings, TorchAir's retained lists. At zero the block goes back to the allocator, unless
/// a rollback made it stale (its deleter is then a no-op and its memory already belongs to the pool).
struct RtStorage {
    uint64_t address = 0;
    uint64_t bytes = 0;
    int device = 0; ///< whose allocator holds it
    memory::PoolId pool;
    memory::OwnerId owner = memory::kNoOwner;
    std::string label;
    int refs = 0;
    bool freed = false;
    bool stale = false;
    bool named = false; ///< bound by name in the scenario: the caller keeps it for the whole run
};

/// A tensor object TorchAir returns (or keeps). Several may share a storage.
struct RtTensor {
    int storage = -1;
    int call = -1; ///< call that returned it
    int graph = -1;
    std::string key;
    int output = 0;
    int refs = 0; ///< caller holds + TorchAir's retained_outputs / captured_outputs
};

/// Per graph key: TorchAir's GraphMeta (torchair-behavior.md §2.2).
struct KeyMeta {
    std::string key;
    int captureCall = -1;
    memory::PoolCheckpoint memAfterCapture;
    std::vector<uint64_t> outAddress; ///< per output: captured storage address (0 for non-tensors)
    std::vector<uint64_t> outBytes;
    std::vector<int> outAliasInput; ///< per output: input position it aliases, or -1
    std::vector<int> outputsWeak; ///< RtTensor ids, -1 for None
    std::vector<int> retainedOutputs; ///< RtTensor ids held by TorchAir (each holds one ref)
    std::map<int, uint64_t> capturedParameter; ///< position -> data_ptr at capture
    std::map<int, uint64_t> capturedMutated; ///< position -> data_ptr at capture
    struct UserInput {
        int position = 0;
        std::string name;
        uint64_t dataPtr = 0; ///< storage base pointer recorded at capture
        uint64_t stagingAddress = 0; ///< clone_input: the staging buffer (freed after capture)
        uint64_t bytes = 0;
        int retainedStorage = -1; ///< clone_input off: the user's first tensor, kept alive
        bool onDevice = true;
    };
    std::vector<UserInput> userInputs;
    std::vector<std::pair<uint64_t, uint64_t>> writeSet; ///< sorted, merged [begin, end) a replay writes
    int cube = 0;
    int vector = 0;
};

/// What the runtime needs to know about each placeholder on every call, worked out once.
struct InputInfo {
    bool tensor = false;
    bool parameter = false; ///< parameter, buffer or static address
    bool mutated = false; ///< a user input TorchAir treats as mutated
    bool alias = false; ///< aliased by an output
    OwnerKind kind = OwnerKind::UserInput;
    std::string defaultStorage; ///< storage a Default binding names; empty: a new storage each call
    bool constantBytes = false;
    uint64_t bytes = 0; ///< when constantBytes
};

struct RtGraph {
    const Graph* graph = nullptr;
    GraphAnalysis analysis;
    std::vector<InputInfo> inputs; ///< per placeholder position
    std::vector<int> defaultBound; ///< per position: RtStorage of its Default binding, -1 until first use
    std::set<std::string> shapeSymbols; ///< symbols that any tensor size mentions
    /// Bytes of every planned storage, per assignment of the shape symbols.
    std::map<SymbolValues, std::vector<uint64_t>> storageBytes;
    /// Allocator owner ids per graph key: [node * 2] for results, [node * 2 + 1] for workspaces.
    std::map<std::string, std::vector<memory::OwnerId>> owners;
    std::string name; ///< graph_<N>
    int record = -1; ///< index into Simulation::graphs
    int aclGraphId = 0;
    int device = 0; ///< AclGraph._device: its pool, captures and outputs live there
    memory::PoolId pool;
    int stream = 0;
    bool fallback = false;
    bool tempGraphAlive = false; ///< the empty initial capture's NPUGraph, alive until the first capture ends
    std::vector<KeyMeta> metas; ///< insertion order, as TorchAir's graphs_meta dict
    memory::PoolCheckpoint original;
    std::set<int> staleStoragesPtr; ///< RtStorage ids
    std::map<int, uint64_t> userinputRefDataPtr;
    std::map<int, int> capturedUserinputRef; ///< position -> RtStorage id (strong)
    bool stormReported = false;
    std::set<std::vector<int64_t>> staticKernelTuples; ///< symbol-value tuples run_eagerly_compile has seen
    std::set<int> crossDeviceReported; ///< positions reported as cross_device_input

    KeyMeta* find(const std::string& key)
    {
        for (auto& m : metas)
            if (m.key == key)
                return &m;
        return nullptr;
    }
};

/// Thrown inside the simulator when the device runs out of memory; caught by simulate().
struct OutOfMemory : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// An allocator call that fails only when the simulator broke its own bookkeeping (freeing an address
/// it never allocated, say): the simulation stops with an internal error rather than going on with a
/// wrong memory map.
inline void mustSucceed(const Result<void>& r)
{
    if (!r)
        throw OutOfMemory("internal: " + r.error().toString());
}

} // namespace engine::runtime::detail
