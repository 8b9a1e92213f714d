#pragma once
/// Two simulation runs side by side (the GUI's Compare tab, and a comparison report): their
/// configuration, totals, FX graphs, memory and hazards as rows of text, each marked when the two
/// runs differ. Rows pair up by meaning, never by position: FX graphs by their TorchAir name, memory
/// pools by the graphs using them (a custom pool shared by two graphs faces the two private pools it
/// replaces), hazards by kind.
#include "engine/runtime/simulator.h"

#include <string>
#include <utility>
#include <vector>

namespace engine::report {

struct CompareRow {
    std::string section; ///< "config", "totals", "graphs", "memory", "hazards"
    std::string metric; ///< "captures", "graph_0 replays", "pool of graph_0, graph_1 peak reserved", ...
    std::string a, b; ///< the values as shown; "—" where a run has no such item
    bool differs = false; ///< the underlying values differ (bytes compared exactly, not as printed)
};

struct RunComparison {
    std::string labelA, labelB;
    std::vector<CompareRow> rows; ///< by section in the order above
    int differing = 0; ///< rows with differs set
};

/// Compares `a` with `b`. `configA` / `configB` are each run's options as (name, value) pairs
/// (report/run_config.h runConfigPairs): a stored run does not rebuild Simulation::options, so the
/// caller passes them; with both empty the config section holds only the backend. Options are
/// matched by name, in A's order then B's.
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
