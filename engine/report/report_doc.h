#pragma once
/// Reports people read without the app (issue 7). A report is first one JSON document holding every
/// fact (docs/report-json.md); each written format is a view of that document, so that Markdown,
/// JSON and, later, HTML and PDF carry the same facts.
///
/// It covers simulation runs (a scenario or graph simulated, or the runs of a project) with, per FX
/// graph, the pass reports and the graph drawn; compile-cache entries with their checks and key
/// explanation; and the comparison of two runs.
#include "engine/cache/cache_scan.h"
#include "engine/core/result.h"
#include "engine/passes/pass_report.h"
#include "engine/report/run_compare.h"
#include "engine/runtime/simulator.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace engine::report {

/// One graph drawn: the SVG text of the view (a standalone <svg> with width, height and viewBox)
/// and how much of the graph it shows.
struct GraphDrawing {
    int nodes = 0; ///< nodes in the graph
    int items = 0; ///< boxes drawn (nodes and folded groups)
    bool folded = false; ///< some groups are drawn folded (items stand for more nodes)
    std::string svg;
};

struct ReportRun {
    const runtime::Simulation* sim = nullptr;
    std::string label; ///< "run 4 · The KV cache moves", or the scenario's name
    /// The run's config as simulationConfigJson writes it. Empty: taken from sim->options (a run
    /// just simulated; a stored run's Simulation does not rebuild its options, so pass its JSON).
    std::string configJson;
    /// Per FX graph, by TorchAir name ("graph_1"): the reduce-overhead pass reports, in pass order.
    /// A graph without an entry has none (a stored run whose graph was never passed).
    std::map<std::string, std::vector<passes::PassReport>> passes;
    /// Per FX graph, by TorchAir name: the graph drawn. The engine has no Graphviz: the caller
    /// (gui/report) lays the graph out and gives the SVG.
    std::map<std::string, GraphDrawing> drawings;
    /// Per FX graph, by TorchAir name: why its passes or drawing are missing, for people.
    std::map<std::string, std::string> graphNotes;
};

/// Compile-cache entries to report: a scanned folder or file, or the entries a project keeps.
struct ReportCaches {
    std::string source; ///< the input as given: the folder, the compiled_module or the project
    /// true: the entries come from the project database, which keeps the checks, log and key
    /// options but not the pickle, so the reports carry no `artifact` for them.
    bool fromProject = false;
    const cache::CacheScan* scan = nullptr;
    /// Per entry (index for index with scan->entries): the key options of its signature as
    /// "k=v" lines; when absent, taken from the entry's artifact.
    std::vector<std::vector<std::string>> entryOptions;
};

struct ReportInput {
    std::string title;
    std::string generator; ///< "aclgraph-inspector 0.1.0"
    std::vector<ReportRun> runs;
    std::vector<ReportCaches> caches;
    const RunComparison* comparison = nullptr;
};

/// The report document (format "aclgraph-inspector-report", version 1), pretty-printed.
std::string reportJson(const ReportInput& input);

/// The document as Markdown: per run its summary, config (options away from their default in
/// bold), FX graphs, memory per pool and over the calls, hazards and warnings, pass reports and the
/// drawings' sizes (the drawing itself is in the HTML); then the cache entries and the comparison.
/// Error when `reportJsonText` is not such a document.
Result<std::string> reportMarkdown(const std::string& reportJsonText);

} // namespace engine::report
