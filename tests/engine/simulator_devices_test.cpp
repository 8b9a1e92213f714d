// Graphs on more than one device (issue 20): each device has its own allocator, pools, capacity and
// peaks; a graph's pool, captures and outputs are on its device; single-device runs are unchanged.
#include "engine/report/simulation_report.h"
#include "engine/runtime/graph_device.h"
#include "simulator_test_util.h"

#include <gmock/gmock.h>

using engine::runtime::HazardKind;
using engine::runtime::Simulation;
using simtest::call;
using simtest::countHazards;
using simtest::logText;
using simtest::ordered_json;
using simtest::run;
using simtest::scenario;
using simtest::tinyGraph;
using testing::HasSubstr;
using testing::Not;

namespace {

/// tinyGraph with every tensor on `device` ("npu:1").
ordered_json graphOn(const std::string& id, const std::string& device, int width = 4)
{
    ordered_json g = tinyGraph(id, true, width);
    for (auto& in : g["inputs"])
        if (in.contains("shape"))
            in["device"] = device;
    for (auto& n : g["nodes"])
        n["meta"]["device"] = device;
    return g;
}

ordered_json twoDevices(ordered_json calls, int width = 4)
{
    return scenario({ { "frozen_parameter", true } }, { graphOn("a", "npu:0", width), graphOn("b", "npu:1", width) },
        std::move(calls));
}

uint64_t reservedOn(const std::vector<engine::runtime::DeviceMemory>& devices, int device)
{
    for (const auto& d : devices)
        if (d.device == device)
            return d.reserved;
    ADD_FAILURE() << "no totals for device " << device;
    return 0;
}

} // namespace

TEST(SimulatorDevices, GraphsOnTwoDevicesKeepTheirPoolsAndMemoryApart)
{
    engine::runtime::SimulationOptions o;
    o.recordMemory = true;
    const Simulation sim = run(twoDevices({ call(4, {}, 0, "a"), call(4, {}, 0, "b") }), o);
    ASSERT_EQ(sim.calls.size(), 2u);
    ASSERT_EQ(sim.devices.size(), 2u);
    EXPECT_EQ(sim.devices[0].name, "npu:0");
    EXPECT_EQ(sim.devices[1].name, "npu:1");
    ASSERT_EQ(sim.graphs.size(), 2u);
    EXPECT_EQ(sim.graphs[0].device, 0);
    EXPECT_EQ(sim.graphs[1].device, 1);
    ASSERT_EQ(sim.pools.size(), 2u);
    EXPECT_EQ(sim.pools[0].device, 0);
    EXPECT_EQ(sim.pools[1].device, 1);
    // Call 0 touches device 0 only; call 1 adds device 1's memory and leaves device 0's as it was.
    const uint64_t dev0After0 = reservedOn(sim.calls[0].devices, 0);
    EXPECT_GT(dev0After0, 0u);
    EXPECT_EQ(reservedOn(sim.calls[0].devices, 1), 0u);
    EXPECT_EQ(reservedOn(sim.calls[1].devices, 0), dev0After0);
    EXPECT_GT(reservedOn(sim.calls[1].devices, 1), 0u);
    EXPECT_EQ(sim.calls[1].deviceReserved, dev0After0 + reservedOn(sim.calls[1].devices, 1));
    for (const auto& p : sim.calls[1].pools)
        EXPECT_EQ(p.device, p.pool == sim.graphs[1].pool ? 1 : 0) << p.pool.str();
    // Every block of device 1 lies in its own address range, and the pool snapshots say their device.
    const auto& last = sim.events.back();
    bool sawDevice1 = false;
    for (const auto& ps : last.memory)
        for (const auto& seg : ps.segments) {
            EXPECT_EQ(seg.device, ps.device);
            EXPECT_EQ(engine::memory::deviceOfAddress(seg.address), seg.device);
            sawDevice1 |= seg.device == 1;
        }
    EXPECT_TRUE(sawDevice1);
    EXPECT_EQ(sim.devices[0].peakReserved, dev0After0);
    EXPECT_GT(sim.devices[1].peakReserved, 0u);
    // debug_mem_state lines list every device's private pools with their device.
    EXPECT_THAT(logText(sim), HasSubstr("({'device': 1}, {'stream': 2}, {'pool_id': " + sim.graphs[1].pool.str()));
    EXPECT_EQ(countHazards(sim, HazardKind::CrossDeviceInput), 0);
}

