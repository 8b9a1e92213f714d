// apply_pattern_passes (TA/patterns/pattern_util.py `_apply_pattern_passes`, §4.5): TorchAir's
// registered fusions, applied the way inductor's PatternMatcherPass.apply applies them
// (torch/_inductor/pattern_matcher.py): every node whose target is the target of a pattern's first
// output is a root, visited last node first; on each root the entries keyed to its target are
// tried in registration order until one applies. An entry applies when its pattern matches (the
// node sequence, arguments and numbers of users), the match does not cross a mutation barrier,
// register_replacement's check_fn accepts it (the pattern re-traced with the node's values) and
// TorchAir's extra check accepts it: first `_check_pattern_stream` (pattern_pass_manager.py), then
// the pattern file's own. The replacement then goes in before the match's earliest output node.
#include "engine/passes/pass_util.h"
#include "engine/passes/pattern_common.h"
#include "engine/passes/pipeline.h"

#include <algorithm>
#include <set>

namespace engine::passes {

namespace {

using namespace pattern;
using detail::refOf;

bool rootMatches(const Graph& g, int node, const std::string& target)
{
    const Node& n = g.nodes[size_t(node)];
    if (!detail::isCallFunction(n))
        return false;
    if (target == "operator.getitem")
        return detail::isGetItem(n);
    return detail::targetOf(n) == target;
}

std::string pyStr(const std::string& s)
{
    return "'" + s + "'";
}

/// `_check_pattern_stream` (pattern_pass_manager.py lines 22-63), with its DEBUG text.
bool checkStream(const Graph& g, const Context& ctx, const Match& m, std::vector<std::string>& log, std::string& why)
{
    std::vector<std::string> info;
    std::vector<std::pair<std::string, std::vector<std::string>>> distribution;
    std::set<std::string> nonDefault;
    bool hasDefault = false;
    auto refuse = [&] {
        std::string nodes = "[", streams = "{";
        for (size_t i = 0; i < info.size(); ++i)
            nodes += (i ? ", " : "") + pyStr(info[i]);
        for (size_t i = 0; i < distribution.size(); ++i) {
            streams += (i ? ", " : "") + pyStr(distribution[i].first) + ": [";
            for (size_t k = 0; k < distribution[i].second.size(); ++k)
                streams += (k ? ", " : "") + pyStr(distribution[i].second[k]);
            streams += "]";
        }
        log.push_back("Cross-stream operation detected in pattern match. Match nodes: " + nodes
            + "]. Stream distribution: " + streams + "}. Fusion is not supported for cross-stream operations.");
        why = log.back();
        return false;
    };
    for (int n : m.nodes) {
        const Node& node = g.nodes[size_t(n)];
        if (!detail::isCallFunction(node))
            continue;
        info.push_back(node.name + "(" + detail::pyTarget(node) + ")");
        auto it = ctx.labels.find(node.name);
        const std::optional<std::string> label = it == ctx.labels.end() ? std::nullopt : it->second;
        const std::string key = label ? *label : "default";
        auto d = std::find_if(distribution.begin(), distribution.end(), [&](const auto& p) { return p.first == key; });
        if (d == distribution.end())
            distribution.push_back({ key, { node.name } });
        else
            d->second.push_back(node.name);
        if (!label) {
            hasDefault = true;
        } else {
            nonDefault.insert(*label);
            if (nonDefault.size() > 1)
                return refuse();
        }
    }
    if (hasDefault && !nonDefault.empty())
        return refuse();
    return true;
}

/// fallback_node_due_to_unsupported_type(node, allow_cpu_inputs=False) (torch/_inductor/lowering.py):
/// PatternMatcherPass.apply skips a root that reads or gives a complex (or meta) tensor.
bool unsupportedType(const Graph& g, int root)
{
    auto bad
        = [](const TensorMeta& t) { return t.dtype == DType::C64 || t.dtype == DType::C128 || t.device == "meta"; };
    const Node& n = g.nodes[size_t(root)];
    std::function<bool(const Arg&)> reads = [&](const Arg& a) {
        for (const Arg& x : a.items)
            if (reads(x))
                return true;
        const int r = refOf(g, a);
        if (r < 0)
            return false;
        for (const TensorMeta& t : g.nodes[size_t(r)].outputs)
            if (bad(t))
                return true;
        return false;
    };
    for (const Arg& a : n.args)
        if (reads(a))
            return true;
    for (const auto& kw : n.kwargs)
        if (reads(kw.second))
            return true;
    return std::any_of(n.outputs.begin(), n.outputs.end(), bad);
}

/// check_fn maps every KeywordArg node to its meta["val"]: a tensor node without metadata would
/// raise KeyError in TorchAir.
std::string missingMeta(const Graph& g, const Match& m)
{
    for (const auto& [name, value] : m.kwargs) {
        const int r = refOf(g, value);
        if (r < 0)
            continue;
        const Node& n = g.nodes[size_t(r)];
        const bool symbolic
            = (n.op == NodeOp::Placeholder && n.inputKind == InputKind::SymInt) || detail::sizeArg(g, value);
        if (n.outputs.empty() && !symbolic)
            return "aclgraph-inspector: " + n.name + " (" + name
                + ") has no tensor metadata; register_replacement's check_fn reads its meta['val'] (TorchAir would "
                  "raise KeyError): not fused here; the graph's metadata would tell";
    }
    return {};
}

/// The mutating node between the match's nodes, for the report.
std::string crossedBarrier(const Graph& g, const Match& m)
{
    const auto [lo, hi] = std::minmax_element(m.nodes.begin(), m.nodes.end());
    for (int i = *lo + 1; i <= *hi; ++i)
        if (isMutationOp(g, i))
            return g.nodes[size_t(i)].name;
    return "?";
}

} // namespace

Result<PassReport> applyPatternPasses(Graph& graph, const config::Options& options)
{
    return detail::runPass(graph, "apply_pattern_passes", options.optionName("pattern_fusion_pass"),
        options.patternFusionPass, [&](Graph& g, PassReport& report) -> Result<void> {
            // torch < 2.6 logs 'The pattern_fusion_pass is unsupported when torch < 2.6 .' and returns;
            // the operator table is PyTorch 2.11's, so that never happens here.
            std::vector<Entry> entries = dynamicQuantEntries();
            for (Entry& e : castEntries())
                entries.push_back(std::move(e));
            // torchair registers these two only when config.mode != "max-autotune"; npugraph_ex always.
            if (options.backend == config::Backend::TorchAir && options.mode == "max-autotune") {
                report.log.push_back("aclgraph-inspector: mode is max-autotune: the batchmatmultranspose and "
                                     "addrmsnormquant patterns are not registered");
            } else {
                for (Entry& e : bmmTransposeEntries())
                    entries.push_back(std::move(e));
                for (Entry& e : quantEntries())
                    entries.push_back(std::move(e));
            }

            // add_stream_label_to_node_meta, then compute_mutation_region_ids.
            Context ctx;
            const auto labels = detail::streamLabels(g);
            int region = 0;
            for (size_t i = 0; i < g.nodes.size(); ++i) {
                ctx.labels[g.nodes[i].name] = labels[i];
                if (isMutationOp(g, int(i)))
                    ++region;
                ctx.regions[g.nodes[i].name] = region;
            }

            std::vector<std::string> roots;
            for (size_t i = 0; i < g.nodes.size(); ++i)
                for (const Entry& e : entries)
                    if (rootMatches(g, int(i), e.rootTarget)) {
                        roots.push_back(g.nodes[i].name);
                        break;
                    }

            for (auto name = roots.rbegin(); name != roots.rend(); ++name) {
                int root = g.find(*name);
                if (root < 0)
                    continue; // erased by an earlier rewrite
                const std::string rootTarget = detail::targetOf(g.nodes[size_t(root)]);
                bool candidate = false, fused = false;
                std::optional<Attempt> best;
                auto note = [&](const Attempt& a) {
                    if (!best || a.closerThan(*best))
                        best = a;
                };
                const bool unsupported = unsupportedType(g, root);
                for (const Entry& e : entries) {
                    root = g.find(*name);
                    if (root < 0)
                        break;
                    if (!rootMatches(g, root, e.rootTarget))
                        continue;
                    const bool isCandidate = e.candidate(g, root);
                    candidate = candidate || isCandidate;
                    if (unsupported) {
                        if (isCandidate)
                            note({ Stage::Structure, 0,
                                "aclgraph-inspector: " + *name
                                    + " reads or gives a complex tensor: PatternMatcherPass skips it "
                                      "(fallback_node_due_to_unsupported_type)" });
                        continue;
                    }
                    Attempt fail;
                    std::optional<Match> m = e.match(g, root, fail);
                    if (!m) {
                        if (isCandidate)
                            note({ fail.stage, fail.depth, fail.reason + " [" + e.name + "]" });
                        continue;
                    }
                    candidate = true;
                    const size_t depth = m->nodes.size();
                    std::set<int> regions;
                    for (int n : m->nodes)
                        regions.insert(mutationRegion(g, ctx, n));
                    if (regions.size() != 1) {
                        note({ Stage::Region, depth,
                            "aclgraph-inspector: the match " + detail::nodeList(g, m->nodes) + " of " + e.name
                                + " crosses a mutation barrier (" + crossedBarrier(g, *m)
                                + "); PatternMatcherPass discards it" });
                        continue;
                    }
                    std::string why = missingMeta(g, *m);
                    if (why.empty() && e.recheck)
                        why = e.recheck(g, *m);
                    if (!why.empty()) {
                        note({ Stage::Check, depth, why + " [" + e.name + "]" });
                        continue;
                    }
                    if (!checkStream(g, ctx, *m, report.log, why)) {
                        note({ Stage::Stream, depth, why });
                        continue;
                    }
                    if (e.extra && !e.extra(g, *m, report.log, why)) {
                        note({ Stage::Extra, depth, why });
                        continue;
                    }
                    std::vector<std::string> notes;
                    auto replacement = e.replacement(g, *m, notes, why);
                    std::vector<std::string> added;
                    if (replacement) {
                        const std::string matched = detail::nodeList(g, m->nodes);
                        auto r = replaceWithGraph(g, *m, replacement->first, replacement->second, why);
                        if (!r)
                            return r.error();
                        added = *r;
                        if (!added.empty()) {
                            for (auto& line : notes)
                                report.log.push_back(line);
                            report.log.push_back("aclgraph-inspector: " + e.name + ": " + matched + " -> " + added[0]
                                + " (" + e.fusedTarget + ")");
                        }
                    }
                    if (added.empty()) {
                        note({ Stage::Rewrite, depth, why });
                        continue;
                    }
                    report.rewritten.push_back({ *name, rootTarget, e.fusedTarget });
                    fused = true;
                    break;
                }
                if (candidate && !fused && best)
                    report.skipped.push_back({ *name, best->reason });
            }
            return {};
        });
}

} // namespace engine::passes
