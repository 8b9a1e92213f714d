// The Inspector's details (engine/report/details.h) on real data: sample 04 (KV cache moves, three
// recaptures) simulated with memory recorded, sample 09 (fallback hazard), an FX file with provenance
// comments, and a small hand-built dynamic graph for symbolic sizes; plus the text "Copy" gives.
#include "engine/report/details.h"
#include "engine/scenario/load.h"

#include <gtest/gtest.h>

using engine::report::Detail;
using engine::report::Details;
using engine::runtime::EventKind;
using engine::runtime::Simulation;

namespace {

struct Sample {
    engine::scenario::Scenario scenario;
    Simulation sim;
};

Sample load(const std::string& name)
{
    Sample s;
    auto scenario = engine::scenario::loadScenarioOrGraph(ACLGI_SOURCE_DIR "/resources/samples/" + name);
    EXPECT_TRUE(scenario.ok()) << (scenario.ok() ? "" : scenario.error().toString());
    if (!scenario.ok())
        return s;
    s.scenario = std::move(scenario.value());
    engine::runtime::SimulationOptions options;
    options.recordMemory = true;
    auto sim = engine::runtime::simulate(s.scenario, options);
    EXPECT_TRUE(sim.ok());
    if (sim.ok())
        s.sim = std::move(sim.value());
    return s;
}

/// Sample 04, loaded and simulated once for every test here.
const Sample& kvSample()
{
    static const Sample s = load("04_kv_cache_moves.json");
    return s;
}

/// The row reached by following `path` (keys) from the top level; a failure names the missing key.
const Detail& at(const std::vector<Detail>& rows, std::initializer_list<std::string> path)
{
    static const Detail missing { "<missing>", "<missing>", {} };
    const std::vector<Detail>* level = &rows;
    const Detail* found = nullptr;
    for (const std::string& key : path) {
        found = nullptr;
        for (const Detail& r : *level)
            if (r.key == key) {
                found = &r;
                break;
            }
        if (!found) {
            ADD_FAILURE() << "no row '" << key << "'";
            return missing;
        }
        level = &found->children;
    }
    return *found;
}

bool hasRow(const std::vector<Detail>& rows, const std::string& key)
{
    for (const Detail& r : rows)
        if (r.key == key)
            return true;
    return false;
}

/// The index of the first event of `call` of kind `kind`, -1 when none.
int eventOf(const Simulation& sim, int call, EventKind kind)
{
    for (const auto& e : sim.events)
        if (e.call == call && e.kind == kind)
            return e.index;
    return -1;
}

std::vector<std::string> keys(const std::vector<Detail>& rows)
{
    std::vector<std::string> out;
    for (const Detail& r : rows)
        out.push_back(r.key);
    return out;
}

} // namespace

TEST(DetailsNode, MutatedPlaceholderOfSample04)
{
    const engine::Graph* decode = kvSample().scenario.graph("decode");
    ASSERT_NE(decode, nullptr);
    const Details d = engine::report::nodeDetails(*decode, decode->find("l0_k_cache"));
    EXPECT_EQ(d.kind, "node");
    EXPECT_EQ(d.title, "l0_k_cache");
    EXPECT_EQ(at(d.rows, { "op" }).value, "placeholder");
    EXPECT_EQ(at(d.rows, { "input index" }).value, "7 of 22");
    EXPECT_EQ(at(d.rows, { "input kind" }).value, "user_input");
    EXPECT_EQ(at(d.rows, { "role" }).value.rfind("mutated_input", 0), 0u) << at(d.rows, { "role" }).value;
    EXPECT_EQ(at(d.rows, { "storage binding" }).value, "kv_cache.layer0.k");
    EXPECT_EQ(at(d.rows, { "outputs" }).value, "1 tensor");
    EXPECT_EQ(at(d.rows, { "outputs", "output 0" }).value, "bf16[64, 256, 1024][262144, 1024, 1]npu:0");
    EXPECT_EQ(at(d.rows, { "outputs", "output 0", "bytes" }).value, "33 554 432 B (32.0 MiB)");
    EXPECT_EQ(at(d.rows, { "outputs", "output 0", "stride" }).value, "[262144, 1024, 1] (contiguous)");
    // Users by name, each with its target.
    EXPECT_EQ(at(d.rows, { "users" }).value, "l0_k_store, l0_attn");
    EXPECT_EQ(at(d.rows, { "users", "l0_k_store" }).value, "aten.index_put_.default");
    // No pass named: no "rewritten by" row; no args for a placeholder.
    EXPECT_FALSE(hasRow(d.rows, "rewritten by"));
    EXPECT_FALSE(hasRow(d.rows, "args"));
}

