#include "engine/scenario/decoder_generator.h"
#include "engine/scenario/scenario.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

using namespace engine;
using namespace engine::scenario;
using Json = nlohmann::ordered_json;

namespace {

const std::string kDataDir = ACLGI_TEST_DATA_DIR;
const std::string kFixture = kDataDir + "/scenarios/decode_basic.json";

// A small valid scenario the error tests mutate one piece at a time.
const char* const kBase = R"({
  "format": "aclgraph-inspector-scenario",
  "version": 1,
  "config": { "debug.aclgraph.clone_input": false },
  "device": { "profile": "npu" },
  "graphs": [
    { "id": "g", "dynamic": true,
      "inputs": [
        { "name": "w", "kind": "parameter", "shape": [8, 8], "dtype": "f32" },
        { "name": "n", "kind": "symint", "symbol": "s0" },
        { "name": "x", "kind": "user_input", "shape": ["s0", 8], "dtype": "f32" }
      ],
      "nodes": [
        { "name": "mm", "target": "aten.mm.default", "args": ["x", "w"], "meta": { "shape": ["s0", 8], "dtype": "f32" } },
        { "name": "size", "target": "aten.sym_size.int", "args": ["x", 0] }
      ],
      "outputs": ["mm", null, "size"] },
    { "id": "s",
      "inputs": [ { "name": "y", "kind": "user_input", "shape": [4], "dtype": "bf16" } ],
      "nodes": [ { "name": "neg", "target": "aten.neg.default", "args": ["y"], "meta": { "shape": [4], "dtype": "bf16" } } ],
      "outputs": ["neg"] }
  ],
  "calls": [
    { "graph": "g", "symbols": { "s0": 2 } },
    { "graph": "s", "repeat": 2 },
    { "graph": "g", "symbols": { "s0": 3 }, "inputs": { "x": "new" } }
  ]
})";

Json base()
{
    return Json::parse(kBase);
}

Result<Scenario> parseJson(const Json& j)
{
    return parseScenario(j.dump(2), "s.json");
}

struct Expected {
    ErrorCode code;
    std::string context;
    std::string message; ///< a substring of the message
};

void expectError(const Result<Scenario>& r, const Expected& e)
{
    ASSERT_FALSE(r.ok()) << "expected an error at " << e.context;
    EXPECT_EQ(r.error().context, e.context) << r.error().toString();
    EXPECT_NE(r.error().message.find(e.message), std::string::npos)
        << "message: " << r.error().message << "\nwanted: " << e.message;
    EXPECT_EQ(int(r.error().code), int(e.code)) << r.error().toString();
}

void expectError(const std::function<void(Json&)>& mutate, const Expected& e)
{
    Json j = base();
    mutate(j);
    expectError(parseJson(j), e);
}

std::string readText(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

} // namespace

TEST(ScenarioReader, BaseIsValid)
{
    auto r = parseJson(base());
    ASSERT_TRUE(r.ok()) << r.error().toString();
    EXPECT_EQ(r->path, "s.json");
    EXPECT_EQ(r->calls.size(), 4u);
    EXPECT_FALSE(r->backend.has_value());
}

