#pragma once
/// Bracket-aware splitting of one line of Python-like text (Inductor's generated code, FX's printed
/// code, PyTorch's operator schemas): where a bracket closes and where a list splits, with quoted
/// strings skipped. Never a full parser. Header-only.
#include <algorithm>
#include <cctype>
#include <string_view>
#include <vector>

namespace engine::bracket {

inline constexpr int kMaxNesting = 64; ///< brackets deep enough to stop looking

inline std::string_view trim(std::string_view s)
{
    size_t b = 0, e = s.size();
    while (b < e && std::isspace((unsigned char)s[b]))
        ++b;
    while (e > b && std::isspace((unsigned char)s[e - 1]))
        --e;
    return s.substr(b, e - b);
}

// Where the bracket opened at `open` closes (quotes skipped), npos when it does not.
inline size_t matching(std::string_view s, size_t open)
{
    int depth = 0;
    char quote = 0;
    for (size_t i = open; i < s.size(); ++i) {
        const char c = s[i];
        if (quote) {
            if (c == '\\')
                ++i;
            else if (c == quote)
                quote = 0;
            continue;
        }
        if (c == '\'' || c == '"')
            quote = c;
        else if (c == '(' || c == '[' || c == '{') {
            if (++depth > kMaxNesting)
                return std::string_view::npos;
        } else if (c == ')' || c == ']' || c == '}') {
            if (--depth == 0)
                return i;
        }
    }
    return std::string_view::npos;
}

// Splits at `sep` outside brackets and quotes; empty trailing parts (a tuple's last comma) dropped.
inline std::vector<std::string_view> splitTopLevel(std::string_view s, char sep = ',')
{
    std::vector<std::string_view> out;
    int depth = 0;
    char quote = 0;
    size_t start = 0;
    for (size_t i = 0; i < s.size(); ++i) {
        const char c = s[i];
        if (quote) {
            if (c == '\\')
                ++i;
            else if (c == quote)
                quote = 0;
            continue;
        }
        if (c == '\'' || c == '"')
            quote = c;
        else if (c == '(' || c == '[' || c == '{')
            ++depth;
        else if (c == ')' || c == ']' || c == '}')
            --depth;
        else if (c == sep && depth == 0) {
            out.push_back(trim(s.substr(start, i - start)));
            start = i + 1;
        }
    }
    std::string_view last = trim(s.substr(std::min(start, s.size())));
    if (!last.empty())
        out.push_back(last);
    return out;
}

} // namespace engine::bracket
