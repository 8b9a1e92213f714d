#pragma once
/// The two ways `aclgraph-inspector simulate` reports a Simulation: the text log (TorchAir's lines,
/// then hazards and a summary) and the JSON summary documented in docs/simulate-json.md.
#include "engine/runtime/simulator.h"

#include <cstdint>
#include <string>

namespace engine::report {

/// One log line as printed: "[INFO] TORCHAIR call 3: <text>" or "UserWarning: <text>".
std::string formatLogLine(const runtime::LogLine& line, const std::string& tag, int call);
/// The tag a run's log lines carry: "TORCHAIR", "NPUGRAPH_EX", or "PYTORCH" for CUDA Graph Trees.
std::string logTag(const runtime::Simulation& sim);

/// `bytes` in MiB with two decimals ("12.50 MiB"), as the reports print memory.
std::string formatMiB(uint64_t bytes);

/// What a pool is, by the run's origin: "default" for (0, 0); a simulation's "private" (one graph's)
/// or "custom" (the user-given pool TorchAir's graphs share); a recording's "graph pool" ((0, N): a
/// graph_pool_handle() shared by the captures given it) or "private pool" ((N, 0): a capture's own).
std::string poolKindName(const runtime::PoolRecord& pool, runtime::RunOriginKind origin);

/// A recording's device capacity where the file did not tell it: "not recorded"; else the capacity
/// in MiB.
std::string capacityText(const runtime::Simulation& sim);

/// The text report: every log line at or above `minLevel`, then hazards and a per-graph summary.
std::string simulationText(const runtime::Simulation& sim, runtime::LogLevel minLevel);

/// The "config" object of the JSON summary: the settings as written, the effective options under
/// the backend's spelling, and notes. The project database stores it with each run.
std::string simulationConfigJson(const config::Options& options, int indent = -1);
/// The same for a CUDA Graph Trees run's PyTorch options: "written" as given, "effective" every
/// modelled option of config::cudaOptionTable() by its canonical name, "notes".
std::string cudaConfigJson(const config::CudaOptions& options, int indent = -1);
/// The config of a run made in this process: cudaConfigJson when it ran CUDA Graph Trees.
std::string simulationConfigJson(const runtime::Simulation& sim, int indent = -1);

/// The JSON summary (docs/simulate-json.md), `indent` spaces (-1: one line).
std::string simulationJson(const runtime::Simulation& sim, int indent = 2);

} // namespace engine::report
