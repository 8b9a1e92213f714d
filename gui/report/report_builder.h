#pragma once
/// Reports of what a user has open or names on the command line (issue 7), shared by
/// `aclgraph-inspector report` and the window's File > Export Report: load the inputs, build the one
/// JSON document (engine/report/report_doc.h), and write it as JSON, Markdown, HTML or PDF.
#include "engine/core/py_value.h"
#include "engine/core/result.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gui::report {

enum class ReportFormat { Json, Markdown, Html, Pdf };

/// The format a path's extension names (.json, .md, .html, .pdf), or none.
std::optional<ReportFormat> reportFormatOf(const std::string& path);

struct ReportRequest {
    /// Scenarios and FX graphs (simulated with their own config, passes run, graphs drawn), projects
    /// (.aclgi: their runs with stored pass reports and graphs, and cache entries), compile-cache
    /// folders and compiled_module files (scanned). See report_inputs.h.
    std::vector<std::string> inputs;
    /// Of a project's runs, only these (run ids, reported in this order); empty: every run.
    std::vector<int64_t> projectRuns;
    std::string title; ///< empty: made from the inputs
    std::string generator; ///< "aclgraph-inspector 0.1.0"
    /// Exactly two runs: the report ends with their comparison (an InvalidArgument error otherwise).
    bool compare = false;
    /// A comparison of two configs: the one input that is simulated is simulated a second time
    /// with these settings applied on top (`--set` rules), and the two runs are compared.
    std::vector<std::pair<std::string, engine::PyValue>> compareSettings;
    /// Called after each input (done, total); returning false cancels (ErrorCode::Cancelled).
    std::function<bool(int done, int total)> progress;
};

/// The report document of the request, pretty-printed JSON. Errors name the input (bad input) or
/// are InvalidArgument (a request that cannot be met, e.g. --compare without two runs).
engine::Result<std::string> buildReportJson(const ReportRequest& request);

/// Writes `reportJson` to `path` in the format its extension names. The file is written whole or
/// not at all (a temporary file renamed into place).
engine::Result<void> writeReport(const std::string& reportJson, const std::string& path);

/// The same view as a string (JSON, Markdown, HTML; PDF is bytes).
engine::Result<std::string> renderReport(const std::string& reportJson, ReportFormat format);

} // namespace gui::report
