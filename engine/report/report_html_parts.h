#pragma once
// What report_html.cpp and report_html_sections.cpp share: table rows, escaping a document value,
// and the sections beyond the simulation (pass reports, the graph drawn, cache entries). Internal
// to engine/report.
#include "engine/report/report_doc_view.h"

#include <sstream>
#include <string>
#include <vector>

namespace engine::report::htmlview {

using docview::Json;

/// A document value as escaped text.
std::string esc(const Json& v);
/// A row of cells; `num` marks right-aligned columns; `cls` the row's class.
void row(std::ostringstream& h, const std::vector<std::string>& cells, const std::vector<bool>& num = {},
    const char* cls = nullptr);
/// Opens a table with its header row.
void head(std::ostringstream& h, const std::vector<std::string>& cells);

/// CSS for the sections below, appended to the page's style.
extern const char* const kSectionStyle;
/// Per FX graph of a run: the pass table, the DEBUG lines in a <details>, and the drawing.
void fxGraphsHtml(std::ostringstream& h, const Json& run);
/// The compile-cache entries with their checks (failed ones highlighted) and key explanation.
void cachesHtml(std::ostringstream& h, const Json& doc);

} // namespace engine::report::htmlview
