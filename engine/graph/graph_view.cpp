// groupNodes (repeated layers from node names, or from a repeated op sequence) and buildView (the
// visible items and merged edges for a set of expanded groups). See graph_view.h.
#include "engine/graph/graph_view.h"

#include "engine/core/md5.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <map>
#include <unordered_map>

namespace engine::view {

const char* nodeRoleName(NodeRole r)
{
    switch (r) {
    case NodeRole::Parameter:
        return "parameter";
    case NodeRole::Static:
        return "static";
    case NodeRole::MutatedInput:
        return "mutated_input";
    case NodeRole::UserInput:
        return "user_input";
    case NodeRole::SymInt:
        return "sym_int";
    case NodeRole::Intermediate:
        return "intermediate";
    case NodeRole::Output:
        return "output";
    }
    return "intermediate";
}

NodeRole nodeRole(const Graph& graph, int node, const std::set<std::string>& mutatedInputs)
{
    const Node& n = graph.nodes[size_t(node)];
    if (n.op == NodeOp::Output)
        return NodeRole::Output;
    if (n.op != NodeOp::Placeholder)
        return NodeRole::Intermediate;
    switch (n.inputKind) {
    case InputKind::Parameter:
    case InputKind::Buffer:
        return NodeRole::Parameter;
    case InputKind::StaticAddress:
        return NodeRole::Static;
    case InputKind::SymInt:
        return NodeRole::SymInt;
    case InputKind::UserInput:
        break;
    }
    return mutatedInputs.count(n.name) ? NodeRole::MutatedInput : NodeRole::UserInput;
}

namespace {

// Ops of the graph's body: what repeats from layer to layer (not placeholders, not the output).
bool isBody(const Node& n)
{
    return n.op != NodeOp::Placeholder && n.op != NodeOp::Output;
}

// Placeholders and get_attr nodes: the weights, caches and inputs a layer's ops read.
bool isInput(const Node& n)
{
    return n.op == NodeOp::Placeholder || n.op == NodeOp::GetAttr;
}

template <class F> void forEachRef(const Arg& a, F&& f)
{
    if (a.kind == Arg::Kind::NodeRef && a.node >= 0)
        f(a.node);
    for (const Arg& item : a.items)
        forEachRef(item, f);
}

template <class F> void forEachArgNode(const Node& n, F&& f)
{
    for (const Arg& a : n.args)
        forEachRef(a, f);
    for (const auto& kv : n.kwargs)
        forEachRef(kv.second, f);
}

bool allDigits(const std::string& s)
{
    return !s.empty() && s.size() <= 6
        && std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

std::string joinTokens(const std::vector<std::string>& toks, size_t from, size_t to)
{
    std::string s;
    for (size_t i = from; i < to; ++i)
        s += (s.empty() ? "" : "_") + toks[i];
    return s;
}

// A node name's tokens (split at '_' and '.', lower case) without Dynamo's decorations: the leading
// `l__self___` / `L_self_`, and the `modules` / `parameters` / `buffers` of
// `l_self_modules_layers_modules_0_modules_mlp_parameters_weight_`.
std::vector<std::string> nameTokens(const std::string& name)
{
    std::vector<std::string> toks;
    std::string cur;
    auto flush = [&] {
        if (!cur.empty() && cur != "modules" && cur != "parameters" && cur != "buffers")
            toks.push_back(cur);
        cur.clear();
    };
    for (char c : name) {
        if (c == '_' || c == '.')
            flush();
        else
            cur += char(std::tolower(static_cast<unsigned char>(c)));
    }
    flush();
    size_t start = 0;
    while (start + 1 < toks.size() && (toks[start] == "l" || toks[start] == "self"))
        ++start;
    toks.erase(toks.begin(), toks.begin() + long(start));
    return toks;
}

// An index in a node name: `layers_3_` gives pattern "layers_<n>", index 3; `l12_` gives "l<n>", 12.
// `token` is the index's token; the module path inside the layer follows it.
struct NameIndex {
    std::string pattern;
    int index = 0;
    size_t token = 0;
    bool letterForm = false; ///< "l<n>", "h<n>": the index is glued to a word
};

// The index candidates of a name, left to right. An index must be followed by a word of the name
// (`mm_3`, `add_12`, `arg0_1` end in FX's de-duplicating suffixes, not layer indices).
std::vector<NameIndex> nameIndices(const std::vector<std::string>& toks)
{
    std::vector<NameIndex> out;
    // Only a word after the index makes it a path component (`arg0_1`, `getitem_3_1` have none).
    size_t lastWord = toks.size();
    for (size_t i = toks.size(); i-- > 0;)
        if (!allDigits(toks[i])) {
            lastWord = i;
            break;
        }
    for (size_t i = 0; i < lastWord && lastWord < toks.size(); ++i) {
        const std::string& t = toks[i];
        if (allDigits(t)) {
            if (i > 0)
                out.push_back({ joinTokens(toks, 0, i) + "_<n>", std::stoi(t), i, false });
            continue;
        }
        size_t d = t.size();
        while (d > 0 && std::isdigit(static_cast<unsigned char>(t[d - 1])))
            --d;
        if (d > 0 && d < t.size() && t.size() - d <= 6 && std::isalpha(static_cast<unsigned char>(t[d - 1]))) {
            std::string prefix = joinTokens(toks, 0, i);
            out.push_back(
                { (prefix.empty() ? "" : prefix + "_") + t.substr(0, d) + "<n>", std::stoi(t.substr(d)), i, true });
        }
    }
    return out;
}

// What a layer's ops have in common from layer to layer: the target and the provenance. Module
// paths and call_module targets carry the layer index, so their digits do not count.
std::string signatureOf(const Node& n)
{
    auto noDigits = [](const std::string& s) {
        std::string o;
        for (char c : s)
            if (!std::isdigit(static_cast<unsigned char>(c)))
                o += c;
            else if (o.empty() || o.back() != '#')
                o += '#';
        return o;
    };
    bool indexedTarget = n.op == NodeOp::CallModule || n.op == NodeOp::GetAttr;
    bool fileLine = n.provenance.rfind("# File:", 0) == 0;
    return std::string(nodeOpName(n.op)) + '|' + (indexedTarget ? noDigits(n.target) : n.target) + '|'
        + (fileLine ? n.provenance : noDigits(n.provenance));
}

constexpr int kNone = -1;

// Per node: which stack of layers (-1: none) and which layer of it.
struct Assignment {
    std::vector<int> stack, layer;
    std::vector<std::string> patterns; ///< per stack: "layers_<n>"
    std::vector<size_t> moduleToken; ///< per node: token after the layer index in its name (0: none)
    std::vector<std::vector<std::string>> tokens; ///< per node, filled for name-indexed nodes only
};

// ---- Layers from node names ----

// Merges "model_layers_<n>" into "layers_<n>" when both name the same stack: one is the other
// with more path in front.
std::string mergedPattern(const std::string& p, const std::set<std::string>& qualified)
{
    for (const std::string& q : qualified)
        if (q.size() < p.size() && p.compare(p.size() - q.size(), q.size(), q) == 0
            && p[p.size() - q.size() - 1] == '_')
            return q;
    return p;
}

// Step 1: indices in names. A pattern counts when it occurs with at least two consecutive indices
// (and, for an index glued to a word like `l0`, starts at 0: `fc1`/`fc2`, `conv1` are not layers).
bool assignFromNames(const Graph& graph, Assignment& as)
{
    const size_t n = graph.nodes.size();
    std::vector<std::vector<NameIndex>> cand(n);
    std::map<std::string, std::set<int>> indicesOf;
    std::map<std::string, bool> letterForm;
    for (size_t i = 0; i < n; ++i) {
        if (graph.nodes[i].op == NodeOp::Output)
            continue;
        as.tokens[i] = nameTokens(graph.nodes[i].name);
        cand[i] = nameIndices(as.tokens[i]);
        for (const NameIndex& c : cand[i]) {
            indicesOf[c.pattern].insert(c.index);
            letterForm[c.pattern] = c.letterForm;
        }
    }
    std::set<std::string> qualified;
    for (const auto& [pattern, idx] : indicesOf) {
        bool consecutive = false;
        for (int k : idx)
            consecutive = consecutive || idx.count(k + 1);
        if (consecutive && (!letterForm[pattern] || *idx.begin() == 0))
            qualified.insert(pattern);
    }
    if (qualified.empty())
        return false;
    std::map<std::string, int> stackOf;
    for (size_t i = 0; i < n; ++i) {
        for (const NameIndex& c : cand[i]) {
            if (!qualified.count(c.pattern))
                continue;
            std::string p = mergedPattern(c.pattern, qualified);
            auto it = stackOf.find(p);
            if (it == stackOf.end()) {
                it = stackOf.emplace(p, int(as.patterns.size())).first;
                as.patterns.push_back(p);
            }
            as.stack[i] = it->second;
            as.layer[i] = c.index;
            as.moduleToken[i] = c.token + 1;
            break;
        }
    }
    return true;
}

// Step 2: an op without an index of its own that reads inputs of exactly one layer (its weights,
// its cache) belongs to that layer.
void assignFromInputs(const Graph& graph, Assignment& as)
{
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
        const Node& node = graph.nodes[i];
        if (!isBody(node) || as.stack[i] != kNone)
            continue;
        int s = kNone, l = kNone;
        bool conflict = false;
        forEachArgNode(node, [&](int a) {
            if (!isInput(graph.nodes[size_t(a)]) || as.stack[size_t(a)] == kNone)
                return;
            if (s != kNone && (s != as.stack[size_t(a)] || l != as.layer[size_t(a)]))
                conflict = true;
            s = as.stack[size_t(a)];
            l = as.layer[size_t(a)];
        });
        if (s != kNone && !conflict) {
            as.stack[i] = s;
            as.layer[i] = l;
        }
    }
}

// Step 3: ops between two ops of one layer belong to it. Between layer k and layer k+1 the ops are
// split where the next layer starts: the part that matches what precedes the first layer (a
// decomposed RMS norm before the first weighted op) goes to k+1, the rest (the residual add) to k;
// after the last layer, the ops that match the start of such a gap go to the last layer.
void fillGaps(Assignment& as, const std::vector<int>& body, const std::vector<int>& sig)
{
    std::vector<size_t> assigned; // positions in `body`
    for (size_t p = 0; p < body.size(); ++p)
        if (as.stack[size_t(body[p])] != kNone)
            assigned.push_back(p);
    if (assigned.empty())
        return;
    auto st = [&](size_t p) { return as.stack[size_t(body[p])]; };
    auto ly = [&](size_t p) { return as.layer[size_t(body[p])]; };
    const size_t stacks = as.patterns.size();
    // Per stack: the first gap between consecutive layers, the gap before its first op, min and max index.
    std::vector<std::pair<size_t, size_t>> gap0(stacks, { 0, 0 }), head(stacks, { 0, 0 });
    std::vector<bool> haveGap0(stacks, false), haveHead(stacks, false);
    std::vector<int> minLayer(stacks, kNone), maxLayer(stacks, kNone);
    for (size_t k = 0; k < assigned.size(); ++k) {
        size_t p = assigned[k];
        int s = st(p);
        if (minLayer[size_t(s)] == kNone || ly(p) < minLayer[size_t(s)])
            minLayer[size_t(s)] = ly(p);
        maxLayer[size_t(s)] = std::max(maxLayer[size_t(s)], ly(p));
        size_t from = k == 0 ? 0 : assigned[k - 1] + 1;
        if (!haveHead[size_t(s)]) {
            haveHead[size_t(s)] = true;
            head[size_t(s)] = { from, p };
        }
        if (k > 0 && st(assigned[k - 1]) == s && ly(p) == ly(assigned[k - 1]) + 1 && !haveGap0[size_t(s)]) {
            haveGap0[size_t(s)] = true;
            gap0[size_t(s)] = { from, p };
        }
    }
    // Per stack: how many ops at the end of a gap start the next layer (lead), and how many at its start end the
    // previous one.
    std::vector<size_t> lead(stacks, 0), trail(stacks, 0);
    for (size_t s = 0; s < stacks; ++s) {
        if (!haveGap0[s])
            continue;
        auto [g0, g1] = gap0[s];
        auto [h0, h1] = head[s];
        size_t l = 0;
        while (l < g1 - g0 && l < h1 - h0 && sig[g1 - 1 - l] == sig[h1 - 1 - l])
            ++l;
        lead[s] = l;
        trail[s] = g1 - g0 - l;
    }
    auto set = [&](size_t from, size_t to, int s, int l) {
        for (size_t p = from; p < to; ++p) {
            as.stack[size_t(body[p])] = s;
            as.layer[size_t(body[p])] = l;
        }
    };
    for (size_t k = 0; k <= assigned.size(); ++k) {
        size_t from = k == 0 ? 0 : assigned[k - 1] + 1;
        size_t to = k == assigned.size() ? body.size() : assigned[k];
        if (from >= to)
            continue;
        int sa = k > 0 ? st(assigned[k - 1]) : kNone, la = k > 0 ? ly(assigned[k - 1]) : kNone;
        int sb = k < assigned.size() ? st(assigned[k]) : kNone, lb = k < assigned.size() ? ly(assigned[k]) : kNone;
        if (sa != kNone && sa == sb && la == lb) {
            set(from, to, sa, la);
            continue;
        }
        if (sa != kNone && sa == sb && lb == la + 1) {
            size_t l = std::min(lead[size_t(sa)], to - from);
            set(from, to - l, sa, la);
            set(to - l, to, sb, lb);
            continue;
        }
        size_t startOfNext = to;
        if (sb != kNone && lb == minLayer[size_t(sb)] && haveGap0[size_t(sb)]) {
            // Before the first layer: the ops that match the end of the first inter-layer gap.
            auto [g0, g1] = gap0[size_t(sb)];
            size_t l = 0;
            while (l < lead[size_t(sb)] && to - l > from && sig[to - 1 - l] == sig[g1 - 1 - l])
                ++l;
            startOfNext = to - l;
            set(startOfNext, to, sb, lb);
        }
        if (sa != kNone && la == maxLayer[size_t(sa)] && haveGap0[size_t(sa)]) {
            auto [g0, g1] = gap0[size_t(sa)];
            size_t t = 0;
            while (t < trail[size_t(sa)] && from + t < startOfNext && sig[from + t] == sig[g0 + t])
                ++t;
            set(from, from + t, sa, la);
        }
    }
}

// ---- Layers from a repeated op sequence ----

struct Repeat {
    size_t start = 0, period = 0, copies = 0;
};

// The tandem repeat (a block of `period` ops repeated `copies` times back to back) that covers the
// most ops, with period >= 2. Candidate periods are the distances between an op signature and its
// next few occurrences, most frequent first; each candidate is checked in O(n).
Repeat findRepeat(const std::vector<int>& sig)
{
    const size_t n = sig.size();
    Repeat best;
    if (n < 4)
        return best;
    std::unordered_map<int, std::vector<size_t>> positions;
    for (size_t i = 0; i < n; ++i)
        positions[sig[i]].push_back(i);
    std::unordered_map<size_t, size_t> distanceCount;
    for (const auto& kv : positions) {
        const std::vector<size_t>& pos = kv.second;
        for (size_t i = 0; i < pos.size(); ++i)
            for (size_t j = 1; j <= 3 && i + j < pos.size(); ++j) {
                size_t d = pos[i + j] - pos[i];
                if (d >= 2 && d <= n / 2)
                    ++distanceCount[d];
            }
    }
    std::vector<std::pair<size_t, size_t>> candidates; // (count, distance)
    for (const auto& [d, c] : distanceCount)
        candidates.push_back({ c, d });
    std::sort(candidates.begin(), candidates.end(),
        [](const auto& a, const auto& b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
    if (candidates.size() > 48)
        candidates.resize(48);
    for (const auto& [count, p] : candidates) {
        (void)count;
        size_t run = 0;
        for (size_t i = 0; i + p <= n; ++i) {
            bool match = i + p < n && sig[i] == sig[i + p];
            if (match) {
                ++run;
                continue;
            }
            if (run > 0) {
                size_t start = i - run, copies = (run + p) / p;
                if (copies >= 2
                    && (copies * p > best.copies * best.period
                        || (copies * p == best.copies * best.period && p < best.period)))
                    best = { start, p, copies };
            }
            run = 0;
        }
    }
    return best;
}

// ---- Groups ----

int newGroup(Grouping& g, const std::string& kind, const std::string& label, int parent)
{
    NodeGroup group;
    group.id = int(g.groups.size());
    group.kind = kind;
    group.label = label;
    group.parent = parent;
    g.groups.push_back(std::move(group));
    if (parent != kNone)
        g.groups[size_t(parent)].children.push_back(g.groups.back().id);
    return g.groups.back().id;
}

// An op that writes its result back into a graph input: `copy_(arg6_1, index_copy)` (what AOT
// autograd appends for a mutated input, such as a layer's K/V cache) or another in-place op on an
// input (`index_put_`). Its first argument is the input; the op name ends in '_'.
bool writesInput(const Graph& graph, const Node& n)
{
    if (!isBody(n) || n.args.empty() || n.args[0].kind != Arg::Kind::NodeRef || n.args[0].node < 0
        || !isInput(graph.nodes[size_t(n.args[0].node)]))
        return false;
    const size_t dot = n.target.find('.');
    const std::string op
        = n.target.substr(dot == std::string::npos ? 0 : dot + 1, n.target.find('.', dot + 1) - dot - 1);
    return !op.empty() && op.back() == '_';
}

// Write-backs that AOT autograd moves to the end of the graph (past the last layer) belong to the
// layer that computed what they write: a 32-layer decoder's 64 cache copies fold into their layers
// instead of lining up beside them. The source is every argument that is not an input; all of it
// must come from one layer.
void assignWriteBacks(const Graph& graph, Assignment& as)
{
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
        const Node& node = graph.nodes[i];
        if (as.stack[i] != kNone || !writesInput(graph, node))
            continue;
        int s = kNone, l = kNone;
        bool conflict = false, any = false;
        forEachArgNode(node, [&](int a) {
            if (isInput(graph.nodes[size_t(a)]))
                return;
            any = true;
            if (as.stack[size_t(a)] == kNone || (s != kNone && (s != as.stack[size_t(a)] || l != as.layer[size_t(a)])))
                conflict = true;
            s = as.stack[size_t(a)];
            l = as.layer[size_t(a)];
        });
        if (any && !conflict && s != kNone) {
            as.stack[i] = s;
            as.layer[i] = l;
        }
    }
}

// Inputs (placeholders, get_attr) that only ops of one layer read belong to that layer, when inputs
// of that kind do so in most layers of the stack: each layer's weights and caches, but not the
// hidden state the graph feeds its first layer.
void assignInputsByUsers(const Graph& graph, Assignment& as)
{
    std::vector<std::pair<size_t, std::pair<int, int>>> candidates; // input, (stack, layer)
    std::map<std::pair<int, std::string>, std::set<int>> layersWith; // (stack, kind) -> layers
    std::vector<std::set<int>> layersOf(as.patterns.size());
    auto kindOf = [](const Node& n) {
        return n.op == NodeOp::GetAttr ? std::string("get_attr") : std::string(inputKindName(n.inputKind));
    };
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
        if (as.stack[i] != kNone)
            layersOf[size_t(as.stack[i])].insert(as.layer[i]);
        const Node& node = graph.nodes[i];
        if (!isInput(node) || as.stack[i] != kNone || node.users.empty())
            continue;
        int s = as.stack[size_t(node.users[0])], l = as.layer[size_t(node.users[0])];
        bool same = s != kNone;
        for (int u : node.users)
            same = same && as.stack[size_t(u)] == s && as.layer[size_t(u)] == l;
        if (!same)
            continue;
        candidates.push_back({ i, { s, l } });
        layersWith[{ s, kindOf(node) }].insert(l);
    }
    for (const auto& [i, sl] : candidates) {
        size_t layers = layersOf[size_t(sl.first)].size();
        if (layersWith[{ sl.first, kindOf(graph.nodes[i]) }].size() * 2 <= layers)
            continue;
        as.stack[i] = sl.first;
        as.layer[i] = sl.second;
    }
}

// Module groups inside one layer, from the path after the layer index (`self_attn_q_proj` ->
// "self_attn"): a group when at least three nodes (two of them ops) share a first path component
// and the name goes on below it; only when a layer has two or more such modules. Ops without a
// module between two ops of one module belong to it.
void addModuleGroups(
    const Graph& graph, const Assignment& as, const std::vector<int>& nodes, int layerGroup, Grouping& out)
{
    std::map<std::string, std::vector<int>> byFirst;
    std::vector<std::string> firstOf(nodes.size());
    for (size_t k = 0; k < nodes.size(); ++k) {
        size_t i = size_t(nodes[k]);
        if (as.moduleToken[i] == 0 || as.moduleToken[i] + 1 >= as.tokens[i].size())
            continue; // no module path, or the node is the module itself
        firstOf[k] = as.tokens[i][as.moduleToken[i]];
        byFirst[firstOf[k]].push_back(int(k));
    }
    std::map<std::string, std::string> label;
    for (const auto& [first, members] : byFirst) {
        int ops = 0;
        for (int k : members)
            ops += isBody(graph.nodes[size_t(nodes[size_t(k)])]) ? 1 : 0;
        if (members.size() < 3 || ops < 2)
            continue;
        // The longest path prefix all members share, short of the last component of the shortest.
        const auto& t0 = as.tokens[size_t(nodes[size_t(members[0])])];
        size_t from = as.moduleToken[size_t(nodes[size_t(members[0])])], len = t0.size() - from - 1;
        for (int k : members) {
            const auto& t = as.tokens[size_t(nodes[size_t(k)])];
            size_t f = as.moduleToken[size_t(nodes[size_t(k)])], l = 0;
            while (l < len && f + l + 1 < t.size() && t[f + l] == t0[from + l])
                ++l;
            len = l;
        }
        label[first] = joinTokens(t0, from, from + std::max<size_t>(len, 1));
    }
    if (label.size() < 2)
        return;
    // Ops between two ops of the same module join it.
    int lastOp = kNone;
    for (size_t k = 0; k < nodes.size(); ++k) {
        if (!isBody(graph.nodes[size_t(nodes[k])]) || !label.count(firstOf[k])) {
            if (!label.count(firstOf[k]))
                firstOf[k].clear();
            continue;
        }
        if (lastOp != kNone && firstOf[size_t(lastOp)] == firstOf[k])
            for (size_t j = size_t(lastOp) + 1; j < k; ++j)
                if (isBody(graph.nodes[size_t(nodes[j])]) && firstOf[j].empty())
                    firstOf[j] = firstOf[k];
        lastOp = int(k);
    }
    std::map<std::string, int> groupOfModule;
    std::vector<int> direct;
    for (size_t k = 0; k < nodes.size(); ++k) {
        if (firstOf[k].empty()) {
            direct.push_back(nodes[k]);
            continue;
        }
        auto it = groupOfModule.find(firstOf[k]);
        if (it == groupOfModule.end())
            it = groupOfModule.emplace(firstOf[k], newGroup(out, "module", label[firstOf[k]], layerGroup)).first;
        out.groups[size_t(it->second)].nodes.push_back(nodes[k]);
    }
    out.groups[size_t(layerGroup)].nodes = std::move(direct);
}

// Covered range of each group, children in node order, groupOf, roots.
void finishGroups(Grouping& out)
{
    for (NodeGroup& g : out.groups) {
        g.firstNode = g.nodes.empty() ? std::numeric_limits<int>::max() : g.nodes.front();
        g.lastNode = g.nodes.empty() ? -1 : g.nodes.back();
        for (int n : g.nodes)
            out.groupOf[size_t(n)] = g.id;
    }
    // Children were created after their parents: widen parents from the innermost out.
    for (size_t k = out.groups.size(); k-- > 0;) {
        const NodeGroup& g = out.groups[k];
        if (g.parent != kNone) {
            NodeGroup& p = out.groups[size_t(g.parent)];
            p.firstNode = std::min(p.firstNode, g.firstNode);
            p.lastNode = std::max(p.lastNode, g.lastNode);
        }
    }
    for (NodeGroup& g : out.groups) {
        if (g.kind != "layers")
            std::sort(g.children.begin(), g.children.end(),
                [&](int a, int b) { return out.groups[size_t(a)].firstNode < out.groups[size_t(b)].firstNode; });
        if (g.parent == kNone)
            out.roots.push_back(g.id);
    }
    std::sort(out.roots.begin(), out.roots.end(),
        [&](int a, int b) { return out.groups[size_t(a)].firstNode < out.groups[size_t(b)].firstNode; });
}

void buildGroups(const Graph& graph, const Assignment& as, Grouping& out)
{
    const size_t stacks = as.patterns.size();
    std::vector<std::map<int, std::vector<int>>> layers(stacks);
    std::vector<int> firstBody(stacks, std::numeric_limits<int>::max());
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
        if (as.stack[i] == kNone)
            continue;
        layers[size_t(as.stack[i])][as.layer[i]].push_back(int(i));
        if (isBody(graph.nodes[i]))
            firstBody[size_t(as.stack[i])] = std::min(firstBody[size_t(as.stack[i])], int(i));
    }
    std::vector<size_t> order(stacks);
    for (size_t s = 0; s < stacks; ++s)
        order[s] = s;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return firstBody[a] < firstBody[b]; });
    for (size_t s : order) {
        if (layers[s].empty())
            continue;
        int lo = layers[s].begin()->first, hi = layers[s].rbegin()->first;
        int count = int(layers[s].size());
        int stack = newGroup(out, "layers",
            "layers " + std::to_string(lo) + "-" + std::to_string(hi) + " (x" + std::to_string(count) + ")", kNone);
        out.groups[size_t(stack)].repeat = count;
        for (auto& [index, nodes] : layers[s]) {
            int layer = newGroup(out, "layer", "layer " + std::to_string(index), stack);
            out.groups[size_t(layer)].layerIndex = index;
            out.groups[size_t(layer)].nodes = nodes;
            addModuleGroups(graph, as, nodes, layer, out);
        }
    }
    finishGroups(out);
}

} // namespace

