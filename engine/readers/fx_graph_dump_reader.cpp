// readFxGraphDump: the `print(gm.graph)` form, one node per line:
//   %add : [num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%x, 1), kwargs = {})
// Arguments are printed with str(), not repr(): strings are unquoted and devices read `cuda:0`, so
// they are read by a lenient scanner of their own rather than as Python.
#include "engine/readers/fx_reader_internal.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <set>

namespace engine::readers {

namespace detail {

namespace {

std::string_view trimView(std::string_view s)
{
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
        s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
        s.remove_suffix(1);
    return s;
}

bool startsWith(std::string_view s, std::string_view prefix)
{
    return s.substr(0, prefix.size()) == prefix;
}

bool isNameChar(char c)
{
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || (unsigned char)c >= 0x80;
}

// Names of Python's operator module functions FX records (printed `<built-in function getitem>`).
bool isOperatorFunction(const std::string& name)
{
    static const std::set<std::string> extra = { "getitem", "setitem", "not_", "truth", "is_", "is_not", "contains",
        "index", "concat", "abs", "length_hint" };
    return extra.count(name) || !binaryOperatorSymbol(name).empty() || !unaryOperatorSymbol(name).empty()
        || !inplaceOperatorSymbol(name).empty();
}

// How the dump spells a call_function target, as the IR keeps it.
std::string functionTarget(std::string_view t)
{
    if (t.empty())
        return {};
    if (startsWith(t, "<built-in function ") && t.back() == '>') {
        std::string name(t.substr(19, t.size() - 20));
        return isOperatorFunction(name) ? "operator." + name : name;
    }
    if (startsWith(t, "<function ")) {
        std::string_view rest = t.substr(10);
        size_t end = rest.find(" at 0x");
        if (end == std::string_view::npos)
            end = rest.find('>');
        return std::string(trimView(rest.substr(0, end)));
    }
    if (startsWith(t, "<OpOverload(op='")) {
        // <OpOverload(op='aten.add', overload='Tensor')>
        std::string_view rest = t.substr(16);
        size_t q = rest.find('\'');
        size_t o = rest.find("overload='");
        if (q != std::string_view::npos && o != std::string_view::npos) {
            std::string_view overload = rest.substr(o + 10);
            return std::string(rest.substr(0, q)) + "." + std::string(overload.substr(0, overload.find('\'')));
        }
    }
    return irTarget(std::string(t));
}

class ValueParser {
public:
    ValueParser(std::string_view s, const std::set<std::string>& names, bool bareRefs)
        : m_s(s)
        , m_names(names)
        , m_bareRefs(bareRefs)
    {
    }

    Arg value(int depth)
    {
        skipSpace();
        if (depth > kMaxNesting) {
            fail("arguments nested more than " + std::to_string(kMaxNesting) + " levels deep");
            return {};
        }
        if (m_pos >= m_s.size()) {
            fail("expected a value");
            return {};
        }
        char c = m_s[m_pos];
        if (c == '%') {
            size_t start = ++m_pos;
            while (m_pos < m_s.size() && isNameChar(m_s[m_pos]))
                ++m_pos;
            std::string name(m_s.substr(start, m_pos - start));
            if (name.empty())
                fail("expected a node name after '%'");
            else
                reference(name, start - 1);
            return Arg::ref(name);
        }
        if (c == '(' || c == '[') {
            const char close = c == '(' ? ')' : ']';
            ++m_pos;
            std::vector<Arg> items;
            while (!failed()) {
                skipSpace();
                if (m_pos < m_s.size() && m_s[m_pos] == close) {
                    ++m_pos;
                    break;
                }
                items.push_back(value(depth + 1));
                skipSpace();
                if (m_pos < m_s.size() && m_s[m_pos] == ',')
                    ++m_pos;
                else if (m_pos >= m_s.size() || m_s[m_pos] != close)
                    fail(std::string("expected ',' or '") + close + "'");
            }
            return Arg::list(std::move(items));
        }
        return atom();
    }

