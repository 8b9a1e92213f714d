// Expressions of the Python subset FX prints.
#include "engine/readers/fx_python.h"

#include <algorithm>

namespace engine::readers::detail {

namespace {

// Binary precedence levels, loosest first (Python's order): 0 comparisons, 1 |, 2 ^, 3 &, 4 shifts,
// 5 + -, 6 * / // % @. -1: not a binary operator.
int binaryLevel(std::string_view op)
{
    switch (op.size()) {
    case 1:
        switch (op[0]) {
        case '<':
        case '>':
            return 0;
        case '|':
            return 1;
        case '^':
            return 2;
        case '&':
            return 3;
        case '+':
        case '-':
            return 5;
        case '*':
        case '/':
        case '%':
        case '@':
            return 6;
        default:
            return -1;
        }
    case 2:
        if (op == "==" || op == "!=" || op == "<=" || op == ">=")
            return 0;
        if (op == "<<" || op == ">>")
            return 4;
        if (op == "//")
            return 6;
        return -1;
    default:
        return -1;
    }
}

Expr noneAt(size_t offset)
{
    Expr e;
    e.kind = Expr::Kind::Name;
    e.text = "None";
    e.begin = e.end = offset;
    return e;
}

} // namespace

void recycle(Expr& e, ExprPool& pool)
{
    constexpr size_t kMaxPooled = 256;
    for (Expr& k : e.kids)
        recycle(k, pool);
    e.kids.clear(); // the kids own no storage any more
    if (e.kids.capacity() > 0 && pool.size() < kMaxPooled)
        pool.push_back(std::move(e.kids));
}

ExprParser::ExprParser(const std::vector<Token>& tokens, size_t begin, size_t end, ExprPool* pool)
    : m_tokens(tokens)
    , m_pool(pool)
    , m_pos(begin)
    , m_end(std::min(end, tokens.size()))
{
    skipComments();
}

bool ExprParser::isName(std::string_view name) const
{
    const Token* t = peek();
    return t && t->kind == Token::Kind::Name && !t->percent && t->text == name;
}

size_t ExprParser::offset() const
{
    if (m_pos < m_end)
        return m_tokens[m_pos].offset;
    if (m_end > 0 && m_end <= m_tokens.size()) {
        const Token& last = m_tokens[m_end - 1];
        return last.offset + last.text.size();
    }
    return 0;
}

void ExprParser::fail(const std::string& message)
{
    if (!m_error.empty())
        return;
    m_error = message;
    m_errorOffset = offset();
}

bool ExprParser::checkDepth(Expr& e)
{
    int depth = 0;
    for (const Expr& k : e.kids)
        depth = std::max(depth, k.depth);
    e.depth = depth + 1;
    if (e.depth > kMaxNesting) {
        fail("expression nested more than " + std::to_string(kMaxNesting) + " levels deep");
        return false;
    }
    return true;
}

std::optional<Expr> ExprParser::expression()
{
    Expr e;
    if (!binary(0, 0, e))
        return std::nullopt;
    return e;
}

std::optional<Expr> ExprParser::expressionList()
{
    size_t start = offset();
    Expr first;
    if (!binary(0, 0, first))
        return std::nullopt;
    if (!isOp(","))
        return first;
    Expr tuple;
    tuple.kind = Expr::Kind::Tuple;
    tuple.begin = start;
    tuple.kids = newKids(4);
    tuple.kids.push_back(std::move(first));
    while (acceptOp(",")) {
        if (atEnd() || isOp("=") || isOp(";"))
            break;
        if (!binary(0, 0, tuple.kids.emplace_back()))
            return std::nullopt;
    }
    tuple.end = tuple.kids.back().end;
    if (!checkDepth(tuple))
        return std::nullopt;
    return tuple;
}

std::vector<Expr> ExprParser::newKids(size_t capacity)
{
    std::vector<Expr> kids;
    if (m_pool && !m_pool->empty()) {
        kids = std::move(m_pool->back());
        m_pool->pop_back();
    }
    kids.reserve(capacity);
    return kids;
}

void ExprParser::wrapFirst(Expr& e, Expr::Kind kind, size_t capacity)
{
    std::vector<Expr> kids = newKids(capacity);
    kids.push_back(std::move(e));
    e.kind = kind;
    e.text.clear();
    e.u = 0;
    e.f = 0.0;
    e.percent = false;
    e.begin = kids[0].begin;
    e.end = 0;
    e.depth = 1;
    e.keywords.clear();
    e.kids = std::move(kids);
}

// Precedence climbing: the same left-associative trees as one recursive-descent function per level,
// without passing every operand up through all seven levels.
bool ExprParser::binary(int level, int depth, Expr& out)
{
    if (!unary(depth, out))
        return false;
    while (!failed()) {
        const Token* t = peek();
        if (!t || t->kind != Token::Kind::Op)
            break;
        const int opLevel = binaryLevel(t->text);
        if (opLevel < level)
            break;
        const std::string_view op = t->text;
        ++m_pos;
        skipComments();
        Expr right;
        if (!binary(opLevel + 1, depth, right))
            return false;
        wrapFirst(out, Expr::Kind::Binary, 2);
        out.text.assign(op.data(), op.size());
        out.end = right.end;
        out.kids.push_back(std::move(right));
        if (!checkDepth(out))
            return false;
    }
    return !failed();
}

bool ExprParser::unary(int depth, Expr& out)
{
    if (depth > kMaxNesting) {
        fail("expression nested more than " + std::to_string(kMaxNesting) + " levels deep");
        return false;
    }
    const Token* t = peek();
    if (t && t->kind == Token::Kind::Op && t->text.size() == 1
        && (t->text[0] == '-' || t->text[0] == '+' || t->text[0] == '~')) {
        const std::string_view op = t->text;
        size_t start = offset();
        acceptOp(op);
        Expr operand;
        if (!unary(depth + 1, operand))
            return false;
        out.kind = Expr::Kind::Unary;
        out.text.assign(op.data(), op.size());
        out.begin = start;
        out.end = operand.end;
        out.kids = newKids(1);
        out.kids.push_back(std::move(operand));
        return checkDepth(out);
    }
    return power(depth, out);
}

bool ExprParser::power(int depth, Expr& out)
{
    if (!primary(depth, out))
        return false;
    if (!isOp("**"))
        return true;
    acceptOp("**");
    Expr exponent;
    if (!unary(depth + 1, exponent))
        return false;
    wrapFirst(out, Expr::Kind::Binary, 2);
    out.text = "**";
    out.end = exponent.end;
    out.kids.push_back(std::move(exponent));
    return checkDepth(out);
}

bool ExprParser::primary(int depth, Expr& out)
{
    if (!atom(depth, out))
        return false;
    while (!failed()) {
        if (acceptOp(".")) {
            const Token* t = peek();
            if (!t || t->kind != Token::Kind::Name || t->percent) {
                fail("expected a name after '.'");
                return false;
            }
            wrapFirst(out, Expr::Kind::Attr, 1);
            out.text.assign(t->text.data(), t->text.size());
            out.end = t->offset + t->text.size();
            ++m_pos;
            skipComments();
        } else if (isOp("(")) {
            acceptOp("(");
            wrapFirst(out, Expr::Kind::Call, 4); // the callee and the first arguments without regrowing
            if (!callArguments(out, depth + 1))
                return false;
        } else if (isOp("[")) {
            acceptOp("[");
            wrapFirst(out, Expr::Kind::Subscript, 2);
            if (!subscript(depth + 1, out.kids.emplace_back()))
                return false;
            out.end = offset() + 1;
            if (!acceptOp("]")) {
                fail("expected ']'");
                return false;
            }
        } else {
            break;
        }
        if (!checkDepth(out))
            return false;
    }
    return !failed();
}

bool ExprParser::callArguments(Expr& call, int depth)
{
    while (true) {
        if (isOp(")")) {
            call.end = offset() + 1;
            acceptOp(")");
            return true;
        }
        if (atEnd()) {
            fail("expected ')'");
            return false;
        }
        if (isOp("*") || isOp("**")) {
            fail("star arguments are not part of FX code");
            return false;
        }
        const Token* t = peek();
        bool keyword = t->kind == Token::Kind::Name && !t->percent && m_pos + 1 < m_end
            && m_tokens[m_pos + 1].kind == Token::Kind::Op && m_tokens[m_pos + 1].text == "=";
        if (keyword) {
            std::string name(t->text);
            ++m_pos;
            acceptOp("=");
            if (!expressionAt(depth, call.kids.emplace_back()))
                return false;
            call.keywords.push_back(std::move(name));
        } else {
            if (!call.keywords.empty()) {
                fail("positional argument after a keyword argument");
                return false;
            }
            if (!expressionAt(depth, call.kids.emplace_back()))
                return false;
        }
        if (!isOp(")") && !acceptOp(",")) {
            fail("expected ',' or ')' in the argument list");
            return false;
        }
    }
}

bool ExprParser::subscript(int depth, Expr& out)
{
    size_t start = offset();
    std::vector<Expr> items;
    bool comma = false;
    while (!isOp("]")) {
        if (atEnd()) {
            fail("expected ']'");
            return false;
        }
        size_t itemStart = offset();
        std::optional<Expr> lower;
        if (!isOp(":")) {
            lower.emplace();
            if (!expressionAt(depth, *lower))
                return false;
        }
        if (isOp(":")) {
            Expr slice;
            slice.kind = Expr::Kind::Slice;
            slice.begin = itemStart;
            slice.kids.push_back(lower ? std::move(*lower) : noneAt(itemStart));
            for (int part = 0; part < 2; ++part) {
                if (!acceptOp(":")) {
                    slice.kids.push_back(noneAt(offset()));
                    continue;
                }
                if (isOp(":") || isOp(",") || isOp("]")) {
                    slice.kids.push_back(noneAt(offset()));
                    continue;
                }
                if (!expressionAt(depth, slice.kids.emplace_back()))
                    return false;
            }
            slice.end = offset();
            if (!checkDepth(slice))
                return false;
            items.push_back(std::move(slice));
        } else {
            items.push_back(std::move(*lower));
        }
        if (isOp(","))
            comma = true;
        if (!isOp("]") && !acceptOp(",")) {
            fail("expected ',' or ']' in the subscript");
            return false;
        }
    }
    if (items.empty()) {
        fail("empty subscript");
        return false;
    }
    if (items.size() == 1 && !comma) {
        out = std::move(items[0]);
        return true;
    }
    out.kind = Expr::Kind::Tuple;
    out.begin = start;
    out.end = offset();
    out.kids = std::move(items);
    return checkDepth(out);
}

bool ExprParser::sequence(std::string_view close, Expr::Kind kind, int depth, Expr& out)
{
    out.kids = newKids(4);
    out.kind = kind;
    out.begin = offset();
    acceptOp(kind == Expr::Kind::List ? "[" : "(");
    while (!isOp(close)) {
        if (atEnd()) {
            fail("expected '" + std::string(close) + "'");
            return false;
        }
        if (!expressionAt(depth, out.kids.emplace_back()))
            return false;
        if (!isOp(close) && !acceptOp(",")) {
            fail("expected ',' or '" + std::string(close) + "'");
            return false;
        }
    }
    out.end = offset() + 1;
    acceptOp(close);
    return checkDepth(out);
}

bool ExprParser::dict(int depth, Expr& out)
{
    Expr& d = out;
    d.kind = Expr::Kind::Dict;
    d.begin = offset();
    acceptOp("{");
    while (!isOp("}")) {
        if (atEnd()) {
            fail("expected '}'");
            return false;
        }
        Expr key;
        if (!expressionAt(depth, key))
            return false;
        if (d.kind == Expr::Kind::Set || (d.kids.empty() && (isOp(",") || isOp("}")))) {
            // `{'a', 'b'}`: a set literal (TorchAir prints user_stream_label so).
            d.kind = Expr::Kind::Set;
            d.kids.push_back(std::move(key));
            if (!isOp("}") && !acceptOp(",")) {
                fail("expected ',' or '}' in the set");
                return false;
            }
            continue;
        }
        if (!acceptOp(":")) {
            fail("expected ':' in the dict");
            return false;
        }
        Expr value;
        if (!expressionAt(depth, value))
            return false;
        d.kids.push_back(std::move(key));
        d.kids.push_back(std::move(value));
        if (!isOp("}") && !acceptOp(",")) {
            fail("expected ',' or '}' in the dict");
            return false;
        }
    }
    d.end = offset() + 1;
    acceptOp("}");
    return checkDepth(d);
}

bool ExprParser::atom(int depth, Expr& out)
{
    if (depth > kMaxNesting) {
        fail("expression nested more than " + std::to_string(kMaxNesting) + " levels deep");
        return false;
    }
    const Token* t = peek();
    if (!t) {
        fail("expected an expression");
        return false;
    }
    Expr& e = out;
    e.begin = t->offset;
    e.end = t->offset + t->text.size();
    switch (t->kind) {
    case Token::Kind::Name:
        e.kind = Expr::Kind::Name;
        e.text.assign(t->text.data(), t->text.size());
        e.percent = t->percent;
        ++m_pos;
        skipComments();
        return true;
    case Token::Kind::Int:
        e.kind = Expr::Kind::Int;
        e.u = t->u;
        ++m_pos;
        skipComments();
        return true;
    case Token::Kind::Float:
        e.kind = Expr::Kind::Float;
        e.f = t->f;
        e.text.assign(t->text.data(), t->text.size());
        ++m_pos;
        skipComments();
        return true;
    case Token::Kind::String:
        // Adjacent literals concatenate, as in Python.
        e.kind = Expr::Kind::Str;
        while (const Token* s = peek()) {
            if (s->kind != Token::Kind::String)
                break;
            e.text += s->value;
            e.end = s->offset + s->text.size();
            ++m_pos;
            skipComments();
        }
        return true;
    case Token::Kind::Comment:
        break;
    case Token::Kind::Op:
        if (t->text == "(") {
            size_t start = t->offset;
            acceptOp("(");
            if (isOp(")")) {
                e.kind = Expr::Kind::Tuple;
                e.end = offset() + 1;
                acceptOp(")");
                return true;
            }
            // Parsed in place: a parenthesised expression is the expression itself.
            e.begin = 0;
            e.end = 0;
            if (!expressionAt(depth + 1, e))
                return false;
            if (acceptOp(")"))
                return true;
            if (!isOp(",")) {
                fail("expected ',' or ')'");
                return false;
            }
            wrapFirst(e, Expr::Kind::Tuple, 2);
            e.begin = start;
            while (acceptOp(",")) {
                if (isOp(")"))
                    break;
                if (!expressionAt(depth + 1, e.kids.emplace_back()))
                    return false;
            }
            e.end = offset() + 1;
            if (!acceptOp(")")) {
                fail("expected ',' or ')'");
                return false;
            }
            return checkDepth(e);
        }
        if (t->text == "[")
            return sequence("]", Expr::Kind::List, depth + 1, e);
        if (t->text == "{")
            return dict(depth + 1, e);
        if (t->text == "...") {
            e.kind = Expr::Kind::Ellipsis;
            acceptOp("...");
            return true;
        }
        break;
    }
    fail("unexpected '" + std::string(t->text.substr(0, 40)) + "'");
    return false;
}

bool ExprParser::expressionAt(int depth, Expr& out)
{
    if (depth > kMaxNesting) {
        fail("expression nested more than " + std::to_string(kMaxNesting) + " levels deep");
        return false;
    }
    return binary(0, depth, out);
}

} // namespace engine::readers::detail
