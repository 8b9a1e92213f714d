// The project outline (storage/project_outline.h): a handful of queries folded into a tree.
#include "storage/project_outline.h"

#include "storage/run_store.h"

#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>

namespace storage {

using Json = nlohmann::json;

namespace {

std::string fileName(const std::string& path)
{
    const auto slash = path.find_last_of('/');
    return slash == std::string::npos || slash + 1 == path.size() ? path : path.substr(slash + 1);
}

std::string count(int64_t n, const char* one, const char* many)
{
    return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::string mib(int64_t bytes)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f MiB", double(bytes) / (1024.0 * 1024.0));
    return buf;
}

/// Runs `sql` and calls `row` for each result row; errors name the database.
template <typename Row> Result<void> each(Database& db, const char* sql, Row&& row)
{
    auto s = db.prepare(sql);
    if (!s)
        return s.error();
    for (;;) {
        auto more = s->step();
        if (!more)
            return more.error();
        if (!*more)
            return {};
        row(*s);
    }
}

OutlineNode node(std::string kind, std::string label, std::string detail = {}, int64_t id = 0)
{
    OutlineNode n;
    n.kind = std::move(kind);
    n.label = std::move(label);
    n.detail = std::move(detail);
    n.id = id;
    return n;
}

/// The child of `parent` with this kind and label, added at the end when absent.
OutlineNode& child(
    OutlineNode& parent, const std::string& kind, const std::string& label, const std::string& detail = {})
{
    for (OutlineNode& c : parent.children)
        if (c.kind == kind && c.label == label)
            return c;
    parent.children.push_back(node(kind, label, detail));
    return parent.children.back();
}

/// The source's node under a section: matched by id, as two sources may share a file name.
OutlineNode& sourceChild(OutlineNode& section, int64_t id, const std::string& name)
{
    for (OutlineNode& c : section.children)
        if (c.kind == "source" && c.id == id)
            return c;
    section.children.push_back(node("source", name, {}, id));
    return section.children.back();
}

std::string rankLabel(const Statement& s, int first)
{
    std::string label;
    const char* names[] = { "world ", "rank ", "tp ", "pp " };
    for (int i = 0; i < 4; ++i)
        if (!s.columnIsNull(first + i))
            label += (label.empty() ? "" : ", ") + std::string(names[i]) + std::to_string(s.columnInt(first + i));
    return label;
}

} // namespace

Result<OutlineNode> readOutline(Database& db)
{
    OutlineNode root = node("project", db.path());
    root.children = { node("section", "Sources"), node("section", "Graphs"), node("section", "Compile caches"),
        node("section", "Simulation runs") };
    OutlineNode& sources = root.children[0];
    OutlineNode& graphs = root.children[1];
    OutlineNode& caches = root.children[2];
    OutlineNode& runs = root.children[3];

    std::map<int64_t, std::string> sourceName, sourcePath;
    auto r = each(db, "SELECT id, path, kind, imported_at FROM sources ORDER BY id", [&](const Statement& s) {
        sourceName[s.columnInt(0)] = fileName(s.columnText(1));
        sourcePath[s.columnInt(0)] = s.columnText(1);
        OutlineNode n
            = node("source", fileName(s.columnText(1)), s.columnText(2) + ", " + s.columnText(3), s.columnInt(0));
        sources.children.push_back(std::move(n));
    });
    if (!r)
        return r.error();

    // Graphs our passes produced hang under the graph they ran on; everything else under its
    // source and group.
    std::map<int64_t, int64_t> resultOf; // result graph -> input graph
    r = each(db, "SELECT result_graph_id, graph_id FROM pass_reports WHERE result_graph_id IS NOT NULL",
        [&](const Statement& s) { resultOf[s.columnInt(0)] = s.columnInt(1); });
    if (!r)
        return r.error();
    std::map<int64_t, OutlineNode*> graphNode;
    std::map<int64_t, std::vector<OutlineNode>> passResults;
    r = each(db,
        "SELECT id, source_id, name, grp, stage, pass, role, node_count, error FROM graphs WHERE role != 'cache' "
        "ORDER BY source_id, grp, stage, id",
        [&](const Statement& s) {
            const int64_t id = s.columnInt(0);
            const std::string role = s.columnText(6);
            std::string label = s.columnText(2);
            if (role == "stage" || role == "pass_result")
                label = std::to_string(s.columnInt(4)) + " " + (s.columnText(5).empty() ? label : s.columnText(5));
            OutlineNode n = node(role == "stage" ? "stage"
                    : role == "pass_result"      ? "pass_result"
                                                 : "graph",
                label, s.columnIsNull(8) ? count(s.columnInt(7), "node", "nodes") : "not read: " + s.columnText(8), id);
            n.problem = !s.columnIsNull(8);
            auto input = resultOf.find(id);
            if (input != resultOf.end()) {
                passResults[input->second].push_back(std::move(n));
                return;
            }
            OutlineNode& source = sourceChild(graphs, s.columnInt(1), sourceName[s.columnInt(1)]);
            // A group other than the source's own path (debug folders: "model__0/forward") is a level.
            const std::string group = s.columnText(3);
            OutlineNode& parent
                = group.empty() || group == sourcePath[s.columnInt(1)] ? source : child(source, "group", group);
            parent.children.push_back(std::move(n));
        });
    if (!r)
        return r.error();
    // Pointers are taken once the tree no longer grows.
    std::vector<OutlineNode*> stack = { &graphs };
    while (!stack.empty()) {
        OutlineNode* n = stack.back();
        stack.pop_back();
        if (n->kind == "graph" || n->kind == "stage")
            graphNode[n->id] = n;
        for (OutlineNode& c : n->children)
            stack.push_back(&c);
    }
    for (auto& [input, results] : passResults)
        if (auto it = graphNode.find(input); it != graphNode.end())
            for (OutlineNode& res : results)
                it->second->children.push_back(std::move(res));

    r = each(db,
        "SELECT id, source_id, model_folder, dist_folder, world, global_rank, tp_rank, pp_rank, func, loads, "
        "first_failure, relative_path FROM cache_entries ORDER BY source_id, model_folder, dist_folder, func, id",
        [&](const Statement& s) {
            OutlineNode& source = sourceChild(caches, s.columnInt(1), sourceName[s.columnInt(1)]);
            OutlineNode* parent = &source;
            if (!s.columnText(2).empty())
                parent = &child(*parent, "cache_model", s.columnText(2));
            if (!s.columnText(3).empty())
                parent = &child(*parent, "cache_rank", rankLabel(s, 4).empty() ? s.columnText(3) : rankLabel(s, 4));
            const bool loads = s.columnInt(9) != 0;
            OutlineNode n = node("cache_entry", s.columnText(8).empty() ? s.columnText(11) : s.columnText(8),
                loads ? "TorchAir loads it" : "TorchAir would not load it: " + s.columnText(10), s.columnInt(0));
            n.problem = !loads;
            parent->children.push_back(std::move(n));
        });
    if (!r)
        return r.error();

    r = each(db,
        "SELECT id, scenario_name, scenario_path, calls, recaptures, hazards, peak_reserved, out_of_memory, overrides, "
        "origin, events, recorded_as FROM runs ORDER BY id DESC",
        [&](const Statement& s) {
            std::string name = s.columnText(1).empty() ? fileName(s.columnText(2)) : s.columnText(1);
            // A run made with settings on top of its scenario's says which (the Config view's runs).
            const Json overrides = Json::parse(s.columnText(8), nullptr, false);
            if (overrides.is_array() && !overrides.empty()) {
                std::string set;
                for (const Json& o : overrides)
                    if (o.is_string())
                        set += (set.empty() ? "" : ", ") + o.get<std::string>();
                name += " [" + set + "]";
            }
            // A recording has no calls, recaptures or hazards to count: its steps are trace entries.
            // A log's run has calls and hazards, and no device peak (its memory states are the pools').
            const bool recorded = s.columnText(9) == "recorded";
            std::string detail = ::storage::detail::fromRunLog(s.columnText(9), s.columnText(11))
                ? "recorded (" + s.columnText(11) + "), " + count(s.columnInt(3), "call", "calls") + ", "
                    + count(s.columnInt(4), "recapture", "recaptures") + ", "
                    + count(s.columnInt(5), "hazard", "hazards")
                : recorded
                ? "recorded, " + count(s.columnInt(10), "step", "steps") + ", peak " + mib(s.columnInt(6))
                : count(s.columnInt(3), "call", "calls") + ", " + count(s.columnInt(4), "recapture", "recaptures")
                    + ", " + count(s.columnInt(5), "hazard", "hazards") + ", peak " + mib(s.columnInt(6))
                    + (s.columnInt(7) ? ", out of memory" : "");
            OutlineNode n = node("run", "#" + std::to_string(s.columnInt(0)) + " " + name, detail, s.columnInt(0));
            n.problem = s.columnInt(5) > 0 || s.columnInt(7) != 0;
            runs.children.push_back(std::move(n));
        });
    if (!r)
        return r.error();
    for (OutlineNode* section : { &sources, &graphs, &caches, &runs })
        section->detail = std::to_string(section->children.size());
    return root;
}

} // namespace storage