    /// `{name: value, ...}`
    std::vector<std::pair<std::string, Arg>> dict()
    {
        std::vector<std::pair<std::string, Arg>> out;
        skipSpace();
        if (m_pos >= m_s.size() || m_s[m_pos] != '{') {
            fail("expected '{'");
            return out;
        }
        ++m_pos;
        while (!failed()) {
            skipSpace();
            if (m_pos < m_s.size() && m_s[m_pos] == '}') {
                ++m_pos;
                break;
            }
            size_t colon = m_s.find(':', m_pos);
            size_t stop = m_s.find_first_of(",}", m_pos);
            if (colon == std::string_view::npos || (stop != std::string_view::npos && stop < colon)) {
                fail("expected 'name: value' in kwargs");
                break;
            }
            std::string key(trimView(m_s.substr(m_pos, colon - m_pos)));
            m_pos = colon + 1;
            out.emplace_back(key, value(1));
            skipSpace();
            if (m_pos < m_s.size() && m_s[m_pos] == ',')
                ++m_pos;
            else if (m_pos >= m_s.size() || m_s[m_pos] != '}')
                fail("expected ',' or '}' in kwargs");
        }
        return out;
    }

    void skipSpace()
    {
        while (m_pos < m_s.size() && std::isspace(static_cast<unsigned char>(m_s[m_pos])))
            ++m_pos;
    }
    bool atEnd()
    {
        skipSpace();
        return m_pos >= m_s.size();
    }
    /// Is the next character (after spaces) `c`?
    bool peek(char c)
    {
        skipSpace();
        return m_pos < m_s.size() && m_s[m_pos] == c;
    }
    void skip(size_t n) { m_pos = std::min(m_s.size(), m_pos + n); }
    bool failed() const { return !m_error.empty(); }
    const std::string& error() const { return m_error; }
    size_t errorPos() const { return m_errorPos; }
    const std::vector<std::pair<std::string, size_t>>& undefined() const { return m_undefined; }
    bool truncated() const { return m_truncated; }

private:
    void fail(const std::string& message)
    {
        if (m_error.empty()) {
            m_error = message;
            m_errorPos = m_pos;
        }
    }

    void reference(const std::string& name, size_t at)
    {
        if (!m_names.count(name))
            m_undefined.emplace_back(name, at);
    }

    // Anything else up to the next ',' or closing bracket at this level (`torch.float32`, `cuda:0`,
    // `slice(None, 2, None)`, an unquoted string).
    Arg atom()
    {
        const size_t start = m_pos;
        int depth = 0;
        char quote = 0;
        for (; m_pos < m_s.size(); ++m_pos) {
            char c = m_s[m_pos];
            if (quote) {
                if (c == quote)
                    quote = 0;
                continue;
            }
            if (c == '\'' || c == '"')
                quote = c;
            else if (c == '(' || c == '[' || c == '{')
                ++depth;
            else if (c == ')' || c == ']' || c == '}') {
                if (depth == 0)
                    break;
                --depth;
            } else if (c == ',' && depth == 0)
                break;
        }
        std::string_view text = trimView(m_s.substr(start, m_pos - start));
        Arg a;
        if (text.empty()) {
            fail("expected a value");
            return a;
        }
        if (startsWith(text, "...")) {
            m_truncated = true; // "...[total_len=N]": the printer shortened a long list
            a.kind = Arg::Kind::Str;
            a.s = std::string(text);
            return a;
        }
        if (text == "None")
            return a;
        if (text == "Ellipsis" || text == "...") {
            a.kind = Arg::Kind::Str;
            a.s = "Ellipsis";
            return a;
        }
        if (startsWith(text, "slice(")) {
            // `slice(None, %sym_size_int, None)`: the code form prints the same without '%'; the
            // reference is kept as text (the IR has no slice argument), as the code reader does.
            a.kind = Arg::Kind::Str;
            for (char c : text)
                if (c != '%')
                    a.s += c;
            return a;
        }
        if (text == "True" || text == "False") {
            a.kind = Arg::Kind::Bool;
            a.b = text == "True";
            return a;
        }
        const char* b = text.data();
        const char* e = text.data() + text.size();
        int64_t i = 0;
        auto ri = std::from_chars(b, e, i);
        if (ri.ec == std::errc() && ri.ptr == e)
            return Arg::integer(i);
        double f = 0;
        bool negative = text[0] == '-';
        std::string_view unsigned_ = negative ? text.substr(1) : text;
        if (unsigned_ == "inf" || unsigned_ == "nan") {
            a.kind = Arg::Kind::Float;
            a.f = unsigned_ == "inf" ? std::numeric_limits<double>::infinity()
                                     : std::numeric_limits<double>::quiet_NaN();
            a.f = negative ? -a.f : a.f;
            return a;
        }
        if (!unsigned_.empty() && (std::isdigit(static_cast<unsigned char>(unsigned_[0])) || unsigned_[0] == '.')) {
            auto rf = std::from_chars(b, e, f);
            if (rf.ec == std::errc() && rf.ptr == e) {
                a.kind = Arg::Kind::Float;
                a.f = f;
                return a;
            }
        }
        std::string s(text);
        if (m_bareRefs && isIdentifier(s)) {
            reference(s, start);
            return Arg::ref(s);
        }
        a.kind = Arg::Kind::Str;
        a.s = std::move(s);
        return a;
    }