TEST(SimulatorDevices, OutOfMemoryOnlyOnTheFullDevice)
{
    // x is [s0, 65536] f32: 1 MiB per row. Device 1 holds 24 MiB, device 0 the default 64 GiB.
    ordered_json calls = { call(16, {}, 0, "a"), call(16, {}, 0, "b") };
    ordered_json j = twoDevices(calls, 65536);
    const Simulation roomy = run(j);
    EXPECT_FALSE(roomy.outOfMemory);
    EXPECT_EQ(roomy.callsSimulated, 2);

    j["device"] = { { "per_device", { { "1", { { "capacity", "24MiB" } } } } } };
    const Simulation sim = run(j);
    EXPECT_TRUE(sim.outOfMemory);
    EXPECT_EQ(sim.callsSimulated, 2);
    ASSERT_EQ(sim.calls.size(), 1u); // graph a's call on device 0 completed
    ASSERT_EQ(countHazards(sim, HazardKind::OutOfMemory), 1);
    EXPECT_EQ(sim.hazards.back().concerns, "npu:1 memory");
    EXPECT_THAT(sim.hazards.back().message, HasSubstr("(NPU 1; 24.00 MiB total capacity"));
    ASSERT_EQ(sim.devices.size(), 2u);
    EXPECT_FALSE(sim.devices[0].outOfMemory);
    EXPECT_TRUE(sim.devices[1].outOfMemory);
    EXPECT_EQ(sim.devices[0].capacityBytes, 64ull << 30);
    EXPECT_EQ(sim.devices[1].capacityBytes, 24ull << 20);
    const std::string text = engine::report::simulationText(sim, engine::runtime::LogLevel::Warning);
    EXPECT_THAT(text, HasSubstr("  device npu:1: peak reserved"));
    EXPECT_THAT(text, HasSubstr("of 24.00 MiB, out of memory\n"));
    EXPECT_THAT(text, Not(HasSubstr("  device: peak reserved")));
}

TEST(SimulatorDevices, SingleDeviceRunPrintsAsBefore)
{
    const Simulation sim = run(scenario({ { "frozen_parameter", true } }, { tinyGraph() }, { call(4), call(4) }));
    ASSERT_EQ(sim.devices.size(), 1u);
    EXPECT_FALSE(sim.multiDevice());
    EXPECT_EQ(sim.devices[0].name, "npu:0");
    EXPECT_EQ(sim.devices[0].peakReserved, sim.peakDeviceReserved);
    for (const auto& c : sim.calls)
        EXPECT_TRUE(c.devices.empty());
    for (const auto& e : sim.events)
        EXPECT_TRUE(e.devices.empty());
    EXPECT_TRUE(sim.assumptions.empty());
    const std::string text = engine::report::simulationText(sim, engine::runtime::LogLevel::Warning);
    EXPECT_THAT(text, HasSubstr("  device: peak reserved "));
    EXPECT_THAT(text, Not(HasSubstr(" on npu:0")));
    const auto json = nlohmann::json::parse(engine::report::simulationJson(sim, -1));
    EXPECT_FALSE(json.contains("devices"));
    EXPECT_FALSE(json["graphs"][0].contains("device"));
    EXPECT_FALSE(json["calls"][0].contains("devices"));
}