TEST(DetailsNode, ArgsOutputsAndPasses)
{
    const engine::Graph* decode = kvSample().scenario.graph("decode");
    ASSERT_NE(decode, nullptr);
    const Details d = engine::report::nodeDetails(*decode, decode->find("l0_rms_norm"), { "reinplace", "cat_to_view" });
    EXPECT_EQ(at(d.rows, { "target" }).value, "npu.npu_rms_norm.default");
    EXPECT_EQ(at(d.rows, { "args" }).value, "(embedding, l0_input_norm)");
    EXPECT_EQ(at(d.rows, { "args", "[0]" }).value, "embedding (aten.embedding.default)");
    EXPECT_EQ(at(d.rows, { "args", "[1]" }).value, "l0_input_norm (parameter)");
    EXPECT_EQ(at(d.rows, { "outputs" }).value, "2 tensors");
    EXPECT_EQ(at(d.rows, { "outputs", "output 1", "dtype" }).value, "f32");
    EXPECT_EQ(at(d.rows, { "outputs", "output 1", "shape" }).value, "[16, 1]");
    EXPECT_EQ(at(d.rows, { "outputs", "output 1", "bytes" }).value, "64 B");
    EXPECT_EQ(at(d.rows, { "users" }).value, "l0_norm_out");
    EXPECT_EQ(at(d.rows, { "rewritten by" }).value, "reinplace, cat_to_view");
    EXPECT_EQ(at(d.rows, { "rewritten by" }).children.size(), 2u);
    // An index outside the graph: nothing to show, and the title says why.
    const Details none = engine::report::nodeDetails(*decode, 1000);
    EXPECT_TRUE(none.rows.empty());
    EXPECT_NE(none.title.find("1000"), std::string::npos);
}

TEST(DetailsNode, ProvenanceAndFreedNames)
{
    auto scenario = engine::scenario::loadScenarioOrGraph(ACLGI_TEST_DATA_DIR "/fx/print_readable_simple.py");
    ASSERT_TRUE(scenario.ok()) << scenario.error().toString();
    const engine::Graph& g = scenario->graphs.at(0);
    const Details d = engine::report::nodeDetails(g, g.find("mm"));
    EXPECT_EQ(at(d.rows, { "provenance" }).value, "# File: /home/user/model.py:12 in forward, code: y = x @ x");
    EXPECT_EQ(at(d.rows, { "args" }).value, "(arg0_1, arg0_1)");
    EXPECT_EQ(at(d.rows, { "users" }).value, "add");
    EXPECT_EQ(at(d.rows, { "frees after it" }).value, "arg0_1");
    EXPECT_EQ(at(d.rows, { "outputs", "output 0", "bytes" }).value, "64 B");
}

TEST(DetailsNode, SymbolicSizesSymIntAndWorkspace)
{
    engine::Graph g;
    g.id = "dyn";
    g.dynamic = true;
    engine::Node x;
    x.name = "x";
    x.op = engine::NodeOp::Placeholder;
    x.outputs.push_back(
        { { engine::SymExpr::parse("s0").value(), engine::SymExpr::constant(8) }, {}, engine::DType::F16, "npu:0", 0 });
    engine::Node s0;
    s0.name = "s0";
    s0.op = engine::NodeOp::Placeholder;
    s0.inputKind = engine::InputKind::SymInt;
    s0.symbol = engine::SymExpr::parse("s0").value();
    engine::Node mm;
    mm.name = "mm";
    mm.target = "aten.mm.default";
    mm.args = { engine::Arg::ref("x"), engine::Arg::ref("x") };
    mm.kwargs = { { "alpha", engine::Arg::integer(2) } };
    mm.outputs = x.outputs;
    mm.workspaceBytes = engine::SymExpr::constant(4096);
    engine::Node out;
    out.name = "output";
    out.op = engine::NodeOp::Output;
    out.args = { engine::Arg::list({ engine::Arg::ref("mm") }) };
    g.nodes = { x, s0, mm, out };
    ASSERT_TRUE(g.finalize().ok());

    const Details dx = engine::report::nodeDetails(g, 0);
    EXPECT_EQ(at(dx.rows, { "outputs", "output 0", "shape" }).value, "[s0, 8]");
    EXPECT_EQ(at(dx.rows, { "outputs", "output 0", "bytes" }).value, "symbolic: depends on s0");
    EXPECT_EQ(at(dx.rows, { "input index" }).value, "0 of 2");
    const Details ds = engine::report::nodeDetails(g, 1);
    EXPECT_EQ(at(ds.rows, { "symbol" }).value, "s0");
    EXPECT_EQ(at(ds.rows, { "input kind" }).value, "symint");
    EXPECT_FALSE(hasRow(ds.rows, "outputs"));
    const Details dm = engine::report::nodeDetails(g, 2);
    EXPECT_EQ(at(dm.rows, { "workspace" }).value, "4 096 B (4.0 KiB)");
    EXPECT_EQ(at(dm.rows, { "kwargs" }).value, "alpha=2");
    EXPECT_EQ(at(dm.rows, { "kwargs", "alpha" }).value, "2");
    EXPECT_FALSE(hasRow(dm.rows, "symbol"));
    EXPECT_EQ(at(dm.rows, { "users" }).value, "output");
}

