// Tokens and logical lines of the Python subset FX prints.
#include "engine/core/text_codec.h"
#include "engine/readers/fx_python.h"

#include <charconv>
#include <cstdio>
#include <limits>

namespace engine::readers::detail {

namespace {

// Byte classes, looked up in one table (the lexer asks for every byte of the text).
constexpr unsigned char kSpace = 1; ///< horizontal whitespace
constexpr unsigned char kNameStart = 2; ///< bytes >= 0x80 too, so that UTF-8 identifiers pass through unchanged
constexpr unsigned char kNameChar = 4;
struct ByteClasses {
    unsigned char of[256] = {};
    constexpr ByteClasses()
    {
        for (int u = 0; u < 256; ++u) {
            const bool start = (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || u == '_' || u >= 0x80;
            const bool space = u == ' ' || u == '\t' || u == '\r' || u == '\f' || u == '\v';
            of[u]
                = (space ? kSpace : 0) | (start ? kNameStart | kNameChar : 0) | (u >= '0' && u <= '9' ? kNameChar : 0);
        }
    }
};
constexpr ByteClasses kBytes;

bool isHorizontalSpace(char c)
{
    return kBytes.of[static_cast<unsigned char>(c)] & kSpace;
}

bool isNameStart(char c)
{
    return kBytes.of[static_cast<unsigned char>(c)] & kNameStart;
}

bool isNameChar(char c)
{
    return kBytes.of[static_cast<unsigned char>(c)] & kNameChar;
}

bool isDigit(char c)
{
    return c >= '0' && c <= '9';
}

size_t lineEnd(std::string_view text, size_t pos)
{
    size_t eol = text.find('\n', pos);
    return eol == std::string_view::npos ? text.size() : eol;
}

size_t trimRight(std::string_view text, size_t begin, size_t end)
{
    while (end > begin && isHorizontalSpace(text[end - 1]))
        --end;
    return end;
}

bool isStringPrefix(std::string_view name)
{
    if (name.empty() || name.size() > 2)
        return false;
    for (char c : name) {
        char l = char(c | 0x20);
        if (l != 'r' && l != 'b' && l != 'u' && l != 'f')
            return false;
    }
    return true;
}

constexpr const char* kOps3[] = { "**=", "//=", ">>=", "<<=", "..." };
constexpr const char* kOps2[] = { "**", "//", "<<", ">>", "<=", ">=", "==", "!=", "->",
    "+=", "-=", "*=", "/=", "%=", "@=", "&=", "|=", "^=", ":=" };
constexpr char kOps1[] = "+-*/%@&|^~<>()[]{},:.;=";

// Per byte: kOneChar if it is a one-character operator, kLonger if a longer operator starts with it,
// kSecond if it is the second character of a longer operator.
constexpr unsigned char kOneChar = 1;
constexpr unsigned char kLonger = 2;
constexpr unsigned char kSecond = 4;
struct OpTable {
    unsigned char kind[256] = {};
    constexpr OpTable()
    {
        for (const char* c = kOps1; *c; ++c)
            kind[static_cast<unsigned char>(*c)] |= kOneChar;
        for (const char* op : kOps2) {
            kind[static_cast<unsigned char>(op[0])] |= kLonger;
            kind[static_cast<unsigned char>(op[1])] |= kSecond;
        }
        for (const char* op : kOps3) {
            kind[static_cast<unsigned char>(op[0])] |= kLonger;
            kind[static_cast<unsigned char>(op[1])] |= kSecond;
        }
    }
};
constexpr OpTable kOpTable;

// Decodes the escapes of a non-raw string body; unknown escapes keep their backslash, as Python does.
std::string decodeEscapes(std::string_view body)
{
    std::string out;
    out.reserve(body.size());
    for (size_t i = 0; i < body.size(); ++i) {
        char c = body[i];
        if (c != '\\' || i + 1 >= body.size()) {
            out += c;
            continue;
        }
        char e = body[++i];
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
        case 'a':
            out += '\a';
            break;
        case 'b':
            out += '\b';
            break;
        case 'f':
            out += '\f';
            break;
        case 'v':
            out += '\v';
            break;
        case '\\':
        case '\'':
        case '"':
            out += e;
            break;
        case 'x':
        case 'u':
        case 'U': {
            size_t digits = e == 'x' ? 2 : e == 'u' ? 4 : 8;
            uint32_t cp = 0;
            size_t k = 0;
            for (; k < digits && i + 1 + k < body.size() && hexDigitValue(body[i + 1 + k]) >= 0; ++k)
                cp = cp * 16 + uint32_t(hexDigitValue(body[i + 1 + k]));
            if (k != digits || cp > 0x10FFFF) {
                out += '\\';
                out += e;
                break;
            }
            i += k;
            if (e == 'x')
                out += char(cp);
            else
                appendUtf8(out, cp);
            break;
        }
        default:
            if (e >= '0' && e <= '7') {
                uint32_t v = uint32_t(e - '0');
                for (int k = 0; k < 2 && i + 1 < body.size() && body[i + 1] >= '0' && body[i + 1] <= '7'; ++k)
                    v = v * 8 + uint32_t(body[++i] - '0');
                out += char(v & 0xFF);
            } else {
                out += '\\';
                out += e;
            }
        }
    }
    return out;
}

} // namespace

LineScanner::LineScanner(std::string_view text, bool percentNames)
    : m_text(text)
    , m_percentNames(percentNames)
{
}

void LineScanner::assignValue(std::string& value, std::string_view text)
{
    if (text.size() > value.capacity() && !m_spare.empty()) {
        value.swap(m_spare.back());
        m_spare.pop_back();
    }
    value.assign(text.data(), text.size());
}

bool LineScanner::next(LogicalLine& out)
{
    if (m_pos >= m_text.size())
        return false;
    // Strings and comments of one line are much like those of the next: keep their buffers.
    constexpr size_t kMaxSpare = 64;
    const size_t local = std::string().capacity();
    for (Token& t : out.tokens) {
        if (m_spare.size() >= kMaxSpare)
            break;
        if (t.value.capacity() > local)
            m_spare.push_back(std::move(t.value));
    }
    out.tokens.clear();
    out.problem.clear();
    out.problemOffset = 0;
    out.line = out.lastLine = m_line;
    out.lineStart = m_pos;
    size_t p = m_pos;
    while (p < m_text.size() && isHorizontalSpace(m_text[p]))
        ++p;
    out.indent = int(p - m_pos);
    auto finishPhysical = [&](LogicalLine::Kind kind, size_t begin) {
        const size_t eol = lineEnd(m_text, p);
        out.kind = kind;
        out.begin = begin;
        out.end = trimRight(m_text, begin, eol);
        m_pos = eol < m_text.size() ? eol + 1 : eol;
        ++m_line;
        return true;
    };
    if (p >= m_text.size() || m_text[p] == '\n')
        return finishPhysical(LogicalLine::Kind::Blank, m_pos);
    if (m_text[p] == '#') {
        finishPhysical(LogicalLine::Kind::Comment, p);
        Token t;
        t.kind = Token::Kind::Comment;
        t.offset = p;
        t.text = m_text.substr(p, out.end - p);
        size_t b = p + 1;
        while (b < out.end && isHorizontalSpace(m_text[b]))
            ++b;
        assignValue(t.value, m_text.substr(b, out.end - b));
        out.tokens.push_back(std::move(t));
        return true;
    }
    if (m_text[p] == 'c' && (m_text.compare(p, 6, "class ") == 0 || m_text.compare(p, 6, "class\t") == 0))
        return finishPhysical(LogicalLine::Kind::Class, p);
    out.kind = LogicalLine::Kind::Code;
    out.begin = p;
    scanCode(out);
    return true;
}

bool LineScanner::continuationAllowed(size_t nextLineStart, int indent) const
{
    size_t q = nextLineStart;
    while (q < m_text.size() && isHorizontalSpace(m_text[q]))
        ++q;
    if (q >= m_text.size())
        return true;
    char c = m_text[q];
    if (c == '\n' || c == '#' || c == ')' || c == ']' || c == '}')
        return true;
    return int(q - nextLineStart) > indent;
}

void LineScanner::scanCode(LogicalLine& out)
{
    const std::string_view text = m_text;
    size_t pos = out.begin;
    int line = m_line;
    int depth = 0;
    size_t firstOpen = 0;
    bool store = true;
    auto problem = [&](const std::string& message, size_t offset) {
        if (out.problem.empty()) {
            out.problem = message;
            out.problemOffset = offset;
        }
        store = false;
        out.tokens.clear();
    };
    auto push = [&](Token::Kind kind, size_t start, size_t end) -> Token* {
        if (!store)
            return nullptr;
        if (out.tokens.size() >= kMaxTokensPerLine) {
            problem("statement has more than " + std::to_string(kMaxTokensPerLine) + " tokens", out.begin);
            return nullptr;
        }
        Token& t = out.tokens.emplace_back();
        t.kind = kind;
        t.offset = start;
        t.text = text.substr(start, end - start);
        return &t;
    };
    while (true) {
        if (pos >= text.size()) {
            if (depth > 0)
                problem(
                    std::string("the text ends before the '") + text[firstOpen] + "' opened here is closed", firstOpen);
            out.end = trimRight(text, out.begin, pos);
            m_pos = pos;
            break;
        }
        if (store && pos - out.begin > kMaxLogicalLineBytes)
            problem("statement longer than " + std::to_string(kMaxLogicalLineBytes >> 20) + " MiB", out.begin);
        const char c = text[pos];
        if (c == '\n') {
            if (depth == 0 || !continuationAllowed(pos + 1, out.indent)) {
                if (depth > 0)
                    problem(std::string("'") + text[firstOpen] + "' is never closed", firstOpen);
                out.end = trimRight(text, out.begin, pos);
                m_pos = pos + 1;
                ++line;
                m_line = line;
                out.lastLine = line - 1;
                return;
            }
            ++line;
            ++pos;
            continue;
        }
        if (isHorizontalSpace(c)) {
            ++pos;
            continue;
        }
        if (c == '\\') {
            size_t q = pos + 1;
            while (q < text.size() && text[q] == '\r')
                ++q;
            if (q < text.size() && text[q] == '\n') {
                pos = q + 1;
                ++line;
                continue;
            }
            problem("unexpected '\\'", pos);
            ++pos;
            continue;
        }
        if (c == '#') {
            size_t eol = lineEnd(text, pos);
            if (Token* t = push(Token::Kind::Comment, pos, trimRight(text, pos, eol))) {
                size_t b = pos + 1;
                size_t e = trimRight(text, pos, eol);
                while (b < e && isHorizontalSpace(text[b]))
                    ++b;
                assignValue(t->value, text.substr(b, e - b));
            }
            pos = eol;
            continue;
        }
        if (c == '"' || c == '\'') {
            scanString(out, pos, store, c, pos);
            if (!out.problem.empty())
                store = false;
            continue;
        }
        if (isDigit(c) || (c == '.' && pos + 1 < text.size() && isDigit(text[pos + 1]))) {
            scanNumber(out, pos, store);
            if (!out.problem.empty())
                store = false;
            continue;
        }
        if (isNameStart(c) || (c == '%' && m_percentNames && pos + 1 < text.size() && isNameStart(text[pos + 1]))) {
            size_t start = pos;
            size_t nameStart = c == '%' ? pos + 1 : pos;
            size_t e = nameStart;
            while (e < text.size() && isNameChar(text[e]))
                ++e;
            std::string_view name = text.substr(nameStart, e - nameStart);
            if (c != '%' && e < text.size() && (text[e] == '\'' || text[e] == '"') && isStringPrefix(name)) {
                pos = e;
                scanString(out, pos, store, text[e], start);
                if (!out.problem.empty())
                    store = false;
                continue;
            }
            if (Token* t = push(Token::Kind::Name, start, e)) {
                t->text = name;
                t->percent = c == '%';
            }
            pos = e;
            continue;
        }
        // Longest operator first. Characters past the end read as '\0', which no operator contains.
        // (Compared by hand, and the longer operators only tried when kOpTable says the two characters
        // can start one: text.compare() against each operator string was a tenth of a read.)
        const char c1 = pos + 1 < text.size() ? text[pos + 1] : '\0';
        const char c2 = pos + 2 < text.size() ? text[pos + 2] : '\0';
        const unsigned char opKind = kOpTable.kind[static_cast<unsigned char>(c)];
        size_t len = 0;
        if ((opKind & kLonger) && (kOpTable.kind[static_cast<unsigned char>(c1)] & kSecond)) {
            for (const char* op : kOps3)
                if (c == op[0] && c1 == op[1] && c2 == op[2])
                    len = 3;
            if (!len)
                for (const char* op : kOps2)
                    if (c == op[0] && c1 == op[1])
                        len = 2;
        }
        if (!len && (opKind & kOneChar))
            len = 1;
        if (!len) {
            auto u = static_cast<unsigned char>(c);
            char hex[8];
            std::snprintf(hex, sizeof hex, "\\x%02x", u);
            problem(u >= 0x20 && u < 0x7F ? std::string("unexpected character '") + c + "'"
                                          : std::string("unexpected byte ") + hex,
                pos);
            ++pos;
            continue;
        }
        if (len == 1 && (c == '(' || c == '[' || c == '{')) {
            if (depth++ == 0)
                firstOpen = pos;
        } else if (len == 1 && (c == ')' || c == ']' || c == '}') && depth > 0) {
            --depth;
        }
        push(Token::Kind::Op, pos, pos + len);
        pos += len;
    }
    out.lastLine = line;
    m_line = line;
}

bool LineScanner::scanString(LogicalLine& out, size_t& pos, bool store, char quote, size_t start)
{
    const std::string_view text = m_text;
    bool raw = false;
    for (size_t k = start; k < pos; ++k)
        raw = raw || text[k] == 'r' || text[k] == 'R';
    if (pos + 2 < text.size() && text[pos + 1] == quote && text[pos + 2] == quote) { // text[pos] is the quote
        if (out.problem.empty()) {
            out.problem = "triple-quoted strings are not part of FX code";
            out.problemOffset = start;
        }
        out.tokens.clear();
        pos = lineEnd(text, pos);
        return false;
    }
    size_t q = pos + 1;
    while (q < text.size() && text[q] != quote && text[q] != '\n') {
        if (text[q] == '\\' && q + 1 < text.size() && text[q + 1] != '\n')
            ++q;
        ++q;
    }
    if (q >= text.size() || text[q] != quote) {
        if (out.problem.empty()) {
            out.problem = "string is not closed on its line";
            out.problemOffset = start;
        }
        out.tokens.clear();
        pos = q;
        return false;
    }
    if (store && out.problem.empty() && out.tokens.size() < kMaxTokensPerLine) {
        Token& t = out.tokens.emplace_back();
        t.kind = Token::Kind::String;
        t.offset = start;
        t.text = text.substr(start, q + 1 - start);
        std::string_view body = text.substr(pos + 1, q - pos - 1);
        if (raw || body.find('\\') == std::string_view::npos)
            assignValue(t.value, body);
        else
            t.value = decodeEscapes(body);
    }
    pos = q + 1;
    return true;
}

void LineScanner::scanNumber(LogicalLine& out, size_t& pos, bool store)
{
    const std::string_view text = m_text;
    const size_t start = pos;
    size_t e = pos;
    const char second = pos + 1 < text.size() ? char(text[pos + 1] | 0x20) : ' ';
    const bool prefixed = text[pos] == '0' && (second == 'x' || second == 'o' || second == 'b');
    while (e < text.size()) {
        char c = text[e];
        if (isNameChar(c) || c == '.') {
            ++e;
        } else if ((c == '+' || c == '-') && !prefixed && e > start && (text[e - 1] == 'e' || text[e - 1] == 'E')) {
            ++e;
        } else {
            break;
        }
    }
    pos = e;
    if (!prefixed && e - start <= 19) {
        // The usual case, a plain decimal integer that fits: no copy without '_', no from_chars.
        uint64_t v = 0;
        size_t k = start;
        for (; k < e && isDigit(text[k]); ++k)
            v = v * 10 + uint64_t(text[k] - '0');
        if (k == e) {
            if (store && out.problem.empty() && out.tokens.size() < kMaxTokensPerLine) {
                Token& t = out.tokens.emplace_back();
                t.kind = Token::Kind::Int;
                t.offset = start;
                t.text = text.substr(start, e - start);
                t.u = v;
            }
            return;
        }
    }
    std::string digits;
    for (size_t k = start; k < e; ++k)
        if (text[k] != '_')
            digits += text[k];
    Token t;
    t.offset = start;
    t.text = text.substr(start, e - start);
    bool ok = true;
    if (prefixed) {
        int base = (digits[1] | 0x20) == 'x' ? 16 : (digits[1] | 0x20) == 'o' ? 8 : 2;
        const char* b = digits.data() + 2;
        const char* end = digits.data() + digits.size();
        auto r = std::from_chars(b, end, t.u, base);
        ok = b != end && r.ec == std::errc() && r.ptr == end;
        t.kind = Token::Kind::Int;
    } else if (digits.find_first_of(".eE") == std::string::npos) {
        const char* end = digits.data() + digits.size();
        auto r = std::from_chars(digits.data(), end, t.u);
        ok = r.ptr == end && (r.ec == std::errc() || r.ec == std::errc::result_out_of_range);
        t.kind = Token::Kind::Int;
        if (ok && r.ec == std::errc::result_out_of_range) {
            // Python integers have no bound; one beyond 64 bits is kept as the nearest float.
            t.kind = Token::Kind::Float;
            auto rf = std::from_chars(digits.data(), end, t.f);
            ok = rf.ptr == end && (rf.ec == std::errc() || rf.ec == std::errc::result_out_of_range);
            if (rf.ec == std::errc::result_out_of_range)
                t.f = std::numeric_limits<double>::infinity();
        }
    } else {
        const char* end = digits.data() + digits.size();
        auto r = std::from_chars(digits.data(), end, t.f);
        ok = r.ptr == end && (r.ec == std::errc() || r.ec == std::errc::result_out_of_range);
        if (r.ec == std::errc::result_out_of_range) // from_chars leaves the value alone: too large or too small
            t.f = digits.find_first_of("eE") != std::string::npos && digits[digits.find_first_of("eE") + 1] == '-'
                ? 0.0
                : std::numeric_limits<double>::infinity();
        t.kind = Token::Kind::Float;
    }
    if (!ok) {
        if (out.problem.empty()) {
            out.problem = "invalid number '" + std::string(t.text.substr(0, 40)) + "'";
            out.problemOffset = start;
        }
        out.tokens.clear();
        return;
    }
    if (store && out.problem.empty() && out.tokens.size() < kMaxTokensPerLine)
        out.tokens.push_back(std::move(t));
}

Position locate(std::string_view text, int line, size_t lineStart, size_t offset)
{
    size_t start = lineStart;
    size_t stop = offset < text.size() ? offset : text.size();
    for (size_t i = lineStart; i < stop; ++i) {
        if (text[i] == '\n') {
            ++line;
            start = i + 1;
        }
    }
    return { line, int(offset >= start ? offset - start + 1 : 1) };
}

} // namespace engine::readers::detail
