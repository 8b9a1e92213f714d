#pragma once
// Small FX graphs for the pass tests, written as scenario JSON and read through the real reader, so a
// test states its graph the way a user writes one.
#include "engine/config/options.h"
#include "engine/passes/pipeline.h"
#include "engine/scenario/scenario.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <string>

namespace passtest {

using nlohmann::ordered_json;

/// Tensor metadata: {"shape": [...], "dtype": "f32"}.
inline ordered_json meta(ordered_json shape, const std::string& dtype = "f32")
{
    return { { "shape", std::move(shape) }, { "dtype", dtype } };
}

/// A tensor input (placeholder).
inline ordered_json input(const std::string& name, ordered_json shape, const std::string& kind = "user_input",
    const std::string& dtype = "f32")
{
    return { { "name", name }, { "kind", kind }, { "shape", std::move(shape) }, { "dtype", dtype } };
}

inline ordered_json symInput(const std::string& name, const std::string& symbol)
{
    return { { "name", name }, { "kind", "symint" }, { "symbol", symbol } };
}

/// A call_function node; `m` is its meta (null for none).
inline ordered_json op(const std::string& name, const std::string& target, ordered_json args, ordered_json m = nullptr,
    ordered_json kwargs = ordered_json::object())
{
    ordered_json n = { { "name", name }, { "target", target }, { "args", std::move(args) } };
    if (!m.is_null())
        n["meta"] = std::move(m);
    if (!kwargs.empty())
        n["kwargs"] = std::move(kwargs);
    return n;
}

/// A list argument. Needed where nlohmann would read `{ { "a", "b" } }` as the object {"a": "b"}.
inline ordered_json list(std::initializer_list<ordered_json> items)
{
    ordered_json a = ordered_json::array();
    for (const auto& item : items)
        a.push_back(item);
    return a;
}

/// A string constant argument.
inline ordered_json str(const std::string& s)
{
    return { { "str", s } };
}

/// air.scope_enter(['_user_stream_label'], [label]) and its scope_exit.
inline ordered_json streamEnter(const std::string& name, const std::string& label)
{
    return op(name, "air.scope_enter.default",
        ordered_json::array(
            { ordered_json::array({ str("_user_stream_label") }), ordered_json::array({ str(label) }) }));
}

inline ordered_json streamExit(const std::string& name)
{
    return op(name, "air.scope_exit.default", ordered_json::array());
}

/// Reads one graph (id "g") through the scenario reader.
inline engine::Graph graph(ordered_json inputs, ordered_json nodes, ordered_json outputs, bool dynamic = false)
{
    ordered_json g = { { "id", "g" }, { "dynamic", dynamic }, { "inputs", std::move(inputs) },
        { "nodes", std::move(nodes) }, { "outputs", std::move(outputs) } };
    ordered_json s = { { "format", "aclgraph-inspector-scenario" }, { "version", 1 }, { "name", "passes" },
        { "graphs", ordered_json::array({ g }) } };
    auto parsed = engine::scenario::parseScenario(s.dump(), "passes.json");
    EXPECT_TRUE(parsed.ok()) << (parsed.ok() ? "" : parsed.error().toString());
    return parsed.ok() ? parsed->graphs.at(0) : engine::Graph {};
}

/// Options after TorchAir's parsing (defaults: every pass on).
inline engine::config::Options options(std::vector<std::pair<std::string, engine::PyValue>> settings = {},
    engine::config::Backend backend = engine::config::Backend::TorchAir)
{
    auto o = engine::config::parseOptions(backend, settings);
    EXPECT_TRUE(o.ok()) << (o.ok() ? "" : o.error().toString());
    return o.ok() ? o.value() : engine::config::Options {};
}

inline bool has(const engine::Graph& g, const std::string& name)
{
    return g.find(name) >= 0;
}

inline const engine::Node& node(const engine::Graph& g, const std::string& name)
{
    static const engine::Node none;
    const int i = g.find(name);
    EXPECT_GE(i, 0) << "no node " << name;
    return i >= 0 ? g.nodes[size_t(i)] : none;
}

/// The reason the report gives for leaving `name` alone, or "" if it does not list it.
inline std::string skipReason(const engine::passes::PassReport& r, const std::string& name)
{
    for (const auto& s : r.skipped)
        if (s.node == name)
            return s.reason;
    return {};
}

/// The target a report says `name` was rewritten to, or "".
inline std::string rewrittenTo(const engine::passes::PassReport& r, const std::string& name)
{
    for (const auto& w : r.rewritten)
        if (w.node == name)
            return w.after;
    return {};
}

inline std::string logText(const engine::passes::PassReport& r)
{
    std::string s;
    for (const auto& l : r.log)
        s += l + "\n";
    return s;
}

/// The names of the nodes an argument list refers to, as "a,b" (for checking rewired uses).
inline std::string refs(const std::vector<engine::Arg>& args)
{
    std::string s;
    for (const auto& a : args) {
        if (a.kind == engine::Arg::Kind::NodeRef)
            s += (s.empty() ? "" : ",") + a.s;
        if (a.kind == engine::Arg::Kind::List)
            s += (s.empty() ? "[" : ",[") + refs(a.items) + "]";
    }
    return s;
}

} // namespace passtest