TEST(DetailsEvent, InputUpdateListsCopiedInputs)
{
    const Simulation& sim = kvSample().sim;
    const int e = eventOf(sim, 2, EventKind::InputUpdate);
    ASSERT_GE(e, 0);
    const Details d = engine::report::eventDetails(sim, e);
    EXPECT_EQ(d.kind, "event");
    EXPECT_EQ(d.title, "event " + std::to_string(e + 1) + ": input_update graph_2");
    EXPECT_EQ(at(d.rows, { "event" }).value, std::to_string(e + 1) + " of " + std::to_string(sim.events.size()));
    EXPECT_EQ(at(d.rows, { "call" }).value, "2");
    EXPECT_EQ(at(d.rows, { "graph" }).value, "graph_2 ('decode', pool (0, 4))");
    EXPECT_EQ(at(d.rows, { "key" }).value, "no_updated_input");
    // 21 inputs: 15 parameters used in place, 4 KV caches updated in place, 2 user inputs copied.
    EXPECT_EQ(at(d.rows, { "input actions" }).value, "21 inputs, 2 copied (256 B)");
    EXPECT_EQ(at(d.rows, { "input actions" }).children.size(), 21u);
    EXPECT_EQ(at(d.rows, { "input actions", "input_ids" }).value, "copy_to_staging, 128 B");
    EXPECT_EQ(at(d.rows, { "input actions", "input_ids", "bytes" }).value, "128 B");
    EXPECT_NE(at(d.rows, { "input actions", "input_ids", "detail" }).value.find("staging buffer"), std::string::npos);
    EXPECT_EQ(at(d.rows, { "input actions", "l0_k_cache", "action" }).value, "in_place");
    EXPECT_EQ(at(d.rows, { "input actions", "l0_wo" }).value, "parameter");
    // The call's record: a replay that copied the same two inputs.
    EXPECT_EQ(at(d.rows, { "call record" }).value, "replay");
    EXPECT_EQ(at(d.rows, { "call record", "inputs copied" }).value, "2");
    EXPECT_EQ(at(d.rows, { "call record", "bytes copied" }).value, "256 B");
    EXPECT_EQ(at(d.rows, { "call record", "outputs rebuilt" }).value, "0");
    EXPECT_FALSE(hasRow(at(d.rows, { "call record" }).children, "hazards in this call"));
    EXPECT_FALSE(hasRow(d.rows, "hazard"));
    // Memory after the event: the device totals and one row per pool.
    EXPECT_EQ(
        at(d.rows, { "device reserved after" }).value, engine::report::bytesText(sim.events[size_t(e)].deviceReserved));
    EXPECT_EQ(keys(at(d.rows, { "pools after" }).children),
        (std::vector<std::string> { "pool (0, 0)", "pool (0, 2)", "pool (0, 4)" }));
}

