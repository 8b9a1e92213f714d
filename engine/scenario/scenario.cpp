#include "engine/scenario/scenario.h"

namespace engine::scenario {

const Graph* Scenario::graph(const std::string& id) const
{
    for (const Graph& g : graphs) {
        if (g.id == id)
            return &g;
    }
    return nullptr;
}

} // namespace engine::scenario
