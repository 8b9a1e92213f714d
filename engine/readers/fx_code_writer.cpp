// writeFxCode: a Graph as PyTorch's readable FX code.
#include "engine/readers/fx_code_writer.h"

#include "engine/graph/op_info.h"
#include "engine/readers/fx_reader_internal.h"

#include <map>
#include <set>

namespace engine::readers {

namespace {

using namespace detail;

const char* const kIndent = "        ";

// Namespaces of op overloads that FX prints with their `torch.ops.` prefix.
bool isOpOverload(const std::string& target)
{
    static const std::set<std::string> namespaces = { "aten", "prims", "npu", "atb", "air", "quantized", "_quantized",
        "_c10d_functional", "c10d_functional", "_dtensor", "inductor", "torchvision", "fbgemm" };
    const std::vector<std::string> parts = splitDots(target);
    if (parts.size() == 2 && parts[0] == "higher_order")
        return true;
    return parts.size() == 3 && namespaces.count(parts[0]);
}

std::string argText(const Arg& a, int depth = 0)
{
    switch (a.kind) {
    case Arg::Kind::None:
        return "None";
    case Arg::Kind::Bool:
        return a.b ? "True" : "False";
    case Arg::Kind::Int:
        return std::to_string(a.i);
    case Arg::Kind::Float:
        return pyFloat(a.f);
    case Arg::Kind::Str:
        return isOpaqueConstantText(a.s) ? a.s : pyQuote(a.s);
    case Arg::Kind::NodeRef:
        return a.s;
    case Arg::Kind::List: {
        std::string s = "[";
        for (size_t i = 0; i < a.items.size(); ++i)
            s += (i ? ", " : "") + (depth < kMaxNesting ? argText(a.items[i], depth + 1) : std::string("None"));
        return s + "]";
    }
    }
    return "None";
}

std::string callArgs(
    const std::vector<Arg>& args, const std::vector<std::pair<std::string, Arg>>& kwargs, size_t from = 0)
{
    std::string s;
    for (size_t i = from; i < args.size(); ++i)
        s += (s.empty() ? "" : ", ") + argText(args[i]);
    for (const auto& [name, value] : kwargs)
        s += (s.empty() ? "" : ", ") + name + " = " + argText(value);
    return s;
}

// `self.layers.0` is printed `getattr(self.layers, "0")`.
std::string modulePathExpr(const std::string& path)
{
    std::string expr = "self";
    size_t start = 0;
    while (start <= path.size()) {
        size_t dot = path.find('.', start);
        std::string part = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
        expr = isIdentifier(part) ? expr + "." + part : "getattr(" + expr + ", " + pyQuote(part, '"') + ")";
        if (dot == std::string::npos)
            break;
        start = dot + 1;
    }
    return expr;
}

std::string quotedAnnotation(const std::string& text)
{
    return ": " + pyQuote(text, '"');
}

std::string tupleAnnotation(const std::vector<TensorMeta>& outputs)
{
    std::string s = "(";
    for (size_t i = 0; i < outputs.size(); ++i)
        s += (i ? ", " : "") + annotationText(outputs[i]);
    return s + (outputs.size() == 1 ? ",)" : ")");
}

bool sameOutputs(const std::vector<TensorMeta>& a, const std::vector<TensorMeta>& b)
{
    if (a.size() != b.size())
        return false;
    for (size_t i = 0; i < a.size(); ++i)
        if (!equivalentMeta(a[i], b[i]))
            return false;
    return true;
}

class Writer {
public:
    Writer(const Graph& g, const std::string& className, bool annotate = true)
        : m_g(g)
        , m_className(className)
        , m_annotate(annotate)
    {
        for (size_t i = 0; i < g.nodes.size(); ++i)
            m_byName.emplace(g.nodes[i].name, int(i));
        m_users = usersByName(g, m_byName);
    }

    std::string write()
    {
        m_out = "class " + m_className + "(torch.nn.Module):\n";
        header();
        return body();
    }