TEST(DetailsEvent, CaptureCarriesTorchAirLog)
{
    const Simulation& sim = kvSample().sim;
    // Call 7 recaptures graph_2 for the third time (docs/samples.md): the recapture storm.
    const int e = eventOf(sim, 7, EventKind::Capture);
    ASSERT_GE(e, 0);
    const Details d = engine::report::eventDetails(sim, e);
    EXPECT_EQ(at(d.rows, { "summary" }).value, "recapture graph key {no_updated_input} (mutated_input)");
    const Detail& log = at(d.rows, { "TorchAir log" });
    EXPECT_EQ(log.value, "5 lines");
    ASSERT_EQ(log.children.size(), 5u);
    EXPECT_EQ(log.children[0].key, "DEBUG");
    EXPECT_EQ(log.children[0].value,
        "No find captured AclGraph{id: 2} of fx_graph graph_2 with graph key {no_updated_input}, and start to "
        "capture it.");
    EXPECT_EQ(log.children[2].key, "INFO");
    EXPECT_EQ(
        log.children[2].value.rfind("Success to capture fx_graph graph_2 for graph key{no_updated_input}.", 0), 0u);
    EXPECT_EQ(log.children[4].value,
        "For graph graph_2 : the count of captures is 1, and count of recaptures caused by mutated inputs changed is "
        "3, and count of recaptures caused by global limit changed is 0");
    EXPECT_EQ(at(d.rows, { "call record" }).value, "recapture (mutated_input)");
    EXPECT_EQ(at(d.rows, { "call record", "recapture cause" }).value, "mutated_input");
    const Detail& hazards = at(d.rows, { "call record", "hazards in this call" });
    ASSERT_EQ(hazards.children.size(), 1u);
    EXPECT_EQ(
        hazards.value, "1"); // the count is the list's: it once read 0 (the list was moved before its size was read)
    EXPECT_EQ(hazards.children[0].key, "recapture_storm");
    EXPECT_NE(hazards.children[0].value.find("recaptured 3 times by call 7"), std::string::npos);
    // Each of the call's hazards carries its explanation; the capture that found the storm shows it too.
    EXPECT_EQ(at(hazards.children, { "recapture_storm", "explanation" }).value,
        "Recapture storm: a graph keeps being captured again");
    EXPECT_EQ(at(d.rows, { "hazard" }).value, "recapture_storm");
    EXPECT_NE(at(d.rows, { "hazard", "explanation", "what" }).value.find("l0_k_cache"), std::string::npos);

    // The first event (compile of call 0) prints warnings.warn texts: the category leads the value.
    const Details compile = engine::report::eventDetails(sim, 0);
    bool deprecation = false;
    for (const Detail& line : at(compile.rows, { "TorchAir log" }).children)
        if (line.value.rfind("DeprecationWarning: The \"reduce-overhead\" mode configuration", 0) == 0) {
            deprecation = true;
            EXPECT_EQ(line.key, "WARNING");
        }
    EXPECT_TRUE(deprecation);
    EXPECT_TRUE(engine::report::eventDetails(sim, int(sim.events.size())).rows.empty());
}

TEST(DetailsEvent, FallbackEventCarriesItsHazard)
{
    const Sample s = load("09_capture_limit_fallback.json");
    int e = -1;
    for (const auto& ev : s.sim.events)
        if (ev.kind == EventKind::Fallback)
            e = ev.index;
    ASSERT_GE(e, 0);
    const Details d = engine::report::eventDetails(s.sim, e);
    EXPECT_EQ(at(d.rows, { "call" }).value, "3");
    EXPECT_EQ(at(d.rows, { "hazard" }).value, "fallback");
    EXPECT_EQ(at(d.rows, { "hazard", "concerns" }).value, "debug.aclgraph.static_capture_size_limit");
    EXPECT_EQ(at(d.rows, { "hazard", "key" }).value, "[32]");
    EXPECT_NE(
        at(d.rows, { "hazard", "message" }).value.find("static_capture_size_limit=2 at call 3"), std::string::npos);
    EXPECT_EQ(at(d.rows, { "call record" }).value, "eager");
    // The explanation: what, why, the ways to avoid it, TorchAir's warning (once) and the source.
    const Detail& x = at(d.rows, { "hazard", "explanation" });
    EXPECT_EQ(x.value, "Capture limit reached: the graph runs eagerly from now on");
    EXPECT_EQ(keys(x.children), (std::vector<std::string> { "what", "why", "avoid", "TorchAir says", "source" }));
    EXPECT_NE(at(x.children, { "avoid", "1" }).value.find("raise debug.aclgraph.static_capture_size_limit"),
        std::string::npos);
    EXPECT_EQ(at(x.children, { "TorchAir says" }).value, "1 line");
    EXPECT_EQ(
        at(x.children, { "TorchAir says", "quote" }).value.rfind("UserWarning: The static_capture_size_limit", 0), 0u);
}

