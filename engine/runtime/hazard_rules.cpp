#include "engine/runtime/hazard_rules.h"

namespace engine::runtime::rules {

std::string recaptureStorm(
    const std::string& graph, int call, int mutatedInput, int coreLimit, int force, const std::string& limitName)
{
    return graph + " has been recaptured " + std::to_string(mutatedInput + coreLimit + force) + " times by call "
        + std::to_string(call) + " (mutated input moved: " + std::to_string(mutatedInput)
        + ", core limit changed: " + std::to_string(coreLimit) + ", force_recapture: " + std::to_string(force)
        + "). Each recapture costs a capture and counts against " + limitName
        + "; keep mutated inputs such as the KV cache at one address.";
}

} // namespace engine::runtime::rules