    /// The statements after the header, as `GraphModule.code` prints them when not annotating.
    std::string body()
    {
        computeFrees();
        std::string provenance;
        for (size_t i = 0; i < m_g.nodes.size(); ++i) {
            const Node& n = m_g.nodes[i];
            if (n.op == NodeOp::Placeholder)
                continue;
            if (n.op != NodeOp::Output && n.provenance != provenance) {
                provenance = n.provenance;
                m_out += "\n";
                if (provenance.empty())
                    m_out += std::string(kIndent) + "# No stacktrace found for following nodes\n";
                else
                    m_out += kIndent + (provenance.rfind("# ", 0) == 0 ? provenance : "# " + provenance) + "\n";
            }
            statement(int(i));
        }
        if (m_g.outputNode() < 0)
            m_out += std::string(kIndent) + "pass\n";
        return m_out;
    }

private:
    std::string annotation(const Node& n) const
    {
        if (!m_annotate)
            return {};
        if (n.op == NodeOp::Placeholder && n.inputKind == InputKind::SymInt)
            return quotedAnnotation("Sym(" + n.symbol.text() + ")");
        if (n.outputs.size() == 1)
            return quotedAnnotation(annotationText(n.outputs[0]));
        const bool synthesizable
            = n.op == NodeOp::CallFunction || n.op == NodeOp::CallMethod || n.op == NodeOp::CallModule;
        const int index = m_byName.count(n.name) ? m_byName.at(n.name) : -1;
        const std::vector<TensorMeta> synthesized
            = synthesizable && index >= 0 ? synthesizedOutputs(m_g, index, m_users) : std::vector<TensorMeta>();
        if (n.outputs.empty()) {
            if (n.op != NodeOp::Placeholder && n.symbol.text() != "0")
                return quotedAnnotation("Sym(" + n.symbol.text() + ")");
            return synthesized.empty() ? std::string() : quotedAnnotation("()");
        }
        // Several results: PyTorch prints none and lets the getitem users tell; this project's tuple
        // annotation covers the results they do not describe.
        return sameOutputs(n.outputs, synthesized) ? std::string() : quotedAnnotation(tupleAnnotation(n.outputs));
    }

    void header()
    {
        const std::vector<int> inputs = m_g.placeholders();
        bool expanded = false;
        for (int i : inputs) {
            InputKind k = m_g.nodes[size_t(i)].inputKind;
            expanded = expanded || k == InputKind::Parameter || k == InputKind::Buffer;
        }
        if (!expanded) {
            m_out += "    def forward(self";
            for (int i : inputs)
                m_out += ", " + m_g.nodes[size_t(i)].name + annotation(m_g.nodes[size_t(i)]);
            m_out += "):\n";
            return;
        }
        // AOT autograd's expanded form: one input per line with its descriptor.
        m_out += "    def forward(\n        self,\n";
        int plain = 0;
        for (int i : inputs) {
            const Node& n = m_g.nodes[size_t(i)];
            std::string target = pyQuote(n.storage.empty() ? n.name : n.storage, '\'');
            std::string descriptor = n.inputKind == InputKind::Parameter ? "ParamAOTInput(target=" + target + ")"
                : n.inputKind == InputKind::Buffer                       ? "BufferAOTInput(target=" + target + ")"
                                                   : "PlainAOTInput(idx=" + std::to_string(plain++) + ")";
            m_out += kIndent + n.name + annotation(n) + ",  # " + descriptor + "\n";
        }
        m_out += "    ):\n";
    }

    // FX's delete_unused_values: after the last user of a value, `;  a = b = None`; a node nobody
    // uses is freed right after itself. Values the output uses and unused inputs are not freed.
    void computeFrees()
    {
        m_frees.assign(m_g.nodes.size(), {});
        std::vector<int> lastUser(m_g.nodes.size(), -1);
        for (size_t j = 0; j < m_g.nodes.size(); ++j)
            for (int u : m_users[j])
                lastUser[j] = std::max(lastUser[j], u);
        for (size_t i = 0; i < m_g.nodes.size(); ++i) {
            const Node& n = m_g.nodes[i];
            if (n.op == NodeOp::Placeholder || n.op == NodeOp::Output)
                continue;
            std::vector<std::string> refs;
            collect(n, refs);
            std::set<std::string> seen;
            for (const auto& r : refs) {
                auto it = m_byName.find(r);
                if (it != m_byName.end() && lastUser[size_t(it->second)] == int(i) && seen.insert(r).second)
                    m_frees[i].push_back(r);
            }
            if (m_users[i].empty())
                m_frees[i].push_back(n.name);
        }
    }

    static void collectArg(const Arg& a, std::vector<std::string>& out, int depth)
    {
        if (a.kind == Arg::Kind::NodeRef)
            out.push_back(a.s);
        else if (a.kind == Arg::Kind::List && depth < kMaxNesting)
            for (const Arg& item : a.items)
                collectArg(item, out, depth + 1);
    }

    static void collect(const Node& n, std::vector<std::string>& out)
    {
        for (const Arg& a : n.args)
            collectArg(a, out, 0);
        for (const auto& kw : n.kwargs)
            collectArg(kw.second, out, 0);
    }

