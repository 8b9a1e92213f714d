#pragma once
/// The report document (report_doc.h) as one self-contained HTML file: inline CSS and SVG, no
/// script, no font or image from anywhere else. Per run: the summary, the config with options away
/// from their default highlighted, the FX graphs (keys, captures, recaptures by cause, replays,
/// fallback), memory over the calls as a chart (device reserved and allocated, each private pool,
/// the peak, the device capacity line), the pools, the calls, the hazards with the call where each
/// arises, and the warnings; then the comparison of two runs, differing rows highlighted.
#include "engine/core/result.h"

#include <string>

namespace engine::report {

/// Error when `reportJsonText` is not a report document.
Result<std::string> reportHtml(const std::string& reportJsonText);

/// Text made safe inside HTML (and XML: the drawings' SVG) elements and attribute values (& < > " '),
/// control characters other than tab and newlines replaced by spaces.
std::string htmlEscape(const std::string& text);

} // namespace engine::report
