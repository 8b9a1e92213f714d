#pragma once
/// A hazard of a run explained for the person who has to fix it: what happened (this hazard's call,
/// graph, key and tensor filled in), why the runtime does that (the rule, in plain words), which
/// options or code changes avoid it, the lines TorchAir (or PyTorch) printed for it, and where the
/// rule comes from. Built from the Simulation alone, so that a run read back from the project
/// database (storage::readRun: no options rebuilt, only the backend) explains the same way as one
/// simulated in this process: the option values it states are those the hazard itself proves
/// (an overwritten output means clone_output was off), never the Simulation's defaults.
///
/// The facts come from torchair-behavior.md ("TB"), npu-caching-allocator.md ("NA"),
/// pytorch-artifact-formats.md §2d (CUDA Graph Trees) and the simulator's own rules
/// (docs/simulator.md, "Hazards"). Option names come from config::optionTable().
#include "engine/report/details.h"
#include "engine/runtime/simulator.h"

#include <string>
#include <vector>

namespace engine::report {

struct HazardExplanation {
    std::string title; ///< one line: "Output overwritten by a later replay"
    std::string what; ///< what happened, with this hazard's call/graph/key/tensor filled in
    std::string why; ///< why the runtime does this (the rule, in plain words)
    /// Options (their real names in the run's backend, both backends' when it is not known) or code
    /// changes that avoid it, each one line.
    std::vector<std::string> avoid;
    /// The lines the run printed for it, verbatim ("UserWarning: ..." for a warnings.warn text,
    /// "[WARNING] ..." / "[DEBUG] ..." for a logger line), or the error text the runtime raises for it.
    std::vector<std::string> quotes;
    /// Who prints the quotes: "TorchAir", "npugraph_ex", "torch_npu's caching allocator", ...; empty with
    /// no quotes.
    std::string quotesFrom;
    std::string source; ///< where the rule comes from (reference section, file and function)
};

/// Explains sim.hazards[hazardIndex]. An index outside the run gives a title saying so and every other
/// field empty.
HazardExplanation explainHazard(const engine::runtime::Simulation& sim, int hazardIndex);

/// The event that shows hazard `hazardIndex` (0-based into sim.events), or -1 when the run has none
/// (no events recorded, or an index outside the run). A fallback or an out-of-memory hazard has an
/// event of its own (Event::hazard); the others arise inside a step of their call, the event of the
/// hazard's call and graph where the simulator finds them: the replay for an overwritten output, the
/// input update for an overwritten user input or a stale parameter, the capture for a recapture storm
/// or a stale checkpoint (else the output step), and the call's first event of its graph for a
/// cross-device input (found while the call binds its inputs, before any event of its own).
int hazardEvent(const engine::runtime::Simulation& sim, int hazardIndex);

/// hazardEvent of every hazard, in hazard order (one pass over the hazards; each looks only at its
/// call's events).
std::vector<int> hazardEvents(const engine::runtime::Simulation& sim);

/// The explanation as an Inspector row: key "explanation", value the title, children "what", "why",
/// "avoid" (one child per way, numbered), "<quotesFrom> says" (one child per quote) and "source".
Detail explanationRow(const HazardExplanation& explanation);

/// Plain text: the title, then "What:", "Why:", "How to avoid:" (bulleted), the quotes and the source,
/// for a copy to the clipboard or a report.
std::string explanationText(const HazardExplanation& explanation);

} // namespace engine::report
