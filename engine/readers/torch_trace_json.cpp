// Reading the JSON of TORCH_TRACE records without ever throwing, and the Python reprs some records
// carry (torch_trace_json.h).
#include "engine/readers/torch_trace_json.h"

#include <algorithm>
#include <climits>
#include <cstdint>

namespace engine::readers::trace::detail {

namespace {

constexpr int kMaxJsonDepth = 256;

} // namespace

bool isDigit(char c)
{
    return c >= '0' && c <= '9';
}

// The deepest nesting of [ and { outside strings; JSON deeper than kMaxJsonDepth is refused before
// it is parsed (the parser and printer recurse).
bool jsonDepthOk(std::string_view s)
{
    int depth = 0;
    bool inString = false;
    for (size_t i = 0; i < s.size(); ++i) {
        const char c = s[i];
        if (inString) {
            if (c == '\\')
                ++i;
            else if (c == '"')
                inString = false;
        } else if (c == '"') {
            inString = true;
        } else if (c == '[' || c == '{') {
            if (++depth > kMaxJsonDepth)
                return false;
        } else if (c == ']' || c == '}') {
            --depth;
        }
    }
    return true;
}

// JSON text parsed without exceptions; discarded (is_discarded()) when it is not JSON or too deep.
json parseJson(std::string_view s)
{
    if (!jsonDepthOk(s))
        return json(json::value_t::discarded);
    try {
        return json::parse(s.begin(), s.end(), nullptr, false);
    } catch (const std::exception&) {
        return json(json::value_t::discarded);
    }
}

// ---- typed access to a JSON object that never throws ----

std::optional<int64_t> intOf(const json& j)
{
    if (j.is_number_integer())
        return j.get<int64_t>();
    if (j.is_number_unsigned()) {
        const uint64_t u = j.get<uint64_t>();
        if (u <= uint64_t(INT64_MAX))
            return int64_t(u);
        return std::nullopt;
    }
    if (j.is_string()) { // create_symbol's "val" is printed as a string ("2")
        const std::string& s = j.get_ref<const std::string&>();
        if (s.empty() || s.size() > 18)
            return std::nullopt;
        size_t i = s[0] == '-' ? 1 : 0;
        if (i == s.size())
            return std::nullopt;
        int64_t v = 0;
        for (; i < s.size(); ++i) {
            if (!isDigit(s[i]))
                return std::nullopt;
            v = v * 10 + (s[i] - '0');
        }
        return s[0] == '-' ? -v : v;
    }
    return std::nullopt;
}

const json* member(const json& o, const char* key)
{
    if (!o.is_object())
        return nullptr;
    auto it = o.find(key);
    return it == o.end() ? nullptr : &*it;
}

std::optional<int64_t> intAt(const json& o, const char* key)
{
    const json* j = member(o, key);
    return j ? intOf(*j) : std::nullopt;
}

std::string strAt(const json& o, const char* key)
{
    const json* j = member(o, key);
    return j && j->is_string() ? j->get<std::string>() : std::string();
}

bool boolAt(const json& o, const char* key)
{
    const json* j = member(o, key);
    return j && j->is_boolean() && j->get<bool>();
}

std::optional<double> numberAt(const json& o, const char* key)
{
    const json* j = member(o, key);
    if (j && j->is_number())
        return j->get<double>();
    return std::nullopt;
}

std::string textOf(const json& j)
{
    if (j.is_string())
        return j.get<std::string>();
    return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

// textOf cut to `cap` bytes with "..." appended when longer. An array or object is written one member
// at a time (the same text as dump(), which puts no spaces between members) and stops once past the
// cap, so a long list is never serialized whole only to be cut.
std::string textOfCapped(const json& j, uint64_t cap)
{
    std::string text;
    if (j.is_array() || j.is_object()) {
        const bool object = j.is_object();
        text += object ? '{' : '[';
        bool firstMember = true;
        for (auto it = j.begin(); it != j.end() && text.size() <= cap; ++it) {
            if (!firstMember)
                text += ',';
            firstMember = false;
            if (object) {
                text += json(it.key()).dump(-1, ' ', false, json::error_handler_t::replace);
                text += ':';
            }
            text += it->dump(-1, ' ', false, json::error_handler_t::replace);
        }
        if (text.size() <= cap)
            text += object ? '}' : ']';
    } else {
        text = textOf(j);
    }
    if (text.size() > cap) {
        text.resize(size_t(cap));
        text += "...";
        text.shrink_to_fit();
    }
    return text;
}

int clampInt(int64_t v)
{
    return v < INT32_MIN ? INT32_MIN : v > INT32_MAX ? INT32_MAX : int(v);
}

// "device(type='cuda', index=0)" -> "cuda:0", "device(type='cpu')" -> "cpu"; anything else as is.
std::string deviceText(const std::string& d)
{
    const std::string open = "device(type='";
    if (d.compare(0, open.size(), open) != 0)
        return d;
    const size_t q = d.find('\'', open.size());
    if (q == std::string::npos)
        return d;
    std::string out = d.substr(open.size(), q - open.size());
    const size_t idx = d.find("index=", q);
    if (idx != std::string::npos) {
        size_t e = idx + 6;
        std::string n;
        while (e < d.size() && isDigit(d[e]))
            n += d[e++];
        if (!n.empty())
            out += ":" + n;
    }
    return out;
}

// A size or stride list: the integers when all are, and the list as Python prints it.
void readDims(const json* j, std::vector<int64_t>& dims, std::string* text)
{
    dims.clear();
    if (!j || !j->is_array()) {
        if (text && j)
            *text = textOf(*j);
        return;
    }
    bool allInts = true;
    std::string t = "[";
    for (const json& e : *j) {
        if (t.size() > 1)
            t += ", ";
        const auto v = e.is_string() ? std::nullopt : intOf(e);
        if (v) {
            dims.push_back(*v);
            t += std::to_string(*v);
        } else {
            allInts = false;
            t += textOf(e);
        }
    }
    t += "]";
    if (!allInts)
        dims.clear();
    if (text)
        *text = t;
}

// static_input_indices=[0, 2, 3] in the Python repr of ViewAndMutationMeta (may span lines).
std::vector<int> staticInputIndices(const std::string& text)
{
    std::vector<int> out;
    const std::string key = "static_input_indices=[";
    const size_t at = text.find(key);
    if (at == std::string::npos)
        return out;
    int64_t v = 0;
    bool inNumber = false;
    for (size_t i = at + key.size(); i < text.size(); ++i) {
        const char c = text[i];
        if (isDigit(c)) {
            v = std::min<int64_t>(v * 10 + (c - '0'), INT32_MAX);
            inNumber = true;
            continue;
        }
        if (inNumber)
            out.push_back(int(v));
        inNumber = false;
        v = 0;
        if (c == ']')
            break;
        if (c != ',' && c != ' ' && c != '\n' && c != '\t' && c != '\r')
            break; // not a plain list of integers
    }
    return out;
}

// recompile_reasons: a JSON list of strings (trace_structured prints a list one item a line); a single
// reason is logged as its bare text.
std::vector<std::string> recompileReasons(const std::string& text)
{
    std::vector<std::string> out;
    const json j = parseJson(text);
    if (!j.is_discarded() && j.is_array()) {
        for (const json& e : j)
            out.push_back(textOf(e));
        return out;
    }
    if (!j.is_discarded() && j.is_string())
        return { j.get<std::string>() };
    size_t p = 0;
    while (p <= text.size()) {
        size_t e = text.find('\n', p);
        if (e == std::string::npos)
            e = text.size();
        if (e > p)
            out.push_back(text.substr(p, e - p));
        p = e + 1;
    }
    return out;
}

} // namespace engine::readers::trace::detail
