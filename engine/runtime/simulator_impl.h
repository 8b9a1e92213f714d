#pragma once
/// Internal: the Simulator class behind engine::runtime::simulate(). Its member functions are
/// spread over simulator.cpp (the call flow and keys), sim_exec.cpp (storages, capture and eager
/// execution, rollbacks) and sim_outputs.cpp (input update, replay, outputs, hazards).
#include "engine/memory/caching_allocator.h"
#include "engine/memory/device_allocators.h"
#include "engine/runtime/cache_compile.h"
#include "engine/runtime/sim_state.h"

#include <map>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace engine::runtime::detail {

class Simulator {
public:
    Simulator(const scenario::Scenario& scenario, const SimulationOptions& options, config::Options effective);
    Simulation run();

private:
    // simulator.cpp
    void simulateCall(int c);
    RtGraph& graphFor(const std::string& id);
    void compileGraph(RtGraph& g);
    std::string graphKey(const RtGraph& g) const;
    std::string recaptureCause(RtGraph& g, KeyMeta& meta);
    bool captureKey(RtGraph& g, const std::string& key, const std::string& cause); ///< false: fell back
    void fallBack(RtGraph& g, const std::string& key);
    void recordCall(CallRecord& rec);

    // sim_exec.cpp
    void bindInputs(RtGraph& g);
    /// Bytes of every planned storage of `g` for the current call's symbols (cached).
    const std::vector<uint64_t>& storageBytes(RtGraph& g);
    int newStorage(int device, memory::PoolId pool, int stream, uint64_t bytes, OwnerKind kind,
        const std::string& graph, const std::string& key, const std::string& tensor);
    void addRef(int storage);
    void releaseRef(int storage);
    int newTensor(int storage, int graph, const std::string& key, int output);
    void holdTensor(int tensor);
    void releaseTensor(int tensor);
    bool tensorAlive(int tensor) const { return tensor >= 0 && m_tensors[tensor].refs > 0; }
    uint64_t allocate(int device, memory::PoolId pool, int stream, uint64_t bytes, memory::OwnerId owner);
    memory::CachingAllocator& alloc(int device) { return m_devices.at(device); }
    /// Frees the block at `address` in the allocator of the device that owns it.
    void freeBlock(uint64_t address) { mustSucceed(m_devices.owning(address).free(address)); }
    /// cross_device_input, once per graph and input: the call binds a tensor on another device.
    void checkInputDevice(RtGraph& g, int position, int storage, const scenario::Binding& binding);
    memory::OwnerId owner(OwnerKind kind, const std::string& graph, const std::string& key, const std::string& tensor);
    /// Runs the graph's nodes, allocating results in `pool`; returns the storage (RtStorage id) of
    /// every graph output, -1 for non-tensors. Records written ranges into `writeSet` if given.
    std::vector<int> execute(RtGraph& g, const std::vector<int>& args, memory::PoolId pool, int stream,
        const std::string& key, std::vector<std::pair<uint64_t, uint64_t>>* writeSet);
    void capture(RtGraph& g, KeyMeta& meta);
    void runEager(RtGraph& g);
    void staticKernelCompile(RtGraph& g);
    void restorePool(RtGraph& g, const memory::PoolCheckpoint& state, const std::vector<int>& stale);
    uint64_t dataPtr(int position) const; ///< element pointer of the current call's argument

    // sim_outputs.cpp
    void processInput(RtGraph& g, KeyMeta& meta, CallRecord& rec);
    void replay(RtGraph& g, KeyMeta& meta);
    std::vector<int> reconstructOutputs(RtGraph& g, KeyMeta& meta, CallRecord& rec);
    void returnOutputs(RtGraph& g, const std::vector<int>& tensors);
    void markStaleRetained(RtGraph& g, const std::vector<int>& tensors);
    /// Records a hazard arising at the current call; returns its index.
    int addHazard(HazardKind kind, const std::string& graph, const std::string& key, std::string concerns,
        std::string message, int madeAtCall = -1);
    bool callerSees(int storage) const;

    // events and log
    void beginEvent(EventKind kind, const RtGraph* g, const std::string& key, std::string summary);
    void log(LogLevel level, const std::string& text, const std::string& category = {});
    /// Logs one entry of config::Options::warnings ("<Category>: <text>").
    void logConfigWarning(const std::string& entry);
    bool logging() const { return m_options.recordEvents; }
    std::string memState() const;
    void finishEvent();
    void updatePeaks(int device, memory::PoolId pool);
    /// Per-device totals for events and calls (empty unless the run uses more than one device).
    std::vector<DeviceMemory> deviceTotals() const;
    /// "npu:1"; `prefix` forms put "npu:1: " before text only in runs on more than one device.
    std::string deviceName(int device) const { return memory::deviceName(m_scenario.device.profile, device); }
    std::string onDevicePrefix(int device) const { return m_multiDevice ? deviceName(device) + ": " : std::string(); }

    const scenario::Scenario& m_scenario;
    const SimulationOptions& m_options;
    Simulation m_sim;
    memory::DeviceAllocators m_devices;
    std::set<int> m_runDevices; ///< devices the scenario's calls use, known before the first call
    bool m_multiDevice = false;
    std::map<int, DeviceRecord> m_deviceRecords;

    std::vector<RtStorage> m_storages;
    std::vector<RtTensor> m_tensors;
    std::map<std::string, int> m_named; ///< named storages
    std::vector<RtGraph> m_graphs;
    std::map<std::string, int> m_graphById;
    std::map<std::tuple<int, std::string, std::string, std::string>, memory::OwnerId> m_ownerCache;
    std::map<uint64_t, int> m_poolStorageAt; ///< live pool storages by address (for rollbacks)
    std::map<std::pair<int, memory::PoolId>, int> m_poolRecord; ///< (device, pool) -> Simulation::pools

    // Caller references: tensors returned by each call, and until which call the caller holds them.
    std::vector<std::vector<int>> m_returned;
    struct Hold {
        int tensor = -1;
        int until = 0; ///< last call through which the caller holds it
        int returnedAt = 0; ///< call that returned it to the caller
    };
    std::vector<Hold> m_holds;
    std::map<std::pair<int, int>, int> m_lastUse; ///< (call, output) -> last call binding it as input

    // The current call.
    int m_call = -1;
    const scenario::Call* m_callSpec = nullptr;
    std::vector<int> m_args; ///< per placeholder position: RtStorage id, -1 for SymInt
    std::vector<int> m_callRefs; ///< storages referenced only for this call ("new" bindings)
    int m_cube = 0;
    int m_vector = 0;
    uint64_t m_nextPoolUid = 1;
    int m_nextStream = 1;
    bool m_updateStreamSwapped = false;
    std::set<std::string> m_warnedOnce;
    std::set<std::pair<int, int>> m_overwriteReported; ///< (tensor, call that returned it)
    std::set<std::tuple<int, std::string, int>> m_inputOverwriteReported; ///< (graph record, key, position)
    std::set<std::tuple<int, std::string, int>> m_staleParamReported;
    bool m_eventOpen = false;
    std::unique_ptr<CacheCompileModel> m_cache; ///< the scenario's cache_compile, when it has one
    /// Runs one step of cache_compile inside an event of its own (Compile kind); false when the call raised.
    bool cacheStep(int c, bool before);
};

} // namespace engine::runtime::detail