TEST(ScenarioReader, ReadsTheFixture)
{
    auto r = readScenarioFile(kFixture);
    ASSERT_TRUE(r.ok()) << r.error().toString();
    const Scenario& s = r.value();
    EXPECT_EQ(s.path, kFixture);
    EXPECT_EQ(s.version, 1);
    EXPECT_EQ(s.name, "llama decode");
    EXPECT_EQ(s.comment, "a dynamic decode graph whose KV cache is updated in place");
    ASSERT_TRUE(s.backend.has_value());
    EXPECT_EQ(*s.backend, config::Backend::TorchAir);

    ASSERT_EQ(s.config.size(), 4u);
    EXPECT_EQ(s.config[0].first, "debug.aclgraph.clone_input");
    EXPECT_EQ(s.config[0].second.kind, PyValue::Kind::Bool);
    EXPECT_FALSE(s.config[0].second.b);
    EXPECT_EQ(s.config[1].first, "frozen_parameter");
    EXPECT_EQ(s.config[2].first, "aclgraph_config.use_custom_pool");
    EXPECT_EQ(s.config[2].second.kind, PyValue::Kind::Tuple);
    ASSERT_EQ(s.config[2].second.items.size(), 2u);
    EXPECT_EQ(s.config[2].second.items[1].kind, PyValue::Kind::Int);
    EXPECT_EQ(s.config[2].second.items[1].i, 1);
    EXPECT_EQ(s.config[3].second.kind, PyValue::Kind::Int);
    EXPECT_EQ(s.config[3].second.i, 8);

    EXPECT_EQ(s.device.profile, memory::Profile::Npu);
    EXPECT_EQ(s.device.capacityBytes, 68719476736ull);
    EXPECT_EQ(s.device.l2Bytes, 201326592ull);
    EXPECT_EQ(s.device.cubeCores, 24);
    EXPECT_EQ(s.device.vectorCores, 48);
    EXPECT_DOUBLE_EQ(s.device.copyBytesPerSecond, 800e9);

    ASSERT_EQ(s.graphs.size(), 2u);
    const Graph* g = s.graph("decode");
    ASSERT_NE(g, nullptr);
    EXPECT_EQ(s.graph("nope"), nullptr);
    EXPECT_EQ(g->comment, "one decode step");
    EXPECT_TRUE(g->dynamic);
    ASSERT_EQ(g->nodes.size(), 12u);
    EXPECT_EQ(g->placeholders(), (std::vector<int> { 0, 1, 2, 3 }));
    EXPECT_EQ(g->nodes[0].inputKind, InputKind::Parameter);
    EXPECT_EQ(g->nodes[0].provenance, "model.layers.0.q_proj.weight");
    ASSERT_EQ(g->nodes[0].outputs.size(), 1u);
    EXPECT_EQ(g->nodes[0].outputs[0].dtype, DType::BF16);
    EXPECT_EQ(g->nodes[1].inputKind, InputKind::SymInt);
    EXPECT_EQ(g->nodes[1].symbol.singleSymbol(), "s0");
    EXPECT_TRUE(g->nodes[1].outputs.empty());
    EXPECT_EQ(g->nodes[2].outputs[0].shape[0].text(), "s0");
    EXPECT_EQ(g->nodes[3].inputKind, InputKind::Buffer);
    EXPECT_EQ(g->nodes[3].outputs[0].stride.size(), 2u);

    const Node& mm = g->nodes[4];
    EXPECT_EQ(mm.name, "mm");
    EXPECT_EQ(mm.op, NodeOp::CallFunction);
    EXPECT_EQ(mm.workspaceBytes.text(), "s0*1024");
    EXPECT_EQ(mm.args[0].node, 2);
    EXPECT_EQ(mm.users, (std::vector<int> { 5 }));
    const Node& view = g->nodes[5];
    ASSERT_EQ(view.args[1].kind, Arg::Kind::List);
    EXPECT_EQ(view.args[1].items[0].node, 1);
    EXPECT_EQ(view.args[1].items[1].i, 32);
    const Node& split = g->nodes[6];
    ASSERT_EQ(split.outputs.size(), 2u);
    EXPECT_EQ(split.outputs[1].storageOffset, 2048);
    EXPECT_TRUE(g->nodes[8].outputs.empty()); // sym_size: "meta": null
    const Node& copy = g->nodes[9];
    ASSERT_EQ(copy.kwargs.size(), 1u);
    EXPECT_EQ(copy.kwargs[0].first, "non_blocking");
    EXPECT_EQ(copy.kwargs[0].second.kind, Arg::Kind::Bool);
    const Node& add = g->nodes[10];
    EXPECT_EQ(add.op, NodeOp::CallMethod);
    EXPECT_EQ(add.args[1].kind, Arg::Kind::Float);
    EXPECT_DOUBLE_EQ(add.args[1].f, 1.5);
    EXPECT_EQ(add.args[2].kind, Arg::Kind::Bool);
    EXPECT_EQ(add.args[3].kind, Arg::Kind::None);
    EXPECT_EQ(add.args[4].kind, Arg::Kind::Str);
    EXPECT_EQ(add.args[4].s, "constant text");
    EXPECT_EQ(add.provenance, "# File: model.py:12 in forward, code: x = x + 1.5");
    const Node& out = g->nodes[11];
    EXPECT_EQ(out.op, NodeOp::Output);
    EXPECT_EQ(out.name, "output");
    ASSERT_EQ(out.args.size(), 1u);
    ASSERT_EQ(out.args[0].items.size(), 4u);
    EXPECT_EQ(out.args[0].items[0].node, 10);
    EXPECT_EQ(out.args[0].items[1].kind, Arg::Kind::None);
    EXPECT_EQ(g->mutatedInputs(), (std::vector<std::string> { "arg3_1" }));
    EXPECT_FALSE(s.graph("prefill")->dynamic);

    ASSERT_EQ(s.calls.size(), 6u);
    EXPECT_EQ(s.calls[0].graph, "prefill");
    EXPECT_EQ(s.calls[0].note, "warm up");
    EXPECT_EQ(s.calls[0].sourcePath, "$.calls[0]");
    EXPECT_TRUE(s.calls[0].symbols.empty());
    for (int i = 1; i <= 3; ++i) {
        const Call& c = s.calls[size_t(i)];
        EXPECT_EQ(c.sourcePath, "$.calls[1]");
        EXPECT_EQ(c.symbols.at("s0"), 4);
        EXPECT_EQ(c.inputs.at("arg2_1").kind, Binding::Kind::New);
        EXPECT_EQ(c.inputs.at("arg3_1").kind, Binding::Kind::Named);
        EXPECT_EQ(c.inputs.at("arg3_1").name, "kv");
        EXPECT_EQ(c.keepOutputs, 1);
        ASSERT_TRUE(c.coreLimit.has_value());
        EXPECT_EQ(c.coreLimit->cube, 20);
        EXPECT_EQ(c.coreLimit->vector, 40);
    }
    EXPECT_EQ(s.calls[4].sourcePath, "$.calls[2]");
    EXPECT_EQ(s.calls[4].keepOutputs, -1);
    EXPECT_FALSE(s.calls[4].coreLimit.has_value());
    const Binding& b = s.calls[4].inputs.at("arg2_1");
    EXPECT_EQ(b.kind, Binding::Kind::OutputOf);
    EXPECT_EQ(b.call, 3);
    EXPECT_EQ(b.index, 2);
    EXPECT_EQ(s.calls[5].inputs.at("x").kind, Binding::Kind::OutputOf);
    EXPECT_EQ(s.calls[5].inputs.at("x").call, 0);
    EXPECT_EQ(s.calls[5].inputs.at("x").index, 0);
    EXPECT_EQ(s.calls[5].keepOutputs, 0);
}

TEST(ScenarioReader, JsonSyntaxErrorsGiveLineAndColumn)
{
    auto r = parseScenario("{\n  \"format\": \n}", "s.json");
    expectError(
        r, { ErrorCode::ParseError, "s.json:3:1", "invalid JSON: syntax error while parsing value - unexpected '}'" });
    expectError(parseScenario("", "s.json"), { ErrorCode::ParseError, "s.json:1:1", "unexpected end of input" });
    expectError(parseScenario("{\"a\": tru}", "s.json"), { ErrorCode::ParseError, "s.json:1:10", "invalid literal" });
    expectError(parseScenario("  \n  x", "s.json"), { ErrorCode::ParseError, "s.json:2:3", "invalid literal" });
    expectError(
        parseScenario("{\"format\": \"\xff\"}", "s.json"), { ErrorCode::ParseError, "s.json:1:13", "invalid JSON" });
    expectError(parseScenario("{\"version\":\n  [1, 1e400]}", "s.json"),
        { ErrorCode::ParseError, "s.json:2:7", "invalid JSON: number overflow parsing '1e400'" });
}

