// Which graph nodes a stepped event outlines (engine/runtime/event_focus.h).
#include "engine/runtime/event_focus.h"
#include "simulator_test_util.h"

#include <string>
#include <vector>

using engine::runtime::EventKind;
using engine::runtime::FocusNode;
using engine::runtime::FocusRole;
using simtest::call;
using simtest::ordered_json;
using simtest::scenario;
using simtest::tinyGraph;

namespace {

struct Stepped {
    engine::Graph graph;
    engine::runtime::Simulation sim;
};

Stepped simulateTiny(const ordered_json& config, const ordered_json& calls)
{
    const ordered_json j = scenario(config, { tinyGraph() }, calls);
    auto s = engine::scenario::parseScenario(j.dump(), "test.json");
    EXPECT_TRUE(s.ok());
    return { s->graphs.at(0), simtest::run(j) };
}

/// "name:role" of every focused node, in node order.
std::vector<std::string> focusOf(const Stepped& s, int event)
{
    std::vector<std::string> out;
    for (const FocusNode& f : engine::runtime::eventFocus(s.graph, s.sim, event))
        out.push_back(s.graph.nodes[size_t(f.node)].name + ":" + engine::runtime::focusRoleName(f.role));
    return out;
}

/// Index of the `nth` event of `kind` in call `call`.
int eventOf(const engine::runtime::Simulation& sim, int call, EventKind kind)
{
    for (const auto& e : sim.events)
        if (e.call == call && e.kind == kind)
            return e.index;
    return -1;
}

} // namespace

TEST(EventFocus, InputUpdateOutlinesCopiedAndKeptPlaceholders)
{
    const Stepped s = simulateTiny({ { "frozen_parameter", true } }, { call(4), call(4) });
    const int update = eventOf(s.sim, 1, EventKind::InputUpdate);
    ASSERT_GE(update, 0);
    // x is copied into its staging buffer; the weight and the mutated kv keep their addresses.
    EXPECT_EQ(focusOf(s, update), (std::vector<std::string> { "w:kept", "kv:kept", "x:copied" }));
}

TEST(EventFocus, OutputsAreReturnedOrRebuilt)
{
    // One key: its retained outputs are returned as they are.
    const Stepped one = simulateTiny({ { "frozen_parameter", true } }, { call(4), call(4) });
    EXPECT_EQ(focusOf(one, eventOf(one.sim, 1, EventKind::Outputs)), (std::vector<std::string> { "out:returned" }));
    // Two keys share the pool: back on key [1], its dead outputs are rebuilt at their captured address.
    const Stepped two = simulateTiny({ { "frozen_parameter", true } }, { call(1), call(2), call(1) });
    ASSERT_GT(two.sim.calls[2].outputsRebuilt, 0);
    EXPECT_EQ(focusOf(two, eventOf(two.sim, 2, EventKind::Outputs)), (std::vector<std::string> { "out:rebuilt" }));
}

TEST(EventFocus, ReplayOutlinesTheOutputItOverwrites)
{
    // Call 0's output is held; call 1's replay overwrites it.
    const Stepped s = simulateTiny({ { "frozen_parameter", true } }, { call(4, {}, 1), call(4), call(4) });
    const int replay = eventOf(s.sim, 1, EventKind::Replay);
    ASSERT_GE(replay, 0);
    EXPECT_EQ(focusOf(s, replay), (std::vector<std::string> { "out:hazard" }));
    // The next replay overwrites nothing still held.
    EXPECT_TRUE(focusOf(s, eventOf(s.sim, 2, EventKind::Replay)).empty());
}

TEST(EventFocus, WholeGraphEventsAndBadIndicesNameNothing)
{
    const Stepped s = simulateTiny({ { "frozen_parameter", true } }, ordered_json::array({ call(4) }));
    EXPECT_TRUE(focusOf(s, eventOf(s.sim, 0, EventKind::Capture)).empty());
    EXPECT_TRUE(focusOf(s, -1).empty());
    EXPECT_TRUE(focusOf(s, int(s.sim.events.size())).empty());
}
