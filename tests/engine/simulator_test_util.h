#pragma once
// Small scenarios for the simulator tests, built as JSON and read through the real reader, so a
// test states the inputs in the same form a user writes them.
#include "engine/runtime/simulator.h"
#include "engine/scenario/scenario.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <string>

namespace simtest {

using nlohmann::ordered_json;

/// A dynamic FX graph (shapes need not be consistent: only bytes matter here): weight w [4, 4] (parameter), x [s0, W]
/// (user input), kv [8, 4] updated in place (mutated), s0 (SymInt). mm = x @ w, kv.add_(1), out = relu(mm) returned.
inline ordered_json tinyGraph(const std::string& id = "g", bool dynamic = true, int width = 4)
{
    ordered_json rows = dynamic ? ordered_json("s0") : ordered_json(2);
    ordered_json inputs = ordered_json::array({
        { { "name", "w" }, { "kind", "parameter" }, { "shape", { 4, 4 } }, { "dtype", "f32" } },
        { { "name", "kv" }, { "kind", "user_input" }, { "shape", { 8, 4 } }, { "dtype", "f32" } },
        { { "name", "x" }, { "kind", "user_input" }, { "shape", { rows, width } }, { "dtype", "f32" } },
    });
    if (dynamic)
        inputs.push_back({ { "name", "s0" }, { "kind", "symint" }, { "symbol", "s0" } });
    ordered_json nodes = ordered_json::array({
        { { "name", "mm" }, { "target", "aten.mm.default" }, { "args", { "x", "w" } },
            { "meta", { { "shape", { rows, width } }, { "dtype", "f32" } } } },
        { { "name", "kv_upd" }, { "target", "aten.add_.Tensor" }, { "args", { "kv", 1 } },
            { "meta", { { "shape", { 8, 4 } }, { "dtype", "f32" } } } },
        { { "name", "out" }, { "target", "aten.relu.default" }, { "args", { "mm" } },
            { "meta", { { "shape", { rows, width } }, { "dtype", "f32" } } } },
    });
    return { { "id", id }, { "dynamic", dynamic }, { "inputs", inputs }, { "nodes", nodes }, { "outputs", { "out" } } };
}

inline ordered_json scenario(ordered_json config, ordered_json graphs, ordered_json calls)
{
    return { { "format", "aclgraph-inspector-scenario" }, { "version", 1 }, { "name", "test" },
        { "config", std::move(config) }, { "graphs", std::move(graphs) }, { "calls", std::move(calls) } };
}

inline ordered_json call(int s0, ordered_json inputs = ordered_json::object(), int keep = 0, const std::string& g = "g")
{
    ordered_json c = { { "graph", g }, { "symbols", { { "s0", s0 } } } };
    if (!inputs.empty())
        c["inputs"] = std::move(inputs);
    if (keep)
        c["keep_outputs"] = keep;
    return c;
}

inline engine::runtime::Simulation run(const ordered_json& j, engine::runtime::SimulationOptions o = {})
{
    auto s = engine::scenario::parseScenario(j.dump(), "test.json");
    EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().toString());
    if (!s.ok())
        return {};
    auto sim = engine::runtime::simulate(s.value(), o);
    EXPECT_TRUE(sim.ok()) << (sim.ok() ? "" : sim.error().toString());
    return sim.ok() ? std::move(sim.value()) : engine::runtime::Simulation {};
}

/// Every log line's text, joined by newlines, to search with HasSubstr.
inline std::string logText(const engine::runtime::Simulation& sim)
{
    std::string s;
    for (const auto& l : sim.log)
        s += l.text + "\n";
    return s;
}

inline int countHazards(const engine::runtime::Simulation& sim, engine::runtime::HazardKind k)
{
    int n = 0;
    for (const auto& h : sim.hazards)
        n += h.kind == k;
    return n;
}

} // namespace simtest
