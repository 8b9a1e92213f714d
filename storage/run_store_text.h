#pragma once
// Internal to run_store*.cpp: how a run's enums, pools and small lists are spelled in the project
// database, both ways, and the column lists the reader and writer agree on.
#include "engine/core/json_text.h"
#include "engine/runtime/simulator.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

namespace storage::runtext {

using Json = nlohmann::json;

/// The enum value whose name() is `text`, among the first `count` values.
template <typename E> std::optional<E> parseName(const std::string& text, const char* (*name)(E), int count)
{
    for (int i = 0; i < count; ++i)
        if (text == name(E(i)))
            return E(i);
    return std::nullopt;
}

constexpr int kLogLevels = 4;
constexpr int kEventKinds = int(engine::runtime::EventKind::MemoryTrace) + 1;
constexpr int kHazardKinds = int(engine::runtime::HazardKind::RecompilePerCall) + 1;
constexpr int kCallActions = int(engine::runtime::CallAction::Raised) + 1;
constexpr int kOwnerKinds = int(engine::runtime::OwnerKind::Recorded) + 1;

/// `,"key":value` (no comma when `first`): the per-row JSON columns are written as text directly.
inline void field(std::string& out, const char* key, std::string_view value, bool first = false)
{
    out += first ? "\"" : ",\"";
    out += key;
    out += "\":";
    engine::appendJsonString(out, value);
}
template <typename T>
std::enable_if_t<std::is_integral_v<T>> field(std::string& out, const char* key, T value, bool first = false)
{
    out += first ? "\"" : ",\"";
    out += key;
    out += "\":";
    out += std::to_string(value);
}

/// "(0, 1)" as PoolId::str() writes it.
std::optional<engine::memory::PoolId> parsePool(const std::string& text);

/// CallRecord::pools as stored in run_calls.pools, the field names of `simulate --json`.
std::string poolStatesJson(const std::vector<engine::runtime::PoolCallState>& pools);
bool readPoolStates(const std::string& text, std::vector<engine::runtime::PoolCallState>& out);

/// (name, value) pairs as a JSON list of [name, value] lists (runs.allocator_settings), in order.
inline std::string pairsJson(const std::vector<std::pair<std::string, std::string>>& pairs)
{
    Json j = Json::array();
    for (const auto& [name, value] : pairs)
        j.push_back(Json::array({ name, value }));
    return engine::jsonText(j, -1);
}
/// The list pairsJson writes; false when `text` is not such a list.
inline bool readPairs(const std::string& text, std::vector<std::pair<std::string, std::string>>& out)
{
    const Json j = Json::parse(text, nullptr, false);
    if (!j.is_array())
        return false;
    for (const Json& p : j) {
        if (!p.is_array() || p.size() != 2 || !p[0].is_string() || !p[1].is_string())
            return false;
        out.emplace_back(p[0].get<std::string>(), p[1].get<std::string>());
    }
    return true;
}

/// Event::categoryBytes as stored in run_events.category_bytes: the numbers separated by commas.
inline std::string numbersText(const std::vector<uint64_t>& values)
{
    std::string out;
    for (size_t i = 0; i < values.size(); ++i) {
        if (i)
            out += ',';
        out += std::to_string(values[i]);
    }
    return out;
}
/// The text numbersText writes; false when `text` is not such a list (then `out` is left empty).
inline bool readNumbers(const std::string& text, std::vector<uint64_t>& out)
{
    out.clear();
    size_t i = 0;
    while (i < text.size()) {
        uint64_t v = 0;
        size_t digits = 0;
        for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i, ++digits) {
            if (v > (UINT64_MAX - uint64_t(text[i] - '0')) / 10) {
                out.clear();
                return false;
            }
            v = v * 10 + uint64_t(text[i] - '0');
        }
        if (!digits || (i < text.size() && text[i++] != ',') || (i == text.size() && text.back() == ',')) {
            out.clear();
            return false;
        }
        out.push_back(v);
    }
    return true;
}

} // namespace storage::runtext
