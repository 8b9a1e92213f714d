#include "engine/core/py_value.h"

#include "engine/core/text_codec.h"

#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <system_error>

namespace engine {

PyValue PyValue::boolean(bool v)
{
    PyValue p;
    p.kind = Kind::Bool;
    p.b = v;
    return p;
}

PyValue PyValue::integer(int64_t v)
{
    PyValue p;
    p.kind = Kind::Int;
    p.i = v;
    return p;
}

PyValue PyValue::real(double v)
{
    PyValue p;
    p.kind = Kind::Float;
    p.f = v;
    return p;
}

PyValue PyValue::str(std::string v)
{
    PyValue p;
    p.kind = Kind::Str;
    p.s = std::move(v);
    return p;
}

PyValue PyValue::list(std::vector<PyValue> v)
{
    PyValue p;
    p.kind = Kind::List;
    p.items = std::move(v);
    return p;
}

PyValue PyValue::tuple(std::vector<PyValue> v)
{
    PyValue p;
    p.kind = Kind::Tuple;
    p.items = std::move(v);
    return p;
}

namespace {

bool isNumeric(const PyValue& v)
{
    return v.kind == PyValue::Kind::Bool || v.kind == PyValue::Kind::Int || v.kind == PyValue::Kind::Float;
}

} // namespace

std::string PyValue::repr() const
{
    switch (kind) {
    case Kind::None:
        return "None";
    case Kind::Bool:
        return b ? "True" : "False";
    case Kind::Int:
        return std::to_string(i);
    case Kind::Float:
        return pyFloatRepr(f);
    case Kind::Str:
        return pyStrRepr(s);
    case Kind::List:
    case Kind::Tuple: {
        std::string out = kind == Kind::List ? "[" : "(";
        for (size_t k = 0; k < items.size(); ++k)
            out += (k ? ", " : "") + items[k].repr();
        if (kind == Kind::Tuple && items.size() == 1)
            out += ",";
        return out + (kind == Kind::List ? "]" : ")");
    }
    }
    return "None";
}

std::string PyValue::typeName() const
{
    switch (kind) {
    case Kind::None:
        return "NoneType";
    case Kind::Bool:
        return "bool";
    case Kind::Int:
        return "int";
    case Kind::Float:
        return "float";
    case Kind::Str:
        return "str";
    case Kind::List:
        return "list";
    case Kind::Tuple:
        return "tuple";
    }
    return "NoneType";
}

std::string PyValue::typeRepr() const
{
    return "<class '" + typeName() + "'>";
}

std::string PyValue::str() const
{
    return kind == Kind::Str ? s : repr();
}

bool PyValue::pyEquals(const PyValue& other) const
{
    if (isNumeric(*this) && isNumeric(other)) {
        if (kind == Kind::Float || other.kind == Kind::Float) {
            const PyValue& fl = kind == Kind::Float ? *this : other;
            const PyValue& rest = kind == Kind::Float ? other : *this;
            if (rest.kind == Kind::Float)
                return fl.f == rest.f;
            const int64_t n = rest.kind == Kind::Bool ? int64_t(rest.b) : rest.i;
            // Python compares int and float exactly; going through double would call 2**53+1 == 2.0**53 equal.
            if (!std::isfinite(fl.f) || std::trunc(fl.f) != fl.f || std::fabs(fl.f) >= 9.2e18)
                return false;
            return static_cast<int64_t>(fl.f) == n;
        }
        const int64_t a = kind == Kind::Bool ? int64_t(b) : i;
        const int64_t c = other.kind == Kind::Bool ? int64_t(other.b) : other.i;
        return a == c;
    }
    if (kind != other.kind)
        return false;
    switch (kind) {
    case Kind::None:
        return true;
    case Kind::Str:
        return s == other.s;
    case Kind::List:
    case Kind::Tuple:
        if (items.size() != other.items.size())
            return false;
        for (size_t k = 0; k < items.size(); ++k) {
            if (!items[k].pyEquals(other.items[k]))
                return false;
        }
        return true;
    default:
        return false;
    }
}

bool PyValue::truthy() const
{
    switch (kind) {
    case Kind::None:
        return false;
    case Kind::Bool:
        return b;
    case Kind::Int:
        return i != 0;
    case Kind::Float:
        return f != 0.0; // NaN is truthy in Python, and NaN != 0.0 holds
    case Kind::Str:
        return !s.empty();
    case Kind::List:
    case Kind::Tuple:
        return !items.empty();
    }
    return false;
}

namespace {

/// Recursive-descent reader for the literal grammar of `--set`. Inside brackets a bare word ends at
/// whitespace, ',' or a bracket; at top level it runs to the end, so `--set dump_path=/tmp/my dir` works.
class LiteralParser {
public:
    explicit LiteralParser(const std::string& text)
        : m_text(text)
    {
    }

