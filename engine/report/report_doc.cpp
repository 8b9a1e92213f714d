// The report document and its Markdown view (report_doc.h, docs/report-json.md).
#include "engine/report/report_doc.h"

#include "engine/config/options.h"
#include "engine/core/json_text.h"
#include "engine/report/report_doc_view.h"
#include "engine/report/run_config.h"
#include "engine/report/simulation_report.h"

#include <nlohmann/json.hpp>
#include <sstream>

namespace engine::report {

using docview::mib;
using docview::str;
using docview::table;
using nlohmann::ordered_json;

namespace {

ordered_json runValue(const ReportRun& run)
{
    const runtime::Simulation& sim = *run.sim;
    ordered_json s = ordered_json::parse(simulationJson(sim, -1));
    // A recording has no TorchAir options: its "origin" holds the allocator's settings instead.
    const bool recorded = sim.origin.kind == runtime::RunOriginKind::Recorded;
    const std::string configJson = run.configJson.empty() ? simulationConfigJson(sim) : run.configJson;
    const ordered_json config = ordered_json::parse(configJson, nullptr, false);
    if (config.is_object() && !recorded)
        s["config"] = config;
    // Every log line is in the project and `simulate --log-level debug`; a report keeps the count.
    const size_t logLines = s.contains("log") ? s["log"].size() : 0;
    s.erase("log");
    s["log_lines"] = logLines;

    ordered_json options = ordered_json::array();
    const auto& table = config::optionTable();
    for (const RunOption& o : runOptions(sim, configJson)) {
        if (o.name.empty() || recorded)
            continue; // the backend has no such option
        if (o.cuda) {
            // PyTorch's option (CUDA Graph Trees): one spelling, no TorchAir names.
            options.push_back(
                { { "name", o.name }, { "torchair", nullptr }, { "npugraph_ex", nullptr }, { "value", o.value },
                    { "default", o.defaultValue }, { "non_default", !o.isDefault() }, { "set", o.set } });
            continue;
        }
        const config::OptionSpec& spec = table[o.spec];
        options.push_back({ { "name", o.name }, { "torchair", spec.torchairName },
            { "npugraph_ex", spec.npugraphExName }, { "value", o.value }, { "default", o.defaultValue },
            { "non_default", !o.isDefault() }, { "set", o.set } });
    }
    return { { "label", run.label }, { "options", options }, { "simulation", s },
        { "fx_graphs", docview::fxGraphsValue(run) } };
}

// ---- Markdown -------------------------------------------------------------------------------

void runMarkdown(std::ostringstream& md, const ordered_json& run)
{
    const ordered_json& s = run.at("simulation");
    md << "## " << str(run.at("label")) << "\n\n";
    const ordered_json& graphs = s.at("graphs");
    const docview::Totals t = docview::totals(s);
    const ordered_json& device = s.at("device");
    const bool recorded = docview::recorded(s);
    if (recorded) {
        md << "- recorded: " << str(s.at("origin").at("recorded_as")) << ", from `" << str(s.at("scenario").at("path"))
           << "`\n";
        md << "- device profile " << str(device.at("profile")) << ", capacity " << docview::capacity(device) << "\n";
    } else {
        md << "- scenario: `" << str(s.at("scenario").at("path")) << "`\n";
        md << "- backend: " << str(s.at("backend")) << ", device profile " << str(device.at("profile")) << ", capacity "
           << docview::capacity(device) << "\n";
    }
    md << "- calls: " << s.at("calls_simulated").get<int>() << ", captures " << t.captures << ", recaptures "
       << t.recaptures << ", replays " << t.replays << ", hazards " << s.at("hazards").size() << "\n";
    md << "- peak device memory: reserved " << mib(s.at("peak_device_reserved_bytes")) << ", allocated "
       << mib(s.at("peak_device_allocated_bytes")) << (s.at("out_of_memory").get<bool>() ? " (out of memory)" : "")
       << "\n\n";

    std::vector<std::vector<std::string>> rows;
    if (recorded) {
        md << "### Allocator settings\n\nAs the file records them (a recording has no backend options).\n\n";
        for (const auto& a : s.at("origin").at("allocator_settings"))
            rows.push_back({ "`" + str(a.at("name")) + "`", str(a.at("value")) });
        if (rows.empty())
            md << "None recorded.\n\n";
        else
            table(md, { "setting", "value" }, rows);
        rows.clear();
    } else {
        md << "### Config\n\nOptions away from their default are in bold.\n\n";
    }
    for (const auto& o : run.at("options")) {
        const bool nd = o.at("non_default").get<bool>();
        const std::string name = "`" + str(o.at("name")) + "`";
        rows.push_back({ nd ? "**" + name + "**" : name, nd ? "**" + str(o.at("value")) + "**" : str(o.at("value")),
            str(o.at("default")) });
    }
    if (!recorded)
        table(md, { "option", "value", "default" }, rows);

    md << "### FX graphs\n\n";
    rows.clear();
    for (const auto& g : graphs) {
        const ordered_json& r = g.at("recaptures");
        std::string keys;
        for (const auto& k : g.at("keys"))
            keys += (keys.empty() ? "" : ", ") + std::string("`{") + str(k) + "}`";
        rows.push_back({ str(g.at("name")) + " (" + str(g.at("id")) + ")", str(g.at("pool")), keys,
            std::to_string(g.at("captures").get<int>()),
            std::to_string(r.value("mutated_input", 0)) + " / " + std::to_string(r.value("core_limit", 0)) + " / "
                + std::to_string(r.value("force", 0)),
            std::to_string(g.at("replays").get<int>()), std::to_string(g.at("eager_calls").get<int>()),
            g.at("fallback_to_eager").get<bool>() ? "at call " + str(g.at("fallback_call")) : "no" });
    }
    table(md,
        { "graph", "pool", "keys", "captures", "recaptures (mutated input / core limit / force)", "replays", "eager",
            "fallback" },
        rows);

    md << "### Memory\n\n";
    rows.clear();
    for (const auto& p : s.at("pools")) {
        std::string users;
        for (const auto& g : p.at("graphs"))
            users += (users.empty() ? "" : ", ") + str(g);
        rows.push_back({ str(p.at("id")) + docview::poolKindSuffix(p, recorded), users,
            mib(p.at("peak_reserved_bytes")), mib(p.at("peak_allocated_bytes")) });
    }
    table(md, { "pool", "graphs", "peak reserved", "peak allocated" }, rows);
    md << "Over the calls (device capacity " << docview::capacity(device) << "):\n\n";
    rows.clear();
    for (const auto& c : s.at("calls")) {
        std::string pools;
        for (const auto& p : c.at("pools"))
            pools += (pools.empty() ? "" : "; ") + str(p.at("id")) + " " + mib(p.at("total_size"));
        std::string action = str(c.at("action"));
        if (c.contains("recapture_cause"))
            action += " (" + str(c.at("recapture_cause")) + ")";
        rows.push_back({ std::to_string(c.at("index").get<int>()), str(c.at("graph")), "`{" + str(c.at("key")) + "}`",
            action, std::to_string(c.at("inputs_copied").get<int>()) + " (" + str(c.at("bytes_copied")) + " B)", pools,
            mib(c.at("device_reserved_bytes")), mib(c.at("device_allocated_bytes")) });
    }
    table(md,
        { "call", "graph", "key", "action", "inputs copied", "private pools reserved", "device reserved",
            "device allocated" },
        rows);

    md << "### Hazards\n\n";
    if (s.at("hazards").empty())
        md << "None.\n\n";
    for (const auto& h : s.at("hazards"))
        md << "- call " << h.at("call").get<int>() << ", " << str(h.at("kind")) << " in " << str(h.at("graph"))
           << (str(h.at("key")).empty() ? "" : " key `{" + str(h.at("key")) + "}`") << ": " << str(h.at("message"))
           << "\n";
    if (!s.at("hazards").empty())
        md << "\n";
    if (!s.at("warnings").empty()) {
        md << "### Warnings\n\n";
        for (const auto& w : s.at("warnings"))
            md << "- " << str(w) << "\n";
        md << "\n";
    }
    if (s.contains("assumptions") && !s.at("assumptions").empty()) {
        md << "### Assumed or unknown\n\nWhat the inputs did not say, and what the run took instead:\n\n";
        for (const auto& a : s.at("assumptions"))
            md << "- " << str(a) << "\n";
        md << "\n";
    }
    docview::fxGraphsMarkdown(md, run);
}

} // namespace

std::string reportJson(const ReportInput& input)
{
    ordered_json j;
    j["format"] = "aclgraph-inspector-report";
    j["version"] = 1;
    j["title"] = input.title;
    j["generator"] = input.generator;
    ordered_json runs = ordered_json::array();
    for (const ReportRun& r : input.runs)
        if (r.sim)
            runs.push_back(runValue(r));
    j["runs"] = runs;
    j["caches"] = docview::cachesValue(input.caches);
    j["cache_notes"] = docview::cacheNotesValue(input.caches);
    if (input.comparison)
        j["comparison"] = ordered_json::parse(comparisonJson(*input.comparison, -1));
    return jsonText(j, 2) + "\n";
}

Result<std::string> reportMarkdown(const std::string& reportJsonText)
{
    const ordered_json j = ordered_json::parse(reportJsonText, nullptr, false);
    if (!j.is_object() || j.value("format", "") != "aclgraph-inspector-report")
        return Error { ErrorCode::ParseError, "not an aclgraph-inspector report document", "" };
    std::ostringstream md;
    try {
        md << "# " << str(j.at("title")) << "\n\n";
        if (!str(j.at("generator")).empty())
            md << "Written by " << str(j.at("generator")) << ".\n\n";
        for (const auto& run : j.at("runs"))
            runMarkdown(md, run);
        docview::cachesMarkdown(md, j);
        if (j.contains("comparison")) {
            const ordered_json& c = j.at("comparison");
            md << "## Comparison\n\n- A: " << str(c.at("a")) << "\n- B: " << str(c.at("b")) << "\n\n"
               << "Rows that differ are in bold.\n\n";
            std::vector<std::vector<std::string>> rows;
            for (const auto& r : c.at("rows")) {
                const bool d = r.at("differs").get<bool>();
                auto b = [d](const std::string& t) { return d ? "**" + t + "**" : t; };
                rows.push_back({ str(r.at("section")), b(str(r.at("metric"))), b(str(r.at("a"))), b(str(r.at("b"))) });
            }
            table(md, { "section", "metric", "A", "B" }, rows);
        }
    } catch (const nlohmann::json::exception& e) {
        return Error { ErrorCode::ParseError, std::string("report document is malformed: ") + e.what(), "" };
    }
    return md.str();
}

} // namespace engine::report
