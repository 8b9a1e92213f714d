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

ExprParser::ExprParser(const std::vector<Token>& tokens, size_t begin, size_t end)
    : m_tokens(tokens)
    , m_pos(begin)
    , m_end(std::min(end, tokens.size()))
{
    skipComments();
}

void ExprParser::skipComments()
{
    while (m_pos < m_end && m_tokens[m_pos].kind == Token::Kind::Comment)
        ++m_pos;
}

bool ExprParser::isOp(std::string_view op) const
{
    const Token* t = peek();
    return t && t->kind == Token::Kind::Op && t->text == op;
}

bool ExprParser::isName(std::string_view name) const
{
    const Token* t = peek();
    return t && t->kind == Token::Kind::Name && !t->percent && t->text == name;
}

bool ExprParser::acceptOp(std::string_view op)
{
    if (!isOp(op))
        return false;
    ++m_pos;
    skipComments();
    return true;
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
    return binary(0, 0);
}

std::optional<Expr> ExprParser::expressionList()
{
    size_t start = offset();
    auto first = expression();
    if (!first || !isOp(","))
        return first;
    Expr tuple;
    tuple.kind = Expr::Kind::Tuple;
    tuple.begin = start;
    tuple.kids.push_back(std::move(*first));
    while (acceptOp(",")) {
        if (atEnd() || isOp("=") || isOp(";"))
            break;
        auto item = expression();
        if (!item)
            return std::nullopt;
        tuple.kids.push_back(std::move(*item));
    }
    tuple.end = tuple.kids.back().end;
    if (!checkDepth(tuple))
        return std::nullopt;
    return tuple;
}

// Precedence climbing: the same left-associative trees as one recursive-descent function per level,
// without passing every operand up through all seven levels (an Expr move at each).
std::optional<Expr> ExprParser::binary(int level, int depth)
{
    auto left = unary(depth);
    while (left && !failed()) {
        const Token* t = peek();
        if (!t || t->kind != Token::Kind::Op)
            break;
        const int opLevel = binaryLevel(t->text);
        if (opLevel < level)
            break;
        std::string op(t->text);
        ++m_pos;
        skipComments();
        auto right = binary(opLevel + 1, depth);
        if (!right)
            return std::nullopt;
        Expr node;
        node.kind = Expr::Kind::Binary;
        node.text = op;
        node.begin = left->begin;
        node.end = right->end;
        node.kids.push_back(std::move(*left));
        node.kids.push_back(std::move(*right));
        if (!checkDepth(node))
            return std::nullopt;
        left = std::move(node);
    }
    if (failed())
        return std::nullopt;
    return left;
}

std::optional<Expr> ExprParser::unary(int depth)
{
    if (depth > kMaxNesting) {
        fail("expression nested more than " + std::to_string(kMaxNesting) + " levels deep");
        return std::nullopt;
    }
    for (const char* op : { "-", "+", "~" }) {
        if (isOp(op)) {
            size_t start = offset();
            acceptOp(op);
            auto operand = unary(depth + 1);
            if (!operand)
                return std::nullopt;
            Expr node;
            node.kind = Expr::Kind::Unary;
            node.text = op;
            node.begin = start;
            node.end = operand->end;
            node.kids.push_back(std::move(*operand));
            if (!checkDepth(node))
                return std::nullopt;
            return node;
        }
    }
    return power(depth);
}

std::optional<Expr> ExprParser::power(int depth)
{
    auto base = primary(depth);
    if (!base || !isOp("**"))
        return base;
    acceptOp("**");
    auto exponent = unary(depth + 1);
    if (!exponent)
        return std::nullopt;
    Expr node;
    node.kind = Expr::Kind::Binary;
    node.text = "**";
    node.begin = base->begin;
    node.end = exponent->end;
    node.kids.push_back(std::move(*base));
    node.kids.push_back(std::move(*exponent));
    if (!checkDepth(node))
        return std::nullopt;
    return node;
}

