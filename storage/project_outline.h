#pragma once
/// The project at a glance: the tree the window's Project view shows (and reports list), read from
/// the database in a few queries without loading graphs, code or events.
///
///   Sources                    one row per imported file or folder
///   Graphs                     per source, per group of stages: its graphs in stage order; under
///                              each graph the stages our passes produced from it
///   Compile caches             per source, per model folder, per rank folder: the entries
///   Simulation runs            newest first
#include "storage/sqlite.h"

#include <cstdint>
#include <string>
#include <vector>

namespace storage {

struct OutlineNode {
    /// "project", "section", "source", "group", "graph" (roles graph/module/cache), "stage",
    /// "pass_result", "cache_model", "cache_rank", "cache_entry", "run".
    std::string kind;
    std::string label;
    std::string detail; ///< one line: "1,234 nodes", "loads", "13 calls, 2 recaptures, ..."
    int64_t id = 0; ///< the row id in its table (sources, graphs, cache_entries, runs); 0 for folders
    bool problem = false; ///< an unreadable stage, a cache TorchAir would not load, a run with hazards
    std::vector<OutlineNode> children;
};

/// The whole tree; the root has kind "project" and the four sections, always, even when empty.
Result<OutlineNode> readOutline(Database& db);

} // namespace storage
