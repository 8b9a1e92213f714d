#pragma once
// Scenarios and memory comparisons shared by the memory timeline tests (engine) and the run store
// tests (storage): real scenario files simulated with recordMemory on and a MemoryTimeline fed by
// observeMemory, and a comparison of two memory snapshots that names the first difference.
#include "engine/runtime/memory_timeline.h"
#include "engine/runtime/simulator.h"
#include "engine/scenario/scenario.h"

#include <algorithm>
#include <dirent.h>
#include <gtest/gtest.h>
#include <memory>
#include <string>
#include <vector>

namespace memtest {

/// tests/data/scenarios (the valid ones) and every bundled sample.
inline std::vector<std::string> scenarioFiles()
{
    const std::string samples = ACLGI_SAMPLES_DIR;
    const std::string data = samples + "/../../tests/data/scenarios/";
    std::vector<std::string> files = { data + "decode_basic.json", data + "graph_by_file.json" };
    std::vector<std::string> found;
    if (DIR* d = opendir(samples.c_str())) {
        while (dirent* e = readdir(d)) {
            const std::string name = e->d_name;
            if (name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0)
                found.push_back(samples + "/" + name);
        }
        closedir(d);
    }
    std::sort(found.begin(), found.end());
    files.insert(files.end(), found.begin(), found.end());
    return files;
}

struct Recorded {
    engine::runtime::Simulation sim; ///< with Event::memory
    std::unique_ptr<engine::runtime::MemoryTimeline> timeline;
};

/// Simulates with recordMemory on and the timeline observing every event; `capacity` (non-zero)
/// replaces the device's memory.
inline Recorded record(const std::string& path, int keyframeInterval, uint64_t capacity = 0)
{
    Recorded r;
    r.timeline = std::make_unique<engine::runtime::MemoryTimeline>(keyframeInterval);
    auto scenario = engine::scenario::readScenarioFile(path);
    EXPECT_TRUE(scenario.ok()) << (scenario.ok() ? "" : scenario.error().toString());
    if (!scenario.ok())
        return r;
    if (capacity)
        scenario->device.capacityBytes = capacity;
    engine::runtime::SimulationOptions o;
    o.recordMemory = true;
    engine::runtime::MemoryTimeline* timeline = r.timeline.get();
    o.observeMemory = [timeline](const engine::runtime::Event& e, const engine::memory::DeviceAllocators& a) {
        timeline->observe(e.index, a);
    };
    auto sim = engine::runtime::simulate(scenario.value(), o);
    EXPECT_TRUE(sim.ok()) << (sim.ok() ? "" : sim.error().toString());
    if (sim.ok())
        r.sim = std::move(sim.value());
    return r;
}

/// Empty when equal, else where they first differ.
inline std::string memoryDifference(
    const std::vector<engine::runtime::PoolSnapshot>& a, const std::vector<engine::runtime::PoolSnapshot>& b)
{
    if (a.size() != b.size())
        return std::to_string(a.size()) + " pools vs " + std::to_string(b.size());
    for (size_t p = 0; p < a.size(); ++p) {
        const std::string where = "pool " + a[p].pool.str();
        if (a[p].pool != b[p].pool)
            return where + " vs " + b[p].pool.str();
        if (a[p].reserved != b[p].reserved || a[p].allocated != b[p].allocated)
            return where + ": totals differ";
        if (a[p].segments.size() != b[p].segments.size())
            return where + ": segment counts differ";
        for (size_t s = 0; s < a[p].segments.size(); ++s) {
            const auto& x = a[p].segments[s];
            const auto& y = b[p].segments[s];
            const std::string seg = where + " segment " + std::to_string(x.address);
            if (x.pool != y.pool || x.stream != y.stream || x.small != y.small || x.address != y.address
                || x.totalSize != y.totalSize || x.allocatedSize != y.allocatedSize
                || x.requestedSize != y.requestedSize || x.blocks.size() != y.blocks.size())
                return seg + ": fields differ";
            for (size_t k = 0; k < x.blocks.size(); ++k) {
                const auto& u = x.blocks[k];
                const auto& v = y.blocks[k];
                if (u.address != v.address || u.size != v.size || u.requested != v.requested
                    || u.allocated != v.allocated || u.owner != v.owner)
                    return seg + " block " + std::to_string(u.address) + " differs";
            }
        }
    }
    return {};
}

} // namespace memtest