std::optional<Expr> ExprParser::primary(int depth)
{
    auto e = atom(depth);
    while (e && !failed()) {
        Expr node;
        node.begin = e->begin;
        if (acceptOp(".")) {
            const Token* t = peek();
            if (!t || t->kind != Token::Kind::Name || t->percent) {
                fail("expected a name after '.'");
                return std::nullopt;
            }
            node.kind = Expr::Kind::Attr;
            node.text = std::string(t->text);
            node.end = t->offset + t->text.size();
            ++m_pos;
            skipComments();
            node.kids.push_back(std::move(*e));
        } else if (isOp("(")) {
            acceptOp("(");
            node.kind = Expr::Kind::Call;
            node.kids.push_back(std::move(*e));
            if (!callArguments(node, depth + 1))
                return std::nullopt;
        } else if (isOp("[")) {
            acceptOp("[");
            node.kind = Expr::Kind::Subscript;
            node.kids.push_back(std::move(*e));
            auto index = subscript(depth + 1);
            if (!index)
                return std::nullopt;
            node.kids.push_back(std::move(*index));
            node.end = offset() + 1;
            if (!acceptOp("]")) {
                fail("expected ']'");
                return std::nullopt;
            }
        } else {
            break;
        }
        if (!checkDepth(node))
            return std::nullopt;
        e = std::move(node);
    }
    if (failed())
        return std::nullopt;
    return e;
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
            auto value = expressionAt(depth);
            if (!value)
                return false;
            call.keywords.push_back(std::move(name));
            call.kids.push_back(std::move(*value));
        } else {
            if (!call.keywords.empty()) {
                fail("positional argument after a keyword argument");
                return false;
            }
            auto value = expressionAt(depth);
            if (!value)
                return false;
            call.kids.push_back(std::move(*value));
        }
        if (!isOp(")") && !acceptOp(",")) {
            fail("expected ',' or ')' in the argument list");
            return false;
        }
    }
}

std::optional<Expr> ExprParser::subscript(int depth)
{
    size_t start = offset();
    std::vector<Expr> items;
    bool comma = false;
    while (!isOp("]")) {
        if (atEnd()) {
            fail("expected ']'");
            return std::nullopt;
        }
        size_t itemStart = offset();
        std::optional<Expr> lower;
        if (!isOp(":")) {
            lower = expressionAt(depth);
            if (!lower)
                return std::nullopt;
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
                auto bound = expressionAt(depth);
                if (!bound)
                    return std::nullopt;
                slice.kids.push_back(std::move(*bound));
            }
            slice.end = offset();
            if (!checkDepth(slice))
                return std::nullopt;
            items.push_back(std::move(slice));
        } else {
            items.push_back(std::move(*lower));
        }
        if (isOp(","))
            comma = true;
        if (!isOp("]") && !acceptOp(",")) {
            fail("expected ',' or ']' in the subscript");
            return std::nullopt;
        }
    }
    if (items.empty()) {
        fail("empty subscript");
        return std::nullopt;
    }
    if (items.size() == 1 && !comma)
        return std::move(items[0]);
    Expr tuple;
    tuple.kind = Expr::Kind::Tuple;
    tuple.begin = start;
    tuple.end = offset();
    tuple.kids = std::move(items);
    if (!checkDepth(tuple))
        return std::nullopt;
    return tuple;
}

std::optional<Expr> ExprParser::sequence(std::string_view close, Expr::Kind kind, int depth)
{
    Expr seq;
    seq.kind = kind;
    seq.begin = offset();
    acceptOp(kind == Expr::Kind::List ? "[" : "(");
    while (!isOp(close)) {
        if (atEnd()) {
            fail("expected '" + std::string(close) + "'");
            return std::nullopt;
        }
        auto item = expressionAt(depth);
        if (!item)
            return std::nullopt;
        seq.kids.push_back(std::move(*item));
        if (!isOp(close) && !acceptOp(",")) {
            fail("expected ',' or '" + std::string(close) + "'");
            return std::nullopt;
        }
    }
    seq.end = offset() + 1;
    acceptOp(close);
    if (!checkDepth(seq))
        return std::nullopt;
    return seq;
}