    Result<PyValue> parseTopLevel()
    {
        skipSpace();
        if (atEnd())
            return PyValue::str("");
        const char c = m_text[m_pos];
        if (c != '[' && c != '(' && c != '\'' && c != '"')
            return scalar(trim(m_text.substr(m_pos)));
        Result<PyValue> value = parseValue();
        if (!value)
            return value;
        skipSpace();
        if (!atEnd())
            return fail("unexpected text after the value");
        return value;
    }

private:
    Result<PyValue> parseValue()
    {
        skipSpace();
        if (atEnd())
            return fail("expected a value");
        const char c = m_text[m_pos];
        if (c == '[' || c == '(')
            return parseSequence(c == '[' ? ']' : ')');
        if (c == '\'' || c == '"')
            return parseQuoted(c);
        const size_t start = m_pos;
        while (!atEnd() && std::string_view(",[]() \t\r\n").find(m_text[m_pos]) == std::string_view::npos)
            ++m_pos;
        const std::string word = trim(m_text.substr(start, m_pos - start));
        if (word.empty())
            return fail("expected a value");
        return scalar(word);
    }

    Result<PyValue> parseSequence(char close)
    {
        ++m_pos; // the opening bracket
        std::vector<PyValue> items;
        bool trailingComma = false;
        for (;;) {
            skipSpace();
            if (atEnd())
                return fail(std::string("missing '") + close + "'");
            if (m_text[m_pos] == close) {
                ++m_pos;
                break;
            }
            Result<PyValue> item = parseValue();
            if (!item)
                return item;
            items.push_back(std::move(item.value()));
            skipSpace();
            trailingComma = false;
            if (!atEnd() && m_text[m_pos] == ',') {
                ++m_pos;
                trailingComma = true;
            } else if (atEnd() || m_text[m_pos] != close) {
                return fail(std::string("expected ',' or '") + close + "'");
            }
        }
        if (close == ']')
            return PyValue::list(std::move(items));
        // As in Python, "(x)" is just x; a tuple of one needs the comma: "(x,)".
        if (items.size() == 1 && !trailingComma)
            return std::move(items[0]);
        return PyValue::tuple(std::move(items));
    }

    Result<PyValue> parseQuoted(char quote)
    {
        ++m_pos;
        std::string out;
        while (!atEnd() && m_text[m_pos] != quote) {
            char c = m_text[m_pos++];
            if (c == '\\' && !atEnd()) {
                const char e = m_text[m_pos++];
                switch (e) {
                case 'n':
                    out += '\n';
                    break;
                case 't':
                    out += '\t';
                    break;
                case 'r':
                    out += '\r';
                    break;
                case '\\':
                case '\'':
                case '"':
                    out += e;
                    break;
                default: // Python keeps unknown escapes verbatim
                    out += '\\';
                    out += e;
                }
                continue;
            }
            out += c;
        }
        if (atEnd())
            return fail("unterminated string");
        ++m_pos;
        return PyValue::str(std::move(out));
    }

    Result<PyValue> scalar(const std::string& word)
    {
        if (word == "True" || word == "true")
            return PyValue::boolean(true);
        if (word == "False" || word == "false")
            return PyValue::boolean(false);
        if (word == "None" || word == "null")
            return PyValue::none();
        if (!looksNumeric(word))
            return PyValue::str(word);
        if (word.find_first_of(".eE") == std::string::npos) {
            errno = 0;
            char* end = nullptr;
            const long long v = std::strtoll(word.c_str(), &end, 10);
            if (errno == ERANGE)
                return fail("integer " + word + " does not fit in 64 bits");
            return PyValue::integer(static_cast<int64_t>(v));
        }
        return PyValue::real(std::strtod(word.c_str(), nullptr));
    }

    /// [+-]? (digits [. digits?] | . digits) ([eE] [+-]? digits)?  — Python's numeric literal shapes.
    static bool looksNumeric(const std::string& w)
    {
        size_t k = 0;
        if (k < w.size() && (w[k] == '+' || w[k] == '-'))
            ++k;
        size_t intDigits = 0, fracDigits = 0;
        while (k < w.size() && std::isdigit(static_cast<unsigned char>(w[k])))
            ++k, ++intDigits;
        if (k < w.size() && w[k] == '.') {
            ++k;
            while (k < w.size() && std::isdigit(static_cast<unsigned char>(w[k])))
                ++k, ++fracDigits;
        }
        if (intDigits + fracDigits == 0)
            return false;
        if (k < w.size() && (w[k] == 'e' || w[k] == 'E')) {
            ++k;
            if (k < w.size() && (w[k] == '+' || w[k] == '-'))
                ++k;
            size_t expDigits = 0;
            while (k < w.size() && std::isdigit(static_cast<unsigned char>(w[k])))
                ++k, ++expDigits;
            if (expDigits == 0)
                return false;
        }
        return k == w.size();
    }

