// One FX graph from the statements of a readable `forward`.
#include "engine/readers/fx_code_builder.h"

#include <algorithm>

namespace engine::readers::detail {

namespace {

size_t hashName(std::string_view name)
{
    return std::hash<std::string_view>()(name);
}

} // namespace

void NameTable::reserve(size_t count)
{
    size_t slots = 16;
    while (slots * 3 < count * 4) // at most three quarters full
        slots *= 2;
    if (slots <= m_slots.size())
        return;
    std::vector<Slot> old = std::move(m_slots);
    m_slots.assign(slots, Slot());
    const size_t mask = slots - 1;
    for (Slot& s : old) {
        if (s.index < 0)
            continue;
        size_t pos = s.hash & mask;
        while (m_slots[pos].index >= 0)
            pos = (pos + 1) & mask;
        m_slots[pos] = std::move(s);
    }
}

void NameTable::grow()
{
    reserve(std::max<size_t>(8, m_size * 2));
}

int NameTable::find(std::string_view name) const
{
    if (m_slots.empty())
        return -1;
    const size_t hash = hashName(name);
    const size_t mask = m_slots.size() - 1;
    for (size_t pos = hash & mask;; pos = (pos + 1) & mask) {
        const Slot& s = m_slots[pos];
        if (s.index < 0)
            return -1;
        if (s.hash == hash && s.name == name)
            return s.index;
    }
}

bool NameTable::insert(std::string_view name, int index)
{
    if ((m_size + 1) * 4 > m_slots.size() * 3)
        grow();
    const size_t hash = hashName(name);
    const size_t mask = m_slots.size() - 1;
    size_t pos = hash & mask;
    for (; m_slots[pos].index >= 0; pos = (pos + 1) & mask) {
        if (m_slots[pos].hash == hash && m_slots[pos].name == name)
            return false;
    }
    Slot& s = m_slots[pos];
    s.name.assign(name.data(), name.size());
    s.hash = hash;
    s.index = index;
    ++m_size;
    return true;
}

void NameTable::retain(const std::vector<int>& newIndex)
{
    std::vector<Slot> old = std::move(m_slots);
    m_slots.assign(old.size(), Slot());
    m_size = 0;
    const size_t mask = old.size() - 1;
    for (Slot& s : old) {
        if (s.index < 0 || newIndex[size_t(s.index)] < 0)
            continue;
        s.index = newIndex[size_t(s.index)];
        size_t pos = s.hash & mask;
        while (m_slots[pos].index >= 0)
            pos = (pos + 1) & mask;
        m_slots[pos] = std::move(s);
        ++m_size;
    }
}

ForwardBuilder::ForwardBuilder(
    std::string_view text, DiagnosticSink& sink, std::string graphId, AnnotationCache& annotations)
    : m_text(text)
    , m_sink(sink)
    , m_annotations(annotations)
{
    m_graph.id = std::move(graphId);
}

void ForwardBuilder::expectNodes(size_t count)
{
    constexpr size_t kMaxReserved = size_t(1) << 16; // a wrong guess costs at most this many
    count = std::min(count, kMaxReserved);
    m_graph.nodes.reserve(count);
    m_annotated.reserve(count);
    m_nodeLines.reserve(count);
    m_names.reserve(count);
}

Position ForwardBuilder::at(size_t offset) const
{
    return m_line ? locate(m_text, m_line->line, m_line->lineStart, offset) : m_lastPosition;
}

void ForwardBuilder::warn(size_t offset, const std::string& message)
{
    if (m_sink.full()) {
        m_sink.drop(); // locating the offset costs a scan of the statement
        return;
    }
    m_sink.warn(at(offset), message);
}

void ForwardBuilder::fail(size_t offset, const std::string& message)
{
    if (!m_error)
        m_error = m_sink.error(at(offset), message);
}

void ForwardBuilder::skipLine(size_t offset, const std::string& message)
{
    warn(offset, message + "; the line is skipped");
    if (!m_line)
        return;
    // Remember the name the statement would have defined, so that a later use can say why it is missing.
    size_t p = m_line->begin;
    size_t e = p;
    while (e < m_line->end && e - p < 256 && (isIdentifier(m_text.substr(p, e - p + 1))))
        ++e;
    size_t q = e;
    while (q < m_line->end && (m_text[q] == ' ' || m_text[q] == '\t'))
        ++q;
    if (e > p && q < m_line->end && (m_text[q] == ':' || (m_text[q] == '=' && m_text.substr(q, 2) != "==")))
        m_skipped.emplace(std::string(m_text.substr(p, e - p)), m_line->line);
}

std::string ForwardBuilder::undefinedMessage(const std::string& name) const
{
    auto it = m_skipped.find(name);
    if (it != m_skipped.end())
        return "'" + name + "' is not defined (its statement on line " + std::to_string(it->second)
            + " could not be read)";
    return "'" + name + "' is not defined before it is used";
}

void ForwardBuilder::addParam(const Param& p, const LogicalLine& line)
{
    if (m_error)
        return;
    m_line = &line;
    m_lastPosition = at(line.begin);
    addPlaceholder(p.name, p.offset, p.annotation, p.descriptor);
    m_line = nullptr;
}

void ForwardBuilder::addPlaceholder(
    const std::string& name, size_t offset, const AnnotationSource& annotation, std::string_view descriptor)
{
    if (!m_graph.nodes.empty() && m_graph.nodes.back().op != NodeOp::Placeholder) {
        fail(offset, "input '" + name + "' is defined after the graph's first node (FX prints inputs first)");
        return;
    }
    Node n;
    n.op = NodeOp::Placeholder;
    n.name = name;
    n.target.clear();
    kindFromDynamoName(n, name);
    kindFromDescriptor(n, descriptor);
    bool annotated = applyAnnotation(n, annotation);
    define(std::move(n), offset, annotated);
}

void ForwardBuilder::removePlaceholders(const std::set<std::string>& names)
{
    // One pass, however many are removed: a header may have many thousands of inputs.
    std::vector<int> newIndex(m_graph.nodes.size(), -1);
    size_t kept = 0;
    for (size_t i = 0; i < m_graph.nodes.size(); ++i) {
        const Node& n = m_graph.nodes[i];
        if (n.op == NodeOp::Placeholder && names.count(n.name))
            continue;
        newIndex[i] = int(kept);
        if (kept != i) {
            m_graph.nodes[kept] = std::move(m_graph.nodes[i]);
            m_annotated[kept] = m_annotated[i];
            m_nodeLines[kept] = m_nodeLines[i];
        }
        ++kept;
    }
    if (kept == m_graph.nodes.size())
        return;
    m_graph.nodes.resize(kept);
    m_annotated.resize(kept);
    m_nodeLines.resize(kept);
    m_names.retain(newIndex);
}

bool ForwardBuilder::define(Node n, size_t offset, bool annotated)
{
    if (!m_names.insert(n.name, int(m_graph.nodes.size()))) {
        fail(offset, "'" + n.name + "' is defined twice");
        return false;
    }
    if (n.op != NodeOp::Placeholder && n.op != NodeOp::Output)
        n.provenance = m_provenance;
    m_lineNode = int(m_graph.nodes.size());
    m_graph.nodes.push_back(std::move(n));
    m_annotated.push_back(annotated);
    m_nodeLines.push_back(m_line ? m_line->line : m_lastPosition.line);
    return true;
}

bool ForwardBuilder::applyAnnotation(Node& n, const AnnotationSource& annotation)
{
    if (!annotation.present)
        return false;
    const std::string& text = annotation.str();
    if (!annotation.isString) {
        // Python type annotations (non-verbose printing) say nothing about sizes; the unquoted
        // tensor annotations of PyTorch 2.0 do.
        const size_t bracket = text.find('[');
        const bool tensor
            = bracket != std::string::npos && isDTypeAbbreviation(std::string_view(text).substr(0, bracket));
        if (!tensor && text.rfind("Sym(", 0) != 0) {
            if (n.op == NodeOp::Placeholder
                && (text == "torch.SymInt" || text == "SymInt" || text == "int" || text == "torch.types.SymInt")) {
                symIntInput(n, "its annotation " + text);
                if (auto e = SymExpr::parse(n.name)) {
                    n.symbol = e.value();
                    m_graph.dynamic = m_graph.dynamic || !n.symbol.constantValue();
                }
            }
            return false;
        }
    }
    auto cached = m_annotations.find(text);
    if (cached == m_annotations.end()) {
        std::vector<std::string> warnings;
        auto parsed = parseAnnotation(text, warnings);
        cached = m_annotations.emplace(text, ParsedAnnotation { std::move(parsed), std::move(warnings) }).first;
    }
    const ParsedAnnotation& p = cached->second;
    for (const auto& w : p.warnings)
        warn(annotation.offset, w);
    const Result<Annotation>& a = p.result;
    if (!a) {
        warn(annotation.offset,
            "cannot read the annotation \"" + shortText(cached->first) + "\": " + a.error().message + "; '" + n.name
                + "' gets no tensor metadata");
        return false;
    }
    if (a->kind == Annotation::Kind::Sym) {
        n.symbol = a->symbol;
        if (n.op == NodeOp::Placeholder)
            symIntInput(n, "its annotation " + text);
    } else {
        n.outputs = a->tensors; // copies share the parsed SymExpr trees
    }
    m_graph.dynamic = m_graph.dynamic || a->symbolic;
    return true;
}

void ForwardBuilder::comment(const LogicalLine& line)
{
    if (m_error || line.tokens.empty())
        return;
    m_lastPosition = locate(m_text, line.line, line.lineStart, line.begin);
    const std::string& value = line.tokens[0].value;
    size_t file = value.rfind("File:", 0) == 0 ? 0 : value.find(" File: ");
    if (file == std::string::npos)
        m_provenance.clear();
    else
        m_provenance = "# " + value.substr(file == 0 ? 0 : file + 1);
}

void ForwardBuilder::blank()
{
    m_provenance.clear();
}

void ForwardBuilder::statement(const LogicalLine& line)
{
    if (m_error)
        return;
    struct Scope {
        ForwardBuilder& b;
        ~Scope() { b.m_line = nullptr; }
    } scope { *this };
    m_line = &line;
    m_lineNode = -1;
    m_lastPosition = at(line.begin);
    if (!line.problem.empty()) {
        m_lastProblemLine = line.line;
        skipLine(line.problemOffset, "cannot read this line: " + line.problem);
        return;
    }
    // The statement's tokens without comments: the line's own when a comment can only be the last
    // token (the usual case), else a copy without them.
    m_lineComment.clear();
    m_tokens = &line.tokens;
    m_tokenCount = line.tokens.size();
    if (m_tokenCount > 0 && line.tokens.back().kind == Token::Kind::Comment) {
        m_lineComment = line.tokens.back().value;
        --m_tokenCount;
    }
    for (size_t i = 0; i < m_tokenCount; ++i) {
        if (line.tokens[i].kind != Token::Kind::Comment)
            continue;
        m_filtered.clear();
        for (const Token& t : line.tokens) {
            if (t.kind == Token::Kind::Comment)
                m_lineComment = t.value;
            else
                m_filtered.push_back(t);
        }
        m_tokens = &m_filtered;
        m_tokenCount = m_filtered.size();
        break;
    }
    if (m_tokenCount == 0)
        return;
    if (m_returned) {
        if (!m_warnedAfterReturn)
            warn(line.begin, "statements after the return statement are ignored");
        m_warnedAfterReturn = true;
        return;
    }
    std::vector<std::pair<size_t, size_t>>& parts = m_parts;
    parts.clear();
    size_t start = 0;
    forEachTopLevelOp(tokens(), 0, m_tokenCount, [&](size_t i, const Token& t) {
        if (t.text == ";") {
            parts.emplace_back(start, i);
            start = i + 1;
        }
    });
    parts.emplace_back(start, m_tokenCount);
    std::optional<Pending> pending;
    for (size_t k = 0; k < parts.size(); ++k) {
        if (parts[k].first == parts[k].second)
            continue;
        if (!part(parts[k].first, parts[k].second, k, pending) || m_error)
            return;
    }
    if (pending)
        skipLine(line.begin, "in-place statement without the assignment FX prints after it ('x_1 = x')");
}

bool ForwardBuilder::part(size_t begin, size_t end, size_t index, std::optional<Pending>& pending)
{
    const Token& first = tokens()[begin];
    const bool firstIsName = first.kind == Token::Kind::Name && !first.percent;
    if (firstIsName && first.text == "return") {
        if (index != 0) {
            skipLine(first.offset, "'return' after ';' is not FX code");
            return false;
        }
        return returnStatement(begin + 1, end);
    }
    if (firstIsName && first.text == "pass" && end == begin + 1) {
        m_pass = true;
        return true;
    }
    std::vector<size_t>& equals = m_equals; // part() does not nest
    equals.clear();
    size_t augmented = std::string::npos;
    forEachTopLevelOp(tokens(), begin, end, [&](size_t i, const Token& t) {
        if (t.text == "=")
            equals.push_back(i);
        else if (equals.empty() && augmented == std::string::npos && t.text.size() >= 2 && t.text.back() == '='
            && !inplaceOperatorName(t.text).empty())
            augmented = i;
    });
    if (augmented != std::string::npos && equals.empty()) {
        // `x += y;  x_1 = x`: operator.iadd, named by the assignment that follows.
        Target target;
        if (index != 0 || !parseTarget(begin, augmented, target) || target.annotation.present) {
            skipLine(first.offset, "cannot read the in-place statement");
            return false;
        }
        ExprParser p(tokens(), augmented + 1, end, &m_exprPool);
        auto value = p.expressionList();
        if (!value || !p.atEnd()) {
            skipLine(p.failed() ? p.errorOffset() : p.offset(),
                "cannot read the in-place statement: " + (p.failed() ? p.error() : std::string("unexpected text")));
            return false;
        }
        Expr object;
        object.kind = Expr::Kind::Name;
        object.text = target.name;
        object.begin = target.offset;
        Pending pd;
        pd.target = "operator." + inplaceOperatorName(tokens()[augmented].text);
        pd.object = target.name;
        if (!convertArgs({ &object, &*value }, pd.args))
            return false;
        pending = std::move(pd);
        return true;
    }
    if (!equals.empty())
        return assignment(begin, end, equals, index, pending);
    if (firstIsName && end - begin >= 3 && tokens()[begin + 1].kind == Token::Kind::Op
        && tokens()[begin + 1].text == ":") {
        // An annotation-only line of the pytree calling convention: `primals_1: "f32[4]"  # ParamAOTInput(...)`.
        Target target;
        if (!parseTarget(begin, end, target)) {
            skipLine(first.offset, "cannot read the annotation line");
            return false;
        }
        target.annotation.keep();
        m_pendingAnnotations[target.name] = { target.annotation, m_lineComment };
        return true;
    }
    ExprParser p(tokens(), begin, end, &m_exprPool);
    auto e = p.expressionList();
    if (e && p.atEnd() && e->kind == Expr::Kind::Call && e->kids[0].kind == Expr::Kind::Attr
        && e->kids[0].text == "clear" && e->kids.size() == 1)
        return true; // the boxed calling convention's `args_list.clear()`
    skipLine(first.offset, "not an FX statement (expected 'name = ...', 'return ...' or 'pass')");
    return false;
}

bool ForwardBuilder::parseTarget(size_t begin, size_t end, Target& out)
{
    if (begin >= end || tokens()[begin].kind != Token::Kind::Name || tokens()[begin].percent)
        return false;
    out.name = std::string(tokens()[begin].text);
    out.offset = tokens()[begin].offset;
    if (end == begin + 1)
        return true;
    if (tokens()[begin + 1].kind != Token::Kind::Op || tokens()[begin + 1].text != ":" || end < begin + 3)
        return false;
    AnnotationSource& a = out.annotation;
    a.present = true;
    a.offset = tokens()[begin + 2].offset;
    a.isString = std::all_of(tokens().begin() + long(begin + 2), tokens().begin() + long(end),
        [](const Token& t) { return t.kind == Token::Kind::String; });
    if (a.isString && end == begin + 3) {
        a.literal = &tokens()[begin + 2].value;
    } else if (a.isString) {
        for (size_t i = begin + 2; i < end; ++i)
            a.text += tokens()[i].value;
    } else {
        const Token& last = tokens()[end - 1];
        a.text = std::string(m_text.substr(a.offset, last.offset + last.text.size() - a.offset));
    }
    return true;
}

bool ForwardBuilder::assignment(
    size_t begin, size_t end, const std::vector<size_t>& equals, size_t index, std::optional<Pending>& pending)
{
    ExprParser vp(tokens(), equals.back() + 1, end, &m_exprPool);
    auto value = vp.expressionList();
    struct Recycle { // the tree's storage serves the next statement
        std::optional<Expr>& e;
        ExprPool& pool;
        ~Recycle()
        {
            if (e)
                recycle(*e, pool);
        }
    } recycleValue { value, m_exprPool };
    if (!value || !vp.atEnd()) {
        skipLine(vp.failed() ? vp.errorOffset() : vp.offset(),
            "cannot read the right-hand side: " + (vp.failed() ? vp.error() : std::string("unexpected text")));
        return false;
    }
    const bool isNone = value->kind == Expr::Kind::Name && value->text == "None";
    if (isNone && (equals.size() > 1 || index > 0)) {
        // The clean-up tail `a = b = None`: what the printer frees after this statement's node.
        size_t from = begin;
        for (size_t eq : equals) {
            if (eq != from + 1 || tokens()[from].kind != Token::Kind::Name) {
                warn(tokens()[from].offset, "cannot read the '= None' clean-up tail; it is ignored");
                return true;
            }
            from = eq + 1;
        }
        if (m_lineNode >= 0) {
            auto& freed = m_graph.nodes[size_t(m_lineNode)].freedAfter;
            freed.reserve(freed.size() + equals.size());
            from = begin;
            for (size_t eq : equals) {
                freed.emplace_back(tokens()[from].text);
                from = eq + 1;
            }
        }
        return true;
    }
    if (equals.size() > 1) {
        skipLine(tokens()[begin].offset, "chained assignment is not FX code");
        return false;
    }
    if (isNone)
        return true; // a lone `x = None`: nothing to record
    const size_t targetEnd = equals[0];
    bool tuple = false;
    int depth = 0;
    for (size_t i = begin; i < targetEnd; ++i) {
        const Token& t = tokens()[i];
        if (t.kind != Token::Kind::Op)
            continue;
        if (t.text == "(" || t.text == "[" || t.text == "{")
            ++depth;
        else if ((t.text == ")" || t.text == "]" || t.text == "}") && depth > 0)
            --depth;
        tuple = tuple || (depth == 0 && t.text == ",");
    }
    if (tuple) {
        ExprParser tp(tokens(), begin, targetEnd, &m_exprPool);
        auto targets = tp.expressionList();
        if (!targets || !tp.atEnd() || targets->kind != Expr::Kind::Tuple || index != 0) {
            skipLine(tokens()[begin].offset, "cannot read the destructuring assignment");
            return false;
        }
        return pytreeFlatten(*targets, *value);
    }
    if (targetEnd > begin + 1 && tokens()[begin + 1].kind == Token::Kind::Op && tokens()[begin + 1].text != ":") {
        // `x[i] = v;  setitem = x`: operator.setitem.
        ExprParser tp(tokens(), begin, targetEnd, &m_exprPool);
        auto target = tp.expression();
        if (!target || !tp.atEnd() || target->kind != Expr::Kind::Subscript || index != 0) {
            skipLine(tokens()[begin].offset, "cannot read the assignment target");
            return false;
        }
        Pending pd;
        pd.target = "operator.setitem";
        pd.object = dottedName(target->kids[0]).value_or("");
        if (!convertArgs({ &target->kids[0], &target->kids[1], &*value }, pd.args))
            return false;
        pending = std::move(pd);
        return true;
    }
    Target target;
    if (!parseTarget(begin, targetEnd, target)) {
        skipLine(tokens()[begin].offset, "cannot read the assignment target");
        return false;
    }
    if (pending) {
        if (value->kind != Expr::Kind::Name || value->text != pending->object) {
            skipLine(value->begin, "expected the assignment that names the in-place result ('x_1 = x')");
            return false;
        }
        Node n;
        n.name = target.name;
        n.target = pending->target;
        n.args = std::move(pending->args);
        pending.reset();
        bool annotated = applyAnnotation(n, target.annotation);
        return define(std::move(n), target.offset, annotated);
    }
    if (index != 0) {
        skipLine(tokens()[begin].offset, "a second assignment on one line is not FX code");
        return false;
    }
    return nodeFromValue(target, *value);
}

} // namespace engine::readers::detail
