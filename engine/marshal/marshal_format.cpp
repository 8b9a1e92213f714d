// The marshal format's names and text helpers (marshal_format.h).
#include "engine/marshal/marshal_format.h"

#include "engine/core/text_codec.h"

#include <algorithm>

namespace engine::marshal::detail {

const char* typeName(uint8_t type)
{
    switch (type) {
    case '0':
        return "TYPE_NULL";
    case 'N':
        return "TYPE_NONE";
    case 'F':
        return "TYPE_FALSE";
    case 'T':
        return "TYPE_TRUE";
    case 'S':
        return "TYPE_STOPITER";
    case '.':
        return "TYPE_ELLIPSIS";
    case 'i':
        return "TYPE_INT";
    case 'I':
        return "TYPE_INT64";
    case 'f':
        return "TYPE_FLOAT";
    case 'g':
        return "TYPE_BINARY_FLOAT";
    case 'x':
        return "TYPE_COMPLEX";
    case 'y':
        return "TYPE_BINARY_COMPLEX";
    case 'l':
        return "TYPE_LONG";
    case 's':
        return "TYPE_STRING";
    case 't':
        return "TYPE_INTERNED";
    case 'r':
        return "TYPE_REF";
    case '(':
        return "TYPE_TUPLE";
    case '[':
        return "TYPE_LIST";
    case '{':
        return "TYPE_DICT";
    case 'c':
        return "TYPE_CODE";
    case 'u':
        return "TYPE_UNICODE";
    case '?':
        return "TYPE_UNKNOWN";
    case '<':
        return "TYPE_SET";
    case '>':
        return "TYPE_FROZENSET";
    case 'a':
        return "TYPE_ASCII";
    case 'A':
        return "TYPE_ASCII_INTERNED";
    case ')':
        return "TYPE_SMALL_TUPLE";
    case 'z':
        return "TYPE_SHORT_ASCII";
    case 'Z':
        return "TYPE_SHORT_ASCII_INTERNED";
    default:
        return nullptr;
    }
}

const char* kindName(Kind k)
{
    switch (k) {
    case Kind::Null:
        return "NULL";
    case Kind::None:
        return "None";
    case Kind::Bool:
        return "a bool";
    case Kind::StopIteration:
        return "StopIteration";
    case Kind::Ellipsis:
        return "Ellipsis";
    case Kind::Int:
    case Kind::BigInt:
        return "an int";
    case Kind::Float:
        return "a float";
    case Kind::Complex:
        return "a complex";
    case Kind::Str:
        return "a str";
    case Kind::Bytes:
        return "a bytes";
    case Kind::Tuple:
        return "a tuple";
    case Kind::List:
        return "a list";
    case Kind::Dict:
        return "a dict";
    case Kind::Set:
        return "a set";
    case Kind::FrozenSet:
        return "a frozenset";
    case Kind::Code:
        return "a code object";
    }
    return "a value";
}

size_t badUtf8Index(std::string_view s)
{
    size_t i = 0;
    while (i < s.size()) {
        const auto b = static_cast<unsigned char>(s[i]);
        if (b < 0x80) {
            ++i;
            continue;
        }
        size_t n;
        uint32_t cp;
        if (b >= 0xC2 && b <= 0xDF) {
            n = 2;
            cp = b & 0x1F;
        } else if (b >= 0xE0 && b <= 0xEF) {
            n = 3;
            cp = b & 0x0F;
        } else if (b >= 0xF0 && b <= 0xF4) {
            n = 4;
            cp = b & 0x07;
        } else {
            return i;
        }
        if (i + n > s.size())
            return i;
        for (size_t k = 1; k < n; ++k) {
            const auto c = static_cast<unsigned char>(s[i + k]);
            if ((c & 0xC0) != 0x80)
                return i;
            cp = (cp << 6) | (c & 0x3F);
        }
        if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
            return i;
        i += n;
    }
    return std::string_view::npos;
}

std::string latin1ToUtf8(std::string_view s)
{
    std::string out;
    out.reserve(s.size());
    for (char c : s)
        appendUtf8(out, static_cast<unsigned char>(c));
    return out;
}

std::string decimalOf(std::vector<uint16_t> digits)
{
    std::string out;
    while (!digits.empty()) {
        uint32_t rem = 0;
        for (size_t k = digits.size(); k-- > 0;) {
            const uint32_t cur = (rem << 15) | digits[k];
            digits[k] = uint16_t(cur / 10000);
            rem = cur % 10000;
        }
        while (!digits.empty() && digits.back() == 0)
            digits.pop_back();
        for (int k = 0; k < 4; ++k) {
            out += char('0' + rem % 10);
            rem /= 10;
            if (digits.empty() && rem == 0)
                break;
        }
    }
    if (out.empty())
        out = "0";
    std::reverse(out.begin(), out.end());
    return out;
}

} // namespace engine::marshal::detail
