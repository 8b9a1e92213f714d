// graph_store (storage/graph_store.h): every graph the engine reads from tests/data, a generated
// decoder and a hand-built graph with every kind of argument and field survive writing and reading
// exactly (node fields and FX code), listGraphs, cancelling a write, and damaged rows.
#include "engine/passes/pass_util.h"
#include "engine/readers/debug_dir.h"
#include "engine/readers/fx_code_writer.h"
#include "engine/readers/fx_reader.h"
#include "engine/scenario/decoder_generator.h"
#include "engine/scenario/scenario.h"
#include "storage/graph_store.h"
#include "store_test_util.h"

#include <chrono>
#include <filesystem>
#include <limits>

namespace {

namespace fs = std::filesystem;
using namespace engine;
using namespace storage;
using engine::passes::detail::boolArg;
using engine::passes::detail::strArg;
using storetest::expectSameGraph;

const std::string kData = ACLGI_TEST_DATA_DIR;

class GraphStore : public storetest::StoreTest {
protected:
    int64_t write(const Graph& g, GraphPlace place = {})
    {
        if (place.sourceId == 0)
            place.sourceId = m_source;
        WriteContext ctx(db());
        auto id = writeGraph(ctx, g, place);
        EXPECT_TRUE(id.ok()) << id.error().toString();
        return id.ok() ? *id : 0;
    }
    Graph read(int64_t id)
    {
        auto g = readGraph(db(), id);
        EXPECT_TRUE(g.ok()) << g.error().toString();
        return g.ok() ? std::move(*g) : Graph {};
    }
    /// Writes, reads, writes the result again and reads that: every step gives the same graph and
    /// the same FX code.
    void expectRoundTrip(const Graph& g)
    {
        SCOPED_TRACE(g.id);
        const Graph once = read(write(g));
        expectSameGraph(g, once);
        EXPECT_EQ(readers::writeFxCode(g), readers::writeFxCode(once));
        const Graph twice = read(write(once));
        expectSameGraph(once, twice);
        EXPECT_EQ(readers::writeFxCode(once), readers::writeFxCode(twice));
    }
};

GraphPlace placeIn(int64_t source)
{
    GraphPlace p;
    p.sourceId = source;
    return p;
}

Graph finalized(Graph g)
{
    auto r = g.finalize();
    EXPECT_TRUE(r.ok()) << r.error().toString();
    return g;
}

SymExpr sym(const std::string& text)
{
    auto e = SymExpr::parse(text);
    EXPECT_TRUE(e.ok()) << text;
    return e.ok() ? *e : SymExpr();
}

TensorMeta tensor(std::vector<std::string> shape, std::vector<std::string> stride = {}, DType dtype = DType::F32,
    std::string device = "npu:0", int64_t offset = 0)
{
    TensorMeta t;
    for (const auto& s : shape)
        t.shape.push_back(sym(s));
    for (const auto& s : stride)
        t.stride.push_back(sym(s));
    t.dtype = dtype;
    t.device = std::move(device);
    t.storageOffset = offset;
    return t;
}

Arg flt(double v)
{
    Arg a;
    a.kind = Arg::Kind::Float;
    a.f = v;
    return a;
}
Node placeholder(std::string name, InputKind kind, std::vector<TensorMeta> outputs)
{
    Node n;
    n.name = std::move(name);
    n.op = NodeOp::Placeholder;
    n.inputKind = kind;
    n.outputs = std::move(outputs);
    return n;
}

/// One of everything: every input kind, every argument kind (nested lists with references, extreme
/// numbers, quotes and unicode), kwargs, symbolic sizes with strides and offsets, a CPU tensor, a
/// multi-output op, workspace, provenance, storage, freedAfter and recorded mutated inputs.
Graph everything()
{
    Graph g;
    g.id = "everything";
    g.comment = "a comment with 'quotes' and \"more\" – ünïcode";
    g.dynamic = true;
    g.recordedMutatedInputs = std::vector<std::string> { "cache", "x" };
    g.nodes.push_back(placeholder("w", InputKind::Parameter, { tensor({ "4", "8" }, { "8", "1" }, DType::BF16) }));
    g.nodes.back().storage = "weights.w";
    g.nodes.push_back(placeholder("b", InputKind::Buffer, { tensor({ "8" }, {}, DType::F16) }));
    g.nodes.push_back(placeholder("st", InputKind::StaticAddress, { tensor({ "2" }, {}, DType::I64, "cpu") }));
    g.nodes.push_back(placeholder("s0", InputKind::SymInt, {}));
    g.nodes.back().symbol = sym("s0");
    g.nodes.push_back(
        placeholder("x", InputKind::UserInput, { tensor({ "s0", "4" }, { "4", "1" }, DType::F32, "npu:0", 16) }));
    g.nodes.push_back(
        placeholder("cache", InputKind::UserInput, { tensor({ "2*s0 + 1", "8" }, { "8", "1" }, DType::BF16) }));

    Node mm;
    mm.name = "mm";
    mm.target = "aten.mm.default";
    mm.args = { Arg::ref("x"), Arg::ref("w") };
    mm.outputs = { tensor({ "s0", "8" }, { "8", "1" }) };
    mm.provenance = "# File: /home/user/model.py:12 in forward, code: y = x @ w";
    mm.workspaceBytes = sym("4096");
    g.nodes.push_back(mm);

    Node odd;
    odd.name = "odd";
    odd.target = "custom.odd.default";
    odd.args = { Arg(), Arg::integer(-7), Arg::integer(std::numeric_limits<int64_t>::min()),
        Arg::integer(std::numeric_limits<int64_t>::max()), flt(0.1), flt(1e-300), flt(-0.0),
        flt(std::numeric_limits<double>::infinity()), flt(-std::numeric_limits<double>::infinity()), flt(std::nan("")),
        flt(1e16), flt(5e-324), boolArg(true), boolArg(false), strArg(""), strArg("it's \"quoted\" \\ back\nslash"),
        strArg("ünïcode ✓ 𝔘"), strArg("[1, 2]"),
        Arg::list({ Arg::ref("mm"), Arg::list({ Arg::integer(-1), flt(2.5), Arg(), Arg::list({ Arg::ref("b") }) }),
            strArg("a\"b"), boolArg(true), flt(std::numeric_limits<double>::infinity()), flt(1e-5), Arg::list({}) }),
        Arg::list({}) };
    odd.kwargs = { { "dim", Arg::integer(1) }, { "alpha", flt(0.5) }, { "out", Arg::ref("cache") },
        { "names", Arg::list({ strArg("x"), strArg("y'z") }) }, { "none", Arg() } };
    odd.outputs = { tensor({ "s0", "8" }, {}, DType::F32),
        tensor({ "(s0//2)", "Max(1, s0)" }, { "8", "1" }, DType::I32), tensor({ "0" }, {}, DType::Unknown) };
    odd.workspaceBytes = sym("s0*1024");
    g.nodes.push_back(odd);

    Node get;
    get.name = "getitem";
    get.target = "operator.getitem";
    get.args = { Arg::ref("odd"), Arg::integer(0) };
    get.outputs = { tensor({ "s0", "8" }) };
    get.freedAfter = { "odd", "mm" };
    g.nodes.push_back(get);

    Node meth;
    meth.name = "view";
    meth.op = NodeOp::CallMethod;
    meth.target = "view";
    meth.args = { Arg::ref("getitem"), Arg::integer(-1) };
    meth.outputs = { tensor({ "8*s0" }) };
    g.nodes.push_back(meth);

    Node attr;
    attr.name = "_tensor_constant0";
    attr.op = NodeOp::GetAttr;
    attr.target = "_tensor_constant0";
    attr.outputs = { tensor({ "3" }, {}, DType::Bool) };
    g.nodes.push_back(attr);

    Node mod;
    mod.name = "linear";
    mod.op = NodeOp::CallModule;
    mod.target = "layers.0";
    mod.args = { Arg::ref("view") };
    mod.outputs = { tensor({ "8*s0" }) };
    g.nodes.push_back(mod);

    Node copy;
    copy.name = "copy_";
    copy.target = "aten.copy_.default";
    copy.args = { Arg::ref("cache"), Arg::ref("cache") };
    copy.storage = "kv";
    g.nodes.push_back(copy);

    Node out;
    out.name = "output";
    out.op = NodeOp::Output;
    out.args = { Arg::list({ Arg::ref("linear"), Arg::ref("_tensor_constant0"), Arg::ref("st"), Arg::ref("s0") }) };
    g.nodes.push_back(out);
    return finalized(std::move(g));
}

TEST_F(GraphStore, HandBuiltGraphRoundTripsEveryField)
{
    const Graph g = everything();
    expectRoundTrip(g);
    const int64_t id = write(g);
    const std::string at = " WHERE graph_id = " + std::to_string(id);
    // The rows say what they hold in SQL-readable form.
    EXPECT_EQ(query("SELECT node_count || ' ' || placeholder_count || ' ' || dynamic FROM graphs WHERE id = "
                  + std::to_string(id)),
        "14 6 1");
    EXPECT_EQ(
        query("SELECT recorded_mutated_inputs FROM graphs WHERE id = " + std::to_string(id)), "[\"cache\",\"x\"]");
    EXPECT_EQ(
        query("SELECT op || '/' || input_kind FROM nodes" + at + " AND name = 'st'"), "placeholder/static_address");
    EXPECT_EQ(query("SELECT input_kind FROM nodes" + at + " AND name = 'mm'"), "NULL");
    EXPECT_EQ(query("SELECT symbol FROM nodes" + at + " AND name = 's0'"), "s0");
    EXPECT_EQ(query("SELECT workspace FROM nodes" + at + " AND name = 'odd'"), "s0*1024");
    EXPECT_EQ(query("SELECT workspace FROM nodes" + at + " AND name = 'getitem'"), "NULL");
    EXPECT_EQ(query("SELECT freed_after FROM nodes" + at + " AND name = 'getitem'"), "[\"odd\",\"mm\"]");
    EXPECT_EQ(query("SELECT op FROM nodes" + at + " AND name = 'linear'"), "call_module");
    const std::string odd = at + " AND node_idx = (SELECT idx FROM nodes" + at + " AND name = 'odd')";
    EXPECT_EQ(query("SELECT kind || ':' || value FROM node_args" + odd + " AND pos = 4"), "float:0.1");
    EXPECT_EQ(query("SELECT kind || ':' || value FROM node_args" + odd + " AND pos = 5"), "float:1e-300");
    EXPECT_EQ(query("SELECT kind || ':' || value FROM node_args" + odd + " AND pos = 7"), "float:inf");
    EXPECT_EQ(query("SELECT kind || ':' || value FROM node_args" + odd + " AND pos = 2"), "int:-9223372036854775808");
    EXPECT_EQ(
        query("SELECT kind || ':' || coalesce(value, 'NULL') FROM node_args" + odd + " AND pos = 0"), "none:NULL");
    EXPECT_EQ(query("SELECT value FROM node_args" + odd + " AND pos = 18"),
        "[{\"ref\":\"mm\",\"idx\":6},[-1,2.5,null,[{\"ref\":\"b\",\"idx\":1}]],\"a\\\"b\",true,{\"float\":\"inf\"},"
        "1e-05,[]]");
    EXPECT_EQ(
        query("SELECT keyword || '=' || kind || ':' || ref_idx FROM node_args" + odd + " AND pos = 22"), "out=ref:5");
    EXPECT_EQ(query("SELECT count(*) FROM node_args" + odd + " AND keyword IS NOT NULL"), "5");
    // Users and tensors.
    EXPECT_EQ(query("SELECT group_concat(user_idx) FROM node_users" + at + " AND node_idx = 5"), "7,12");
    EXPECT_EQ(query("SELECT shape || ' ' || stride || ' ' || storage_offset || ' ' || symbolic || ' ' || "
                    "coalesce(bytes, 'NULL') FROM tensors"
                  + at + " AND node_idx = 4"),
        "[\"s0\",\"4\"] [\"4\",\"1\"] 16 1 NULL");
    EXPECT_EQ(query("SELECT dtype || ' ' || shape || ' ' || coalesce(stride, 'NULL') || ' ' || bytes FROM tensors" + at
                  + " AND node_idx = 1"),
        "f16 [\"8\"] NULL 16");
    // On the device and static: w (4*8 bf16 = 64), b (8 f16 = 16), the bool constant (3); st is on the CPU.
    EXPECT_EQ(query("SELECT static_bytes FROM graphs WHERE id = " + std::to_string(id)), "83");
}

TEST_F(GraphStore, EveryFxFixtureRoundTrips)
{
    size_t graphs = 0;
    for (const char* dir : { "/fx", "/torchair" }) {
        for (const auto& e : fs::directory_iterator(kData + dir)) {
            if (e.path().extension() == ".md")
                continue;
            auto r = readers::readFxFile(e.path().string());
            if (!r.ok())
                continue; // the broken fixtures that are errors
            SCOPED_TRACE(e.path().string());
            for (const Graph& g : r->graphs) {
                expectRoundTrip(g);
                ++graphs;
            }
        }
    }
    EXPECT_GE(graphs, 14u);
}

TEST_F(GraphStore, ScenarioGraphsAndDebugStagesRoundTrip)
{
    size_t graphs = 0;
    for (const char* file : { "decode_basic.json", "graph_by_file.json" }) {
        auto s = scenario::readScenarioFile(kData + "/scenarios/" + file);
        ASSERT_TRUE(s.ok()) << s.error().toString();
        for (const Graph& g : s->graphs) {
            expectRoundTrip(g);
            ++graphs;
        }
    }
    auto dir = readers::readDebugDir(kData + "/debug_dir/torch_compile_debug");
    ASSERT_TRUE(dir.ok()) << dir.error().toString();
    for (const auto& group : dir->groups) {
        for (const auto& stage : group.stages)
            if (stage.graph) {
                expectRoundTrip(*stage.graph);
                ++graphs;
            }
        if (group.module) {
            expectRoundTrip(group.module->graph);
            ++graphs;
        }
    }
    EXPECT_GE(graphs, 10u);
}

TEST_F(GraphStore, GeneratedDecoderRoundTrips)
{
    scenario::DecoderSpec spec;
    spec.layers = 3;
    auto s = scenario::parseScenario(scenario::decoderScenarioJson(spec, "{}", { 1, 4 }, 2), "decoder.json");
    ASSERT_TRUE(s.ok()) << s.error().toString();
    ASSERT_EQ(s->graphs.size(), 2u);
    for (const Graph& g : s->graphs)
        expectRoundTrip(g);
}

TEST_F(GraphStore, WritesAnEightyLayerDecoderAndCountsEveryRow)
{
    scenario::DecoderSpec spec;
    spec.layers = 80;
    auto s = scenario::parseScenario(scenario::decoderScenarioJson(spec, "{}", { 1, 4 }, 2), "decoder.json");
    ASSERT_TRUE(s.ok()) << s.error().toString();
    const Graph& g = s->graphs.at(1);
    auto tx = Transaction::begin(db());
    ASSERT_TRUE(tx.ok());
    WriteContext ctx(db());
    const auto start = std::chrono::steady_clock::now();
    auto id = writeGraph(ctx, g, placeIn(m_source));
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ASSERT_TRUE(id.ok()) << id.error().toString();
    ASSERT_TRUE(tx->commit().ok());
    EXPECT_EQ(ctx.rows(), 1 + count("nodes") + count("node_args") + count("node_users") + count("tensors"));
    EXPECT_GT(ctx.rows(), 10000);
    std::printf("[ info     ] %s: %lld rows in %.3f s (%.0f rows/s)\n", g.id.c_str(), (long long)ctx.rows(), seconds,
        double(ctx.rows()) / seconds);
    expectSameGraph(g, read(*id));
}

TEST_F(GraphStore, ListsGraphsBySource)
{
    const int64_t other = addSource("source-2");
    const Graph g = everything();
    GraphPlace stage;
    stage.group = "model__0/forward";
    stage.stage = 3;
    stage.pass = "view_to_reshape";
    stage.file = "/tmp/005_aot_forward_graph_after_view_to_reshape.txt";
    stage.role = "stage";
    stage.diagnostics = { "f.txt:1:2: warning: odd" };
    const int64_t a = write(g, stage);
    GraphPlace broken;
    broken.sourceId = other;
    broken.error = "f.txt:3:4: unexpected token";
    Graph empty;
    empty.id = "broken";
    const int64_t b = write(empty, broken);

    auto all = listGraphs(db());
    ASSERT_TRUE(all.ok());
    ASSERT_EQ(all->size(), 2u);
    const GraphRow& r = (*all)[0];
    EXPECT_EQ(r.id, a);
    EXPECT_EQ(r.sourceId, m_source);
    EXPECT_EQ(r.name, "everything");
    EXPECT_EQ(r.group, "model__0/forward");
    EXPECT_EQ(r.stage, 3);
    EXPECT_EQ(r.pass, "view_to_reshape");
    EXPECT_EQ(r.file, stage.file);
    EXPECT_EQ(r.role, "stage");
    EXPECT_EQ(r.nodeCount, 14);
    EXPECT_EQ(r.placeholderCount, 6);
    EXPECT_EQ(r.staticBytes, std::optional<int64_t>(83));
    EXPECT_FALSE(r.error);
    EXPECT_EQ(query("SELECT diagnostics FROM graphs WHERE id = " + std::to_string(a)), "[\"f.txt:1:2: warning: odd\"]");

    auto mine = listGraphs(db(), other);
    ASSERT_TRUE(mine.ok());
    ASSERT_EQ(mine->size(), 1u);
    EXPECT_EQ((*mine)[0].id, b);
    EXPECT_EQ((*mine)[0].error, broken.error);
    EXPECT_EQ((*mine)[0].nodeCount, 0);
    EXPECT_FALSE((*mine)[0].staticBytes);
    EXPECT_EQ((*mine)[0].role, "graph");
    // An error-only graph reads back without nodes.
    auto back = readGraph(db(), b);
    ASSERT_TRUE(back.ok()) << back.error().toString();
    EXPECT_EQ(back->id, "broken");
    EXPECT_TRUE(back->nodes.empty());
    auto none = listGraphs(db(), other + 1);
    ASSERT_TRUE(none.ok());
    EXPECT_TRUE(none->empty());
}

TEST_F(GraphStore, CancelStopsTheWriteAndTheTransactionUndoesIt)
{
    scenario::DecoderSpec spec;
    spec.layers = 32;
    auto s = scenario::parseScenario(scenario::decoderScenarioJson(spec, "{}", { 1 }, 1), "decoder.json");
    ASSERT_TRUE(s.ok()) << s.error().toString();
    int asked = 0;
    {
        auto tx = Transaction::begin(db());
        ASSERT_TRUE(tx.ok());
        WriteContext ctx(db(), [&](int64_t rows) {
            ++asked;
            EXPECT_EQ(rows, WriteContext::kRowsPerTick);
            return false;
        });
        auto id = writeGraph(ctx, s->graphs.at(1), placeIn(m_source));
        ASSERT_FALSE(id.ok());
        EXPECT_EQ(id.error().code, ErrorCode::Cancelled);
        EXPECT_EQ(ctx.rows(), WriteContext::kRowsPerTick); // stopped at the first tick, not at the end
        EXPECT_GT(count("nodes"), 0);
    } // not committed
    EXPECT_EQ(asked, 1);
    for (const char* table : { "graphs", "nodes", "node_args", "node_users", "tensors" })
        EXPECT_EQ(count(table), 0) << table;
    // Without a cancel the same write completes.
    WriteContext ctx(db(), [](int64_t) { return true; });
    EXPECT_TRUE(writeGraph(ctx, s->graphs.at(1), placeIn(m_source)).ok());
    EXPECT_GT(ctx.rows(), WriteContext::kRowsPerTick);
}

TEST_F(GraphStore, DamagedRowsAreErrorsNamingTheRow)
{
    const int64_t id = write(everything());
    const std::string g = std::to_string(id);
    struct Damage {
        std::string sql;
        const char* expected;
    };
    const Damage damages[] = {
        { "UPDATE nodes SET op = 'call_everything' WHERE idx = 6", "node row 6 ('mm'): unknown op 'call_everything'" },
        { "UPDATE nodes SET input_kind = 'weight' WHERE idx = 0", "node row 0 ('w'): unknown input kind 'weight'" },
        { "UPDATE nodes SET symbol = 's0 +' WHERE idx = 3", "node row 3 ('s0'): symbol 's0 +' is no size expression" },
        { "UPDATE nodes SET freed_after = '{' WHERE idx = 8", "node row 8 ('getitem'): freed_after is not" },
        { "UPDATE node_args SET value = 'seven' WHERE node_idx = 7 AND pos = 1",
            "node row 7 ('odd'): argument 1 (int): 'seven' is no integer" },
        { "UPDATE node_args SET value = '0x1p3' WHERE node_idx = 7 AND pos = 4", "argument 4 (float): '0x1p3'" },
        { "UPDATE node_args SET value = 'yes' WHERE node_idx = 7 AND pos = 12", "is neither True nor False" },
        { "UPDATE node_args SET value = '[1, {\"x\": 2}]' WHERE node_idx = 7 AND pos = 18",
            "argument 18 (list): not a JSON list of arguments" },
        { "UPDATE node_args SET kind = 'complex' WHERE node_idx = 7 AND pos = 1", "unknown kind 'complex'" },
        { "UPDATE node_args SET value = NULL WHERE node_idx = 6 AND pos = 0", "argument 0 (ref) has no value" },
        { "UPDATE node_args SET value = 'nowhere' WHERE node_idx = 6 AND pos = 0", "nowhere" },
        { "UPDATE node_args SET ref_idx = 2 WHERE node_idx = 6 AND pos = 0",
            "refers to 'x' as node 2, which is node 4" },
        { "UPDATE node_args SET pos = 40 WHERE node_idx = 6 AND pos = 1", "argument rows are not numbered" },
        { "UPDATE node_args SET keyword = NULL WHERE node_idx = 7 AND pos = 22", "comes after keyword arguments" },
        { "DELETE FROM node_users WHERE node_idx = 5 AND user_idx = 12", "node row 5 ('cache'): its stored users" },
        { "UPDATE tensors SET shape = '[\"s0\", 4]' WHERE node_idx = 4",
            "node row 4 ('x'): shape is not a JSON array" },
        { "UPDATE tensors SET stride = '[\"(\"]' WHERE node_idx = 4", "stride '(' is no size expression" },
        { "UPDATE tensors SET dtype = 'f128' WHERE node_idx = 4", "unknown dtype 'f128'" },
        { "UPDATE tensors SET out_idx = 5 WHERE node_idx = 7 AND out_idx = 1", "tensor rows are not numbered" },
        { "INSERT INTO nodes(graph_id, idx, name, op) VALUES (" + g + ", 100, 'extra', 'call_function')",
            "node rows are not numbered 0, 1, 2, ... (expected 14)" },
        { "UPDATE graphs SET node_count = 13", "node_count says 13 nodes, there are 14" },
        { "UPDATE graphs SET recorded_mutated_inputs = '[1]'", "recorded_mutated_inputs is not" },
        { "UPDATE nodes SET name = 'w' WHERE idx = 1", "used twice" },
    };
    for (const Damage& d : damages) {
        SCOPED_TRACE(d.sql);
        exec("SAVEPOINT damage");
        exec(d.sql);
        auto r = readGraph(db(), id);
        ASSERT_FALSE(r.ok());
        EXPECT_NE(r.error().toString().find("graph " + g + " ('everything')"), std::string::npos)
            << r.error().toString();
        EXPECT_NE(r.error().toString().find(d.expected), std::string::npos) << r.error().toString();
        exec("ROLLBACK TO damage");
        exec("RELEASE damage");
    }
    // Undamaged again, and a graph that is not there.
    EXPECT_TRUE(readGraph(db(), id).ok());
    auto missing = readGraph(db(), id + 10);
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(missing.error().code, ErrorCode::NotFound);
}

} // namespace
