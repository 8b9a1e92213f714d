// readFxCode: the structure of FX readable code (classes, nested submodule classes, `def forward`)
// around the statements ForwardBuilder reads.
#include "engine/readers/fx_code_builder.h"

#include <algorithm>
#include <memory>
#include <set>

namespace engine::readers {

namespace detail {

namespace {

std::string_view trimView(std::string_view s)
{
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
        s.remove_suffix(1);
    return s;
}

struct Frame {
    enum class State { Body, Forward, OtherDef };
    std::string name;
    std::string id;
    int indent = 0;
    size_t order = 0; ///< position of the class among all classes, for the order of the graphs
    bool ignored = false;
    State state = State::Body;
    int defIndent = 0;
    bool haveForward = false;
    std::unique_ptr<ForwardBuilder> builder;
    Position at;
};

struct DefHeader {
    std::string name;
    std::vector<Param> params; ///< their annotations may refer to the header line's tokens
    std::string error; ///< non-empty: the header could not be read
    size_t errorOffset = 0;
};

bool isOpToken(const Token& t, std::string_view op)
{
    return t.kind == Token::Kind::Op && t.text == op;
}

// `def NAME(params) [-> type]:`, parameters with annotations, defaults and `# descriptor` comments.
DefHeader parseDef(std::string_view text, const LogicalLine& line)
{
    DefHeader h;
    const auto& toks = line.tokens;
    const size_t n = toks.size();
    size_t i = 1;
    auto fail = [&](const std::string& message) {
        h.error = message;
        h.errorOffset = i < n ? toks[i].offset : line.end;
        return h;
    };
    if (i >= n || toks[i].kind != Token::Kind::Name)
        return fail("expected the method's name after 'def'");
    h.name = std::string(toks[i].text);
    ++i;
    if (i >= n || !isOpToken(toks[i], "("))
        return fail("expected '(' after the method's name");
    ++i;
    while (true) {
        while (i < n && toks[i].kind == Token::Kind::Comment) {
            if (!h.params.empty() && h.params.back().descriptor.empty())
                h.params.back().descriptor = toks[i].value;
            ++i;
        }
        if (i >= n)
            return fail("expected ')' to close the parameter list");
        if (isOpToken(toks[i], ")")) {
            ++i;
            break;
        }
        if (isOpToken(toks[i], "*") || isOpToken(toks[i], "**"))
            ++i;
        if (i >= n || toks[i].kind != Token::Kind::Name)
            return fail("expected a parameter name");
        Param p;
        p.name = std::string(toks[i].text);
        p.offset = toks[i].offset;
        ++i;
        if (i < n && isOpToken(toks[i], ":")) {
            ++i;
            size_t j = i;
            while (j < n && toks[j].kind == Token::Kind::String)
                ++j;
            p.annotation.present = true;
            p.annotation.offset = i < n ? toks[i].offset : line.end;
            if (j > i
                && (j >= n || isOpToken(toks[j], ",") || isOpToken(toks[j], ")") || isOpToken(toks[j], "=")
                    || toks[j].kind == Token::Kind::Comment)) {
                p.annotation.isString = true;
                if (j == i + 1)
                    p.annotation.literal = &toks[i].value; // the header is read while `line` is
                else
                    for (size_t k = i; k < j; ++k)
                        p.annotation.text += toks[k].value;
                i = j;
            } else {
                ExprParser ep(toks, i, n);
                auto e = ep.expression();
                if (!e) {
                    i = ep.position();
                    return fail("cannot read the annotation of '" + p.name + "': " + ep.error());
                }
                p.annotation.text = std::string(text.substr(e->begin, e->end - e->begin));
                i = ep.position();
            }
        }
        if (i < n && isOpToken(toks[i], "=")) {
            ExprParser ep(toks, i + 1, n);
            if (!ep.expression()) {
                i = ep.position();
                return fail("cannot read the default value of '" + p.name + "': " + ep.error());
            }
            i = ep.position();
        }
        h.params.push_back(std::move(p));
        if (i < n && isOpToken(toks[i], ","))
            ++i;
        else if (i >= n || !isOpToken(toks[i], ")"))
            return fail("expected ',' or ')' in the parameter list");
    }
    if (i < n && isOpToken(toks[i], "->")) {
        ExprParser ep(toks, i + 1, n);
        if (!ep.expression()) {
            i = ep.position();
            return fail("cannot read the return annotation: " + ep.error());
        }
        i = ep.position();
    }
    if (i >= n || !isOpToken(toks[i], ":"))
        return fail("expected ':' at the end of the method header");
    for (++i; i < n; ++i)
        if (toks[i].kind != Token::Kind::Comment)
            return fail("unexpected text after the method header");
    return h;
}

class CodeReader {
public:
    CodeReader(std::string_view text, const std::string& path, std::vector<Diagnostic>& diagnostics)
        : m_text(text)
        , m_sink(path, diagnostics)
    {
    }

