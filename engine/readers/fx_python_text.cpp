// Canonical Python text of expressions and constants, and FX's operator sugar.
#include "engine/core/py_value.h"
#include "engine/readers/fx_python.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace engine::readers::detail {

namespace {

struct OperatorName {
    const char* symbol;
    const char* name;
};

// torch.fx.graph's magic_methods and inplace_methods: how the printer spells operator.* calls.
const OperatorName kBinary[] = { { "+", "add" }, { "-", "sub" }, { "*", "mul" }, { "//", "floordiv" },
    { "/", "truediv" }, { "%", "mod" }, { "**", "pow" }, { "<<", "lshift" }, { ">>", "rshift" }, { "&", "and_" },
    { "|", "or_" }, { "^", "xor" }, { "@", "matmul" }, { "==", "eq" }, { "!=", "ne" }, { "<", "lt" }, { "<=", "le" },
    { ">", "gt" }, { ">=", "ge" } };
const OperatorName kUnary[] = { { "-", "neg" }, { "+", "pos" }, { "~", "invert" } };
const OperatorName kInplace[] = { { "+=", "iadd" }, { "-=", "isub" }, { "*=", "imul" }, { "//=", "ifloordiv" },
    { "/=", "itruediv" }, { "%=", "imod" }, { "**=", "ipow" }, { "<<=", "ilshift" }, { ">>=", "irshift" },
    { "&=", "iand" }, { "|=", "ior" }, { "^=", "ixor" }, { "@=", "imatmul" } };

template <size_t N> std::string lookup(const OperatorName (&table)[N], std::string_view key, bool bySymbol)
{
    for (const auto& entry : table) {
        if (key == (bySymbol ? entry.symbol : entry.name))
            return bySymbol ? entry.name : entry.symbol;
    }
    return {};
}

bool isOperatorNode(const Expr& e)
{
    return e.kind == Expr::Kind::Binary || e.kind == Expr::Kind::Unary;
}

} // namespace

std::string exprText(const Expr& e)
{
    auto operand = [](const Expr& k) { return isOperatorNode(k) ? "(" + exprText(k) + ")" : exprText(k); };
    switch (e.kind) {
    case Expr::Kind::Name:
        return e.text;
    case Expr::Kind::Int:
        return std::to_string(e.u);
    case Expr::Kind::Float:
        return pyFloat(e.f);
    case Expr::Kind::Str:
        return pyQuote(e.text);
    case Expr::Kind::Attr:
        return operand(e.kids[0]) + "." + e.text;
    case Expr::Kind::Call: {
        if (e.kids[0].kind == Expr::Kind::Name && e.kids[0].text == "slice" && e.keywords.empty() && e.kids.size() >= 2
            && e.kids.size() <= 4) {
            // slice(stop) and slice(start, stop) as FX prints every slice: slice(start, stop, step).
            if (e.kids.size() == 2)
                return "slice(None, " + exprText(e.kids[1]) + ", None)";
            return "slice(" + exprText(e.kids[1]) + ", " + exprText(e.kids[2]) + ", "
                + (e.kids.size() == 4 ? exprText(e.kids[3]) : std::string("None")) + ")";
        }
        std::string s = operand(e.kids[0]) + "(";
        size_t positional = e.positionalCount();
        for (size_t i = 1; i < e.kids.size(); ++i) {
            if (i > 1)
                s += ", ";
            if (i > positional)
                s += e.keywords[i - 1 - positional] + "=";
            s += exprText(e.kids[i]);
        }
        return s + ")";
    }
    case Expr::Kind::Subscript:
        return operand(e.kids[0]) + "[" + exprText(e.kids[1]) + "]";
    case Expr::Kind::Tuple:
    case Expr::Kind::List: {
        bool tuple = e.kind == Expr::Kind::Tuple;
        std::string s = tuple ? "(" : "[";
        for (size_t i = 0; i < e.kids.size(); ++i) {
            if (i)
                s += ", ";
            s += exprText(e.kids[i]);
        }
        if (tuple && e.kids.size() == 1)
            s += ",";
        return s + (tuple ? ")" : "]");
    }
    case Expr::Kind::Set: {
        std::string s = "{";
        for (size_t i = 0; i < e.kids.size(); ++i)
            s += (i ? ", " : "") + exprText(e.kids[i]);
        return s + "}";
    }
    case Expr::Kind::Dict: {
        std::string s = "{";
        for (size_t i = 0; i + 1 < e.kids.size(); i += 2) {
            if (i)
                s += ", ";
            s += exprText(e.kids[i]) + ": " + exprText(e.kids[i + 1]);
        }
        return s + "}";
    }
    case Expr::Kind::Unary:
        return e.text + operand(e.kids[0]);
    case Expr::Kind::Binary:
        return operand(e.kids[0]) + " " + e.text + " " + operand(e.kids[1]);
    case Expr::Kind::Slice:
        return "slice(" + exprText(e.kids[0]) + ", " + exprText(e.kids[1]) + ", " + exprText(e.kids[2]) + ")";
    case Expr::Kind::Ellipsis:
        return "Ellipsis"; // as FX prints `...` (str(Ellipsis))
    }
    return {};
}

std::string pyQuote(std::string_view s, char quote)
{
    return pyStrRepr(s, quote);
}

std::string pyFloat(double v)
{
    return pyFloatRepr(v);
}

std::optional<std::string> dottedName(const Expr& e)
{
    if (e.kind == Expr::Kind::Name && !e.percent)
        return e.text;
    if (e.kind == Expr::Kind::Attr) {
        auto base = dottedName(e.kids[0]);
        if (base)
            return *base + "." + e.text;
    }
    return std::nullopt;
}

bool isIdentifier(std::string_view s)
{
    if (s.empty())
        return false;
    for (size_t i = 0; i < s.size(); ++i) {
        auto u = static_cast<unsigned char>(s[i]);
        bool alpha = (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || u == '_' || u >= 0x80;
        if (!alpha && !(i > 0 && u >= '0' && u <= '9'))
            return false;
    }
    return true;
}

std::string binaryOperatorName(std::string_view symbol)
{
    return lookup(kBinary, symbol, true);
}
std::string binaryOperatorSymbol(std::string_view name)
{
    return lookup(kBinary, name, false);
}
std::string unaryOperatorName(std::string_view symbol)
{
    return lookup(kUnary, symbol, true);
}
std::string unaryOperatorSymbol(std::string_view name)
{
    return lookup(kUnary, name, false);
}
std::string inplaceOperatorName(std::string_view symbol)
{
    return lookup(kInplace, symbol, true);
}
std::string inplaceOperatorSymbol(std::string_view name)
{
    return lookup(kInplace, name, false);
}

} // namespace engine::readers::detail
