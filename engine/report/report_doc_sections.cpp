// The report document's sections beyond the simulation: per FX graph its pass reports and drawing,
// and the compile-cache entries with their checks and key explanation (report_doc_view.h). The
// JSON of each part is the one its own command writes (passes --json, cache ls --json, cache key
// --json), embedded, so the report and the commands cannot drift apart.
#include "engine/cache/cache_key.h"
#include "engine/report/cache_report.h"
#include "engine/report/passes_report.h"
#include "engine/report/report_doc_view.h"

#include <algorithm>
#include <map>

namespace engine::report::docview {

std::string cell(const std::string& text)
{
    std::string out;
    for (char c : text) {
        if (c == '|')
            out += "\\|";
        else if (c == '\n')
            out += "<br>";
        else
            out += c;
    }
    return out;
}

void table(
    std::ostringstream& md, const std::vector<std::string>& head, const std::vector<std::vector<std::string>>& rows)
{
    md << "|";
    for (const auto& h : head)
        md << " " << cell(h) << " |";
    md << "\n|";
    for (size_t i = 0; i < head.size(); ++i)
        md << "---|";
    md << "\n";
    for (const auto& r : rows) {
        md << "|";
        for (const auto& c : r)
            md << " " << cell(c) << " |";
        md << "\n";
    }
    md << "\n";
}

// ---- the document ---------------------------------------------------------------------------

Json fxGraphsValue(const ReportRun& run)
{
    Json out = Json::array();
    for (const runtime::GraphRecord& g : run.sim->graphs) {
        Json x { { "name", g.name }, { "id", g.id } };
        const auto p = run.passes.find(g.name);
        x["passes"] = p == run.passes.end() ? Json::array() : Json::parse(passReportsJson(p->second, -1));
        const auto d = run.drawings.find(g.name);
        if (d == run.drawings.end())
            x["drawing"] = nullptr;
        else
            x["drawing"] = { { "nodes", d->second.nodes }, { "items", d->second.items }, { "folded", d->second.folded },
                { "svg", d->second.svg } };
        if (const auto n = run.graphNotes.find(g.name); n != run.graphNotes.end())
            x["note"] = n->second;
        out.push_back(std::move(x));
    }
    return out;
}

namespace {

/// Would the default config of the entry's loader hit it? `cache key --backend B --against ENTRY`.
Json keyValue(const cache::CacheEntry& e, const std::vector<std::string>& entryOptions)
{
    auto key = cache::computeCacheKey(e.report.loader, {});
    if (!key)
        return { { "error", key.error().toString() } };
    const std::string md5 = e.layoutKnown ? e.model.md5 : "";
    const KeyAgainst against { e.relativePath, md5, cache::matchCacheEntry(key.value(), entryOptions, md5) };
    return Json::parse(cacheKeyJson(key.value(), { against }, -1));
}

} // namespace

Json cachesValue(const std::vector<ReportCaches>& caches)
{
    Json out = Json::array();
    for (const ReportCaches& c : caches) {
        if (!c.scan)
            continue;
        const Json scan = Json::parse(cacheScanJson(*c.scan, -1));
        for (size_t i = 0; i < c.scan->entries.size(); ++i) {
            const cache::CacheEntry& e = c.scan->entries[i];
            std::vector<std::string> options;
            if (i < c.entryOptions.size())
                options = c.entryOptions[i];
            else if (e.report.artifact)
                options = e.report.artifact->signature.options;
            Json x { { "source", c.source }, { "from_project", c.fromProject }, { "root_kind", scan.at("root_kind") } };
            for (const auto& [k, v] : scan.at("entries").at(i).items())
                x[k] = v;
            x["key"] = keyValue(e, options);
            out.push_back(std::move(x));
        }
    }
    return out;
}

Json cacheNotesValue(const std::vector<ReportCaches>& caches)
{
    Json out = Json::array();
    for (const ReportCaches& c : caches) {
        if (!c.scan)
            continue;
        if (!c.scan->cacheDirOwner.empty())
            out.push_back({ { "source", c.source }, { "path", c.scan->root },
                { "message", "ValueError: " + c.scan->cacheDirOwner } });
        for (const cache::ScanNote& n : c.scan->notes)
            out.push_back({ { "source", c.source }, { "path", n.path }, { "message", n.message } });
    }
    return out;
}

// ---- texts both views share -----------------------------------------------------------------

std::string bytesChange(const Json& before, const Json& after)
{
    if (before.is_null() || after.is_null() || (before.get<uint64_t>() == 0 && after.get<uint64_t>() == 0))
        return "not measured";
    return mib(before) + " -> " + mib(after);
}

std::string drawingText(const Json& d)
{
    const int nodes = d.at("nodes").get<int>(), items = d.at("items").get<int>();
    return std::to_string(nodes) + " nodes drawn as " + std::to_string(items) + " items"
        + (d.at("folded").get<bool>() ? " (groups folded)" : "");
}

std::string checkText(const Json& c)
{
    std::string out = c.contains("exception") ? str(c.at("exception")) + ": " : "";
    out += str(c.at("message"));
    if (c.contains("detail"))
        out += " (" + str(c.at("detail")) + ")";
    return out;
}

// ---- Markdown -------------------------------------------------------------------------------

void fxGraphsMarkdown(std::ostringstream& md, const Json& run)
{
    if (!run.contains("fx_graphs"))
        return;
    for (const auto& g : run.at("fx_graphs")) {
        md << "### " << str(g.at("name")) << " (" << str(g.at("id")) << "): passes and drawing\n\n";
        if (g.contains("note"))
            md << "_" << str(g.at("note")) << "_\n\n";
        const Json& d = g.at("drawing");
        if (!d.is_null())
            md << "Drawing: " << drawingText(d) << "; see the HTML report.\n\n";
        if (g.at("passes").empty())
            continue;
        std::vector<std::vector<std::string>> rows;
        for (const auto& p : g.at("passes")) {
            const bool on = p.at("enabled").get<bool>();
            rows.push_back(
                { "`" + str(p.at("name")) + "`", str(p.at("option")).empty() ? "(always)" : str(p.at("option")),
                    on ? "yes" : "no", on ? str(p.at("nodes_before")) + " -> " + str(p.at("nodes_after")) : "",
                    std::to_string(p.at("rewritten").size()), std::to_string(p.at("removed").size()),
                    std::to_string(p.at("added").size()), on ? std::to_string(p.at("skipped").size()) : "",
                    on ? bytesChange(p.at("peak_bytes_before"), p.at("peak_bytes_after")) : "",
                    on ? bytesChange(p.at("traffic_bytes_before"), p.at("traffic_bytes_after")) : "" });
        }
        table(md,
            { "pass", "option", "enabled", "nodes", "rewritten", "removed", "added", "skipped", "peak allocated",
                "bytes written" },
            rows);
        for (const auto& p : g.at("passes")) {
            if (!p.at("skipped").empty()) {
                md << "Skipped by `" << str(p.at("name")) << "`:\n\n";
                for (const auto& k : p.at("skipped"))
                    md << "- `" << str(k.at("node")) << "`: " << str(k.at("reason")) << "\n";
                md << "\n";
            }
            if (p.at("log").empty())
                continue;
            md << "TorchAir's DEBUG lines for `" << str(p.at("name")) << "`:\n\n```\n";
            for (const auto& l : p.at("log"))
                md << str(l) << "\n";
            md << "```\n\n";
        }
    }
}

void cachesMarkdown(std::ostringstream& md, const Json& doc)
{
    if (!doc.contains("caches") || (doc.at("caches").empty() && doc.value("cache_notes", Json::array()).empty()))
        return;
    md << "## Compile caches\n\n";
    for (const auto& e : doc.at("caches")) {
        const Json& r = e.at("report");
        md << "### " << str(e.at("relative_path")) << "\n\n";
        md << "- source: `" << str(e.at("source")) << "` (" << str(e.at("root_kind"))
           << (e.at("from_project").get<bool>() ? ", as the project keeps it" : "") << ")\n";
        md << "- path: `" << str(r.at("path")) << "`\n";
        if (e.contains("model_folder")) {
            const Json& m = e.at("model_folder");
            md << "- kind: " << (str(m.at("kind")).empty() ? "?" : str(m.at("kind"))) << ", class "
               << str(m.at("class")) << ", " << (m.at("dynamic").get<bool>() ? "dynamic" : "static") << ", md5 "
               << str(m.at("md5")) << "\n";
        } else {
            md << "- kind: not in TorchAir's folder layout\n";
        }
        md << "- loader: " << str(r.at("loader")) << ": " << (r.at("loads").get<bool>() ? "loads" : "**fails**")
           << "\n\n";
        std::vector<std::vector<std::string>> rows;
        for (const auto& c : r.at("checks")) {
            const bool failed = str(c.at("status")) == "FAILED";
            auto b = [failed](const std::string& t) { return failed ? "**" + t + "**" : t; };
            rows.push_back({ b(str(c.at("check"))), b(str(c.at("status"))), checkText(c) });
        }
        table(md, { "check", "status", "TorchAir's message" }, rows);
        const Json& key = e.at("key");
        if (key.contains("entries") && !key.at("entries").empty()) {
            const Json& k = key.at("entries").at(0);
            md << "Key (the default " << str(key.at("backend")) << " config against this entry): **"
               << str(k.at("verdict")) << "**. " << str(k.at("explanation")) << "\n\n";
            rows.clear();
            for (const auto& d : k.at("differences"))
                rows.push_back({ "`" + str(d.at("key")) + "`", str(d.at("cache")), str(d.at("config")) });
            if (!rows.empty())
                table(md, { "key option", "in the cache entry", "in the default config" }, rows);
        } else if (key.contains("error")) {
            md << "Key: " << str(key.at("error")) << "\n\n";
        }
    }
    if (!doc.at("cache_notes").empty()) {
        md << "### Cache notes\n\n";
        for (const auto& n : doc.at("cache_notes"))
            md << "- `" << str(n.at("path")) << "`: " << str(n.at("message")) << "\n";
        md << "\n";
    }
}

} // namespace engine::report::docview
