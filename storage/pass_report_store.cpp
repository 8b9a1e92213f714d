// writePassReports / readPassReports (graph_store.h): tables pass_reports and pass_changes, and the
// stage graphs of the passes that ran (role "pass_result").
#include "storage/graph_store.h"
#include "storage/store_util.h"

namespace storage {

using namespace detail;
using engine::passes::PassReport;

namespace {

// The rows of pass_changes for one report, in this order (pos continues across the kinds).
Result<void> writeChanges(WriteContext& ctx, Statement& s, int64_t reportId, const PassReport& p)
{
    int64_t pos = 0;
    auto insert = [&](const char* change, const std::string& node, const std::string& before, const std::string& after,
                      const std::string& reason) {
        s.bind(1, reportId).bind(2, pos++).bind(3, std::string_view(change)).bind(4, std::string_view(node));
        s.bind(5, std::string_view(before)).bind(6, std::string_view(after)).bind(7, std::string_view(reason));
        return insertRow(ctx, s);
    };
    static const std::string none;
    for (const auto& r : p.rewritten)
        if (auto w = insert("rewritten", r.node, r.before, r.after, none); !w)
            return w;
    for (const auto& k : p.skipped)
        if (auto w = insert("skipped", k.node, none, none, k.reason); !w)
            return w;
    for (const std::string& node : p.removed)
        if (auto w = insert("removed", node, none, none, none); !w)
            return w;
    for (const std::string& node : p.added)
        if (auto w = insert("added", node, none, none, none); !w)
            return w;
    return {};
}

} // namespace

Result<std::vector<int64_t>> writePassReports(WriteContext& ctx, int64_t graphId,
    const engine::passes::PipelineResult& result, engine::config::Backend backend, bool writeStages)
{
    Database& db = ctx.db();
    GraphPlace place;
    place.role = "pass_result";
    {
        auto s = db.prepare("SELECT source_id, grp, file FROM graphs WHERE id = ?");
        if (!s)
            return s.error();
        s->bind(1, graphId);
        auto row = s->step();
        if (!row)
            return row.error();
        if (!*row)
            return Error { ErrorCode::NotFound, "no graph " + std::to_string(graphId) + " to store pass reports for",
                db.path() };
        place.sourceId = s->columnInt(0);
        place.group = s->columnText(1);
        place.file = s->columnText(2);
    }
    auto report
        = db.prepare("INSERT INTO pass_reports(graph_id, pos, name, option, enabled, backend, nodes_before, "
                     "nodes_after, peak_bytes_before, peak_bytes_after, traffic_bytes_before, "
                     "traffic_bytes_after, result_graph_id, log, measured, unmeasured_why) "
                     "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    auto change = db.prepare(
        "INSERT INTO pass_changes(report_id, pos, change, node, before, after, reason) VALUES (?, ?, ?, ?, ?, ?, ?)");
    if (!report || !change)
        return !report ? report.error() : change.error();
    std::vector<int64_t> ids;
    for (size_t i = 0; i < result.passes.size(); ++i) {
        const PassReport& p = result.passes[i];
        std::optional<int64_t> resultGraph;
        if (writeStages && p.stage >= 0) {
            if (size_t(p.stage) >= result.stages.size())
                return Error { ErrorCode::Internal,
                    "pass " + p.name + " names stage " + std::to_string(p.stage) + " of "
                        + std::to_string(result.stages.size()),
                    db.path() };
            place.stage = p.stage;
            place.pass = p.name;
            auto id = writeGraph(ctx, result.stages[size_t(p.stage)], place);
            if (!id)
                return id.error();
            resultGraph = *id;
        }
        Statement& s = *report;
        s.bind(1, graphId).bind(2, int64_t(i)).bind(3, std::string_view(p.name)).bind(4, std::string_view(p.option));
        s.bind(5, int64_t(p.enabled)).bind(6, std::string_view(engine::config::backendName(backend)));
        s.bind(7, int64_t(p.nodesBefore)).bind(8, int64_t(p.nodesAfter));
        s.bind(9, int64_t(p.peakBytesBefore)).bind(10, int64_t(p.peakBytesAfter));
        s.bind(11, int64_t(p.trafficBytesBefore)).bind(12, int64_t(p.trafficBytesAfter));
        bindOptional(s, 13, resultGraph);
        s.bind(14, std::string_view(jsonStringArray(p.log)));
        s.bind(15, int64_t(p.measured)).bind(16, std::string_view(p.unmeasured));
        if (auto r = insertRow(ctx, s); !r)
            return r.error();
        ids.push_back(db.lastInsertRowId());
        if (auto r = writeChanges(ctx, *change, ids.back(), p); !r)
            return r.error();
    }
    return ids;
}

Result<std::vector<StoredPassReport>> readPassReports(Database& db, int64_t graphId)
{
    auto s = db.prepare("SELECT p.id, p.name, p.option, p.enabled, p.backend, p.nodes_before, p.nodes_after, "
                        "p.peak_bytes_before, p.peak_bytes_after, p.traffic_bytes_before, p.traffic_bytes_after, "
                        "p.result_graph_id, p.log, g.stage, p.measured, p.unmeasured_why FROM pass_reports p LEFT JOIN graphs g "
                        "ON g.id = p.result_graph_id WHERE p.graph_id = ? ORDER BY p.pos");
    auto changes = db.prepare(
        "SELECT pos, change, node, before, after, reason FROM pass_changes WHERE report_id = ? ORDER BY pos");
    if (!s || !changes)
        return !s ? s.error() : changes.error();
    s->bind(1, graphId);
    std::vector<StoredPassReport> out;
    auto rows = forEachRow(*s, [&]() -> Result<void> {
        StoredPassReport r;
        PassReport& p = r.report;
        r.id = s->columnInt(0);
        const std::string where = "pass report " + std::to_string(r.id);
        p.name = s->columnText(1);
        p.option = s->columnText(2);
        p.enabled = s->columnInt(3) != 0;
        r.backend = s->columnText(4);
        p.nodesBefore = int(s->columnInt(5));
        p.nodesAfter = int(s->columnInt(6));
        p.peakBytesBefore = uint64_t(s->columnInt(7));
        p.peakBytesAfter = uint64_t(s->columnInt(8));
        p.trafficBytesBefore = uint64_t(s->columnInt(9));
        p.trafficBytesAfter = uint64_t(s->columnInt(10));
        r.resultGraphId = optionalInt(*s, 11);
        auto log = parseStringArray(s->columnText(12));
        if (!log)
            return badRow(db, where + " (" + p.name + "): log is not a JSON array of strings");
        p.log = std::move(*log);
        p.measured = s->columnInt(14) != 0;
        p.unmeasured = s->columnText(15);
        p.stage = r.resultGraphId && !s->columnIsNull(13) ? int(s->columnInt(13)) : -1;

        changes->reset();
        changes->bind(1, r.id);
        auto changeRows = forEachRow(*changes, [&]() -> Result<void> {
            const std::string kind = changes->columnText(1);
            std::string node = changes->columnText(2);
            if (kind == "rewritten")
                p.rewritten.push_back({ std::move(node), changes->columnText(3), changes->columnText(4) });
            else if (kind == "skipped")
                p.skipped.push_back({ std::move(node), changes->columnText(5) });
            else if (kind == "removed")
                p.removed.push_back(std::move(node));
            else if (kind == "added")
                p.added.push_back(std::move(node));
            else
                return badRow(db,
                    where + " (" + p.name + "), change " + std::to_string(changes->columnInt(0)) + ": unknown change '"
                        + kind + "'");
            return {};
        });
        if (!changeRows)
            return changeRows.error();
        out.push_back(std::move(r));
        return {};
    });
    if (!rows)
        return rows.error();
    return out;
}

} // namespace storage
