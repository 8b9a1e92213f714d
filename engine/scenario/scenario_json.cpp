// JsonReader: typed access to scenario JSON that fails with the file name and JSON path.
#include "engine/scenario/scenario_json.h"

#include <algorithm>
#include <cctype>

namespace engine::scenario {

namespace detail {

void JsonReader::fail(ErrorCode code, const std::string& path, const std::string& message) const
{
    throw Failure { makeError(code, message, context(path)) };
}

void JsonReader::wrongType(const Json& v, const std::string& path, const std::string& what) const
{
    std::string got = v.type_name();
    if (v.is_number_float())
        got = "number " + v.dump();
    fail(ErrorCode::ParseError, path, "expected " + what + ", got " + got);
}

std::string JsonReader::key(const std::string& path, const std::string& name)
{
    bool identifier = !name.empty() && !std::isdigit(static_cast<unsigned char>(name[0]));
    for (char c : name)
        identifier = identifier && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
    return identifier ? path + "." + name : path + "[" + Json(name).dump() + "]";
}

const Json& JsonReader::object(const Json& v, const std::string& path) const
{
    if (!v.is_object())
        wrongType(v, path, "an object");
    return v;
}

const Json& JsonReader::array(const Json& v, const std::string& path) const
{
    if (!v.is_array())
        wrongType(v, path, "an array");
    return v;
}

void JsonReader::checkKeys(const Json& obj, const std::string& path, std::initializer_list<const char*> allowed) const
{
    for (const auto& [k, value] : obj.items()) {
        if (k.rfind('_', 0) == 0 || k == "comment" || k == "note")
            continue;
        if (std::any_of(allowed.begin(), allowed.end(), [&k = k](const char* a) { return k == a; }))
            continue;
        std::string list;
        for (const char* a : allowed)
            list += std::string(list.empty() ? "" : ", ") + a;
        fail(ErrorCode::ParseError, key(path, k), "unknown key '" + k + "' (expected one of: " + list + ")");
    }
}

const Json* JsonReader::find(const Json& obj, const char* name)
{
    auto it = obj.find(name);
    return it == obj.end() ? nullptr : &*it;
}

const Json& JsonReader::required(const Json& obj, const std::string& path, const char* name) const
{
    const Json* v = find(obj, name);
    if (!v)
        fail(ErrorCode::ParseError, path, std::string("missing required key '") + name + "'");
    return *v;
}

std::string JsonReader::string(const Json& v, const std::string& path) const
{
    if (!v.is_string())
        wrongType(v, path, "a string");
    return v.get<std::string>();
}

std::string JsonReader::nonEmptyString(const Json& v, const std::string& path) const
{
    std::string s = string(v, path);
    if (s.empty())
        fail(ErrorCode::InvalidArgument, path, "expected a non-empty string");
    return s;
}

bool JsonReader::boolean(const Json& v, const std::string& path) const
{
    if (!v.is_boolean())
        wrongType(v, path, "true or false");
    return v.get<bool>();
}

int64_t JsonReader::integer(const Json& v, const std::string& path) const
{
    if (v.is_number_integer() && !v.is_number_unsigned())
        return v.get<int64_t>();
    if (v.is_number_unsigned()) {
        if (v.get<uint64_t>() > uint64_t(INT64_MAX))
            fail(ErrorCode::InvalidArgument, path, "integer " + v.dump() + " is too large (maximum 2^63-1)");
        return int64_t(v.get<uint64_t>());
    }
    wrongType(v, path, "an integer");
}

int64_t JsonReader::integerAtLeast(const Json& v, const std::string& path, int64_t min) const
{
    int64_t i = integer(v, path);
    if (i < min)
        fail(ErrorCode::InvalidArgument, path,
            "expected an integer >= " + std::to_string(min) + ", got " + std::to_string(i));
    return i;
}

double JsonReader::number(const Json& v, const std::string& path) const
{
    if (!v.is_number())
        wrongType(v, path, "a number");
    return v.get<double>();
}

SymExpr JsonReader::size(const Json& v, const std::string& path, bool dynamic) const
{
    if (v.is_number_integer())
        return SymExpr::constant(integerAtLeast(v, path, 0));
    if (!v.is_string())
        wrongType(v, path, "an integer or a size expression string");
    auto e = SymExpr::parse(v.get<std::string>());
    if (!e)
        fail(ErrorCode::ParseError, path, e.error().message);
    auto symbols = e->symbols();
    if (!dynamic && !symbols.empty())
        fail(ErrorCode::InvalidArgument, path,
            "symbolic size '" + symbols.front() + "' in a graph compiled with dynamic=False");
    if (auto c = e->constantValue(); c && *c < 0)
        fail(ErrorCode::InvalidArgument, path, "size '" + e->text() + "' is negative");
    return e.value();
}

// "64GiB", "1.5 GB", "4096": KB/MB/GB/TB are decimal, KiB/MiB/GiB/TiB binary.
uint64_t byteSize(const JsonReader& r, const Json& v, const std::string& path)
{
    if (v.is_number_integer())
        return uint64_t(r.integerAtLeast(v, path, 1));
    std::string text = r.string(v, path);
    size_t i = 0;
    unsigned __int128 digits = 0;
    int fraction = -1;
    int count = 0;
    for (; i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.'); ++i) {
        if (text[i] == '.') {
            if (fraction >= 0)
                break;
            fraction = 0;
            continue;
        }
        if (++count > 20)
            r.fail(ErrorCode::InvalidArgument, path, "size '" + text + "' has too many digits");
        digits = digits * 10 + unsigned(text[i] - '0');
        if (fraction >= 0)
            ++fraction;
    }
    std::string unit;
    for (; i < text.size(); ++i) {
        if (!std::isspace(static_cast<unsigned char>(text[i])))
            unit += char(std::tolower(static_cast<unsigned char>(text[i])));
    }
    static const std::pair<const char*, uint64_t> units[] = {
        { "", 1 },
        { "b", 1 },
        { "kb", 1000ull },
        { "mb", 1000000ull },
        { "gb", 1000000000ull },
        { "tb", 1000000000000ull },
        { "kib", 1ull << 10 },
        { "mib", 1ull << 20 },
        { "gib", 1ull << 30 },
        { "tib", 1ull << 40 },
    };
    const uint64_t* scale = nullptr;
    for (const auto& [name, value] : units) {
        if (unit == name)
            scale = &value;
    }
    if (count == 0 || !scale)
        r.fail(ErrorCode::InvalidArgument, path,
            "expected a size such as \"64GiB\" (units B, KB, MB, GB, TB, KiB, MiB, GiB, TiB), got '" + text + "'");
    unsigned __int128 bytes = digits * *scale;
    for (int k = 0; k < std::max(fraction, 0); ++k) {
        if (bytes % 10 != 0)
            r.fail(ErrorCode::InvalidArgument, path, "size '" + text + "' is not a whole number of bytes");
        bytes /= 10;
    }
    if (bytes == 0 || bytes > UINT64_MAX)
        r.fail(ErrorCode::InvalidArgument, path, "size '" + text + "' is out of range");
    return uint64_t(bytes);
}

} // namespace detail

} // namespace engine::scenario
