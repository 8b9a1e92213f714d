#pragma once
/// The explanations of a CUDA Graph Trees run's hazards (Simulation::cuda set): the same fields as
/// TorchAir's (hazard_explain.h), with PyTorch's rules, option names and texts
/// (docs/cuda-graph-trees.md). explainHazard() hands such runs here.
#include "engine/report/hazard_explain.h"

namespace engine::report {

HazardExplanation explainCudaHazard(const engine::runtime::Simulation& sim, int hazardIndex);

} // namespace engine::report