TEST(SimulatorDevices, UnknownDeviceIsAssumedNpu0WithANote)
{
    auto parsed = engine::scenario::parseScenario(
        scenario({ { "frozen_parameter", true } }, { tinyGraph() }, { call(4) }).dump(), "test.json");
    ASSERT_TRUE(parsed.ok());
    engine::scenario::Scenario s = parsed.value();
    for (auto& n : s.graphs[0].nodes)
        for (auto& m : n.outputs)
            m.device.clear(); // as print_readable() without include_device leaves it
    auto sim = engine::runtime::simulate(s);
    ASSERT_TRUE(sim.ok());
    EXPECT_EQ(sim->graphs[0].device, 0);
    ASSERT_EQ(sim->assumptions.size(), 1u);
    EXPECT_THAT(sim->assumptions[0], HasSubstr("graph 'g': no tensor names its device"));
    EXPECT_THAT(sim->assumptions[0], HasSubstr("torch_npu.npu.current_device(), acl_graph.py:791"));
    EXPECT_THAT(sim->assumptions[0], HasSubstr("simulated on npu:0"));
}

TEST(SimulatorDevices, GraphDeviceIsItsFirstInputsAndMixedDevicesAreNoted)
{
    ordered_json g = graphOn("g", "npu:1");
    g["inputs"][1]["device"] = "npu:2"; // kv
    const Simulation sim = run(scenario({ { "frozen_parameter", true } }, { g }, { call(4) }));
    ASSERT_EQ(sim.graphs.size(), 1u);
    EXPECT_EQ(sim.graphs[0].device, 1); // w, its first input, is on npu:1
    ASSERT_EQ(sim.assumptions.size(), 1u);
    EXPECT_THAT(sim.assumptions[0], HasSubstr("its tensors name npu:1 and npu:2"));
    EXPECT_THAT(sim.assumptions[0], HasSubstr("simulated on npu:1, the device of its first input"));
    ASSERT_EQ(countHazards(sim, HazardKind::CrossDeviceInput), 1);
    EXPECT_EQ(sim.hazards[0].concerns, "kv");

    engine::runtime::GraphDevice none = engine::runtime::graphDevice({}, engine::memory::Profile::Cuda);
    EXPECT_EQ(none.index, 0);
    EXPECT_TRUE(none.note.empty()); // no tensor at all: nothing was assumed about one
    EXPECT_EQ(engine::runtime::deviceIndex("cuda:3"), 3);
    EXPECT_EQ(engine::runtime::deviceIndex("npu"), -1);
    EXPECT_EQ(engine::runtime::deviceIndex("cpu"), -1);
    EXPECT_EQ(engine::runtime::deviceIndex(""), -1);
}

TEST(SimulatorDevices, OutputOfAGraphOnAnotherDeviceIsACrossDeviceInput)
{
    // Graph b (npu:1) is fed graph a's output (npu:0) as x: a hazard, and the staging copy that
    // torch.empty_like makes of it is on npu:0, outside b's pool (which is on npu:1).
    ordered_json calls = { call(4, {}, 1, "a"), call(4, { { "x", { { "output_of", 0 }, { "index", 0 } } } }, 0, "b") };
    const Simulation sim = run(twoDevices(calls));
    ASSERT_EQ(sim.calls.size(), 2u);
    ASSERT_EQ(countHazards(sim, HazardKind::CrossDeviceInput), 1);
    const auto& h = sim.hazards.back();
    EXPECT_EQ(h.call, 1);
    EXPECT_EQ(h.graph, "graph_2");
    EXPECT_THAT(h.message, HasSubstr("input x of graph_2 (captured on npu:1) is output 0 of call 0, on npu:0"));
    EXPECT_THAT(h.message, HasSubstr("acl_graph.py:791"));
    // The capture-info line records the staging buffer's data_ptr for x (position 2): an npu:0 address.
    std::string info;
    for (const auto& l : sim.log)
        if (l.text.find("graph_2") != std::string::npos && l.text.find("2: TensorMetadata(") != std::string::npos)
            info = l.text;
    const auto at = info.find("2: TensorMetadata(");
    ASSERT_NE(at, std::string::npos);
    const auto ptr = info.find("data_ptr=", at);
    ASSERT_NE(ptr, std::string::npos);
    const uint64_t staging = std::stoull(info.substr(ptr + 9));
    EXPECT_EQ(engine::memory::deviceOfAddress(staging), 0);
}

