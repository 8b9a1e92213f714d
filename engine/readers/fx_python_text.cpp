// Canonical Python text of expressions and constants, and FX's operator sugar.
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
        return "...";
    }
    return {};
}

std::string pyQuote(std::string_view s, char quote)
{
    if (quote == 0)
        quote = s.find('\'') != std::string_view::npos && s.find('"') == std::string_view::npos ? '"' : '\'';
    std::string out(1, quote);
    for (char c : s) {
        auto u = static_cast<unsigned char>(c);
        if (c == '\\' || c == quote) {
            out += '\\';
            out += c;
        } else if (c == '\n') {
            out += "\\n";
        } else if (c == '\r') {
            out += "\\r";
        } else if (c == '\t') {
            out += "\\t";
        } else if (u < 0x20 || u == 0x7F) {
            char hex[8];
            std::snprintf(hex, sizeof hex, "\\x%02x", u);
            out += hex;
        } else {
            out += c;
        }
    }
    out += quote;
    return out;
}

std::string pyFloat(double v)
{
    if (std::isnan(v))
        return "nan";
    if (std::isinf(v))
        return v < 0 ? "-inf" : "inf";
    // Shortest round-trip digits, laid out as Python's repr() does: positional for exponents in
    // [-4, 16), scientific with a two-digit exponent otherwise.
    char buf[64];
    auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
    std::string sci(buf, r.ptr);
    const size_t e = sci.find('e');
    const bool negative = sci[0] == '-';
    std::string digits;
    for (size_t i = negative ? 1 : 0; i < e; ++i)
        if (sci[i] != '.')
            digits += sci[i];
    const int exponent = std::atoi(sci.c_str() + e + 1);
    std::string out = negative ? "-" : "";
    if (exponent >= -4 && exponent < 16) {
        if (exponent < 0) {
            out += "0." + std::string(size_t(-exponent - 1), '0') + digits;
        } else if (size_t(exponent) + 1 >= digits.size()) {
            out += digits + std::string(size_t(exponent) + 1 - digits.size(), '0') + ".0";
        } else {
            out += digits.substr(0, size_t(exponent) + 1) + "." + digits.substr(size_t(exponent) + 1);
        }
        return out;
    }
    out += digits.substr(0, 1);
    if (digits.size() > 1)
        out += "." + digits.substr(1);
    char exp[16];
    std::snprintf(exp, sizeof exp, "e%c%02d", exponent < 0 ? '-' : '+', exponent < 0 ? -exponent : exponent);
    return out + exp;
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