TEST(ScenarioReader, TruncatedFile)
{
    auto r = readScenarioFile(kDataDir + "/scenarios/truncated.json");
    std::string text = readText(kDataDir + "/scenarios/truncated.json");
    size_t lines = size_t(std::count(text.begin(), text.end(), '\n'));
    size_t column = text.size() - text.rfind('\n');
    expectError(r,
        { ErrorCode::ParseError,
            kDataDir + "/scenarios/truncated.json:" + std::to_string(lines + 1) + ":" + std::to_string(column),
            "unexpected end of input" });
}

TEST(ScenarioReader, EveryTruncationFailsCleanly)
{
    std::string text = readText(kFixture);
    ASSERT_FALSE(text.empty());
    for (size_t n = 0; n + 2 < text.size(); n += 7) {
        auto r = parseScenario(text.substr(0, n), "t.json");
        EXPECT_FALSE(r.ok()) << n;
    }
}

TEST(ScenarioReader, DeepNestingIsRefusedBeforeParsing)
{
    expectError(parseScenario(std::string(1000000, '['), "s.json"),
        { ErrorCode::ParseError, "s.json:1:513", "JSON nested deeper than 512 levels" });
    // Deep nesting where the reader recurses (an argument list), just inside the limit.
    Json j = base();
    std::string deep = std::string(500, '[') + "1" + std::string(500, ']');
    j["graphs"][0]["nodes"][1]["args"][1] = Json::parse(deep);
    auto r = parseJson(j);
    ASSERT_TRUE(r.ok()) << r.error().toString();
    // Brackets inside strings do not count.
    j = base();
    j["name"] = std::string(5000, '[') + "\\\"" + std::string(5000, '{');
    EXPECT_TRUE(parseJson(j).ok());
}

TEST(ScenarioReader, DuplicateKeys)
{
    std::string text = kBase;
    text.replace(text.find("\"id\": \"s\","), 10, "\"id\": \"s\", \"id\": \"t\",");
    expectError(
        parseScenario(text, "s.json"), { ErrorCode::ParseError, "s.json: $.graphs[1].id", "duplicate key 'id'" });
}

TEST(ScenarioReader, TopLevelErrors)
{
    expectError(parseScenario("[]", "s.json"), { ErrorCode::ParseError, "s.json: $", "expected an object, got array" });
    expectError(
        [](Json& j) { j.erase("format"); }, { ErrorCode::ParseError, "s.json: $", "missing required key 'format'" });
    expectError([](Json& j) { j["format"] = 3; },
        { ErrorCode::ParseError, "s.json: $.format", "expected a string, got number" });
    expectError([](Json& j) { j["format"] = "torchair"; },
        { ErrorCode::InvalidArgument, "s.json: $.format",
            "expected \"aclgraph-inspector-scenario\", got \"torchair\"" });
    expectError(
        [](Json& j) { j.erase("version"); }, { ErrorCode::ParseError, "s.json: $", "missing required key 'version'" });
    expectError([](Json& j) { j["version"] = "1"; },
        { ErrorCode::ParseError, "s.json: $.version", "expected an integer, got string" });
    expectError([](Json& j) { j["version"] = 1.5; },
        { ErrorCode::ParseError, "s.json: $.version", "expected an integer, got number 1.5" });
    expectError(
        [](Json& j) {
            j["version"] = 2;
            j["brand_new_key"] = 1;
        },
        { ErrorCode::InvalidArgument, "s.json: $.version", "written by a newer version" });
    expectError([](Json& j) { j["version"] = 0; },
        { ErrorCode::InvalidArgument, "s.json: $.version", "unsupported version 0" });
    expectError([](Json& j) { j["grpahs"] = Json::array(); },
        { ErrorCode::ParseError, "s.json: $.grpahs", "unknown key 'grpahs' (expected one of: format, version, name" });
    expectError([](Json& j) { j["name"] = false; },
        { ErrorCode::ParseError, "s.json: $.name", "expected a string, got boolean" });
    expectError([](Json& j) { j["backend"] = "ge"; },
        { ErrorCode::InvalidArgument, "s.json: $.backend",
            "unknown backend 'ge' (expected \"torchair\" or \"npugraph_ex\")" });
    expectError(
        [](Json& j) { j.erase("graphs"); }, { ErrorCode::ParseError, "s.json: $", "missing required key 'graphs'" });
    expectError([](Json& j) { j["graphs"] = Json::object(); },
        { ErrorCode::ParseError, "s.json: $.graphs", "expected an array, got object" });
    expectError(
        [](Json& j) { j["calls"] = 1; }, { ErrorCode::ParseError, "s.json: $.calls", "expected an array, got number" });

    // Underscore keys and comments are accepted anywhere.
    Json j = base();
    j["_generator"] = "by hand";
    j["comment"] = "why";
    j["graphs"][0]["_x"] = Json::object();
    j["graphs"][0]["nodes"][0]["comment"] = "c";
    j["calls"][0]["note"] = "first";
    auto r = parseJson(j);
    ASSERT_TRUE(r.ok()) << r.error().toString();
    EXPECT_EQ(r->comment, "why");
    EXPECT_EQ(r->calls[0].note, "first");
    j["backend"] = "npugraph_ex";
    EXPECT_EQ(*parseJson(j)->backend, config::Backend::NpugraphEx);
}

