#include "storage/store_util.h"

#include "engine/core/json_text.h"

#include <filesystem>
#include <nlohmann/json.hpp>

namespace storage::detail {

std::string absolutePath(const std::string& path)
{
    std::error_code ec;
    std::filesystem::path p = std::filesystem::absolute(path, ec);
    return ec ? path : p.lexically_normal().string();
}

void appendJsonString(std::string& out, std::string_view s)
{
    for (char c : s) {
        if (static_cast<unsigned char>(c) >= 0x80) {
            out += engine::jsonText(nlohmann::json(std::string(s)), -1);
            return;
        }
    }
    static const char hex[] = "0123456789abcdef";
    out += '"';
    for (char c : s) {
        const auto u = static_cast<unsigned char>(c);
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (c == '\n') {
            out += "\\n";
        } else if (c == '\t') {
            out += "\\t";
        } else if (c == '\r') {
            out += "\\r";
        } else if (u < 0x20) {
            out += "\\u00";
            out += hex[u >> 4];
            out += hex[u & 15];
        } else {
            out += c;
        }
    }
    out += '"';
}

std::string jsonStringArray(const std::vector<std::string>& items)
{
    std::string out = "[";
    for (size_t i = 0; i < items.size(); ++i) {
        if (i)
            out += ',';
        appendJsonString(out, items[i]);
    }
    return out + "]";
}

std::optional<std::vector<std::string>> parseStringArray(const std::string& text)
{
    const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    if (!j.is_array())
        return std::nullopt;
    std::vector<std::string> out;
    out.reserve(j.size());
    for (const auto& item : j) {
        if (!item.is_string())
            return std::nullopt;
        out.push_back(item.get<std::string>());
    }
    return out;
}

Statement& bindOptional(Statement& s, int index, const std::optional<std::string>& value)
{
    return value ? s.bind(index, std::string_view(*value)) : s.bindNull(index);
}

Statement& bindOptional(Statement& s, int index, const std::optional<int64_t>& value)
{
    return value ? s.bind(index, *value) : s.bindNull(index);
}

std::optional<std::string> optionalText(const Statement& s, int column)
{
    if (s.columnIsNull(column))
        return std::nullopt;
    return s.columnText(column);
}

std::optional<int64_t> optionalInt(const Statement& s, int column)
{
    if (s.columnIsNull(column))
        return std::nullopt;
    return s.columnInt(column);
}

Error badRow(const Database& db, const std::string& message)
{
    return Error { ErrorCode::ParseError, message, db.path() };
}

Result<Statement> selectRun(Database& db, int64_t runId, const std::string& columns)
{
    auto s = db.prepare("SELECT " + columns + " FROM runs WHERE id = ?");
    if (!s)
        return s.error();
    s->bind(1, runId);
    auto found = s->step();
    if (!found)
        return found.error();
    if (!*found)
        return Error { ErrorCode::NotFound, "no run " + std::to_string(runId) + " in the project", db.path() };
    return std::move(*s);
}

} // namespace storage::detail
