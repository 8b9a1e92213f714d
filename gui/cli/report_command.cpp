// `report INPUT... -o FILE`: a report of scenarios and graphs (simulated) and of the runs of
// projects, as JSON or Markdown (engine/report/report_doc.h). With --compare and exactly two runs,
// the report ends with their comparison.
#include "engine/report/report_doc.h"
#include "engine/report/report_html.h"
#include "engine/report/run_compare.h"
#include "engine/report/run_config.h"
#include "engine/scenario/load.h"
#include "gui/cli/commands.h"
#include "storage/project_db.h"
#include "storage/run_store.h"

#include <deque>
#include <filesystem>
#include <ostream>

namespace gui::cli {

namespace {

struct LoadedRun {
    engine::runtime::Simulation sim;
    std::string label;
    std::string configJson; ///< empty for a run simulated here
};

bool endsWith(const std::string& s, const std::string& tail)
{
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

/// Every run of the project at `path`, oldest first.
int loadProject(const std::string& path, std::deque<LoadedRun>& runs, std::ostream& err)
{
    storage::Database::OpenOptions readOnly;
    readOnly.readOnly = true;
    readOnly.create = false;
    auto db = storage::openProject(path, readOnly);
    if (!db) {
        err << "error: " << db.error().toString() << "\n";
        return 1;
    }
    auto list = storage::listRuns(*db);
    if (!list) {
        err << "error: " << list.error().toString() << "\n";
        return 1;
    }
    for (const storage::RunRow& row : *list) {
        auto run = storage::readRun(*db, row.id);
        if (!run) {
            err << "error: " << run.error().toString() << "\n";
            return 1;
        }
        const std::string name = row.scenarioName.empty() ? row.scenarioPath : row.scenarioName;
        runs.push_back({ std::move(run->sim), "run " + std::to_string(row.id) + " · " + name, run->configJson });
    }
    return 0;
}

} // namespace

int reportCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    std::vector<std::string> inputs;
    std::string outPath, title;
    bool compare = false;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if ((a == "-o" || a == "--title") && i + 1 < args.size())
            (a == "-o" ? outPath : title) = args[++i];
        else if (a == "--compare")
            compare = true;
        else if (!a.empty() && a[0] == '-') {
            err << "report: unknown option " << a << "\n";
            return 2;
        } else
            inputs.push_back(a);
    }
    if (inputs.empty() || outPath.empty()) {
        err << "usage: aclgraph-inspector report INPUT... -o FILE.json|FILE.md|FILE.html [--compare] [--title TEXT]\n"
               "  INPUT: a scenario or FX graph file (simulated with its own config) or a project (.aclgi: its runs)\n";
        return 2;
    }
    const bool json = endsWith(outPath, ".json"), markdown = endsWith(outPath, ".md"),
               html = endsWith(outPath, ".html");
    if (!json && !markdown && !html) {
        err << "report: " << outPath
            << ": write .json, .md or .html (PDF reports are not written yet; see docs/report-json.md)\n";
        return 2;
    }
    std::deque<LoadedRun> runs; // stable addresses: the report points into them
    for (const std::string& input : inputs) {
        if (endsWith(input, ".aclgi")) {
            if (int rc = loadProject(input, runs, err))
                return rc;
            continue;
        }
        auto scenario = engine::scenario::loadScenarioOrGraph(input);
        if (!scenario) {
            err << "error: " << scenario.error().toString() << "\n";
            return 1;
        }
        auto sim = engine::runtime::simulate(scenario.value());
        if (!sim) {
            err << "error: " << sim.error().toString() << "\n";
            return 1;
        }
        const std::string name
            = scenario->name.empty() ? std::filesystem::path(input).filename().string() : scenario->name;
        runs.push_back({ std::move(sim.value()), name, {} });
    }
    if (compare && runs.size() != 2) {
        err << "report: --compare needs exactly two runs (got " << runs.size() << ")\n";
        return 2;
    }
    engine::report::ReportInput report;
    report.title = !title.empty() ? title
        : runs.size() == 1        ? runs.front().label
                                  : "aclgraph-inspector report: " + std::to_string(runs.size()) + " runs";
#ifdef ACLGI_VERSION
    report.generator = "aclgraph-inspector " ACLGI_VERSION;
#else
    report.generator = "aclgraph-inspector";
#endif
    for (const LoadedRun& r : runs)
        report.runs.push_back({ &r.sim, r.label, r.configJson });
    engine::report::RunComparison comparison;
    if (compare) {
        auto pairs = [](const LoadedRun& r) {
            return r.configJson.empty() ? engine::report::runConfigPairs(r.sim.options)
                                        : engine::report::runConfigPairs(r.sim.options.backend, r.configJson);
        };
        comparison = engine::report::compareRuns(
            runs[0].sim, runs[1].sim, runs[0].label, runs[1].label, pairs(runs[0]), pairs(runs[1]));
        report.comparison = &comparison;
    }
    std::string text = engine::report::reportJson(report);
    if (markdown || html) {
        auto view = markdown ? engine::report::reportMarkdown(text) : engine::report::reportHtml(text);
        if (!view) {
            err << "error: " << view.error().toString() << "\n";
            return 1;
        }
        text = std::move(view.value());
    }
    return writeResult(text, outPath == "-" ? std::string() : outPath, out, err);
}

} // namespace gui::cli