TEST(ScenarioReader, Config)
{
    Json j = base();
    j["config"] = Json::parse(R"({"b": true, "i": -3, "f": 0.5, "s": "text", "n": null, "l": [1, [2, "x"]],
        "use_graph_pool": [0, 2], "npugraph_ex.use_custom_pool": [1, 1]})");
    auto r = parseJson(j);
    ASSERT_TRUE(r.ok()) << r.error().toString();
    const auto& c = r->config;
    ASSERT_EQ(c.size(), 8u);
    EXPECT_EQ(c[0].second.kind, PyValue::Kind::Bool);
    EXPECT_EQ(c[1].second.i, -3);
    EXPECT_EQ(c[2].second.kind, PyValue::Kind::Float);
    EXPECT_EQ(c[3].second.s, "text");
    EXPECT_EQ(c[4].second.kind, PyValue::Kind::None);
    EXPECT_EQ(c[5].second.kind, PyValue::Kind::List);
    EXPECT_EQ(c[5].second.items[1].kind, PyValue::Kind::List);
    EXPECT_EQ(c[6].second.kind, PyValue::Kind::Tuple);
    EXPECT_EQ(c[7].second.kind, PyValue::Kind::Tuple);

    expectError([](Json& j) { j["config"] = Json::array(); },
        { ErrorCode::ParseError, "s.json: $.config", "expected an object, got array" });
    expectError([](Json& j) { j["config"]["debug.aclgraph.x"] = Json::object(); },
        { ErrorCode::ParseError, "s.json: $.config[\"debug.aclgraph.x\"]",
            "expected true, false, a number, a string, null or an array, got object" });
    expectError(
        [](Json& j) {
            j["config"]["capture_limit"] = Json::array({ 1, 18446744073709551615ull });
        },
        { ErrorCode::InvalidArgument, "s.json: $.config.capture_limit[1]", "too large" });
}

TEST(ScenarioReader, Device)
{
    auto capacity = [](const Json& value) {
        Json j = base();
        j["device"]["capacity"] = value;
        auto r = parseJson(j);
        EXPECT_TRUE(r.ok()) << value.dump() << ": " << r.error().toString();
        return r.ok() ? r->device.capacityBytes : 0;
    };
    EXPECT_EQ(capacity("64GiB"), 64ull << 30);
    EXPECT_EQ(capacity("1.5 GiB"), 3ull << 29);
    EXPECT_EQ(capacity("64GB"), 64000000000ull);
    EXPECT_EQ(capacity("12 MiB"), 12ull << 20);
    EXPECT_EQ(capacity("512KB"), 512000ull);
    EXPECT_EQ(capacity("2kib"), 2048ull);
    EXPECT_EQ(capacity("4096"), 4096ull);
    EXPECT_EQ(capacity("100 B"), 100ull);
    EXPECT_EQ(capacity(1024), 1024ull);

    Json j = base();
    j["device"] = Json::parse(R"({"profile": "cuda", "capacity_bytes": 1000, "l2": "48MiB", "cube_cores": 20,
        "vector_cores": 40, "copy_gbps": 1.5})");
    auto r = parseJson(j);
    ASSERT_TRUE(r.ok()) << r.error().toString();
    EXPECT_EQ(r->device.profile, memory::Profile::Cuda);
    EXPECT_EQ(r->device.capacityBytes, 1000u);
    EXPECT_EQ(r->device.l2Bytes, 48ull << 20);
    EXPECT_EQ(r->device.cubeCores, 20);
    EXPECT_DOUBLE_EQ(r->device.copyBytesPerSecond, 1.5e9);

    expectError([](Json& j) { j["device"]["profile"] = "tpu"; },
        { ErrorCode::InvalidArgument, "s.json: $.device.profile", "unknown profile 'tpu'" });
    expectError([](Json& j) { j["device"]["capacity"] = "64 GiG"; },
        { ErrorCode::InvalidArgument, "s.json: $.device.capacity", "expected a size such as \"64GiB\"" });
    expectError([](Json& j) { j["device"]["capacity"] = "GiB"; },
        { ErrorCode::InvalidArgument, "s.json: $.device.capacity", "expected a size such as" });
    expectError([](Json& j) { j["device"]["capacity"] = "1.0000001KiB"; },
        { ErrorCode::InvalidArgument, "s.json: $.device.capacity", "not a whole number of bytes" });
    expectError([](Json& j) { j["device"]["capacity"] = "0GiB"; },
        { ErrorCode::InvalidArgument, "s.json: $.device.capacity", "out of range" });
    expectError([](Json& j) { j["device"]["capacity"] = "99999999999TiB"; },
        { ErrorCode::InvalidArgument, "s.json: $.device.capacity", "out of range" });
    expectError(
        [](Json& j) {
            j["device"]["capacity"] = "1GiB";
            j["device"]["capacity_bytes"] = 5;
        },
        { ErrorCode::InvalidArgument, "s.json: $.device.capacity",
            "give either 'capacity_bytes' or 'capacity', not both" });
    expectError([](Json& j) { j["device"]["capacity_bytes"] = "1GiB"; },
        { ErrorCode::ParseError, "s.json: $.device.capacity_bytes", "expected an integer, got string" });
    expectError([](Json& j) { j["device"]["cube_cores"] = 0; },
        { ErrorCode::InvalidArgument, "s.json: $.device.cube_cores", "expected an integer >= 1, got 0" });
    expectError([](Json& j) { j["device"]["copy_gbps"] = -1; },
        { ErrorCode::InvalidArgument, "s.json: $.device.copy_gbps", "expected a positive number of GB/s" });
    expectError([](Json& j) { j["device"]["hbm"] = 1; },
        { ErrorCode::ParseError, "s.json: $.device.hbm", "unknown key 'hbm'" });
}

TEST(ScenarioReader, GraphErrors)
{
    expectError([](Json& j) { j["graphs"][0] = 1; },
        { ErrorCode::ParseError, "s.json: $.graphs[0]", "expected an object, got number" });
    expectError([](Json& j) { j["graphs"][0].erase("id"); },
        { ErrorCode::ParseError, "s.json: $.graphs[0]", "missing required key 'id'" });
    expectError([](Json& j) { j["graphs"][0]["id"] = ""; },
        { ErrorCode::InvalidArgument, "s.json: $.graphs[0].id", "expected a non-empty string" });
    expectError([](Json& j) { j["graphs"][1]["id"] = "g"; },
        { ErrorCode::InvalidArgument, "s.json: $.graphs[1].id", "graph id 'g' is already used by $.graphs[0]" });
    expectError([](Json& j) { j["graphs"][0]["dynamic"] = "yes"; },
        { ErrorCode::ParseError, "s.json: $.graphs[0].dynamic", "expected true or false, got string" });
    expectError([](Json& j) { j["graphs"][0]["input"] = Json::array(); },
        { ErrorCode::ParseError, "s.json: $.graphs[0].input", "unknown key 'input'" });
    expectError([](Json& j) { j["graphs"][0].erase("outputs"); },
        { ErrorCode::ParseError, "s.json: $.graphs[0]", "missing required key 'outputs'" });
    expectError([](Json& j) { j["graphs"][0]["inputs"] = "w"; },
        { ErrorCode::ParseError, "s.json: $.graphs[0].inputs", "expected an array, got string" });
}