    void statement(int index)
    {
        const Node& n = m_g.nodes[size_t(index)];
        std::string line = kIndent;
        const std::string lhs = n.name + annotation(n);
        if (n.op == NodeOp::Output) {
            m_out += line + "return " + returnText(n) + "\n";
            return;
        }
        if (n.op == NodeOp::GetAttr) {
            line += lhs + " = " + modulePathExpr(n.target);
        } else if (n.op == NodeOp::CallModule) {
            line += lhs + " = " + modulePathExpr(n.target) + "(" + callArgs(n.args, n.kwargs) + ")";
        } else if (n.op == NodeOp::CallMethod && !n.args.empty() && n.args[0].kind == Arg::Kind::NodeRef) {
            line += lhs + " = " + n.args[0].s + "." + n.target + "(" + callArgs(n.args, n.kwargs, 1) + ")";
        } else {
            line += functionStatement(n, lhs);
        }
        const auto& frees = m_frees[size_t(index)];
        if (!frees.empty()) {
            line += ";  ";
            for (const auto& f : frees)
                line += f + " = ";
            line += "None";
        }
        m_out += line + "\n";
    }

    std::string functionStatement(const Node& n, const std::string& lhs) const
    {
        const std::string& t = n.target;
        const size_t argc = n.args.size();
        const bool plain = n.kwargs.empty();
        if (t.rfind("operator.", 0) == 0 && plain) {
            const std::string name = t.substr(9);
            const bool firstIsNode = argc > 0 && n.args[0].kind == Arg::Kind::NodeRef;
            if (name == "getitem" && argc == 2)
                return lhs + " = " + operand(n.args[0]) + "[" + argText(n.args[1]) + "]";
            if (name == "setitem" && argc == 3 && firstIsNode)
                return n.args[0].s + "[" + argText(n.args[1]) + "] = " + argText(n.args[2]) + ";  " + lhs + " = "
                    + n.args[0].s;
            std::string symbol = binaryOperatorSymbol(name);
            if (!symbol.empty() && argc == 2)
                return lhs + " = " + operand(n.args[0]) + " " + symbol + " " + operand(n.args[1]);
            symbol = unaryOperatorSymbol(name);
            if (!symbol.empty() && argc == 1)
                return lhs + " = " + symbol + operand(n.args[0]);
            symbol = inplaceOperatorSymbol(name);
            if (!symbol.empty() && argc == 2 && firstIsNode)
                return n.args[0].s + " " + symbol + " " + argText(n.args[1]) + ";  " + lhs + " = " + n.args[0].s;
        }
        if (t == "getattr" && plain && argc == 2 && n.args[0].kind == Arg::Kind::NodeRef
            && n.args[1].kind == Arg::Kind::Str && isIdentifier(n.args[1].s))
            return lhs + " = " + n.args[0].s + "." + n.args[1].s;
        return lhs + " = " + callee(t) + "(" + callArgs(n.args, n.kwargs) + ")";
    }

    // `torch.ops.` goes before op overloads, as PyTorch prints them, and before any target the
    // reader would otherwise take for something else: one whose first name is a node's or `self`,
    // one that itself starts with `torch.ops.`, and `next` / `iter` (the boxed calling convention).
    std::string callee(const std::string& t) const
    {
        const std::string root = t.substr(0, t.find('.'));
        const bool prefix = isOpOverload(t) || t.rfind("torch.ops.", 0) == 0 || m_byName.count(root) || root == "self"
            || t == "next" || t == "iter";
        return prefix ? "torch.ops." + t : t;
    }

    // An operand of operator sugar: a constant printed as an opaque expression is parenthesised.
    static std::string operand(const Arg& a)
    {
        std::string s = argText(a);
        return a.kind == Arg::Kind::Str && s == a.s ? "(" + s + ")" : s;
    }

    std::string returnText(const Node& n) const
    {
        if (n.args.empty())
            return "None";
        const Arg& r = n.args[0];
        // A returned string is always quoted: `return pytree.tree_unflatten(...)` would read as a list.
        if (r.kind == Arg::Kind::Str)
            return pyQuote(r.s);
        if (r.kind != Arg::Kind::List)
            return argText(r);
        std::string s = "(";
        for (size_t i = 0; i < r.items.size(); ++i)
            s += (i ? ", " : "") + argText(r.items[i]);
        return s + (r.items.size() == 1 ? ",)" : ")");
    }

    const Graph& m_g;
    std::string m_className;
    bool m_annotate = true;
    std::map<std::string, int> m_byName;
    std::vector<std::vector<int>> m_users;
    std::vector<std::vector<std::string>> m_frees;
    std::string m_out;
};

} // namespace

std::string writeFxCode(const Graph& graph, const std::string& className)
{
    return Writer(graph, className).write();
}

std::string writeFxCodeBody(const Graph& graph)
{
    return Writer(graph, "GraphModule", false).body();
}

std::string fxArgText(const Arg& arg)
{
    return argText(arg);
}

} // namespace engine::readers
