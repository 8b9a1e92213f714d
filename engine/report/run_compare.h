#pragma once
/// Two runs side by side (the GUI's Compare tab, and a comparison report): their configuration,
/// totals, FX graphs, memory and hazards as rows of text, each marked when the two runs differ. Rows
/// pair up by meaning, never by position: FX graphs by their TorchAir name, hazards by kind, memory
/// pools by the graphs using them (a custom pool shared by two graphs faces the two private pools it
/// replaces: "pool of graph_1, graph_2 peak reserved").
///
/// A recorded run (Simulation::origin Recorded: a memory snapshot imported as a run,
/// engine/snapshot/snapshot_run.h) names its
/// pools by capture code, never by TorchAir graph, so against a simulated run its pools pair by order
/// of creation instead (one "pools paired by order of creation ..." row says so):
/// - the default pool (0, 0) faces the default pool (the simulator keeps no record of its default
///   pool, so the recording's stands alone);
/// - the recording's private pools, in pool-id order, face the simulation's in the order it created
///   them (its graphs' compile order), the i-th the i-th. Both PyTorch/torch_npu and the simulator
///   number graph_pool_handle() pools (0, uid) from one ascending counter, and TorchAir takes one
///   per FX graph; pools of captures without a handle, (uid, 0) from a second counter, come after
///   them, as the file cannot tell how the two counters interleave;
/// - a custom pool the simulation shares among its graphs faces all of the recording's private
///   pools at once (their peaks summed), as it faces the private pools it replaces above;
/// - pools left over on either side stand alone, "—" on the other.
/// Each such row names both: "pool (0, 1) [torch.cuda.graph capture from train.py:42] ~ graph_1's
/// pool peak reserved" (run A's pool first, "—" for none). No "kind" row: a recording cannot
/// tell a private pool from a user's pool handle. Two recordings, or two simulations, pair by graphs.
#include "engine/runtime/simulator.h"

#include <string>
#include <utility>
#include <vector>

namespace engine::report {

struct CompareRow {
    /// "config", "totals", "graphs", "memory", "hazards", "CUDA graph steps", "calls" (when a run is a
    /// log: the calls it shows against the other run's, in order, a row per call that disagrees)
    std::string section;
    std::string metric; ///< "captures", "graph_1 replays", "pool of graph_1, graph_2 peak reserved", ...
    std::string a, b; ///< the values as shown; "—" where a run has no such item
    bool differs = false; ///< the underlying values differ (bytes compared exactly, not as printed)
    /// Rows of the "calls" section: the call of each run the row shows (CallRecord::index), -1 for none.
    int callA = -1, callB = -1;
};

struct RunComparison {
    std::string labelA, labelB;
    std::vector<CompareRow> rows; ///< by section in the order above
    int differing = 0; ///< rows with differs set
    /// The first row of the "calls" section that differs (the first call the runs disagree on), -1 for none.
    int firstCallDisagreement = -1;
};

/// Where a run's figures come from: runtime::Simulation::origin's kind (Simulated, predicted by
/// the simulator; Recorded, a real memory snapshot imported as a run).
using RunOrigin = runtime::RunOriginKind;

/// The run's origin (Simulation::origin.kind): what compareRuns pairs its pools and config by.
RunOrigin runOriginOf(const runtime::Simulation& sim);

/// Compares `a` with `b`. `configA` / `configB` are each simulated run's options as (name, value)
/// pairs (report/run_config.h runConfigPairs): a stored run does not rebuild Simulation::options, so
/// the caller passes them; a recorded run's config is its allocator settings
/// (Simulation::origin.allocatorSettings) and whatever is passed for it is ignored. The config
/// section starts with each run's origin ("recorded: memory snapshot (...)" / "simulated") and
/// backend ("—" for a recording); settings are matched by name, in A's order then B's. When exactly
/// one run is Recorded, pools pair by order of creation (above), and each side's settings are
/// stated beside "not recorded" / "not simulated", never counted as differences.
RunComparison compareRuns(const runtime::Simulation& a, const runtime::Simulation& b, const std::string& labelA,
    const std::string& labelB, const std::vector<std::pair<std::string, std::string>>& configA = {},
    const std::vector<std::pair<std::string, std::string>>& configB = {});

/// Aligned plain text: the two labels, one line per row (section, metric, A, B, "*" when it
/// differs), and the number of differing rows.
std::string comparisonText(const RunComparison& comparison);

/// {"format": "aclgraph-inspector-comparison", "version": 1, "a": label, "b": label, "differing": N,
/// "rows": [{"section", "metric", "a", "b", "differs"}]}, `indent` spaces (-1: one line).
std::string comparisonJson(const RunComparison& comparison, int indent = 2);

} // namespace engine::report
