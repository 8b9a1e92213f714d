// recover_view_inplace_pattern (TA patterns/_recover_view_inplace_pattern.py, npugraph_ex's copy
// identical; run by npu_fx_compiler.py `_optimize_fx` through debug_compare_fx_graphs, always on, §4.5).
// Functionalization turns an in-place scatter into a view of a graph input, the functional scatter, a
// view back and a copy_ epilogue into the input:
//     view = view(x, ...); s = scatter_update(view, ...); view_1 = view(s, ...); copy_(x, view_1)
// The functional op is replaced by its in-place twin on the same arguments (node `<name>_inplace`),
// which writes x through the view, and the copy_ goes: one buffer and one copy fewer.
#include "engine/passes/pass_util.h"
#include "engine/passes/pipeline.h"

#include <array>

namespace engine::passes {

namespace {

using detail::refOf;

// _INPLACE_OPS_MAP (lines 27-48): each maps output 0 to its ref input 0.
struct InplaceOp {
    const char* functional;
    const char* inplace;
};
constexpr InplaceOp kInplaceOps[] = {
    { "npu.scatter_update.default", "npu.scatter_update_.default" },
    { "npu.npu_scatter_nd_update.default", "npu.npu_scatter_nd_update_.default" },
    { "npu.npu_quant_scatter.default", "npu.npu_quant_scatter_.default" },
};
// How Python prints `_INPLACE_OPS_MAP.keys()` (repr of each OpOverload), with torch_npu providing all three.
constexpr const char* kMapKeys = "dict_keys([<OpOverload(op='npu.scatter_update', overload='default')>, "
                                 "<OpOverload(op='npu.npu_scatter_nd_update', overload='default')>, "
                                 "<OpOverload(op='npu.npu_quant_scatter', overload='default')>])";

const char* inplaceOf(const Node& n)
{
    if (!detail::isCallFunction(n))
        return nullptr;
    const std::string t = detail::targetOf(n);
    for (const InplaceOp& op : kInplaceOps)
        if (t == op.functional)
            return op.inplace;
    return nullptr;
}

bool isView(const Node& n)
{
    return detail::isCallFunction(n) && detail::targetOf(n) == "aten.view.default";
}

// str(meta['val'].size()): "torch.Size([16, 4, 16])".
std::string sizeText(const TensorMeta& t)
{
    std::string s = "torch.Size([";
    for (size_t i = 0; i < t.shape.size(); ++i)
        s += (i ? ", " : "") + t.shape[i].text();
    return s + "])";
}

struct Match {
    int placeholder, preView, nonInplace, postView, copy;
};

class Recoverer {
public:
    Recoverer(Graph& g, PassReport& report)
        : m_g(g)
        , m_report(report)
    {
    }
    Result<void> run();

private:
    const Node& at(int i) const { return m_g.nodes[size_t(i)]; }
    void log(std::string line) { m_report.log.push_back(std::move(line)); }
    void skip(int node, const std::string& line, const std::string& detail = {})
    {
        log(line);
        m_report.skipped.push_back({ at(node).name, detail.empty() ? line : line + " (" + detail + ")" });
    }
    std::vector<int> copyNodes();
    std::vector<Match> findPatterns();
    Result<void> replace(const Match& m);