std::optional<Expr> ExprParser::dict(int depth)
{
    Expr d;
    d.kind = Expr::Kind::Dict;
    d.begin = offset();
    acceptOp("{");
    while (!isOp("}")) {
        if (atEnd()) {
            fail("expected '}'");
            return std::nullopt;
        }
        auto key = expressionAt(depth);
        if (!key)
            return std::nullopt;
        if (d.kind == Expr::Kind::Set || (d.kids.empty() && (isOp(",") || isOp("}")))) {
            // `{'a', 'b'}`: a set literal (TorchAir prints user_stream_label so).
            d.kind = Expr::Kind::Set;
            d.kids.push_back(std::move(*key));
            if (!isOp("}") && !acceptOp(",")) {
                fail("expected ',' or '}' in the set");
                return std::nullopt;
            }
            continue;
        }
        if (!acceptOp(":")) {
            fail("expected ':' in the dict");
            return std::nullopt;
        }
        auto value = expressionAt(depth);
        if (!value)
            return std::nullopt;
        d.kids.push_back(std::move(*key));
        d.kids.push_back(std::move(*value));
        if (!isOp("}") && !acceptOp(",")) {
            fail("expected ',' or '}' in the dict");
            return std::nullopt;
        }
    }
    d.end = offset() + 1;
    acceptOp("}");
    if (!checkDepth(d))
        return std::nullopt;
    return d;
}

std::optional<Expr> ExprParser::atom(int depth)
{
    if (depth > kMaxNesting) {
        fail("expression nested more than " + std::to_string(kMaxNesting) + " levels deep");
        return std::nullopt;
    }
    const Token* t = peek();
    if (!t) {
        fail("expected an expression");
        return std::nullopt;
    }
    Expr e;
    e.begin = t->offset;
    e.end = t->offset + t->text.size();
    switch (t->kind) {
    case Token::Kind::Name:
        e.kind = Expr::Kind::Name;
        e.text = std::string(t->text);
        e.percent = t->percent;
        ++m_pos;
        skipComments();
        return e;
    case Token::Kind::Int:
        e.kind = Expr::Kind::Int;
        e.u = t->u;
        ++m_pos;
        skipComments();
        return e;
    case Token::Kind::Float:
        e.kind = Expr::Kind::Float;
        e.f = t->f;
        e.text = std::string(t->text);
        ++m_pos;
        skipComments();
        return e;
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
        return e;
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
                return e;
            }
            auto inner = expressionAt(depth + 1);
            if (!inner)
                return std::nullopt;
            if (acceptOp(")"))
                return inner;
            if (!isOp(",")) {
                fail("expected ',' or ')'");
                return std::nullopt;
            }
            e.kind = Expr::Kind::Tuple;
            e.begin = start;
            e.kids.push_back(std::move(*inner));
            while (acceptOp(",")) {
                if (isOp(")"))
                    break;
                auto item = expressionAt(depth + 1);
                if (!item)
                    return std::nullopt;
                e.kids.push_back(std::move(*item));
            }
            e.end = offset() + 1;
            if (!acceptOp(")")) {
                fail("expected ',' or ')'");
                return std::nullopt;
            }
            if (!checkDepth(e))
                return std::nullopt;
            return e;
        }
        if (t->text == "[")
            return sequence("]", Expr::Kind::List, depth + 1);
        if (t->text == "{")
            return dict(depth + 1);
        if (t->text == "...") {
            e.kind = Expr::Kind::Ellipsis;
            acceptOp("...");
            return e;
        }
        break;
    }
    fail("unexpected '" + std::string(t->text.substr(0, 40)) + "'");
    return std::nullopt;
}

std::optional<Expr> ExprParser::expressionAt(int depth)
{
    if (depth > kMaxNesting) {
        fail("expression nested more than " + std::to_string(kMaxNesting) + " levels deep");
        return std::nullopt;
    }
    return binary(0, depth);
}

} // namespace engine::readers::detail
