#pragma once
/// Simulating a file: what `simulate FILE --db` does and what the window's Graph > Simulate… does
/// for an imported source (a graph file, a scenario, TorchAir's output_code.py, a TORCH_COMPILE_DEBUG
/// folder, a cache's compiled_module), and the one place that loads a file, checks the settings and
/// simulates it with its memory timeline (resimulate() goes through it too).
///
/// Thread contract: simulateFile() and simulateSource() run on the calling thread (meant for a
/// worker) and ask `progress` on it; simulateSource() opens its own read-write connection. The
/// Database& functions use the connection they are given.
#include "engine/graph/graph.h"
#include "engine/runtime/memory_timeline.h"
#include "engine/runtime/simulator.h"
#include "storage/sqlite.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace storage {

struct SimulateFileRequest {
    std::string path;
    /// NAME=VALUE with a Python literal (either spelling of an option), as `simulate --set`.
    std::vector<std::string> overrides;
    engine::SymbolValues symbols; ///< values of the symbols the graphs' sizes use (s0=4, ...)
    int calls = 2; ///< rounds of calls of a graph file (a scenario has its own calls)
    std::vector<std::string> inputKinds; ///< as `simulate --input-kind` (engine::scenario::applyInputKinds)
    /// `simulate --call-list FILE`: the calls, replacing the scenario's or the ones made for a graph
    /// or trace (engine::scenario::readCallList); "" = none.
    std::string callList;
    /// `simulate LOG --graphs SRC`: `path` is a run log and this the job's graphs (a debug folder, generated
    /// module, cache file, FX graph or scenario): the scenario is the log's run
    /// (engine::scenario::loadLogScenario). "" = none.
    std::string graphs;
    std::string run; ///< with `graphs`: which run of the log ("" = its only one), as `simulate --run`
    bool recordMemory = true; ///< keep the memory timeline (every step's memory), needed to store the run
    /// (calls done, calls total) while simulating; returns true to cancel. May be empty.
    std::function<bool(int done, int total)> progress;
};

struct SimulatedFile {
    engine::runtime::Simulation sim;
    std::unique_ptr<engine::runtime::MemoryTimeline> timeline; ///< null unless recordMemory
    std::vector<std::string> diagnostics; ///< the readers' warnings and notes about the file
};

/// Loads `path` (engine::scenario::loadScenarioOrGraph), sets its input kinds, checks the overrides
/// as TorchAir would (the error names the first invalid option) and simulates it. Errors: the file's
/// own (naming it), a malformed override or input kind, an invalid value, a cancel (ErrorCode::Cancelled).
Result<SimulatedFile> simulateFile(const SimulateFileRequest& request);

struct SimulateSourceRequest {
    std::string dbPath;
    int64_t sourceId = 0; ///< sources.id
    /// A cache entry of the source (cache_entries.id) to simulate instead of the source as a whole:
    /// its compiled_module file. 0: the source itself.
    int64_t cacheEntryId = 0;
    std::vector<std::string> overrides; ///< NAME=VALUE (either spelling), as `simulate --set`
    engine::SymbolValues symbols; ///< s0=4,... for graphs with symbolic sizes
    int calls = 2;
    std::vector<std::string> inputKinds; ///< as `simulate --input-kind`
    std::function<bool(int done, int total)> progress; ///< true: cancel
};

struct SimulateSourceResult {
    int64_t runId = 0;
    std::vector<std::string> diagnostics;
};

/// Simulates the source's file as imported and stores the run with its memory timeline, linked to
/// the source (readRun's graphIds then map each TorchAir graph name to the imported graph). Errors,
/// nothing written: the source unknown or not simulatable (describeSource's why), its file gone or
/// changed since the import (naming the file), simulateFile's errors.
Result<SimulateSourceResult> simulateSource(const SimulateSourceRequest& request);

/// What the dialog needs before simulating.
struct SimulatableSource {
    int64_t sourceId = 0;
    int64_t cacheEntryId = 0; ///< set when a cache entry is to be simulated (path is its file)
    std::string path; ///< the file or folder simulated
    std::string kind; ///< sources.kind ("fx_graph", "scenario", ...)
    bool simulatable = false;
    std::string why; ///< when not simulatable: why, in words
    std::vector<std::string> symbols; ///< symbols the graphs' sizes use and the file gives no value for
    /// What each symbol stands for, where the graph tells ("the SymInt input arg0_1", "dim 0 of input x").
    std::map<std::string, std::string> symbolMeanings;
};
/// Reads the source row and, when its kind can be simulated, its file (to list the symbols).
/// Error: no such source. A file that cannot be read is no error: simulatable is false and why says so.
Result<SimulatableSource> describeSource(Database& db, int64_t sourceId);
/// The same for one cache entry (its compiled_module file, under its cache's source).
Result<SimulatableSource> describeCacheEntry(Database& db, int64_t entryId);

/// The source of graph `graphId` / of cache entry `entryId` (whichever the Project view picked).
Result<int64_t> sourceOfGraph(Database& db, int64_t graphId);
Result<int64_t> sourceOfCacheEntry(Database& db, int64_t entryId);

} // namespace storage
