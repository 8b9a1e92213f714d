#pragma once
/// Helpers the stores share (internal to storage/): JSON text of the small list columns, reading
/// them back, and binding optional values. JSON is compact (no spaces) and valid UTF-8: invalid
/// bytes in users' strings become U+FFFD (engine::jsonText).
#include "storage/sqlite.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace storage::detail {

/// Appends `s` as a JSON string literal. ASCII takes a fast path without allocating; other text
/// goes through nlohmann (invalid UTF-8 replaced).
void appendJsonString(std::string& out, std::string_view s);
/// `["a","b"]`.
/// `path` made absolute and normalised, as paths are stored (as given when that fails).
std::string absolutePath(const std::string& path);
std::string jsonStringArray(const std::vector<std::string>& items);
/// Parses a JSON array of strings; nullopt when `text` is something else.
std::optional<std::vector<std::string>> parseStringArray(const std::string& text);

/// bind(i, text) when `value` has one, else bindNull(i).
Statement& bindOptional(Statement& s, int index, const std::optional<std::string>& value);
Statement& bindOptional(Statement& s, int index, const std::optional<int64_t>& value);
/// A nullable text / integer column.
std::optional<std::string> optionalText(const Statement& s, int column);
std::optional<int64_t> optionalInt(const Statement& s, int column);

/// `SELECT columns FROM runs WHERE id = runId`, stepped to its row; NotFound ("no run N in the
/// project", the project's path as context) without one.
Result<Statement> selectRun(Database& db, int64_t runId, const std::string& columns);

/// Runs a prepared INSERT and counts the row (ctx.row(): the import's cancel point).
template <typename Ctx> Result<void> insertRow(Ctx& ctx, Statement& s)
{
    auto r = s.run();
    s.reset();
    if (!r)
        return r.error();
    return ctx.row();
}

/// The value of `values` whose `name` is `text`; false when none is.
template <typename Enum, size_t N>
bool parseName(const std::string& text, const Enum (&values)[N], const char* (*name)(Enum), Enum& out)
{
    for (Enum v : values)
        if (text == name(v)) {
            out = v;
            return true;
        }
    return false;
}

/// Steps `s` through its rows and calls `f()` (returning Result<void>) at each; stops at the first
/// error, SQLite's or f's.
template <typename F> Result<void> forEachRow(Statement& s, F&& f)
{
    for (;;) {
        auto row = s.step();
        if (!row)
            return row.error();
        if (!*row)
            return {};
        if (Result<void> r = f(); !r)
            return r;
    }
}

/// An error about what the database holds (a hand-edited or damaged project).
Error badRow(const Database& db, const std::string& message);

} // namespace storage::detail
