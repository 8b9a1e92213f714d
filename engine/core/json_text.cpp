// appendJsonString (json_text.h).
#include "engine/core/json_text.h"

namespace engine {

void appendJsonString(std::string& out, std::string_view text)
{
    static const char* const hex = "0123456789abcdef";
    out.push_back('"');
    size_t i = 0;
    while (i < text.size()) {
        const unsigned char c = static_cast<unsigned char>(text[i]);
        if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
            const size_t start = i;
            while (i < text.size()) {
                const unsigned char d = static_cast<unsigned char>(text[i]);
                if (d < 0x20 || d >= 0x80 || d == '"' || d == '\\')
                    break;
                ++i;
            }
            out.append(text.data() + start, i - start);
            continue;
        }
        if (c < 0x80) {
            out.push_back('\\');
            switch (c) {
            case '"':
            case '\\':
                out.push_back(char(c));
                break;
            case '\b':
                out.push_back('b');
                break;
            case '\f':
                out.push_back('f');
                break;
            case '\n':
                out.push_back('n');
                break;
            case '\r':
                out.push_back('r');
                break;
            case '\t':
                out.push_back('t');
                break;
            default:
                out.append("u00");
                out.push_back(hex[c >> 4]);
                out.push_back(hex[c & 15]);
            }
            ++i;
            continue;
        }
        // A UTF-8 sequence: lead byte, then continuation bytes in the ranges RFC 3629 allows.
        size_t n = 0;
        unsigned char lo = 0x80, hi = 0xbf;
        if (c >= 0xc2 && c <= 0xdf)
            n = 1;
        else if (c >= 0xe0 && c <= 0xef) {
            n = 2;
            lo = c == 0xe0 ? 0xa0 : 0x80;
            hi = c == 0xed ? 0x9f : 0xbf;
        } else if (c >= 0xf0 && c <= 0xf4) {
            n = 3;
            lo = c == 0xf0 ? 0x90 : 0x80;
            hi = c == 0xf4 ? 0x8f : 0xbf;
        }
        size_t k = 0;
        while (n && k < n && i + 1 + k < text.size()) {
            const unsigned char d = static_cast<unsigned char>(text[i + 1 + k]);
            if (d < (k ? 0x80 : lo) || d > (k ? 0xbf : hi))
                break;
            ++k;
        }
        if (n && k == n) {
            out.append(text.data() + i, n + 1);
            i += n + 1;
        } else {
            out.append("\xef\xbf\xbd"); // U+FFFD for the invalid byte(s)
            i += 1 + k;
        }
    }
    out.push_back('"');
}

} // namespace engine
