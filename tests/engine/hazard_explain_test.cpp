// Hazards explained (engine/report/hazard_explain.h) on simulated runs: the bundled samples (04 KV cache
// moves: a recapture storm; 05 frozen weight moves: a stale parameter; 07 held outputs: overwritten
// outputs; 09 capture limit: a fallback) and small scenarios for the kinds no sample has (a user tensor
// overwritten with clone_input off, an output of another key overwritten after a rollback, out of
// memory, an input on another device), each checked for the call, graph, key, tensor and the option
// it names; npugraph_ex's spelling; a recording's unknown backend; the event that shows each hazard;
// and the Inspector's explanation rows (details.h).
#include "engine/report/details.h"
#include "engine/report/hazard_explain.h"
#include "engine/scenario/load.h"
#include "simulator_test_util.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

using engine::report::explainHazard;
using engine::report::HazardExplanation;
using engine::runtime::EventKind;
using engine::runtime::HazardKind;
using engine::runtime::Simulation;
using testing::HasSubstr;
using testing::Not;
using namespace simtest;

namespace {

Simulation sample(const std::string& name)
{
    auto scenario = engine::scenario::loadScenarioOrGraph(ACLGI_SOURCE_DIR "/resources/samples/" + name);
    EXPECT_TRUE(scenario.ok()) << (scenario.ok() ? "" : scenario.error().toString());
    if (!scenario.ok())
        return {};
    auto sim = engine::runtime::simulate(*scenario);
    EXPECT_TRUE(sim.ok());
    return sim.ok() ? std::move(sim.value()) : Simulation {};
}

/// The index of the only hazard of `kind`; fails the test when there is not exactly one.
int onlyHazard(const Simulation& sim, HazardKind kind)
{
    int found = -1, n = 0;
    for (size_t i = 0; i < sim.hazards.size(); ++i)
        if (sim.hazards[i].kind == kind) {
            found = int(i);
            ++n;
        }
    EXPECT_EQ(n, 1) << "hazards of kind " << engine::runtime::hazardKindName(kind);
    return n == 1 ? found : -1;
}

std::string allAvoid(const HazardExplanation& x)
{
    std::string s;
    for (const std::string& a : x.avoid)
        s += a + "\n";
    return s;
}

std::string allQuotes(const HazardExplanation& x)
{
    std::string s;
    for (const std::string& q : x.quotes)
        s += q + "\n";
    return s;
}

const engine::report::Detail* child(const engine::report::Detail& d, const std::string& key)
{
    for (const auto& c : d.children)
        if (c.key == key)
            return &c;
    return nullptr;
}

} // namespace

TEST(HazardExplain, HeldOutputOverwrittenBySameKeyNamesCallsAndCloneOutput)
{
    const Simulation sim = sample("07_held_outputs_overwritten.json");
    ASSERT_EQ(sim.hazards.size(), 5u);
    // docs/samples.md: hazards at calls 2-6, each made one call earlier; the first is at call 2.
    const HazardExplanation x = explainHazard(sim, 0);
    EXPECT_EQ(x.title, "Output overwritten by a later replay");
    EXPECT_THAT(x.what, HasSubstr("output 0 (logits_f32), returned by call 1 (graph_2 key {no_updated_input})"));
    EXPECT_THAT(x.what, HasSubstr("when call 2 replayed graph_2 key {no_updated_input}"));
    // One key, outputs retained: TorchAir's warning never comes, and the explanation says so.
    EXPECT_THAT(x.what, HasSubstr("printed no warning for it"));
    EXPECT_TRUE(x.quotes.empty());
    EXPECT_THAT(allAvoid(x), HasSubstr("debug.aclgraph.enable_output_clone=True"));
    EXPECT_THAT(allAvoid(x), HasSubstr("out = out.clone()"));
    // The reuse option helps only between keys: not offered for a key overwriting its own output.
    EXPECT_THAT(allAvoid(x), Not(HasSubstr("disable_mempool_reuse_in_same_fx")));
    EXPECT_THAT(x.source, HasSubstr("torchair-behavior.md §2.6"));
    EXPECT_THAT(explainHazard(sim, 4).what, HasSubstr("returned by call 5"));

    // The replay of the hazard's call shows it.
    const int e = engine::report::hazardEvent(sim, 0);
    ASSERT_GE(e, 0);
    EXPECT_EQ(sim.events[size_t(e)].kind, EventKind::Replay);
    EXPECT_EQ(sim.events[size_t(e)].call, 2);
    EXPECT_EQ(engine::report::hazardEvents(sim).size(), 5u);
}

