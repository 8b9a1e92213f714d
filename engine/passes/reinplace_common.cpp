#include "engine/passes/reinplace_common.h"

#include "engine/core/bracket_text.h"
#include "engine/graph/graph_diff.h"
#include "engine/graph/op_info.h"
#include "engine/passes/pass_util.h"

#include <algorithm>
#include <set>

namespace engine::passes::detail {

namespace {

std::string labelRepr(const std::optional<std::string>& label)
{
    return label ? "'" + *label + "'" : "None";
}

// len(pytree.tree_leaves(node.meta["fake_result"])): the node's tensor results. FakeTensor propagation
// computes them whether or not the graph as read carries metadata, so without metadata the schema's
// returns say how many there are ("(Tensor, Tensor, Tensor)" -> 3); 0 when neither tells.
int resultCount(const Node& n)
{
    if (!n.outputs.empty())
        return int(n.outputs.size());
    const OpSchema* s = findSchema(n.target);
    if (!s)
        return 0;
    std::string_view r = bracket::trim(s->returns);
    if (r.size() >= 2 && r.front() == '(' && r.back() == ')')
        r = r.substr(1, r.size() - 2);
    int count = 0;
    for (std::string_view item : bracket::splitTopLevel(r))
        if (bracket::trim(item).rfind("Tensor", 0) == 0 && bracket::trim(item).find("[]") == std::string_view::npos)
            ++count;
    return count;
}

} // namespace

StreamChecker::StreamChecker(const Graph& g, bool fakeResults)
    : m_fakeResults(fakeResults)
{
    const auto labels = streamLabels(g);
    for (size_t i = 0; i < g.nodes.size(); ++i)
        m_labels[g.nodes[i].name] = labels[i];
}

std::vector<int> collectUsers(const Graph& g, int input)
{
    std::vector<int> users;
    int copy = -1;
    for (int u : g.nodes[size_t(input)].users) {
        if (isCopyInPlace(g.nodes[size_t(u)])) {
            copy = u; // replaced by the input when the epilogue goes
            continue;
        }
        users.push_back(u);
    }
    if (copy >= 0) {
        const Node& c = g.nodes[size_t(copy)];
        const int src = c.args.size() > 1 ? refOf(g, c.args[1]) : -1;
        if (src >= 0 && isGetItem(g.nodes[size_t(src)]))
            for (int u : g.nodes[size_t(src)].users)
                if (u != copy)
                    users.push_back(u);
        users.insert(users.end(), c.users.begin(), c.users.end());
    }
    return users;
}

bool StreamChecker::verify(const Graph& g, int node, const std::vector<int>& users, const std::string& check,
    std::vector<std::string>& log, std::string* failure) const
{
    const Node& n = g.nodes[size_t(node)];
    bool same = true;
    if (users.size() >= 2) {
        std::vector<std::optional<std::string>> labels;
        for (int u : users) {
            auto it = m_labels.find(g.nodes[size_t(u)].name);
            if (it == m_labels.end()) {
                log.push_back("There is some node without steam label, the verification interface return False. "
                              "Current node is "
                    + pyTarget(g.nodes[size_t(u)]) + ".");
                same = false;
                break;
            }
            labels.push_back(it->second);
        }
        if (same && std::set<std::optional<std::string>>(labels.begin(), labels.end()).size() > 1) {
            std::string dict = "{";
            for (size_t i = 0; i < users.size(); ++i)
                dict += (i ? ", " : "") + g.nodes[size_t(users[i])].name + ": " + labelRepr(labels[i]);
            log.push_back("There is more than one stream in the input nodes, the verification interface return "
                          "False.All nodes and stream labels are "
                + dict + "}.");
            same = false;
        }
    }
    const std::string head = "[" + check + "]Current node: " + n.name + ", type: " + pyTarget(n);
    if (same) {
        log.push_back(head
            + " check no multi stream users success for reinplace. The users of the mutated input node did not have "
              "multiple streams.");
        return true;
    }
    const std::string line = head
        + " check no multi stream users failed for reinplace. The users of the mutated input node have multiple "
          "streams. All the users are "
        + nodeList(g, users) + ".";
    log.push_back(line);
    if (failure)
        *failure = line;
    return false;
}

bool StreamChecker::checkArgs(
    const Graph& g, int node, const std::vector<int>& indices, std::vector<std::string>& log, std::string* failure)
{
    const Node& n = g.nodes[size_t(node)];
    // Mutated argument k of the functional op comes back as output len(outputs) - n_mutated + k; without
    // fake_result TorchAir counts 0 outputs, and the indices it looks for (negative) match no getitem.
    const int total = m_fakeResults ? resultCount(n) : 0;
    std::vector<std::vector<int>> all;
    std::string which = "[";
    std::string indexList = "[";
    for (size_t k = 0; k < indices.size(); ++k) {
        const int idx = indices[k];
        indexList += (k ? ", " : "") + std::to_string(idx);
        if (idx >= int(n.args.size())) {
            log.push_back("Input index " + std::to_string(idx) + " out of range for node " + n.name);
            continue;
        }
        which += (k ? ", " : "") + argText(n.args[size_t(idx)]);
        const int input = refOf(g, n.args[size_t(idx)]);
        std::vector<int> users = input >= 0 ? collectUsers(g, input) : std::vector<int> {};
        const int outIdx = total - int(indices.size()) + int(k);
        for (int u : n.users) {
            const Node& getitem = g.nodes[size_t(u)];
            if (!isGetItem(getitem) || getitem.args.size() < 2 || getitem.args[1].kind != Arg::Kind::Int
                || getitem.args[1].i != outIdx)
                continue;
            for (int gu : getitem.users)
                if (!isCopyInPlace(g.nodes[size_t(gu)]))
                    users.push_back(gu);
        }
        all.push_back(users);
    }
    std::string allText = "[";
    for (size_t i = 0; i < all.size(); ++i)
        allText += (i ? ", " : "") + nodeList(g, all[i]);
    const std::string check = indices.size() == 1 ? "multi_stream_single_reinplace" : "multi_stream_multi_reinplace";
    log.push_back("[Reinplace check_reinplace_streams]Check Node:" + n.name + " with inplace args indices:" + indexList
        + "], which are " + which + "] has all_inputs_users:" + allText + "] respectively.");
    for (const auto& users : all)
        if (!verify(g, node, users, check, log, failure))
            return false;
    return true;
}

bool StreamChecker::checkArg(const Graph& g, int node, int arg, std::vector<std::string>& log, std::string* failure)
{
    return verify(g, node, collectUsers(g, arg), "multi_stream_auto_functionalize", log, failure);
}

bool isViewOp(const Node& n)
{
    if (!isOpOverload(n))
        return false;
    if (const OpSchema* s = findSchema(n.target))
        return s->view;
    return classifyOp(n.target).effect == OpInfo::Effect::View;
}

bool isMetaOnlyOp(const Node& n)
{
    const std::string t = targetOf(n);
    return isCallFunction(n)
        && (t == "aten.sym_size.int" || t == "aten.sym_stride.int" || t == "aten.sym_numel.default"
            || t == "aten.sym_storage_offset.default");
}

} // namespace engine::passes::detail