TEST(SimulatorDevices, ACustomPoolIsOnePoolPerDevice)
{
    ordered_json j = twoDevices({ call(4, {}, 0, "a"), call(4, {}, 0, "b") });
    j["config"]["aclgraph_config.use_custom_pool"] = { 0, 1 };
    const Simulation sim = run(j);
    ASSERT_EQ(sim.pools.size(), 2u);
    EXPECT_EQ(sim.pools[0].pool, sim.pools[1].pool);
    EXPECT_EQ(sim.pools[0].device, 0);
    EXPECT_EQ(sim.pools[1].device, 1);
    EXPECT_EQ(sim.pools[0].graphs, std::vector<std::string> { "graph_1" });
    EXPECT_EQ(sim.pools[1].graphs, std::vector<std::string> { "graph_2" });
    const auto json = nlohmann::json::parse(engine::report::simulationJson(sim, -1));
    ASSERT_TRUE(json.contains("devices"));
    EXPECT_EQ(json["devices"].size(), 2u);
    EXPECT_EQ(json["pools"][1]["device"], 1);
    EXPECT_EQ(json["graphs"][1]["device"], 1);
    EXPECT_EQ(json["calls"][1]["devices"].size(), 2u);
}

TEST(SimulatorDevices, PerDeviceCapacityIsRead)
{
    ordered_json j = twoDevices(ordered_json::array());
    j["device"] = { { "capacity", "32GiB" }, { "per_device", { { "1", { { "capacity_bytes", 1024 } } } } } };
    auto s = engine::scenario::parseScenario(j.dump(), "t.json");
    ASSERT_TRUE(s.ok()) << s.error().toString();
    EXPECT_EQ(s->device.capacityOf(0), 32ull << 30);
    EXPECT_EQ(s->device.capacityOf(1), 1024u);
    EXPECT_EQ(s->device.capacityOf(5), 32ull << 30);

    j["device"]["per_device"] = { { "npu:1", { { "capacity", "1GiB" } } } };
    auto bad = engine::scenario::parseScenario(j.dump(), "t.json");
    ASSERT_FALSE(bad.ok());
    EXPECT_THAT(bad.error().toString(), HasSubstr("$.device.per_device[\"npu:1\"]: expected a device index"));
    j["device"]["per_device"] = { { "1", { { "l2", "1GiB" } } } };
    auto unknownKey = engine::scenario::parseScenario(j.dump(), "t.json");
    ASSERT_FALSE(unknownKey.ok());
    EXPECT_THAT(unknownKey.error().toString(), HasSubstr("unknown key 'l2'"));
}

TEST(SimulatorDevices, TwoDevicesFixtureRunsOutOfMemoryOnNpu1Only)
{
    auto s = engine::scenario::readScenarioFile(std::string(ACLGI_TEST_DATA_DIR) + "/scenarios/two_devices.json");
    ASSERT_TRUE(s.ok()) << s.error().toString();
    auto sim = engine::runtime::simulate(s.value());
    ASSERT_TRUE(sim.ok()) << sim.error().toString();
    ASSERT_EQ(sim->devices.size(), 2u);
    EXPECT_TRUE(sim->outOfMemory);
    EXPECT_EQ(sim->callsSimulated, 4);
    EXPECT_EQ(sim->calls.size(), 3u);
    EXPECT_FALSE(sim->devices[0].outOfMemory);
    EXPECT_TRUE(sim->devices[1].outOfMemory);
    EXPECT_LE(sim->devices[1].peakReserved, 64u << 20);
    EXPECT_GT(sim->devices[0].peakReserved, 4u << 20); // w and the prompt's memory: on npu:0
    EXPECT_EQ(sim->graphs[0].device, 0);
    EXPECT_EQ(sim->graphs[1].device, 1);
    EXPECT_EQ(countHazards(*sim, HazardKind::CrossDeviceInput), 0);
    EXPECT_TRUE(sim->assumptions.empty());
}