Grouping groupNodes(const Graph& graph)
{
    const size_t n = graph.nodes.size();
    Grouping out;
    out.groupOf.assign(n, kNone);
    out.method = "none";
    Assignment as;
    as.stack.assign(n, kNone);
    as.layer.assign(n, kNone);
    as.moduleToken.assign(n, 0);
    as.tokens.resize(n);

    std::vector<int> body;
    std::vector<int> sig;
    std::unordered_map<std::string, int> sigIds;
    for (size_t i = 0; i < n; ++i)
        if (isBody(graph.nodes[i])) {
            body.push_back(int(i));
            sig.push_back(sigIds.emplace(signatureOf(graph.nodes[i]), int(sigIds.size())).first->second);
        }

    bool named = assignFromNames(graph, as);
    if (named) {
        assignFromInputs(graph, as);
        named = std::any_of(body.begin(), body.end(), [&](int i) { return as.stack[size_t(i)] != kNone; });
    }
    if (named) {
        fillGaps(as, body, sig);
        out.method = "node names: ";
        for (size_t s = 0; s < as.patterns.size(); ++s)
            out.method += (s ? ", " : "") + as.patterns[s];
    } else {
        std::fill(as.stack.begin(), as.stack.end(), kNone);
        std::fill(as.layer.begin(), as.layer.end(), kNone);
        std::fill(as.moduleToken.begin(), as.moduleToken.end(), 0);
        as.patterns.clear();
        Repeat r = findRepeat(sig);
        if (r.copies < 2 || r.period * r.copies < 6)
            return out;
        as.patterns.push_back("repeat");
        for (size_t k = 0; k < r.copies * r.period; ++k) {
            as.stack[size_t(body[r.start + k])] = 0;
            as.layer[size_t(body[r.start + k])] = int(k / r.period);
        }
        out.method = "repeated op sequence of " + std::to_string(r.period) + " ops x " + std::to_string(r.copies);
    }
    assignWriteBacks(graph, as);
    assignInputsByUsers(graph, as);
    buildGroups(graph, as, out);
    return out;
}