    std::string_view m_s;
    const std::set<std::string>& m_names;
    bool m_bareRefs;
    size_t m_pos = 0;
    std::string m_error;
    size_t m_errorPos = 0;
    std::vector<std::pair<std::string, size_t>> m_undefined;
    bool m_truncated = false;
};

class DumpReader {
public:
    DumpReader(std::string_view text, const std::string& path, std::vector<Diagnostic>& diagnostics)
        : m_text(text)
        , m_sink(path, diagnostics)
    {
    }

    Result<std::vector<Graph>> read()
    {
        constexpr std::string_view fragment = "# Graph fragment:";
        for (size_t at = m_text.find(fragment); at != std::string_view::npos && !m_fragments;
             at = m_text.find(fragment, at + 1))
            m_fragments = at == 0 || m_text[at - 1] == '\n';
        size_t pos = 0;
        while (pos < m_text.size() && !m_error) {
            size_t eol = m_text.find('\n', pos);
            if (eol == std::string_view::npos)
                eol = m_text.size();
            m_lineStart = pos;
            line(m_text.substr(pos, eol - pos));
            ++m_line;
            pos = eol + 1;
        }
        if (!m_error && m_open) {
            m_line = std::max(1, m_line - 1);
            finishGraph();
        }
        m_sink.finish();
        if (m_error)
            return *m_error;
        if (m_graphs.empty())
            return m_sink.error(
                { 1, 1 }, "no FX graph found (expected 'graph():' and '%name : [num_users=k] = ...' lines)");
        return std::move(m_graphs);
    }

private:
    Position at(size_t column0) const { return { m_line, int(column0) + 1 }; }
    void warn(size_t column0, const std::string& message) { m_sink.warn(at(column0), message); }
    void fail(size_t column0, const std::string& message)
    {
        if (!m_error && !dropFragment(column0, message))
            m_error = m_sink.error(at(column0), message);
    }

    // Inductor prints a fragment per kernel, and a fragment need not be a whole graph: it may use
    // values it does not list (`%arg6_1`), list a kernel buffer both as PlaceHolder and as the node
    // that computes it, or return buffers (`%buf4`). Such a fragment is skipped with a warning; the
    // file's other fragments are still read. False outside fragments.
    bool dropFragment(size_t column0, const std::string& message)
    {
        if (!m_fragments || !m_open)
            return false;
        warn(column0,
            "graph fragment " + std::to_string(m_fragmentCount - 1) + " is not a whole graph (" + message
                + "); the fragment is skipped");
        m_open = false;
        m_inFragment = false;
        return true;
    }

    void startGraph()
    {
        m_graph = Graph();
        if (m_fragments) // by position in the file, so that a skipped fragment leaves no gap unnamed
            m_graph.id = "fragment_" + std::to_string(m_fragmentCount - 1);
        else
            m_graph.id = m_graphs.empty() ? "graph" : "graph_" + std::to_string(m_graphs.size());
        m_names.clear();
        m_annotated.clear();
        m_open = true;
        m_returned = false;
    }

