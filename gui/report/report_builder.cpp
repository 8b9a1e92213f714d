// Loading a report's inputs and writing its formats (report_builder.h).
#include "gui/report/report_builder.h"

#include "engine/core/text_codec.h"
#include "engine/ingest/source.h"
#include "engine/report/report_doc.h"
#include "engine/report/report_html.h"
#include "engine/report/run_compare.h"
#include "engine/report/run_config.h"
#include "engine/report/simulation_report.h"
#include "gui/report/report_inputs.h"
#include "gui/report/report_pdf.h"

#include <filesystem>
#include <fstream>
#include <optional>

namespace gui::report {

using engine::ErrorCode;
using engine::makeError;
using engine::Result;

namespace {

std::vector<std::pair<std::string, std::string>> configPairs(const LoadedRun& r)
{
    return engine::report::runConfigPairs(
        r.sim, r.configJson.empty() ? engine::report::simulationConfigJson(r.sim) : r.configJson);
}

/// The run's label for one run; "Compile cache PATH" for one cache input; else counts.
std::string defaultTitle(const LoadedInputs& loaded, bool compareConfigs)
{
    const auto& runs = loaded.runs;
    if (compareConfigs)
        return runs.front().label + ": two configs";
    if (runs.size() == 1 && loaded.caches.empty())
        return runs.front().label;
    if (runs.empty() && loaded.caches.size() == 1)
        return (loaded.caches.front().fromProject ? "Compile caches of " : "Compile cache ")
            + loaded.caches.front().source;
    size_t entries = 0;
    for (const LoadedCaches& c : loaded.caches)
        entries += c.scan.entries.size();
    std::vector<std::string> parts;
    if (!runs.empty() || loaded.caches.empty())
        parts.push_back(std::to_string(runs.size()) + (runs.size() == 1 ? " run" : " runs"));
    if (!loaded.caches.empty())
        parts.push_back(std::to_string(entries) + (entries == 1 ? " cache entry" : " cache entries"));
    return "aclgraph-inspector report: " + parts.front() + (parts.size() > 1 ? ", " + parts.back() : "");
}

} // namespace

std::optional<ReportFormat> reportFormatOf(const std::string& path)
{
    if (engine::endsWith(path, ".json"))
        return ReportFormat::Json;
    if (engine::endsWith(path, ".md"))
        return ReportFormat::Markdown;
    if (engine::endsWith(path, ".html"))
        return ReportFormat::Html;
    if (engine::endsWith(path, ".pdf"))
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
    LoadedInputs loaded; // stable addresses: the report points into them
    // A TORCH_TRACE among the inputs is read once: it is simulated, and it names the compiles of a
    // snapshot of the same run.
    const std::string tracePath = traceAmong(request.inputs);
    std::optional<std::vector<engine::readers::trace::TorchTrace>> trace;
    if (!tracePath.empty()) {
        auto read = engine::readers::trace::readTorchTraceDir(tracePath);
        if (!read)
            return read.error();
        trace = std::move(read.value());
    }
    const auto* traceRead = trace ? &*trace : nullptr;
    const int total = int(request.inputs.size());
    for (int i = 0; i < total; ++i) {
        const std::string& input = request.inputs[size_t(i)];
        // What the input is, told by engine/ingest like every other command (a project by its name).
        Result<void> done = Result<void>();
        if (engine::endsWith(input, ".aclgi")) {
            done = loadProject(input, request.projectRuns, loaded);
        } else {
            auto detected = engine::ingest::detectSource(input);
            using engine::ingest::SourceKind;
            if (!detected)
                done = detected.error();
            else if (detected->kind == SourceKind::CacheFile || detected->kind == SourceKind::CacheDir)
                done = loadCache(input, loaded);
            else if (detected->kind == SourceKind::MemorySnapshot)
                done = loadSnapshot(input, loaded, traceRead);
            else if (detected->kind == SourceKind::RunLog)
                done = loadRunLog(input, loaded);
            else
                done = loadSimulated(input, request.compareSettings, loaded, input == tracePath ? traceRead : nullptr);
        }
        if (!done)
            return done.error();
        if (request.progress && !request.progress(i + 1, total))
            return makeError(ErrorCode::Cancelled, "cancelled");
    }
    const auto& runs = loaded.runs;
    const bool compare = request.compare || compareConfigs;
    if (compare && runs.size() != 2)
        return makeError(ErrorCode::InvalidArgument,
            "a comparison needs exactly two runs (got " + std::to_string(runs.size()) + ")");
    engine::report::ReportInput report;
    report.title = !request.title.empty() ? request.title : defaultTitle(loaded, compareConfigs);
    report.generator = request.generator.empty() ? "aclgraph-inspector" : request.generator;
    for (const LoadedRun& r : runs)
        report.runs.push_back({ &r.sim, r.label, r.configJson, r.passes, r.drawings, r.notes });
    for (const LoadedCaches& c : loaded.caches)
        report.caches.push_back({ c.source, c.fromProject, &c.scan, c.entryOptions });
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
