#pragma once
// What the views of the report document (report_doc.cpp's Markdown, report_html.cpp) share: reading
// its values as text, and a run's totals. Internal to engine/report.
#include "engine/report/simulation_report.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

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

} // namespace engine::report::docview
