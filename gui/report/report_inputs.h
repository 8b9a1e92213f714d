#pragma once
/// Loading what a report is made of (report_builder.h): scenarios and graphs simulated here, the runs
/// and cache entries of a project, and compile-cache folders or files scanned. Per FX graph of a run
/// it adds the reduce-overhead pass reports (run here with the run's options, or as the project
/// stored them) and the graph drawn folded, as the Graph view first shows it (gui/graph).
#include "engine/cache/cache_scan.h"
#include "engine/config/setting_text.h"
#include "engine/core/result.h"
#include "engine/graph/graph.h"
#include "engine/passes/pass_report.h"
#include "engine/readers/torch_trace.h"
#include "engine/report/report_doc.h"
#include "engine/report/run_compare.h"
#include "engine/runtime/simulator.h"

#include <deque>
#include <map>
#include <string>
#include <vector>

namespace gui::report {

struct LoadedRun {
    engine::runtime::Simulation sim; ///< sim.origin: simulated here or stored, or recorded (a snapshot)
    std::string label;
    std::string configJson; ///< empty for a run simulated here
    std::map<std::string, std::vector<engine::passes::PassReport>> passes; ///< by TorchAir graph name
    std::map<std::string, engine::report::GraphDrawing> drawings;
    std::map<std::string, std::string> notes;
};

struct LoadedCaches {
    std::string source;
    bool fromProject = false;
    engine::cache::CacheScan scan;
    std::vector<std::vector<std::string>> entryOptions; ///< project entries: their stored key options
};

/// Everything loaded, in input order. Deques: the report document points into them.
struct LoadedInputs {
    std::deque<LoadedRun> runs;
    std::deque<LoadedCaches> caches;
};

/// Every run of the project at `path`, oldest first, each FX graph with its stored pass reports and
/// the stored graph drawn; then the project's cache entries.
/// `only`: just these runs (by id, in this order), and no cache entries; empty: everything.
engine::Result<void> loadProject(const std::string& path, const std::vector<int64_t>& only, LoadedInputs& into);

/// The scenario or graph simulated with its own config, then (when `settings` is not empty) a second
/// time with them on top; each run's FX graphs get the passes run with that run's options.
/// `trace`: `input` is this TORCH_TRACE, already read (null: read `input`).
engine::Result<void> loadSimulated(const std::string& input, const std::vector<engine::config::Setting>& settings,
    LoadedInputs& into, const std::vector<engine::readers::trace::TorchTrace>* trace = nullptr);

/// Each device of the snapshot as a run (snapshot_run.h): its pools with their graphs and peaks,
/// memory over its trace entries. `trace` (a TORCH_TRACE of the same run, null = none) names its
/// compile ids and recordings (engine/ingest/snapshot_hints.h).
engine::Result<void> loadSnapshot(const std::string& path, LoadedInputs& into,
    const std::vector<engine::readers::trace::TorchTrace>* trace = nullptr);
/// Each process of a run log as a recorded run (engine/ingest/run_log.h); the log's own notes (foreign
/// lines, a cut) go to the first run's notes.
engine::Result<void> loadRunLog(const std::string& path, LoadedInputs& into);
/// The first TORCH_TRACE among `inputs` ("" when none): read once, it is simulated and names the
/// compiles of a snapshot of the same run.
std::string traceAmong(const std::vector<std::string>& inputs);

/// The folder or file scanned as `cache ls` scans it.
engine::Result<void> loadCache(const std::string& path, LoadedInputs& into);

/// `graph` folded as the Graph view first shows it (nodes the reports rewrote marked), laid out
/// with Graphviz in process and drawn as SVG. Error when the layout fails (a view too large).
engine::Result<engine::report::GraphDrawing> drawGraph(
    const engine::Graph& graph, const std::vector<engine::passes::PassReport>& reports);

} // namespace gui::report
