#include "engine/passes/pass_util.h"

#include "engine/graph/graph_diff.h"
#include "engine/graph/op_info.h"

#include <algorithm>
#include <cctype>
#include <regex>
#include <sstream>
#include <stdexcept>

namespace engine::passes::detail {

namespace {

Arg parseDefault(const std::string& text)
{
    Arg a;
    if (text == "None")
        return a;
    if (text == "True" || text == "False")
        return boolArg(text == "True");
    if (text.size() >= 2 && (text.front() == '\'' || text.front() == '"'))
        return strArg(text.substr(1, text.size() - 2));
    if (text.front() == '[')
        return Arg::list({});
    if (text.find_first_of(".e") != std::string::npos) {
        a.kind = Arg::Kind::Float;
        a.f = std::stod(text);
        return a;
    }
    return Arg::integer(std::stoll(text));
}

} // namespace

std::string targetOf(const Node& n)
{
    if (n.op == NodeOp::Placeholder || n.op == NodeOp::Output)
        return {};
    return canonicalTarget(n.target);
}

bool isCallFunction(const Node& n)
{
    return n.op == NodeOp::CallFunction;
}

bool isOpOverload(const Node& n)
{
    return isCallFunction(n) && isOpOverloadTarget(n.target);
}

bool isGetItem(const Node& n)
{
    return isCallFunction(n) && classifyOp(n.target).effect == OpInfo::Effect::GetItem;
}

bool isCopyInPlace(const Node& n)
{
    return isCallFunction(n) && targetOf(n) == "aten.copy_.default";
}

bool isAutoFunctionalized(const Node& n, bool* v2)
{
    if (!isCallFunction(n))
        return false;
    const std::string last = splitDots(targetOf(n)).back();
    if (v2)
        *v2 = last == "auto_functionalized_v2";
    return last == "auto_functionalized" || last == "auto_functionalized_v2";
}

std::string pyTarget(const Node& n)
{
    if (n.op == NodeOp::Output)
        return "output";
    if (n.op == NodeOp::Placeholder)
        return n.name;
    const std::string t = targetOf(n);
    const std::vector<std::string> parts = splitDots(t);
    if (parts.size() == 2 && (parts[0] == "operator" || parts[0] == "_operator" || parts[0] == "builtins"))
        return "<built-in function " + parts[1] + ">";
    if (isAutoFunctionalized(n))
        return parts.back();
    return t;
}

std::string nodeList(const Graph& g, const std::vector<int>& nodes)
{
    std::string s = "[";
    for (size_t i = 0; i < nodes.size(); ++i)
        s += (i ? ", " : "") + g.nodes[size_t(nodes[i])].name;
    return s + "]";
}

int refOf(const Graph& g, const Arg& a)
{
    if (a.kind != Arg::Kind::NodeRef)
        return -1;
    if (a.node >= 0 && size_t(a.node) < g.nodes.size() && g.nodes[size_t(a.node)].name == a.s)
        return a.node;
    return g.find(a.s);
}

Arg strArg(const std::string& s)
{
    Arg a;
    a.kind = Arg::Kind::Str;
    a.s = s;
    return a;
}

Arg boolArg(bool b)
{
    Arg a;
    a.kind = Arg::Kind::Bool;
    a.b = b;
    return a;
}

BoundArgs::BoundArgs(const Node& n, const OpSchema* schema)
    : m_node(n)
    , m_schema(schema)
{
}

std::optional<Arg> BoundArgs::get(const std::string& name) const
{
    if (!m_schema)
        return std::nullopt;
    for (size_t i = 0; i < m_schema->args.size(); ++i) {
        const SchemaArg& a = m_schema->args[i];
        if (a.name != name)
            continue;
        if (!a.kwargOnly && i < m_node.args.size())
            return m_node.args[i];
        for (const auto& [key, value] : m_node.kwargs)
            if (key == name)
                return value;
        if (a.hasDefault)
            return parseDefault(a.defaultValue);
        return std::nullopt;
    }
    return std::nullopt;
}

std::vector<std::optional<std::string>> streamLabels(const Graph& g)
{
    std::vector<std::optional<std::string>> labels(g.nodes.size());
    std::vector<std::optional<std::string>> stack;
    std::optional<std::string> current;
    for (size_t i = 0; i < g.nodes.size(); ++i) {
        const Node& n = g.nodes[i];
        const std::string t = targetOf(n);
        if (t == "air.scope_enter.default") {
            stack.push_back(current);
            bool userStream = false;
            if (!n.args.empty() && n.args[0].kind == Arg::Kind::List)
                for (const Arg& k : n.args[0].items)
                    userStream = userStream || (k.kind == Arg::Kind::Str && k.s == "_user_stream_label");
            if (userStream) {
                current.reset();
                if (n.args.size() > 1 && n.args[1].kind == Arg::Kind::List && !n.args[1].items.empty()
                    && n.args[1].items[0].kind == Arg::Kind::Str)
                    current = n.args[1].items[0].s;
            }
            labels[i] = current;
        } else if (t == "air.scope_exit.default") {
            labels[i] = current;
            if (!stack.empty()) {
                current = stack.back();
                stack.pop_back();
            }
        } else {
            labels[i] = current;
        }
    }
    return labels;
}

bool sameStream(const std::vector<std::optional<std::string>>& labels, const std::vector<int>& nodes)
{
    if (nodes.size() < 2)
        return true;
    for (int n : nodes)
        if (labels[size_t(n)] != labels[size_t(nodes[0])])
            return false;
    return true;
}

int Storages::single(int node) const
{
    return of[size_t(node)].size() == 1 ? of[size_t(node)][0] : -1;
}

Storages analyzeStorages(const Graph& g)
{
    Storages st;
    st.of.assign(g.nodes.size(), {});
    int next = 0;
    auto first = [&](const Arg* a) {
        const int r = a ? refOf(g, *a) : -1;
        return r >= 0 && !st.of[size_t(r)].empty() ? st.of[size_t(r)][0] : -1;
    };
    for (size_t i = 0; i < g.nodes.size(); ++i) {
        const Node& n = g.nodes[i];
        auto& mine = st.of[i];
        if (n.op == NodeOp::Output || n.outputs.empty())
            continue;
        if (n.op == NodeOp::Placeholder || n.op == NodeOp::GetAttr) {
            mine.push_back(next++);
            st.inputStorages.insert(mine.back());
            continue;
        }
        const OpInfo info = classifyOp(n.target);
        const Arg* self = n.args.empty() ? nullptr : &n.args[0];
        int shared = -1;
        switch (info.effect) {
        case OpInfo::Effect::GetItem: {
            const int src = self ? refOf(g, *self) : -1;
            const int k = n.args.size() > 1 && n.args[1].kind == Arg::Kind::Int ? int(n.args[1].i) : 0;
            if (src >= 0 && !st.of[size_t(src)].empty())
                shared = st.of[size_t(src)][std::min<size_t>(size_t(std::max(k, 0)), st.of[size_t(src)].size() - 1)];
            break;
        }
        case OpInfo::Effect::View:
            shared = first(self);
            break;
        case OpInfo::Effect::InPlace: {
            const bool outVariant = info.overload == "out"
                || (info.overload.size() > 4 && info.overload.compare(info.overload.size() - 4, 4, "_out") == 0);
            const Arg* out = nullptr;
            for (const auto& [key, value] : n.kwargs)
                if (key == "out")
                    out = &value;
            shared = first(outVariant && out ? out : self);
            break;
        }
        case OpInfo::Effect::NoTensor:
            continue;
        case OpInfo::Effect::Allocates:
            break;
        }
        for (size_t k = 0; k < n.outputs.size(); ++k)
            mine.push_back(shared >= 0 ? shared : next++);
    }
    for (size_t i = 0; i < g.nodes.size(); ++i)
        for (int s : st.of[i])
            st.nodes[s].insert(int(i));
    const int out = g.outputNode();
    if (out >= 0 && !g.nodes[size_t(out)].args.empty()) {
        std::function<void(const Arg&)> visit = [&](const Arg& a) {
            if (a.kind == Arg::Kind::List)
                for (const Arg& x : a.items)
                    visit(x);
            const int r = refOf(g, a);
            if (r >= 0)
                for (int s : st.of[size_t(r)])
                    st.nodes[s].insert(out);
        };
        visit(g.nodes[size_t(out)].args[0]);
    }
    return st;
}

std::string freshName(const Graph& g, const std::string& target)
{
    // FX: _target_to_str(target) = snake_case(target.__name__) with illegal characters replaced by
    // "_"; an OpOverload's __name__ is "<packet>.<overload>", a Python function's its own name.
    const std::vector<std::string> parts = splitDots(canonicalTarget(target));
    std::string name = parts.size() >= 3 ? parts[1] + "." + parts[2] : parts.back();
    std::string base;
    bool prevLower = false;
    for (char c : name) {
        if (prevLower && std::isupper(static_cast<unsigned char>(c)))
            base += '_';
        base += std::isalnum(static_cast<unsigned char>(c)) || c == '_' ? char(std::tolower(c)) : '_';
        prevLower = std::islower(static_cast<unsigned char>(c)) != 0;
    }
    if (g.find(base) < 0)
        return base;
    for (int i = 1;; ++i) {
        const std::string candidate = base + "_" + std::to_string(i);
        if (g.find(candidate) < 0)
            return candidate;
    }
}

Node callNode(const Graph& g, const std::string& target, std::vector<Arg> args,
    std::vector<std::pair<std::string, Arg>> kwargs, std::vector<TensorMeta> outputs)
{
    Node n;
    n.op = NodeOp::CallFunction;
    n.target = target;
    n.name = freshName(g, target);
    n.args = std::move(args);
    n.kwargs = std::move(kwargs);
    n.outputs = std::move(outputs);
    return n;
}

Result<int> insertNode(Graph& g, int before, Node n)
{
    g.nodes.insert(g.nodes.begin() + before, std::move(n));
    auto r = g.finalize();
    if (!r)
        return r.error();
    return before;
}

namespace {

void rename(Arg& a, const std::string& from, const std::string& to)
{
    if (a.kind == Arg::Kind::List)
        for (Arg& x : a.items)
            rename(x, from, to);
    if (a.kind == Arg::Kind::NodeRef && a.s == from) {
        a.s = to;
        a.node = -1;
    }
}

} // namespace

Result<void> replaceUses(
    Graph& g, const std::string& from, const std::string& to, const std::function<bool(int)>& which)
{
    for (size_t i = 0; i < g.nodes.size(); ++i) {
        if (which && !which(int(i)))
            continue;
        for (Arg& a : g.nodes[i].args)
            rename(a, from, to);
        for (auto& kw : g.nodes[i].kwargs)
            rename(kw.second, from, to);
    }
    return g.finalize();
}

Result<void> eraseNodes(Graph& g, const std::set<std::string>& names)
{
    if (names.empty())
        return {};
    g.nodes.erase(
        std::remove_if(g.nodes.begin(), g.nodes.end(), [&](const Node& n) { return names.count(n.name) > 0; }),
        g.nodes.end());
    return g.finalize();
}

int64_t cannVersionNumber(const std::string& version, bool* recognised)
{
    // The formats and weights of torch_npu's CannVersionToNum: RC releases sit 50 steps above the
    // T (test) builds of the same a.b, and a release a.b.c above every RC of a.b.
    int64_t major = -1, minor = -1, release = -1, rc = -51, t = -1, alpha = 0;
    std::smatch m;
    bool ok = true;
    try {
        if (std::regex_match(version, m, std::regex("([0-9]+).([0-9]+).RC([0-9]+)"))) {
            major = std::stoll(m[1]);
            minor = std::stoll(m[2]);
            rc = std::stoll(m[3]);
        } else if (std::regex_match(version, m, std::regex("([0-9]+).([0-9]+).([0-9]+)"))) {
            major = std::stoll(m[1]);
            minor = std::stoll(m[2]);
            release = std::stoll(m[3]);
        } else if (std::regex_match(version, m, std::regex("([0-9]+).([0-9]+).T([0-9]+)"))) {
            major = std::stoll(m[1]);
            minor = std::stoll(m[2]);
            t = std::stoll(m[3]);
        } else if (std::regex_match(version, m, std::regex("([0-9]+).([0-9]+).RC([0-9]+).alpha([0-9]+)"))) {
            major = std::stoll(m[1]);
            minor = std::stoll(m[2]);
            rc = std::stoll(m[3]);
            alpha = std::stoll(m[4]);
        } else {
            ok = false;
        }
    } catch (const std::out_of_range&) { // a number torch_npu's stoll would not take either
        ok = false;
        major = minor = release = t = -1;
        rc = -51;
        alpha = 0;
    }
    if (recognised)
        *recognised = ok;
    return (major + 1) * 100000000 + (minor + 1) * 1000000 + (release + 1) * 10000 + ((rc + 1) * 100 + 5000)
        + (t + 1) * 100 - (100 - alpha);
}

bool cannAtLeast(const std::string& current, const std::string& required)
{
    return cannVersionNumber(current) >= cannVersionNumber(required);
}

Result<PassReport> runPass(Graph& g, const std::string& name, const std::string& option, bool enabled,
    const std::function<Result<void>(Graph&, PassReport&)>& body)
{
    PassReport report;
    report.name = name;
    report.option = option;
    report.enabled = enabled;
    report.nodesBefore = int(g.nodes.size());
    report.nodesAfter = report.nodesBefore;
    if (!enabled)
        return report;
    if (auto ok = g.finalize(); !ok)
        return ok.error();
    const Graph before = g;
    if (auto ok = body(g, report); !ok)
        return ok.error();
    if (auto ok = g.finalize(); !ok)
        return ok.error();
    report.nodesAfter = int(g.nodes.size());
    // One comparison gives both the report's lists and the summary line, so that they cannot disagree.
    const GraphDiff diff = diffGraphs(before, g);
    report.removed = diff.removed;
    report.added = diff.added;
    std::set<std::string> afterNames;
    for (const Node& n : g.nodes)
        afterNames.insert(n.name);
    // A node the pass looked at, refused, and then removed anyway (a getitem or scatter made redundant
    // by another rewrite) was not left alone: it is reported as removed only.
    report.skipped.erase(std::remove_if(report.skipped.begin(), report.skipped.end(),
                             [&](const NodeSkip& s) { return !afterNames.count(s.node); }),
        report.skipped.end());
    report.log.push_back(compareText(torchairPassName(name), diff));
    return report;
}

} // namespace engine::passes::detail