TEST(ScenarioReader, InputErrors)
{
    const std::string in = "s.json: $.graphs[0].inputs";
    expectError([](Json& j) { j["graphs"][0]["inputs"][0].erase("kind"); },
        { ErrorCode::ParseError, in + "[0]", "missing required key 'kind'" });
    expectError([](Json& j) { j["graphs"][0]["inputs"][0]["kind"] = "weight"; },
        { ErrorCode::InvalidArgument, in + "[0].kind", "unknown input kind 'weight'" });
    expectError([](Json& j) { j["graphs"][0]["inputs"][0].erase("shape"); },
        { ErrorCode::ParseError, in + "[0]", "missing required key 'shape'" });
    expectError([](Json& j) { j["graphs"][0]["inputs"][0].erase("dtype"); },
        { ErrorCode::ParseError, in + "[0]", "missing required key 'dtype'" });
    expectError([](Json& j) { j["graphs"][0]["inputs"][0]["dtype"] = "f8e4m3fnuz"; },
        { ErrorCode::ParseError, in + "[0].dtype", "unknown dtype 'f8e4m3fnuz'" });
    expectError([](Json& j) { j["graphs"][0]["inputs"][0]["shape"][1] = true; },
        { ErrorCode::ParseError, in + "[0].shape[1]", "expected an integer or a size expression string, got boolean" });
    expectError([](Json& j) { j["graphs"][0]["inputs"][0]["shape"][1] = -8; },
        { ErrorCode::InvalidArgument, in + "[0].shape[1]", "expected an integer >= 0, got -8" });
    expectError([](Json& j) { j["graphs"][0]["inputs"][0]["shape"][1] = "0 - 8"; },
        { ErrorCode::InvalidArgument, in + "[0].shape[1]", "size '0 - 8' is negative" });
    expectError([](Json& j) { j["graphs"][0]["inputs"][0]["shape"][1] = "s0 +* 2"; },
        { ErrorCode::ParseError, in + "[0].shape[1]",
            "invalid size expression 's0 +* 2': unexpected '*' at position 5" });
    expectError([](Json& j) { j["graphs"][0]["inputs"][0]["stride"] = { 1 }; },
        { ErrorCode::InvalidArgument, in + "[0].stride", "stride has 1 entries but shape has 2" });
    expectError([](Json& j) { j["graphs"][0]["inputs"][0]["shape"][0] = 9223372036854775807ll; },
        { ErrorCode::InvalidArgument, in + "[0]", "tensor storage size does not fit in 64 bits" });
    expectError([](Json& j) { j["graphs"][0]["inputs"][0]["storage_offset"] = -1; },
        { ErrorCode::InvalidArgument, in + "[0].storage_offset", "expected an integer >= 0, got -1" });
    expectError([](Json& j) { j["graphs"][0]["inputs"][0]["device"] = ""; },
        { ErrorCode::InvalidArgument, in + "[0].device", "expected a non-empty string" });
    expectError([](Json& j) { j["graphs"][0]["inputs"][0]["symbol"] = "s1"; },
        { ErrorCode::ParseError, in + "[0].symbol", "unknown key 'symbol'" });
    expectError([](Json& j) { j["graphs"][0]["inputs"][1].erase("symbol"); },
        { ErrorCode::ParseError, in + "[1]", "missing required key 'symbol'" });
    expectError([](Json& j) { j["graphs"][0]["inputs"][1]["symbol"] = 4; },
        { ErrorCode::ParseError, in + "[1].symbol", "expected a string (a symbol such as \"s0\"), got number" });
    expectError([](Json& j) { j["graphs"][0]["inputs"][1]["shape"] = Json::array(); },
        { ErrorCode::ParseError, in + "[1].shape", "unknown key 'shape'" });
    expectError([](Json& j) { j["graphs"][0]["inputs"][2]["name"] = "w"; },
        { ErrorCode::InvalidArgument, in + "[2]", "name 'w' is already used at $.graphs[0].inputs[0]" });
    expectError([](Json& j) { j["graphs"][0]["inputs"][2]["name"] = "output"; },
        { ErrorCode::InvalidArgument, in + "[2]", "the name 'output' is reserved" });
}

TEST(ScenarioReader, SymbolsInAStaticGraph)
{
    expectError([](Json& j) { j["graphs"][1]["inputs"][0]["shape"][0] = "2*s3"; },
        { ErrorCode::InvalidArgument, "s.json: $.graphs[1].inputs[0].shape[0]",
            "symbolic size 's3' in a graph compiled with dynamic=False" });
    expectError([](Json& j) { j["graphs"][0].erase("dynamic"); },
        { ErrorCode::InvalidArgument, "s.json: $.graphs[0].inputs[2].shape[0]",
            "symbolic size 's0' in a graph compiled with dynamic=False" });
    expectError([](Json& j) { j["graphs"][1]["nodes"][0]["meta"]["stride"] = { "u0" }; },
        { ErrorCode::InvalidArgument, "s.json: $.graphs[1].nodes[0].meta.stride[0]",
            "symbolic size 'u0' in a graph compiled with dynamic=False" });
    // Constant expressions are fine in a static graph.
    Json j = base();
    j["graphs"][1]["inputs"][0]["shape"][0] = "2*2";
    j["graphs"][1]["nodes"][0]["workspace_bytes"] = 4096;
    auto r = parseJson(j);
    ASSERT_TRUE(r.ok()) << r.error().toString();
    EXPECT_EQ(r->graphs[1].nodes[0].outputs[0].shape[0].constantValue(), 4);
    EXPECT_EQ(r->graphs[1].nodes[1].workspaceBytes.constantValue(), 4096);

    // Only sizes are restricted: a SymInt input (a KV length fed to an attention op) and a workspace
    // that depends on it are allowed, and calls must then give the symbol.
    j = base();
    j["graphs"][1]["inputs"].push_back({ { "name", "kv_len" }, { "kind", "symint" }, { "symbol", "s1" } });
    j["graphs"][1]["nodes"][0]["workspace_bytes"] = "s1*64";
    expectError(parseJson(j),
        { ErrorCode::InvalidArgument, "s.json: $.calls[1]", "no value for symbol 's1', which graph 's' uses" });
    j["calls"][1]["symbols"] = { { "s1", 7 } };
    r = parseJson(j);
    ASSERT_TRUE(r.ok()) << r.error().toString();
    EXPECT_EQ(r->graphs[1].nodes[2].workspaceBytes.eval(r->calls[1].symbols).value(), 448);
}