    void finishGraph()
    {
        if (!m_returned) {
            fail(0, "graph '" + m_graph.id + "' ends without a return line");
            m_open = false;
            return;
        }
        auto done = m_graph.finalize();
        if (!done) {
            if (!dropFragment(0, done.error().message))
                m_error = makeError(
                    done.error().code, "graph '" + m_graph.id + "': " + done.error().message, m_sink.path());
            m_open = false;
            return;
        }
        m_open = false;
        if (m_annotated.empty()) {
            m_graph.metadataMissing = "print(gm.graph) prints no tensor metadata: gm.print_readable(), "
                                      "fx_graph_readable.py or the TORCH_TRACE of the same compile give it";
        } else {
            // Results of multi-output producers from their getitem users, as the code reader does.
            for (size_t i = 0; i < m_graph.nodes.size(); ++i) {
                Node& n = m_graph.nodes[i];
                if (n.outputs.empty() && !m_annotated.count(n.name)
                    && (n.op == NodeOp::CallFunction || n.op == NodeOp::CallMethod || n.op == NodeOp::CallModule))
                    n.outputs = synthesizedOutputs(m_graph, int(i), n.users);
            }
        }
        m_graphs.push_back(std::move(m_graph));
    }

    bool define(Node n, size_t column0)
    {
        if (!m_open)
            startGraph();
        if (m_returned) {
            warn(column0, "node after the return line; it is skipped");
            return false;
        }
        if (n.op == NodeOp::Placeholder && !m_graph.nodes.empty() && m_graph.nodes.back().op != NodeOp::Placeholder) {
            fail(column0, "input '" + n.name + "' comes after the graph's first node");
            return false;
        }
        if (!m_names.insert(n.name).second) {
            fail(column0, "'" + n.name + "' is defined twice");
            return false;
        }
        m_returned = n.op == NodeOp::Output;
        m_graph.nodes.push_back(std::move(n));
        return true;
    }

    void placeholder(const std::string& name, std::string_view type, size_t column0)
    {
        Node n;
        n.op = NodeOp::Placeholder;
        n.name = name;
        const bool annotated = annotate(n, type, column0);
        if (n.inputKind != InputKind::SymInt && !kindFromDynamoName(n, name)
            && (type == "torch.nn.parameter.Parameter" || type == "torch.nn.Parameter")) {
            n.inputKind = InputKind::Parameter;
            n.inputKindFrom = "its type " + std::string(type) + " in print(gm.graph)";
        }
        if (!annotated && (type.find("SymInt") != std::string_view::npos || type == "int")) {
            symIntInput(n, "its type " + std::string(type) + " in print(gm.graph)");
            if (auto e = SymExpr::parse(name))
                n.symbol = e.value();
        }
        define(std::move(n), column0);
    }

    // The type printed between ':' and '=': nothing, a Python type (`torch.Tensor`), or, in the
    // graph fragments of Inductor's output_code.py (2.11), `Tensor "f32[4, 4][4, 1]cuda:0"` with the
    // tensor annotation of the readable code. Fills the node's metadata from the annotation; true
    // when there was one it could read.
    bool annotate(Node& n, std::string_view type, size_t column0)
    {
        const size_t open = type.find('"');
        const size_t close = type.rfind('"');
        if (open == std::string_view::npos || close <= open)
            return false;
        const std::string text(type.substr(open + 1, close - open - 1));
        std::vector<std::string> warnings;
        auto a = parseAnnotation(text, warnings);
        for (const auto& w : warnings)
            warn(column0, w);
        if (!a) {
            warn(column0,
                "cannot read the annotation \"" + text.substr(0, 60) + "\": " + a.error().message + "; '" + n.name
                    + "' gets no tensor metadata");
            return false;
        }
        if (a->kind == Annotation::Kind::Sym) {
            n.symbol = a->symbol;
            if (n.op == NodeOp::Placeholder)
                symIntInput(n, "its annotation " + text);
        } else {
            n.outputs = a->tensors;
        }
        m_graph.dynamic = m_graph.dynamic || a->symbolic;
        m_annotated.insert(n.name);
        return true;
    }

    bool checkValues(const ValueParser& p, size_t base)
    {
        if (p.failed()) {
            warn(base + p.errorPos(), "cannot read the arguments: " + p.error() + "; the line is skipped");
            return false;
        }
        if (!p.undefined().empty()) {
            fail(base + p.undefined()[0].second, "'" + p.undefined()[0].first + "' is not defined before it is used");
            return false;
        }
        if (p.truncated())
            warn(base, "a list was printed shortened ('...[total_len=N]'); its missing items are not known");
        return true;
    }

