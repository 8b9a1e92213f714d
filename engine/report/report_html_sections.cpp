// The HTML of the report's sections beyond the simulation (report_html_parts.h): per FX graph the
// pass reports and the graph drawn, and the compile-cache entries.
#include "engine/report/report_html.h"
#include "engine/report/report_html_parts.h"

#include <cctype>

namespace engine::report::htmlview {

using docview::str;

const char* const kSectionStyle = R"(
tr.failed td { background: #fde0dc; font-weight: bold; }
td.num { white-space: nowrap; }
span.muted { font-size: 85%; }
tr.passdisabled td { color: #757575; }
td.better { color: #2e7d32; }
td.worse { color: #c62828; }
details { margin: .3em 0 1em; }
details pre { background: #f5f5f5; padding: .5em; overflow-x: auto; font-size: 85%; }
div.drawing { border: 1px solid #e0e0e0; padding: 4px; margin: .6em 0 1.2em; }
div.drawing svg { max-width: 100%; height: auto; display: block; margin: 0 auto; }
.verdict-hit { color: #1a7f37; font-weight: bold; }
.verdict-miss { color: #b42318; font-weight: bold; }
.verdict-unknown { color: #7a5b00; font-weight: bold; }
)";

namespace {

/// The document's drawing is markup written by gui/graph/graph_svg.cpp from escaped texts. A
/// document edited by hand could hold anything: only an <svg> without script, event handlers or
/// links is inserted, so the page keeps its promise of no script and nothing fetched.
bool safeSvg(const std::string& svg)
{
    if (svg.rfind("<svg", 0) != 0)
        return false;
    std::string lower(svg);
    for (char& c : lower)
        c = char(std::tolower(static_cast<unsigned char>(c)));
    for (const char* bad : { "<script", "href", "<foreignobject", "javascript:", "url(", "@import", "<image" })
        if (lower.find(bad) != std::string::npos)
            return false;
    for (size_t i = lower.find(" on"); i != std::string::npos; i = lower.find(" on", i + 1)) {
        size_t j = i + 3;
        while (j < lower.size() && std::isalpha(static_cast<unsigned char>(lower[j])))
            ++j;
        if (j > i + 3 && j < lower.size() && lower[j] == '=')
            return false; // onload=, onclick=...
    }
    return true;
}

/// A memory change "1.00 MiB -> 0.50 MiB"; `cls` says whether it went down (better) or up.
std::string changeCell(const Json& before, const Json& after, const char*& cls)
{
    const uint64_t b = before.is_null() ? 0 : before.get<uint64_t>(), a = after.is_null() ? 0 : after.get<uint64_t>();
    cls = a < b ? "better" : a > b ? "worse" : nullptr;
    return htmlEscape(docview::bytesChange(before, after));
}

void passTable(std::ostringstream& h, const Json& passes)
{
    head(h,
        { "pass (its option)", "nodes", "rewritten", "removed", "added", "skipped", "peak allocated",
            "bytes written" });
    for (const auto& p : passes) {
        const bool on = p.at("enabled").get<bool>();
        const std::string name = "<code>" + esc(p.at("name")) + "</code><br><span class=\"muted\">"
            + (str(p.at("option")).empty() ? "always on" : esc(p.at("option"))) + "</span>";
        if (!on) {
            row(h, { name, "disabled", "", "", "", "", "", "" }, {}, "passdisabled");
            continue;
        }
        const char *peakCls = nullptr, *trafficCls = nullptr;
        const std::string peak = changeCell(p.at("peak_bytes_before"), p.at("peak_bytes_after"), peakCls);
        const std::string traffic = changeCell(p.at("traffic_bytes_before"), p.at("traffic_bytes_after"), trafficCls);
        h << "<tr><td>" << name << "</td><td class=\"num\">" << str(p.at("nodes_before")) << " &rarr; "
          << str(p.at("nodes_after")) << "</td>";
        for (const char* k : { "rewritten", "removed", "added" })
            h << "<td class=\"num\">" << p.at(k).size() << "</td>";
        h << "<td class=\"num\">" << p.at("skipped").size() << "</td>";
        h << "<td class=\"num" << (peakCls ? std::string(" ") + peakCls : "") << "\">" << peak << "</td>";
        h << "<td class=\"num" << (trafficCls ? std::string(" ") + trafficCls : "") << "\">" << traffic
          << "</td></tr>\n";
    }
    h << "</table>\n";
}

/// What each pass changed, and TorchAir's DEBUG lines: folded away, most readers want the table.
void passDetails(std::ostringstream& h, const Json& passes)
{
    for (const auto& p : passes) {
        if (!p.at("enabled").get<bool>())
            continue;
        const Json& rewritten = p.at("rewritten");
        const Json& skipped = p.at("skipped");
        const size_t lines = p.at("log").size();
        if (rewritten.empty() && p.at("removed").empty() && p.at("added").empty() && skipped.empty() && lines == 0)
            continue;
        h << "<details><summary><code>" << esc(p.at("name")) << "</code>: " << rewritten.size() << " rewritten, "
          << p.at("removed").size() << " removed, " << p.at("added").size() << " added, " << skipped.size()
          << " skipped; " << lines << " DEBUG line" << (lines == 1 ? "" : "s") << "</summary>\n";
        if (!rewritten.empty()) {
            h << "<ul>\n";
            for (const auto& w : rewritten)
                h << "<li><code>" << esc(w.at("node")) << "</code>: <code>" << esc(w.at("before"))
                  << "</code> &rarr; <code>" << esc(w.at("after")) << "</code></li>\n";
            h << "</ul>\n";
        }
        for (const char* k : { "removed", "added" })
            if (!p.at(k).empty()) {
                std::string names;
                for (const auto& n : p.at(k))
                    names += (names.empty() ? "" : ", ") + std::string("<code>") + esc(n) + "</code>";
                h << "<p>" << k << ": " << names << "</p>\n";
            }
        if (!skipped.empty()) {
            h << "<p>skipped:</p>\n<ul>\n";
            for (const auto& k : skipped)
                h << "<li><code>" << esc(k.at("node")) << "</code>: " << esc(k.at("reason")) << "</li>\n";
            h << "</ul>\n";
        }
        if (lines) {
            h << "<pre>";
            for (const auto& l : p.at("log"))
                h << "[DEBUG] " << esc(l) << "\n";
            h << "</pre>\n";
        }
        h << "</details>\n";
    }
}

} // namespace

void fxGraphsHtml(std::ostringstream& h, const Json& run)
{
    if (!run.contains("fx_graphs"))
        return;
    for (const auto& g : run.at("fx_graphs")) {
        h << "<h3>" << esc(g.at("name")) << " (" << esc(g.at("id")) << "): passes and drawing</h3>\n";
        if (g.contains("note"))
            h << "<p class=\"muted\">" << esc(g.at("note")) << "</p>\n";
        if (!g.at("passes").empty()) {
            passTable(h, g.at("passes"));
            passDetails(h, g.at("passes"));
        }
        const Json& d = g.at("drawing");
        if (d.is_null())
            continue;
        h << "<p class=\"muted\">" << htmlEscape(docview::drawingText(d)) << ".</p>\n";
        const std::string svg = str(d.at("svg"));
        if (safeSvg(svg))
            h << "<div class=\"drawing\">\n" << svg << "\n</div>\n";
        else
            h << "<p class=\"muted\">(The drawing is left out: it is not a plain SVG drawing.)</p>\n";
    }
}

void cachesHtml(std::ostringstream& h, const Json& doc)
{
    if (!doc.contains("caches") || (doc.at("caches").empty() && doc.value("cache_notes", Json::array()).empty()))
        return;
    h << "<section>\n<h2>Compile caches</h2>\n";
    for (const auto& e : doc.at("caches")) {
        const Json& r = e.at("report");
        const bool loads = r.at("loads").get<bool>();
        h << "<h3><code>" << esc(e.at("relative_path")) << "</code></h3>\n<ul>\n<li>source: <code>"
          << esc(e.at("source")) << "</code> (" << esc(e.at("root_kind"))
          << (e.at("from_project").get<bool>() ? ", as the project keeps it" : "") << ")</li>\n<li>path: <code>"
          << esc(r.at("path")) << "</code></li>\n";
        if (e.contains("model_folder")) {
            const Json& m = e.at("model_folder");
            h << "<li>kind: " << (str(m.at("kind")).empty() ? "?" : esc(m.at("kind"))) << ", class "
              << esc(m.at("class")) << ", " << (m.at("dynamic").get<bool>() ? "dynamic" : "static") << ", md5 <code>"
              << esc(m.at("md5")) << "</code></li>\n";
        } else {
            h << "<li>kind: not in TorchAir's folder layout</li>\n";
        }
        h << "<li>loader " << esc(r.at("loader")) << ": " << (loads ? "loads" : "<span class=\"kind\">fails</span>")
          << "</li>\n</ul>\n";
        head(h, { "check", "status", "TorchAir's message" });
        for (const auto& c : r.at("checks"))
            row(h, { esc(c.at("check")), esc(c.at("status")), htmlEscape(docview::checkText(c)) }, {},
                str(c.at("status")) == "FAILED" ? "failed" : nullptr);
        h << "</table>\n";
        const Json& key = e.at("key");
        if (key.contains("entries") && !key.at("entries").empty()) {
            const Json& k = key.at("entries").at(0);
            h << "<p>Key, the default " << esc(key.at("backend"))
              << " config against this entry: <span class=\"verdict-" << esc(k.at("verdict")) << "\">"
              << esc(k.at("verdict")) << "</span>. " << esc(k.at("explanation")) << "</p>\n";
            if (!k.at("differences").empty()) {
                head(h, { "key option", "in the cache entry", "in the default config" });
                for (const auto& d : k.at("differences"))
                    row(h, { "<code>" + esc(d.at("key")) + "</code>", esc(d.at("cache")), esc(d.at("config")) }, {},
                        "differs");
                h << "</table>\n";
            }
        } else if (key.contains("error")) {
            h << "<p>Key: " << esc(key.at("error")) << "</p>\n";
        }
    }
    if (!doc.at("cache_notes").empty()) {
        h << "<h3>Cache notes</h3>\n<ul>\n";
        for (const auto& n : doc.at("cache_notes"))
            h << "<li><code>" << esc(n.at("path")) << "</code>: " << esc(n.at("message")) << "</li>\n";
        h << "</ul>\n";
    }
    h << "</section>\n";
}

} // namespace engine::report::htmlview