TEST(ScenarioReader, InputStorageIsTheDefaultBinding)
{
    Json j = base();
    j["graphs"][0]["inputs"][0]["storage"] = "model.w";
    j["graphs"][1]["inputs"][0]["storage"] = "shared";
    j["calls"][2]["inputs"]["w"] = "other";
    auto r = parseJson(j);
    ASSERT_TRUE(r.ok()) << r.error().toString();
    // The default lives on the placeholder; calls carry only the bindings they give.
    EXPECT_EQ(r->graphs[0].nodes[size_t(r->graphs[0].find("w"))].storage, "model.w");
    EXPECT_EQ(r->graphs[1].nodes[size_t(r->graphs[1].find("y"))].storage, "shared");
    EXPECT_EQ(r->graphs[0].nodes[size_t(r->graphs[0].find("x"))].storage, "");
    EXPECT_EQ(r->calls[0].inputs.count("w"), 0u);
    EXPECT_EQ(r->calls[3].inputs.at("w").name, "other"); // a call's own binding
    EXPECT_EQ(r->calls[3].inputs.at("x").kind, Binding::Kind::New);

    expectError([](Json& j) { j["graphs"][0]["inputs"][0]["storage"] = ""; },
        { ErrorCode::InvalidArgument, "s.json: $.graphs[0].inputs[0].storage", "expected a non-empty string" });
    expectError([](Json& j) { j["graphs"][0]["inputs"][1]["storage"] = "s"; },
        { ErrorCode::ParseError, "s.json: $.graphs[0].inputs[1].storage", "unknown key 'storage'" });
}

TEST(ScenarioReader, NodeErrors)
{
    const std::string nd = "s.json: $.graphs[0].nodes";
    expectError([](Json& j) { j["graphs"][0]["nodes"][0].erase("target"); },
        { ErrorCode::ParseError, nd + "[0]", "missing required key 'target'" });
    expectError([](Json& j) { j["graphs"][0]["nodes"][0]["target"] = 7; },
        { ErrorCode::ParseError, nd + "[0].target", "expected a string, got number" });
    expectError([](Json& j) { j["graphs"][0]["nodes"][0]["tagret"] = "x"; },
        { ErrorCode::ParseError, nd + "[0].tagret", "unknown key 'tagret' (expected one of: name, target, op" });
    expectError([](Json& j) { j["graphs"][0]["nodes"][0]["op"] = "placeholder"; },
        { ErrorCode::InvalidArgument, nd + "[0].op", "placeholders are listed in the graph's \"inputs\"" });
    expectError([](Json& j) { j["graphs"][0]["nodes"][0]["op"] = "output"; },
        { ErrorCode::InvalidArgument, nd + "[0].op", "the output node is built from the graph's \"outputs\"" });
    expectError([](Json& j) { j["graphs"][0]["nodes"][0]["op"] = "call_module"; },
        { ErrorCode::InvalidArgument, nd + "[0].op", "unknown op 'call_module'" });
    expectError([](Json& j) { j["graphs"][0]["nodes"][0]["args"][1] = "W"; },
        { ErrorCode::InvalidArgument, nd + "[0].args[1]",
            "unknown node or input 'W' (a string argument names a node; write {\"str\": \"W\"}" });
    expectError(
        [](Json& j) {
            j["graphs"][0]["nodes"][0]["args"][1] = { 1, { "size" } };
        },
        { ErrorCode::InvalidArgument, nd + "[0].args[1][1][0]",
            "'size' is defined after node 'mm'; arguments may only refer to inputs and earlier nodes" });
    expectError(
        [](Json& j) {
            j["graphs"][0]["nodes"][0]["kwargs"] = { { "out", "mm" } };
        },
        { ErrorCode::InvalidArgument, nd + "[0].kwargs.out", "node 'mm' refers to itself" });
    expectError([](Json& j) { j["graphs"][0]["nodes"][0]["kwargs"] = Json::array(); },
        { ErrorCode::ParseError, nd + "[0].kwargs", "expected an object, got array" });
    expectError([](Json& j) { j["graphs"][0]["nodes"][0]["args"] = "x"; },
        { ErrorCode::ParseError, nd + "[0].args", "expected an array, got string" });
    expectError(
        [](Json& j) {
            j["graphs"][0]["nodes"][0]["args"][1] = { { "str", 1 } };
        },
        { ErrorCode::ParseError, nd + "[0].args[1].str", "expected a string, got number" });
    expectError(
        [](Json& j) {
            j["graphs"][0]["nodes"][0]["args"][1] = { { "dtype", "f32" } };
        },
        { ErrorCode::ParseError, nd + "[0].args[1]", "expected {\"str\": \"...\"}" });
    expectError([](Json& j) { j["graphs"][0]["nodes"][0]["args"][1] = 18446744073709551615ull; },
        { ErrorCode::InvalidArgument, nd + "[0].args[1]", "too large" });
    expectError([](Json& j) { j["graphs"][0]["nodes"][0]["meta"] = "f32[4]"; },
        { ErrorCode::ParseError, nd + "[0].meta", "expected an object, a list of objects or null, got string" });
    expectError([](Json& j) { j["graphs"][0]["nodes"][0]["meta"] = { nullptr }; },
        { ErrorCode::ParseError, nd + "[0].meta[0]", "expected an object, got null" });
    expectError([](Json& j) { j["graphs"][0]["nodes"][0]["meta"]["dtype"] = "float4"; },
        { ErrorCode::ParseError, nd + "[0].meta.dtype", "unknown dtype 'float4'" });
    expectError([](Json& j) { j["graphs"][0]["nodes"][0]["meta"]["name"] = "x"; },
        { ErrorCode::ParseError, nd + "[0].meta.name", "unknown key 'name'" });
    expectError([](Json& j) { j["graphs"][0]["nodes"][0]["workspace_bytes"] = -1; },
        { ErrorCode::InvalidArgument, nd + "[0].workspace_bytes", "expected an integer >= 0" });
    expectError([](Json& j) { j["graphs"][0]["nodes"][1]["name"] = "x"; },
        { ErrorCode::InvalidArgument, nd + "[1]", "name 'x' is already used at $.graphs[0].inputs[2]" });
    expectError([](Json& j) { j["graphs"][0]["nodes"][1]["name"] = ""; },
        { ErrorCode::InvalidArgument, nd + "[1].name", "expected a non-empty string" });
}