// ---- The visible view ----

namespace {

// The group that shows `group`'s nodes: its outermost collapsed ancestor (itself included), or
// kNone when it and all its ancestors are expanded. Memoised per group (-2: not computed yet).
int shownBy(const Grouping& g, const std::set<int>& expanded, int group, std::vector<int>& memo)
{
    int& m = memo[size_t(group)];
    if (m != -2)
        return m;
    int parent = g.groups[size_t(group)].parent;
    int above = parent == kNone ? kNone : shownBy(g, expanded, parent, memo);
    m = above != kNone ? above : (expanded.count(group) ? kNone : group);
    return m;
}

void appendField(std::string& s, const std::string& field)
{
    s += std::to_string(field.size());
    s += ':';
    s += field;
}

std::string viewKey(const ViewGraph& v)
{
    std::string s;
    s.reserve(v.items.size() * 48 + v.edges.size() * 16);
    for (const ViewItem& it : v.items) {
        s += it.kind == ViewItem::Kind::Node ? 'N' : 'G';
        s += std::to_string(it.index) + ',' + std::to_string(int(it.role)) + ',' + std::to_string(it.members) + ','
            + (it.rewritten ? '1' : '0') + ',';
        appendField(s, it.label);
        appendField(s, it.detail);
        s += ';';
    }
    s += '|';
    for (const ViewEdge& e : v.edges)
        s += std::to_string(e.from) + '>' + std::to_string(e.to) + '*' + std::to_string(e.count) + ';';
    return md5Hex(s);
}

} // namespace

