// The report document as HTML with an SVG memory chart per run (report_html.h).
#include "engine/report/report_html.h"

#include "engine/report/report_html_parts.h"
#include "engine/report/simulation_report.h"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

namespace engine::report {

using docview::mib;
using docview::str;
using nlohmann::ordered_json;

std::string htmlEscape(const std::string& text)
{
    std::string out;
    out.reserve(text.size());
    for (char c : text) {
        switch (c) {
        case '&':
            out += "&amp;";
            break;
        case '<':
            out += "&lt;";
            break;
        case '>':
            out += "&gt;";
            break;
        case '"':
            out += "&quot;";
            break;
        case '\'':
            out += "&#39;";
            break;
        default:
            // C0 controls other than tab and newlines are not allowed in HTML or XML text.
            out += static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r' ? ' ' : c;
        }
    }
    return out;
}

namespace htmlview {

std::string esc(const ordered_json& v)
{
    return htmlEscape(str(v));
}

void row(std::ostringstream& h, const std::vector<std::string>& cells, const std::vector<bool>& num, const char* cls)
{
    h << "<tr" << (cls ? std::string(" class=\"") + cls + "\"" : std::string()) << ">";
    for (size_t i = 0; i < cells.size(); ++i)
        h << (i < num.size() && num[i] ? "<td class=\"num\">" : "<td>") << cells[i] << "</td>";
    h << "</tr>\n";
}

void head(std::ostringstream& h, const std::vector<std::string>& cells)
{
    h << "<table><tr>";
    for (const auto& c : cells)
        h << "<th>" << c << "</th>";
    h << "</tr>\n";
}

} // namespace htmlview

namespace {

using htmlview::esc;
using htmlview::head;
using htmlview::row;

constexpr const char* kStyle = R"(
body { font-family: sans-serif; margin: 2em auto; max-width: 1100px; color: #212121; line-height: 1.4; }
h1 { border-bottom: 2px solid #3949ab; padding-bottom: .2em; }
h2 { margin-top: 2em; border-bottom: 1px solid #c5cae9; }
table { border-collapse: collapse; margin: .6em 0 1.2em; font-size: 90%; }
th, td { border: 1px solid #d0d0d0; padding: .25em .6em; text-align: left; vertical-align: top; }
th { background: #eceff1; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.nondefault td, tr.differs td { background: #fff3c4; font-weight: bold; }
code { font-family: monospace; font-size: 95%; }
ul.hazards li { margin-bottom: .4em; }
.kind { color: #c62828; font-weight: bold; }
.muted { color: #616161; }
)";

const char* kPoolColours[] = { "#43a047", "#8e24aa", "#00897b", "#6d4c41", "#5e35b1", "#c0ca33" };

/// Memory over the calls: device reserved and allocated, each private pool's reserved bytes, the
/// peak, and the device capacity (a line when it is on the scale, else a note).
void memoryChart(std::ostringstream& h, const ordered_json& s)
{
    const ordered_json& calls = s.at("calls");
    if (calls.empty()) {
        h << "<p class=\"muted\">No calls.</p>\n";
        return;
    }
    std::vector<std::string> poolIds;
    for (const auto& p : s.at("pools"))
        poolIds.push_back(str(p.at("id")));
    struct Series {
        std::string name, colour;
        std::vector<double> values;
        double width;
    };
    std::vector<Series> series
        = { { "device reserved", "#1e88e5", {}, 2.5 }, { "device allocated", "#fb8c00", {}, 2 } };
    for (size_t i = 0; i < poolIds.size(); ++i)
        series.push_back({ "pool " + poolIds[i] + " reserved", kPoolColours[i % 6], {}, 1.2 });
    double top = 1;
    for (const auto& c : calls) {
        series[0].values.push_back(c.at("device_reserved_bytes").get<double>());
        series[1].values.push_back(c.at("device_allocated_bytes").get<double>());
        for (size_t i = 0; i < poolIds.size(); ++i) {
            double v = 0;
            for (const auto& p : c.at("pools"))
                if (str(p.at("id")) == poolIds[i])
                    v = p.at("total_size").get<double>();
            series[2 + i].values.push_back(v);
        }
    }
    for (const auto& se : series)
        for (double v : se.values)
            top = std::max(top, v);
    const ordered_json& capacityValue = s.at("device").at("capacity_bytes"); // null: not recorded
    const double capacity = capacityValue.is_number() ? capacityValue.get<double>() : 0;
    const bool capacityShown = capacity > 0 && capacity <= top * 1.5;
    if (capacityShown)
        top = std::max(top, capacity);
    top *= 1.08;
    const double W = 900, H = 260, left = 80, right = 20, up = 20, down = 40;
    const size_t n = calls.size();
    auto x = [&](double i) { return left + (W - left - right) * (n > 1 ? i / double(n) : 0.5); };
    auto y = [&](double v) { return H - down - (H - up - down) * v / top; };
    char buf[160];
    h << "<svg width=\"" << W << "\" height=\"" << H + 24 * ((series.size() + 3) / 4) << "\" viewBox=\"0 0 " << W << " "
      << H + 24 * ((series.size() + 3) / 4)
      << "\" font-family=\"sans-serif\" font-size=\"11\" fill=\"#424242\" role=\"img\" aria-label=\"device memory over "
         "the calls\">\n";
    for (int t = 0; t <= 4; ++t) { // grid and axis labels
        const double v = top * t / 4;
        std::snprintf(buf, sizeof buf,
            "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e0e0e0\"/><text x=\"%.1f\" y=\"%.1f\" "
            "text-anchor=\"end\">",
            left, y(v), W - right, y(v), left - 6, y(v) + 4);
        h << buf << htmlEscape(formatMiB(uint64_t(v))) << "</text>\n";
    }
    for (size_t i = 0; i < n; i += std::max<size_t>(1, n / 12)) {
        std::snprintf(buf, sizeof buf, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%zu</text>\n",
            x(double(i) + 0.5), H - down + 16, i);
        h << buf;
    }
    std::snprintf(buf, sizeof buf, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">call</text>\n",
        (left + W - right) / 2, H - 6);
    h << buf;
    if (capacityShown) {
        std::snprintf(buf, sizeof buf,
            "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#d32f2f\" stroke-dasharray=\"6 4\"/>", left,
            y(capacity), W - right, y(capacity));
        h << buf;
        std::snprintf(buf, sizeof buf, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", W - right, y(capacity) - 4);
        h << buf << "device capacity " << htmlEscape(formatMiB(uint64_t(capacity))) << "</text>\n";
    }
    for (const auto& se : series) { // steps: a value holds for its whole call
        h << "<polyline fill=\"none\" stroke=\"" << se.colour << "\" stroke-width=\"" << se.width << "\" points=\"";
        for (size_t i = 0; i < se.values.size(); ++i) {
            std::snprintf(buf, sizeof buf, "%.1f,%.1f %.1f,%.1f ", x(double(i)), y(se.values[i]), x(double(i + 1)),
                y(se.values[i]));
            h << buf;
        }
        h << "\"><title>" << htmlEscape(se.name) << "</title></polyline>\n";
    }
    // The peak of device reserved over the calls.
    const auto& reserved = series[0].values;
    const size_t peak = size_t(std::max_element(reserved.begin(), reserved.end()) - reserved.begin());
    std::snprintf(buf, sizeof buf,
        "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"#1e88e5\"/><text x=\"%.1f\" y=\"%.1f\">", x(peak + 0.5),
        y(reserved[peak]), x(peak + 0.5) + 6, y(reserved[peak]) - 6);
    h << buf << "peak " << htmlEscape(formatMiB(uint64_t(reserved[peak]))) << " at call " << peak << "</text>\n";
    for (size_t i = 0; i < series.size(); ++i) { // legend, four per line
        const double lx = left + double(i % 4) * 200, ly = H + 10 + 24 * double(i / 4);
        std::snprintf(buf, sizeof buf,
            "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"4\" fill=\"%s\"/><text x=\"%.1f\" y=\"%.1f\">", lx,
            ly + 4, series[i].colour.c_str(), lx + 20, ly + 9);
        h << buf << htmlEscape(series[i].name) << "</text>\n";
    }
    h << "</svg>\n";
    if (!capacityShown && capacityValue.is_number())
        h << "<p class=\"muted\">Device capacity " << mib(capacityValue) << " is off the scale of this chart.</p>\n";
}

void runHtml(std::ostringstream& h, const ordered_json& run)
{
    const ordered_json& s = run.at("simulation");
    h << "<section>\n<h2>" << esc(run.at("label")) << "</h2>\n";
    const docview::Totals t = docview::totals(s);
    const ordered_json& device = s.at("device");
    const bool recorded = docview::recorded(s);
    if (recorded)
        h << "<ul>\n<li>recorded: " << esc(s.at("origin").at("recorded_as")) << ", from <code>"
          << esc(s.at("scenario").at("path")) << "</code></li>\n<li>device profile " << esc(device.at("profile"));
    else
        h << "<ul>\n<li>scenario: <code>" << esc(s.at("scenario").at("path"))
          << "</code></li>\n<li>backend: " << esc(s.at("backend")) << ", device profile " << esc(device.at("profile"));
    h << ", capacity " << htmlEscape(docview::capacity(device))
      << "</li>\n<li>calls: " << s.at("calls_simulated").get<int>() << ", captures " << t.captures << ", recaptures "
      << t.recaptures << ", replays " << t.replays << ", hazards " << s.at("hazards").size()
      << "</li>\n<li>peak device memory: reserved " << mib(s.at("peak_device_reserved_bytes")) << ", allocated "
      << mib(s.at("peak_device_allocated_bytes")) << (s.at("out_of_memory").get<bool>() ? " (out of memory)" : "")
      << "</li>\n</ul>\n";

    if (recorded) {
        h << "<h3>Allocator settings</h3>\n<p class=\"muted\">As the file records them (a recording has no "
             "backend options).</p>\n";
        const ordered_json& settings = s.at("origin").at("allocator_settings");
        if (settings.empty())
            h << "<p>None recorded.</p>\n";
        else {
            head(h, { "setting", "value" });
            for (const auto& a : settings)
                row(h, { "<code>" + esc(a.at("name")) + "</code>", esc(a.at("value")) }, {});
            h << "</table>\n";
        }
    } else {
        h << "<h3>Config</h3>\n<p class=\"muted\">Options away from their default are highlighted.</p>\n";
        head(h, { "option", "npugraph_ex / torchair spelling", "value", "default" });
    }
    for (const auto& o : run.at("options")) {
        const std::string other
            = str(o.at("name")) == str(o.at("torchair")) ? str(o.at("npugraph_ex")) : str(o.at("torchair"));
        row(h,
            { "<code>" + esc(o.at("name")) + "</code>", other.empty() ? "—" : "<code>" + htmlEscape(other) + "</code>",
                esc(o.at("value")), esc(o.at("default")) },
            {}, o.at("non_default").get<bool>() ? "nondefault" : nullptr);
    }
    if (!recorded)
        h << "</table>\n";

    h << "<h3>FX graphs</h3>\n";
    head(h,
        { "graph", "pool", "keys", "captures", "recaptures: mutated input", "core limit", "force", "replays", "eager",
            "fallback" });
    for (const auto& g : s.at("graphs")) {
        const ordered_json& r = g.at("recaptures");
        std::string keys;
        for (const auto& k : g.at("keys"))
            keys += (keys.empty() ? "" : "<br>") + std::string("<code>{") + esc(k) + "}</code>";
        row(h,
            { esc(g.at("name")) + " (" + esc(g.at("id")) + ")", esc(g.at("pool")), keys,
                std::to_string(g.at("captures").get<int>()), std::to_string(r.value("mutated_input", 0)),
                std::to_string(r.value("core_limit", 0)), std::to_string(r.value("force", 0)),
                std::to_string(g.at("replays").get<int>()), std::to_string(g.at("eager_calls").get<int>()),
                g.at("fallback_to_eager").get<bool>() ? "at call " + esc(g.at("fallback_call")) : "no" },
            { false, false, false, true, true, true, true, true, true, false });
    }
    h << "</table>\n";

    h << "<h3>Memory</h3>\n";
    memoryChart(h, s);
    head(h, { "pool", "graphs", "peak reserved", "peak allocated" });
    for (const auto& p : s.at("pools")) {
        std::string users;
        for (const auto& g : p.at("graphs"))
            users += (users.empty() ? "" : ", ") + esc(g);
        row(h,
            { esc(p.at("id")) + htmlEscape(docview::poolKindSuffix(p, recorded)), users,
                mib(p.at("peak_reserved_bytes")), mib(p.at("peak_allocated_bytes")) },
            { false, false, true, true });
    }
    h << "</table>\n";
    head(h,
        { "call", "graph", "key", "action", "inputs copied", "bytes copied", "outputs rebuilt", "device reserved",
            "device allocated" });
    for (const auto& c : s.at("calls")) {
        std::string action = esc(c.at("action"));
        if (c.contains("recapture_cause"))
            action += " (" + esc(c.at("recapture_cause")) + ")";
        row(h,
            { std::to_string(c.at("index").get<int>()), esc(c.at("graph")), "<code>{" + esc(c.at("key")) + "}</code>",
                action, std::to_string(c.at("inputs_copied").get<int>()), str(c.at("bytes_copied")),
                std::to_string(c.at("outputs_rebuilt").get<int>()), mib(c.at("device_reserved_bytes")),
                mib(c.at("device_allocated_bytes")) },
            { true, false, false, false, true, true, true, true, true });
    }
    h << "</table>\n";

    h << "<h3>Hazards</h3>\n";
    if (s.at("hazards").empty())
        h << "<p>None.</p>\n";
    else {
        h << "<ul class=\"hazards\">\n";
        for (const auto& hz : s.at("hazards"))
            h << "<li>call " << hz.at("call").get<int>() << ", <span class=\"kind\">" << esc(hz.at("kind"))
              << "</span> in " << esc(hz.at("graph"))
              << (str(hz.at("key")).empty() ? "" : " key <code>{" + esc(hz.at("key")) + "}</code>") << ": "
              << esc(hz.at("message")) << "</li>\n";
        h << "</ul>\n";
    }
    if (!s.at("warnings").empty()) {
        h << "<h3>Warnings</h3>\n<ul>\n";
        for (const auto& w : s.at("warnings"))
            h << "<li>" << esc(w) << "</li>\n";
        h << "</ul>\n";
    }
    htmlview::fxGraphsHtml(h, run);
    h << "</section>\n";
}

} // namespace

Result<std::string> reportHtml(const std::string& reportJsonText)
{
    const ordered_json j = ordered_json::parse(reportJsonText, nullptr, false);
    if (!j.is_object() || j.value("format", "") != "aclgraph-inspector-report")
        return Error { ErrorCode::ParseError, "not an aclgraph-inspector report document", "" };
    std::ostringstream h;
    try {
        h << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" << esc(j.at("title"))
          << "</title>\n<style>" << kStyle << htmlview::kSectionStyle << "</style>\n</head>\n<body>\n<h1>"
          << esc(j.at("title")) << "</h1>\n";
        if (!str(j.at("generator")).empty())
            h << "<p class=\"muted\">Written by " << esc(j.at("generator")) << ".</p>\n";
        for (const auto& run : j.at("runs"))
            runHtml(h, run);
        htmlview::cachesHtml(h, j);
        if (j.contains("comparison")) {
            const ordered_json& c = j.at("comparison");
            h << "<section>\n<h2>Comparison</h2>\n<ul><li>A: " << esc(c.at("a")) << "</li><li>B: " << esc(c.at("b"))
              << "</li></ul>\n<p class=\"muted\">" << c.at("differing").get<int>()
              << " rows differ; they are highlighted.</p>\n";
            head(h, { "section", "metric", "A", "B" });
            for (const auto& r : c.at("rows"))
                row(h, { esc(r.at("section")), esc(r.at("metric")), esc(r.at("a")), esc(r.at("b")) }, {},
                    r.at("differs").get<bool>() ? "differs" : nullptr);
            h << "</table>\n</section>\n";
        }
        h << "</body>\n</html>\n";
    } catch (const nlohmann::json::exception& e) {
        return Error { ErrorCode::ParseError, std::string("report document is malformed: ") + e.what(), "" };
    }
    return h.str();
}

} // namespace engine::report
