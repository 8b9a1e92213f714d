// Loading a report's inputs and writing its formats (report_builder.h).
#include "gui/report/report_builder.h"

#include "engine/config/setting_text.h"
#include "engine/report/report_doc.h"
#include "engine/report/report_html.h"
#include "engine/report/run_compare.h"
#include "engine/report/run_config.h"
#include "engine/scenario/load.h"
#include "gui/report/report_pdf.h"
#include "storage/project_db.h"
#include "storage/run_store.h"

#include <algorithm>
#include <deque>
#include <filesystem>
#include <fstream>

namespace gui::report {

using engine::ErrorCode;
using engine::makeError;
using engine::Result;

namespace {

bool endsWith(const std::string& s, const std::string& tail)
{
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

struct LoadedRun {
    engine::runtime::Simulation sim;
    std::string label;
    std::string configJson; ///< empty for a run simulated here
};

/// Every run of the project at `path`, oldest first.
Result<void> loadProject(const std::string& path, const std::vector<int64_t>& only, std::deque<LoadedRun>& runs)
{
    storage::Database::OpenOptions readOnly;
    readOnly.readOnly = true;
    readOnly.create = false;
    auto db = storage::openProject(path, readOnly);
    if (!db)
        return db.error();
    auto list = storage::listRuns(*db);
    if (!list)
        return list.error();
    std::vector<storage::RunRow> rows;
    for (int64_t id : only) {
        auto row = std::find_if(list->begin(), list->end(), [id](const storage::RunRow& r) { return r.id == id; });
        if (row == list->end())
            return makeError(ErrorCode::NotFound, "no run " + std::to_string(id), path);
        rows.push_back(*row);
    }
    if (only.empty())
        rows = std::move(*list);
    for (const storage::RunRow& row : rows) {
        auto run = storage::readRun(*db, row.id);
        if (!run)
            return run.error();
        const std::string name = row.scenarioName.empty() ? row.scenarioPath : row.scenarioName;
        runs.push_back({ std::move(run->sim), "run " + std::to_string(row.id) + " · " + name, run->configJson });
    }
    return {};
}

/// The input simulated with its own config, then (when `settings` is not empty) a second time with
/// them on top.
Result<void> loadSimulated(
    const std::string& input, const std::vector<engine::config::Setting>& settings, std::deque<LoadedRun>& runs)
{
    auto scenario = engine::scenario::loadScenarioOrGraph(input);
    if (!scenario)
        return scenario.error();
    const std::string name = scenario->name.empty() ? std::filesystem::path(input).filename().string() : scenario->name;
    auto sim = engine::runtime::simulate(scenario.value());
    if (!sim)
        return sim.error();
    runs.push_back({ std::move(sim.value()), name, {} });
    if (settings.empty())
        return {};
    engine::runtime::SimulationOptions options;
    options.overrides = settings;
    auto other = engine::runtime::simulate(scenario.value(), options);
    if (!other)
        return other.error();
    std::string label = name + " [";
    for (size_t i = 0; i < settings.size(); ++i)
        label += (i ? ", " : "") + engine::config::settingText(settings[i]);
    runs.push_back({ std::move(other.value()), label + "]", {} });
    return {};
}

std::vector<std::pair<std::string, std::string>> configPairs(const LoadedRun& r)
{
    return r.configJson.empty() ? engine::report::runConfigPairs(r.sim.options)
                                : engine::report::runConfigPairs(r.sim.options.backend, r.configJson);
}

} // namespace

std::optional<ReportFormat> reportFormatOf(const std::string& path)
{
    if (endsWith(path, ".json"))
        return ReportFormat::Json;
    if (endsWith(path, ".md"))
        return ReportFormat::Markdown;
    if (endsWith(path, ".html"))
        return ReportFormat::Html;
    if (endsWith(path, ".pdf"))
        return ReportFormat::Pdf;
    return std::nullopt;
}

Result<std::string> buildReportJson(const ReportRequest& request)
{
    const bool compareConfigs = !request.compareSettings.empty();
    if (compareConfigs && request.inputs.size() != 1)
        return makeError(ErrorCode::InvalidArgument,
            "a comparison of two configs takes one scenario or graph (got " + std::to_string(request.inputs.size())
                + " inputs)");
    std::deque<LoadedRun> runs; // stable addresses: the report points into them
    const int total = int(request.inputs.size());
    for (int i = 0; i < total; ++i) {
        const std::string& input = request.inputs[size_t(i)];
        Result<void> loaded = endsWith(input, ".aclgi") ? loadProject(input, request.projectRuns, runs)
                                                        : loadSimulated(input, request.compareSettings, runs);
        if (!loaded)
            return loaded.error();
        if (request.progress && !request.progress(i + 1, total))
            return makeError(ErrorCode::Cancelled, "cancelled");
    }
    const bool compare = request.compare || compareConfigs;
    if (compare && runs.size() != 2)
        return makeError(ErrorCode::InvalidArgument,
            "a comparison needs exactly two runs (got " + std::to_string(runs.size()) + ")");
    engine::report::ReportInput report;
    report.title = !request.title.empty() ? request.title
        : runs.size() == 1                ? runs.front().label
        : compareConfigs                  ? runs.front().label + ": two configs"
                                          : "aclgraph-inspector report: " + std::to_string(runs.size()) + " runs";
    report.generator = request.generator.empty() ? "aclgraph-inspector" : request.generator;
    for (const LoadedRun& r : runs)
        report.runs.push_back({ &r.sim, r.label, r.configJson });
    engine::report::RunComparison comparison;
    if (compare) {
        comparison = engine::report::compareRuns(
            runs[0].sim, runs[1].sim, runs[0].label, runs[1].label, configPairs(runs[0]), configPairs(runs[1]));
        report.comparison = &comparison;
    }
    return engine::report::reportJson(report);
}

Result<std::string> renderReport(const std::string& reportJson, ReportFormat format)
{
    switch (format) {
    case ReportFormat::Json:
        return reportJson;
    case ReportFormat::Markdown:
        return engine::report::reportMarkdown(reportJson);
    case ReportFormat::Html:
        return engine::report::reportHtml(reportJson);
    case ReportFormat::Pdf:
        return reportPdf(reportJson);
    }
    return makeError(ErrorCode::InvalidArgument, "unknown report format");
}

Result<void> writeReport(const std::string& reportJson, const std::string& path)
{
    const auto format = reportFormatOf(path);
    if (!format)
        return makeError(ErrorCode::InvalidArgument, "write .json, .md, .html or .pdf", path);
    auto text = renderReport(reportJson, *format);
    if (!text)
        return text.error();
    const std::string tmp = path + ".part";
    {
        std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
        if (!(f << *text) || !f.flush()) {
            std::error_code ignored;
            std::filesystem::remove(tmp, ignored);
            return makeError(ErrorCode::Io, "cannot write", path);
        }
    }
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    if (ec) {
        std::filesystem::remove(tmp, ec);
        return makeError(ErrorCode::Io, "cannot write: " + ec.message(), path);
    }
    return {};
}

} // namespace gui::report