TEST(HazardExplain, OutputOfAnotherKeyOffersTheReuseOptionAndQuotesTorchAir)
{
    // Key [1]'s output is held while key [2] is captured into the same rolled-back memory, then key [2]
    // replays over it; with two keys TorchAir rebuilds outputs and prints its overwrite warning.
    const Simulation sim
        = run(scenario({ { "frozen_parameter", true } }, { tinyGraph() }, { call(1, {}, 2), call(2), call(2) }));
    const int h = onlyHazard(sim, HazardKind::OutputOverwritten);
    ASSERT_GE(h, 0);
    const HazardExplanation x = explainHazard(sim, h);
    EXPECT_THAT(x.what, HasSubstr("returned by call 0 (graph_1 key {[1]})"));
    EXPECT_THAT(x.why, HasSubstr("rolls the graph's pool back"));
    EXPECT_THAT(allAvoid(x), HasSubstr("debug.aclgraph.disable_mempool_reuse_in_same_fx=True"));
    EXPECT_THAT(allQuotes(x), HasSubstr("UserWarning: Because acl graph fixes memory addresses"));
    EXPECT_THAT(allQuotes(x), HasSubstr("debug.aclgraph.enable_output_clone=True."));
    EXPECT_EQ(x.quotesFrom, "TorchAir");
}

TEST(HazardExplain, NpugraphExSpellsItsOwnOptionNames)
{
    ordered_json j = scenario({ { "frozen_parameter", true } }, { tinyGraph() }, { call(1, {}, 2), call(2), call(2) });
    j["backend"] = "npugraph_ex";
    const Simulation sim = run(j);
    const int h = onlyHazard(sim, HazardKind::OutputOverwritten);
    ASSERT_GE(h, 0);
    const HazardExplanation x = explainHazard(sim, h);
    EXPECT_THAT(allAvoid(x), HasSubstr("clone_output=True"));
    EXPECT_THAT(allAvoid(x), HasSubstr("reuse_graph_pool_in_same_fx=False")); // inverted against torchair's
    EXPECT_THAT(allAvoid(x), Not(HasSubstr("debug.aclgraph")));
    EXPECT_EQ(x.quotesFrom, "npugraph_ex");
    EXPECT_THAT(allQuotes(x), HasSubstr("2. Enable debug option by setting clone_output=True."));
}

TEST(HazardExplain, KvCacheMovesExplainsTheStormAndNamesTheMovedCache)
{
    const Simulation sim = sample("04_kv_cache_moves.json");
    const int h = onlyHazard(sim, HazardKind::RecaptureStorm);
    ASSERT_GE(h, 0);
    const HazardExplanation x = explainHazard(sim, h);
    EXPECT_THAT(x.what, HasSubstr("graph_2 was recaptured 3 times by call 7 (mutated input moved: 3"));
    EXPECT_THAT(x.what, HasSubstr("l0_k_cache"));
    EXPECT_THAT(x.why, HasSubstr("captured_mutated_inputs"));
    EXPECT_THAT(allAvoid(x), HasSubstr("debug.aclgraph.static_capture_size_limit"));
    EXPECT_THAT(allAvoid(x), HasSubstr("update it in place"));
    EXPECT_THAT(allQuotes(x),
        HasSubstr("[DEBUG] The current AclGraph needs to be recaptured for fx_graph graph_2 with graph key "
                  "{no_updated_input}."));
    EXPECT_THAT(allQuotes(x), HasSubstr("count of recaptures caused by mutated inputs changed is 3"));
    const int e = engine::report::hazardEvent(sim, h);
    ASSERT_GE(e, 0);
    EXPECT_EQ(sim.events[size_t(e)].kind, EventKind::Capture);
    EXPECT_EQ(sim.events[size_t(e)].call, 7);
}

TEST(HazardExplain, FrozenParameterMovedNamesTheWeightAndQuotesTheCompileWarning)
{
    const Simulation sim = sample("05_frozen_parameter_moved.json");
    const int h = onlyHazard(sim, HazardKind::StaleParameter);
    ASSERT_GE(h, 0);
    const HazardExplanation x = explainHazard(sim, h);
    EXPECT_THAT(x.what, HasSubstr("Parameter l1_wo moved from 0x"));
    EXPECT_THAT(x.what, HasSubstr("by call 4"));
    EXPECT_THAT(x.what, HasSubstr("experimental_config.frozen_parameter was on"));
    EXPECT_THAT(allAvoid(x), HasSubstr("experimental_config.frozen_parameter=False"));
    EXPECT_THAT(allQuotes(x), HasSubstr("UserWarning: When enable frozen_parameter, Parameters"));
    const int e = engine::report::hazardEvent(sim, h);
    ASSERT_GE(e, 0);
    EXPECT_EQ(sim.events[size_t(e)].kind, EventKind::InputUpdate);
    EXPECT_EQ(sim.events[size_t(e)].call, 4);

    // Sample 06 moves the weight without frozen_parameter: a new key, no hazard to explain.
    EXPECT_TRUE(sample("06_parameter_moved_not_frozen.json").hazards.empty());
}

