// One FX graph from the statements of a readable `forward`: the nodes a right-hand side makes,
// return statements, the pytree calling convention, arguments, and the finished graph.
#include "engine/core/text_codec.h"
#include "engine/readers/fx_code_builder.h"

#include <algorithm>
#include <cstring>

namespace engine::readers::detail {

namespace {

// `self.a.b`, `getattr(self.layers, "0")`: the submodule path, "" for `self` itself.
std::optional<std::string> modulePath(const Expr& e)
{
    auto join
        = [](const std::string& base, const std::string& part) { return base.empty() ? part : base + "." + part; };
    if (e.kind == Expr::Kind::Name && e.text == "self" && !e.percent)
        return std::string();
    if (e.kind == Expr::Kind::Attr) {
        if (auto base = modulePath(e.kids[0]))
            return join(*base, e.text);
    }
    if (e.kind == Expr::Kind::Call && e.kids.size() == 3 && e.keywords.empty() && e.kids[0].kind == Expr::Kind::Name
        && e.kids[0].text == "getattr" && e.kids[2].kind == Expr::Kind::Str) {
        if (auto base = modulePath(e.kids[1]))
            return join(*base, e.kids[2].text);
    }
    return std::nullopt;
}

const Expr& rootOf(const Expr& e)
{
    const Expr* r = &e;
    while (r->kind == Expr::Kind::Attr)
        r = &r->kids[0];
    return *r;
}

// dottedName() spelled into `out` at once, without a string per level: false (out unspecified) when
// `e` is not a chain of names.
bool spellDotted(const Expr& e, std::string& out)
{
    size_t size = 0;
    size_t parts = 0;
    const Expr* r = &e;
    for (; r->kind == Expr::Kind::Attr; r = &r->kids[0], ++parts)
        size += r->text.size() + 1;
    if (r->kind != Expr::Kind::Name || r->percent)
        return false;
    size += r->text.size();
    out.resize(size);
    char* const data = &out[0];
    size_t end = size;
    for (r = &e; parts-- > 0; r = &r->kids[0]) {
        end -= r->text.size();
        std::memcpy(data + end, r->text.data(), r->text.size());
        data[--end] = '.';
    }
    std::memcpy(data, r->text.data(), r->text.size());
    return true;
}

// Is every argument exprToArg keeps as text in `e` a slice (`a:b`, `slice(None, n, None)`)? Tuples
// and lists are walked as exprToArg walks them.
bool opaqueOnlyInSlices(const Expr& e, int depth = 0)
{
    switch (e.kind) {
    case Expr::Kind::Tuple:
    case Expr::Kind::List:
        if (depth > kMaxNesting)
            return false;
        return std::all_of(
            e.kids.begin(), e.kids.end(), [depth](const Expr& k) { return opaqueOnlyInSlices(k, depth + 1); });
    case Expr::Kind::Slice:
        return true;
    case Expr::Kind::Call:
        return e.kids[0].kind == Expr::Kind::Name && e.kids[0].text == "slice";
    case Expr::Kind::Name:
    case Expr::Kind::Int:
    case Expr::Kind::Float:
    case Expr::Kind::Str:
    case Expr::Kind::Ellipsis:
        return true;
    default:
        return false;
    }
}

void collectNameExprs(const Expr& e, std::vector<std::string>& out)
{
    if (e.kind == Expr::Kind::Name)
        out.push_back(e.text);
    for (const Expr& k : e.kids)
        collectNameExprs(k, out);
}

} // namespace

bool ForwardBuilder::nodeFromValue(const Target& target, const Expr& value)
{
    Node n;
    n.name = target.name;
    switch (value.kind) {
    case Expr::Kind::Call: {
        const Expr& callee = value.kids[0];
        const bool oneName = value.kids.size() == 2 && value.keywords.empty() && value.kids[1].kind == Expr::Kind::Name;
        if (callee.kind == Expr::Kind::Name && callee.text == "next" && oneName) {
            // The boxed calling convention: `arg0_1 = next(args_iter)` is an input.
            if (!m_boxed) {
                m_boxed = true;
                removePlaceholders({ m_boxedSource.empty() ? "args_list" : m_boxedSource });
            }
            addPlaceholder(target.name, target.offset, target.annotation, m_lineComment);
            return !m_error;
        }
        if (callee.kind == Expr::Kind::Name && callee.text == "iter" && oneName) {
            m_boxedSource = value.kids[1].text;
            return true;
        }
        if (!callNode(n, value))
            return false;
        break;
    }
    case Expr::Kind::Attr: {
        auto path = modulePath(value);
        const Expr& object = value.kids[0];
        if (path && !path->empty()) {
            n.op = NodeOp::GetAttr;
            n.target = *path;
        } else if (object.kind == Expr::Kind::Name && isNode(object.text)) {
            n.target = "getattr";
            Arg attr;
            attr.kind = Arg::Kind::Str;
            attr.s = value.text;
            n.args = { Arg::ref(m_graph.nodes[size_t(m_names.find(object.text))].name), attr };
        } else {
            skipLine(value.begin,
                "cannot read '" + shortText(exprText(value))
                    + "' (expected a call, a node's attribute "
                      "or 'self.<attribute>')");
            return false;
        }
        break;
    }
    case Expr::Kind::Subscript:
        n.target = "operator.getitem";
        if (!convertArgs({ &value.kids[0], &value.kids[1] }, n.args))
            return false;
        break;
    case Expr::Kind::Binary:
    case Expr::Kind::Unary: {
        const bool binary = value.kind == Expr::Kind::Binary;
        std::string op = binary ? binaryOperatorName(value.text) : unaryOperatorName(value.text);
        n.target = "operator." + op;
        std::vector<const Expr*> operands = { &value.kids[0] };
        if (binary)
            operands.push_back(&value.kids[1]);
        if (op.empty() || !convertArgs(operands, n.args)) {
            if (!m_error)
                skipLine(value.begin, "unknown operator '" + value.text + "'");
            return false;
        }
        break;
    }
    case Expr::Kind::Name: {
        // A placeholder alias `l_x_ = L_x_`: the node is named by the left-hand side.
        const int aliased = m_names.find(value.text);
        if (aliased >= 0 && m_graph.nodes[size_t(aliased)].op == NodeOp::Placeholder && !m_names.count(target.name)) {
            Node& input = m_graph.nodes[size_t(aliased)];
            input.name = target.name;
            if (input.inputKind == InputKind::UserInput)
                kindFromDynamoName(input, target.name);
            m_names.insert(target.name, aliased);
            m_lineNode = aliased;
            return true;
        }
        skipLine(
            value.begin, "assigning '" + shortText(value.text) + "' to '" + target.name + "' is not an FX statement");
        return false;
    }
    default:
        skipLine(value.begin, "cannot read the right-hand side '" + shortText(exprText(value)) + "'");
        return false;
    }
    bool annotated = applyAnnotation(n, target.annotation);
    return define(std::move(n), target.offset, annotated);
}

bool ForwardBuilder::callNode(Node& n, const Expr& value)
{
    const Expr& callee = value.kids[0];
    std::vector<const Expr*>& positional = m_positional; // callNode() does not nest
    positional.clear();
    for (size_t i = 1; i <= value.positionalCount(); ++i)
        positional.push_back(&value.kids[i]);
    const Expr& root = rootOf(callee);
    const bool rootIsNode = root.kind == Expr::Kind::Name && isNode(root.text);
    if (auto path = modulePath(callee); path && !rootIsNode) {
        if (path->empty()) {
            skipLine(callee.begin, "calling 'self' is not FX code");
            return false;
        }
        n.op = NodeOp::CallModule;
        n.target = *path;
    } else if (callee.kind == Expr::Kind::Attr && &callee.kids[0] == &root && rootIsNode) {
        n.op = NodeOp::CallMethod;
        n.target = callee.text;
        positional.insert(positional.begin(), &callee.kids[0]);
    } else if (!rootIsNode && spellDotted(callee, m_dotted)) {
        n.op = NodeOp::CallFunction;
        // irTarget(): `torch.ops.aten.add.Tensor` -> `aten.add.Tensor`.
        constexpr std::string_view prefix = "torch.ops.";
        if (m_dotted.size() > prefix.size() && std::string_view(m_dotted).substr(0, prefix.size()) == prefix)
            n.target.assign(m_dotted, prefix.size(), std::string::npos);
        else
            n.target = m_dotted;
    } else {
        skipLine(callee.begin, "cannot read the call of '" + shortText(exprText(callee)) + "'");
        return false;
    }
    if (!convertArgs(positional, n.args))
        return false;
    const size_t firstKeyword = 1 + value.positionalCount();
    for (size_t k = 0; k < value.keywords.size(); ++k) {
        Arg a;
        if (!convert(value.kids[firstKeyword + k], a))
            return false;
        n.kwargs.emplace_back(value.keywords[k], std::move(a));
    }
    return true;
}

bool ForwardBuilder::returnStatement(size_t begin, size_t end)
{
    Arg value;
    if (begin < end) {
        ExprParser p(tokens(), begin, end, &m_exprPool);
        auto e = p.expressionList();
        if (!e || !p.atEnd()) {
            skipLine(p.failed() ? p.errorOffset() : p.offset(),
                "cannot read the return statement: " + (p.failed() ? p.error() : std::string("unexpected text")));
            return false;
        }
        const Expr* v = &*e;
        if (e->kind == Expr::Kind::Call && e->positionalCount() >= 1
            && endsWith(dottedName(e->kids[0]).value_or(""), "tree_unflatten"))
            v = &e->kids[1]; // pytree.tree_unflatten([...], self._out_spec)
        if (!convert(*v, value))
            return false;
    }
    Node out;
    out.name = "output";
    out.op = NodeOp::Output;
    out.args.push_back(std::move(value));
    m_returned = true;
    return define(std::move(out), tokens()[begin - 1].offset, false);
}

bool ForwardBuilder::pytreeFlatten(const Expr& targets, const Expr& value)
{
    if (value.kind != Expr::Kind::Call || !endsWith(dottedName(value.kids[0]).value_or(""), "tree_flatten_spec")) {
        skipLine(value.begin, "cannot read the destructuring assignment (expected fx_pytree.tree_flatten_spec(...))");
        return false;
    }
    for (const Expr& t : targets.kids) {
        if (t.kind != Expr::Kind::Name) {
            skipLine(t.begin, "cannot read the destructuring assignment (expected names)");
            return false;
        }
    }
    // The forward's own arguments (`primals`, `tangents`) are pytrees, not graph inputs.
    if (value.positionalCount() >= 1) {
        std::vector<std::string> sources;
        collectNameExprs(value.kids[1], sources);
        removePlaceholders({ sources.begin(), sources.end() });
    }
    for (const Expr& t : targets.kids) {
        if (t.text == "self")
            continue;
        AnnotationSource annotation;
        std::string descriptor;
        auto it = m_pendingAnnotations.find(t.text);
        if (it != m_pendingAnnotations.end()) {
            annotation = it->second.first;
            descriptor = it->second.second;
        }
        addPlaceholder(t.text, t.begin, annotation, descriptor);
        if (m_error)
            return false;
    }
    return true;
}

bool ForwardBuilder::convertArgs(const std::vector<const Expr*>& exprs, std::vector<Arg>& out)
{
    out.reserve(out.size() + exprs.size());
    for (const Expr* e : exprs) {
        if (!convert(*e, out.emplace_back())) // on failure the caller drops `out`
            return false;
    }
    return true;
}

bool ForwardBuilder::convert(const Expr& e, Arg& out)
{
    ArgConversion conv;
    out = exprToArg(
        e, [this](const std::string& name) { return isNode(name); }, conv);
    if (!conv.unknownNames.empty()) {
        fail(conv.unknownOffsets[0], undefinedMessage(conv.unknownNames[0]));
        return false;
    }
    if (!conv.opaqueRefs.empty() && opaqueOnlyInSlices(e)) {
        // `x[:, :sym_size_int]`: frequent in dynamic graphs and always the same story; finish()
        // says it once for the graph.
        if (m_sliceUses++ == 0) {
            m_firstSliceUse = at(e.begin);
            m_firstSliceUseName = conv.opaqueRefs[0];
        }
    } else if (!conv.opaqueRefs.empty())
        warn(e.begin,
            "the use of '" + conv.opaqueRefs[0] + "'"
                + (conv.opaqueRefs.size() > 1 ? " (and " + std::to_string(conv.opaqueRefs.size() - 1) + " more)" : "")
                + " inside '" + shortText(exprText(e)) + "' is kept as text; the graph does not count it as a use");
    // Aliased inputs are referred to by their node name. (Without aliases every name in m_names is
    // its node's own: each node has its name there, and only an alias adds a second one.)
    if (m_names.size() == m_graph.nodes.size())
        return true;
    struct Canon {
        const ForwardBuilder& b;
        void operator()(Arg& a, int depth) const
        {
            if (a.kind == Arg::Kind::NodeRef) {
                const int i = b.m_names.find(a.s);
                if (i >= 0)
                    a.s = b.m_graph.nodes[size_t(i)].name;
            } else if (a.kind == Arg::Kind::List && depth < kMaxNesting + 8) {
                for (Arg& item : a.items)
                    (*this)(item, depth + 1);
            }
        }
    };
    Canon { *this }(out, 0);
    return true;
}

Result<Graph> ForwardBuilder::finish()
{
    if (m_error)
        return *m_error;
    if (!m_returned) {
        if (!m_pass)
            return m_sink.error(m_lastPosition,
                "the forward of '" + m_graph.id + "' ends without a return statement"
                    + (m_lastProblemLine ? " (line " + std::to_string(m_lastProblemLine)
                                + " could not be read; is the text truncated?)"
                                         : std::string()));
        // A `pass` body: FX prints it for a graph without an output node; the IR needs one.
        Node out;
        out.name = "output";
        out.op = NodeOp::Output;
        out.args.emplace_back();
        if (!define(std::move(out), 0, false))
            return *m_error;
    }
    if (m_graph.nodes.capacity() > 2 * m_graph.nodes.size() + 64)
        m_graph.nodes.shrink_to_fit(); // expectNodes() guessed far too many
    auto done = m_graph.finalize();
    if (!done) {
        // The graph's checks name the node ("node 'x' uses ..."): its statement is the place; without
        // one, the end of the forward.
        Position place = m_lastPosition;
        const std::string& message = done.error().message;
        if (message.rfind("node '", 0) == 0) {
            const size_t end = message.find('\'', 6);
            const int index = end == std::string::npos ? -1 : m_names.find(message.substr(6, end - 6));
            if (index >= 0 && size_t(index) < m_nodeLines.size())
                place = Position { m_nodeLines[size_t(index)], 1 };
        }
        return m_sink.error(place, "graph '" + m_graph.id + "': " + message, done.error().code);
    }
    if (m_sliceUses > 0) {
        if (m_sink.full())
            m_sink.drop();
        else
            m_sink.warn(m_firstSliceUse,
                std::to_string(m_sliceUses) + " argument" + (m_sliceUses > 1 ? "s" : "") + " of '" + m_graph.id
                    + "' use nodes inside slices (the first: '" + m_firstSliceUseName
                    + "'); a slice is kept as its text, so the graph does not count these uses");
    }
    if (std::find(m_annotated.begin(), m_annotated.end(), true) == m_annotated.end() && m_graph.nodes.size() > 1)
        m_graph.metadataMissing = "the code has no tensor annotations (PyTorch < 2.0 prints none): gm.print_readable() "
                                  "of PyTorch 2.x, fx_graph_readable.py or the TORCH_TRACE of the same compile give "
                                  "them";
    // Results of multi-output producers from their getitem users. finalize() ignores outputs, and in a
    // graph it accepts every reference names a node, so its users are those usersByName would find.
    for (size_t i = 0; i < m_graph.nodes.size(); ++i) {
        Node& n = m_graph.nodes[i];
        if (m_annotated[i] || !n.outputs.empty()
            || (n.op != NodeOp::CallFunction && n.op != NodeOp::CallMethod && n.op != NodeOp::CallModule))
            continue;
        n.outputs = synthesizedOutputs(m_graph, int(i), n.users);
    }
    return std::move(m_graph);
}

} // namespace engine::readers::detail