    Result<std::vector<Graph>> read()
    {
        for (size_t p = m_text.find('\n'); p != std::string_view::npos; p = m_text.find('\n', p + 1))
            ++m_lineCount;
        LineScanner scanner(m_text);
        LogicalLine line;
        while (!m_error && scanner.next(line))
            handle(line);
        while (!m_error && !m_stack.empty())
            popFrame();
        m_sink.finish();
        if (m_error)
            return *m_error;
        if (m_graphs.empty())
            return m_sink.error({ 1, 1 },
                "no FX graph found (expected 'class <Name>(torch.nn.Module):' followed by 'def forward(self, ...):')");
        std::stable_sort(
            m_graphs.begin(), m_graphs.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        std::vector<Graph> out;
        out.reserve(m_graphs.size());
        for (auto& g : m_graphs)
            out.push_back(std::move(g.second));
        return out;
    }

private:
    Position pos(const LogicalLine& line, size_t offset) const
    {
        return locate(m_text, line.line, line.lineStart, offset);
    }

    void handle(const LogicalLine& line)
    {
        if (line.kind == LogicalLine::Kind::Blank || line.kind == LogicalLine::Kind::Comment) {
            // Comments and blank lines never end a block (older printers indent comments by one more space).
            if (!m_stack.empty() && m_stack.back().state == Frame::State::Forward) {
                if (line.kind == LogicalLine::Kind::Blank)
                    m_stack.back().builder->blank();
                else
                    m_stack.back().builder->comment(line);
            }
            return;
        }
        while (!m_stack.empty()) {
            Frame& f = m_stack.back();
            if (f.state == Frame::State::Forward && line.indent > f.defIndent) {
                f.builder->statement(line);
                if (f.builder->error())
                    m_error = *f.builder->error();
                return;
            }
            if (f.state == Frame::State::OtherDef && line.indent > f.defIndent)
                return; // the body of a method other than forward
            if (f.state == Frame::State::Forward)
                finishForward(f);
            f.state = Frame::State::Body;
            if (m_error)
                return;
            if (line.indent > f.indent)
                break;
            popFrame();
        }
        if (m_error)
            return;
        Frame* frame = m_stack.empty() ? nullptr : &m_stack.back();
        if (line.kind == LogicalLine::Kind::Class) {
            classLine(line, frame);
            return;
        }
        if (!line.problem.empty()) {
            if (!frame || !frame->ignored)
                m_sink.warn(
                    pos(line, line.problemOffset), "cannot read this line: " + line.problem + "; it is skipped");
            return;
        }
        const Token& first = line.tokens.front();
        const bool name = first.kind == Token::Kind::Name && !first.percent;
        if (name && first.text == "def") {
            defLine(line, frame);
            return;
        }
        if (frame && frame->ignored)
            return;
        if (!frame) {
            if (!(name && (first.text == "import" || first.text == "from")))
                m_sink.warn(pos(line, line.begin), "line outside a class is not FX code; it is skipped");
            return;
        }
        m_sink.warn(
            pos(line, line.begin), "line in the body of class '" + frame->name + "' is not a method; it is skipped");
    }

    void classLine(const LogicalLine& line, Frame* parent)
    {
        Frame f;
        f.indent = line.indent;
        f.at = pos(line, line.begin);
        f.order = m_classes++;
        std::string_view s = trimView(m_text.substr(line.begin + 5, line.end - line.begin - 5));
        std::string_view name;
        bool ok = !s.empty() && s.back() == ':';
        if (ok) {
            s = trimView(s.substr(0, s.size() - 1));
            size_t paren = s.rfind('(');
            if (paren != std::string_view::npos && !s.empty() && s.back() == ')')
                name = trimView(s.substr(0, paren));
            else if (s.find_first_of("()") == std::string_view::npos)
                name = s;
        }
        ok = ok && !name.empty() && name.size() <= 256 && name.find_first_of(" \t()") == std::string_view::npos;
        if (m_stack.size() >= size_t(kMaxNesting)) {
            m_sink.warn(f.at, "classes nested more than " + std::to_string(kMaxNesting) + " deep are not read");
            return;
        }
        if (!ok || (parent && parent->ignored)) {
            if (!ok)
                m_sink.warn(f.at,
                    "cannot read the class header (expected 'class <Name>(torch.nn.Module):'); the class "
                    "is ignored");
            f.ignored = true;
            f.name = std::string(name);
            m_stack.push_back(std::move(f));
            return;
        }
        f.name = std::string(name);
        f.id = uniqueId(parent ? parent->id + "." + f.name : f.name);
        m_stack.push_back(std::move(f));
    }

    // Two classes of the same name (a file with several graphs) get "_1", "_2", ... suffixes.
    std::string uniqueId(const std::string& base)
    {
        std::string id = base;
        if (m_ids.count(id)) {
            int& next = m_idNext[base];
            do
                id = base + "_" + std::to_string(++next);
            while (m_ids.count(id));
        }
        m_ids.insert(id);
        return id;
    }

    void defLine(const LogicalLine& line, Frame* frame)
    {
        DefHeader h = parseDef(m_text, line);
        if (!frame) {
            // `def forward(...)` without a class around it: read it as a class named "forward".
            Frame f;
            f.indent = line.indent;
            f.at = pos(line, line.begin);
            f.order = m_classes++;
            f.name = h.name.empty() ? "forward" : h.name;
            f.id = uniqueId(f.name);
            m_stack.push_back(std::move(f));
            frame = &m_stack.back();
        }
        frame->state = Frame::State::OtherDef;
        frame->defIndent = line.indent;
        if (frame->ignored || h.name != "forward")
            return;
        if (frame->haveForward) {
            m_sink.warn(pos(line, line.begin), "class '" + frame->name + "' has a second forward; it is ignored");
            return;
        }
        if (!h.error.empty()) {
            m_error = m_sink.error(pos(line, h.errorOffset), "cannot read the forward header: " + h.error);
            return;
        }
        frame->builder = std::make_unique<ForwardBuilder>(m_text, m_sink, frame->id, m_annotations);
        // Each statement and parameter is at least one line: the lines left bound the node count.
        frame->builder->expectNodes(m_lineCount > size_t(line.line) ? m_lineCount - size_t(line.line) + 2 : 2);
        for (size_t k = 0; k < h.params.size(); ++k) {
            if (k == 0 && h.params[k].name == "self")
                continue;
            frame->builder->addParam(h.params[k], line);
        }
        frame->state = Frame::State::Forward;
        if (frame->builder->error())
            m_error = *frame->builder->error();
    }

    void finishForward(Frame& f)
    {
        auto g = f.builder->finish();
        f.builder.reset();
        f.haveForward = true;
        f.state = Frame::State::Body;
        if (!g) {
            if (!m_error)
                m_error = g.error();
            return;
        }
        m_graphs.emplace_back(f.order, std::move(g.value()));
    }

    void popFrame()
    {
        Frame& f = m_stack.back();
        if (f.state == Frame::State::Forward)
            finishForward(f);
        if (!f.haveForward && !f.ignored && !m_error)
            m_sink.warn(f.at, "class '" + f.name + "' has no forward method; it is ignored");
        m_stack.pop_back();
    }

    std::string_view m_text;
    DiagnosticSink m_sink;
    AnnotationCache m_annotations;
    std::vector<Frame> m_stack;
    std::vector<std::pair<size_t, Graph>> m_graphs; ///< (class order, graph)
    std::set<std::string> m_ids;
    std::map<std::string, int> m_idNext;
    size_t m_classes = 0;
    size_t m_lineCount = 0; ///< newlines in the text
    std::optional<Error> m_error;
};

} // namespace

} // namespace detail

Result<FxReadResult> readFxCode(std::string_view text, const std::string& path)
{
    FxReadResult result;
    detail::CodeReader reader(text, path, result.diagnostics);
    auto graphs = reader.read();
    if (!graphs)
        return graphs.error();
    result.graphs = std::move(graphs.value());
    return result;
}

} // namespace engine::readers
