#pragma once
/// Reports people read without the app (issue 7). A report is first one JSON document holding every
/// fact (docs/report-json.md); each written format is a view of that document, so that Markdown,
/// JSON and, later, HTML and PDF carry the same facts.
///
/// This first part covers simulation runs (a scenario or graph simulated, or the runs of a project)
/// and the comparison of two runs.
#include "engine/core/result.h"
#include "engine/report/run_compare.h"
#include "engine/runtime/simulator.h"

#include <string>
#include <vector>

namespace engine::report {

struct ReportRun {
    const runtime::Simulation* sim = nullptr;
    std::string label; ///< "run 4 · The KV cache moves", or the scenario's name
    /// The run's config as simulationConfigJson writes it. Empty: taken from sim->options (a run
    /// just simulated; a stored run's Simulation does not rebuild its options, so pass its JSON).
    std::string configJson;
};

struct ReportInput {
    std::string title;
    std::string generator; ///< "aclgraph-inspector 0.1.0"
    std::vector<ReportRun> runs;
    const RunComparison* comparison = nullptr;
};

/// The report document (format "aclgraph-inspector-report", version 1), pretty-printed.
std::string reportJson(const ReportInput& input);

/// The document as Markdown: per run its summary, config (options away from their default in
/// bold), FX graphs, memory per pool and over the calls, hazards and warnings; then the comparison.
/// Error when `reportJsonText` is not such a document.
Result<std::string> reportMarkdown(const std::string& reportJsonText);

} // namespace engine::report
