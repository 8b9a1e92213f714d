// `aclgraph-inspector runs --db FILE [--json] [--run ID]`: the simulation runs stored in a project
// (simulate --db), as a table or one run's summary with its graphs, pools and hazards.
#include "engine/core/json_text.h"
#include "engine/report/simulation_report.h"
#include "gui/cli/cli_util.h"
#include "gui/cli/commands.h"
#include "storage/project_db.h"
#include "storage/run_store.h"

#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <ostream>

namespace gui::cli {

namespace {

using engine::runtime::Simulation;
using nlohmann::ordered_json;
using storage::RunRow;

std::string mib(uint64_t bytes)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", double(bytes) / (1024.0 * 1024.0));
    return buf;
}

std::string scenarioOf(const RunRow& r)
{
    return r.scenarioName.empty() ? r.scenarioPath : r.scenarioName;
}

/// At most `width` characters, "..." marking a cut.
std::string clip(const std::string& text, size_t width)
{
    return text.size() <= width ? text : text.substr(0, width - 3) + "...";
}

bool isRecorded(const RunRow& r)
{
    return r.origin.kind == engine::runtime::RunOriginKind::Recorded;
}

/// "torchair" / "npugraph_ex" for a simulation; "recorded" for a recording (it has no backend).
std::string backendOrOrigin(const RunRow& r)
{
    return isRecorded(r) ? std::string("recorded") : r.backend;
}

ordered_json originJson(const engine::runtime::RunOrigin& o)
{
    ordered_json j = { { "kind", engine::runtime::runOriginKindName(o.kind) } };
    if (o.kind != engine::runtime::RunOriginKind::Recorded)
        return j;
    ordered_json settings = ordered_json::array();
    for (const auto& [name, value] : o.allocatorSettings)
        settings.push_back({ { "name", name }, { "value", value } });
    j["recorded_as"] = o.recordedAs;
    j["allocator_settings"] = settings;
    j["capacity_known"] = o.capacityKnown;
    return j;
}

ordered_json rowJson(const RunRow& r)
{
    return { { "origin", originJson(r.origin) }, { "id", r.id },
        { "source_id", r.sourceId ? ordered_json(*r.sourceId) : ordered_json() }, { "scenario_path", r.scenarioPath },
        { "scenario_name", r.scenarioName }, { "created_at", r.createdAt },
        { "backend", isRecorded(r) ? ordered_json() : ordered_json(r.backend) }, { "profile", r.profile },
        { "capacity_bytes", isRecorded(r) && !r.origin.capacityKnown ? ordered_json() : ordered_json(r.capacityBytes) },
        { "calls", r.calls }, { "events", r.events }, { "captures", r.captures }, { "recaptures", r.recaptures },
        { "replays", r.replays }, { "eager_calls", r.eagerCalls }, { "hazard_count", r.hazards },
        { "peak_reserved_bytes", r.peakReserved }, { "peak_allocated_bytes", r.peakAllocated },
        { "out_of_memory", r.outOfMemory }, { "cancelled", r.cancelled } };
}

std::string tableText(const std::vector<RunRow>& runs)
{
    if (runs.empty())
        return "no runs stored (simulate SCENARIO --db FILE stores one)\n";
    std::string out = pad("id", 5, true) + "  " + pad("scenario", 28) + "  " + pad("backend", 11) + "  "
        + pad("calls", 6, true) + "  " + pad("captures", 8, true) + "  " + pad("recaptures", 10, true) + "  "
        + pad("replays", 7, true) + "  " + pad("hazards", 7, true) + "  " + pad("peak MiB", 10, true) + "  OOM\n";
    for (const RunRow& r : runs)
        out += pad(std::to_string(r.id), 5, true) + "  " + pad(clip(scenarioOf(r), 28), 28) + "  "
            + pad(backendOrOrigin(r), 11) + "  " + pad(std::to_string(r.calls), 6, true) + "  "
            + pad(std::to_string(r.captures), 8, true) + "  " + pad(std::to_string(r.recaptures), 10, true) + "  "
            + pad(std::to_string(r.replays), 7, true) + "  " + pad(std::to_string(r.hazards), 7, true) + "  "
            + pad(r.origin.log ? "not logged" : mib(r.peakReserved), 10, true) + "  " + (r.outOfMemory ? "yes" : "no")
            + "\n";
    return out;
}

std::string runText(const storage::StoredRun& run)
{
    const RunRow& r = run.row;
    const Simulation& sim = run.sim;
    const auto yes = [](bool b) { return b ? "yes" : "no"; };
    std::string out = "run " + std::to_string(r.id) + ": " + scenarioOf(r) + " (" + r.scenarioPath + ")\n";
    if (isRecorded(r))
        out += "  created " + r.createdAt + ", recorded: " + r.origin.recordedAs + ", profile " + r.profile
            + ", capacity " + (r.origin.capacityKnown ? mib(r.capacityBytes) + " MiB" : std::string("not recorded"))
            + "\n";
    else
        out += "  created " + r.createdAt + ", backend " + r.backend + ", profile " + r.profile + ", capacity "
            + mib(r.capacityBytes) + " MiB\n";
    for (const auto& [name, value] : r.origin.allocatorSettings)
        out += "  allocator setting " + name + " = " + value + "\n";
    out += "  calls " + std::to_string(r.calls) + ", events " + std::to_string(r.events) + ", captures "
        + std::to_string(r.captures) + ", recaptures " + std::to_string(r.recaptures) + ", replays "
        + std::to_string(r.replays) + ", eager calls " + std::to_string(r.eagerCalls) + ", hazards "
        + std::to_string(r.hazards) + "\n";
    if (r.origin.log) // a log's device totals are not in it (docs/run-logs.md)
        out += std::string("  device peaks not logged, out of memory ") + yes(r.outOfMemory) + "\n";
    else
        out += "  peak reserved " + mib(r.peakReserved) + " MiB, peak allocated " + mib(r.peakAllocated)
            + " MiB, out of memory " + yes(r.outOfMemory) + ", cancelled " + yes(r.cancelled) + "\n";
    out += "graphs:\n";
    for (const auto& g : sim.graphs)
        out += "  " + g.name + " (" + g.id + ") pool " + g.pool.str() + ": keys " + std::to_string(g.allKeys.size())
            + ", captures " + std::to_string(g.captures) + ", recaptures "
            + std::to_string(g.recapturesMutatedInput + g.recapturesCoreLimit + g.recapturesForce) + ", replays "
            + std::to_string(g.replays) + ", eager calls " + std::to_string(g.eagerCalls)
            + (g.fallbackToEager ? ", fell back to eager at call " + std::to_string(g.fallbackCall) : "") + "\n";
    out += "pools:\n";
    for (const auto& p : sim.pools) {
        std::string graphs;
        for (const std::string& g : p.graphs)
            graphs += (graphs.empty() ? "" : ", ") + g;
        const bool named = isRecorded(r) ? !p.pool.isDefault() : p.custom;
        out += "  " + p.pool.str() + (named ? " (" + engine::report::poolKindName(p, r.origin.kind) + ")" : "")
            + ": graphs " + graphs + ", peak reserved " + mib(p.peakReserved) + " MiB, peak allocated "
            + mib(p.peakAllocated) + " MiB\n";
    }
    out += "hazards:" + std::string(sim.hazards.empty() ? " none\n" : "\n");
    for (const auto& h : sim.hazards)
        out += "  call " + std::to_string(h.call) + " " + engine::runtime::hazardKindName(h.kind)
            + (h.graph.empty() ? "" : " " + h.graph) + ": " + h.message + "\n";
    if (!sim.assumptions.empty()) {
        out += "assumed or unknown:\n";
        for (const std::string& a : sim.assumptions)
            out += "  " + a + "\n";
    }
    return out;
}

ordered_json runJson(const storage::StoredRun& run)
{
    const Simulation& sim = run.sim;
    ordered_json j = rowJson(run.row);
    const ordered_json config = ordered_json::parse(run.configJson, nullptr, false);
    j["config"] = config.is_discarded() || isRecorded(run.row) ? ordered_json() : config;
    j["warnings"] = sim.warnings;
    j["assumptions"] = sim.assumptions;
    ordered_json graphs = ordered_json::array();
    for (const auto& g : sim.graphs)
        graphs.push_back({ { "name", g.name }, { "id", g.id }, { "pool", g.pool.str() }, { "keys", g.allKeys },
            { "captured_keys", g.keys }, { "captures", g.captures },
            { "recaptures",
                { { "mutated_input", g.recapturesMutatedInput }, { "core_limit", g.recapturesCoreLimit },
                    { "force", g.recapturesForce } } },
            { "replays", g.replays }, { "eager_calls", g.eagerCalls },
            { "fallback_call", g.fallbackToEager ? ordered_json(g.fallbackCall) : ordered_json() } });
    j["graphs"] = graphs;
    ordered_json pools = ordered_json::array();
    for (const auto& p : sim.pools)
        pools.push_back({ { "id", p.pool.str() }, { "kind", engine::report::poolKindName(p, sim.origin.kind) },
            { "graphs", p.graphs }, { "custom", p.custom }, { "peak_reserved_bytes", p.peakReserved },
            { "peak_allocated_bytes", p.peakAllocated } });
    j["pools"] = pools;
    ordered_json hazards = ordered_json::array();
    for (const auto& h : sim.hazards)
        hazards.push_back({ { "kind", engine::runtime::hazardKindName(h.kind) }, { "call", h.call },
            { "graph", h.graph }, { "key", h.key }, { "concerns", h.concerns }, { "message", h.message },
            { "made_at_call", h.madeAtCall >= 0 ? ordered_json(h.madeAtCall) : ordered_json() } });
    j["hazards"] = hazards;
    return j;
}

} // namespace

int runsCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    std::string dbPath;
    bool json = false;
    bool check = false; // quick_check whatever the project's size
    std::optional<int64_t> runId;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--json") {
            json = true;
        } else if (a == "--check") {
            check = true;
        } else if ((a == "--db" || a == "--run") && i + 1 < args.size()) {
            const std::string& v = args[++i];
            if (a == "--db") {
                dbPath = v;
                continue;
            }
            char* end = nullptr;
            const long long id = std::strtoll(v.c_str(), &end, 10);
            if (v.empty() || *end || id < 1) {
                err << "runs: --run takes a run id (a positive number), not '" << v << "'\n";
                return 2;
            }
            runId = id;
        } else {
            err << "runs: " << (a == "--db" || a == "--run" ? a + " needs a value" : "unknown argument " + a) << "\n";
            return 2;
        }
    }
    if (dbPath.empty()) {
        err << "usage: aclgraph-inspector runs --db FILE [--json] [--run ID] [--check]\n";
        return 2;
    }
    storage::Database::OpenOptions options;
    options.create = false;
    options.readOnly = true;
    if (check)
        options.quickCheckMaxBytes = UINT64_MAX;
    auto db = storage::openProject(dbPath, options);
    if (!db) {
        err << "error: " << db.error().toString() << "\n";
        return 1;
    }
    if (!db->damage().empty())
        err << "warning: " << dbPath
            << ": the project is damaged; it is read read-only and what follows may be incomplete. SQLite's "
               "quick_check says:\n"
            << db->damage();
    else if (check)
        err << dbPath << ": quick_check found no damage\n";
    else if (!db->quickChecked())
        err << "note: " << dbPath << " is larger than " << (options.quickCheckMaxBytes >> 20)
            << " MiB, so it was not checked for damage on open (runs --check checks it)\n";
    if (runId) {
        auto run = storage::readRun(*db, *runId);
        if (!run) {
            err << "error: " << run.error().toString() << "\n";
            return 1;
        }
        out << (json ? engine::jsonText(ordered_json { { "run", runJson(*run) } }) + "\n" : runText(*run));
        return 0;
    }
    auto runs = storage::listRuns(*db);
    if (!runs) {
        err << "error: " << runs.error().toString() << "\n";
        return 1;
    }
    if (json) {
        ordered_json list = ordered_json::array();
        for (const RunRow& r : *runs)
            list.push_back(rowJson(r));
        out << engine::jsonText(ordered_json { { "runs", list } }) << "\n";
    } else {
        out << tableText(*runs);
    }
    return 0;
}

} // namespace gui::cli
