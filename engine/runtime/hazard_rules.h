#pragma once
/// This product's own hazard rules that more than one room applies, so that the simulator
/// (simulator.cpp, cgt/cgt_run_calls.cpp) and the log reader (ingest/torchair_log.cpp,
/// ingest/pytorch_log.cpp) raise the same hazard at the same count, in the same words. These are
/// not TorchAir's or PyTorch's texts (those are torchair_text.h's and cgt's).
#include <string>

namespace engine::runtime::rules {

/// Recaptures of one FX graph, or re-records of one CUDA graph function, that make a storm: the third.
constexpr int kStormAt = 3;

/// "graph_2 has been recaptured 3 times by call 7 (mutated input moved: 3, core limit changed: 0,
/// force_recapture: 0). Each recapture costs a capture and counts against LIMIT; keep mutated inputs
/// such as the KV cache at one address." `limitName`: the capture limit's option as the run spells it.
std::string recaptureStorm(
    const std::string& graph, int call, int mutatedInput, int coreLimit, int force, const std::string& limitName);

} // namespace engine::runtime::rules
