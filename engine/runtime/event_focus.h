#pragma once
/// Which nodes of an FX graph one simulated event is about, so that the graph view can outline them
/// while the user steps: the placeholders an input update copied or left alone, the nodes whose
/// results a call returned (rebuilt at their captured addresses or not), the tensors a hazard names.
/// Capture, replay and eager events concern the whole graph: they name only the nodes of the hazards
/// their call found in that graph.
#include "engine/graph/graph.h"
#include "engine/runtime/simulator.h"

#include <string>
#include <vector>

namespace engine::runtime {

enum class FocusRole {
    Copied, ///< an input update copied into this placeholder's captured address
    Kept, ///< an input update left this placeholder alone (same address, parameter, in place)
    Returned, ///< produces an output the call returned as it was (retained or still alive)
    Rebuilt, ///< produces an output the call rebuilt at its captured address
    Hazard, ///< a hazard names this node's tensor
};
const char* focusRoleName(FocusRole r); ///< "copied", "kept", "returned", "rebuilt", "hazard"

struct FocusNode {
    int node = 0; ///< index into Graph::nodes
    FocusRole role = FocusRole::Kept;
    std::string why; ///< the input action or hazard kind, in words
};

/// The nodes of `graph` that event `event` of `sim` concerns, in node order, each once. `graph` must
/// be the FX graph the event belongs to (Event::graph); names that it lacks are skipped. Empty for
/// events about the whole graph or none.
std::vector<FocusNode> eventFocus(const Graph& graph, const Simulation& sim, int event);

} // namespace engine::runtime