TEST(HazardExplain, CaptureLimitFallbackNamesTheLimitAndQuotesTheWarningOnce)
{
    const Simulation sim = sample("09_capture_limit_fallback.json");
    const int h = onlyHazard(sim, HazardKind::Fallback);
    ASSERT_GE(h, 0);
    const HazardExplanation x = explainHazard(sim, h);
    EXPECT_THAT(x.what, HasSubstr("graph_2 reached debug.aclgraph.static_capture_size_limit=2 at call 3"));
    EXPECT_THAT(x.what, HasSubstr("graph key {[32]} needed a new capture"));
    EXPECT_THAT(x.what, HasSubstr("4 eager calls")); // calls 3-6 (docs/samples.md)
    EXPECT_THAT(allAvoid(x), HasSubstr("raise debug.aclgraph.static_capture_size_limit to at least 3"));
    // warnings.warn and logger.warning print the same text: quoted once.
    ASSERT_EQ(x.quotes.size(), 1u);
    EXPECT_THAT(x.quotes[0],
        HasSubstr("UserWarning: The static_capture_size_limit reached when capturing fx_graph "
                  "graph_2 with graph key [32]"));
    const int e = engine::report::hazardEvent(sim, h);
    ASSERT_GE(e, 0);
    EXPECT_EQ(sim.events[size_t(e)].kind, EventKind::Fallback);
    EXPECT_EQ(sim.events[size_t(e)].hazard, h);
}

TEST(HazardExplain, UserInputOverwrittenNamesInputTensorAndCloneInput)
{
    ordered_json cfg = { { "debug.aclgraph.clone_input", false }, { "frozen_parameter", true } };
    const Simulation sim = run(scenario(cfg, { tinyGraph() },
        { call(4, { { "x", "x_first" } }), call(4, { { "x", "x_first" } }), call(4, { { "x", "x_other" } }) }));
    const int h = onlyHazard(sim, HazardKind::UserInputOverwritten);
    ASSERT_GE(h, 0);
    const HazardExplanation x = explainHazard(sim, h);
    EXPECT_THAT(x.what, HasSubstr("call 2 passed input x of graph_1 key {[4]}"));
    EXPECT_THAT(x.what, HasSubstr("captured at call 0, 'x_first'"));
    EXPECT_THAT(x.what, HasSubstr("debug.aclgraph.clone_input off"));
    EXPECT_THAT(allAvoid(x), HasSubstr("debug.aclgraph.clone_input=True (the default)"));
    EXPECT_TRUE(x.quotes.empty()); // TorchAir prints nothing for it
    const int e = engine::report::hazardEvent(sim, h);
    ASSERT_GE(e, 0);
    EXPECT_EQ(sim.events[size_t(e)].kind, EventKind::InputUpdate);
    EXPECT_EQ(sim.events[size_t(e)].call, 2);
}

TEST(HazardExplain, OutOfMemoryQuotesTheAllocator)
{
    auto j
        = scenario({ { "frozen_parameter", true } }, { tinyGraph("g", true, 262144) }, { call(4), call(8), call(16) });
    j["device"] = { { "capacity_bytes", 40 << 20 } };
    const Simulation sim = run(j);
    const int h = onlyHazard(sim, HazardKind::OutOfMemory);
    ASSERT_GE(h, 0);
    const HazardExplanation x = explainHazard(sim, h);
    EXPECT_THAT(x.what, HasSubstr("Call " + std::to_string(sim.hazards[size_t(h)].call) + " (graph_1)"));
    ASSERT_EQ(x.quotes.size(), 1u);
    EXPECT_THAT(x.quotes[0], HasSubstr("NPU out of memory. Tried to allocate"));
    EXPECT_EQ(x.quotesFrom, "torch_npu's caching allocator");
    EXPECT_THAT(allAvoid(x), HasSubstr("device.capacity"));
    const int e = engine::report::hazardEvent(sim, h);
    ASSERT_GE(e, 0);
    EXPECT_EQ(sim.events[size_t(e)].kind, EventKind::OutOfMemory);
}

