#pragma once
/// Simulating again what a stored run simulated, with settings changed, and storing the result next
/// to it: the config form's "what if". Also the one place a fresh Simulation becomes a stored run
/// with its source linked (`simulate --db` uses it too).
///
/// Thread contract: every function opens or takes its own connection and may run on any thread;
/// resimulate() is meant for a worker thread and asks `progress` on it.
#include "engine/runtime/memory_timeline.h"
#include "engine/runtime/simulator.h"
#include "storage/sqlite.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace storage {

/// Writes `sim` and its memory timeline as a new run in one transaction (rolled back on error),
/// linked to the imported source whose path is `scenarioPath` made absolute (the newest such), if
/// any, or to `sourceId` when given (a source simulated from the window: simulate_source.h).
/// `overrides` are the NAME=VALUE settings given on top of the scenario's config. Returns runs.id.
Result<int64_t> storeSimulation(Database& db, const std::string& scenarioPath, const engine::runtime::Simulation& sim,
    const engine::runtime::MemoryTimeline& timeline, const std::vector<std::string>& overrides,
    std::optional<int64_t> sourceId = std::nullopt);

/// The NAME=VALUE overrides stored with run `runId` (empty for a run of the scenario's own config).
Result<std::vector<std::string>> readRunOverrides(Database& db, int64_t runId);

struct ResimulateRequest {
    std::string dbPath;
    int64_t baseRunId = 0;
    /// NAME=VALUE, applied on top of the base run's own overrides, later wins (either spelling of
    /// an option replaces the other: engine::config::mergeSettings).
    std::vector<std::string> overrides;
    /// (calls done, calls total) while simulating; returns true to cancel. May be empty.
    std::function<bool(int done, int total)> progress;
};

struct ResimulateResult {
    int64_t runId = 0;
    bool reused = false; ///< an existing run with the same scenario path and overrides; nothing was simulated
};

/// Simulates the base run's scenario (read again from its path) under the merged overrides, with
/// its memory timeline, and stores it (overrides written as NAME=repr(VALUE), each option once).
/// A finished run of the same scenario path with the same merged overrides (in any order) is
/// returned instead, reused = true. Errors, nothing written: an override that is not NAME=VALUE
/// with a Python literal; an invalid value, with TorchAir's message for the first invalid setting
/// and the option's name as context; the scenario file gone (naming it); a cancel
/// (ErrorCode::Cancelled). A graph file is simulated with no symbol values and as many rounds of
/// calls as the base run made.
Result<ResimulateResult> resimulate(const ResimulateRequest& request);

} // namespace storage