    void line(std::string_view raw)
    {
        std::string_view s = trimView(raw);
        if (s == "# Graph fragment:") {
            // Inductor's output_code.py (2.11) prints the nodes of each kernel as comments:
            // `#   %name : Tensor "f32[4][1]cuda:0"[num_users=1] = call_function[...](...)`, ending
            // with `#   return %a,%b`. Each fragment is a graph; the rest of the file is ignored.
            if (m_open)
                finishGraph();
            m_fragments = true;
            m_inFragment = true;
            ++m_fragmentCount;
            return;
        }
        if (m_fragments) {
            if (!m_inFragment || s.empty() || s[0] != '#') {
                m_inFragment = false;
                return;
            }
            s = trimView(s.substr(1));
            if (s.empty() || (s[0] != '%' && !startsWith(s, "return"))) {
                m_inFragment = false;
                return;
            }
        }
        const size_t indent = size_t(s.data() - raw.data());
        if (s.empty() || s[0] == '#')
            return;
        if (s.size() > kMaxLogicalLineBytes) {
            warn(indent, "line longer than " + std::to_string(kMaxLogicalLineBytes >> 20) + " MiB; it is skipped");
            return;
        }
        if (startsWith(s, "graph(")) {
            if (m_open)
                finishGraph();
            if (m_error)
                return;
            startGraph();
            size_t close = s.find(')');
            if (close == std::string_view::npos || s.back() != ':') {
                warn(indent, "cannot read the graph header; its inputs are not read");
                return;
            }
            std::string_view params = s.substr(6, close - 6);
            size_t from = 0;
            while (from <= params.size() && !m_error) {
                size_t comma = params.find(',', from);
                if (comma == std::string_view::npos)
                    comma = params.size();
                std::string_view item = trimView(params.substr(from, comma - from));
                size_t colon = item.find(':');
                std::string_view name = trimView(item.substr(0, colon));
                if (!name.empty())
                    placeholder(std::string(name),
                        colon == std::string_view::npos ? std::string_view() : trimView(item.substr(colon + 1)),
                        indent + 6 + from);
                from = comma + 1;
            }
            return;
        }
        if (startsWith(s, "return ") || s == "return") {
            outputLine(s.substr(6), indent + 6);
            return;
        }
        if (s[0] != '%') {
            warn(indent, "not a node of the graph dump (expected '%name : ... = op[target=...]'); the line is skipped");
            return;
        }
        nodeLine(s, indent);
    }

    void outputLine(std::string_view value, size_t column0)
    {
        ValueParser p(value, m_names, true);
        Arg a = p.value(0);
        if (!p.failed() && p.peek(',')) {
            // `return %buf0,%mul_1` (graph fragments): a tuple without parentheses.
            std::vector<Arg> items;
            items.push_back(std::move(a));
            while (!p.failed() && p.peek(',')) {
                p.skip(1);
                if (p.atEnd())
                    break;
                items.push_back(p.value(1));
            }
            a = Arg::list(std::move(items));
        }
        if (!p.failed() && !p.atEnd())
            warn(column0, "unexpected text after the returned value; it is ignored");
        if (!checkValues(p, column0))
            return;
        Node out;
        out.op = NodeOp::Output;
        out.name = "output";
        out.args.push_back(std::move(a));
        define(std::move(out), column0);
        if (m_fragments) {
            m_inFragment = false;
            if (m_open && !m_error)
                finishGraph();
        }
    }