    static std::string trim(const std::string& s)
    {
        size_t a = 0, b = s.size();
        while (a < b && std::isspace(static_cast<unsigned char>(s[a])))
            ++a;
        while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1])))
            --b;
        return s.substr(a, b - a);
    }

    void skipSpace()
    {
        while (!atEnd() && std::isspace(static_cast<unsigned char>(m_text[m_pos])))
            ++m_pos;
    }
    bool atEnd() const { return m_pos >= m_text.size(); }
    Error fail(const std::string& what) const
    {
        return makeError(ErrorCode::ParseError, what + " at offset " + std::to_string(m_pos) + " in '" + m_text + "'");
    }

    const std::string& m_text;
    size_t m_pos = 0;
};

} // namespace

Result<PyValue> parsePyLiteral(const std::string& text)
{
    return LiteralParser(text).parseTopLevel();
}

std::string pyStrRepr(std::string_view s, char quote)
{
    std::string out;
    appendPyQuoted(out, s, false, SIZE_MAX, quote);
    return out;
}

std::string pyStrList(const std::vector<std::string>& items)
{
    std::string s = "[";
    for (size_t i = 0; i < items.size(); ++i)
        s += (i ? ", " : "") + pyStrRepr(items[i]);
    return s + "]";
}

std::string pyFloatRepr(double v)
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

namespace {

bool equalsNoCase(std::string_view a, std::string_view lower)
{
    if (a.size() != lower.size())
        return false;
    for (size_t i = 0; i < a.size(); ++i)
        if (char(std::tolower(static_cast<unsigned char>(a[i]))) != lower[i])
            return false;
    return true;
}

} // namespace

/// PyOS_string_to_double as marshal's TYPE_FLOAT uses it: [sign] decimal or exponent form, inf,
/// infinity, nan; out-of-range values become inf or 0 (no exception, as marshal passes NULL).
bool parsePyFloat(std::string_view s, double& out)
{
    bool negative = false;
    if (!s.empty() && (s.front() == '+' || s.front() == '-')) {
        negative = s.front() == '-';
        s.remove_prefix(1);
    }
    if (equalsNoCase(s, "inf") || equalsNoCase(s, "infinity")) {
        out = negative ? -HUGE_VAL : HUGE_VAL;
        return true;
    }
    if (equalsNoCase(s, "nan")) {
        out = std::copysign(NAN, negative ? -1.0 : 1.0);
        return true;
    }
    // Only digits, one '.', and an exponent: from_chars would take "infinity" forms and hex too.
    size_t i = 0, digits = 0;
    int firstNonZero = -1, intDigits = 0;
    bool dot = false;
    for (; i < s.size(); ++i) {
        const char c = s[i];
        if (c >= '0' && c <= '9') {
            if (c != '0' && firstNonZero < 0)
                firstNonZero = int(digits);
            ++digits;
            if (!dot)
                ++intDigits;
        } else if (c == '.' && !dot) {
            dot = true;
        } else {
            break;
        }
    }
    if (digits == 0)
        return false;
    long exponent = 0;
    if (i < s.size()) {
        if (s[i] != 'e' && s[i] != 'E')
            return false;
        size_t j = i + 1;
        bool expNegative = false;
        if (j < s.size() && (s[j] == '+' || s[j] == '-'))
            expNegative = s[j++] == '-';
        if (j == s.size())
            return false;
        for (; j < s.size(); ++j) {
            if (s[j] < '0' || s[j] > '9')
                return false;
            exponent = std::min(exponent * 10 + (s[j] - '0'), 100000L);
        }
        if (expNegative)
            exponent = -exponent;
    }
    double v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec == std::errc::result_out_of_range) {
        // The decimal exponent of the first significant digit says overflow or underflow.
        const long e10 = firstNonZero < 0 ? -1 : long(intDigits) - long(firstNonZero) + exponent;
        v = e10 > 0 ? HUGE_VAL : 0.0;
    } else if (ec != std::errc() || end != s.data() + s.size()) {
        return false;
    }
    out = negative ? -v : v;
    return true;
}

} // namespace engine