TEST(ScenarioReader, OutputErrors)
{
    expectError([](Json& j) { j["graphs"][0]["outputs"][0] = "nope"; },
        { ErrorCode::InvalidArgument, "s.json: $.graphs[0].outputs[0]", "unknown node or input 'nope'" });
    expectError([](Json& j) { j["graphs"][0]["outputs"][0] = 1; },
        { ErrorCode::ParseError, "s.json: $.graphs[0].outputs[0]", "expected a string, got number" });
    expectError([](Json& j) { j["graphs"][0]["outputs"] = "mm"; },
        { ErrorCode::ParseError, "s.json: $.graphs[0].outputs", "expected an array, got string" });
    Json j = base();
    j["graphs"][0]["outputs"] = { "x", "n", "w" }; // inputs may be returned directly
    EXPECT_TRUE(parseJson(j).ok());
}

TEST(ScenarioReader, CallErrors)
{
    const std::string c = "s.json: $.calls";
    expectError([](Json& j) { j["calls"][0]["graph"] = "G"; },
        { ErrorCode::InvalidArgument, c + "[0].graph", "unknown graph 'G' (graphs: g, s)" });
    expectError([](Json& j) { j["calls"][0].erase("graph"); },
        { ErrorCode::ParseError, c + "[0]", "missing required key 'graph'" });
    expectError([](Json& j) { j["calls"][0]["repaet"] = 2; },
        { ErrorCode::ParseError, c + "[0].repaet", "unknown key 'repaet'" });
    expectError([](Json& j) { j["calls"][0].erase("symbols"); },
        { ErrorCode::InvalidArgument, c + "[0]", "no value for symbol 's0', which graph 'g' uses" });
    expectError([](Json& j) { j["calls"][0]["symbols"] = Json::object(); },
        { ErrorCode::InvalidArgument, c + "[0].symbols", "no value for symbol 's0', which graph 'g' uses" });
    expectError([](Json& j) { j["calls"][0]["symbols"]["s1"] = 3; },
        { ErrorCode::InvalidArgument, c + "[0].symbols.s1", "graph 'g' has no symbol 's1' (its symbols: s0)" });
    expectError([](Json& j) { j["calls"][1]["symbols"]["s0"] = 3; },
        { ErrorCode::InvalidArgument, c + "[1].symbols.s0", "graph 's' has no symbol 's0' (it is static)" });
    expectError([](Json& j) { j["calls"][0]["symbols"]["s0"] = -1; },
        { ErrorCode::InvalidArgument, c + "[0].symbols.s0", "expected an integer >= 0, got -1" });
    expectError([](Json& j) { j["calls"][0]["symbols"]["s0"] = 2.5; },
        { ErrorCode::ParseError, c + "[0].symbols.s0", "expected an integer, got number 2.5" });
    expectError([](Json& j) { j["graphs"][0]["nodes"][0]["meta"]["shape"][0] = "s0 - 3"; },
        { ErrorCode::InvalidArgument, c + "[0].symbols", "'mm' in graph 'g': size 's0 - 3' is negative (-1)" });
    expectError([](Json& j) { j["graphs"][0]["nodes"][0]["workspace_bytes"] = "1024//(s0 - 2)"; },
        { ErrorCode::InvalidArgument, c + "[0].symbols",
            "'mm' in graph 'g': cannot evaluate '1024//(s0 - 2)': division by zero" });
    // 0 and 1 are valid symbol values.
    Json ok = base();
    ok["calls"][0]["symbols"]["s0"] = 0;
    ok["calls"][2]["symbols"]["s0"] = 1;
    EXPECT_TRUE(parseJson(ok).ok());

    expectError([](Json& j) { j["calls"][2]["inputs"]["mm"] = "new"; },
        { ErrorCode::InvalidArgument, c + "[2].inputs.mm", "graph 'g' has no input 'mm'" });
    expectError([](Json& j) { j["calls"][2]["inputs"]["n"] = "new"; },
        { ErrorCode::InvalidArgument, c + "[2].inputs.n",
            "'n' is a symint input; give its symbol's value in \"symbols\"" });
    expectError([](Json& j) { j["calls"][2]["inputs"]["x"] = ""; },
        { ErrorCode::InvalidArgument, c + "[2].inputs.x", "expected \"new\", \"default\" or a storage name" });
    expectError([](Json& j) { j["calls"][2]["inputs"]["x"] = 3; },
        { ErrorCode::ParseError, c + "[2].inputs.x", "expected \"new\", a storage name or {\"output_of\"" });
    expectError([](Json& j) { j["calls"][2]["inputs"] = Json::array(); },
        { ErrorCode::ParseError, c + "[2].inputs", "expected an object, got array" });
    expectError([](Json& j) { j["calls"][0]["keep_outputs"] = -1; },
        { ErrorCode::InvalidArgument, c + "[0].keep_outputs", "expected an integer >= 0, got -1" });
    expectError([](Json& j) { j["calls"][0]["keep_outputs"] = "forever"; },
        { ErrorCode::ParseError, c + "[0].keep_outputs", "expected an integer >= 0 or \"all\", got string" });
    expectError(
        [](Json& j) {
            j["calls"][0]["core_limit"] = { { "cube", 25 }, { "vector", 1 } };
        },
        { ErrorCode::InvalidArgument, c + "[0].core_limit.cube", "the device has 24 cube cores, got 25" });
    expectError(
        [](Json& j) {
            j["calls"][0]["core_limit"] = { { "cube", 2 } };
        },
        { ErrorCode::ParseError, c + "[0].core_limit", "missing required key 'vector'" });
    expectError(
        [](Json& j) {
            j["calls"][0]["core_limit"] = { { "cube", 2 }, { "vector", 49 } };
        },
        { ErrorCode::InvalidArgument, c + "[0].core_limit.vector", "the device has 48 vector cores, got 49" });
    expectError([](Json& j) { j["calls"][1]["repeat"] = 0; },
        { ErrorCode::InvalidArgument, c + "[1].repeat", "expected an integer >= 1, got 0" });
    expectError([](Json& j) { j["calls"][1]["repeat"] = 1000000000000; },
        { ErrorCode::InvalidArgument, c + "[1].repeat",
            "too many calls: a scenario may expand to at most 100000 calls" });
    expectError([](Json& j) { j["calls"][0]["note"] = 1; },
        { ErrorCode::ParseError, c + "[0].note", "expected a string, got number" });
}

