#pragma once
// What the views of the report document (report_doc.cpp's Markdown, report_html.cpp) share: reading
// its values as text, a run's totals, Markdown tables, and the sections beyond the simulation
// (report_doc_sections.cpp: pass reports, drawings, cache entries). Internal to engine/report.
#include "engine/report/report_doc.h"
#include "engine/report/simulation_report.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace engine::report::docview {

using Json = nlohmann::ordered_json;

/// A value as text: strings as they are, null empty, anything else as JSON.
inline std::string str(const Json& v)
{
    if (v.is_string())
        return v.get<std::string>();
    if (v.is_null())
        return "";
    return v.dump();
}

/// A byte count as "12.00 MiB" (other values as text).
inline std::string mib(const Json& v)
{
    return v.is_number() ? formatMiB(v.get<uint64_t>()) : str(v);
}

/// Whether a run's "simulation" object is a recording (its "origin" kind; older documents have none).
inline bool recorded(const Json& simulation)
{
    return simulation.contains("origin") && simulation.at("origin").value("kind", "") == "recorded";
}

/// The device's capacity: "not recorded" where a recording's file did not tell it (null).
inline std::string capacity(const Json& device)
{
    const Json& c = device.at("capacity_bytes");
    return c.is_null() ? std::string("not recorded") : mib(c);
}

/// After a pool's id, what it is where that is worth saying: " (custom)" for a simulation's
/// user-given pool, " (graph pool)" / " (private pool)" for a recording's (its "kind").
inline std::string poolKindSuffix(const Json& pool, bool recorded)
{
    const std::string kind = pool.value("kind", std::string());
    if (recorded)
        return kind.empty() || kind == "default" ? std::string() : " (" + kind + ")";
    return pool.value("custom", false) ? std::string(" (custom)") : std::string();
}

struct Totals {
    int captures = 0, recaptures = 0, replays = 0;
};

/// Captures, recaptures (every cause) and replays over a run's graphs (its "simulation" object).
inline Totals totals(const Json& simulation)
{
    Totals t;
    for (const auto& g : simulation.at("graphs")) {
        t.captures += g.value("captures", 0);
        for (const auto& [cause, n] : g.at("recaptures").items())
            t.recaptures += n.get<int>();
        t.replays += g.value("replays", 0);
    }
    return t;
}

/// A Markdown table cell: one line, pipes escaped.
std::string cell(const std::string& text);
/// A Markdown table with a header row, then an empty line.
void table(
    std::ostringstream& md, const std::vector<std::string>& head, const std::vector<std::vector<std::string>>& rows);

/// runs[].fx_graphs: per FX graph of the run (the simulation's order), its pass reports and drawing.
Json fxGraphsValue(const ReportRun& run);
/// The top-level caches[] (every entry of every source, with its key explanation) and cache_notes[].
Json cachesValue(const std::vector<ReportCaches>& caches);
Json cacheNotesValue(const std::vector<ReportCaches>& caches);

/// Markdown of a run's fx_graphs (pass tables, DEBUG lines, the drawing's size) and of the caches.
void fxGraphsMarkdown(std::ostringstream& md, const Json& run);
void cachesMarkdown(std::ostringstream& md, const Json& doc);

/// Texts both views write the same way.
std::string bytesChange(const Json& before, const Json& after); ///< "1.00 MiB -> 0.50 MiB", "not measured"
std::string drawingText(const Json& drawing); ///< "120 nodes drawn as 14 items (repeated layers folded)"
std::string checkText(const Json& check); ///< "exception: message (detail)"

} // namespace engine::report::docview
