#include "engine/pickle/pickle_text.h"

#include <algorithm>
#include <cstring>
#include <vector>

namespace engine::pickle::detail {

namespace {

/// Magnitude as 32-bit limbs, least significant first, no leading zero limbs.
using Limbs = std::vector<uint32_t>;

void trim(Limbs& m)
{
    while (!m.empty() && m.back() == 0)
        m.pop_back();
}

} // namespace

bool isAscii(std::string_view s)
{
    size_t i = 0;
    for (; i + 8 <= s.size(); i += 8) {
        uint64_t w;
        std::memcpy(&w, s.data() + i, 8);
        if (w & 0x8080808080808080ull)
            return false;
    }
    for (; i < s.size(); ++i)
        if (static_cast<unsigned char>(s[i]) & 0x80)
            return false;
    return true;
}

bool isUtf8(std::string_view s)
{
    const auto* p = reinterpret_cast<const unsigned char*>(s.data());
    const size_t n = s.size();
    size_t i = 0;
    while (i < n) {
        // Runs of ASCII, 8 bytes at a time: memory snapshots are nearly all ASCII.
        while (i + 8 <= n) {
            uint64_t w;
            std::memcpy(&w, p + i, 8);
            if (w & 0x8080808080808080ull)
                break;
            i += 8;
        }
        if (i >= n)
            break;
        const unsigned char c = p[i];
        if (c < 0x80) {
            ++i;
            continue;
        }
        size_t len;
        unsigned char lo = 0x80, hi = 0xBF;
        if (c >= 0xC2 && c <= 0xDF) {
            len = 2;
        } else if (c >= 0xE0 && c <= 0xEF) {
            len = 3;
            if (c == 0xE0)
                lo = 0xA0; // no overlong forms; 0xED (surrogates) is allowed whole, as surrogatepass
        } else if (c >= 0xF0 && c <= 0xF4) {
            len = 4;
            if (c == 0xF0)
                lo = 0x90;
            if (c == 0xF4)
                hi = 0x8F;
        } else {
            return false;
        }
        if (n - i < len)
            return false;
        if (p[i + 1] < lo || p[i + 1] > hi)
            return false;
        for (size_t k = 2; k < len; ++k)
            if (p[i + k] < 0x80 || p[i + k] > 0xBF)
                return false;
        i += len;
    }
    return true;
}

bool decodeRawUnicodeEscape(std::string_view in, std::string& out, std::string& error)
{
    out.clear();
    out.reserve(in.size());
    size_t i = 0;
    while (i < in.size()) {
        const auto c = static_cast<unsigned char>(in[i]);
        if (c != '\\') {
            appendUtf8(out, c); // Latin-1
            ++i;
            continue;
        }
        // \u and \U are escapes only after an odd number of backslashes (CPython's rule).
        size_t run = 0;
        while (i < in.size() && in[i] == '\\') {
            ++run;
            ++i;
        }
        const bool escape = (run & 1) && i < in.size() && (in[i] == 'u' || in[i] == 'U');
        out.append(escape ? run - 1 : run, '\\');
        if (!escape)
            continue;
        const size_t digits = in[i] == 'u' ? 4 : 8;
        ++i;
        uint32_t cp = 0;
        for (size_t k = 0; k < digits; ++k, ++i) {
            const int h = i < in.size() ? hexDigitValue(in[i]) : -1;
            if (h < 0) {
                error = digits == 4 ? "truncated \\uXXXX escape" : "truncated \\UXXXXXXXX escape";
                return false;
            }
            cp = (cp << 4) | uint32_t(h);
        }
        if (cp > 0x10FFFF) {
            error = "\\Uxxxxxxxx out of range";
            return false;
        }
        appendUtf8(out, cp);
    }
    return true;
}

bool decodeStringEscape(std::string_view in, std::string& out, std::string& error)
{
    out.clear();
    out.reserve(in.size());
    for (size_t i = 0; i < in.size();) {
        const char c = in[i++];
        if (c != '\\') {
            out += c;
            continue;
        }
        if (i >= in.size()) {
            error = "trailing \\ in string";
            return false;
        }
        const char e = in[i++];
        switch (e) {
        case '\n':
            break;
        case '\\':
        case '\'':
        case '"':
            out += e;
            break;
        case 'b':
            out += '\b';
            break;
        case 'f':
            out += '\f';
            break;
        case 't':
            out += '\t';
            break;
        case 'n':
            out += '\n';
            break;
        case 'r':
            out += '\r';
            break;
        case 'v':
            out += '\v';
            break;
        case 'a':
            out += '\a';
            break;
        case 'x': {
            const int h1 = i < in.size() ? hexDigitValue(in[i]) : -1;
            const int h2 = i + 1 < in.size() ? hexDigitValue(in[i + 1]) : -1;
            if (h1 < 0 || h2 < 0) {
                error = "invalid \\x escape at position " + std::to_string(i - 2);
                return false;
            }
            out += char(h1 * 16 + h2);
            i += 2;
            break;
        }
        default:
            if (e >= '0' && e <= '7') {
                int v = e - '0';
                for (int k = 0; k < 2 && i < in.size() && in[i] >= '0' && in[i] <= '7'; ++k)
                    v = v * 8 + (in[i++] - '0');
                out += char(v & 0xFF);
            } else { // an unknown escape stays as written
                out += '\\';
                out += e;
            }
        }
    }
    return true;
}

bool twosComplementToInt64(std::string_view le, int64_t& value)
{
    const size_t n = le.size();
    if (n == 0) {
        value = 0;
        return true;
    }
    const auto* p = reinterpret_cast<const unsigned char*>(le.data());
    const bool negative = p[n - 1] & 0x80;
    uint64_t u = negative ? ~uint64_t(0) : 0;
    const size_t low = std::min<size_t>(n, 8);
    for (size_t k = 0; k < low; ++k) {
        u &= ~(uint64_t(0xFF) << (8 * k));
        u |= uint64_t(p[k]) << (8 * k);
    }
    // Longer encodings fit only when every further byte is sign extension of bit 63.
    if (n > 8) {
        const unsigned char fill = (u >> 63) ? 0xFF : 0x00;
        if (bool(u >> 63) != negative)
            return false;
        for (size_t k = 8; k < n; ++k)
            if (p[k] != fill)
                return false;
    }
    std::memcpy(&value, &u, sizeof value);
    return true;
}

std::string decimalToTwosComplement(std::string_view digits, bool negative)
{
    Limbs mag;
    size_t i = 0;
    // Nine digits at a time: mag = mag * 10^k + chunk.
    while (i < digits.size()) {
        const size_t k = std::min<size_t>(9, digits.size() - i);
        uint32_t chunk = 0, scale = 1;
        for (size_t j = 0; j < k; ++j) {
            chunk = chunk * 10 + uint32_t(digits[i + j] - '0');
            scale *= 10;
        }
        i += k;
        uint64_t carry = chunk;
        for (uint32_t& limb : mag) {
            const uint64_t t = uint64_t(limb) * scale + carry;
            limb = uint32_t(t);
            carry = t >> 32;
        }
        if (carry)
            mag.push_back(uint32_t(carry));
    }
    trim(mag);
    if (mag.empty())
        return {};
    std::string bytes;
    for (uint32_t limb : mag)
        for (int k = 0; k < 4; ++k)
            bytes += char((limb >> (8 * k)) & 0xFF);
    while (!bytes.empty() && bytes.back() == 0)
        bytes.pop_back();
    bytes += '\0'; // room for the sign bit
    if (negative) {
        unsigned carry = 1;
        for (char& b : bytes) {
            const unsigned v = (~static_cast<unsigned char>(b) & 0xFFu) + carry;
            b = char(v & 0xFF);
            carry = v >> 8;
        }
    }
    // Minimal form: drop a top byte that only repeats the sign of the one below.
    while (bytes.size() > 1) {
        const auto top = static_cast<unsigned char>(bytes.back());
        const auto below = static_cast<unsigned char>(bytes[bytes.size() - 2]);
        if ((top == 0x00 && !(below & 0x80)) || (top == 0xFF && (below & 0x80)))
            bytes.pop_back();
        else
            break;
    }
    return bytes;
}

std::string twosComplementToDecimal(std::string_view le, size_t maxDigits)
{
    if (le.empty())
        return "0";
    // A number of n significant bytes has at least (n - 1) * 8 * log10(2) digits: refuse early,
    // before the quadratic division.
    size_t significant = le.size();
    const bool negative = static_cast<unsigned char>(le.back()) & 0x80;
    const unsigned char fill = negative ? 0xFF : 0x00;
    while (significant > 1 && static_cast<unsigned char>(le[significant - 1]) == fill)
        --significant;
    if ((significant - 1) * 8 * 30103 / 100000 > maxDigits)
        return {};
    std::vector<unsigned char> bytes(le.begin(), le.begin() + std::ptrdiff_t(significant));
    if (negative) {
        bytes.push_back(0xFF); // the sign-extension byte that was trimmed
        unsigned carry = 1;
        for (unsigned char& b : bytes) {
            const unsigned v = (~b & 0xFFu) + carry;
            b = static_cast<unsigned char>(v & 0xFF);
            carry = v >> 8;
        }
    }
    Limbs mag((bytes.size() + 3) / 4, 0);
    for (size_t k = 0; k < bytes.size(); ++k)
        mag[k / 4] |= uint32_t(bytes[k]) << (8 * (k % 4));
    trim(mag);
    std::string digits; // least significant first
    while (!mag.empty()) {
        uint64_t rem = 0;
        for (size_t k = mag.size(); k-- > 0;) {
            const uint64_t cur = (rem << 32) | mag[k];
            mag[k] = uint32_t(cur / 1000000000u);
            rem = cur % 1000000000u;
        }
        trim(mag);
        for (int d = 0; d < 9 && (rem || !mag.empty()); ++d) {
            digits += char('0' + rem % 10);
            rem /= 10;
        }
        if (digits.size() > maxDigits)
            return {};
    }
    if (digits.empty())
        digits = "0";
    if (negative)
        digits += '-';
    std::reverse(digits.begin(), digits.end());
    return digits;
}

} // namespace engine::pickle::detail