TEST(ScenarioReader, OutputOf)
{
    const std::string c = "s.json: $.calls";
    auto bind = [](Json value) { return [value](Json& j) { j["calls"][2]["inputs"]["x"] = value; }; };
    // Calls after expansion: 0 (g), 1 and 2 (s, repeated), 3 (g).
    Json j = base();
    j["calls"][2]["inputs"]["x"] = { { "output_of", 0 } };
    j["calls"][2]["inputs"]["w"] = { { "output_of", 2 }, { "index", 0 } };
    auto r = parseJson(j);
    ASSERT_TRUE(r.ok()) << r.error().toString();
    EXPECT_EQ(r->calls[3].inputs.at("x").call, 0);
    EXPECT_EQ(r->calls[3].inputs.at("w").call, 2);

    expectError(bind({ { "output_of", 3 } }),
        { ErrorCode::InvalidArgument, c + "[2].inputs.x.output_of",
            "call 3 is not earlier than this call (call 3, counting from 0 after repeats are expanded)" });
    expectError(bind({ { "output_of", 9 } }),
        { ErrorCode::InvalidArgument, c + "[2].inputs.x.output_of", "call 9 is not earlier" });
    expectError(bind({ { "output_of", -1 } }),
        { ErrorCode::InvalidArgument, c + "[2].inputs.x.output_of", "expected an integer >= 0, got -1" });
    expectError(
        bind({ { "index", 0 } }), { ErrorCode::ParseError, c + "[2].inputs.x", "missing required key 'output_of'" });
    expectError(bind({ { "output_of", 0 }, { "idx", 0 } }),
        { ErrorCode::ParseError, c + "[2].inputs.x.idx", "unknown key 'idx'" });
    expectError(bind({ { "output_of", 0 }, { "index", 3 } }),
        { ErrorCode::InvalidArgument, c + "[2].inputs.x.index",
            "call 0 (graph 'g') returns 3 outputs; there is no output 3" });
    expectError(bind({ { "output_of", 0 }, { "index", 1 } }),
        { ErrorCode::InvalidArgument, c + "[2].inputs.x.index", "output 1 of call 0 (graph 'g') is not a tensor" });
    expectError(bind({ { "output_of", 0 }, { "index", 2 } }),
        { ErrorCode::InvalidArgument, c + "[2].inputs.x.index", "output 2 of call 0 (graph 'g') is not a tensor" });
    // A repeated call may only use calls before its first copy.
    expectError(
        [](Json& j) {
            j["calls"][1]["inputs"]["y"] = { { "output_of", 1 } };
        },
        { ErrorCode::InvalidArgument, c + "[1].inputs.y.output_of", "call 1 is not earlier than this call (call 1" });
}

TEST(ScenarioReader, FileErrors)
{
    auto missing = readScenarioFile(kDataDir + "/scenarios/does_not_exist.json");
    expectError(missing, { ErrorCode::Io, kDataDir + "/scenarios/does_not_exist.json", "cannot open scenario file" });
    expectError(
        readScenarioFile(kDataDir + "/scenarios"), { ErrorCode::Io, kDataDir + "/scenarios", "it is a directory" });

    // A sparse file just over the limit: refused from its size, never read.
    std::string big = (std::filesystem::temp_directory_path() / "aclgi_scenario_too_big.json").string();
    {
        std::ofstream out(big, std::ios::binary);
        out << "{}";
    }
    std::filesystem::resize_file(big, (256ull << 20) + 1);
    expectError(readScenarioFile(big), { ErrorCode::InvalidArgument, big, "the limit is 256 MiB" });
    std::filesystem::remove(big);
}

TEST(ScenarioReader, ReadsGeneratedDecoders)
{
    for (bool dynamic : { true, false }) {
        DecoderSpec spec;
        spec.dynamicDecode = dynamic;
        auto r = parseScenario(decoderScenarioJson(spec, "{}", { 1, 4 }, 3), "gen.json");
        ASSERT_TRUE(r.ok()) << r.error().toString();
        ASSERT_EQ(r->calls.size(), 4u);
        const Graph* decode = r->graph("decode");
        ASSERT_NE(decode, nullptr);
        EXPECT_EQ(decode->dynamic, dynamic);
        auto mutated = decode->mutatedInputs();
        EXPECT_NE(std::find(mutated.begin(), mutated.end(), "l0_k_cache"), mutated.end());
        EXPECT_EQ(decode->nodes[size_t(decode->find("l0_k_cache"))].storage, "kv_cache.layer0.k");
    }
}