ViewGraph buildView(const Graph& graph, const Grouping& grouping, const std::set<int>& expanded,
    const std::set<std::string>& rewrittenNodes)
{
    const size_t n = graph.nodes.size();
    ViewGraph v;
    v.itemOfNode.assign(n, kNone);
    std::vector<int> memo(grouping.groups.size(), -2);
    std::vector<int> itemOfGroup(grouping.groups.size(), kNone);
    std::vector<std::string> mutated = graph.mutatedInputs();
    std::set<std::string> mutatedSet(mutated.begin(), mutated.end());
    for (size_t i = 0; i < n; ++i) {
        const Node& node = graph.nodes[i];
        int group = i < grouping.groupOf.size() ? grouping.groupOf[i] : kNone;
        int shown = group == kNone ? kNone : shownBy(grouping, expanded, group, memo);
        bool rewritten = !rewrittenNodes.empty() && rewrittenNodes.count(node.name);
        if (shown == kNone) {
            ViewItem item;
            item.kind = ViewItem::Kind::Node;
            item.index = int(i);
            item.label = node.name;
            item.role = nodeRole(graph, int(i), mutatedSet);
            item.detail = node.op == NodeOp::Placeholder ? inputKindName(node.inputKind)
                : node.op == NodeOp::Output              ? "output"
                                                         : node.target;
            item.rewritten = rewritten;
            v.itemOfNode[i] = int(v.items.size());
            v.items.push_back(std::move(item));
            continue;
        }
        int& it = itemOfGroup[size_t(shown)];
        if (it == kNone) {
            ViewItem item;
            item.kind = ViewItem::Kind::Group;
            item.index = shown;
            item.label = grouping.groups[size_t(shown)].label;
            item.members = 0;
            it = int(v.items.size());
            v.items.push_back(std::move(item));
        }
        ViewItem& item = v.items[size_t(it)];
        ++item.members;
        item.rewritten = item.rewritten || rewritten;
        v.itemOfNode[i] = it;
    }
    for (ViewItem& item : v.items)
        if (item.kind == ViewItem::Kind::Group)
            item.detail = std::to_string(item.members) + (item.members == 1 ? " node" : " nodes");

    std::unordered_map<uint64_t, size_t> edgeIndex;
    for (size_t i = 0; i < n; ++i) {
        int from = v.itemOfNode[i];
        for (int u : graph.nodes[i].users) {
            int to = v.itemOfNode[size_t(u)];
            if (to == from)
                continue;
            uint64_t k = (uint64_t(uint32_t(from)) << 32) | uint32_t(to);
            auto [pos, inserted] = edgeIndex.emplace(k, v.edges.size());
            if (inserted)
                v.edges.push_back({ from, to, 1 });
            else
                ++v.edges[pos->second].count;
        }
    }
    std::sort(v.edges.begin(), v.edges.end(),
        [](const ViewEdge& a, const ViewEdge& b) { return a.from != b.from ? a.from < b.from : a.to < b.to; });
    v.key = viewKey(v);
    return v;
}

} // namespace engine::view
