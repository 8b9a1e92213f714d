#include "engine/core/text_codec.h"

#include <cstdio>

namespace engine {

void appendUtf8(std::string& out, uint32_t cp)
{
    if (cp < 0x80) {
        out += char(cp);
    } else if (cp < 0x800) {
        out += char(0xC0 | (cp >> 6));
        out += char(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += char(0xE0 | (cp >> 12));
        out += char(0x80 | ((cp >> 6) & 0x3F));
        out += char(0x80 | (cp & 0x3F));
    } else {
        out += char(0xF0 | ((cp >> 18) & 0x07));
        out += char(0x80 | ((cp >> 12) & 0x3F));
        out += char(0x80 | ((cp >> 6) & 0x3F));
        out += char(0x80 | (cp & 0x3F));
    }
}

int hexDigitValue(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

namespace {

void appendEscape(std::string& out, uint32_t cp)
{
    char buf[16];
    if (cp <= 0xFF)
        std::snprintf(buf, sizeof buf, "\\x%02x", unsigned(cp));
    else if (cp <= 0xFFFF)
        std::snprintf(buf, sizeof buf, "\\u%04x", unsigned(cp));
    else
        std::snprintf(buf, sizeof buf, "\\U%08x", unsigned(cp));
    out += buf;
}

} // namespace

/// Decodes one UTF-8 sequence at `i` (the reader checked the text; anything odd reads as one byte).
std::string cutText(std::string_view s, size_t max)
{
    if (s.size() <= max)
        return std::string(s);
    size_t end = max;
    // Back to the start of a UTF-8 sequence (at most 3 continuation bytes): never half a character.
    for (int k = 0; k < 3 && end > 0 && (static_cast<unsigned char>(s[end]) & 0xC0) == 0x80; ++k)
        --end;
    return std::string(s.substr(0, end)) + "\u2026 (" + std::to_string(s.size()) + " chars)";
}

uint32_t nextCodePoint(std::string_view s, size_t& i)
{
    const auto b = static_cast<unsigned char>(s[i]);
    size_t n = b < 0x80 ? 1 : b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 1;
    if (i + n > s.size())
        n = 1;
    uint32_t cp = n == 1 ? b : n == 2 ? (b & 0x1F) : n == 3 ? (b & 0x0F) : (b & 0x07);
    for (size_t k = 1; k < n; ++k)
        cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
    i += n;
    return cp;
}

/// str.isprintable() for the code points code and compilers produce; an approximation of the
/// Unicode database outside Latin-1 (docs/marshal.md): separators, format characters, surrogates,
/// private use and noncharacters are escaped, everything else prints.
bool isPyPrintable(uint32_t cp)
{
    if (cp < 0x20 || (cp >= 0x7F && cp <= 0xA0) || cp == 0xAD)
        return false;
    if (cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200F) || (cp >= 0x2028 && cp <= 0x202F)
        || (cp >= 0x205F && cp <= 0x206F) || cp == 0x3000 || cp == 0xFEFF || cp == 0x061C || cp == 0x180E)
        return false;
    if ((cp >= 0xD800 && cp <= 0xF8FF) || (cp >= 0xFFF0 && cp <= 0xFFFB) || (cp & 0xFFFE) == 0xFFFE)
        return false;
    if (cp >= 0xE0000 || cp > 0x10FFFF)
        return false;
    return true;
}

void appendPyQuoted(std::string& out, std::string_view s, bool bytes, size_t limit, char quote)
{
    if (quote == 0)
        quote = s.find('\'') != std::string_view::npos && s.find('"') == std::string_view::npos ? '"' : '\'';
    out += quote;
    for (size_t i = 0; i < s.size() && out.size() <= limit;) {
        const size_t start = i;
        const uint32_t cp = bytes ? static_cast<unsigned char>(s[i++]) : nextCodePoint(s, i);
        if (cp == uint32_t(quote) || cp == '\\') {
            out += '\\';
            out += char(cp);
        } else if (cp == '\t') {
            out += "\\t";
        } else if (cp == '\n') {
            out += "\\n";
        } else if (cp == '\r') {
            out += "\\r";
        } else if (bytes ? (cp < 0x20 || cp >= 0x7F) : !isPyPrintable(cp)) {
            appendEscape(out, cp);
        } else {
            out.append(s.substr(start, i - start));
        }
    }
    out += quote;
}

} // namespace engine
