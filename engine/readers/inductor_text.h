#pragma once
// Small text helpers shared by the readers of Inductor's Python files (inductor_code.cpp,
// fx_runnable.cpp): Python-ish splitting of one line, never a full parser. Internal to engine/readers.
#include "engine/core/bracket_text.h"
#include "engine/graph/graph.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace engine::readers::inductor::text {

using engine::bracket::kMaxNesting;
using engine::bracket::matching;
using engine::bracket::splitTopLevel;
using engine::bracket::trim;

inline bool startsWith(std::string_view s, std::string_view prefix)
{
    return s.size() >= prefix.size() && s.substr(0, prefix.size()) == prefix;
}

inline bool isIdentStart(char c)
{
    return std::isalpha((unsigned char)c) || c == '_';
}

inline bool isIdentChar(char c)
{
    return std::isalnum((unsigned char)c) || c == '_';
}

inline bool isIdentifier(std::string_view s)
{
    if (s.empty() || !isIdentStart(s[0]))
        return false;
    return std::all_of(s.begin(), s.end(), isIdentChar);
}

inline int indentOf(std::string_view line)
{
    int n = 0;
    for (char c : line) {
        if (c == ' ')
            ++n;
        else if (c == '\t')
            n += 8 - n % 8;
        else
            break;
    }
    return n;
}

// The text before a `#` that is outside quotes; `comment` gets what follows it.
inline std::string_view stripComment(std::string_view s, std::string_view* comment = nullptr)
{
    char quote = 0;
    for (size_t i = 0; i < s.size(); ++i) {
        const char c = s[i];
        if (quote) {
            if (c == '\\')
                ++i;
            else if (c == quote)
                quote = 0;
        } else if (c == '\'' || c == '"') {
            quote = c;
        } else if (c == '#') {
            if (comment)
                *comment = trim(s.substr(i + 1));
            return trim(s.substr(0, i));
        }
    }
    if (comment)
        *comment = {};
    return trim(s);
}

// `callee(inner)` spanning the whole text: fills both; false otherwise.
inline bool splitCall(std::string_view s, std::string_view& callee, std::string_view& inner)
{
    const size_t open = s.find('(');
    if (open == std::string_view::npos || open == 0)
        return false;
    const size_t close = matching(s, open);
    if (close != s.size() - 1)
        return false;
    callee = trim(s.substr(0, open));
    inner = s.substr(open + 1, close - open - 1);
    for (char c : callee)
        if (!isIdentChar(c) && c != '.')
            return false;
    return !callee.empty();
}

// `(1024, 256)` / `(256, )` / `[4, 4]` into sizes; unset when an item is not an expression.
inline std::optional<std::vector<SymExpr>> parseTuple(std::string_view s)
{
    s = trim(s);
    if (s.size() < 2 || !((s.front() == '(' && s.back() == ')') || (s.front() == '[' && s.back() == ']')))
        return std::nullopt;
    std::vector<SymExpr> out;
    for (std::string_view item : splitTopLevel(s.substr(1, s.size() - 2))) {
        auto e = SymExpr::parse(std::string(item));
        if (!e)
            return std::nullopt;
        out.push_back(std::move(e.value()));
    }
    return out;
}

inline std::optional<int64_t> parseInt(std::string_view s)
{
    s = trim(s);
    int64_t v = 0;
    auto r = std::from_chars(s.data(), s.data() + s.size(), v);
    if (r.ec != std::errc() || r.ptr != s.data() + s.size())
        return std::nullopt;
    return v;
}

// The value of `key=` among call arguments, empty when absent.
inline std::string_view keywordArg(const std::vector<std::string_view>& args, std::string_view key)
{
    for (std::string_view a : args) {
        const size_t eq = a.find('=');
        if (eq != std::string_view::npos && trim(a.substr(0, eq)) == key)
            return trim(a.substr(eq + 1));
    }
    return {};
}

inline std::string unquote(std::string_view s)
{
    s = trim(s);
    if (s.size() >= 2 && (s.front() == '\'' || s.front() == '"') && s.back() == s.front())
        return std::string(s.substr(1, s.size() - 2));
    return std::string(s);
}

// `[a, b, c]` (a list of names, as the comments print them) into its items.
inline std::vector<std::string> bracketList(std::string_view s)
{
    std::vector<std::string> out;
    const size_t open = s.find('[');
    if (open == std::string_view::npos)
        return out;
    const size_t close = s.find(']', open);
    if (close == std::string_view::npos)
        return out;
    std::string_view inner = s.substr(open + 1, close - open - 1);
    size_t start = 0;
    while (start <= inner.size()) {
        size_t comma = inner.find(',', start);
        if (comma == std::string_view::npos)
            comma = inner.size();
        out.emplace_back(trim(inner.substr(start, comma - start)));
        start = comma + 1;
    }
    if (out.size() == 1 && out[0].empty())
        out.clear();
    return out;
}

// "torch.float32" / "torch.int64" into a DType; Unknown otherwise.
inline DType dtypeOf(std::string_view s)
{
    s = trim(s);
    if (!startsWith(s, "torch."))
        return DType::Unknown;
    return parseDType(std::string(s));
}

// `device(type='cuda', index=0)` / `'cuda:0'` / `"cpu"` into "cuda:0" / "cpu"; empty when unknown.
inline std::string deviceOf(std::string_view s)
{
    s = trim(s);
    if (startsWith(s, "device(") && s.back() == ')') {
        const auto args = splitTopLevel(s.substr(7, s.size() - 8));
        std::string type = unquote(keywordArg(args, "type"));
        if (type.empty() && !args.empty() && args[0].find('=') == std::string_view::npos)
            type = unquote(args[0]);
        const std::string_view index = keywordArg(args, "index");
        if (type.empty())
            return {};
        return index.empty() || index == "None" ? type : type + ":" + std::string(index);
    }
    if (!s.empty() && (s.front() == '\'' || s.front() == '"'))
        return unquote(s);
    return {};
}

} // namespace engine::readers::inductor::text