    Graph& m_g;
    PassReport& m_report;
};

// _get_other_to_args_copy_nodes (lines 51-81).
std::vector<int> Recoverer::copyNodes()
{
    std::vector<int> copies;
    for (size_t i = 0; i < m_g.nodes.size(); ++i) {
        const Node& n = m_g.nodes[i];
        if (!detail::isCopyInPlace(n))
            continue;
        const std::string prefix = "Skip copy_ node: " + n.name + ", ";
        if (n.args.size() != 2) {
            skip(int(i),
                prefix + "due to unexpected input num " + std::to_string(n.args.size()) + ", expected 2 inputs.");
            continue;
        }
        const int dst = refOf(m_g, n.args[0]), src = refOf(m_g, n.args[1]);
        if (dst < 0 || src < 0) {
            // TorchAir reads `.op` of both arguments and would stop with an AttributeError.
            m_report.skipped.push_back({ n.name, "aclgraph-inspector: an argument of the copy_ is not a node" });
            continue;
        }
        if (!(at(dst).op == NodeOp::Placeholder && at(src).op != NodeOp::Placeholder)) {
            skip(int(i),
                prefix + "expect copy from other_node to placeholder_node, but get an copy_ node from "
                    + nodeOpName(at(src).op) + " to " + nodeOpName(at(dst).op) + ".");
            continue;
        }
        if (at(dst).outputs.empty() || at(src).outputs.empty()) {
            // `'val' in meta` fails: TorchAir passes over the copy_ without a word.
            m_report.skipped.push_back({ n.name,
                "aclgraph-inspector: " + (at(dst).outputs.empty() ? at(dst).name : at(src).name)
                    + " has no tensor metadata (meta['val']); TorchAir skips the copy_ without a message" });
            continue;
        }
        // The sizes of the copy_'s destination and source (TorchAir before fcd323c5 compared the
        // copy_'s own meta with itself, so this check could not fire; at fced8842 it compares the two).
        const TensorMeta& d = at(dst).outputs[0];
        const TensorMeta& s = at(src).outputs[0];
        if (!detail::sameShape(d.shape, s.shape)) {
            skip(int(i),
                prefix + "expect the shape of src and dst to be the same, but src shape is " + sizeText(s)
                    + ", and dst shape is " + sizeText(d) + ".");
            continue;
        }
        copies.push_back(int(i));
    }
    log("In fx_graph, find all copy_ nodes to optimize, those are " + detail::nodeList(m_g, copies));
    return copies;
}

// find_optimization_pattern (lines 84-143).
std::vector<Match> Recoverer::findPatterns()
{
    std::vector<Match> matches;
    for (int copy : copyNodes()) {
        const Node& c = at(copy);
        const std::string prefix = "Skip copy_ node: " + c.name + ", because ";
        const int postView = refOf(m_g, c.args[1]);
        if (!isView(at(postView))) {
            skip(copy, prefix + "src input of copy is not expected view node, but is " + at(postView).name + ".");
            continue;
        }
        const int nonInplace = at(postView).args.empty() ? -1 : refOf(m_g, at(postView).args[0]);
        if (nonInplace < 0 || !inplaceOf(at(nonInplace))) {
            skip(copy,
                prefix + "input of post_view is not in expected non_inplace nodes set " + kMapKeys + ", but is "
                    + (nonInplace < 0 ? std::string("a constant") : at(nonInplace).name) + ".");
            continue;
        }
        const int preView = at(nonInplace).args.empty() ? -1 : refOf(m_g, at(nonInplace).args[0]);
        if (preView < 0 || !isView(at(preView))) {
            skip(copy,
                prefix + "ref input of non_inplace node is not expected view node, but is "
                    + (preView < 0 ? std::string("a constant") : at(preView).name) + ".");
            continue;
        }
        const int dst = refOf(m_g, c.args[0]);
        const int base = at(preView).args.empty() ? -1 : refOf(m_g, at(preView).args[0]);
        if (dst != base) {
            skip(copy,
                prefix + "dst input of copy and input of pre_view are not the same node, those are " + at(dst).name
                    + " and " + (base < 0 ? std::string("a constant") : at(base).name) + ".");
            continue;
        }
        if (!(at(preView).users.size() == 1 && at(base).users.size() == 2)) {
            skip(copy,
                "Skip copy_ node: " + c.name + ", pre_view node must have only one user\xef\xbc\x8c but get "
                    + std::to_string(at(preView).users.size())
                    + ",  and placeholder node must have only two user, but get "
                    + std::to_string(at(base).users.size()) + ".",
                "pre_view " + at(preView).name + " users " + detail::nodeList(m_g, at(preView).users) + ", "
                    + at(base).name + " users " + detail::nodeList(m_g, at(base).users));
            continue;
        }
        matches.push_back({ base, preView, nonInplace, postView, copy });
    }
    std::string text = "[";
    for (size_t k = 0; k < matches.size(); ++k) {
        const Match& m = matches[k];
        text += std::string(k ? ", " : "") + "{'placeholder': " + at(m.placeholder).name
            + ", 'pre_view': " + at(m.preView).name + ", 'non_inplace': " + at(m.nonInplace).name
            + ", 'post_view': " + at(m.postView).name + ", 'copy_': " + at(m.copy).name + "}";
    }
    log("In fx_graph, find " + std::to_string(matches.size())
        + " matched patterns for view inplace optimization, those are  " + text + "].");
    return matches;
}

// Lines 195-218: the in-place op goes after the functional one with its args and kwargs and meta
// (propagate_meta), takes over its uses, and the copy_ (when nothing uses it) and the old op go.
Result<void> Recoverer::replace(const Match& m)
{
    // Indices move as nodes come and go: every node is found again by name.
    const std::string nonName = at(m.nonInplace).name, copyName = at(m.copy).name;
    const Node old = at(m.nonInplace);
    Node n = old;
    n.target = inplaceOf(old);
    n.name = old.name + "_inplace";
    n.users.clear();
    n.freedAfter.clear();
    if (m_g.find(n.name) >= 0) {
        // FX assigns the name without asking the graph's namespace; two nodes of one name cannot be
        // represented here, so the new one gets FX's next free suffix.
        const std::string wanted = n.name;
        for (int k = 1; m_g.find(n.name) >= 0; ++k)
            n.name = wanted + "_" + std::to_string(k);
        log("aclgraph-inspector: the graph already has a node " + wanted + "; the in-place node is named " + n.name);
    }
    const std::string newName = n.name;
    if (auto r = detail::insertNode(m_g, m_g.find(nonName) + 1, std::move(n)); !r)
        return r.error();
    if (auto r = detail::replaceUses(m_g, nonName, newName); !r)
        return r;
    // The success text names the mode: "GE graph" for max-autotune, else "ACL graph" (always here).
    log("In ACL graph, success to replace non_inplace node " + nonName + " by inserting new inplace node " + newName
        + "[target: " + inplaceOf(old) + "].");
    m_report.rewritten.push_back({ nonName, detail::targetOf(old), inplaceOf(old) });
    std::set<std::string> erase = { nonName };
    const int copy = m_g.find(copyName);
    if (at(copy).users.empty())
        erase.insert(copyName);
    else
        m_report.skipped.push_back({ copyName,
            "aclgraph-inspector: the copy_ has users " + detail::nodeList(m_g, at(copy).users)
                + ", so TorchAir keeps it (\"Try to replace copy_ node by dst input of copy_ in future\")" });
    return detail::eraseNodes(m_g, erase);
}

Result<void> Recoverer::run()
{
    const std::vector<Match> matches = findPatterns();
    // Matches hold indices of the graph as it was found; replace() looks them up by name again.
    std::vector<std::array<std::string, 5>> names;
    for (const Match& m : matches)
        names.push_back({ at(m.placeholder).name, at(m.preView).name, at(m.nonInplace).name, at(m.postView).name,
            at(m.copy).name });
    for (const auto& n : names) {
        const Match m { m_g.find(n[0]), m_g.find(n[1]), m_g.find(n[2]), m_g.find(n[3]), m_g.find(n[4]) };
        if (auto r = replace(m); !r)
            return r;
    }
    return {};
}

} // namespace

Result<PassReport> recoverViewInplacePattern(Graph& graph, const config::Options&, const PassEnvironment& env)
{
    return detail::runPass(
        graph, "recover_view_inplace_pattern", {}, true, [&env](Graph& g, PassReport& report) -> Result<void> {
            // _is_supported_cann_version("8.3.RC1") (lines 146-154, 187-190): the pass caused format
            // errors in GE graphs on older CANN.
            const std::string required = "8.3.RC1";
            if (env.cann.empty()) {
                report.log.push_back("aclgraph-inspector: the CANN version is unknown; recover_view_inplace_pattern "
                                     "runs only on CANN >= "
                    + required + " and runs here as on a current CANN (give the version with --cann)");
            } else if (!detail::cannAtLeast(env.cann, required)) {
                bool recognised = true;
                detail::cannVersionNumber(env.cann, &recognised);
                if (!recognised)
                    report.log.push_back("aclgraph-inspector: torch_npu does not recognise the CANN version '"
                        + env.cann + "' (a.b.c, a.b.RCd, a.b.Tg or a.b.RCd.alphaf), so it counts as older than "
                        + required);
                report.log.push_back("Skip running the current pattern of recovering to view inplace operators, due "
                                     "to unsupported cann version, please update to at least version 8.3.RC1.");
                return {};
            }
            Recoverer r(g, report);
            return r.run();
        });
}

} // namespace engine::passes