TEST(HazardExplain, CrossDeviceInputNamesBothDevices)
{
    ordered_json a = tinyGraph("a"), b = tinyGraph("b");
    for (auto* g : { &a, &b })
        for (auto& in : (*g)["inputs"])
            if (in.contains("shape"))
                in["device"] = g == &a ? "npu:0" : "npu:1";
    const Simulation sim = run(scenario({ { "frozen_parameter", true } }, { a, b },
        { call(4, {}, 1, "a"), call(4, { { "x", { { "output_of", 0 }, { "index", 0 } } } }, 0, "b") }));
    const int h = onlyHazard(sim, HazardKind::CrossDeviceInput);
    ASSERT_GE(h, 0);
    const HazardExplanation x = explainHazard(sim, h);
    EXPECT_THAT(
        x.what, HasSubstr("Call 1 binds input x of graph_2 (captured on npu:1) to output 0 of call 0, on npu:0"));
    EXPECT_THAT(allAvoid(x), HasSubstr("x.to(\"npu:1\")"));
    EXPECT_THAT(x.why, HasSubstr("acl_graph.py:791"));
    const int e = engine::report::hazardEvent(sim, h);
    ASSERT_GE(e, 0);
    EXPECT_EQ(sim.events[size_t(e)].call, 1);
    EXPECT_EQ(sim.events[size_t(e)].graph, "graph_2");
}

TEST(HazardExplain, StaleCheckpointAndARecordingOfUnknownBackend)
{
    // TorchAir's own flow never reaches a stale checkpoint (docs/simulator.md): a hand-made run has one.
    Simulation sim;
    sim.origin.kind = engine::runtime::RunOriginKind::Recorded;
    sim.origin.recordedAs = "memory snapshot (torch.cuda.memory._dump_snapshot)";
    engine::runtime::Hazard h;
    h.kind = HazardKind::StaleCheckpoint;
    h.call = 3;
    h.graph = "graph_1";
    h.concerns = "kv_old";
    sim.hazards.push_back(h);
    const HazardExplanation x = explainHazard(sim, 0);
    EXPECT_EQ(x.title, "Live tensor freed by a pool rollback");
    EXPECT_THAT(x.what, HasSubstr("'kv_old'"));
    EXPECT_THAT(x.what, HasSubstr("graph_1's pool at call 3"));
    ASSERT_EQ(x.quotes.size(), 1u);
    EXPECT_EQ(x.quotes[0], "Any stale tensors which are being manually freed must be passed to set checkpoint");
    // No backend recorded: both spellings, and the explanation says why.
    ASSERT_FALSE(x.avoid.empty());
    EXPECT_THAT(x.avoid[0], HasSubstr("does not record its backend (memory snapshot"));
    EXPECT_THAT(allAvoid(x),
        HasSubstr("debug.aclgraph.disable_mempool_reuse_in_same_fx=True (torchair) or "
                  "reuse_graph_pool_in_same_fx=False (npugraph_ex)"));
    EXPECT_EQ(engine::report::hazardEvent(sim, 0), -1); // no events

    const HazardExplanation none = explainHazard(sim, 1);
    EXPECT_EQ(none.title, "hazard 1 is not in the run (1 hazard)");
    EXPECT_TRUE(
        none.what.empty() && none.why.empty() && none.avoid.empty() && none.quotes.empty() && none.source.empty());
    EXPECT_EQ(explainHazard(sim, -1).title, "hazard -1 is not in the run (1 hazard)");
}

TEST(HazardExplain, InspectorRowsCarryTheExplanation)
{
    const Simulation sim = sample("07_held_outputs_overwritten.json");
    const int e = engine::report::hazardEvent(sim, 0);
    ASSERT_GE(e, 0);
    const engine::report::Details d = engine::report::eventDetails(sim, e);
    const engine::report::Detail* hazard = nullptr;
    for (const auto& r : d.rows)
        if (r.key == "hazard")
            hazard = &r;
    ASSERT_NE(hazard, nullptr) << "the replay that overwrote the output shows the hazard";
    EXPECT_EQ(hazard->value, "output_overwritten");
    const engine::report::Detail* x = child(*hazard, "explanation");
    ASSERT_NE(x, nullptr);
    EXPECT_EQ(x->value, "Output overwritten by a later replay");
    ASSERT_NE(child(*x, "what"), nullptr);
    EXPECT_THAT(child(*x, "what")->value, HasSubstr("returned by call 1"));
    ASSERT_NE(child(*x, "why"), nullptr);
    ASSERT_NE(child(*x, "avoid"), nullptr);
    EXPECT_EQ(child(*x, "avoid")->value, "2 ways");
    EXPECT_THAT(child(*x, "avoid")->children.at(1).value, HasSubstr("debug.aclgraph.enable_output_clone=True"));
    ASSERT_NE(child(*x, "TorchAir says"), nullptr);
    EXPECT_EQ(child(*x, "TorchAir says")->value, "nothing for this");
    ASSERT_NE(child(*x, "source"), nullptr);
    // The text a copy gives holds the same.
    EXPECT_THAT(engine::report::detailsText(d), HasSubstr("explanation: Output overwritten by a later replay"));
    const std::string text = engine::report::explanationText(explainHazard(sim, 0));
    EXPECT_THAT(text, HasSubstr("How to avoid:\n  - Clone what you keep"));
}