TEST(DetailsBlock, LiveFreeAndStale)
{
    const Simulation& sim = kvSample().sim;
    std::vector<engine::runtime::PoolSnapshot> pools = sim.events.back().memory;
    int pool = -1;
    for (size_t p = 0; p < pools.size(); ++p)
        if (pools[p].pool.str() == "(0, 4)")
            pool = int(p);
    ASSERT_GE(pool, 0);
    // graph_2's pool after the last call: segment 1 holds the retained logits, then free space.
    ASSERT_EQ(pools[size_t(pool)].segments.size(), 2u);
    ASSERT_EQ(pools[size_t(pool)].segments[1].blocks.size(), 2u);
    const Details live = engine::report::blockDetails(sim, pools, pool, 1, 0);
    EXPECT_EQ(live.kind, "block");
    EXPECT_EQ(at(live.rows, { "state" }).value, "live");
    EXPECT_EQ(at(live.rows, { "size" }).value, "2 048 512 B (2.0 MiB)");
    EXPECT_EQ(at(live.rows, { "requested" }).value, "2 048 000 B (2.0 MiB)");
    EXPECT_EQ(at(live.rows, { "owner" }).value, "output logits_f32");
    EXPECT_EQ(at(live.rows, { "owner", "graph" }).value, "graph_2");
    EXPECT_EQ(at(live.rows, { "owner", "key" }).value, "no_updated_input");
    EXPECT_EQ(at(live.rows, { "owner", "made by call" }).value, "1");
    EXPECT_EQ(at(live.rows, { "segment", "block pool" }).value, "large");
    EXPECT_EQ(at(live.rows, { "segment", "stream" }).value, "2");
    EXPECT_EQ(at(live.rows, { "segment", "blocks" }).value, "2 (1 allocated)");
    EXPECT_EQ(at(live.rows, { "pool", "used by" }).value, "graph_2");
    EXPECT_EQ(at(live.rows, { "pool", "kind" }).value, "private (one FX graph)");
    const uint64_t address = pools[size_t(pool)].segments[1].blocks[0].address;
    char hex[32];
    std::snprintf(hex, sizeof hex, "0x%llx", static_cast<unsigned long long>(address));
    EXPECT_EQ(at(live.rows, { "address" }).value, hex);
    EXPECT_EQ(at(live.rows, { "segment", "address" }).value, hex); // the block heads its segment
    EXPECT_EQ(live.title, std::string("block ") + hex + " (live)");

    const Details free = engine::report::blockDetails(sim, pools, pool, 1, 1);
    EXPECT_EQ(at(free.rows, { "state" }).value, "free");
    EXPECT_EQ(at(free.rows, { "allocated" }).value, "no");
    EXPECT_FALSE(hasRow(free.rows, "owner"));

    // A rollback re-creates blocks with no owner (memory::kNoOwner): the same block so marked is stale.
    pools[size_t(pool)].segments[1].blocks[0].owner = engine::memory::kNoOwner;
    const Details stale = engine::report::blockDetails(sim, pools, pool, 1, 0);
    EXPECT_EQ(at(stale.rows, { "state" }).value.rfind("stale: allocated with no owner", 0), 0u);
    EXPECT_FALSE(hasRow(stale.rows, "owner"));

    EXPECT_TRUE(engine::report::blockDetails(sim, pools, pool, 1, 2).rows.empty());
    EXPECT_TRUE(engine::report::blockDetails(sim, pools, int(pools.size()), 0, 0).rows.empty());
}

TEST(DetailsText, IndentsChildrenAndContinuesLines)
{
    Details d;
    d.kind = "event";
    d.title = "event 3: capture graph_1";
    d.rows = { { "call", "1", {} },
        { "TorchAir log", "2 lines", { { "INFO", "begins", { { "note", "deep", {} } } }, { "WARNING", "a\nb", {} } } },
        { "empty", "", {} } };
    EXPECT_EQ(engine::report::detailsText(d),
        "event 3: capture graph_1\n"
        "  call: 1\n"
        "  TorchAir log: 2 lines\n"
        "    INFO: begins\n"
        "      note: deep\n"
        "    WARNING: a\n"
        "      b\n"
        "  empty:\n");
}

TEST(DetailsText, Bytes)
{
    EXPECT_EQ(engine::report::bytesText(0), "0 B");
    EXPECT_EQ(engine::report::bytesText(1023), "1 023 B");
    EXPECT_EQ(engine::report::bytesText(1024), "1 024 B (1.0 KiB)");
    EXPECT_EQ(engine::report::bytesText(16777216), "16 777 216 B (16.0 MiB)");
    EXPECT_EQ(engine::report::bytesText(3ull << 30), "3 221 225 472 B (3.0 GiB)");
    EXPECT_EQ(engine::report::humanBytes(512), "512 B");
    EXPECT_EQ(engine::report::humanBytes(2048512), "2.0 MiB");
}
