// `aclgraph-inspector stages PATH [--model NAME] [--diff A B] [--json] [-o FILE]`: the pass stages of
// a TORCH_COMPILE_DEBUG folder (engine/readers/debug_dir.h), and the difference between two of them
// (engine/graph/graph_diff.h). The JSON forms are documented in docs/fx-formats.md.
#include "engine/ingest/trace_groups.h"
#include "engine/core/json_text.h"
#include "engine/graph/graph_diff.h"
#include "engine/readers/debug_dir.h"
#include "gui/cli/cli_util.h"
#include "gui/cli/commands.h"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>

namespace gui::cli {

namespace {

using engine::readers::DebugDir;
using engine::readers::DebugGroup;
using engine::readers::DebugStage;
using nlohmann::ordered_json;

const char* kStagesUsage
    = "usage: aclgraph-inspector stages PATH [--model NAME] [--diff A B] [--json] [-o FILE]\n"
      "  PATH: a TORCH_COMPILE_DEBUG run folder, its torchair/npugraph_ex folder, a model__N folder\n"
      "        or a forward folder\n"
      "  A, B: stage numbers (0, 005), pass names (view_to_reshape, remove_noop_ops) or dynamo\n";

std::string stageNumber(const DebugStage& s)
{
    if (s.preAot)
        return "pre";
    char buf[16];
    std::snprintf(buf, sizeof buf, "%03d", s.number);
    return buf;
}

std::string stageTitle(const DebugStage& s)
{
    return "stage " + stageNumber(s) + " (" + s.pass + ")";
}

std::string errorText(const engine::Error& e)
{
    return e.toString();
}

std::string groupHeader(const DebugGroup& g)
{
    std::string h = g.label().empty() ? g.directory : g.label();
    h += ": " + g.backend;
    if (!g.run.empty())
        h += ", " + g.run;
    if (g.rank)
        h += ", rank " + std::to_string(*g.rank);
    return h;
}

// The passes that turned stage `from` into stage `to`: the `_after_` stages after `from` up to and
// including `to`, joined with "+"; `to`'s own pass when there are none (the same or an earlier stage).
std::string passesBetween(const DebugGroup& g, size_t from, size_t to)
{
    std::string names;
    if (from < to)
        for (size_t i = from + 1; i <= to; ++i) {
            const DebugStage& s = g.stages[i];
            if (s.preAot || s.kind != DebugStage::Kind::FxCode || s.file.find("_after_") == std::string::npos)
                continue;
            names += (names.empty() ? "" : "+") + s.pass;
        }
    return names.empty() ? g.stages[to].pass : names;
}

// ---- Listing ----

struct Against {
    int previous = -1; ///< index of the stage compared against
    engine::GraphDiff diff;
};

std::vector<std::optional<Against>> compareWithPrevious(const DebugGroup& g)
{
    std::vector<std::optional<Against>> out(g.stages.size());
    for (size_t i = 0; i < g.stages.size(); ++i) {
        if (!g.stages[i].readable() || g.stages[i].preAot)
            continue;
        const int p = g.previousReadable(i);
        if (p >= 0)
            out[i] = Against { p, engine::diffGraphs(*g.stages[size_t(p)].graph, *g.stages[i].graph) };
    }
    return out;
}

std::string listText(const std::vector<const DebugGroup*>& groups)
{
    std::string out;
    for (const DebugGroup* g : groups) {
        if (!out.empty())
            out += "\n";
        out += groupHeader(*g) + "\n  folder: " + g->directory + "\n";
        size_t passWidth = 4, oursWidth = 4;
        for (const DebugStage& s : g->stages) {
            passWidth = std::max(passWidth, s.pass.size());
            oursWidth = std::max(oursWidth, s.ourPass.size());
        }
        out += "  " + pad("stage", 6) + pad("pass", passWidth + 2) + pad("ours", oursWidth + 2) + pad("nodes", 5, true)
            + "  against the previous stage\n";
        const auto against = compareWithPrevious(*g);
        for (size_t i = 0; i < g->stages.size(); ++i) {
            const DebugStage& s = g->stages[i];
            std::string line = "  " + pad(stageNumber(s), 6) + pad(s.pass, passWidth + 2)
                + pad(s.ourPass.empty() ? "-" : s.ourPass, oursWidth + 2)
                + pad(s.readable() ? std::to_string(s.graph->nodes.size()) : "-", 5, true) + "  ";
            if (s.error)
                line += "error: " + errorText(*s.error);
            else if (!s.note.empty())
                line += s.note;
            else if (s.preAot)
                line += "pre-AOT (Dynamo's node names)";
            else if (against[i]) {
                const engine::GraphDiff& d = against[i]->diff;
                line += "vs " + stageNumber(g->stages[size_t(against[i]->previous)]) + ": removed "
                    + std::to_string(d.removed.size()) + " / added " + std::to_string(d.added.size()) + " / changed "
                    + std::to_string(d.changed.size());
            } else {
                line += "-";
            }
            while (!line.empty() && line.back() == ' ')
                line.pop_back();
            out += line + "\n";
        }
        if (g->inductorCode) {
            const auto& sum = g->inductorCode->summary;
            out += "  output_code.py (Inductor's): " + std::to_string(sum.kernels) + " kernels, "
                + std::to_string(sum.launches + sum.externCalls) + " calls, " + std::to_string(sum.allocations)
                + " allocations, " + std::to_string(sum.reuses) + " reuses, plan peak " + std::to_string(sum.peakBytes)
                + " bytes" + (sum.bytesExact ? "" : " (at least: some sizes are symbolic or unknown)") + "\n";
        } else if (!g->outputCode.empty()) {
            out += "  output_code.py: " + g->outputCode + (g->module ? "" : " (not read, see the diagnostics)") + "\n";
        }
    }
    return out;
}

ordered_json diagnosticsJson(const std::vector<engine::readers::Diagnostic>& ds)
{
    ordered_json a = ordered_json::array();
    for (const auto& d : ds)
        a.push_back(d.toString());
    return a;
}

ordered_json groupJson(const DebugGroup& g)
{
    return { { "label", g.label() }, { "model", g.model }, { "phase", g.phase }, { "backend", g.backend },
        { "run", g.run }, { "rank", g.rank ? ordered_json(*g.rank) : ordered_json(nullptr) },
        { "directory", g.directory } };
}

ordered_json stageRefJson(const DebugStage& s)
{
    return { { "number", s.preAot ? ordered_json(nullptr) : ordered_json(s.number) }, { "file", s.file },
        { "pass", s.pass } };
}

std::string listJson(const DebugDir& dir, const std::vector<const DebugGroup*>& groups)
{
    ordered_json gs = ordered_json::array();
    for (const DebugGroup* g : groups) {
        const auto against = compareWithPrevious(*g);
        ordered_json stages = ordered_json::array();
        for (size_t i = 0; i < g->stages.size(); ++i) {
            const DebugStage& s = g->stages[i];
            ordered_json j = { { "number", s.preAot ? ordered_json(nullptr) : ordered_json(s.number) },
                { "file", s.file }, { "path", s.path }, { "pass", s.pass },
                { "our_pass", s.ourPass.empty() ? ordered_json(nullptr) : ordered_json(s.ourPass) },
                { "pre_aot", s.preAot }, { "kind", s.kind == DebugStage::Kind::GeGraph ? "ge" : "fx" },
                { "read", s.readable() },
                { "nodes", s.readable() ? ordered_json(s.graph->nodes.size()) : ordered_json(nullptr) },
                { "error", s.error ? ordered_json(errorText(*s.error)) : ordered_json(nullptr) },
                { "note", s.note.empty() ? ordered_json(nullptr) : ordered_json(s.note) },
                { "diagnostics", diagnosticsJson(s.diagnostics) } };
            if (against[i]) {
                const engine::GraphDiff& d = against[i]->diff;
                const DebugStage& p = g->stages[size_t(against[i]->previous)];
                j["previous"] = p.number;
                j["removed"] = d.removed.size();
                j["added"] = d.added.size();
                j["changed"] = d.changed.size();
            } else {
                j["previous"] = nullptr;
                j["removed"] = nullptr;
                j["added"] = nullptr;
                j["changed"] = nullptr;
            }
            stages.push_back(std::move(j));
        }
        ordered_json gj = groupJson(*g);
        gj["output_code"] = g->outputCode.empty() ? ordered_json(nullptr) : ordered_json(g->outputCode);
        gj["output_code_read"] = g->module.has_value();
        gj["diagnostics"] = diagnosticsJson(g->diagnostics);
        gj["stages"] = std::move(stages);
        gs.push_back(std::move(gj));
    }
    ordered_json j = { { "format", "aclgraph-inspector-stages" }, { "version", 1 }, { "path", dir.path },
        { "groups", std::move(gs) }, { "diagnostics", diagnosticsJson(dir.diagnostics) } };
    return engine::jsonText(j) + "\n";
}

// ---- Selection ----

// --model: a group label ("model__0/forward"), a model ("model__0") or a folder name; nullptr with
// a message when it matches none or several.
std::vector<const DebugGroup*> selectGroups(const DebugDir& dir, const std::string& model)
{
    std::vector<const DebugGroup*> out;
    for (const DebugGroup& g : dir.groups)
        if (model.empty() || g.label() == model || g.model == model || g.directory == model)
            out.push_back(&g);
    return out;
}

std::string groupList(const DebugDir& dir)
{
    std::string s;
    for (const DebugGroup& g : dir.groups)
        s += (s.empty() ? "" : ", ") + (g.label().empty() ? g.directory : g.label());
    return s;
}

bool allDigits(const std::string& s)
{
    return !s.empty() && s.size() <= 6 && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// A stage by number ("0", "005"), pass name (TorchAir's or ours), file name, or "dynamo"/"pre" for the
// pre-AOT graph. -1 with a message on `why` when none or several match.
int findStage(const DebugGroup& g, const std::string& spec, std::string& why)
{
    std::vector<int> hits;
    for (size_t i = 0; i < g.stages.size(); ++i) {
        const DebugStage& s = g.stages[i];
        bool match = false;
        if (allDigits(spec))
            match = !s.preAot && s.number == std::stoi(spec);
        else if (s.preAot)
            match = spec == "dynamo" || spec == "pre" || spec == s.pass || spec == s.file;
        else
            match = spec == s.pass || spec == s.ourPass || spec == s.file;
        if (match)
            hits.push_back(int(i));
    }
    // A number can name a `.txt` and a `.pbtxt` dump: the FX one is meant.
    if (hits.size() > 1 && allDigits(spec)) {
        std::vector<int> fx;
        for (int h : hits)
            if (g.stages[size_t(h)].kind == DebugStage::Kind::FxCode)
                fx.push_back(h);
        if (!fx.empty())
            hits = fx;
    }
    if (hits.size() == 1)
        return hits[0];
    std::string list;
    for (size_t i = 0; i < g.stages.size(); ++i)
        list += (list.empty() ? "" : ", ") + stageNumber(g.stages[i]) + " " + g.stages[i].pass;
    if (hits.empty()) {
        why = "no stage '" + spec + "' in " + g.label() + " (stages: " + list + ")";
    } else {
        std::string which;
        for (int h : hits)
            which += (which.empty() ? "" : ", ") + stageNumber(g.stages[size_t(h)]);
        why = "stage '" + spec + "' is ambiguous in " + g.label() + ": " + which + "; give the number";
    }
    return -1;
}

// ---- Diff ----

std::string diffText(const DebugGroup& g, size_t a, size_t b, const engine::GraphDiff& d)
{
    std::string out = (g.label().empty() ? g.directory : g.label()) + ": " + stageTitle(g.stages[a]) + " -> "
        + stageTitle(g.stages[b]) + "\n";
    if (g.stages[a].preAot || g.stages[b].preAot)
        out += "note: dynamo_out_graph.txt has Dynamo's node names; nodes are matched by name\n";
    out += engine::compareText(passesBetween(g, a, b), d) + "\n";
    out += "\nchanged nodes:" + std::string(d.changed.empty() ? " none\n" : "\n");
    for (const engine::NodeChange& c : d.changed)
        out += "    " + c.text() + "\n";
    return out;
}

std::string diffJson(const DebugGroup& g, size_t a, size_t b, const engine::GraphDiff& d)
{
    ordered_json changed = ordered_json::array();
    for (const engine::NodeChange& c : d.changed) {
        ordered_json fields = ordered_json::array();
        for (const engine::FieldChange& f : c.changes)
            fields.push_back({ { "field", f.field }, { "before", f.before }, { "after", f.after } });
        changed.push_back({ { "node", c.node }, { "changes", std::move(fields) }, { "text", c.text() } });
    }
    ordered_json targets = ordered_json::array();
    for (const engine::OpCount& c : d.targetChanges)
        targets.push_back({ { "target", c.name }, { "before", c.before }, { "after", c.after } });
    const std::string pass = passesBetween(g, a, b);
    ordered_json j = { { "format", "aclgraph-inspector-stage-diff" }, { "version", 1 }, { "group", groupJson(g) },
        { "a", stageRefJson(g.stages[a]) }, { "b", stageRefJson(g.stages[b]) }, { "pass", pass },
        { "nodes_before", d.nodesBefore }, { "nodes_after", d.nodesAfter }, { "removed", d.removed },
        { "added", d.added }, { "changed", std::move(changed) }, { "target_changes", std::move(targets) },
        { "summary", engine::compareText(pass, d) } };
    return engine::jsonText(j) + "\n";
}

} // namespace

int stagesCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    std::string path, model, outPath, diffA, diffB;
    bool json = false, diff = false;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--json") {
            json = true;
        } else if (a == "--diff") {
            if (i + 2 >= args.size()) {
                err << "stages: --diff needs two stages\n" << kStagesUsage;
                return 2;
            }
            diff = true;
            diffA = args[++i];
            diffB = args[++i];
        } else if ((a == "--model" || a == "-o") && i + 1 >= args.size()) {
            err << "stages: " << a << " needs a value\n" << kStagesUsage;
            return 2;
        } else if (a == "--model") {
            model = args[++i];
        } else if (a == "-o") {
            outPath = args[++i];
        } else if (a == "--help" || a == "-h") {
            out << kStagesUsage;
            return 0;
        } else if (!a.empty() && a[0] == '-') {
            err << "stages: unknown option " << a << "\n" << kStagesUsage;
            return 2;
        } else if (path.empty()) {
            path = a;
        } else {
            err << kStagesUsage;
            return 2;
        }
    }
    if (path.empty()) {
        err << kStagesUsage;
        return 2;
    }

    auto dir = engine::ingest::readStageGroups(path);
    if (!dir) {
        err << "error: " << dir.error().toString() << "\n";
        return 1;
    }
    for (const auto& d : dir->diagnostics)
        err << d.toString() << "\n";
    const std::vector<const DebugGroup*> groups = selectGroups(*dir, model);
    if (groups.empty()) {
        err << "error: " << path << ": no group '" << model << "' (groups: " << groupList(*dir) << ")\n";
        return 1;
    }
    // Per-stage problems go to stderr as the readers word them; the listing shows the errors too.
    for (const DebugGroup* g : groups) {
        for (const auto& d : g->diagnostics)
            err << d.toString() << "\n";
        for (const DebugStage& s : g->stages)
            for (const auto& d : s.diagnostics)
                err << d.toString() << "\n";
    }
    if (!diff)
        return writeResult(json ? listJson(*dir, groups) : listText(groups), outPath, out, err);

    if (groups.size() > 1) {
        err << "error: " << path << ": several groups, pick one with --model (" << groupList(*dir) << ")\n";
        return 1;
    }
    const DebugGroup& g = *groups.front();
    std::string why;
    const int a = findStage(g, diffA, why);
    const int b = a < 0 ? -1 : findStage(g, diffB, why);
    if (a < 0 || b < 0) {
        err << "error: " << path << ": " << why << "\n";
        return 1;
    }
    for (int i : { a, b }) {
        const DebugStage& s = g.stages[size_t(i)];
        if (!s.readable()) {
            // The stage's own error names its file and place; which stage it is comes after.
            err << "error: " << (s.error ? errorText(*s.error) : s.path + ": the whole file: " + s.note) << " ("
                << stageTitle(s) << " of " << (g.label().empty() ? g.directory : g.label()) << " was not read)\n";
            return 1;
        }
    }
    const engine::GraphDiff d = engine::diffGraphs(*g.stages[size_t(a)].graph, *g.stages[size_t(b)].graph);
    return writeResult(
        json ? diffJson(g, size_t(a), size_t(b), d) : diffText(g, size_t(a), size_t(b), d), outPath, out, err);
}

} // namespace gui::cli