    void nodeLine(std::string_view s, size_t indent)
    {
        size_t nameEnd = 1;
        while (nameEnd < s.size() && isNameChar(s[nameEnd]))
            ++nameEnd;
        std::string name(s.substr(1, nameEnd - 1));
        size_t eq = s.find(" = ", nameEnd);
        size_t colon = s.find(':', nameEnd);
        size_t bracket = eq == std::string_view::npos ? eq : s.find('[', eq);
        if (name.empty() || eq == std::string_view::npos || colon == std::string_view::npos || colon > eq
            || bracket == std::string_view::npos || s.compare(bracket, 8, "[target=") != 0) {
            warn(
                indent, "cannot read the node line (expected '%name : [num_users=k] = op[target=...]'); it is skipped");
            return;
        }
        // The type (if any) sits between ':' and the `[num_users=k]` block (`[#users=k]` before 2.1).
        std::string_view type = trimView(s.substr(colon + 1, eq - colon - 1));
        size_t users = type.rfind("[num_users=");
        if (users == std::string_view::npos)
            users = type.rfind("[#users=");
        if (users != std::string_view::npos)
            type = trimView(type.substr(0, users));
        std::string op(trimView(s.substr(eq + 3, bracket - eq - 3)));
        const size_t targetStart = bracket + 8;
        const bool call = op == "call_function" || op == "call_method" || op == "call_module" || op == "output";
        if (!call) {
            size_t close = s.rfind(']');
            if (close == std::string_view::npos || close < targetStart) {
                warn(indent + targetStart, "the target's ']' is missing; the line is skipped");
                return;
            }
            std::string target(trimView(s.substr(targetStart, close - targetStart)));
            if (op == "placeholder" || op == "PlaceHolder") {
                placeholder(name, type, indent);
            } else if (op == "get_attr") {
                Node n;
                n.op = NodeOp::GetAttr;
                n.name = name;
                n.target = target;
                define(std::move(n), indent);
            } else {
                warn(indent + eq + 3, "unknown node kind '" + op + "'; the line is skipped");
            }
            return;
        }
        size_t argsAt = s.find("](args = ", targetStart);
        size_t kwargsAt = s.rfind(", kwargs = ");
        if (argsAt == std::string_view::npos || kwargsAt == std::string_view::npos || kwargsAt < argsAt
            || s.back() != ')') {
            warn(indent + targetStart, "cannot read '(args = ..., kwargs = ...)'; the line is skipped");
            return;
        }
        Node n;
        n.name = name;
        std::string_view target = trimView(s.substr(targetStart, argsAt - targetStart));
        const size_t argsBase = argsAt + 9;
        ValueParser args(s.substr(argsBase, kwargsAt - argsBase), m_names, false);
        Arg list = args.value(0);
        if (!args.failed() && (!args.atEnd() || list.kind != Arg::Kind::List))
            warn(indent + argsBase, "args is not a tuple; the line is skipped");
        if (!checkValues(args, indent + argsBase) || list.kind != Arg::Kind::List)
            return;
        const size_t kwBase = kwargsAt + 11;
        ValueParser kw(s.substr(kwBase, s.size() - 1 - kwBase), m_names, false);
        auto kwargs = kw.dict();
        if (!kw.failed() && !kw.atEnd())
            warn(indent + kwBase, "unexpected text after kwargs; it is ignored");
        if (!checkValues(kw, indent + kwBase))
            return;
        n.args = std::move(list.items);
        n.kwargs = std::move(kwargs);
        annotate(n, type, indent);
        if (op == "output") {
            n.op = NodeOp::Output;
        } else if (op == "call_function") {
            n.target = functionTarget(target);
        } else {
            n.op = op == "call_method" ? NodeOp::CallMethod : NodeOp::CallModule;
            n.target = std::string(target);
        }
        define(std::move(n), indent);
    }

    std::string_view m_text;
    DiagnosticSink m_sink;
    int m_line = 1;
    size_t m_lineStart = 0;
    Graph m_graph;
    std::set<std::string> m_names;
    std::set<std::string> m_annotated; ///< nodes of the open graph whose annotation was read
    bool m_fragments = false; ///< reading the `# Graph fragment:` comments of Inductor's output_code.py
    bool m_inFragment = false;
    size_t m_fragmentCount = 0; ///< `# Graph fragment:` lines seen
    bool m_open = false;
    bool m_returned = false;
    std::vector<Graph> m_graphs;
    std::optional<Error> m_error;
};

} // namespace

} // namespace detail

Result<FxReadResult> readFxGraphDump(std::string_view text, const std::string& path)
{
    FxReadResult result;
    detail::DumpReader reader(text, path, result.diagnostics);
    auto graphs = reader.read();
    if (!graphs)
        return graphs.error();
    result.graphs = std::move(graphs.value());
    return result;
}

} // namespace engine::readers
