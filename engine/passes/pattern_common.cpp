#include "engine/passes/pattern_common.h"

#include "engine/graph/op_info.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <set>

namespace engine::passes::pattern {

using detail::refOf;

namespace {

std::string targetName(const std::string& target)
{
    return detail::pyTarget([&] {
        Node n;
        n.target = target;
        return n;
    }());
}

} // namespace

bool Matcher::fail(const std::string& reason)
{
    if (m_reason.empty())
        m_reason = reason;
    return false;
}

bool Matcher::call(int node, const std::string& target, size_t nargs, int users, const std::string& role,
    const std::vector<std::string>& kwargs)
{
    if (!ok())
        return false;
    m_kwargs.clear();
    if (node < 0)
        return false;
    const Node& n = m_g.nodes[size_t(node)];
    if (!detail::isCallFunction(n) || detail::targetOf(n) != target)
        return fail("aclgraph-inspector: " + n.name + " is "
            + (n.op == NodeOp::Placeholder ? "an input" : detail::pyTarget(n)) + ", where the pattern has "
            + targetName(target) + " (" + role + ")");
    if (n.args.size() != nargs)
        return fail("aclgraph-inspector: " + n.name + " (" + role + ") has " + std::to_string(n.args.size())
            + " positional arguments, the pattern's " + targetName(target) + " has " + std::to_string(nargs));
    std::set<int> distinct(n.users.begin(), n.users.end());
    if (users >= 0 && distinct.size() != size_t(users))
        return fail("aclgraph-inspector: " + n.name + " (" + role + ") has " + std::to_string(distinct.size())
            + " users " + usersText(m_g, node) + " where the pattern has " + std::to_string(users)
            + ": an intermediate node of the match used outside it, so the inductor matcher refuses the match");
    // _TargetArgsExpr._match: with fewer keyword arguments than the pattern, normalize_function binds
    // the schema (defaults applied); otherwise only the node's own keyword arguments named by the
    // pattern are compared, and others are ignored.
    if (n.kwargs.size() < kwargs.size()) {
        const OpSchema* schema = findSchema(target);
        if (!schema)
            return fail(
                "aclgraph-inspector: " + target + " is not in the operator table; its arguments cannot be normalized");
        for (const auto& [key, value] : n.kwargs) {
            if (!schema->arg(key))
                return fail("aclgraph-inspector: " + n.name + " has a keyword argument '" + key + "' its schema lacks");
        }
        detail::BoundArgs bound(n, schema);
        for (const std::string& k : kwargs) {
            auto v = bound.get(k);
            if (!v)
                return fail("aclgraph-inspector: " + n.name + " gives no '" + k + "' and its schema has no default");
            m_kwargs[k] = *v;
        }
    } else {
        for (const std::string& k : kwargs) {
            bool found = false;
            for (const auto& [key, value] : n.kwargs)
                if (key == k) {
                    m_kwargs[k] = value;
                    found = true;
                }
            if (!found)
                return fail("aclgraph-inspector: " + n.name + " (" + role + ") has no keyword argument '" + k
                    + "', which the pattern has");
        }
    }
    return true;
}

bool Matcher::getitem(int node, int source, int64_t index, int users, const std::string& role)
{
    if (!ok() || node < 0)
        return false;
    const Node& n = m_g.nodes[size_t(node)];
    if (!detail::isGetItem(n))
        return fail("aclgraph-inspector: " + n.name + " is " + detail::pyTarget(n) + ", where the pattern has getitem ("
            + role + ")");
    if (!call(node, detail::targetOf(n), 2, users, role))
        return false;
    if (source < 0 || refOf(m_g, n.args[0]) != source)
        return fail("aclgraph-inspector: " + n.name + " does not read the pattern's " + role);
    if (n.args[1].kind != Arg::Kind::Int || n.args[1].i != index)
        return fail("aclgraph-inspector: " + n.name + " is item " + pyValue(n.args[1]) + " of "
            + m_g.nodes[size_t(source)].name + ", the pattern's " + role + " is item " + std::to_string(index));
    return true;
}

int Matcher::input(int node, size_t i, const std::string& what)
{
    if (!ok() || node < 0)
        return -1;
    const Node& n = m_g.nodes[size_t(node)];
    const int r = i < n.args.size() ? refOf(m_g, n.args[i]) : -1;
    if (r < 0)
        fail("aclgraph-inspector: argument " + std::to_string(i) + " of " + n.name + " is not a node (" + what + ")");
    return r;
}

Arg Matcher::kwarg(const std::string& name) const
{
    auto it = m_kwargs.find(name);
    return it == m_kwargs.end() ? Arg() : it->second;
}

std::string usersText(const Graph& g, int node)
{
    std::vector<int> users;
    for (int u : g.nodes[size_t(node)].users)
        if (std::find(users.begin(), users.end(), u) == users.end())
            users.push_back(u);
    return detail::nodeList(g, users);
}

std::string pyFloat(double v)
{
    // repr(float): the shortest text that reads back as the same double.
    char buf[64];
    for (int precision = 1; precision <= 17; ++precision) {
        std::snprintf(buf, sizeof buf, "%.*g", precision, v);
        if (std::strtod(buf, nullptr) == v)
            break;
    }
    std::string s = buf;
    // Python writes exponents with at least two digits and keeps ".0" on integral values.
    auto e = s.find('e');
    if (e != std::string::npos) {
        std::string mant = s.substr(0, e), exp = s.substr(e + 1);
        char sign = '+';
        if (!exp.empty() && (exp[0] == '+' || exp[0] == '-')) {
            sign = exp[0];
            exp = exp.substr(1);
        }
        while (exp.size() > 1 && exp[0] == '0')
            exp = exp.substr(1);
        if (exp.size() < 2)
            exp = "0" + exp;
        return mant + "e" + sign + exp;
    }
    if (s.find_first_of(".n") == std::string::npos)
        s += ".0";
    return s;
}

std::string pyValue(const Arg& a)
{
    switch (a.kind) {
    case Arg::Kind::None:
        return "None";
    case Arg::Kind::NodeRef:
        return a.s;
    case Arg::Kind::Int:
        return std::to_string(a.i);
    case Arg::Kind::Float:
        return pyFloat(a.f);
    case Arg::Kind::Bool:
        return a.b ? "True" : "False";
    case Arg::Kind::Str:
        return a.s;
    case Arg::Kind::List: {
        std::string s = "[";
        for (size_t i = 0; i < a.items.size(); ++i)
            s += (i ? ", " : "") + pyValue(a.items[i]);
        return s + "]";
    }
    }
    return "None";
}

std::string torchSize(const TensorMeta& t)
{
    std::string s = "torch.Size([";
    for (size_t i = 0; i < t.shape.size(); ++i)
        s += (i ? ", " : "") + t.shape[i].text();
    return s + "])";
}

const TensorMeta* metaOf(const Graph& g, int node)
{
    if (node < 0 || g.nodes[size_t(node)].outputs.empty())
        return nullptr;
    return &g.nodes[size_t(node)].outputs[0];
}

const TensorMeta* metaOf(const Graph& g, const Arg& a)
{
    return metaOf(g, refOf(g, a));
}

bool isFloat(const Arg& a, double v)
{
    return a.kind == Arg::Kind::Float && a.f == v;
}

Result<std::vector<std::string>> replaceWithGraph(
    Graph& g, const Match& m, const std::vector<NewNode>& nodes, const std::vector<int>& replacements, std::string& why)
{
    // last_node: the output node that comes first in the graph; the new nodes go before it.
    int anchor = -1;
    for (int o : m.outputs)
        if (anchor < 0 || o < anchor)
            anchor = o;
    // FX would insert them there whatever the order of definitions; our graph must stay in order,
    // so a match whose arguments are defined after that point is left as it is (and the log says so).
    for (const NewNode& nn : nodes) {
        std::function<bool(const Arg&)> early = [&](const Arg& a) {
            if (a.kind == Arg::Kind::List) {
                for (const Arg& x : a.items)
                    if (!early(x))
                        return false;
                return true;
            }
            if (a.kind != Arg::Kind::NodeRef || a.s.rfind('$', 0) == 0)
                return true;
            const int r = g.find(a.s);
            if (r >= anchor) {
                why = "aclgraph-inspector: TorchAir inserts " + targetName(nodes[0].target) + " before "
                    + g.nodes[size_t(anchor)].name + ", but its argument " + a.s
                    + " is defined after that node; FX does not check the order and would leave the graph out of "
                      "order, which is not modelled: the match is left unfused here";
                return false;
            }
            return true;
        };
        for (const Arg& a : nn.args)
            if (!early(a))
                return std::vector<std::string> {};
        for (const auto& kw : nn.kwargs)
            if (!early(kw.second))
                return std::vector<std::string> {};
    }
    const std::string anchorName = g.nodes[size_t(anchor)].name;
    std::vector<std::string> matchNames, outputNames;
    for (int n : m.nodes)
        matchNames.push_back(g.nodes[size_t(n)].name);
    for (int o : m.outputs)
        outputNames.push_back(g.nodes[size_t(o)].name);
    std::vector<std::string> names;
    std::function<void(Arg&)> resolve = [&](Arg& a) {
        for (Arg& x : a.items)
            resolve(x);
        if (a.kind == Arg::Kind::NodeRef && a.s.rfind('$', 0) == 0) {
            a.s = names.at(size_t(std::stoi(a.s.substr(1))));
            a.node = -1;
        }
    };
    for (const NewNode& nn : nodes) {
        std::vector<Arg> args = nn.args;
        auto kwargs = nn.kwargs;
        for (Arg& a : args)
            resolve(a);
        for (auto& kw : kwargs)
            resolve(kw.second);
        Node n = detail::callNode(g, nn.target, std::move(args), std::move(kwargs), nn.outputs);
        names.push_back(n.name);
        if (auto r = detail::insertNode(g, g.find(anchorName), std::move(n)); !r)
            return r.error();
    }
    // replace(old, new): old.replace_all_uses_with(new); graph.erase_node(old).
    for (size_t i = 0; i < outputNames.size() && i < replacements.size(); ++i) {
        if (auto r = detail::replaceUses(g, outputNames[i], names.at(size_t(replacements[i]))); !r)
            return r.error();
        if (auto r = detail::eraseNodes(g, { outputNames[i] }); !r)
            return r.error();
    }
    // match.erase_nodes(): every match node left without users, last first.
    for (auto it = matchNames.rbegin(); it != matchNames.rend(); ++it) {
        const int n = g.find(*it);
        if (n >= 0 && g.nodes[size_t(n)].users.empty())
            if (auto r = detail::eraseNodes(g, { *it }); !r)
                return r.error();
    }
    return names;
}

int mutationRegion(const Graph& g, Context& ctx, int node)
{
    auto it = ctx.regions.find(g.nodes[size_t(node)].name);
    if (it != ctx.regions.end())
        return it->second;
    // get_mutation_region_id: back to the nearest node that has an id, then forward, counting barriers.
    int start = node;
    while (start > 0 && !ctx.regions.count(g.nodes[size_t(start)].name))
        --start;
    int id = ctx.regions.count(g.nodes[size_t(start)].name) ? ctx.regions[g.nodes[size_t(start)].name] : 0;
    for (int i = start + 1; i <= node; ++i) {
        if (isMutationOp(g, i))
            ++id;
        ctx.regions[g.nodes[size_t(i)].name] = id;
    }
    return id;
}

namespace {

bool isWord(char c)
{
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

/// `_mutation_op_re = (?<!_)(_$|_[.]|(\b|_)(set|enter|exit|seed)(\b|_))(?!_)` searched in `s`.
bool mutationName(const std::string& s)
{
    const char* words[] = { "set", "enter", "exit", "seed" };
    auto at = [&](size_t i) { return i < s.size() ? s[i] : '\0'; };
    for (size_t i = 0; i < s.size(); ++i) {
        if (i > 0 && s[i - 1] == '_')
            continue; // (?<!_)
        size_t p = i;
        if (s[i] == '_') {
            if (i + 1 == s.size())
                return true; // _$
            if (s[i + 1] == '.' && at(i + 2) != '_')
                return true; // _[.](?!_)
            p = i + 1;
        } else if (!(i == 0 || !isWord(s[i - 1])) || !isWord(s[i])) {
            continue; // \b before a word character
        }
        for (const char* w : words) {
            const std::string word = w;
            if (s.compare(p, word.size(), word) != 0)
                continue;
            const size_t e = p + word.size();
            if (e == s.size() || !isWord(s[e]))
                return true; // \b, then (?!_) holds for a non-word character
            if (s[e] == '_' && at(e + 1) != '_')
                return true; // _(?!_)
        }
    }
    return false;
}

} // namespace

bool isMutationOp(const Graph& g, int node)
{
    const Node& n = g.nodes[size_t(node)];
    if (!detail::isCallFunction(n))
        return false;
    if (detail::isOpOverload(n)) {
        if (const OpSchema* s = findSchema(detail::targetOf(n)))
            return s->mutates;
    }
    if (detail::isAutoFunctionalized(n))
        return false;
    const std::vector<std::string> parts = splitDots(detail::targetOf(n));
    const std::string name = parts.size() >= 3 ? parts[1] + "." + parts[2] : parts.back();
    if (mutationName(name))
        return true;
    for (const auto& [key, value] : n.kwargs)
        if (key == "out" && value.kind != Arg::Kind::None)
            return true;
    return false;
}

} // namespace engine::passes::pattern
